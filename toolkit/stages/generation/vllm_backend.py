"""The ``vllm`` backend: vLLM's offline ``LLM`` engine, in this process (extra ``slmboard[vllm]`` on CUDA).

What runs where:

- **CPU (vllm-cpu)**: tested on every CI run (``tests/generation/test_vllm_cpu.py``): in ``.venv-vllm``
  (``make vllm-venv vllm-toolkit``) the records of ``generate --model vllm:<folder>`` equal the ``hf``
  backend's (prompts, chat-template hash, greedy answers, BBQ choices by ``prompt_logprobs``); resume after a
  kill, ``--shard K/N`` and ``merge`` run through it.
- **CUDA GPU**: the same code; only ``tests/generation/test_vllm_backend.py`` (marked ``gpu``) and
  ``bench/gpu_check.py`` (a prepared check for a lent GPU machine: a tiny random Llama built in place; the
  ``vllm`` row runs only where vllm is installed) exercise it, and no GPU has been available yet.

Where vllm-cpu differs from GPU vLLM the backend says so in one line (stderr) or refuses in one line
(:func:`cpu_settings`): dtype defaults to float32 (as ``hf`` on CPU; vLLM's own ``auto`` would downcast to
bfloat16); ``gpu_memory_utilization`` is a share of this machine's RAM (and is refused when that much is not
free); the KV cache is 2 GiB unless ``VLLM_CPU_KVCACHE_SPACE`` (GiB) or ``gpu_memory_utilization`` is given;
tensor/pipeline/data-parallel ranks are processes bound to CPU core groups (one NUMA node each, or the
``|``-separated groups of ``VLLM_CPU_OMP_THREADS_BIND``), refused when there are not enough groups.
``enforce_eager=true`` skips vLLM's torch.compile warm-up (minutes on a small CPU machine).

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
import os
import sys
from pathlib import Path
from typing import Any

from toolkit.core.errors import BadOption, SlmboardError
from .backends import Backend, Completion, ModelDescription, model_info_from_config
from .components import EMBEDDED_MODEL, GenerationRunOptions, VLLMOptions
from .hf import resolve_weights


class VLLMBackend(Backend):
    name = "vllm"

    def __init__(self, options: VLLMOptions | None = None, run: GenerationRunOptions | None = None):
        """The engine of ``options`` (its model whole); ``run``: the run's options, read for its batch size."""
        o = options or VLLMOptions()
        pretrained, revision, dtype, trust_remote_code = o.pretrained, o.revision, o.dtype, o.trust_remote_code
        max_length, model_id, enforce_eager = o.max_length, o.model_id, o.enforce_eager
        tensor_parallel_size, data_parallel_size = o.tensor_parallel_size, o.data_parallel_size
        pipeline_parallel_size, gpu_memory_utilization = o.pipeline_parallel_size, o.gpu_memory_utilization
        distributed_executor_backend = o.distributed_executor_backend
        batch_size = run.batch_size if run is not None else None
        try:
            from vllm import LLM
            from vllm.platforms import current_platform
        except ImportError as exc:
            raise SlmboardError(
                "the vllm backend needs vLLM: pip install 'slmboard[vllm]' on a CUDA machine, or the vllm-cpu "
                "build on CPU (built from vLLM's source for the CPU: see vLLM's installation guide)"
            ) from exc
        self.device = "cpu" if current_platform.is_cpu() else current_platform.device_type
        cpu: dict[str, Any] = {}
        if self.device == "cpu":  # checked before the weights are resolved or an engine process starts
            cpu = cpu_settings(dtype, gpu_memory_utilization, tensor_parallel_size, pipeline_parallel_size,
                               data_parallel_size)
        source, self.model_id, self.revision = resolve_weights(pretrained, revision, model_id)
        self.dtype = dtype or cpu.pop("dtype", "auto")
        kwargs: dict[str, Any] = dict(model=source, dtype=self.dtype, seed=0, **cpu)
        if not Path(source).is_dir():
            kwargs["revision"] = self.revision  # the resolved commit, never a moving branch
        engine = dict(tensor_parallel_size=tensor_parallel_size, data_parallel_size=data_parallel_size,
                      pipeline_parallel_size=pipeline_parallel_size, gpu_memory_utilization=gpu_memory_utilization,
                      max_model_len=max_length, trust_remote_code=trust_remote_code,
                      distributed_executor_backend=distributed_executor_backend, enforce_eager=enforce_eager)
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
        return ModelDescription(self.model_id, self.revision, dtype, self.device, self.chat_template_sha256, info)

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
            out.append(Completion(text=c.text, n_output_tokens=len(c.token_ids), finish_reason=c.finish_reason,
                                  n_prompt_tokens=len(o.prompt_token_ids or ()) or None))
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


#: KV cache of the engine on vllm-cpu when neither VLLM_CPU_KVCACHE_SPACE nor gpu_memory_utilization says otherwise
#: (vLLM's default, 0.9 of the machine's RAM, fails at engine start on any machine that runs anything else).
CPU_KV_CACHE_GIB = 2


def cpu_settings(dtype: str | None, gpu_memory_utilization: float | None, tensor_parallel_size: int | None,
                 pipeline_parallel_size: int | None, data_parallel_size: int | None) -> dict[str, Any]:
    """What the vllm-cpu engine gets beyond the user's options; refuses, in one line, what cannot work on CPU
    (vLLM itself would fail inside an engine process with an assertion or a memory error). Prints one
    line saying how this differs from GPU vLLM."""
    ranks = (tensor_parallel_size or 1) * (pipeline_parallel_size or 1) * (data_parallel_size or 1)
    if ranks > 1:
        groups = cpu_core_groups()
        if groups < ranks:
            raise BadOption(
                f"vllm-cpu: tensor/pipeline/data parallel ranks ({ranks}) run as processes on CPU core groups, and "
                f"this machine has {groups} (one per NUMA node, or set VLLM_CPU_OMP_THREADS_BIND='0-7|8-15' with one "
                "group per rank); use 1 rank on CPU, or a GPU machine", param="tensor_parallel_size")
    out: dict[str, Any] = {}
    notes = [f"dtype {dtype or 'float32'}" + ("" if dtype else " (GPU default: bfloat16/float16; as the hf backend on CPU)")]
    if not dtype:
        out["dtype"] = "float32"
    if gpu_memory_utilization is not None:
        import psutil

        memory = psutil.virtual_memory()
        wanted = memory.total * gpu_memory_utilization
        if not os.environ.get("VLLM_CPU_KVCACHE_SPACE") and wanted > memory.available:
            raise BadOption(
                f"vllm-cpu: gpu_memory_utilization={gpu_memory_utilization} means {wanted / 2**30:.1f} GiB of this "
                f"machine's RAM ({memory.total / 2**30:.1f} GiB), and only {memory.available / 2**30:.1f} GiB is free; "
                "give a smaller share, or the KV cache size as VLLM_CPU_KVCACHE_SPACE=<GiB>",
                param="gpu_memory_utilization")
        notes.append(f"gpu_memory_utilization={gpu_memory_utilization} is a share of RAM")
    if os.environ.get("VLLM_CPU_KVCACHE_SPACE"):
        notes.append(f"KV cache {os.environ['VLLM_CPU_KVCACHE_SPACE']} GiB (VLLM_CPU_KVCACHE_SPACE)")
    elif gpu_memory_utilization is None:
        out["kv_cache_memory_bytes"] = CPU_KV_CACHE_GIB * 2**30
        notes.append(f"KV cache {CPU_KV_CACHE_GIB} GiB (VLLM_CPU_KVCACHE_SPACE=<GiB> to change)")
    print("vllm-cpu (not GPU vLLM): " + "; ".join(notes), file=sys.stderr)
    return out


def cpu_core_groups() -> int:
    """How many vllm-cpu worker ranks this machine can bind: the ``|``-separated core groups of
    VLLM_CPU_OMP_THREADS_BIND, else (``auto``, vLLM's default) one per NUMA node; ``nobind``: no limit."""
    bind = os.environ.get("VLLM_CPU_OMP_THREADS_BIND", "auto")
    if bind == "nobind":
        return sys.maxsize
    if bind != "auto":
        return len([g for g in bind.split("|") if g.strip()])
    nodes = list(Path("/sys/devices/system/node").glob("node[0-9]*"))
    return max(1, len(nodes))
