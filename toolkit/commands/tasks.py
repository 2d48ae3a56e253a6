"""slmboard tasks: where the task configs slmboard ships for other tools are (one line, for $(...))."""
from __future__ import annotations

import argparse


def run(a) -> int:
    from toolkit import api

    print(api.task_folder(a.tool))
    return 0


def register(p: argparse.ArgumentParser) -> None:
    p.description = "lm_eval --include_path \"$(slmboard tasks lm-eval)\" --tasks slmboard_xstest ..."
    p.add_argument("tool", choices=["lm-eval"], help="lm-eval: one task per suite (slmboard_<suite>; BBQ as multiple choice)")
    p.set_defaults(func=run)
