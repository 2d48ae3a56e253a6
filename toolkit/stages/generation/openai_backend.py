"""The ``openai`` backend: any OpenAI-compatible chat endpoint (OpenAI, vLLM, llm-katan, ...).

Named as every component that talks to such a server is (:mod:`toolkit.core.endpoints`)::

    slmboard generate --model openai:gpt-4o-2024-05-13 --base-url http://127.0.0.1:8000/v1 --api-key-env MY_KEY_VAR

``revision`` (optional) is what to record as the model revision; ``max_retries`` and ``timeout`` go to
the openai client. The same options may be given lm-eval style (``--model-args base_url=...``).
The key is read from the environment at start-up and never written anywhere (run.json records the
variable's name only); a server on 127.0.0.1 / localhost without a key gets a placeholder.

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

import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Iterator

from toolkit.core.endpoints import api_key
from toolkit.core.errors import SlmboardError
from .backends import Backend, Completion, ModelDescription
from .components import GenerationRunOptions, OpenAIBackendOptions


class OpenAIBackend(Backend):
    name = "openai"
    uses_accelerator = False  # requests to a server

    def __init__(self, options: OpenAIBackendOptions, run: GenerationRunOptions | None = None):
        """The client of ``options`` (its model whole: ``model`` the served model name); ``run``: the run's
        options, read for its batch size (requests in flight)."""
        model, base_url, api_key_env, revision = options.model, options.base_url, options.api_key_env, options.revision
        max_retries, timeout = options.max_retries, options.timeout
        batch_size = run.batch_size if run is not None else None
        try:
            import openai
        except ImportError as exc:  # pragma: no cover - openai is in the [run] extra
            raise SlmboardError("the openai backend needs the `openai` package: pip install 'slmboard[run]'") from exc
        self.model, self.base_url = model, base_url or None
        key = api_key(api_key_env, self.base_url, f"model backend openai:{model}")
        self.batch_size = int(batch_size) if isinstance(batch_size, int) or (isinstance(batch_size, str) and batch_size.isdigit()) else 8
        self.concurrency = self.batch_size
        self.client = openai.OpenAI(api_key=key, base_url=self.base_url, max_retries=max_retries, timeout=timeout)
        self._check_model()
        self.revision = revision or f"api:{self.model}"

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
        started = time.perf_counter()
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
            n_prompt_tokens=getattr(usage, "prompt_tokens", None) if usage else None,
            seconds=time.perf_counter() - started,
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
