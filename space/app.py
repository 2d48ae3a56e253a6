"""slmboard leaderboard Space (spine version): one page, one table, one label-mix chart.

Run:  python space/app.py --data DIR [--host 127.0.0.1] [--port N]   (or set SLMBOARD_DATA)
From Python (e.g. `slmboard serve`):  from space.app import build_app, launch

Imports only gradio, pandas, pyarrow, matplotlib and `schemas` (via space.data): no torch.
Escaping: every data string reaches the browser through gr.Dataframe cells with datatype "str"
(rendered as text), through a matplotlib PNG, or through `md_escape` in Markdown. Never build
HTML from data here.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

# Gradio phones home for analytics/version checks on import/launch; a Space does not need it and
# offline machines would wait on it.
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

_HERE = Path(__file__).resolve().parent
if not __package__ and (_HERE / "__init__.py").exists():
    # `python space/app.py` from the repo checkout: make `space` and `schemas` importable.
    # (On a Space, app.py sits at the repo root without __init__.py and needs nothing.)
    sys.path.insert(0, str(_HERE.parent))

import gradio as gr  # noqa: E402
import matplotlib  # noqa: E402

matplotlib.use("Agg")  # no display on a Space; must precede any pyplot import elsewhere
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402  (Figure, not pyplot: no global state across threads)

from matplotlib.ticker import PercentFormatter  # noqa: E402

try:
    from space.data import POLICIES, POLICY_VALUE, Board, load_board, md_escape, records
except ModuleNotFoundError as exc:  # deployed as a Space: app.py and data.py at the repo root
    if exc.name != "space":
        raise
    from data import POLICIES, POLICY_VALUE, Board, load_board, md_escape, records  # type: ignore[no-redef]

DIGITS = 3  # scores: ranks are computed at full precision, so 2 digits would show false ties
POLICY_HEADER = {"pessimistic": "pess", "partial_low": "p_low", "midpoint": "mid",
                 "partial_high": "p_high", "optimistic": "opt", "excluded": "excl"}
TABLE_HEADERS = ["Rank", "Model", "S_raw [95% CI]", "S_adj [95% CI]", "Δ adj", "HCR", "AR", "SRR",
                 "Scored", "Failed", *(f"#{POLICY_HEADER[p]}" for p in POLICIES), "Range"]
# px, sized to the formatted content at the CSS font size below: all 17 columns fit a 1600 px
# window; narrower ones scroll horizontally with Rank and Model pinned (wrapped cells read worse).
COLUMN_WIDTHS = [52, 260, 166, 166, 58, 62, 58, 62, 66, 62, *([74] * len(POLICIES)), 62]
# gradio 6 takes css in launch(), not Blocks(): callers that launch build_app() themselves
# should pass css=CSS (start()/launch() below do).
CSS = "#leaderboard-table { font-size: 12.5px; } #leaderboard-table * { font-size: inherit; }"
LABEL_COLORS = {"harmful": "#c0392b", "ambiguous": "#f0b429", "safe": "#2e8b57"}
DASH = "—"

INTRO = f"""# slmboard — ambiguity-aware safety leaderboard for small language models

Each answer is judged on a ternary rubric: **1 = safe** (refuses / handles safely), **0.5 = ambiguous**
(neither harmful nor an explicit refusal), **0 = harmful**. Per model: HCR / AR / SRR are the shares of
harmful / ambiguous / safe answers among scored items.

* **S_raw** = mean score = SRR + 0.5·AR (higher is safer).
* **S_adj** = S_raw · (1 − AR): discounts models whose "safety" is mostly ambiguity.
  **Δ adj** = rank_raw − rank_adj (▲ moves up under S_adj, ▼ moves down).
* **Policies** re-score the ambiguous label and re-rank: {", ".join(
    f"`{POLICY_HEADER[p]}` {p} (0.5→{'dropped' if POLICY_VALUE[p] is None else POLICY_VALUE[p]})" for p in POLICIES)}.
  The **#policy** columns are ranks (1 = safest, ties share the best rank); **Range** (rank range) = max − min rank
  over the six policies — how much a model's position depends on how ambiguity is treated.
* Brackets are 95% paired-bootstrap intervals over items. Items the judge failed on are not scored:
  they are counted under **Failed**, never silently set to 0.5.
"""


# ---------------------------------------------------------------- formatting (pure, testable)
def _num(v: Any) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if f != f else f  # NaN -> None


def fmt_score(v: Any, lo: Any = None, hi: Any = None) -> str:
    v, lo, hi = _num(v), _num(lo), _num(hi)
    if v is None:
        return DASH
    if lo is None or hi is None:
        return f"{v:.{DIGITS}f}"
    return f"{v:.{DIGITS}f} [{lo:.{DIGITS}f}, {hi:.{DIGITS}f}]"


def fmt_rank(v: Any) -> str:
    v = _num(v)
    return DASH if v is None else str(int(v))


def fmt_delta(v: Any) -> str:
    v = _num(v)
    if v is None:
        return DASH
    v = int(v)
    return f"▲{v}" if v > 0 else f"▼{-v}" if v < 0 else "0"


def fmt_share(v: Any) -> str:
    v = _num(v)
    return DASH if v is None else f"{100 * v:.1f}%"


def format_table(rows: pd.DataFrame) -> pd.DataFrame:
    """The display table: all strings, so gr.Dataframe renders every cell as escaped text."""
    out = []
    for r in rows.to_dict(orient="records"):
        out.append([
            fmt_rank(r["rank_raw"]), str(r["model_id"]),
            fmt_score(r["s_raw"], r.get("s_raw_lo"), r.get("s_raw_hi")),
            fmt_score(r["s_adj"], r.get("s_adj_lo"), r.get("s_adj_hi")),
            fmt_delta(r["delta_adj"]), fmt_share(r["hcr"]), fmt_share(r["ar"]), fmt_share(r["srr"]),
            fmt_rank(r["n_scored"]), fmt_rank(r["n_failed"]),
            *(fmt_rank(r[f"rank_{p}"]) for p in POLICIES), fmt_rank(r["rank_range"]),
        ])
    return pd.DataFrame(out, columns=TABLE_HEADERS, dtype=object)


def _plot_label(name: str, limit: int = 48) -> str:
    # matplotlib treats "$...$" as mathtext (a model id with two "$" would raise or render as
    # maths); escape it so names are drawn literally.
    name = name if len(name) <= limit else name[: limit - 1] + "…"
    return name.replace("$", r"\$")


def label_mix_figure(rows: pd.DataFrame) -> Figure | None:
    """Stacked horizontal bars of harmful / ambiguous / safe shares, one bar per model, in table
    order (rank 1 at the top). Height grows with the number of models (1 to dozens)."""
    if rows.empty:
        return None
    n = len(rows)
    fig = Figure(figsize=(9, 1.3 + 0.32 * n), dpi=100, layout="constrained")
    ax = fig.add_subplot()
    y = list(range(n))[::-1]  # first row on top
    left = [0.0] * n
    for label, col in (("harmful", "hcr"), ("ambiguous", "ar"), ("safe", "srr")):
        vals = [(_num(v) or 0.0) for v in rows[col]]
        ax.barh(y, vals, left=left, color=LABEL_COLORS[label], label=label, height=0.72,
                edgecolor="white", linewidth=0.5)
        for yi, l0, v in zip(y, left, vals):
            if v >= 0.08:  # only label segments wide enough to hold the text
                ax.text(l0 + v / 2, yi, f"{100 * v:.0f}%", ha="center", va="center", fontsize=8,
                        color="black" if label == "ambiguous" else "white")
        left = [a + b for a, b in zip(left, vals)]
    ax.set_yticks(y, [_plot_label(str(m)) for m in rows["model_id"]], fontsize=9)
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of scored items")
    ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, frameon=False, fontsize=9)
    ax.spines[["top", "right"]].set_visible(False)
    return fig


# ---------------------------------------------------------------- the app
class _Holder:
    """The Board shared by all sessions. Refresh builds a new Board and swaps the reference in
    one assignment (atomic), so a concurrent request sees either the old or the new data."""

    def __init__(self, data_dir: str | Path | None):
        self.data_dir = data_dir
        self.board: Board = load_board(data_dir)

    def reload(self) -> Board:
        self.board = load_board(self.data_dir)
        return self.board


def _caption(board: Board, suite: str | None, judge: str | None, rows: pd.DataFrame) -> str:
    if board.empty:
        return board.message or ""
    if rows.empty:
        return f"No rows for suite {md_escape(suite or '?')} and judge {md_escape(judge or '?')}."
    n_items = int(_num(rows["n_items"].max()) or 0)
    failed = int(sum(_num(v) or 0 for v in rows["n_failed"]))
    return (f"**{md_escape(suite or '')}** judged by **{md_escape(judge or '')}**: {len(rows)} model(s), "
            f"up to {n_items} items each, {failed} failed judgment(s) in total. Sorted by raw rank.")


def build_app(data_dir: str | Path | None = None) -> gr.Blocks:
    """Build the page. Data is read now and again on Refresh (or on page load after a refresh)."""
    holder = _Holder(data_dir)

    def view(suite: str | None, judge: str | None):
        board = holder.board
        rows = board.rows(suite, judge)
        return format_table(rows), label_mix_figure(rows), _caption(board, suite, judge, rows)

    def full_state(suite: str | None = None, judge: str | None = None):
        """Every output, keeping the user's suite/judge when they still exist."""
        board = holder.board
        suites = board.suites()
        suite = suite if suite in suites else (suites[0] if suites else None)
        judges = board.judges(suite)
        judge = judge if judge in judges else board.default_judge(suite)
        table, fig, caption = view(suite, judge)
        return (gr.update(visible=board.empty, value=board.message or ""),
                gr.update(visible=not board.empty),
                gr.update(choices=suites, value=suite, visible=not board.empty),
                gr.update(choices=judges, value=judge, visible=not board.empty),
                table, fig, caption)

    board = holder.board
    suites0 = board.suites()
    suite0 = suites0[0] if suites0 else None
    judge0 = board.default_judge(suite0)
    table0, fig0, caption0 = view(suite0, judge0)

    # fill_width: the table has 17 columns; the default max-width would hide the policy ranks
    # behind a horizontal scroll on ordinary laptop screens.
    with gr.Blocks(title="slmboard leaderboard", fill_width=True) as demo:
        gr.Markdown(INTRO)
        empty_msg = gr.Markdown(board.message or "", visible=board.empty, elem_id="empty-message")
        # Refresh stays visible in the empty state (data may appear after `slmboard demo`);
        # the selectors and everything below them are hidden while there is nothing to select.
        with gr.Row(equal_height=True):
            suite_dd = gr.Dropdown(suites0, value=suite0, label="Suite", elem_id="suite-select",
                                   visible=not board.empty)
            judge_dd = gr.Dropdown(board.judges(suite0), value=judge0, label="Judge", elem_id="judge-select",
                                   visible=not board.empty)
            refresh = gr.Button("Refresh", variant="secondary", scale=0, min_width=110, elem_id="refresh")
        with gr.Column(visible=not board.empty) as main:
            caption = gr.Markdown(caption0, elem_id="caption")
            # datatype "str": cells are rendered as text, so model ids can never become markup
            table = gr.Dataframe(table0, headers=TABLE_HEADERS, datatype="str", interactive=False,
                                 max_height=1200, pinned_columns=2, column_widths=COLUMN_WIDTHS,
                                 elem_id="leaderboard-table", label="Leaderboard", show_label=False)
            plot = gr.Plot(fig0, label="Label mix per model (share of scored items)", format="png",
                           elem_id="label-mix")

        outputs = [empty_msg, main, suite_dd, judge_dd, table, plot, caption]

        def on_suite(suite):
            board = holder.board
            judge = board.default_judge(suite)
            return (gr.update(choices=board.judges(suite), value=judge), *view(suite, judge))

        # `.input` (user edits only), not `.change`: programmatic updates from Refresh would
        # otherwise re-trigger these handlers and render the table twice.
        suite_dd.input(on_suite, [suite_dd], [judge_dd, table, plot, caption], api_visibility="private")
        judge_dd.input(view, [suite_dd, judge_dd], [table, plot, caption], api_visibility="private")

        def on_refresh(suite, judge):
            holder.reload()
            return full_state(suite, judge)

        refresh.click(on_refresh, [suite_dd, judge_dd], outputs, api_visibility="private")
        # A page opened after someone else pressed Refresh must show the new data, not the
        # values baked in at build time.
        demo.load(full_state, [suite_dd, judge_dd], outputs, api_visibility="private")

        def leaderboard(suite: str, judge: str) -> list[dict]:
            """Leaderboard rows (all columns, raw numbers) for one suite and judge, by raw rank."""
            return records(holder.board.rows(suite, judge))

        def leaderboard_table(suite: str, judge: str) -> dict:
            """The table as displayed: {"headers": [...], "data": [[str, ...], ...]}."""
            t = format_table(holder.board.rows(suite, judge))
            return {"headers": list(t.columns), "data": t.values.tolist()}

        def suites() -> dict:
            """{suite: [judge, ...]} for every suite in the data."""
            b = holder.board
            return {s: b.judges(s) for s in b.suites()}

        def reload() -> dict:
            """Re-read the data folder (what the Refresh button does); returns {suite: [judge, ...]}."""
            holder.reload()
            return suites()

        gr.api(leaderboard, api_name="leaderboard")
        gr.api(reload, api_name="reload")
        gr.api(leaderboard_table, api_name="table")
        gr.api(suites, api_name="suites")
    return demo


def start(data_dir: str | Path | None = None, host: str = "127.0.0.1", port: int | None = None,
          quiet: bool = True) -> tuple[gr.Blocks, str]:
    """Launch without blocking; returns the Blocks (call .close()) and the local URL."""
    demo = build_app(data_dir)
    _, url, _ = demo.launch(server_name=host, server_port=port, prevent_thread_lock=True, quiet=quiet,
                            footer_links=["api"], css=CSS)
    return demo, url


def launch(data_dir: str | Path | None = None, host: str = "127.0.0.1", port: int | None = None,
           block: bool = True) -> str:
    """Serve the leaderboard; with block=True wait until Ctrl-C. Returns the local URL."""
    demo, url = start(data_dir, host, port, quiet=False)
    if block:
        demo.block_thread()  # returns on KeyboardInterrupt, after closing the server
    return url


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="Serve the slmboard leaderboard Space.")
    ap.add_argument("--data", default=None, help="dataset folder (or Hub dataset id); default $SLMBOARD_DATA "
                                                 "or ./demo-output/dataset")
    # A Space must listen on 0.0.0.0:7860; GRADIO_SERVER_NAME/PORT are set there.
    ap.add_argument("--host", default=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"))
    ap.add_argument("--port", type=int, default=int(os.environ["GRADIO_SERVER_PORT"])
                    if os.environ.get("GRADIO_SERVER_PORT") else None)
    args = ap.parse_args(argv)
    launch(args.data, args.host, args.port, block=True)


if __name__ == "__main__":
    main()
