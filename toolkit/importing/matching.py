"""Match source rows to suite items: by exact prompt text (sha256), or by id through ``--id-map``.

A prompt is never altered: a matched row takes the suite item's prompt, id, category and gold. A
row matched by id whose wording differs is *reworded*: refused unless ``accept_reworded``, and then
the source wording is kept in ``item_metadata``. Two rows for one item are duplicates: dropped
when they carry the same response and judgments, an error when they differ.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from schemas import sha256_text

from ..suites import SuiteItem
from .base import ImportRefused, SourceRow


#: the reason of a row matched by id whose prompt is worded otherwise
REWORDED = "but the wording differs (accept_reworded keeps it)"


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

    def summary(self) -> str:
        lacking = sum(len(v) for v in self.missing.values())
        return (f"matched {len(self.matched)}, unmatched {len(self.unmatched)}, duplicate {len(self.duplicates)}, "
                f"reworded {sum(m.reworded for m in self.matched)}; suite items the source lacks: {lacking}")


def _same_content(a: SourceRow, b: SourceRow) -> bool:
    return (a.response, a.judgments, a.choice, a.correct) == (b.response, b.judgments, b.choice, b.correct)


def describe(row: SourceRow) -> str:
    """'file:line (id v2-195): "prompt…"' for messages about one source row."""
    ident = f" (id {row.source_id})" if row.source_id else ""
    return f"{row.where}{ident}: {_short(row.prompt)!r}"


def _short(text: str, n: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def match_rows(rows: list[SourceRow], items_by_suite: dict[str, list[SuiteItem]], default_suite: str,
               id_map: Optional[IdMap] = None, accept_reworded: bool = False) -> MatchReport:
    """Match every row to an item of its suite (``row.suite`` or ``default_suite``).

    With ``id_map``, rows match by id; otherwise by the sha256 of the exact prompt text.
    """
    report = MatchReport()
    by_sha = {s: {sha256_text(i.prompt): i for i in items} for s, items in items_by_suite.items()}
    by_id = {s: {i.item_id: i for i in items} for s, items in items_by_suite.items()}
    first: dict[tuple[str, str], SourceRow] = {}
    for row in rows:
        suite = row.suite or default_suite
        item, why, reworded = None, "", False
        if id_map is not None:
            if row.source_id is None:
                why = "no id to map"
            else:
                target = id_map(row.source_id)
                item = by_id[suite].get(target) if target else None
                if target is None:
                    why = f"id {row.source_id!r} does not fit id_map {id_map.spec!r}"
                elif item is None:
                    why = f"id {row.source_id!r} → {target!r} is not a {suite} item"
                elif item.prompt != row.prompt:
                    reworded = True
                    if not accept_reworded:
                        why = f"id {row.source_id!r} → {target!r} {REWORDED}"
                        item = None
        else:
            item = by_sha[suite].get(sha256_text(row.prompt))
            if item is None:
                why = f"prompt is not a {suite} item"
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


def refuse_unmatched(report: MatchReport, limit: int = 20) -> None:
    """ImportRefused naming each unmatched row (file:line, why, text)."""
    if not report.unmatched:
        return
    lines = [f"  {describe(row)}: {why}" for row, why in report.unmatched[:limit]]
    more = f"\n  ... and {len(report.unmatched) - limit} more" if len(report.unmatched) > limit else ""
    reworded = any(why.endswith(REWORDED) for _, why in report.unmatched)
    raise ImportRefused(f"{len(report.unmatched)} source row(s) match no suite item (set skip_unmatched to leave them out):\n"
                        + "\n".join(lines) + more, param=("skip_unmatched", "accept_reworded") if reworded else "skip_unmatched")
