"""Import Safety-Flag's released per-item outputs (``<model>__<benchmark>.jsonl``) as ModerationRecords.

Field mapping (Safety-Flag release, see its PROVENANCE): ``gt`` "(A)" = flag, "(B)" = do not flag;
``solo.answer_lp`` is the verdict (the leaderboard's), ``solo.flag_prob`` is P("(A)") renormalised
over the two options, ``solo.gen_conf`` (1-10) / 10 is the verbalized confidence, kept wherever present (as the release's
leaderboard does). Guard files carry ``guard_field`` / ``guard_categories``; they map the same way.
Benchmark names follow ours ("wildguard" in the release is "wildguardtest" here).
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from toolkit.core.errors import RecordError, RecordFileError, ValidationFailed
from toolkit.core.records_io import iter_jsonl

_OPTION = {"(A)": "flag", "(B)": "no_flag"}
RELEASE_BENCHMARKS = {"wildguard": "wildguardtest"}
_NAME = re.compile(r"^(?P<model>.+?)__(?P<bench>[a-z]+)(?:_s\d+)?\.jsonl$")


def _to_record(obj: dict[str, Any], moderator_id: str, submission_id: str, file: str, line: int) -> dict[str, Any]:
    def need(cond: bool, field: str, msg: str) -> None:
        if not cond:
            raise ValidationFailed([RecordError(file, line, field, msg)])

    need(obj.get("gt") in _OPTION, "gt", f"expected '(A)' or '(B)', got {obj.get('gt')!r}")
    solo = obj.get("solo")
    need(isinstance(solo, dict), "solo", "missing the 'solo' block")
    answer = solo.get("answer_lp")
    need(answer in _OPTION or answer is None, "solo.answer_lp", f"expected '(A)', '(B)' or null, got {answer!r}")
    prob = solo.get("flag_prob")
    need(prob is None or (isinstance(prob, (int, float)) and 0 <= prob <= 1), "solo.flag_prob",
         f"expected a probability, got {prob!r}")
    conf = solo.get("gen_conf")
    # The release's leaderboard uses gen_conf / 10 wherever gen_conf is present (ece_verbalized).
    verbal = conf / 10 if isinstance(conf, (int, float)) and 1 <= conf <= 10 else None
    raw = {k: solo.get(k) for k in ("gen_judgment", "gen_conf", "json_parsed", "guard_field", "guard_categories") if k in solo}
    dataset = str(obj.get("dataset", ""))
    return {
        "schema_version": "1.0",
        "submission_id": submission_id,
        "moderator_id": moderator_id,
        "benchmark": RELEASE_BENCHMARKS.get(dataset, dataset),
        "item_id": str(obj.get("id")),
        "gold": _OPTION[obj["gt"]],
        "decision": _OPTION.get(answer),
        "p_flag_logprob": None if prob is None else float(prob),
        "confidence_verbal": verbal,
        "raw_output": json.dumps(raw, sort_keys=True),
        "prompt_variant": "default",
    }


def import_released(path: str | Path, moderator_id: str | None = None, submission_id: str = "safety-flag-release") -> list[dict[str, Any]]:
    """ModerationRecord rows from one released file; the moderator id defaults to the file's model part."""
    from schemas import ModerationRecord

    path = Path(path)
    m = _NAME.match(path.name)
    if moderator_id is None:
        if not m:
            raise RecordFileError(f"{path}: expected a file named <model>__<benchmark>.jsonl, or pass moderator_id")
        moderator_id = m.group("model")
    rows, errors = [], []
    for line, obj in iter_jsonl(path):
        if isinstance(obj, RecordError):
            errors.append(obj)
            continue
        try:
            row = _to_record(obj, moderator_id, submission_id, str(path), line)
            ModerationRecord.model_validate(row)
            rows.append(row)
        except ValidationFailed as exc:
            errors.extend(exc.errors)
        except ValueError as exc:  # pydantic's ValidationError
            errors.append(RecordError(str(path), line, None, str(exc).splitlines()[0]))
    if errors:
        raise ValidationFailed(errors)
    if not rows:
        raise RecordFileError(f"{path}: no records")
    return rows
