"""The ``hf`` backend: lm-eval's HFLM (the loader lm-eval users know), greedy, chat template applied."""
from __future__ import annotations

import hashlib
import os
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

from toolkit.core.errors import SlmboardError
from . import embedded
from .backends import Backend, Completion, ModelDescription, model_info_from_config
from .components import EMBEDDED_MODEL, GenerationRunOptions, HFOptions


#: Rows in flight in generate_stream when no batch size is given (measured in bench/generation.py).
DEFAULT_CONTINUOUS_ROWS = 32


def resolve_dtype(requested: str | None, device: str) -> str:
    if requested and requested != "auto":
        return requested
    if device.startswith("cuda"):
        import torch

        return "bfloat16" if torch.cuda.is_bf16_supported() else "float16"
    # CPU: float32. Measured (BENCHMARKS.md, "Generation"): bf16 made batched answers differ from
    # one-at-a-time answers on 6–11 of 16 prompts and was not faster on 2 threads; fp32 batching is
    # identical and ≥5× faster than one at a time. Pass dtype=bfloat16 to trade that for speed.
    return "float32"


def _local_revision(path: Path) -> str:
    """Content hash of a local model folder (weights + config + tokenizer files)."""
    digest = hashlib.sha256()
    for f in sorted(p for p in path.rglob("*") if p.is_file()):
        digest.update(f.relative_to(path).as_posix().encode())
        with open(f, "rb") as fh:
            while block := fh.read(1 << 20):
                digest.update(block)
    return f"sha256:{digest.hexdigest()[:16]}"


def _hub_revision(repo: str, revision: str | None) -> str:
    from toolkit.core.hub_access import hub_api, hub_call

    try:
        with hub_call(repo, kind="model", revision=revision):  # Hub failures: one line with what to do
            return hub_api().model_info(repo, revision=revision or "main").sha or (revision or "main")
    except SlmboardError:
        raise
    except Exception as exc:  # offline or unknown repo: say so instead of recording a floating name
        raise SlmboardError(f"cannot resolve revision {revision or 'main'!r} of {repo!r} on the Hub: {exc}") from exc


def resolve_weights(pretrained: str, revision: str | None, model_id: str | None) -> tuple[str, str, str]:
    """(what to load, model id to record, revision to record) of ``pretrained``: the embedded model, a local
    folder (content-hashed) or a Hub id (its revision resolved to a commit, never a moving branch)."""
    if pretrained == EMBEDDED_MODEL:
        path, rev = embedded.dense_model_dir()
        return str(path), embedded.MODEL_ID, rev
    if Path(pretrained).is_dir():
        return pretrained, model_id or Path(pretrained).name, _local_revision(Path(pretrained))
    return pretrained, pretrained, _hub_revision(pretrained, revision)


class HFBackend(Backend):
    name = "hf"

    def __init__(self, options: HFOptions | None = None, run: GenerationRunOptions | None = None):
        """The backend of ``options`` (its model whole); ``run``: the run's options, read for its batch size."""
        import torch

        o = options or HFOptions()
        pretrained, revision, dtype, device = o.pretrained, o.revision, o.dtype, o.device
        trust_remote_code, max_length, model_id, decode_workers = (o.trust_remote_code, o.max_length, o.model_id,
                                                                   o.decode_workers)
        batch_size = run.batch_size if run is not None else None

        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.dtype = resolve_dtype(dtype, self.device)
        source, self.model_id, self.revision = resolve_weights(pretrained, revision, model_id)
        # Rows decoded together by generate_stream (the continuous batch): an explicit batch size
        # caps them (memory), else DEFAULT_CONTINUOUS_ROWS; --concurrency overrides either.
        self.max_rows = batch_size if isinstance(batch_size, int) else DEFAULT_CONTINUOUS_ROWS
        if batch_size in (None, "auto"):
            # lm-eval's "auto" probes batch 64 at full length: minutes and >10 GB on CPU. Fixed there.
            batch_size = "auto" if self.device.startswith("cuda") else 8
        self.batch_size = batch_size
        # Threads decoding their own share of the rows (continuous.ContinuousGreedy); None: the
        # default of continuous.default_workers.
        self.workers = decode_workers
        from lm_eval.models.huggingface import HFLM

        kwargs: dict[str, Any] = dict(pretrained=source, device=self.device, batch_size=batch_size, dtype=self.dtype)
        if max_length:
            kwargs["max_length"] = max_length
        if trust_remote_code is not None:
            kwargs["trust_remote_code"] = trust_remote_code
        if self.revision and not Path(source).is_dir():
            kwargs["revision"] = self.revision
        self.lm = HFLM(**kwargs)
        self.tokenizer = self.lm.tokenizer
        template = getattr(self.tokenizer, "chat_template", None)
        self.chat_template_sha256 = hashlib.sha256(template.encode()).hexdigest() if template else None

    def describe(self) -> ModelDescription:
        info = model_info_from_config(self.lm.model.config)
        info["params"] = sum(p.numel() for p in self.lm.model.parameters())
        return ModelDescription(self.model_id, self.revision, self.dtype, self.device, self.chat_template_sha256, info)

    def default_batch_size(self) -> int:
        return self.max_rows

    def set_concurrency(self, n: int) -> None:
        self.max_rows = int(n)

    def _context(self, prompt: str) -> str:
        if self.chat_template_sha256 is None:
            return prompt
        return self.lm.apply_chat_template([{"role": "user", "content": prompt}])

    def generate(self, prompts: list[str], max_new_tokens: int, seed: int | None) -> list[Completion]:
        from lm_eval.api.instance import Instance

        if seed is not None:
            import torch

            torch.manual_seed(seed)
        requests = [
            Instance(
                "generate_until",
                doc={},
                arguments=(self._context(p), {"until": [], "max_gen_toks": max_new_tokens, "do_sample": False}),
                idx=i,
            )
            for i, p in enumerate(prompts)
        ]
        texts = self.lm.generate_until(requests, disable_tqdm=True)
        out = []
        for text, prompt in zip(texts, prompts):
            n = len(self.tokenizer(text, add_special_tokens=False)["input_ids"])
            out.append(Completion(text=text, n_output_tokens=n, finish_reason="length" if n >= max_new_tokens else "stop",
                                  n_prompt_tokens=len(self._encode_context(prompt, max_new_tokens))))
        return out

    def _encode_context(self, prompt: str, max_new_tokens: int) -> list[int]:
        """Context ids exactly as lm-eval's ``generate_until`` builds them for a batch of one."""
        ids, _ = self.lm.tok_batch_encode(
            [self._context(prompt)], left_truncate_len=self.lm.max_length - max_new_tokens, truncation=self.lm.truncation
        )
        return ids[0].tolist()

    def generate_stream(self, prompts: list[str], max_new_tokens: int, seed: int | None) -> Iterator[tuple[int, Completion]]:
        """Continuous batching (:mod:`.continuous`): each answer is yielded as soon as it is finished."""
        from . import continuous

        if not continuous.supports(self.lm.model):
            yield from super().generate_stream(prompts, max_new_tokens, seed)
            return
        if seed is not None:
            import torch

            torch.manual_seed(seed)
        stops = _StopRule(self.lm, self.tokenizer)
        engine = continuous.ContinuousGreedy(self.lm.model, self.max_rows, stops.is_stop,
                                             workers=self.workers or continuous.default_workers(
                                                 self.device, min(self.max_rows, len(prompts))))
        requests = [continuous.Request(i, self._encode_context(p, max_new_tokens)) for i, p in enumerate(prompts)]
        for done in engine.run(requests, max_new_tokens):
            completion = stops.completion(done.tokens, done.stopped)
            yield done.index, replace(completion, n_prompt_tokens=len(requests[done.index].input_ids))

    def option_logprobs(self, prompts: list[str], options: list[list[str]]) -> list[list[float]]:
        from lm_eval.api.instance import Instance

        requests, shape = [], []
        for i, (prompt, opts) in enumerate(zip(prompts, options)):
            ctx = self._context(prompt)
            # After a chat template the answer opens the assistant turn; after a raw "Answer:" it
            # follows a space, as in lm-eval's multiple-choice tasks.
            sep = "" if self.chat_template_sha256 is not None or ctx.endswith((" ", "\n")) else " "
            for opt in opts:
                requests.append(Instance("loglikelihood", doc={}, arguments=(ctx, sep + opt), idx=i))
            shape.append(len(opts))
        results = self.lm.loglikelihood(requests, disable_tqdm=True)
        out, k = [], 0
        for n in shape:
            out.append([float(r[0]) for r in results[k : k + n]])
            k += n
        return out


class _StopRule:
    """When an answer ends and what its text is, as lm-eval's ``generate_until`` decides for one prompt:
    an EOS id of the generation config, or a stop string (lm-eval adds the EOS text) found in the
    decoded last ``len(stop ids) + 2`` generated tokens; the text is decoded without special tokens
    and cut at the first stop string."""

    def __init__(self, lm: Any, tokenizer: Any):
        from lm_eval.models.utils import handle_stop_sequences

        eos = lm.model.generation_config.eos_token_id
        self.eos_ids = set(eos if isinstance(eos, (list, tuple)) else [] if eos is None else [eos])
        self.until = handle_stop_sequences(None, eos=lm.tok_decode(lm.eot_token_id, skip_special_tokens=False))
        self.lookback = [(s, len(tokenizer.encode(s, add_special_tokens=False)) + 2) for s in self.until]
        self.lm, self.tokenizer = lm, tokenizer

    def is_stop(self, tokens: list[int]) -> bool:
        if tokens[-1] in self.eos_ids:
            return True
        return any(stop in self.tokenizer.decode(tokens[-n:]) for stop, n in self.lookback)

    def completion(self, tokens: list[int], stopped: bool) -> Completion:
        from lm_eval.models.utils import postprocess_generated_text

        think = self.lm.think_end_token
        cont = tokens
        if isinstance(think, int) and think in cont:
            cont = cont[len(cont) - cont[::-1].index(think):]
        text = self.lm.tok_decode(cont)
        if isinstance(think, int):
            text = text.lstrip()
        text = postprocess_generated_text(text, self.until, think if isinstance(think, str) else None)
        n = len(tokens) - (1 if stopped and tokens[-1] in self.eos_ids else 0)
        return Completion(text=text, n_output_tokens=n, finish_reason="stop" if stopped else "length")


os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# Threads sleep at OpenMP barriers instead of spinning: with other processes on the same cores,
# spinning made batched float32 matmuls 5-10x slower (BENCHMARKS.md, "Generation"). Read by the
# OpenMP runtime when torch loads, so it only applies if torch is not imported yet; set
# OMP_WAIT_POLICY=ACTIVE to opt out.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
