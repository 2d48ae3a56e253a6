"""The Space's moderators tab: ranked by macro-F1 from the dataset's moderation parquet; builds in gradio."""
from __future__ import annotations

import numpy as np

from toolkit.core.arrow_schemas import MODERATION_RECORD_SCHEMA
from toolkit.core.records_io import write_parquet_atomic


def _dataset(tmp_path, mod_row):
    rng = np.random.default_rng(0)
    rows = []
    for m, noise in (("org/good", 0.5), ("org/noisy", 3.0)):
        for i in range(40):
            gold = "flag" if i % 2 else "no_flag"
            p = float(1 / (1 + np.exp(-((2 if gold == "flag" else -2) + rng.normal(0, noise)))))
            rows.append(mod_row(item_id=i, gold=gold, decision="flag" if p >= 0.5 else "no_flag", p=p, moderator_id=m))
    return rows


def test_view_ranks_by_macro_f1(tmp_path, mod_row):
    from space.tabs.moderators import HEADERS, compute, moderators_view

    assert compute(tmp_path) == (None, None)  # no moderation config yet
    rows = [r for r in _dataset(tmp_path, mod_row) if r["moderator_id"] == "org/good"]
    rows += [dict(r, moderator_id="org/bad", item_id=r["item_id"], p_flag_logprob=1 - r["p_flag_logprob"],
                  decision="no_flag" if r["decision"] == "flag" else "flag") for r in rows[:30]]
    write_parquet_atomic(tmp_path / "data" / "moderation" / "s.parquet", rows, MODERATION_RECORD_SCHEMA)
    frame, table = compute(tmp_path, n_bootstrap=200)
    view = moderators_view(frame, table)
    assert list(view.columns) == HEADERS
    assert view["Moderator"].tolist() == ["org/good", "org/bad"] and view["Rank"].tolist() == ["1", "2"]
    assert all(isinstance(v, str) for v in view.to_numpy().ravel())
    # the default view is the leaderboard's macro row (scored on the 30 items both moderators answered)
    macro = table[(table["benchmark"] == "macro") & (table["moderator_id"] == "org/good")].iloc[0]
    assert view.iloc[0]["n"] == "30" and view.iloc[0]["Macro-F1 [95% CI]"] == f"{macro['macro_f1']:.3f}"
    assert view.iloc[0]["T"] == f"{macro['temperature']:.3f}" and view.iloc[0]["ECE held-out"] != "—"
    pooled = moderators_view(frame, table, "pooled")
    assert "[" in pooled.iloc[0]["Macro-F1 [95% CI]"]
    assert moderators_view(frame, table, "xstest")["Moderator"].tolist() == ["org/good", "org/bad"]


def test_equal_macro_f1_share_the_best_rank(tmp_path, mod_row):
    from space.tabs.moderators import compute, moderators_view

    rows = [r for r in _dataset(tmp_path, mod_row) if r["moderator_id"] == "org/good"]
    rows += [dict(r, moderator_id="org/twin") for r in rows]
    rows += [dict(r, moderator_id="org/worse", decision="flag") for r in rows[:40]]
    write_parquet_atomic(tmp_path / "data" / "moderation" / "s.parquet", rows, MODERATION_RECORD_SCHEMA)
    frame, table = compute(tmp_path, n_bootstrap=50)
    view = moderators_view(frame, table)
    assert dict(zip(view["Moderator"], view["Rank"])) == {"org/good": "1", "org/twin": "1", "org/worse": "3"}


def test_tab_builds_inside_blocks(tmp_path, mod_row):
    import gradio as gr

    from space.tabs.moderators import build_moderators_tab

    rows = _dataset(tmp_path, mod_row)
    write_parquet_atomic(tmp_path / "data" / "moderation" / "s.parquet", rows, MODERATION_RECORD_SCHEMA)
    with gr.Blocks() as demo:
        build_moderators_tab(tmp_path)
    ids = {getattr(b, "elem_id", None) for b in demo.blocks.values()}
    assert {"moderators-table", "moderators-reliability", "moderators-risk-coverage", "moderators-cost-map"} <= ids
    with gr.Blocks() as empty:
        build_moderators_tab(tmp_path / "none")
    assert "moderators-empty" in {getattr(b, "elem_id", None) for b in empty.blocks.values()}
