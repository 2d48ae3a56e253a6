"""Human-labelled answers from the XSTest release (github.com/paul-rottger/exaggerated-safety).

Each release file (``.csv`` or ``.csv.gz``) holds one model's answers to the XSTest prompts with two
annotators' labels and their ``final_label`` (1_full_compliance / 2_full_refusal / 3_partial_refusal),
and, in the ``*_gpteval`` files, the release's GPT-4 classifier label (``gpt4_label``). The learned
judge trains on some of these files and is measured on others; the benches read them here.

The gold prompt label is ``unsafe`` for the ``contrast_*`` types and ``safe`` otherwise (the v1
release has safe prompts only); for ``v2-<n>`` ids it is checked against ``xstest_prompts.csv``
when that file is given.
"""
from __future__ import annotations

import csv
import gzip
import hashlib
import io
from dataclasses import dataclass
from pathlib import Path

from toolkit.core.errors import RecordError, ValidationFailed

__all__ = ["LABEL_BEHAVIOUR", "ReleaseRow", "read_release", "file_sha256"]

LABEL_BEHAVIOUR = {"1_full_compliance": "complies", "3_partial_refusal": "partial", "2_full_refusal": "refuses"}
_REQUIRED = ("id", "type", "prompt", "completion", "final_label")


@dataclass(frozen=True)
class ReleaseRow:
    """One answer: ``human`` and ``classifier`` are behaviours ("complies" / "partial" / "refuses");
    ``classifier`` is None when the file has no GPT-4 label or the label is not one of the three."""

    source: str
    line: int
    id: str
    prompt_number: int
    category: str
    prompt: str
    completion: str
    gold: str
    human: str
    classifier: str | None


def _text(path: Path) -> str:
    data = path.read_bytes()
    return (gzip.decompress(data) if path.name.endswith(".gz") else data).decode("utf-8")


def file_sha256(path: str | Path) -> str:
    """sha256 of the file as stored (gzip or not)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _prompt_gold(prompts_csv: Path | None) -> dict[int, str]:
    if prompts_csv is None:
        return {}
    return {int(r["id"]): r["label"].strip() for r in csv.DictReader(io.StringIO(_text(prompts_csv)))}


def read_release(path: str | Path, prompts_csv: str | Path | None = None) -> list[ReleaseRow]:
    """Every row of one release file; a bad row raises ValidationFailed naming file, line and field."""
    path = Path(path)
    gold_of = _prompt_gold(Path(prompts_csv) if prompts_csv is not None else None)
    reader = csv.DictReader(io.StringIO(_text(path)))
    missing = [c for c in _REQUIRED if c not in (reader.fieldnames or [])]
    if missing:
        raise ValidationFailed([RecordError(str(path), None, None, f"missing column(s) {', '.join(missing)}")])
    rows, errors = [], []
    for k, r in enumerate(reader, start=1):  # k: the data row (cells may span lines)
        if r["final_label"] not in LABEL_BEHAVIOUR:
            errors.append(RecordError(str(path), k, "final_label", f"unknown label {r['final_label']!r}"))
            continue
        version, _, number = r["id"].partition("-")
        if not number.isdigit():
            errors.append(RecordError(str(path), k, "id", f"expected v1-<n> or v2-<n>, got {r['id']!r}"))
            continue
        gold = "unsafe" if r["type"].startswith("contrast_") else "safe"
        if version == "v2" and gold_of and gold_of.get(int(number)) != gold:
            errors.append(RecordError(str(path), k, "type", f"type {r['type']!r} disagrees with the prompts file's "
                                                             f"label {gold_of.get(int(number))!r}"))
            continue
        rows.append(ReleaseRow(path.name, k, r["id"], int(number), r["type"], r["prompt"], r["completion"], gold,
                               LABEL_BEHAVIOUR[r["final_label"]], LABEL_BEHAVIOUR.get(r.get("gpt4_label") or "")))
    if errors:
        raise ValidationFailed(errors)
    return rows
