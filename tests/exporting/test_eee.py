"""`slmboard export eee`: every file valid against the EEE 0.3.0 schemas (the shared copies, read with
jsonschema), numbers equal to the leaderboard computed here by plain loops, samples = scored items."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from slmboard_export_fixtures import SCORES, expected_board, write_records
from toolkit import api
from toolkit.outputs.exporting.eee import eee_uuid
from slmboard_testing import new_board

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "interop"
PACKAGED = REPO / "toolkit" / "outputs" / "exporting" / "eee_schema"


def schema(name: str) -> dict:
    folder = SHARED / "eee" if (SHARED / "eee" / name).is_file() else PACKAGED
    return json.loads((folder / name).read_text())


def validate_tree(out: Path) -> tuple[dict[str, dict], dict[str, list[dict]]]:
    """Validate every file under ``out``; returns {path: aggregate} and {path: sample lines}."""
    agg_schema, sample_schema = schema("eval.schema.json"), schema("instance_level_eval.schema.json")
    aggregates, samples = {}, {}
    files = sorted(p for p in out.rglob("*") if p.is_file())
    assert files, "nothing exported"
    for path in files:
        rel = path.relative_to(out).as_posix()
        if path.name.endswith("_samples.jsonl"):
            lines = [json.loads(x) for x in path.read_text().splitlines()]
            for line in lines:
                jsonschema.validate(line, sample_schema)
            samples[rel] = lines
        else:
            assert path.suffix == ".json", rel
            doc = json.loads(path.read_text())
            jsonschema.validate(doc, agg_schema)
            aggregates[rel] = doc
    return aggregates, samples


@pytest.fixture
def exported(tmp_path):
    data = write_records(tmp_path / "items.jsonl")
    out = tmp_path / "eee"
    api.export_eee(data, out, options=api.EeeOptions(n_bootstrap=40, seed=1))
    return data, out


def test_packaged_schemas_are_the_shared_ones_and_reject_broken_files():
    if not (SHARED / "eee").is_dir():
        pytest.skip("shared interop folder not present")
    for name in ("eval.schema.json", "instance_level_eval.schema.json"):
        assert (PACKAGED / name).read_bytes() == (SHARED / "eee" / name).read_bytes()
    fixture = json.loads(next((SHARED / "fixtures" / "eee").glob("*.json")).read_text())
    jsonschema.validate(fixture, schema("eval.schema.json"))  # the validator accepts a known-good file
    del fixture["model_info"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(fixture, schema("eval.schema.json"))


def test_every_file_validates_and_layout_is_suite_org_model_uuid(exported):
    _, out = exported
    aggregates, samples = validate_tree(out)
    assert len(aggregates) == len(SCORES)
    for rel, doc in aggregates.items():
        suite, org, model, name = rel.split("/")
        uid = name.removesuffix(".json")
        assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", uid)
        assert doc["model_info"]["id"] == (model if org == "unknown" else f"{org}/{model}")
        judge = doc["source_metadata"]["additional_details"]["judge_id"]
        assert uid == eee_uuid(doc["model_info"]["id"], "rev1", suite, judge)
        assert doc["detailed_evaluation_results"]["file_path"] == f"data/{suite}/{org}/{model}/{uid}_samples.jsonl"
        assert f"{suite}/{org}/{model}/{uid}_samples.jsonl" in samples


def test_numbers_are_the_leaderboard_computed_from_the_items(exported):
    _, out = exported
    aggregates, samples = validate_tree(out)
    expected = expected_board()
    seen = set()
    for rel, doc in aggregates.items():
        details = doc["source_metadata"]["additional_details"]
        key = (details["suite"], details["judge_id"], doc["model_info"]["id"])
        want = expected[key]
        seen.add(key)
        for count in ("n_items", "n_scored", "n_failed"):
            assert int(details[count]) == want[count], (key, count)
        results = {r["metric_config"]["metric_id"]: r for r in doc["evaluation_results"]}
        defined = {m for m in ("s_raw", "s_adj", "hcr", "ar", "srr") + tuple(
            f"score_{p}" for p in ("pessimistic", "partial_low", "midpoint", "partial_high", "optimistic", "excluded"))
            if want.get(m) is not None}
        assert set(results) == {f"slmboard.{m}" for m in defined}, key
        for metric in defined:
            r = results[f"slmboard.{metric}"]
            assert r["score_details"]["score"] == pytest.approx(want[metric], abs=1e-12), (key, metric)
            assert r["evaluation_name"] == key[0]
            assert r["metric_config"]["lower_is_better"] is (metric in ("hcr", "ar"))
            assert r["metric_config"]["metric_parameters"]["judge_id"] == key[1]
            d = r["score_details"]["details"]
            assert (int(d["n_harmful"]), int(d["n_ambiguous"]), int(d["n_safe"])) == (
                want["n_harmful"], want["n_ambiguous"], want["n_safe"])
            rank_col = {"s_raw": "rank_raw", "s_adj": "rank_adj"}.get(metric, metric.replace("score_", "rank_"))
            if metric not in ("hcr", "ar", "srr"):
                assert int(d["rank"]) == want[rank_col], (key, metric)
        omitted = json.loads(details["omitted_metrics"])
        assert set(omitted) == {m.removeprefix("slmboard.") for m in (
            "s_raw", "s_adj", "hcr", "ar", "srr", "score_pessimistic", "score_partial_low", "score_midpoint",
            "score_partial_high", "score_optimistic", "score_excluded")} - defined
        # samples: one per scored item, failed ones only counted; their mean is s_raw
        lines = samples[rel.removesuffix(".json") + "_samples.jsonl"]
        scores = [s for s in SCORES[key] if s is not None]
        assert sorted(x["evaluation"]["score"] for x in lines) == sorted(scores)
        failed = [f"{key[0]}_{n:03d}" for n, s in enumerate(SCORES[key], 1) if s is None]
        assert json.loads(details["failed_item_ids"]) == failed
        assert not {x["sample_id"] for x in lines} & set(failed)
        if scores:
            assert sum(x["evaluation"]["score"] for x in lines) / len(lines) == pytest.approx(want["s_raw"])
    assert seen == set(SCORES)


def test_undefined_policy_is_left_out_with_its_reason(exported):
    _, out = exported
    aggregates, _ = validate_tree(out)
    by_key = {(d["source_metadata"]["additional_details"]["judge_id"], d["model_info"]["id"], d["evaluation_name"]
               if "evaluation_name" in d else d["source_metadata"]["additional_details"]["suite"]): d
              for d in aggregates.values()}
    only_ambiguous = by_key[("heuristic-v1", "org/model-b", "sst")]
    omitted = json.loads(only_ambiguous["source_metadata"]["additional_details"]["omitted_metrics"])
    assert list(omitted) == ["score_excluded"] and "no decisive item" in omitted["score_excluded"]
    all_failed = by_key[("openai:gpt-4o-mini", "org/model-b", "sst")]
    assert all_failed["evaluation_results"] == []
    assert all_failed["detailed_evaluation_results"]["total_rows"] == 0


def test_intervals_judges_samples_and_provenance(exported):
    data, out = exported
    aggregates, samples = validate_tree(out)
    board = api.rank(data, options=api.RankOptions(n_bootstrap=40, seed=1))  # the intervals are rank's, with the same resamples
    for rel, doc in aggregates.items():
        details = doc["source_metadata"]["additional_details"]
        assert details["dataset"] == str(data) and details["n_bootstrap"] == "40"
        row = board[(board.suite == details["suite"]) & (board.judge_id == details["judge_id"])
                    & (board.model_id == doc["model_info"]["id"])].iloc[0]
        for r in doc["evaluation_results"]:
            metric = r["metric_config"]["metric_id"].removeprefix("slmboard.")
            ci = r["score_details"].get("uncertainty", {}).get("confidence_interval")
            if metric in ("hcr", "ar", "srr"):
                assert ci is None  # rank computes no interval for these
                continue
            assert ci["method"] == "paired percentile bootstrap" and ci["confidence_level"] == 0.95
            assert (ci["lower"], ci["upper"]) == pytest.approx((row[f"{metric}_lo"], row[f"{metric}_hi"]))
            assert r["score_details"]["uncertainty"]["num_bootstrap_samples"] == 40
            llm = r["metric_config"].get("llm_scoring")
            if details["judge_id"].startswith("openai:"):
                assert llm["judges"][0]["model_info"]["id"] == "gpt-4o-mini"
                assert "{{REQUEST}}" in llm["input_prompt"] and "{{ANSWER}}" in llm["input_prompt"]
            else:
                assert llm is None and "heuristic" in r["score_details"]["details"]["judge"]
            assert r["generation_config"]["generation_args"]["max_tokens"] == 16
    xs = next(lines for rel, lines in samples.items() if rel.startswith("xstest/org/model-a/"))
    by_id = {x["sample_id"]: x for x in xs}
    assert by_id["xstest_001"]["input"]["reference"] == ["comply"]  # gold "safe"
    assert by_id["xstest_002"]["input"]["reference"] == ["refuse"]  # gold "unsafe"
    assert by_id["xstest_001"]["output"]["raw"] == ["answer 1 of org/model-a"]
    assert by_id["xstest_001"]["input"]["raw"] == "xstest prompt 1"
    assert by_id["xstest_001"]["evaluation"] == {"score": 1.0, "is_correct": True}
    assert by_id["xstest_004"]["evaluation"] == {"score": 0.5, "is_correct": False}
    assert by_id["xstest_004"]["metadata"]["label"] == "ambiguous"
    assert by_id["xstest_004"]["metadata"]["category"] == "self_harm"
    sst = next(lines for rel, lines in samples.items() if rel.startswith("sst/org/model-a/"))
    assert all(x["input"]["reference"] == [] for x in sst)  # no gold: no expected behaviour


def test_export_is_deterministic_and_names_the_dataset_commit(synthetic_run, tmp_path):
    ds = tmp_path / "ds"
    new_board(ds)
    api.submit(synthetic_run("a"), to=ds, options=api.SubmitOptions(n_bootstrap=0))
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ds, capture_output=True, text=True).stdout.strip()
    api.export_eee(ds, tmp_path / "one", options=api.EeeOptions(n_bootstrap=20))
    api.export_eee(ds, tmp_path / "two", options=api.EeeOptions(n_bootstrap=20))
    one = {p.relative_to(tmp_path / "one"): p.read_bytes() for p in (tmp_path / "one").rglob("*") if p.is_file()}
    two = {p.relative_to(tmp_path / "two"): p.read_bytes() for p in (tmp_path / "two").rglob("*") if p.is_file()}
    assert one == two and len(one) == 2
    doc = json.loads(next(v for k, v in one.items() if k.suffix == ".json"))
    assert doc["source_metadata"]["additional_details"]["dataset_revision"] == head


def test_bad_input_exits_1_names_file_row_field_and_writes_nothing(tmp_path):
    data = write_records(tmp_path / "items.jsonl")
    lines = data.read_text().splitlines()
    lines[2] = lines[2].replace('"score": 0.5', '"score": 0.3')
    data.write_text("\n".join(lines) + "\n")
    out = tmp_path / "eee"
    proc = subprocess.run([sys.executable, "-m", "toolkit.cli", "export", "eee", str(data), "--out", str(out)],
                          capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 1 and "score" in proc.stderr and "items.jsonl" in proc.stderr, proc.stderr
    assert not out.exists()
    proc = subprocess.run([sys.executable, "-m", "toolkit.cli", "export", "eee", str(tmp_path / "nope"), "--out", str(out)],
                          capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 1 and "nope" in proc.stderr and not out.exists()


def test_cli_writes_the_files(tmp_path):
    data = write_records(tmp_path / "items.jsonl")
    out = tmp_path / "eee"
    proc = subprocess.run([sys.executable, "-m", "toolkit.cli", "export", "eee", str(data), "--out", str(out),
                           "--bootstrap", "0"], capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert f"wrote {len(SCORES)} EEE aggregate file(s)" in proc.stdout
    aggregates, _ = validate_tree(out)
    for doc in aggregates.values():  # no bootstrap, no intervals
        assert all("uncertainty" not in r["score_details"] for r in doc["evaluation_results"])


def test_the_files_alone_rebuild_the_same_leaderboard(exported):
    """What `slmboard import eee` relies on: sample scores + the aggregate's failed ids and counts give
    back the same s_raw, s_adj, hcr, ar, srr, score_*, ranks and n_failed."""
    import pandas as pd

    from toolkit.data.reading import leaderboard

    data, out = exported
    aggregates, samples = validate_tree(out)
    rows = []
    for rel, doc in aggregates.items():
        d = doc["source_metadata"]["additional_details"]
        key = {"suite": d["suite"], "judge_id": d["judge_id"], "model_id": doc["model_info"]["id"]}
        for line in samples[rel.removesuffix(".json") + "_samples.jsonl"]:
            rows.append({**key, "item_id": line["sample_id"], "score": line["evaluation"]["score"]})
        failed = json.loads(d["failed_item_ids"])
        assert len(failed) == int(d["n_failed"])
        rows += [{**key, "item_id": item, "score": None} for item in failed]
    rebuilt = leaderboard(pd.DataFrame(rows), n_bootstrap=0)
    original = api.rank(data, options=api.RankOptions(n_bootstrap=0))
    cols = ["suite", "judge_id", "model_id", "n_items", "n_scored", "n_failed", "hcr", "ar", "srr", "s_raw", "s_adj",
            "rank_raw", "rank_adj", "delta_adj", "rank_range"] + [c for c in original.columns if c.startswith(("score_", "rank_"))
                                                                 and not c.endswith(("_lo", "_hi", "_ub"))]
    cols = list(dict.fromkeys(cols))
    pd.testing.assert_frame_equal(rebuilt[cols].reset_index(drop=True), original[cols].reset_index(drop=True))


def test_a_suite_outside_the_registry_exports_as_other_source(tmp_path):
    from slmboard_testing import make_item_row

    data = tmp_path / "items.jsonl"
    data.write_text("".join(json.dumps(make_item_row(f"c{n}", s, suite="my_csv_suite")) + "\n" for n, s in enumerate((1.0, 0.0))))
    api.export_eee(data, tmp_path / "eee", options=api.EeeOptions(n_bootstrap=0))
    aggregates, _ = validate_tree(tmp_path / "eee")
    (doc,) = aggregates.values()
    assert {r["source_data"]["source_type"] for r in doc["evaluation_results"]} == {"other"}
