"""Match source rows to suite items: by exact prompt text (sha256), or by id through ``--id-map``.

A prompt is never altered: a matched row takes the suite item's prompt, id, category and gold. A
row matched by id whose wording differs is *reworded*: refused unless ``accept_reworded``, and then
the source wording is kept in ``item_metadata``. Two rows for one item are duplicates: dropped
when they carry the same response and judgments, an error when they differ.
"""
from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Optional

from schemas import sha256_text

from toolkit.stages.suites import SuiteItem, get_suite
from .base import ImportRefused, ParsedSource, SourceRow


#: the reason of a row matched by id whose prompt is worded otherwise
REWORDED = "but the wording differs (accept_reworded keeps it)"


@dataclass(frozen=True)
class Skipped:
    """A part of the source left out because it says no suite (a HELM run folder of another scenario)."""

    origin: str
    rows: int


def assign_suites(parsed: ParsedSource, suite: Optional[str], skip_unmatched: bool) -> tuple[list[SourceRow], list[Skipped]]:
    """Every row with its suite: the one the source says, else ``suite``; parts saying none are skipped
    (``skip_unmatched``) or refused, naming the part. ``suite`` never overrides a suite the source says."""
    said = {r.suite or parsed.suite for r in parsed.rows} - {None}
    unsaid = [r for r in parsed.rows if not (r.suite or parsed.suite)]
    if suite and not unsaid and suite not in said:
        raise ImportRefused(f"suite {suite!r} applies to sources that do not say their suite; this {parsed.format} source "
                            f"says {', '.join(sorted(said))}", param="suite")
    if not unsaid or suite:
        return [r if r.suite else replace(r, suite=parsed.suite or suite) for r in parsed.rows], []
    if any(r.origin is None for r in unsaid):
        raise ImportRefused(f"the {parsed.format} source does not say which suite it is; pass suite=NAME", param="suite")
    parts = Counter(r.origin for r in unsaid)
    if not skip_unmatched:
        named = "; ".join(f"{origin}: {n} row(s)" for origin, n in list(parts.items())[:5])
        more = f"; and {len(parts) - 5} more" if len(parts) > 5 else ""
        raise ImportRefused(f"{len(parts)} part(s) of the {parsed.format} source say no suite slmboard has ({named}{more}); "
                            "set skip_unmatched to leave them out, or pass suite=NAME if they are one", param=("skip_unmatched", "suite"))
    return [r for r in parsed.rows if r.suite], [Skipped(origin, n) for origin, n in parts.items()]


class IdMap:
    """``'v2-{n}=xstest_{n}'``: source ids of the left form become suite ids of the right form."""

    def __init__(self, spec: str):
        left, eq, right = spec.partition("=")
        names = re.findall(r"\{(\w+)\}", left)
        if not eq or not left or not right:
            raise ImportRefused(f"id_map {spec!r}: expected SOURCE_PATTERN=SUITE_PATTERN, e.g. 'v2-{{n}}=xstest_{{n}}'", param="id_map")
        if set(re.findall(r"\{(\w+)\}", right)) - set(names):
            raise ImportRefused(f"id_map {spec!r}: the right side uses a {{name}} the left side does not define", param="id_map")
        pattern = ""
        for piece in re.split(r"(\{\w+\})", left):
            pattern += f"(?P<{piece[1:-1]}>.+?)" if re.fullmatch(r"\{\w+\}", piece) else re.escape(piece)
        self.spec = spec
        self._pattern = re.compile(pattern + r"\Z")
        self._right = right

    def __call__(self, source_id: str) -> Optional[str]:
        m = self._pattern.match(source_id.strip())
        return self._right.format(**m.groupdict()) if m else None


@dataclass
class Match:
    row: SourceRow
    item: SuiteItem
    reworded: bool = False


@dataclass
class MatchReport:
    matched: list[Match] = field(default_factory=list)
    unmatched: list[tuple[SourceRow, str]] = field(default_factory=list)  # (row, why)
    duplicates: list[tuple[SourceRow, str]] = field(default_factory=list)  # (row, where the first one is)
    missing: dict[str, list[str]] = field(default_factory=dict)  # suite -> canonical ids the source lacks
    totals: dict[str, int] = field(default_factory=dict)  # suite -> number of canonical items
    skipped: list[Skipped] = field(default_factory=list)  # parts of the source that say no suite (skip_unmatched)
    partial: dict[str, str] = field(default_factory=dict)  # suite -> what of it was loaded (BBQ without some category files)

    def summary(self) -> str:
        lacking = sum(len(v) for v in self.missing.values())
        skipped = f", skipped {sum(s.rows for s in self.skipped)} (no suite)" if self.skipped else ""
        return (f"matched {len(self.matched)}, unmatched {len(self.unmatched)}, duplicate {len(self.duplicates)}, "
                f"reworded {sum(m.reworded for m in self.matched)}{skipped}; suite items the source lacks: {lacking}")


def _same_content(a: SourceRow, b: SourceRow) -> bool:
    return (a.response, a.judgments, a.choice, a.correct) == (b.response, b.judgments, b.choice, b.correct)


def describe(row: SourceRow) -> str:
    """'file:line (id v2-195): "prompt…"' for messages about one source row."""
    ident = f" (id {row.source_id})" if row.source_id else ""
    return f"{row.where}{ident}: {_short(row.prompt)!r}"


def _short(text: str, n: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _by_prompt(row: SourceRow, suite: str, by_sha: dict[str, SuiteItem]) -> Optional[SuiteItem]:
    """The item whose prompt is the row's, or (a multiple-choice row) the one the suite words from its question,
    its options in the source's order or, when the source shuffled them, in another (at most 4! orders)."""
    item = by_sha.get(sha256_text(row.prompt))
    q = row.question
    if item is not None or q is None or len(q.options) > 4:
        return item
    for options in itertools.permutations(q.options):
        worded = get_suite(suite).multiple_choice_prompt(q.passage, q.question, options)
        if worded is None:
            return None
        if (item := by_sha.get(sha256_text(worded))) is not None:
            return item
    return None


def _by_id(row: SourceRow, suite: str, by_id: dict[str, SuiteItem], id_map: Optional[IdMap],
           accept_reworded: bool) -> tuple[Optional[SuiteItem], str, bool]:
    """(item, why unmatched, reworded) of a row matched by its id, mapped through ``id_map`` when given."""
    if row.source_id is None:
        return None, "no id to map", False
    target = id_map(row.source_id) if id_map is not None else row.source_id
    item = by_id.get(target) if target else None
    if target is None:
        return None, f"id {row.source_id!r} does not fit id_map {id_map.spec!r}", False
    if item is None:
        return None, f"id {row.source_id!r} → {target!r} is not a {suite} item", False
    if item.prompt != row.prompt and not accept_reworded:
        return None, f"id {row.source_id!r} → {target!r} {REWORDED}", True
    return item, "", item.prompt != row.prompt


def match_rows(rows: list[SourceRow], items_by_suite: dict[str, list[SuiteItem]], id_map: Optional[IdMap] = None,
               accept_reworded: bool = False) -> MatchReport:
    """Match every row (its suite set, :func:`assign_suites`) to an item of its suite.

    With ``id_map``, rows match by id; otherwise by the sha256 of the exact prompt text. A row whose prompt is no item but whose own id is one (HELM's
    HarmBench BehaviorID) is that item reworded: imported with ``accept_reworded``, else unmatched with why.
    """
    report = MatchReport()
    by_sha = {s: {sha256_text(i.prompt): i for i in items} for s, items in items_by_suite.items()}
    by_id = {s: {i.item_id: i for i in items} for s, items in items_by_suite.items()}
    first: dict[tuple[str, str], SourceRow] = {}
    for row in rows:
        suite = row.suite
        if id_map is not None:
            item, why, reworded = _by_id(row, suite, by_id[suite], id_map, accept_reworded)
        else:
            item, why, reworded = _by_prompt(row, suite, by_sha[suite]), f"prompt is not a {suite} item", False
            if item is None and row.source_id is not None and row.source_id in by_id[suite]:
                item, _, reworded = _by_id(row, suite, by_id[suite], None, accept_reworded)
                why = f"prompt is not a {suite} item; its id {row.source_id!r} is one {REWORDED}"
        if item is None:
            report.unmatched.append((row, why))
            continue
        key = (suite, item.item_id)
        if key in first:
            if not _same_content(first[key], row):
                raise ImportRefused(f"{row.where}: item {item.item_id!r} again (first at {first[key].where}) with another response "
                                    "or judgment; keep one row per item")
            report.duplicates.append((row, first[key].where))
            continue
        first[key] = row
        report.matched.append(Match(row, item, reworded))
    for suite, items in items_by_suite.items():
        report.totals[suite] = len(items)
        present = {i for s, i in first if s == suite}
        report.missing[suite] = [i.item_id for i in items if i.item_id not in present]
    return report


def refuse_unmatched(report: MatchReport, by_id: bool = False, limit: int = 20) -> None:
    """ImportRefused naming each unmatched row (file:line, why, text), and the way out for reworded ones
    (``by_id``: the rows were matched by id already)."""
    if not report.unmatched:
        return
    lines = [f"  {note}" for note in report.partial.values()]
    lines += [f"  {describe(row)}: {why}" for row, why in report.unmatched[:limit]]
    more = f"\n  … and {len(report.unmatched) - limit} more" if len(report.unmatched) > limit else ""
    reworded = sum(why.endswith(REWORDED) for _, why in report.unmatched)
    if not reworded:
        raise ImportRefused(f"{len(report.unmatched)} source row(s) match no suite item (set skip_unmatched to leave them out):\n"
                            + "\n".join(lines) + more, param="skip_unmatched")
    by_id_too = "" if by_id else ", or match every row by id with id_map (e.g. '{id}={id}')"
    raise ImportRefused(f"{len(report.unmatched)} source row(s) match no suite item (set skip_unmatched to leave them out):\n"
                        + "\n".join(lines) + more + f"\n{reworded} of them match a suite item by id but are worded otherwise: "
                        f"keep the source wording with accept_reworded{by_id_too}",
                        param=("skip_unmatched", "accept_reworded") if by_id else ("skip_unmatched", "accept_reworded", "id_map"))
