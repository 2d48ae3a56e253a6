"""Matched source rows → ResponseRecords and one ItemRecord list per judge (validated, nothing written)."""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Optional

from pydantic import ValidationError

from schemas import LABEL_OF_SCORE, GenerationConfig, ItemRecord, ResponseRecord, sha256_text

from toolkit import __version__
from toolkit.core.errors import RecordError
from toolkit.stages.suites import get_suite
from toolkit.data.validation import pydantic_errors
from .base import ImportFailed, ParsedSource, SourceRow, Verdict
from .matching import Match


@dataclass
class Identity:
    submission_id: str
    model_id: str
    model_revision: str


@dataclass
class BuiltRecords:
    responses: dict[str, list[dict]] = field(default_factory=dict)  # suite -> ResponseRecord dicts, suite order
    judgments: dict[tuple[str, str], list[dict]] = field(default_factory=dict)  # (judge, suite) -> ItemRecord dicts
    where: dict[tuple[str, str], str] = field(default_factory=dict)  # (suite, item_id) -> source file:line
    status: dict[str, Counter] = field(default_factory=dict)  # judge -> Counter of ok/parse_error
    failed_requests: dict[str, set[str]] = field(default_factory=dict)  # suite -> items whose request failed


def failed_request_verdict(verdict: Verdict, error: str) -> Verdict:
    """A source's judgment of a failed request is no verdict on an answer: non-ok, with the error and what the source said."""
    judged = f"score {verdict.score:g}" if verdict.score is not None else (verdict.reason or "no score")
    return Verdict(None, verdict.raw, f"the request failed in the source: {error[:200]} (what the source judged of it, {judged}, "
                                     "is no verdict on an answer)", verdict.extra)


def generation_config(parsed: ParsedSource, row: Optional[SourceRow] = None) -> GenerationConfig:
    """The decoding settings of ``row`` (its own, in a source of several runs), else the source's."""
    g = row.generation if row is not None and row.generation is not None else parsed.generation
    return GenerationConfig(temperature=g.get("temperature"), max_new_tokens=g.get("max_new_tokens"), seed=g.get("seed"),
                            backend=f"import:{parsed.format}", do_sample=g.get("do_sample"),
                            chat_template_sha256=g.get("chat_template_sha256"))


def _metadata(m: Match) -> Optional[str]:
    meta: dict[str, Any] = dict(m.item.metadata)
    meta.update(m.row.metadata)
    if m.row.source_id is not None:
        meta["source_id"] = m.row.source_id
    if m.row.prompt != m.item.prompt:
        meta["source_prompt"] = m.row.prompt  # the wording the model saw; the record keeps the suite's prompt
    return json.dumps(meta, ensure_ascii=False, sort_keys=True) if meta else None


def _validated(model, data: dict, where: str) -> dict:
    try:
        return model.model_validate(data).model_dump(mode="json")
    except ValidationError as exc:
        file, _, line = where.rpartition(":")
        raise ImportFailed(pydantic_errors(exc, file, int(line) if line.isdigit() else None)) from exc


def _choice(m: Match) -> Optional[str]:
    """The row's choice, or the suite's letter of the option text a multiple-choice row chose."""
    question = m.row.question
    if m.row.choice is not None or question is None or question.answer is None:
        return m.row.choice
    letters = [letter for letter, text in get_suite(m.item.suite).option_letters(m.item).items() if text == question.answer]
    if len(letters) != 1:
        file, _, line = m.row.where.rpartition(":")
        raise ImportFailed([RecordError(file, int(line) if line.isdigit() else None, "output_mapping",
                                        f"the chosen option {question.answer!r} is {'none' if not letters else 'more than one'} "
                                        f"of item {m.item.item_id!r}'s options")])
    return letters[0]


def response_record(m: Match, ident: Identity, gen: GenerationConfig) -> dict:
    item, row = m.item, m.row
    gold_choice = item.metadata.get("gold_choice") or None
    choice = _choice(m)
    correct = row.correct
    if correct is None and gold_choice is not None and (choice is not None or row.question is not None):
        correct = choice == gold_choice  # as slmboard's own runner sets it: an unmapped answer is not correct
    return _validated(ResponseRecord, dict(
        submission_id=ident.submission_id, model_id=ident.model_id, model_revision=ident.model_revision,
        suite=item.suite, item_id=item.item_id, category=item.category, prompt=item.prompt,
        prompt_sha256=sha256_text(item.prompt), response=row.response, response_sha256=sha256_text(row.response),
        generation=gen.model_dump(), gold=item.gold, suite_revision=get_suite(item.suite).revision,
        toolkit_version=__version__, finish_reason=row.finish_reason, n_output_tokens=row.n_output_tokens,
        choice=choice, gold_choice=gold_choice, correct=correct,
        item_metadata=_metadata(m), request_error=row.error,
    ), row.where)


def item_record(response: dict, judge_id: str, verdict: Verdict, where: str) -> dict:
    fields = dict(response)
    return _validated(ItemRecord, dict(
        fields, judge_id=judge_id, judge_status=verdict.status, score=verdict.score,
        label=None if verdict.score is None else LABEL_OF_SCORE[verdict.score],
        judge_raw=verdict.raw, judge_reason=verdict.reason, **verdict.extra,
    ), where)


def build_records(parsed: ParsedSource, matches: list[Match], ident: Identity,
                  existing_responses: dict[str, dict[str, dict]] | None = None) -> BuiltRecords:
    """Records for every match; ``existing_responses`` (suite -> item_id -> row) are reused as they are,
    so judges added to a run carry the run's own response fields."""
    built = BuiltRecords()
    for m in matches:
        suite = m.item.suite
        old = (existing_responses or {}).get(suite, {}).get(m.item.item_id)
        response = old if old is not None else response_record(m, ident, generation_config(parsed, m.row))
        built.responses.setdefault(suite, []).append(response)
        built.where[(suite, m.item.item_id)] = m.row.where
        if response.get("request_error") is not None:
            built.failed_requests.setdefault(suite, set()).add(m.item.item_id)
        for judge_id, scale in parsed.scales.items():
            if judge_id not in m.row.judgments:  # a judge of another suite of the source (lm-eval's acc on BBQ only)
                continue
            verdict = scale(m.row.judgments.get(judge_id), m.item.gold)
            if response.get("request_error") is not None:
                verdict = failed_request_verdict(verdict, response["request_error"])
            built.judgments.setdefault((judge_id, suite), []).append(item_record(response, judge_id, verdict, m.row.where))
            built.status.setdefault(judge_id, Counter())[verdict.status] += 1
    return built


def check_judges_read(parsed: ParsedSource, built: BuiltRecords) -> None:
    """A judge none of whose labels reads is a wrong column or a wrong labels spec: refuse it, with examples."""
    errors = []
    for judge_id, counts in built.status.items():
        if parsed.judge_info.get(judge_id, {}).get("failures_from_source"):
            continue  # the source itself recorded the failures (Inspect's unscored samples): import them as parse_error
        own = [r for rows in built.judgments.values() for r in rows if r["judge_id"] == judge_id and r.get("request_error") is None]
        if counts.get("ok", 0) == 0 and own:  # failed requests are failures of the source, not of the labels
            rows = own[:3]
            examples = "; ".join(f"{r['judge_raw']!r}: {r['judge_reason']}" for r in rows)
            info = parsed.judge_info.get(judge_id, {})
            column = f" (column {info['column']!r})" if "column" in info else ""
            errors.append(RecordError(str(parsed.files[0]), None, info.get("column", judge_id),
                                      f"judge {judge_id}{column}: no value reads as a label, e.g. {examples}"))
    if errors:
        raise ImportFailed(errors)
