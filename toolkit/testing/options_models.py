"""Every :class:`~toolkit.core.options.Options` model of the toolkit, for the tests that hold the API and the
builders to "an option is written once" (each module is imported first, so every model is defined)."""
from __future__ import annotations

import importlib
import pkgutil

__all__ = ["all_options_models"]


def all_options_models() -> set[type]:
    """Every subclass of Options, found after importing each toolkit module (an optional extra that is not
    installed -- vllm, ray -- is passed over: its models are elsewhere)."""
    import toolkit
    from toolkit.core.options import Options

    for module in pkgutil.walk_packages(toolkit.__path__, "toolkit."):
        try:
            importlib.import_module(module.name)
        except ImportError:
            continue
    seen: set[type] = set()
    todo = [Options]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in seen:
                seen.add(sub)
                todo.append(sub)
    return seen
