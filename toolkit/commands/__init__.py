"""One module per ``slmboard`` sub-command. Each defines ``register(subparsers)``; the CLI lists them here.

Keeping commands apart keeps cli.py small and lets each stage own its command-line face.
"""
from __future__ import annotations

from importlib import import_module

#: Sub-command modules in the order `slmboard --help` shows them.
COMMAND_MODULES = (
    "generate",
    "merge",
    "import_",
    "tasks",
    "judge",
    "validate",
    "submit",
    "evaluate",
    "recompute",
    "rank",
    "export",
    "analyze",
    "agreement",
    "moderate",
    "moderation_report",
    "serve",
    "space",
    "review",
    "demo",
)


def register_all(subparsers) -> None:
    for name in COMMAND_MODULES:
        import_module(f"{__name__}.{name}").register(subparsers)
