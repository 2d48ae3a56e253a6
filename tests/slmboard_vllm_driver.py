"""`slmboard` commands run one after another in one long-lived process under .venv-vllm, on one vLLM engine.

    PYTHONPATH=REPO .venv-vllm/bin/python tests/slmboard_vllm_driver.py REPLY_FD

Reads one JSON object per line on stdin, ``{"argv": ["generate", "--model", "vllm:...", ...]}``, runs
``toolkit.cli.main(argv)`` (the CLI of the source tree, unchanged) and writes one JSON line
``{"rc": int, "stdout": str, "stderr": str}`` to the file descriptor REPLY_FD (vLLM logs to stdout itself).

Why one process: a vLLM engine takes a minute or two to start on 2 busy CPU cores, so a test module starts
one. The only change to the product's path: the backend a spec builds is kept (per spec and options) and
handed to the next command with the same spec, with that command's batch size. Used by
tests/generation/test_vllm_cpu.py.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import sys


def keep_backends() -> None:
    from toolkit.stages.generation.components import BackendSpec

    built: dict[str, object] = {}
    build = BackendSpec.build

    def build_once(self, batch_size=None):
        key = f"{self} {self.options!r}"
        if key not in built:
            built[key] = build(self, batch_size)
        backend = built[key]
        backend.batch_size = int(batch_size) if isinstance(batch_size, int) else 64  # the runner's write unit
        return backend

    BackendSpec.build = build_once


def main() -> int:
    reply = os.fdopen(int(sys.argv[1]), "w", buffering=1)
    keep_backends()
    from toolkit.cli import main as cli

    for line in sys.stdin:
        if not line.strip():
            continue
        argv = json.loads(line)["argv"]
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = cli(argv)
            except SystemExit as exc:  # argparse refusals
                rc = exc.code if isinstance(exc.code, int) else 1
            except Exception as exc:  # a bug: its traceback goes back to the test
                import traceback

                traceback.print_exc()
                rc = f"{type(exc).__name__}: {exc}"
        reply.write(json.dumps({"rc": rc, "stdout": out.getvalue(), "stderr": err.getvalue()}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
