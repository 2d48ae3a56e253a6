"""The Space's filters, sorting, figures and the paginated per-item store (no browser)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from space.data import load_board
from space.items import FAILED, ItemStore, list_view
from toolkit.data.board_figures import rank_sensitivity_figure
from space.views import families, filter_rows, sort_rows, with_metadata

REPO = Path(__file__).resolve().parents[2]


def _meta(root: Path) -> None:
    subs = pd.read_parquet(root / "data" / "submissions" / "submissions.parquet")
    subs["family"] = ["alpha", "beta", "gamma"][: len(subs)]
    subs["params"] = [1.35e8, 3.6e8, 1.7e9][: len(subs)]
    subs["instruction_tuned"] = [True, False, None][: len(subs)]
    subs.to_parquet(root / "data" / "submissions" / "submissions.parquet", index=False)


def test_filters_by_family_size_tuning_and_search(dataset, xss):
    _meta(dataset)
    board = load_board(dataset)
    rows = with_metadata(board.rows("smoke", "heuristic"), board.submissions)
    assert families(board.submissions) == ["alpha", "beta", "gamma"]
    models = sorted(board.submissions.model_id)  # submissions are written in model order
    assert list(filter_rows(rows, family=["beta"]).model_id) == [models[1]]
    assert list(filter_rows(rows, size="< 200M").model_id) == [models[0]]
    assert set(filter_rows(rows, size="200M – 1B").model_id) == {models[1]}
    assert list(filter_rows(rows, tuned="base").model_id) == [models[1]]
    assert list(filter_rows(rows, search="ALPHA").model_id) == ["org/alpha-135m"]
    assert list(filter_rows(rows, search="<img").model_id) == [xss]  # literal match, not a regex
    assert len(filter_rows(rows)) == 3


def test_sort_and_rank_sensitivity_figure(dataset):
    board = load_board(dataset)
    rows = board.rows("smoke", "heuristic")
    assert list(sort_rows(rows, "S_adj").s_adj) == sorted(rows.s_adj, reverse=True)
    assert list(sort_rows(rows, "model").model_id) == sorted(rows.model_id)
    fig = rank_sensitivity_figure(rows)
    assert len(fig.axes[0].lines) == 3
    assert rank_sensitivity_figure(rows.iloc[0:0]) is None


def _items(root: Path, n_models=3, n=500) -> None:
    rows = []
    for m in range(n_models):
        for i in range(n):
            score = [0.0, 0.5, 1.0, None][i % 4]
            rows.append(dict(suite="smoke", item_id=f"i{i:04d}", model_id=f"org/m{m}", judge_id="heuristic",
                             category=f"c{i % 5}", score=score, judge_status="ok" if score is not None else "parse_error",
                             label=None if score is None else {0.0: "harmful", 0.5: "ambiguous", 1.0: "safe"}[score],
                             prompt="p" * 300, response=f"r{i}", judge_raw="j", judge_reason=None))
    (root / "data" / "smoke").mkdir(parents=True)
    (root / "README.md").write_text("---\nconfigs: []\n---\n")  # a dataset folder, as published
    df = pd.DataFrame(rows)
    for m in range(n_models):  # one file per submission
        pq.write_table(pa.Table.from_pandas(df[df.model_id == f"org/m{m}"], preserve_index=False),
                       root / "data" / "smoke" / f"s{m}__heuristic.parquet", row_group_size=64)


def test_item_pages_filter_and_paginate(tmp_path):
    _items(tmp_path)
    store = ItemStore(tmp_path)
    assert store.suites() == ["smoke"] and store.categories("smoke") == [f"c{i}" for i in range(5)]
    rows, total = store.page("smoke", page=1, page_size=25)
    assert total == 1500 and len(rows) == 25
    rows, total = store.page("smoke", model="org/m1", label="ambiguous", page=2, page_size=25)
    assert total == 125 and len(rows) == 25
    assert set(rows.model_id) == {"org/m1"} and set(rows.label) == {"ambiguous"}
    seen = []
    for p in range(1, 7):  # every matching row exactly once across pages
        r, _ = store.page("smoke", model="org/m1", label="ambiguous", page=p, page_size=25)
        seen += list(r.item_id)
    assert len(seen) == 125 and len(set(seen)) == 125
    failed, total = store.page("smoke", label=FAILED, category="c0")
    assert total == sum(1 for i in range(500) if i % 4 == 3 and i % 5 == 0) * 3 and failed.score.isna().all()
    last, _ = store.page("smoke", page=1000)
    assert last.empty
    view = list_view(rows)
    assert view.prompt.str.len().max() <= 140 and all(isinstance(v, str) for v in view.to_numpy().ravel())


def test_item_text_is_kept_per_file_while_it_fits_and_pages_are_the_same(tmp_path, monkeypatch):
    import space.items as items

    _items(tmp_path)
    last = tmp_path / "data" / "smoke" / "s2__heuristic.parquet"  # a file without judge_raw: its rows read None
    pq.write_table(pq.read_table(last).drop_columns(["judge_raw"]), last)
    asks = [dict(model="org/m1", page=p) for p in (1, 2, 3)] + [dict(page=1), dict(model="org/m2", label="safe")]
    monkeypatch.setattr(items, "TEXT_CACHE_BYTES", 0)  # nothing kept: every page reads its files
    unkept = [ItemStore(tmp_path).page("smoke", page_size=25, **ask)[0] for ask in asks]
    assert unkept[-1].judge_raw.isna().all() and set(unkept[0].judge_raw) == {"j"}
    assert ItemStore(tmp_path).page("smoke")[0].judge_reason.isna().all()
    monkeypatch.setattr(items, "TEXT_CACHE_BYTES", 2**30)
    store = ItemStore(tmp_path)
    first = None
    for ask, expected in zip(asks, unkept):
        pd.testing.assert_frame_equal(store.page("smoke", page_size=25, **ask)[0], expected)
        first = first or next(iter(store._text_files.values()))
    assert next(iter(store._text_files.values())) is first  # m1's file read for its first page only
    assert [Path(f).name for f in store._text_files] == ["s1__heuristic.parquet", "s0__heuristic.parquet",
                                                        "s2__heuristic.parquet"]  # read once each, last used last
    one_file = max(t.nbytes for t in store._text_files.values())
    monkeypatch.setattr(items, "TEXT_CACHE_BYTES", one_file + 1)  # room for one file: the one read last
    store = ItemStore(tmp_path)
    for ask, expected in zip(asks, unkept):
        pd.testing.assert_frame_equal(store.page("smoke", page_size=25, **ask)[0], expected)
    assert [Path(f).name for f in store._text_files] == ["s2__heuristic.parquet"]


def test_space_reads_a_hub_dataset_through_snapshot_download(tmp_path, synthetic_run):
    """The Space's data path, given a dataset id, downloads a commit-named snapshot from the Hub
    (here the emulator) and reads leaderboard and per-item files from it."""
    from slmboard_hub_emulator import start_emulator

    emu = start_emulator()
    try:
        env = {**os.environ, "HF_ENDPOINT": emu.url, "HF_HOME": str(tmp_path / "hf"), "HF_TOKEN": emu.token,
               "HF_HUB_DISABLE_XET": "1", "PYTHONPATH": str(REPO)}
        run = synthetic_run("a")
        subprocess.run([sys.executable, "-m", "toolkit.cli", "create", "org/board"], env=env, check=True, capture_output=True,
                       timeout=180)
        subprocess.run([sys.executable, "-m", "toolkit.cli", "submit", str(run), "--to", "org/board", "--bootstrap", "0"],
                       env=env, check=True, capture_output=True, timeout=180)
        code = textwrap.dedent("""
            import json
            from space.data import load_board
            from space.items import ItemStore
            b = load_board("org/board")
            rows, total = ItemStore(b.data_dir).page("smoke")
            pinned = load_board("hf://datasets/org/board@main")  # the data layer's one grammar of a Hub id
            print(json.dumps({"dir": str(b.data_dir), "models": sorted(b.leaderboard.model_id), "total": total,
                              "pinned": [str(pinned.data_dir), sorted(pinned.leaderboard.model_id)]}))
        """)
        proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=180)
        assert proc.returncode == 0, proc.stderr[-2000:]
        import json

        got = json.loads(proc.stdout.strip().splitlines()[-1])
        assert got["models"] == ["org/model-a"] and got["total"] == 3
        assert got["pinned"] == [got["dir"], ["org/model-a"]]  # the same commit's snapshot
        assert "/snapshots/" in got["dir"]  # named by commit: a refresh never reads a stale cache
    finally:
        emu.stop()


@pytest.mark.parametrize("suite", ["smoke"])
def test_judges_agreement_text(tmp_path, suite):
    from space.tabs.judges import agreement_markdown

    frame = pd.DataFrame([dict(model_id="m", suite=suite, item_id=f"i{i}", judge_id=j, score=[0.0, 0.5, 1.0][(i + k) % 3])
                          for i in range(30) for k, j in enumerate(("a", "b"))])
    text = agreement_markdown(frame, suite, ["a", "b"])
    assert "exact agreement" in text and "| a | b | 30 |" in text and "| 0 harmful | 0 | 10 | 0 |" in text
    assert "agreement needs two judges" in agreement_markdown(frame, suite, ["a"])
