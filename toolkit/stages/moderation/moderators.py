"""Moderators: a local transformers model (logits) or an OpenAI-compatible server (logprobs), both
asked the fixed two-option prompt.

Decision rule: when the option-token logprobs are available the decision is the more probable
option (flag iff p_flag >= 0.5, the paper's ``answer_lp``); otherwise it is the generated
judgment; when neither exists the item is a parse failure (decision null, counted by the report).
"""
from __future__ import annotations

import json
import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence

from toolkit.core.endpoints import api_key
from .components import APIModeratorOptions, JudgeModeratorOptions, LocalModeratorOptions
from .hf_logits import two_option_p
from .prompt import parse_verdict, render, spec
from .suite import ModerationItem

if TYPE_CHECKING:
    from toolkit.stages.judging import JudgeSpec

MAX_NEW_TOKENS = 12  # 'A)", "confidence": 10}' is 8 tokens in SmolLM2's tokenizer; a little slack


@dataclass(frozen=True)
class Outcome:
    decision: Optional[str]
    p_flag_logprob: Optional[float]
    confidence_verbal: Optional[float]
    raw_output: Optional[str]


class Moderator:
    moderator_id: str
    revision: str
    backend: str
    #: items per :meth:`moderate` call (the moderation stage's batch)
    batch_size: int = 8

    def moderate(self, items: Sequence[ModerationItem], variant: str = "default") -> list[Outcome]:
        raise NotImplementedError


def _unit(item: ModerationItem) -> str:
    from .sources import source

    return source(item.benchmark).unit


def decide(p_flag: Optional[float], continuation: Optional[str], variant: str) -> Outcome:
    verdict = parse_verdict(continuation, variant) if continuation is not None else None
    decision = ("flag" if p_flag >= 0.5 else "no_flag") if p_flag is not None else (verdict.decision if verdict else None)
    return Outcome(decision, p_flag, verdict.confidence_verbal if verdict else None, continuation)


class LocalModerator(Moderator):
    """A transformers causal LM on this machine (default: the embedded SmolLM2, fp32)."""

    backend = "hf"
    #: tokens generated after the prompt (the verdict and its confidence)
    max_new_tokens = MAX_NEW_TOKENS

    def __init__(self, options: LocalModeratorOptions | None = None):
        """The moderator of ``options`` (its model whole; ``model_dir`` None: the embedded SmolLM2)."""
        from .hf_logits import HFLogits

        o = options or LocalModeratorOptions()
        model_dir, moderator_id, dtype, revision = o.model_dir, o.moderator_id, o.dtype, None
        if model_dir is None:
            from toolkit.stages.generation.embedded import MODEL_ID, dense_model_dir

            model_dir, revision = dense_model_dir()
            moderator_id = moderator_id or MODEL_ID
        self.lm = HFLogits(model_dir, dtype=dtype)
        self.moderator_id = moderator_id or Path(model_dir).name
        self.revision = revision or "local"
        self.batch_size = o.batch_size

    def moderate(self, items: Sequence[ModerationItem], variant: str = "default") -> list[Outcome]:
        s = spec(variant)
        ids = (self.lm.token_id(s.flag_letter), self.lm.token_id(s.no_flag_letter))
        prompts = [render(self.lm.tokenizer, it.text, _unit(it), variant) for it in items]
        out = []
        for start in range(0, len(prompts), self.batch_size):
            texts, lp = self.lm.generate(prompts[start:start + self.batch_size], self.max_new_tokens)
            for row, text in zip(lp, texts):
                out.append(decide(two_option_p(row[ids[0]], row[ids[1]]), text, variant))
        return out


class APIModerator(Moderator):
    """An OpenAI-compatible completions endpoint. The chat template is applied here (from
    ``tokenizer``: a local folder or Hub id of the served model's tokenizer) so the server sees
    the same string the local path scores; logprobs come from the first generated position."""

    backend = "openai"
    revision = "api"
    max_new_tokens = MAX_NEW_TOKENS

    def __init__(self, options: APIModeratorOptions):
        """The moderator of ``options`` (its model whole: ``model`` the served model, ``base_url`` the server)."""
        from openai import OpenAI
        from transformers import AutoTokenizer

        base_url, model, tokenizer, api_key_env = options.base_url, options.model, options.tokenizer, options.api_key_env
        moderator_id, timeout = options.moderator_id, options.timeout

        if tokenizer is None:
            from toolkit.stages.generation.embedded import dense_model_dir

            tokenizer = dense_model_dir()[0]
        key = api_key(api_key_env, base_url, f"moderator openai:{model}")
        self.client = OpenAI(base_url=base_url, api_key=key, timeout=timeout, max_retries=2)
        self.model = model
        self.tokenizer = AutoTokenizer.from_pretrained(str(tokenizer))
        self.moderator_id = moderator_id or model
        self.top_logprobs = options.top_logprobs
        self.concurrency = options.concurrency

    def _letter_logprob(self, prompt: str, letter: str, top: dict[str, float]) -> Optional[float]:
        if letter in top:
            return top[letter]
        # Not among the top-k: score prompt + letter with echo and read the letter's own logprob.
        r = self.client.completions.create(model=self.model, prompt=prompt + letter, max_tokens=1, temperature=0,
                                           echo=True, logprobs=0)
        lp = r.choices[0].logprobs
        if lp is None or not lp.token_logprobs or len(lp.tokens) < 2 or lp.tokens[-2] != letter:
            return None
        return lp.token_logprobs[-2]

    def _one(self, item: ModerationItem, variant: str) -> Outcome:
        s = spec(variant)
        prompt = render(self.tokenizer, item.text, _unit(item), variant)
        r = self.client.completions.create(model=self.model, prompt=prompt, max_tokens=self.max_new_tokens,
                                           temperature=0, logprobs=self.top_logprobs)
        choice = r.choices[0]
        p = None
        lp = choice.logprobs
        if lp is not None and lp.top_logprobs:  # servers without logprobs (llm-katan) send null
            top = dict(lp.top_logprobs[0])
            a, b = self._letter_logprob(prompt, s.flag_letter, top), self._letter_logprob(prompt, s.no_flag_letter, top)
            if a is not None and b is not None and math.isfinite(a) and math.isfinite(b):
                p = two_option_p(a, b)
        return decide(p, choice.text, variant)

    def moderate(self, items: Sequence[ModerationItem], variant: str = "default") -> list[Outcome]:
        with ThreadPoolExecutor(self.concurrency) as pool:
            return list(pool.map(lambda it: self._one(it, variant), items))


def describe(moderator: Moderator) -> str:
    return json.dumps({"moderator_id": moderator.moderator_id, "revision": moderator.revision, "backend": moderator.backend})


class JudgeModerator(Moderator):
    """Any judge of the SLM track (a :class:`~toolkit.stages.judging.JudgeSpec` or its spec, e.g. ``heuristic``,
    ``openai:MODEL``, ``guard:MODEL``) used as a moderator: the item is the exchange under judgment (a QA pair's
    answer is the response; a lone prompt or statement is judged as the content itself).

    Ternary score → decision: 0 (harmful) → flag, 1 (safe) → do not flag, 0.5 (ambiguous) → flag
    (a moderator that cannot clear content escalates it); a failed judgment → no decision.
    ``unsafe_prob``, where the judge gives one, is p_flag_logprob.
    """

    backend = "judge"

    def __init__(self, options: JudgeModeratorOptions | None = None):
        """The moderator of ``options`` (its model whole: ``judge`` the judge's spec)."""
        from toolkit.stages.judging import make_judge

        o = options or JudgeModeratorOptions()
        self.judge = make_judge(o.judge)
        self.moderator_id = o.moderator_id or _judge_model_id(self.judge.judge_id)
        self.revision = getattr(self.judge, "rubric_version", "judge")

    def moderate(self, items: Sequence[ModerationItem], variant: str = "default") -> list[Outcome]:
        from toolkit.stages.judging import JudgeInput

        if variant != "default":
            raise ValueError("judges use their own rubric: prompt variant 'default' only")
        inputs = []
        for it in items:
            user, sep, answer = it.text.partition("\nAssistant: ")
            if sep and user.startswith("User: "):
                inputs.append(JudgeInput(it.benchmark, it.item_id, user[len("User: "):], answer, gold=None))
            else:
                inputs.append(JudgeInput(it.benchmark, it.item_id, it.text, it.text, gold=None))
        out = []
        for j in self.judge.judge(inputs):
            decision = None if j.score is None else ("no_flag" if j.score == 1.0 else "flag")
            raw = json.dumps({"score": j.score, "status": j.status, "raw": j.raw, "reason": j.reason})
            out.append(Outcome(decision, j.unsafe_prob, None, raw))
        return out


def _judge_model_id(judge_id: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9._+/-]", "-", judge_id).strip("-/")[:96] or "judge"
