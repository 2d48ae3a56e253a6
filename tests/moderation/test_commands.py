"""`slmboard moderation-report` / `moderate` on records: exact columns, formats, precise errors, no partial writes."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from toolkit.core.arrow_schemas import MODERATION_RECORD_SCHEMA
from toolkit.cli import main
from toolkit.data.reliability.report import REPORT_COLUMNS
from toolkit.core.records_io import write_jsonl_atomic, write_parquet_atomic

ISSUE_COLUMNS = ["moderator_id", "benchmark", "n", "accuracy", "macro_f1", "far", "miss", "error_direction", "ece",
                 "ece_flag", "ece_noflag", "brier", "temperature", "ece_scaled", "aurc", "risk_at_50",
                 "risk_at_50_random", "far_lo", "far_hi", "miss_lo", "miss_hi", "macro_f1_lo", "macro_f1_hi",
                 "ece_lo", "ece_hi",
                 # issue 11: the common-item-set bookkeeping, verbal ECE and the full temperature-scaling report
                 "n_dropped", "ece_verbal", "ece_heldout", "temperature_sd", "ts_reduction"]


def _synthetic(mod_row, moderators=("org/over", "org/under", "org/even"), benchmarks=("xstest", "ethics", "aegis"),
               n=60, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for m, bias in zip(moderators, (0.8, -0.8, 0.0)):
        for b in benchmarks:
            for i in range(n):
                gold = "flag" if i % 2 else "no_flag"
                z = (1.2 if gold == "flag" else -1.2) + bias + rng.normal(0, 1.2)
                p = float(1 / (1 + np.exp(-3 * z)))
                rows.append(mod_row(item_id=i, gold=gold, decision="flag" if p >= 0.5 else "no_flag", p=p,
                                    verbal=float(rng.integers(1, 11)) / 10, benchmark=b, moderator_id=m))
    return rows


def test_report_columns_rows_and_formats(mod_row, tmp_path, capsys):
    rows = _synthetic(mod_row)
    rows.append(mod_row(item_id="x", decision=None, p=None, verbal=None, moderator_id="org/even", benchmark="xstest"))
    write_jsonl_atomic(tmp_path / "run" / "moderation" / "all.jsonl", rows)
    assert main(["moderation-report", str(tmp_path / "run"), "--out", str(tmp_path / "a"), "--bootstrap", "200",
                 "--stability-repeats", "10"]) == 0
    out = capsys.readouterr().out
    assert "org/even: 1 of 181 records without a decision" in out
    table = pd.read_csv(tmp_path / "a" / "moderators.csv")
    assert list(table.columns) == ISSUE_COLUMNS == REPORT_COLUMNS
    assert len(table) == 3 * 5 and set(table["benchmark"]) == {"xstest", "ethics", "aegis", "macro", "pooled"}
    assert table["benchmark"].tolist()[:5] == ["aegis", "ethics", "xstest", "macro", "pooled"]
    pooled = table[table["benchmark"] == "pooled"].set_index("moderator_id")
    assert (pooled["n"] == 180).all()  # the parse failure is counted, not scored
    assert pooled.loc["org/over", "error_direction"] > 0 > pooled.loc["org/under", "error_direction"]
    # one temperature per moderator, on its macro and pooled rows only
    scaled = table[table["benchmark"].isin(["macro", "pooled"])]
    assert scaled.groupby("moderator_id")["temperature"].nunique().eq(1).all()
    assert table[~table["benchmark"].isin(["macro", "pooled"])]["temperature"].isna().all()
    lobo = pd.read_csv(tmp_path / "a" / "stability_lobo.csv")
    assert sorted(lobo["dropped_benchmark"]) == ["aegis", "ethics", "xstest"]
    sub = pd.read_csv(tmp_path / "a" / "stability_subsample.csv")
    assert sub["n_per_benchmark"].tolist() == [50, 100, 150]
    costs = pd.read_csv(tmp_path / "a" / "cost_curves.csv")
    cheap = costs[costs["best"]]
    # when misses are 10x as costly and harm is common, the over-flagger wins; when harm is rare, the under-flagger
    assert cheap[(cheap.prevalence == 0.9) & (cheap.cost_ratio == 10)]["moderator_id"].tolist() == ["org/over"]
    assert cheap[(cheap.prevalence == 0.01) & (cheap.cost_ratio == 0.1)]["moderator_id"].tolist() == ["org/under"]
    # the same records as a parquet dataset folder give the same table
    ok = [r for r in rows if r["decision"] is not None]
    write_parquet_atomic(tmp_path / "ds" / "data" / "moderation" / "s.parquet", ok, MODERATION_RECORD_SCHEMA)
    assert main(["moderation-report", str(tmp_path / "ds"), "--out", str(tmp_path / "b"), "--bootstrap", "200",
                 "--stability-repeats", "10", "--no-figures"]) == 0
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "b" / "moderators.csv"), table)


def test_prompt_variants_are_separate_moderators(mod_row, tmp_path):
    rows = [mod_row(item_id=i, gold="flag" if i % 2 else "no_flag", p=0.7) for i in range(10)]
    rows += [mod_row(item_id=i, gold="flag" if i % 2 else "no_flag", p=0.3, variant="swapped") for i in range(10)]
    write_jsonl_atomic(tmp_path / "r.jsonl", rows)
    assert main(["moderation-report", str(tmp_path / "r.jsonl"), "--out", str(tmp_path / "o"), "--no-figures"]) == 0
    t = pd.read_csv(tmp_path / "o" / "moderators.csv")
    assert sorted(t["moderator_id"].unique()) == ["org/mod-a", "org/mod-a@swapped"]


@pytest.mark.parametrize("mutate, expect", [
    (lambda r: r.update(gold="unsafe"), "bad.jsonl:2:gold"),
    (lambda r: r.update(p_flag_logprob=1.5), "bad.jsonl:2:p_flag_logprob"),
    (lambda r: r.pop("moderator_id"), "bad.jsonl:2"),
    (lambda r: r.update(extra=1), "bad.jsonl:2:extra"),
])
def test_bad_records_fail_precisely_and_write_nothing(mod_row, tmp_path, capsys, mutate, expect):
    rows = [mod_row(item_id=1), mod_row(item_id=2)]
    mutate(rows[1])
    write_jsonl_atomic(tmp_path / "bad.jsonl", rows)
    assert main(["moderation-report", str(tmp_path / "bad.jsonl"), "--out", str(tmp_path / "out")]) == 1
    assert expect in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_duplicates_and_missing_input(mod_row, tmp_path, capsys):
    write_jsonl_atomic(tmp_path / "d" / "a.jsonl", [mod_row(item_id=1)])
    write_jsonl_atomic(tmp_path / "d" / "b.jsonl", [mod_row(item_id=1)])
    assert main(["moderation-report", str(tmp_path / "d"), "--out", str(tmp_path / "o")]) == 1
    assert "duplicate" in capsys.readouterr().err
    assert main(["moderation-report", str(tmp_path / "nope"), "--out", str(tmp_path / "o")]) == 1
    assert "no such file or folder" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_moderate_cli_errors(tmp_path, capsys, shared_benchmarks):
    assert main(["moderate", "--out", str(tmp_path / "r"), "--benchmarks", "toxigen"]) == 1
    err = capsys.readouterr().err
    assert "toxigen: the 200 listed ids cannot be joined to source text" in err
    assert ("build_moderation_list('toxigen', lists_dir=DIR, data=FILE) and pass --lists-dir DIR. (build_moderation_list is "
            "--build-list, data is --source-data on the command line)") in err
    assert main(["moderate", "--out", str(tmp_path / "r"), "--source-data", "nope=x.parquet"]) == 1
    assert "unknown moderation benchmark 'nope'; valid moderation benchmarks: " in capsys.readouterr().err
    assert main(["moderate", "--out", str(tmp_path / "r"), "--source-data", "xstest"]) == 1
    assert "--source-data 'xstest' is not KEY=VALUE" in capsys.readouterr().err
    rel = shared_benchmarks / "safety-flag" / "results" / "Llama-3.1-8B__xstest.jsonl"
    assert main(["moderate", "--import-released", str(rel), "--out", str(tmp_path / "r")]) == 0
    assert main(["moderate", "--import-released", str(rel), "--out", str(tmp_path / "r")]) == 1
    assert "import into a new run folder" in capsys.readouterr().err
    bad = tmp_path / "X__xstest.jsonl"
    bad.write_text(json.dumps({"id": "0", "dataset": "xstest", "gt": "(C)", "solo": {}}) + "\n")
    assert main(["moderate", "--import-released", str(bad), "--out", str(tmp_path / "r2")]) == 1
    assert "X__xstest.jsonl:1:gt" in capsys.readouterr().err
    assert not (tmp_path / "r2").exists()


def test_reporting_never_imports_torch():
    code = ("import sys; import toolkit.stages.moderation as m; from toolkit.data.reliability import figures, stability; from toolkit.stages.moderation import workflow; "
            "import space.tabs.moderators; from toolkit.commands import moderation_report, moderate; "
            "assert 'torch' not in sys.modules and 'transformers' not in sys.modules, 'heavy import'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_any_slm_judge_runs_as_moderator(tmp_path, shared_benchmarks, capsys):
    run = tmp_path / "run"
    assert main(["moderate", "--out", str(run), "--model", "judge", "--judge", "heuristic", "--suites", "xstest",
                 "--data-dir", str(shared_benchmarks), "--limit", "6"]) == 0
    assert "xstest: 6 new record(s)" in capsys.readouterr().out
    from toolkit.data.reading.moderation import read_moderation

    frame = read_moderation(run)
    assert len(frame) == 6 and frame["moderator_id"].nunique() == 1
    assert frame["decision"].isin(["flag", "no_flag"]).all()
    assert main(["moderation-report", str(run), "--out", str(tmp_path / "rep"), "--no-figures"]) == 0


def test_a_data_folder_without_the_benchmark_says_where_its_file_comes_from(tmp_path, capsys):
    (tmp_path / "suite-data" / "xstest").mkdir(parents=True)
    code = main(["moderate", "--out", str(tmp_path / "run"), "--suites", "ethics", "--data-dir",
                 str(tmp_path / "suite-data"), "--model", "judge", "--judge", "heuristic", "--limit", "2"])
    err = capsys.readouterr().err
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert "ethics/cm_test_hard.csv: no such file" in err and "curl -L --create-dirs -o" in err
    # issue 47: the flag that passes an export, and that the package's offline samples do not hold ETHICS
    assert "pass --source-data ethics=FILE with an export of hendrycks/ethics" in err and "as its data" not in err
    assert "the package's offline samples hold none" in err and "leave out --data-dir" in err
    assert "https://raw.githubusercontent.com/oughtinc/ice/" in err and not (tmp_path / "run").exists()


def test_a_moderator_without_confidence_is_told_why_its_ece_and_aurc_are_nan(mod_row, tmp_path, capsys):
    """Issue 47: `moderation-report` printed `ece NaN aurc NaN` for a moderator with no confidence, unexplained."""
    rows = [mod_row(item_id=i, gold=g, decision=d, p=None, verbal=None, moderator_id="org/no-conf")
            for i, (g, d) in enumerate([("flag", "flag"), ("no_flag", "flag"), ("flag", "no_flag"), ("no_flag", "no_flag")])]
    rows += [mod_row(item_id=i, gold=g, p=0.8, moderator_id="org/with-conf")
             for i, g in enumerate(["flag", "no_flag", "flag", "no_flag"])]
    write_jsonl_atomic(tmp_path / "m.jsonl", rows)
    assert main(["moderation-report", str(tmp_path / "m.jsonl"), "--out", str(tmp_path / "o"), "--no-figures",
                 "--bootstrap", "50"]) == 0
    out = capsys.readouterr().out
    assert ("org/no-conf: ece and aurc are NaN: 4 of 4 records carry no token-logprob confidence (p_flag_logprob)"
            in out), out
    assert "org/with-conf: ece" not in out
