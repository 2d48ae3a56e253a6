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
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

#: Architectures whose decoder layers all use full causal attention with rotary position ids and
#: call ``cache.update`` per layer: the slot cache and the 4-D mask below are right for them.
#: Others (sliding windows, ALiBi, linear attention) use the backend's chunked path instead.
SUPPORTED_MODEL_TYPES = {"llama", "mistral", "qwen2", "qwen3"}
_GROW_STEP = 256  # slot length grows in steps of this many positions (amortised copies)
#: Fewest rows a CPU worker thread should decode together: below this a one-thread step is too
#: small a matrix product to pay for itself (BENCHMARKS.md, "Generation").
MIN_ROWS_PER_WORKER = 8


def default_workers(device: str, rows: int) -> int:
    """Decode threads for ``rows`` rows: one per intra-op thread on CPU while each keeps
    MIN_ROWS_PER_WORKER rows; one on an accelerator (its kernels already use the whole device)."""
    if not str(device).startswith("cpu"):
        return 1
    import torch

    return max(1, min(torch.get_num_threads(), rows // MIN_ROWS_PER_WORKER))


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
        self.kv = torch.zeros(self.shape, dtype=dtype, device=device)
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
        # Zeros, never torch.empty: attention weighs masked positions by exactly 0, but 0 x NaN is NaN,
        # and recycled memory can hold NaN bit patterns (seen after another model's run).
        grown = self.torch.zeros((*self.shape[:4], new_cap, self.shape[5]), dtype=self.kv.dtype, device=self.kv.device)
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
    ``workers`` > 1 splits the rows among that many threads, each decoding its own continuous
    batch of its share of the prompts with ``threads // workers`` intra-op threads: on a few
    CPU cores one-thread matrix products on half the rows keep both cores busy, where two threads
    sharing every small product wait at its barriers (BENCHMARKS.md, "Generation").
    """

    def __init__(self, model: Any, max_rows: int, is_stop: Callable[[list[int]], bool], workers: int = 1):
        import torch

        self.torch = torch
        self.model = model
        self.max_rows = max(1, int(max_rows))
        self.workers = max(1, min(int(workers), self.max_rows))
        self.is_stop = is_stop
        params = inspect.signature(model.forward).parameters
        self.cache_kw = "cache" if "cache" in params else "past_key_values"
        config = model.config
        head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
        share, extra = divmod(self.max_rows, self.workers)
        self.caches = [
            SlotCache(config.num_hidden_layers, config.num_key_value_heads, head_dim, share + (k < extra),
                      next(model.parameters()).dtype, next(model.parameters()).device)
            for k in range(self.workers)
        ]
        self._stop_lock = threading.Lock()  # workers share is_stop; tokenizers need not be thread-safe
        self.cache = self.caches[0]
        #: What the last run did (tests and benchmarks read it): decode steps (summed over workers),
        #: prompts prefilled, prompts that joined a batch already decoding, the most rows decoded
        #: together in one step, and the workers used.
        self.stats = {"steps": 0, "prefills": 0, "joined_mid_run": 0, "max_rows_seen": 0, "workers": 0}

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

    def _step(self, rows: list[_Row], cache: SlotCache) -> list[int]:
        torch = self.torch
        positions, mask = cache.begin_step(len(rows))
        ids = torch.tensor([[r.tokens[-1]] for r in rows], dtype=torch.long, device=cache.kv.device)
        out = self.model(input_ids=ids, attention_mask=mask, position_ids=positions, use_cache=True,
                         **{self.cache_kw: cache})
        cache.end_step()
        return torch.argmax(out.logits[:, -1, :].float(), dim=-1).tolist()

    def run(self, requests: list[Request], max_new_tokens: int) -> Iterator[Finished]:
        """Yield each request's answer as soon as it is finished (every request exactly once)."""
        self.stats = dict.fromkeys(self.stats, 0)
        workers = min(self.workers, max(1, len(requests)))
        self.stats["workers"] = workers
        if workers == 1:
            waiting = deque(requests)
            with self.torch.inference_mode():
                yield from self._serve(self.caches[0], waiting, max_new_tokens, self._record)
            return
        yield from _threaded(self, requests, max_new_tokens, workers)

    def _record(self, key: str, value: int) -> None:
        if key == "max_rows_seen":
            self.stats[key] = max(self.stats[key], value)
        else:
            self.stats[key] += value

    def _serve(self, cache: SlotCache, waiting: deque, max_new_tokens: int,
               record: Callable[[str, int], None], stop: Callable[[], bool] = lambda: False) -> Iterator[Finished]:
        """One continuous batch in ``cache``'s slots, fed from ``waiting`` until it is empty."""
        rows: list[_Row] = []
        steps = 0
        while not stop():
            while waiting and len(rows) < cache.shape[2]:
                request = waiting.popleft()
                token, layer_kv = self._prefill(request)
                record("prefills", 1)
                record("joined_mid_run", int(bool(rows) and steps > 0))
                row = _Row(request, [token])
                if self._done(row, max_new_tokens):
                    yield self._finish(row, max_new_tokens)
                    continue
                cache.load(len(rows), layer_kv)
                rows.append(row)
            if not rows:
                return
            steps += 1
            record("steps", 1)
            record("max_rows_seen", len(rows))
            for row, token in zip(rows, self._step(rows, cache)):
                row.tokens.append(token)
            # Finished rows leave; the last rows fill their slots so the live rows stay in front.
            for slot in range(len(rows) - 1, -1, -1):
                if self._done(rows[slot], max_new_tokens):
                    finished = rows[slot]
                    last = len(rows) - 1
                    if slot != last:
                        cache.move(last, slot)
                        rows[slot] = rows[last]
                    rows.pop()
                    yield self._finish(finished, max_new_tokens)

    def _stops(self, tokens: list[int]) -> bool:
        with self._stop_lock:
            return self.is_stop(tokens)

    def _done(self, row: _Row, max_new_tokens: int) -> bool:
        return len(row.tokens) >= max_new_tokens or self._stops(row.tokens)

    def _finish(self, row: _Row, max_new_tokens: int) -> Finished:
        return Finished(row.request.index, row.tokens, stopped=self._stops(row.tokens))


def _threaded(engine: ContinuousGreedy, requests: list[Request], max_new_tokens: int, workers: int) -> Iterator[Finished]:
    """Run ``workers`` continuous batches in threads; yield answers in the order they finish.

    Worker k decodes requests k, k + workers, ... (fixed before any thread starts): which prompts
    share a batch never depends on thread timing, so a rerun computes every row exactly as before
    (a shared queue would let timing change batch composition, and with it the last bits).
    Torch releases the GIL inside each operator, so the threads' matrix products run in parallel.
    Grad mode and intra-op thread counts are per thread: each worker sets both for itself. A worker's
    error is raised here; closing the generator early stops the workers after their current step.
    """
    import queue

    torch = engine.torch
    threads_each = max(1, torch.get_num_threads() // workers)
    queues = [deque(requests[k::workers]) for k in range(workers)]
    lock = threading.Lock()
    stopping = threading.Event()
    results: "queue.Queue[Any]" = queue.Queue()
    done_marker = object()

    def record(key: str, value: int) -> None:
        with lock:
            engine._record(key, value)

    def work(cache: SlotCache, waiting: deque) -> None:
        try:
            torch.set_num_threads(threads_each)
            with torch.inference_mode():
                for finished in engine._serve(cache, waiting, max_new_tokens, record, stopping.is_set):
                    results.put(finished)
        except BaseException as error:  # noqa: BLE001 - handed to the consumer
            stopping.set()
            results.put(error)
        finally:
            results.put(done_marker)

    pool = [threading.Thread(target=work, args=(cache, queue_k), name=f"decode-{k}", daemon=True)
            for k, (cache, queue_k) in enumerate(zip(engine.caches, queues))]
    try:
        for thread in pool:
            thread.start()
        running = len(pool)
        while running:
            item = results.get()
            if item is done_marker:
                running -= 1
            elif isinstance(item, BaseException):
                raise item
            else:
                yield item
    finally:
        stopping.set()
        for thread in pool:
            thread.join()
