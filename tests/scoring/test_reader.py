"""The one reader (toolkit.data.reading): the same checks on every path, errors naming the source file and
line, and the streaming leaderboard equal to the whole-table one.

Expected values are computed here with plain loops or from the definitions, never copied from output.
"""
from __future__ import annotations

import importlib.util
import itertools
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from slmboard_testing import make_item_row, make_run
from toolkit import api
from toolkit.core.errors import ValidationFailed
from toolkit.stages.judging.agreement_report import agreement_by_suite
from toolkit.data.reading import iter_item_groups, parse_hub_id, read_item_frame
from toolkit.data.reading import leaderboard
from toolkit.data.scoring import bootstrap, ternary
from toolkit.data.scoring.ranks import competition_rank

REPO = Path(__file__).resolve().parents[2]
KEYS = ["suite", "judge_id", "model_id", "item_id", "score", "submission_id", "model_revision"]


def cli(*args, cwd=None) -> subprocess.CompletedProcess:
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(cwd or REPO)}
    return subprocess.run([sys.executable, "-m", "toolkit.cli", *args], capture_output=True, text=True, timeout=300, env=env, cwd=cwd)


def _judged_run(root: Path, judge: str, scores: dict, model="org/model-a", sub="model-a-1", suite="sst") -> Path:
    make_run(root, scores={i: 1.0 for i in scores}, model_id=model, submission_id=sub, suite=suite, judged=False)
    rows = [make_item_row(i, s, model_id=model, suite=suite, judge_id=judge, submission_id=sub) for i, s in scores.items()]
    path = root / "judgments" / judge / f"{suite}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


# ---------------------------------------------------------------------------------------------
# Score values, and the file and line in every error
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [0.7, 1.5, "1", True])
def test_bad_score_in_a_run_folder_names_the_judgment_file_and_line(tmp_path, bad):
    run = tmp_path / "RUN"
    _judged_run(run, "j1", {"a": 1.0, "b": 0.0})
    judgments = run / "judgments" / "j1" / "sst.jsonl"
    lines = judgments.read_text().splitlines()
    row = json.loads(lines[1])
    row["score"] = bad
    judgments.write_text(lines[0] + "\n" + json.dumps(row) + "\n")
    with pytest.raises(ValidationFailed) as exc:
        read_item_frame(run)
    assert [(e.file, e.row, e.field) for e in exc.value.errors] == [(str(judgments), 2, "score")]
    proc = cli("rank", str(run), "--bootstrap", "0")
    assert proc.returncode == 1
    assert f"{judgments}:2:score" in proc.stderr + proc.stdout


def test_bad_score_in_a_dataset_parquet_names_the_file_and_row(tmp_path):
    frame = pd.DataFrame([make_item_row(f"i{k}", s) for k, s in enumerate([1.0, 0.5, 0.7, None])])[KEYS]
    path = tmp_path / "items.parquet"
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path)
    with pytest.raises(ValidationFailed) as exc:
        api.rank(path, options=api.RankOptions(n_bootstrap=0))
    assert [(e.file, e.row, e.field) for e in exc.value.errors] == [(str(path), 3, "score")]
    assert "0.7" in str(exc.value)


# ---------------------------------------------------------------------------------------------
# Duplicates: refused everywhere, both rows and the key named
# ---------------------------------------------------------------------------------------------


def test_duplicate_across_two_run_folders_names_both_files_lines_and_key(tmp_path):
    first = _judged_run(tmp_path / "r1", "j1", {"a": 1.0, "b": 0.0})
    second = _judged_run(tmp_path / "r2", "j1", {"c": 0.5, "b": 1.0})
    with pytest.raises(ValidationFailed) as exc:
        api.rank([tmp_path / "r1", tmp_path / "r2"], options=api.RankOptions(n_bootstrap=0))
    (err,) = exc.value.errors
    assert (err.file, err.row) == (str(second), 2)
    assert f"{first}:2" in err.message
    assert "('org/model-a', 'rev1', 'sst', 'j1', 'b')" in err.message


def test_duplicate_inside_one_parquet_file_and_cli_exit_1(tmp_path):
    rows = [make_item_row(i, s) for i, s in [("a", 1.0), ("b", 0.0), ("c", 0.5), ("b", 1.0)]]
    path = tmp_path / "dup.parquet"
    pq.write_table(pa.Table.from_pandas(pd.DataFrame(rows)[KEYS], preserve_index=False), path)
    proc = cli("rank", str(path), "--bootstrap", "10", "--quiet")
    assert proc.returncode == 1
    assert f"{path}:4: duplicate record" in proc.stderr and f"also at {path}:2" in proc.stderr
    # today the duplicate was counted twice in n_items and once in the bootstrap; now nothing is ranked
    with pytest.raises(ValidationFailed):
        leaderboard(pd.DataFrame(rows))


def test_duplicate_in_a_mixed_row_group_is_found_with_its_row_numbers(tmp_path):
    # Suites interleaved in one row group and no statistics: the reader must filter rows itself.
    rows = [make_item_row(f"i{k % 3}", 1.0, suite=("sst" if k % 2 else "xstest")) for k in range(8)]
    path = tmp_path / "mixed.parquet"
    pq.write_table(pa.Table.from_pandas(pd.DataFrame(rows)[KEYS], preserve_index=False), path, write_statistics=False)
    with pytest.raises(ValidationFailed) as exc:
        api.rank(path, options=api.RankOptions(n_bootstrap=0))
    # sst rows are 2,4,6,8 with items i1,i0,i2,i1 -> row 8 repeats row 2; xstest rows 1,3,5,7: i0,i2,i1,i0 -> 7 repeats 1
    got = sorted((e.row, e.message.split("also at ")[1]) for e in exc.value.errors)
    assert got == [(7, f"{path}:1"), (8, f"{path}:2")]


def test_frame_readers_refuse_duplicates_and_bad_scores_from_python():
    rows = pd.DataFrame([make_item_row("a", 1.0, judge_id="A"), make_item_row("a", 0.7, judge_id="B")])
    with pytest.raises(ValidationFailed, match="records:2:score: 0.7 is not 0, 0.5, 1 or null"):
        agreement_by_suite(rows, "A", "B")  # today: 0.7 counted as "safe"
    rows.loc[1, "score"] = 1.5
    with pytest.raises(ValidationFailed, match="1.5 is not"):
        agreement_by_suite(rows, "A", "B")  # today: IndexError
    dup = pd.DataFrame([make_item_row("a", 1.0, judge_id="A"), make_item_row("a", 0.0, judge_id="B"),
                        make_item_row("a", 1.0, judge_id="A")])
    with pytest.raises(ValidationFailed, match=r"records:3: duplicate record.*also at records:1"):
        agreement_by_suite(dup, "A", "B")


# ---------------------------------------------------------------------------------------------
# Groups, forms of DATA
# ---------------------------------------------------------------------------------------------


def test_iter_item_groups_yields_each_suite_judge_once_with_its_rows(tmp_path):
    _judged_run(tmp_path / "r", "j1", {"a": 1.0, "b": 0.0})
    _judged_run(tmp_path / "r", "j2", {"a": 0.5, "b": None})
    _judged_run(tmp_path / "r", "j1", {"x": 0.0}, suite="xstest")
    groups = list(iter_item_groups(tmp_path / "r", columns=["judge_status"]))
    assert [(g.suite, g.judge_id, len(g.frame)) for g in groups] == [("sst", "j1", 2), ("sst", "j2", 2), ("xstest", "j1", 1)]
    assert groups[1].frame["score"].tolist()[0] == 0.5 and math.isnan(groups[1].frame["score"].tolist()[1])
    assert "judge_status" in groups[0].frame.columns and "prompt" not in groups[0].frame.columns
    only = list(iter_item_groups(tmp_path / "r", judges=["j2"]))
    assert [(g.suite, g.judge_id) for g in only] == [("sst", "j2")]


def test_hub_ids_are_parsed_and_local_paths_win(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert parse_hub_id("org/name") == ("org/name", None)
    assert parse_hub_id("hf://datasets/org/name@abc123") == ("org/name", "abc123")
    assert parse_hub_id("org/name@v1") == ("org/name", "v1")
    (tmp_path / "org" / "name").mkdir(parents=True)
    assert parse_hub_id("org/name") is None  # an existing local folder is a folder
    assert parse_hub_id("a/b/c") is None


# ---------------------------------------------------------------------------------------------
# The streaming leaderboard equals the whole-table one (every column), and coverage
# ---------------------------------------------------------------------------------------------


def _bench():
    spec = importlib.util.spec_from_file_location("bench_recompute", REPO / "bench" / "recompute.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _reference_leaderboard(frame: pd.DataFrame, n_bootstrap: int, seed: int) -> pd.DataFrame:
    """The leaderboard as the code before the streaming reader computed it: pandas groups, pivot
    of scores into an items × models matrix, the same paired bootstrap."""
    from schemas import POLICIES
    from toolkit.data.scoring.leaderboard import LEADERBOARD_COLUMNS, _INT_COLUMNS
    from toolkit.data.scoring.ranks import rank_range
    from toolkit.data.scoring.ternary import rates

    out = []
    for (suite, judge), block in frame.groupby(["suite", "judge_id"], sort=True):
        models = sorted(block["model_id"].unique())
        wide = block.pivot(index="item_id", columns="model_id", values="score").reindex(columns=models)
        present = block.pivot(index="item_id", columns="model_id", values="judge_id").reindex(columns=models).notna()
        scores = np.where(present.to_numpy(), wide.to_numpy(dtype=np.float64), np.inf)
        n0, n05, n1 = ((scores == v).sum(axis=0) for v in (0.0, 0.5, 1.0))
        n_items = present.to_numpy().sum(axis=0)
        rows = pd.DataFrame({"suite": suite, "judge_id": judge, "model_id": models, "n_items": n_items,
                             "n_scored": n0 + n05 + n1, "n_failed": n_items - (n0 + n05 + n1)})
        values = rates(n0, n05, n1)
        for k, v in values.items():
            rows[k] = v
        rows["rank_raw"], rows["rank_adj"] = competition_rank(values["s_raw"]), competition_rank(values["s_adj"])
        pr = np.column_stack([competition_rank(values[f"score_{p}"]) for p in POLICIES])
        for i, p in enumerate(POLICIES):
            rows[f"rank_{p}"] = pr[:, i]
        rows["delta_adj"] = rows["rank_raw"] - rows["rank_adj"]
        rows["rank_range"] = rank_range(pr)
        res = bootstrap.paired_bootstrap(ternary.codes_from_scores(scores), n_resamples=n_bootstrap, seed=seed, rank_metrics=("s_adj",))
        for m in ("s_raw", "s_adj") + tuple(f"score_{p}" for p in POLICIES):
            rows[f"{m}_lo"], rows[f"{m}_hi"] = res.lo[m], res.hi[m]
        rows["rank_lo"], rows["rank_hi"] = res.rank_lo, res.rank_hi
        rows["rank_ub"] = bootstrap.rank_upper_bound(res.lo["s_raw"], res.hi["s_raw"])
        rows["rank_adj_lo"], rows["rank_adj_hi"] = res.rank_bounds["s_adj"]
        first = block.drop_duplicates("model_id").set_index("model_id")
        rows["submission_id"] = first.loc[models, "submission_id"].to_numpy()
        rows["model_revision"] = first.loc[models, "model_revision"].to_numpy()
        out.append(rows)
    table = pd.concat(out, ignore_index=True)
    table["coverage"] = None
    table["n_undecided"] = 0  # no panel in the bench file; rank_best/rank_worst: tests/scoring/test_rank_span.py
    table = table[[c for c in LEADERBOARD_COLUMNS if c not in SPAN_COLUMNS]]
    for col in set(_INT_COLUMNS) - set(SPAN_COLUMNS):
        table[col] = table[col].astype("Int64")
    return table.sort_values(["suite", "judge_id", "rank_raw", "model_id"], na_position="last", ignore_index=True)


SPAN_COLUMNS = ("rank_best", "rank_worst")


def _assert_same_table(got: pd.DataFrame, want: pd.DataFrame) -> None:
    got = got.drop(columns=[c for c in SPAN_COLUMNS if c not in want.columns])
    assert list(got.columns) == list(want.columns) and len(got) == len(want)
    for col in got.columns:
        a, b = got[col].astype(object).tolist(), want[col].astype(object).tolist()
        same = [(x is None or x is pd.NA or (isinstance(x, float) and math.isnan(x))) ==
                (y is None or y is pd.NA or (isinstance(y, float) and math.isnan(y))) and
                (x is None or x is pd.NA or (isinstance(x, float) and math.isnan(x)) or x == y) for x, y in zip(a, b)]
        assert all(same), f"column {col} differs at rows {[i for i, s in enumerate(same) if not s][:5]}"


def test_streaming_rank_equals_whole_table_leaderboard_on_the_bench_file(tmp_path, monkeypatch):
    path = tmp_path / "items.parquet"
    sizes = {"air_bench_2024": 300, "salad_bench": 500, "harmbench": 40, "simple_safety_tests": 20, "xstest": 45}
    _bench().generate(path, sizes=sizes, n_models=12)
    whole = pq.read_table(path, columns=KEYS).to_pandas()
    want = _reference_leaderboard(whole, n_bootstrap=300, seed=7)
    # small blocks force the pattern-blocked matrix product and many parquet batches
    monkeypatch.setattr(bootstrap, "_INDICATOR_BYTES", 3 * 12 * 4 * 50)
    monkeypatch.setattr("toolkit.data.reading.source._BATCH_ROWS", 97)
    got = api.rank(path, options=api.RankOptions(n_bootstrap=300, seed=7))
    _assert_same_table(got, want)
    _assert_same_table(leaderboard(whole, n_bootstrap=300, seed=7), want)


def test_coverage_is_items_over_the_suite_total_and_null_when_unknown():
    rows = [make_item_row(i, 1.0, suite="sst", model_id=m) for m, items in (("m1", "abcd"), ("m2", "ab")) for i in items]
    rows.append(make_item_row("z", 0.0, suite="xstest"))
    board = leaderboard(pd.DataFrame(rows), n_bootstrap=0, suite_totals={"sst": 8})
    got = {(r.suite, r.model_id): r.coverage for r in board.itertuples()}
    assert got[("sst", "m1")] == 4 / 8 and got[("sst", "m2")] == 2 / 8
    assert got[("xstest", "org/model-a")] is None or math.isnan(got[("xstest", "org/model-a")])


def test_competition_rank_equals_the_pairwise_definition():
    rng = np.random.default_rng(3)
    scores = rng.choice([0.0, 0.25, 0.5, 1 / 3, 2 / 6, 1.0, np.nan], size=(40, 9))
    got = competition_rank(scores)
    for b, m in itertools.product(range(40), range(9)):
        x = round(scores[b, m], 12)
        if math.isnan(x):
            assert math.isnan(got[b, m])
        else:
            higher = sum(1 for y in scores[b] if not math.isnan(y) and round(y, 12) > x)
            assert got[b, m] == 1 + higher


def test_pattern_blocked_product_gives_identical_intervals(monkeypatch):
    rng = np.random.default_rng(5)
    codes = rng.choice([0, 1, 2, 3, 4], p=[0.3, 0.2, 0.4, 0.05, 0.05], size=(400, 30)).astype(np.int8)
    whole = bootstrap.paired_bootstrap(codes, n_resamples=300, seed=1, rank_all=True)
    monkeypatch.setattr(bootstrap, "_INDICATOR_BYTES", 3 * 30 * 4 * 7)  # blocks of 7 patterns
    blocked = bootstrap.paired_bootstrap(codes, n_resamples=300, seed=1, rank_all=True)
    for m in whole.lo:
        np.testing.assert_array_equal(whole.lo[m], blocked.lo[m])
        np.testing.assert_array_equal(whole.hi[m], blocked.hi[m])
        np.testing.assert_array_equal(whole.rank_bounds[m][0], blocked.rank_bounds[m][0])


def test_a_group_that_grows_in_models_after_items_keeps_every_label(tmp_path):
    # Files arrive one after another: the item axis grows past its first size (doubling), then a new model
    # arrives with fewer items than the matrix holds — the matrix must grow in rows without shrinking columns.
    files = []
    plan = [("org/a", range(0, 300)), ("org/a", range(300, 310)), ("org/b", range(0, 7))]
    expected: dict[str, list[float]] = {}
    for n, (model, items) in enumerate(plan):
        rows = [make_item_row(f"i{k}", [0.0, 0.5, 1.0][(k + n) % 3], model_id=model, submission_id=f"s{n}") for k in items]
        for r in rows:
            expected.setdefault(model, []).append(r["score"])
        path = tmp_path / f"part{n}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        files.append(path)
    board = api.rank(files, options=api.RankOptions(n_bootstrap=0)).set_index("model_id")
    for model, scores in expected.items():
        assert board.loc[model, "n_items"] == len(scores)
        assert board.loc[model, "s_raw"] == pytest.approx(sum(scores) / len(scores))
