"""The Space's rendered-figure cache (space/plot_cache.py): one draw per distinct rows, shared by
concurrent visitors, a new draw when the drawn values change, and the PNG matplotlib itself writes."""
from __future__ import annotations

import base64
import threading
import time
from io import BytesIO

from space.data import load_board
from toolkit.data.board_figures import SCORES_CI_COLUMNS, scores_ci_figure
from space.plot_cache import PlotCache


def _png(plot_data) -> bytes:
    head, _, body = plot_data.plot.partition(",")
    assert head == "data:image/png;base64"
    return base64.b64decode(body)


def test_same_rows_draw_once_and_changed_values_draw_again(dataset):
    rows = load_board(dataset).rows("smoke", "heuristic")
    draws = []

    def draw(r):
        draws.append(len(r))
        return scores_ci_figure(r)

    cache = PlotCache()
    first = cache.get("scores_ci", rows, SCORES_CI_COLUMNS, draw)
    direct = BytesIO()
    scores_ci_figure(rows).savefig(direct, format="png")
    assert _png(first) == direct.getvalue()  # exactly the figure's own PNG
    assert cache.get("scores_ci", rows.copy(), SCORES_CI_COLUMNS, draw) is first and len(draws) == 1
    # a column the figure does not draw: same picture, no new draw
    assert cache.get("scores_ci", rows.assign(n_failed=99), SCORES_CI_COLUMNS, draw) is first and len(draws) == 1
    changed = rows.copy()
    changed.loc[changed.index[0], "s_adj_hi"] = 0.999
    assert cache.get("scores_ci", changed, SCORES_CI_COLUMNS, draw) is not first and len(draws) == 2
    assert cache.get("scores_ci", rows.iloc[::-1], SCORES_CI_COLUMNS, draw) is not first and len(draws) == 3  # order
    assert cache.get("scores_ci", rows.iloc[0:0], SCORES_CI_COLUMNS, draw) is None  # no rows: no figure


def test_concurrent_requests_for_one_figure_draw_it_once(dataset):
    rows = load_board(dataset).rows("smoke", "heuristic")
    cache, calls, got = PlotCache(), [], []

    def slow_draw(r):
        calls.append(1)
        time.sleep(0.3)  # long enough that every thread arrives while the first one draws
        return scores_ci_figure(r)

    threads = [threading.Thread(target=lambda: got.append(cache.get("scores_ci", rows, SCORES_CI_COLUMNS, slow_draw)))
               for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(calls) == 1 and len(got) == 6 and all(g is got[0] for g in got)


def test_cache_is_bounded():
    import pandas as pd

    cache = PlotCache(max_entries=2)
    frames = [pd.DataFrame({"model_id": ["m"], "s_raw": [v], "s_adj": [v]}) for v in (0.1, 0.2, 0.3)]
    for f in frames:
        cache.get("scores_ci", f, SCORES_CI_COLUMNS, scores_ci_figure)
    assert cache.draws == 3
    cache.get("scores_ci", frames[0], SCORES_CI_COLUMNS, scores_ci_figure)  # evicted (least recently used)
    assert cache.draws == 4
    cache.get("scores_ci", frames[2], SCORES_CI_COLUMNS, scores_ci_figure)  # still held
    assert cache.draws == 4


def test_the_page_draws_the_interval_figure_once_per_view(dataset):
    """Every page load runs the deferred figure event: the second visitor gets the first one's PNG;
    a search filter (other rows) gets its own."""
    from space.app import build_app
    from space.state import Settings

    demo = build_app(dataset, Settings(warm=False, refresh_seconds=0))
    figure = next(v for v in demo.slmboard_views if v.key == "leaderboard" and v.deferred)
    values = {p.key: p.default for v in demo.slmboard_views for p in v.params}
    first = figure.update("smoke", "heuristic", values)[0]
    assert figure.update("smoke", "heuristic", values)[0] is first
    assert len(_png(first)) > 1000
    searched = figure.update("smoke", "heuristic", {**values, "q": "alpha"})[0]
    assert searched is not first and _png(searched) != _png(first)
    assert figure.update("xstest", "heuristic", values)[0] is not first


def test_the_landing_view_figure_is_drawn_before_the_first_visitor(dataset):
    """With warm-up on (a served Space), the figures of the views a visitor lands on (the plain address
    and every sort of every suite and judge) are drawn in the background at start-up: the first page
    load finds them in the cache."""
    from space.app import build_app
    from space.state import Settings
    from space.views import SORTS

    demo = build_app(dataset, Settings(refresh_seconds=0))
    plots, page = demo.slmboard_holder.plots, demo.slmboard_page
    page.preparing.join(120)
    assert plots.draws >= 1
    drawn = plots.draws
    figure = next(v for v in demo.slmboard_views if v.key == "leaderboard" and v.deferred)
    values = {p.key: p.default for v in demo.slmboard_views for p in v.params}
    board = demo.slmboard_holder.board
    for suite in board.suites():
        for judge in board.judges(suite):
            for sort in SORTS:
                figure.update(suite, judge, {**values, "sort": sort})
    assert plots.draws == drawn  # the page loads' figure events drew nothing


def _per_model_reference(rows):
    """The interval figure with its points drawn the straightforward way: the figure's own axes, emptied,
    then one errorbar (or bare point) per model."""
    from schemas.display import as_number

    fig = scores_ci_figure(rows)
    n = len(rows)
    for ax, metric in zip(fig.axes, ("s_raw", "s_adj")):
        for artist in [*ax.lines, *ax.collections]:
            artist.remove()
        ax.containers.clear()
        columns = (rows[c] if c in rows else [None] * n for c in (metric, f"{metric}_lo", f"{metric}_hi"))
        for yi, v, lo, hi in zip(range(n - 1, -1, -1), *columns):
            v, lo, hi = as_number(v), as_number(lo), as_number(hi)
            if v is None:
                continue
            if lo is not None and hi is not None:
                ax.errorbar([v], [yi], xerr=[[v - lo], [hi - v]], fmt="o", color="#1f4e79", capsize=3, markersize=4)
            else:
                ax.plot([v], [yi], "o", color="#7f8c8d", markersize=4)
    return fig


def test_interval_figure_draws_what_one_errorbar_per_model_draws(dataset):
    """The figure is drawn with one call per kind of point (speed); the pixels are those of one call per
    model, with a model lacking bounds (a bare point) and one lacking a score (not drawn)."""
    import numpy as np
    from PIL import Image

    rows = load_board(dataset).rows("smoke", "heuristic").reset_index(drop=True)
    rows.loc[0, ["s_raw_lo", "s_adj_hi"]] = None
    rows.loc[1, "s_adj"] = None
    for frame in (rows, rows.drop(columns=["s_raw_lo", "s_raw_hi", "s_adj_lo", "s_adj_hi"])):
        drawn, reference = BytesIO(), BytesIO()
        scores_ci_figure(frame).savefig(drawn, format="png")
        _per_model_reference(frame).savefig(reference, format="png")
        a, b = (np.asarray(Image.open(BytesIO(x.getvalue()))) for x in (drawn, reference))
        assert a.shape == b.shape and (a != b).any(axis=-1).sum() == 0
