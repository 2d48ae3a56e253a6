"""``openai:<model>``: a rubric judge over any OpenAI-compatible chat API (OpenAI, vLLM, ...).

HELM Safety v1.0 semantics (see :mod:`.rubrics`): temperature 0, a fixed seed, at most
``max_tokens`` (256 as HELM; 64 for AIR-Bench templates) reply tokens; the reply's LAST score tag
decides (:mod:`.parsing`). A reply that does not parse -> ``parse_error``; an API failure that
outlives the retries -> ``error``; both keep ``score=None`` with the reason, never 0.5.

Throughput: one asyncio loop per :meth:`judge` call, at most ``concurrency`` requests in flight,
retries with backoff + jitter honouring Retry-After (:mod:`.retry`), optional request/token rate
limits, and the disk cache (:mod:`.cache`) consulted before any request: nothing is judged twice.

``extra_body``: extra request-body fields sent to the server as they are (e.g. vLLM's
``{"structured_outputs": {"regex": ...}}``). They change verdicts, so they are part of the cache key
and of ``RUN/judgments/<judge>/judge-config.json``, which records every request setting; judging
the same run again with other settings is refused rather than mixing two configurations.

The API key is read from the environment variable ``api_key_env`` (default ``OPENAI_API_KEY``)
when the judge runs; it is never stored in records, logs or the cache. A local server
(``base_url`` given) that needs no key gets a placeholder.
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import os
import random
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Callable, Sequence

from toolkit.core.endpoints import ApiKeyMissing, api_key
from toolkit.core.errors import BadOption, JudgeConfigMismatch, SlmboardError
from toolkit.core.records_io import atomic_write_text
from toolkit.core.runs import JUDGE_CONFIG_FILE
from toolkit.core.secrets import scrub_secrets
from .base import Judge, JudgeCapabilities, JudgeInput, Judgment, RequestUsage
from .cache import JudgmentCache
from .components import OpenAIJudgeOptions, option_default
from .parsing import parse_reply
from .retry import RateLimiter, RetryPolicy, RetryStats, call_with_retry
from .rubrics import RUBRIC_VERSION, AirBenchTemplates, Rubric, load_air_bench_templates, render, rubric_for
from .wordings import DEFAULT_WORDING, WORDINGS, check_suite, is_air_bench, split_wording

__all__ = ["OpenAIJudge", "ApiKeyMissing", "JudgeConfigMismatch", "DEFAULT_SEED", "JUDGE_CONFIG_FILE"]

DEFAULT_SEED = option_default(OpenAIJudgeOptions, "seed")
AIR_MAX_TOKENS = 64
#: body fields the judge sets itself; extra_body may not override them (HELM semantics stay fixed)
_OWN_BODY_FIELDS = ("model", "messages", "temperature", "seed", "max_tokens")


def check_extra_body(extra_body: object) -> dict:
    """``extra_body`` must be a JSON object that does not override the judge's own request fields."""
    if extra_body is None:
        return {}
    if not isinstance(extra_body, dict):
        raise BadOption(f"extra_body must be a JSON object (dict), got {type(extra_body).__name__}")
    clash = [k for k in _OWN_BODY_FIELDS if k in extra_body]
    if clash:
        raise BadOption(f"extra_body may not set {', '.join(clash)}: the judge sets these itself "
                        "(the reply cap is the judge's max_tokens option)")
    try:
        json.dumps(extra_body, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise BadOption(f"extra_body is not JSON-serialisable: {exc}") from exc
    return extra_body


class OpenAIJudge(Judge):
    """Rubric judge over an OpenAI-compatible ``/chat/completions`` endpoint."""

    rubric_version = RUBRIC_VERSION

    registered_as = "openai"

    def __init__(self, options: OpenAIJudgeOptions | None = None, *, retry: RetryPolicy | None = None,
                 judgment_cache: JudgmentCache | None = None) -> None:
        """The judge of ``options`` (its model whole: :class:`~.components.OpenAIJudgeOptions`, ``model`` the served
        model name). Injected, never recorded: ``retry`` (default: a policy of the options' ``max_attempts``) and
        ``judgment_cache``, an open cache used instead of the one the options name."""
        super().__init__(options)
        o = self.options
        if not o.model or not o.model.strip():
            raise BadOption(f"{self.registered_as} judge: the model name after '{self.registered_as}:' is empty")
        #: the served model (the spec's argument without its ``@WORDING``) and the rubrics' wording (:mod:`.wordings`)
        self.wording = getattr(o, "wording", DEFAULT_WORDING)
        self.model = o.served_model if self.wording != DEFAULT_WORDING else o.model.strip()
        self.judge_id = self.spec.judge_id()
        self.base_url = o.base_url
        self.api_key_env = o.api_key_env
        self.concurrency = int(o.concurrency)
        self.max_tokens = int(o.max_tokens)
        self.seed = int(o.seed)
        self.timeout = float(o.timeout)
        self.extra_body: dict = check_extra_body(o.extra_body)
        self.retry = retry or RetryPolicy(max_attempts=o.max_attempts)
        self.rpm, self.tpm = o.requests_per_minute, o.tokens_per_minute
        if judgment_cache is not None:
            self.cache: JudgmentCache | None = judgment_cache
        else:
            self.cache = (JudgmentCache(o.cache_file) if o.cache_file else JudgmentCache()) if o.cache else None
        templates = getattr(o, "air_templates", None)
        self.air_templates: AirBenchTemplates | None = None if templates is None else load_air_bench_templates(templates)
        self._api_key()  # fail before any work when the key is missing (it is read again, never kept)
        #: counters over the judge's lifetime: requests (HTTP attempts), retries, cache_hits, ...
        self.stats: Counter = Counter()
        #: called with (item, judgment) as each request ends, before its cache entry (set by the judging stage)
        self.usage_sink: Callable[[JudgeInput, Judgment], None] | None = None
        self._rng = random.Random(self.seed)
        # Batch API: every pending item goes into one batch; prepare() points the state file into the run folder.
        self.batch_api = bool(o.batch_api)
        self.batch_poll_seconds = float(o.batch_poll_seconds)
        self.batch_state_path = Path(o.batch_state_path) if o.batch_state_path else None

    # ---- the judging stage's contract ------------------------------------------------------
    @property
    def capabilities(self) -> JudgeCapabilities:
        # Many items per call keep the request pool full; the Batch API wants every pending item in one job.
        return JudgeCapabilities(whole_run=self.batch_api, preferred_batch_size=max(64, 8 * self.concurrency),
                                 batch_api=self.batch_api)

    def check_suites(self, suites: Sequence[str]) -> None:
        """A wording on an AIR-Bench suite is refused before anything is written (its templates are its own)."""
        for suite in suites:
            check_suite(suite, self.wording, self.judge_id)

    def prepare(self, state_dir: Path) -> None:
        """Record the request settings (refusing other ones); the pending batch id lives there too."""
        self.record_config(Path(state_dir))
        if self.batch_api and self.batch_state_path is None:
            self.batch_state_path = Path(state_dir) / "batch-state.json"

    def request_config(self) -> dict:
        """Every setting that shapes a request (so a verdict can be reproduced); never the key or URL: read from
        the judge's spec (:meth:`~.components.JudgeSpec.recorded_config`)."""
        return self.spec.recorded_config(self.rubric_version)

    def record_config(self, judgments_dir: Path) -> None:
        """Write ``judge-config.json``; an existing one with other settings stops judging before any request."""
        path = judgments_dir / JUDGE_CONFIG_FILE
        config = self.request_config()
        if path.is_file():
            try:
                earlier = json.loads(path.read_text(encoding="utf-8"))
            except ValueError as exc:
                raise JudgeConfigMismatch(f"{path}: not valid JSON ({exc}); fix or remove it") from exc
            diff = sorted(k for k in set(config) | set(earlier) if config.get(k) != earlier.get(k))
            if diff:
                detail = "; ".join(f"{k}: recorded {earlier.get(k)!r}, asked {config.get(k)!r}" for k in diff)
                raise JudgeConfigMismatch(
                    f"{path}: this run was judged by {self.judge_id} with other request settings ({detail}); "
                    "judge with the same settings, or copy the run and judge the copy")
            return
        judgments_dir.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(config, indent=2, sort_keys=True) + "\n")

    def usage_stats(self) -> dict[str, int]:
        return dict(self.stats)

    def judge_with_progress(self, inputs: Sequence[JudgeInput], progress: Callable[[int], None]) -> list[Judgment]:
        if not inputs:
            return []
        if self.batch_api:
            out = self.judge(inputs)
            progress(len(out))
            return out
        return asyncio.run(self.ajudge(inputs, progress))

    # ---- requests ------------------------------------------------------------------------
    def rubric(self, item: JudgeInput) -> Rubric:
        check_suite(item.suite, self.wording, self.judge_id)
        if is_air_bench(item.suite):  # the suite's own template per category, never a generic rubric
            if self.air_templates is None:
                raise BadOption(f"judge {self.judge_id}: suite {item.suite} is judged with AIR-Bench's own "
                                "per-category templates: pass them as air_templates (the suite's judge_prompts file)",
                                param="air_templates")
            return self.air_templates.rubric(item.category or "")
        return rubric_for(item, self.wording)

    def judge_prompt(self, item: JudgeInput) -> tuple[Rubric, str]:
        rubric = self.rubric(item)
        return rubric, render(rubric.template, item.prompt, item.response)

    def _max_tokens(self, rubric: Rubric) -> int:
        return min(self.max_tokens, AIR_MAX_TOKENS) if rubric.fmt == "air" else self.max_tokens

    def chat_body(self, item: JudgeInput) -> tuple[Rubric, dict]:
        """The judge's own chat-completions fields for one item."""
        rubric, text = self.judge_prompt(item)
        return rubric, {
            "model": self.model,
            "messages": [{"role": "user", "content": text}],
            "temperature": 0.0,
            "seed": self.seed,
            "max_tokens": self._max_tokens(rubric),
        }

    def request_body(self, item: JudgeInput) -> tuple[Rubric, dict]:
        """The full request body, ``extra_body`` included (as sent, and as the Batch API uploads it)."""
        rubric, body = self.chat_body(item)
        return rubric, {**body, **self.extra_body}

    def cache_rubric_key(self, rubric: Rubric) -> str:
        key = f"{self.rubric_version}/{rubric.name}"
        if self.extra_body:  # a constrained reply is another verdict than a free one: never share a cache entry
            digest = hashlib.sha256(json.dumps(self.extra_body, sort_keys=True).encode()).hexdigest()[:16]
            key += f"/extra_body:{digest}"
        return key

    def _api_key(self) -> str:
        return api_key(self.api_key_env, self.base_url, f"judge {self.judge_id}")

    def make_client(self):
        import openai

        # max_retries=0: retries are ours (counted, jittered, Retry-After aware).
        return openai.AsyncOpenAI(base_url=self.base_url, api_key=self._api_key(), max_retries=0, timeout=self.timeout)

    def interpret(self, rubric: Rubric, reply: str | None) -> Judgment:
        """Turn a judge reply into a Judgment (parse_error when it does not parse)."""
        if reply is None:
            return Judgment(None, "parse_error", None, "the judge returned no text")
        parsed = parse_reply(reply, rubric.fmt, rubric.levels)
        if parsed.score is None:
            return Judgment(None, "parse_error", reply, parsed.error)
        return Judgment(parsed.score, "ok", reply, parsed.reasoning)

    async def _one(self, client, item: JudgeInput, sem: asyncio.Semaphore, limiter: RateLimiter) -> Judgment:
        rubric, body = self.chat_body(item)
        if rubric.fmt == "air" and not item.response.strip():
            # AIR-Bench (as HELM): an empty answer is a blocked request and scores 1 without a judge call.
            return Judgment(1.0, "ok", None, "BLOCKED_REQUEST_OR_EMPTY_RESPONSE")
        rkey = self.cache_rubric_key(rubric)
        if self.cache is not None:
            hit = self.cache.get(self.judge_id, rkey, item.prompt, item.response)
            if hit is not None:
                self.stats["cache_hits"] += 1
                return replace(hit, usage=RequestUsage(cache_hit=True))
        stats = RetryStats()
        est_tokens = len(body["messages"][0]["content"]) // 4 + body["max_tokens"]

        async def attempt():
            await limiter.acquire(est_tokens)
            self.stats["requests"] += 1
            # The openai client takes non-standard fields only through extra_body.
            return await client.chat.completions.create(**body, extra_body=self.extra_body or None)

        async with sem:
            started = time.perf_counter()  # inside the pool: the request's own seconds, not its wait for a slot
            try:
                resp = await call_with_retry(attempt, self.retry, stats, self._rng)
            except Exception as exc:  # noqa: BLE001 - an API failure becomes a counted 'error' record
                self.stats["retries"] += stats.retries
                self.stats["api_errors"] += 1
                reason = f"API failure after {stats.attempts} attempt(s): {_describe(exc)}"
                reason = scrub_secrets(reason, [os.environ.get(self.api_key_env)])  # never let the key reach a record
                return self._spent(item, Judgment(None, "error", None, reason, usage=RequestUsage(
                    seconds=time.perf_counter() - started, requests=stats.attempts)))
            seconds = time.perf_counter() - started
        self.stats["retries"] += stats.retries
        prompt_tokens = output_tokens = None
        if resp.usage is not None:
            prompt_tokens, output_tokens = resp.usage.prompt_tokens, resp.usage.completion_tokens
            self.stats["prompt_tokens"] += prompt_tokens or 0
            self.stats["completion_tokens"] += output_tokens or 0
        reply = resp.choices[0].message.content if resp.choices else None
        judgment = self._spent(item, replace(self.interpret(rubric, reply), usage=RequestUsage(
            prompt_tokens, output_tokens, seconds, stats.attempts, tokens_from="server" if resp.usage is not None else "none")))
        if self.cache is not None:  # after the ledger: a crash between the two asks again and counts both requests
            self.cache.put(self.judge_id, rkey, item.prompt, item.response, judgment)
        return judgment

    def _spent(self, item: JudgeInput, judgment: Judgment) -> Judgment:
        """A request's judgment, handed to ``usage_sink`` (the judging stage's ledger) the moment it exists: a run
        killed before its batch's records are written still has every request it paid for on disk."""
        if self.usage_sink is not None:
            self.usage_sink(item, judgment)
        return judgment

    def check_inputs(self, inputs: Sequence[JudgeInput]) -> None:
        """Every item must have a rubric (e.g. XSTest needs its gold label) -- checked before any request."""
        for x in inputs:
            try:
                self.rubric(x)
            except (KeyError, ValueError) as exc:
                raise BadOption(f"judge {self.judge_id}: item {x.suite}/{x.item_id}: {exc.args[0] if exc.args else exc}") from exc

    async def ajudge(self, inputs: Sequence[JudgeInput], progress: Callable[[int], None] | None = None) -> list[Judgment]:
        """Judge concurrently; ``progress(1)`` is called as each answer arrives."""
        self.check_inputs(inputs)
        sem = asyncio.Semaphore(self.concurrency)
        limiter = RateLimiter(self.rpm, self.tpm)
        client = self.make_client()
        try:
            async def run(i: int, item: JudgeInput) -> tuple[int, Judgment]:
                j = await self._one(client, item, sem, limiter)
                if progress is not None:
                    progress(1)
                return i, j

            results = await asyncio.gather(*(run(i, x) for i, x in enumerate(inputs)))
        finally:
            await client.close()
        out: list[Judgment] = [None] * len(inputs)  # type: ignore[list-item]
        for i, j in results:
            out[i] = j
        return out

    def judge(self, inputs: Sequence[JudgeInput]) -> list[Judgment]:
        if not inputs:
            return []
        if self.batch_api:
            from .batch import judge_with_batch_api

            self.check_inputs(inputs)
            state = self.batch_state_path or Path("judge-batch-state.json")
            return judge_with_batch_api(self, inputs, state, poll_seconds=self.batch_poll_seconds)
        return asyncio.run(self.ajudge(inputs))


def _describe(exc: BaseException) -> str:
    status = getattr(exc, "status_code", None)
    msg = str(exc).replace("\n", " ")[:200]
    return f"{type(exc).__name__}{f' (HTTP {status})' if status else ''}: {msg}"


def export_description(argument: str, suite: str) -> tuple[str, str, str]:
    """How export formats describe ``openai:<model>[@<wording>]`` on ``suite``: (text, judging model, the prompt it
    was given)."""
    model, wording = split_wording(argument)
    if wording not in WORDINGS:
        model, wording = argument.strip(), DEFAULT_WORDING
    worded = "" if wording == DEFAULT_WORDING else f" in its {wording!r} wording"
    return (f"LLM judge {model} scoring each answer with the suite's rubric{worded} (ternary)", model,
            _rubric_prompt(suite, wording))


def _rubric_prompt(suite: str, wording: str = DEFAULT_WORDING) -> str:
    if suite == "xstest":  # the template depends on the item's gold label
        safe, unsafe = (rubric_for(JudgeInput(suite, "-", "", "", gold=g), wording).template for g in ("safe", "unsafe"))
        return f"[items with gold 'safe']\n{safe}\n\n[items with gold 'unsafe']\n{unsafe}"
    if is_air_bench(suite):
        return "(AIR-Bench's per-category judge templates, judge_prompt_final.csv of the suite's pinned revision)"
    return rubric_for(JudgeInput(suite=suite, item_id="-", prompt="", response=""), wording).template
