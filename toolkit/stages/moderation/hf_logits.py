"""Local transformers model: greedy continuation plus the log-probabilities of the first new token.

One ``generate`` call gives both confidences: the first step's logits (the option letter right
after the judgment prefix) and the rest of the JSON (the verbalized confidence). Prompts are
already chat-templated strings, tokenized without extra special tokens so that exactly the same
token sequence reaches an API server given the same string.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np


class HFLogits:
    def __init__(self, model_dir: str | Path, dtype: str = "float32", device: str | None = None):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.torch = torch
        self.model_dir = str(model_dir)
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.tokenizer = AutoTokenizer.from_pretrained(self.model_dir)
        self.tokenizer.padding_side = "left"  # the next token after every prompt sits at the last column
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.dtype = dtype
        self.model = AutoModelForCausalLM.from_pretrained(self.model_dir, dtype=getattr(torch, dtype)).to(self.device)
        self.model.eval()

    def token_id(self, text: str) -> int:
        """The first token of ``text`` (an option letter or a guard's decision word)."""
        ids = self.tokenizer.encode(text, add_special_tokens=False)
        if not ids:
            raise ValueError(f"{text!r} encodes to no token")
        return ids[0]

    def generate(self, prompts: Sequence[str], max_new_tokens: int) -> tuple[list[str], np.ndarray]:
        """(greedy continuations, log-softmax of the first new token's logits: [batch, vocab] fp64)."""
        torch = self.torch
        enc = self.tokenizer(list(prompts), return_tensors="pt", padding=True, add_special_tokens=False).to(self.device)
        with torch.inference_mode():
            out = self.model.generate(
                **enc, max_new_tokens=max_new_tokens, do_sample=False, temperature=None, top_p=None, top_k=None,
                output_logits=True, return_dict_in_generate=True, pad_token_id=self.tokenizer.pad_token_id,
            )
        first = torch.log_softmax(out.logits[0].double(), dim=-1).cpu().numpy()
        new = out.sequences[:, enc["input_ids"].shape[1]:]
        texts = self.tokenizer.batch_decode(new, skip_special_tokens=True)
        return texts, first

    def next_logprobs(self, prompts: Sequence[str]) -> np.ndarray:
        """Log-softmax of the next-token logits after each prompt (one forward pass)."""
        torch = self.torch
        enc = self.tokenizer(list(prompts), return_tensors="pt", padding=True, add_special_tokens=False).to(self.device)
        with torch.inference_mode():
            logits = self.model(**enc).logits[:, -1, :]
        return torch.log_softmax(logits.double(), dim=-1).cpu().numpy()


def two_option_p(lp_flag: float, lp_no_flag: float) -> float:
    """P(flag) renormalised over the two option tokens: e^a / (e^a + e^b) = sigmoid(a - b)."""
    z = lp_flag - lp_no_flag
    return float(1.0 / (1.0 + np.exp(-z))) if z >= 0 else float(np.exp(z) / (1.0 + np.exp(z)))
