"""What every format parser returns: source rows with their judgments, and where each came from.

A parser is a pure function ``parse(paths, options) -> ParsedSource``: it reads the source files,
never the suite and never the run folder. Matching rows to suite items, mapping labels to scores
and writing the run folder are shared (:mod:`.matching`, :mod:`.labels`, :mod:`.writer`), so every
format gets the same counts, the same refusals and the same run folder.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Sequence

from toolkit.core.errors import ImportFailed, ImportRefused, RecordError, RecordFileError, SlmboardError, ValidationFailed


@dataclass(frozen=True)
class Verdict:
    """One judgment on the toolkit's scale: score 0 / 0.5 / 1, or a failed parse (score None)."""

    score: Optional[float]
    raw: Optional[str]
    reason: Optional[str] = None
    extra: dict[str, Any] = field(default_factory=dict)  # further ItemRecord fields (unsafe_prob, ...)

    @property
    def status(self) -> str:
        return "ok" if self.score is not None else "parse_error"


#: Maps a source label to a verdict; gets the matched suite item's gold ("safe"/"unsafe"/None).
LabelScale = Callable[[Any, Optional[str]], Verdict]


@dataclass(frozen=True)
class ChoiceQuestion:
    """A multiple-choice question as the source posed it (HELM's instance), and the option the model chose.

    ``options`` in the source's order; ``answer`` the text of the chosen option (None: the answer maps to
    no option). A suite that words its items from these parts (BBQ) matches the row by them when the
    source's own prompt is worded otherwise (:meth:`toolkit.stages.suites.Suite.multiple_choice_prompt`)."""

    passage: str
    question: str
    options: tuple[str, ...]
    answer: Optional[str]


@dataclass
class SourceRow:
    """One (prompt, response) of the source with every judgment it carries."""

    where: str  # "file:line" (1-based), for every message about this row
    prompt: str
    response: str
    source_id: Optional[str] = None  # the source's own id of the item, when it has one
    judgments: dict[str, Any] = field(default_factory=dict)  # judge_id -> raw label / score (mapped by the scale)
    suite: Optional[str] = None  # set by formats that say which suite a row is from (HELM, lm-eval task)
    choice: Optional[str] = None  # multiple-choice answer (BBQ)
    correct: Optional[bool] = None
    metadata: dict[str, Any] = field(default_factory=dict)  # source item fields kept in item_metadata
    finish_reason: Optional[str] = None
    n_output_tokens: Optional[int] = None
    question: Optional[ChoiceQuestion] = None  # multiple-choice rows that set choice through the option text
    origin: Optional[str] = None  # the part of the source it is from (a HELM run folder, an lm-eval task), for notes
    generation: Optional[dict[str, Any]] = None  # its own decoding settings, in a source of several runs (HELM)
    model: Optional[str] = None  # the model the source says answered it, in a source of several runs (Inspect logs)
    error: Optional[str] = None  # the request failed (the source's error text): a failed item, whatever was judged of it


@dataclass
class ParsedSource:
    """Everything a parser read; ``scales`` maps each judge to the function reading its labels."""

    format: str
    rows: list[SourceRow]
    scales: dict[str, LabelScale]
    tool: str
    tool_version: Optional[str] = None
    model_id: Optional[str] = None
    model_revision: Optional[str] = None
    suite: Optional[str] = None  # the one suite the source is about, when it says
    generation: dict[str, Any] = field(default_factory=dict)  # temperature, max_new_tokens, seed ... when recorded
    files: list[Path] = field(default_factory=list)
    judge_info: dict[str, dict[str, Any]] = field(default_factory=dict)  # judge_id -> what the source says of it
    notes: list[str] = field(default_factory=list)  # what the parser chose for the user (the newest of several runs)


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fail(file: str | Path, row: int | None, fld: str | None, message: str, param: str | None = None) -> ImportFailed:
    """One error at file:row:field; ``param``: the import option at fault, when it is one."""
    return ImportFailed([RecordError(str(file), row, fld, message)], param=param)


def require_files(paths: Sequence[str | Path], suffixes: tuple[str, ...], what: str) -> list[Path]:
    """The source paths as files, each existing and non-empty; ImportFailed naming the first bad one."""
    out = []
    if not paths:
        raise ImportFailed([RecordError("(no source)", None, None, f"give at least one {what}")])
    for raw in paths:
        path = Path(raw)
        if not path.exists():  # a mistyped path, not a bad record: one line naming it and the argument
            raise RecordFileError(f"{path}: no such file or folder (expected {what})", param="source")
        if path.is_file():
            if suffixes and not str(path).endswith(suffixes):
                raise fail(path, None, None, f"expected {what} ({', '.join(suffixes)}), got '{path.suffix or 'no suffix'}'")
            if path.stat().st_size == 0:
                raise fail(path, None, None, "file is empty")
        out.append(path)
    return out


def files_in_folders(paths: list[Path], pick: Callable[[Path], Iterable[Path]], none_found: str) -> list[Path]:
    """``paths`` with each folder replaced by the files ``pick`` finds in it (sorted); ImportFailed saying
    ``none_found`` for a folder where it finds none."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(q for q in pick(path) if q.is_file())
            if not found:
                raise fail(path, None, None, none_found)
            out.extend(found)
        else:
            out.append(path)
    return out
