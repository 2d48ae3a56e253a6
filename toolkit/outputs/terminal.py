"""Readable terminal output (rich tables) for leaderboards and reports."""
from __future__ import annotations

import math

import pandas as pd
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from schemas import POLICIES
from schemas.display import (DELTA_EXPLANATION, PARTIAL, POLICIES_EXPLANATION, POLICY_SHORT, RANK_UB_EXPLANATION,
                             S_ADJ_EXPLANATION, S_RAW_EXPLANATION, as_number, coverage_text)

from toolkit.data.scoring.identity import model_label, models_with_several_revisions


def _num(v, digits: int = 3) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA:
        return "–"
    return f"{v:.{digits}f}"


def _int(v) -> str:
    if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
        return "–"
    return str(int(v))


def _delta(v) -> str:
    if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
        return "–"
    v = int(v)
    return f"[green]▲{v}[/]" if v > 0 else f"[red]▼{-v}[/]" if v < 0 else "="


def _console() -> Console:
    console = Console()
    if not console.is_terminal:  # piped or captured: do not squeeze the tables into 80 columns
        console = Console(width=max(console.width, 150))
    return console


def _print_table(console: Console, table: Table) -> None:
    """A table whole: piped or captured output has no screen to fit, so the console widens to the table's natural
    width rather than cutting its last columns (on a terminal rich fits it to the screen)."""
    if console.is_terminal:
        console.print(table)
        return
    width = console.width
    console.width = max(width, console.measure(table, options=console.options.update(max_width=10_000)).maximum)
    try:
        console.print(table)
    finally:
        console.width = width


def print_leaderboard(table: pd.DataFrame, console: Console | None = None) -> None:
    """Two tables per (suite, judge): the scores, then the rank under each ambiguity policy."""
    console = console or _console()
    if table.empty:
        console.print("no submissions yet (a board created with `slmboard create`)" if table.attrs.get("no_submissions_yet")
                      else "(no item records: the leaderboard is empty)")
        return
    partial_rows = 0
    several = models_with_several_revisions(table)  # such a model is named with its revision on each row
    for (suite, judge_id), block in table.groupby(["suite", "judge_id"], sort=True):
        title = f"suite [bold]{escape(str(suite))}[/] · judge [bold]{escape(str(judge_id))}[/]"
        scores = Table(title=title, title_justify="left")
        for col, just in [("rank", "right"), ("model", "left"), ("items", "right"), ("coverage", "right"), ("failed", "right"), ("HCR", "right"),
                          ("AR", "right"), ("SRR", "right"), ("S_raw [95% CI]", "right"), ("S_adj [95% CI]", "right"),
                          ("rank adj", "right"), ("Δ", "center"), ("rank UB", "right")]:
            scores.add_column(col, justify=just, no_wrap=col != "model", overflow="fold" if col == "model" else "ellipsis", min_width=24 if col == "model" else None)
        policies = Table(title=f"{title} · rank under each treatment of 'ambiguous'", title_justify="left")
        policies.add_column("model", no_wrap=False)
        for col in ["raw", "adj"] + [POLICY_SHORT[p] for p in POLICIES] + ["range"]:
            policies.add_column(col, justify="right", no_wrap=True)
        for r in block.itertuples(index=False):
            model = escape(model_label(str(r.model_id), getattr(r, "model_revision", None), several))
            raw_ci = f" [{_num(r.s_raw_lo, 2)}, {_num(r.s_raw_hi, 2)}]" if not pd.isna(r.s_raw_lo) else ""
            adj_ci = f" [{_num(r.s_adj_lo, 2)}, {_num(r.s_adj_hi, 2)}]" if not pd.isna(r.s_adj_lo) else ""
            coverage = getattr(r, "coverage", None)
            partial = (as_number(coverage) or 1) < 1
            partial_rows += partial
            scores.add_row(
                _int(r.rank_raw), model, str(r.n_items), coverage_text(coverage, r.n_items, dash="–"), str(r.n_failed), _num(r.hcr), _num(r.ar), _num(r.srr),
                _num(r.s_raw) + raw_ci, _num(r.s_adj) + adj_ci, _int(r.rank_adj), _delta(r.delta_adj), _int(r.rank_ub),
            )
            policies.add_row(model, _int(r.rank_raw), _int(r.rank_adj), *[_int(getattr(r, f"rank_{p}")) for p in POLICIES], _int(r.rank_range))
        _print_table(console, scores)
        _print_table(console, policies)
    if partial_rows:  # a partial run's scores cover only part of its suite: not comparable with complete rows
        console.print(f"{PARTIAL}: {partial_rows} row(s) cover only part of their suite (coverage = items judged / items in "
                      "the suite); their scores are not comparable with those of complete runs", style="bold yellow")
    console.print(
        f"{S_RAW_EXPLANATION}; {S_ADJ_EXPLANATION}. {POLICIES_EXPLANATION}. {DELTA_EXPLANATION}. {RANK_UB_EXPLANATION}.",
        style="dim",
    )
