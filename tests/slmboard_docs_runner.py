"""The docs runner: every ```bash and ```python block of README.md and docs/**/*.md is run or checked.

The convention the pages are written to:

- A block with no marker RUNS on the embedded default. The blocks of one page run in order in one fresh
  scratch folder (state carries over between them): bash blocks with ``bash -euo pipefail``, python
  blocks with the docs venv's python. ``PATH`` starts with that venv's ``bin``; ``HF_ENDPOINT`` points at a Hub
  emulator started for the page and ``HF_TOKEN`` is its token, so ``submit --to my-org/my-board``
  really publishes (to the emulator). A block must exit 0.
- A marker comment on the line directly before the fence, ``<!-- needs: gpu -->`` (also ``hub``,
  ``api-key``, ``network``, ``time``; several comma-separated), says what the block needs that a test
  machine lacks. Such a block is not run; every ``slmboard`` command in it is parsed by the real parser
  (the command, every flag and every value must parse) and every ``make TARGET`` must name a target of
  the Makefile. A marked python block must compile.
- ``<!-- docs: output -->`` before a block, or any other fence language (text, yaml, console), is never run.

Outside the repository and off the network: every page runs against the built wheel installed into a fresh venv
(:mod:`slmboard_docs_sandbox`), in an empty folder, with nothing of the checkout on ``PYTHONPATH``, and with
every proxy variable at a closed port of this machine (only the Hub emulator, on 127.0.0.1, answers) and no
package index. What a page reads it makes in an earlier block from the installed package: a block that fetches
(``<!-- needs: network -->``) is followed by its offline twin (``slmboard suites download --sample``, the
package's copy of a release file, ``slmboard model-path`` for another tool's model). Only another tool's output
folder, written by a marked run of that tool, is made by the runner under the same name
(:data:`slmboard_docs_sandbox.SUPPLIES`). No block names ``tests/``.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NEEDS = {"gpu", "hub", "api-key", "network", "time"}
_MARKER = re.compile(r"^\s*<!--\s*(needs|docs)\s*:\s*(.*?)\s*-->\s*$")
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
_RUNNABLE = {"bash": "bash", "sh": "bash", "shell": "bash", "python": "python", "py": "python"}


@dataclass
class Block:
    page: Path
    line: int  # 1-based line of the opening fence
    lang: str  # "bash" | "python"
    code: str
    needs: set[str] = field(default_factory=set)

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(REPO) if self.page.is_relative_to(REPO) else self.page}:{self.line}"


def doc_pages() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def blocks(page: Path) -> list[Block]:
    """The bash and python blocks of ``page`` (output blocks left out), with their markers."""
    lines = page.read_text(encoding="utf-8").splitlines()
    out, i = [], 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        indent, ticks, lang = fence.groups()
        start, body = i, []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(ticks):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].lstrip())
            i += 1
        i += 1
        marker = _MARKER.match(lines[start - 1]) if start else None
        kind = _RUNNABLE.get(lang.lower())
        if kind is None or (marker and marker.group(1) == "docs" and "output" in marker.group(2)):
            continue
        needs = set()
        if marker and marker.group(1) == "needs":
            needs = {n.strip() for n in marker.group(2).split(",") if n.strip()}
            unknown = needs - NEEDS
            if unknown:
                raise ValueError(f"{page}:{start + 1}: unknown need(s) {sorted(unknown)}; known: {sorted(NEEDS)}")
        out.append(Block(page, start + 1, kind, "\n".join(body) + "\n", needs))
    return out


# ---- checking a block that is not run --------------------------------------------------------------
def command_lines(code: str) -> list[list[str]]:
    """Each ``slmboard ...`` / ``make ...`` command of a shell block, as argv (continuations joined, prompts
    and comments dropped, ``$VAR`` and ``<PLACEHOLDER>`` replaced by a dummy word)."""
    joined = re.sub(r"\\\n\s*", " ", code)
    commands = []
    heredoc_end = None  # the body of a here-document (cat > FILE <<'EOF' ... EOF) is a file's text, not commands
    for raw in joined.splitlines():
        if heredoc_end is not None:
            heredoc_end = None if raw.strip() == heredoc_end else heredoc_end
            continue
        opened = re.search(r"<<-?\s*['\"]?(\w+)['\"]?", raw)
        heredoc_end = opened.group(1) if opened else None
        line = raw.strip().removeprefix("$ ")
        if not line or line.startswith("#"):
            continue
        line = re.sub(r"<[^<>\s][^<>]*>", "PLACEHOLDER", line)
        try:
            words = shlex.split(line, comments=True)
        except ValueError as exc:
            raise AssertionError(f"cannot split {line!r}: {exc}") from exc
        words = [re.sub(r"\$\{?\w+\}?", "x", w) for w in words]
        segment: list[str] = []
        for word in [*words, ";"]:
            if word in (";", "&&", "||", "|", "&"):
                if segment and segment[0] in ("slmboard", "make"):
                    commands.append(segment)
                segment = []
            elif word.startswith(("VAR=", "HF_", "CUDA_")) and not segment and "=" in word:
                continue  # an environment assignment before the command
            else:
                segment.append(word)
    return commands


def check_command(argv: list[str]) -> str | None:
    """None when ``argv`` parses (slmboard) / names a target (make); else what is wrong."""
    if argv[0] == "make":
        targets = set(re.findall(r"^([\w.-]+):", (REPO / "Makefile").read_text(), re.M))
        bad = [t for t in argv[1:] if not t.startswith("-") and "=" not in t and t not in targets]
        return f"make: no target {bad}" if bad else None
    import contextlib
    import io

    from toolkit.cli import build_parser

    args = argv[1:]
    command = next((a for a in args if not a.startswith("-")), "")
    errors = io.StringIO()
    try:  # in-process: the parser only reads the arguments, and one import serves every command
        with contextlib.redirect_stderr(errors), contextlib.redirect_stdout(io.StringIO()):
            build_parser(command).parse_args(args)
    except SystemExit as exc:
        if exc.code not in (0, None):  # 0: --help
            return f"`{shlex.join(argv)}` does not parse: {errors.getvalue().strip()[-600:]}"
    return None


def check_block(block: Block) -> list[str]:
    if block.lang == "python":
        try:
            compile(block.code, block.where, "exec")
        except SyntaxError as exc:
            return [f"{block.where}: does not compile: {exc}"]
        return []
    return [f"{block.where}: {problem}" for argv in command_lines(block.code) if (problem := check_command(argv))]


# ---- running a page --------------------------------------------------------------------------------
def page_env(scratch: Path, emulator, install) -> dict[str, str]:
    """The environment of a page's blocks: the installed wheel's venv first on PATH, the Hub emulator, and
    nothing of the checkout importable."""
    # `pip install` on a page installs into the scratch folder (on PYTHONPATH), never into the session's venv,
    # from local folders only and with the venv's setuptools (no index: the test machine has no network)
    from slmboard_docs_sandbox import offline_env

    site = scratch / ".site-packages"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "SLMBOARD_DATA_DIR")
           and k.lower() not in ("http_proxy", "https_proxy", "all_proxy", "no_proxy")}
    return {**env, **offline_env(), "PATH": str(install.bin) + os.pathsep + os.environ.get("PATH", ""), "VIRTUAL_ENV": str(install.root),
            "HF_ENDPOINT": emulator.url,
            "HF_TOKEN": emulator.token, "HF_HOME": str(scratch / ".hf-home"), "HF_HUB_DISABLE_XET": "1",
            "HF_HUB_DISABLE_TELEMETRY": "1", "HF_HUB_DISABLE_PROGRESS_BARS": "1",
            "PYTHONPATH": str(site), "PIP_TARGET": str(site),
            "PIP_NO_BUILD_ISOLATION": "0", "PIP_DISABLE_PIP_VERSION_CHECK": "1", "COLUMNS": "100"}


def supply_inputs(page_blocks: list[Block], scratch: Path) -> list[str]:
    """What the page's marked blocks leave (another tool's output folder), made in ``scratch`` under the same
    names."""
    from slmboard_docs_sandbox import supply

    return supply([b.code for b in page_blocks if b.needs], scratch)


def run_block(block: Block, scratch: Path, env: dict[str, str], install,
              timeout: float = 900) -> subprocess.CompletedProcess:
    if block.lang == "bash":
        argv = ["bash", "-euo", "pipefail", "-c", block.code]
    else:
        argv = [str(install.python), "-c", block.code]
    return subprocess.run(argv, cwd=scratch, env=env, capture_output=True, text=True, timeout=timeout)


def failure(block: Block, proc: subprocess.CompletedProcess) -> str:
    return (f"{block.where}: exit {proc.returncode}\n--- block ---\n{block.code}--- output (tail) ---\n"
            f"{(proc.stdout[-2000:] + proc.stderr[-4000:]).strip()}")
