"""The ``openai`` backend: any OpenAI-compatible chat endpoint (OpenAI, vLLM, llm-katan, ...).

Model arguments (lm-eval's ``local-chat-completions`` style)::

    model=gpt-4o-2024-05-13                      # or pretrained=...; the served model name
    base_url=http://127.0.0.1:8000/v1           # default: the openai client's (OPENAI_BASE_URL / api.openai.com)
    api_key_env=MY_KEY_VAR                       # the *name* of the variable holding the key (default OPENAI_API_KEY)
    revision=2024-05-13                          # optional: what to record as the model revision

The key is read from the environment at start-up and never written anywhere (run.json records the
variable's name only). A local server (127.0.0.1 / localhost) without a key gets a placeholder,
since such servers only check that the header is present.

Decoding: temperature 0, ``max_tokens`` = max_new_tokens, ``seed`` passed through (servers that
ignore it are still greedy at temperature 0). The chat template is the server's business, so
``chat_template_sha256`` is recorded as null with ``info.chat_template = "server"``.
:meth:`generate_stream` keeps ``concurrency`` requests in flight (``generate --concurrency N``;
default the batch size), starting the next prompt the moment one answer arrives, so a server that
batches continuously (vLLM) always sees N requests and never waits for a batch's slowest answer;
answers are yielded in the order they finish. The openai client retries 429 / 5xx /
timeouts with exponential backoff, honouring Retry-After. The model revision is ``revision=`` when
given, else ``api:<served model name>`` — an API model cannot be pinned to weights, and the record
says so.
"""
from __future__ import annotations

import os
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Iterator
from urllib.parse import urlparse

from ..errors import BadOption, SlmboardError
from .backends import Backend, Completion, ModelDescription, register_backend

DEFAULT_KEY_ENV = "OPENAI_API_KEY"
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}


@register_backend("openai")
class OpenAIBackend(Backend):
    name = "openai"
    uses_accelerator = False  # requests to a server

    def __init__(self, model_args: dict[str, str], batch_size: int | str | None = None):
        try:
            import openai
        except ImportError as exc:  # pragma: no cover - openai is in the [run] extra
            raise SlmboardError("the openai backend needs the `openai` package: pip install 'slmboard[run]'") from exc
        self.model = model_args.get("model") or model_args.get("pretrained")
        if not self.model:
            raise BadOption("the openai backend needs model=<served model name> in model_args (e.g. model=gpt-4o-2024-05-13)",
                            param="model_args")
        self.base_url = model_args.get("base_url") or None
        key_env = model_args.get("api_key_env") or DEFAULT_KEY_ENV
        key = os.environ.get(key_env)
        if not key:
            host = urlparse(self.base_url or "").hostname
            if host not in LOCAL_HOSTS:
                raise SlmboardError(
                    f"no API key: set the environment variable {key_env} (or name another with api_key_env=VAR)",
                    param="model_args",
                )
            key = "EMPTY"  # local servers only check that the header is there
        self.batch_size = int(batch_size) if isinstance(batch_size, int) or (isinstance(batch_size, str) and batch_size.isdigit()) else 8
        self.concurrency = self.batch_size
        self.client = openai.OpenAI(api_key=key, base_url=self.base_url, max_retries=int(model_args.get("max_retries", 6)),
                                    timeout=float(model_args.get("timeout", 300)))
        self._check_model()
        self.revision = model_args.get("revision") or f"api:{self.model}"

    def _check_model(self) -> None:
        """Fail before the run when the server does not serve this model (listing what it serves)."""
        import openai

        try:
            served = [m.id for m in self.client.models.list()]
        except openai.NotFoundError:
            return  # some compatible servers have no /models; the first request will tell
        except openai.APIError as exc:
            raise SlmboardError(f"cannot reach the OpenAI-compatible server at {self.client.base_url}: {exc}") from exc
        if served and self.model not in served:
            raise SlmboardError(f"model {self.model!r} is not served at {self.client.base_url}; valid models: {', '.join(sorted(served))}")

    def describe(self) -> ModelDescription:
        info = {"chat_template": "server", "base_url": str(self.client.base_url)}
        return ModelDescription(self.model, self.revision, None, "api", None, info)

    def default_batch_size(self) -> int:
        return self.concurrency

    def set_concurrency(self, n: int) -> None:
        self.concurrency = int(n)

    def _one(self, prompt: str, max_new_tokens: int, seed: int | None) -> Completion:
        resp = self.client.chat.completions.create(
            model=self.model,
            messages=[{"role": "user", "content": prompt}],
            temperature=0.0,
            max_tokens=max_new_tokens,
            seed=seed,
            n=1,
        )
        if not resp.choices:
            raise SlmboardError(f"{self.client.base_url}: a chat completion with no choices for model {self.model!r}")
        choice = resp.choices[0]
        usage = getattr(resp, "usage", None)
        return Completion(
            text=choice.message.content or "",
            n_output_tokens=getattr(usage, "completion_tokens", None) if usage else None,
            finish_reason=choice.finish_reason,
        )

    def generate(self, prompts: list[str], max_new_tokens: int, seed: int | None) -> list[Completion]:
        out: list[Completion | None] = [None] * len(prompts)
        for index, completion in self.generate_stream(prompts, max_new_tokens, seed):
            out[index] = completion
        return out  # type: ignore[return-value]

    def generate_stream(self, prompts: list[str], max_new_tokens: int, seed: int | None) -> Iterator[tuple[int, Completion]]:
        """Up to ``concurrency`` requests in flight; each finished one is replaced at once and yielded."""
        import openai

        todo = iter(enumerate(prompts))
        pool = ThreadPoolExecutor(max_workers=max(1, min(len(prompts), self.concurrency)))
        in_flight: dict = {}

        def submit_next() -> None:
            for index, prompt in todo:
                in_flight[pool.submit(self._one, prompt, max_new_tokens, seed)] = index
                return

        try:
            for _ in range(self.concurrency):
                submit_next()
            while in_flight:
                finished, _ = wait(in_flight, return_when=FIRST_COMPLETED)
                for future in finished:
                    index = in_flight.pop(future)
                    completion = future.result()
                    submit_next()  # the server never waits for the caller to write this answer
                    yield index, completion
        except openai.APIError as exc:
            # After the client's retries: stop the run (answers already yielded are kept; re-running resumes).
            raise SlmboardError(f"{self.client.base_url}: request failed after retries: {exc}") from exc
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
