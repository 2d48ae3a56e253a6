"""Continuous (in-flight) batching for greedy decoding with a transformers causal LM.

Rows decode together one token per step; a finished row leaves at once and a waiting prompt takes
its place, so no step is spent on padding for answers that ended long ago (what a fixed batch does
with long, ragged answers). How each row is computed, so that answers match one prompt at a time:

- **prefill alone**: a joining prompt runs by itself, exactly as ``model.generate`` runs it
  (same input ids, 2-D mask, ``logits_to_keep=1``), so its first token and its key/value cache are
  bit-for-bit those of a one-prompt run;
- **decode together**: the step feeds every row's last token with its own position id; keys and
  values live in per-row slots (:class:`SlotCache`, no left padding, no per-step concatenation), and
  a per-row mask hides each slot's unused tail. Greedy = ``argmax`` over float32 logits, as
  ``generate`` does.

Batched float32 matrix products are not bit-identical to the one-row products of a one-prompt run
(BLAS picks another kernel for one row; differences ~1e-5), so identical *text* is an empirical
property, measured in ``bench/generation.py`` and tested against one-at-a-time decoding.
"""
from __future__ import annotations

import inspect
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

#: Architectures whose decoder layers all use full causal attention with rotary position ids and
#: call ``cache.update`` per layer: the slot cache and the 4-D mask below are right for them.
#: Others (sliding windows, ALiBi, linear attention) use the backend's chunked path instead.
SUPPORTED_MODEL_TYPES = {"llama", "mistral", "qwen2", "qwen3"}
_GROW_STEP = 256  # slot length grows in steps of this many positions (amortised copies)


def supports(model: Any) -> bool:
    config = model.config
    if getattr(config, "model_type", None) not in SUPPORTED_MODEL_TYPES:
        return False
    if getattr(config, "sliding_window", None) and getattr(config, "use_sliding_window", True) is not False:
        # Mistral/Qwen configs carry a window; it only matters once a row is longer than it.
        return int(config.sliding_window) >= int(getattr(config, "max_position_embeddings", 0) or 0)
    layer_types = getattr(config, "layer_types", None) or []
    return all(t == "full_attention" for t in layer_types)


class SlotCache:
    """Keys and values of the rows in flight: row r of the step lives in slot r, positions 0..len-1.

    The model calls :meth:`update` once per layer with the new token's keys/values ([rows, heads, 1,
    dim]); they are written at each row's own position and the slots' first ``span`` positions are
    returned for attention (the mask hides what lies past each row's length).
    """

    def __init__(self, n_layers: int, n_kv_heads: int, head_dim: int, max_rows: int, dtype, device):
        import torch

        self.torch = torch
        self.shape = (n_layers, 2, max_rows, n_kv_heads, 0, head_dim)
        self.kv = torch.empty(self.shape, dtype=dtype, device=device)
        self.lengths = torch.zeros(max_rows, dtype=torch.long, device=device)
        self.rows = 0  # rows in this step (slots 0..rows-1)
        self.span = 0  # positions attention looks at in this step

    @property
    def capacity(self) -> int:
        return self.kv.shape[4]

    def reserve(self, length: int) -> None:
        if length <= self.capacity:
            return
        new_cap = -(-length // _GROW_STEP) * _GROW_STEP
        grown = self.torch.empty((*self.shape[:4], new_cap, self.shape[5]), dtype=self.kv.dtype, device=self.kv.device)
        grown[:, :, :, :, : self.capacity] = self.kv
        self.kv = grown

    def load(self, slot: int, layer_kv: list[tuple[Any, Any]]) -> None:
        """Copy a one-prompt prefill cache (per layer: keys, values [1, heads, L, dim]) into ``slot``."""
        length = layer_kv[0][0].shape[2]
        self.reserve(length + 1)
        for layer, (keys, values) in enumerate(layer_kv):
            self.kv[layer, 0, slot, :, :length] = keys[0]
            self.kv[layer, 1, slot, :, :length] = values[0]
        self.lengths[slot] = length

    def move(self, src: int, dst: int) -> None:
        """Slot ``src`` takes the place of the finished row in ``dst`` (rows stay packed at the front)."""
        n = int(self.lengths[src])
        self.kv[:, :, dst, :, :n] = self.kv[:, :, src, :, :n]
        self.lengths[dst] = self.lengths[src]

    def begin_step(self, rows: int):
        """Positions of this step's new tokens ([rows, 1]) and the attention mask ([rows, 1, 1, span])."""
        self.rows = rows
        positions = self.lengths[:rows]
        self.span = int(positions.max()) + 1
        self.reserve(self.span)
        keys_at = self.torch.arange(self.span, device=self.kv.device)
        mask = (keys_at[None, :] <= positions[:, None])[:, None, None, :]
        return positions[:, None].clone(), mask

    def end_step(self) -> None:
        self.lengths[: self.rows] += 1

    def update(self, key_states, value_states, layer_idx: int, *args, **kwargs):
        rows = self.torch.arange(self.rows, device=self.kv.device)
        at = self.lengths[: self.rows]
        self.kv[layer_idx, 0, rows, :, at] = key_states[:, :, 0, :]
        self.kv[layer_idx, 1, rows, :, at] = value_states[:, :, 0, :]
        return self.kv[layer_idx, 0, : self.rows, :, : self.span], self.kv[layer_idx, 1, : self.rows, :, : self.span]


@dataclass
class Request:
    index: int
    input_ids: list[int]  # the context, tokenised exactly as the one-prompt path tokenises it


@dataclass
class Finished:
    index: int
    tokens: list[int]  # generated ids, including the stop token when one ended the answer
    stopped: bool  # True: a stop token / stop sequence ended it; False: max_new_tokens reached


@dataclass
class _Row:
    request: Request
    tokens: list[int] = field(default_factory=list)


class ContinuousGreedy:
    """Greedy decoding of many prompts with at most ``max_rows`` in flight (see the module doc).

    ``is_stop(tokens)`` says whether the generated ids so far end the answer (EOS, stop strings).
    """

    def __init__(self, model: Any, max_rows: int, is_stop: Callable[[list[int]], bool]):
        import torch

        self.torch = torch
        self.model = model
        self.max_rows = max(1, int(max_rows))
        self.is_stop = is_stop
        params = inspect.signature(model.forward).parameters
        self.cache_kw = "cache" if "cache" in params else "past_key_values"
        config = model.config
        head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
        self.cache = SlotCache(
            config.num_hidden_layers, config.num_key_value_heads, head_dim, self.max_rows,
            next(model.parameters()).dtype, next(model.parameters()).device,
        )
        #: What the last run did (tests and benchmarks read it): decode steps, prompts prefilled,
        #: prompts that joined a batch already decoding, and the most rows decoded together.
        self.stats = {"steps": 0, "prefills": 0, "joined_mid_run": 0, "max_rows_seen": 0}

    def _prefill(self, request: Request) -> tuple[int, list[tuple[Any, Any]]]:
        """First token and per-layer key/values of one prompt, computed as ``generate`` computes them."""
        from transformers import DynamicCache

        torch = self.torch
        device = self.cache.kv.device
        ids = torch.tensor([request.input_ids], dtype=torch.long, device=device)
        cache = DynamicCache(config=self.model.config)
        out = self.model(input_ids=ids, attention_mask=torch.ones_like(ids), use_cache=True, logits_to_keep=1,
                         **{self.cache_kw: cache})
        token = int(torch.argmax(out.logits[:, -1, :].float(), dim=-1)[0])
        return token, [(layer.keys, layer.values) for layer in cache.layers]

    def _step(self, rows: list[_Row]) -> list[int]:
        torch = self.torch
        positions, mask = self.cache.begin_step(len(rows))
        ids = torch.tensor([[r.tokens[-1]] for r in rows], dtype=torch.long, device=self.cache.kv.device)
        out = self.model(input_ids=ids, attention_mask=mask, position_ids=positions, use_cache=True,
                         **{self.cache_kw: self.cache})
        self.cache.end_step()
        return torch.argmax(out.logits[:, -1, :].float(), dim=-1).tolist()

    def run(self, requests: list[Request], max_new_tokens: int) -> Iterator[Finished]:
        """Yield each request's answer as soon as it is finished (every request exactly once)."""
        waiting = deque(requests)
        rows: list[_Row] = []
        self.stats = dict.fromkeys(self.stats, 0)
        with self.torch.inference_mode():
            while waiting or rows:
                while waiting and len(rows) < self.max_rows:
                    request = waiting.popleft()
                    token, layer_kv = self._prefill(request)
                    self.stats["prefills"] += 1
                    self.stats["joined_mid_run"] += bool(rows) and self.stats["steps"] > 0
                    row = _Row(request, [token])
                    if self._done(row, max_new_tokens):
                        yield self._finish(row, max_new_tokens)
                        continue
                    self.cache.load(len(rows), layer_kv)
                    rows.append(row)
                if not rows:
                    continue
                self.stats["steps"] += 1
                self.stats["max_rows_seen"] = max(self.stats["max_rows_seen"], len(rows))
                for row, token in zip(rows, self._step(rows)):
                    row.tokens.append(token)
                # Finished rows leave; the last rows fill their slots so the live rows stay in front.
                for slot in range(len(rows) - 1, -1, -1):
                    if self._done(rows[slot], max_new_tokens):
                        finished = rows[slot]
                        last = len(rows) - 1
                        if slot != last:
                            self.cache.move(last, slot)
                            rows[slot] = rows[last]
                        rows.pop()
                        yield self._finish(finished, max_new_tokens)

    def _done(self, row: _Row, max_new_tokens: int) -> bool:
        return len(row.tokens) >= max_new_tokens or self.is_stop(row.tokens)

    def _finish(self, row: _Row, max_new_tokens: int) -> Finished:
        return Finished(row.request.index, row.tokens, stopped=self.is_stop(row.tokens))
