"""`slmboard import eee` on a file EEE's own HELM converter wrote (fixtures/eee_helm): several metrics per item, one
samples row per (item, evaluation_result_id). Each metric is its own judge, or the one --metric names; two values of
one (item, metric) are refused naming both rows; the aggregate's generation_config reaches the records."""
from __future__ import annotations

import hashlib
import json
import shutil
from collections import defaultdict
from pathlib import Path

import pytest

from importing_helpers import FIXTURES
from toolkit.cli import main
from toolkit.stages.importing import parser_for
from toolkit.stages.importing.components import EeeOptions
from toolkit.stages.importing.records import generation_config

SOURCE = FIXTURES / "eee_helm"


def samples() -> list[dict]:
    (path,) = SOURCE.glob("*_samples.jsonl")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def aggregate() -> dict:
    (path,) = [p for p in SOURCE.glob("*.json")]
    return json.loads(path.read_text(encoding="utf-8"))


def test_each_metric_is_its_own_judge_and_no_value_is_overwritten():
    want: dict[str, dict[str, float]] = defaultdict(dict)  # judge -> sample id -> score, from the file itself
    for s in samples():
        want[f"eee:{s['evaluation_result_id']}"][s["sample_id"]] = s["evaluation"]["score"]
    assert len(want) == 8 and all(len(v) == 8 for v in want.values())
    parsed = parser_for("eee")([SOURCE])
    assert sorted(parsed.scales) == sorted(want)
    assert len(parsed.rows) == 8  # one response per item, judged by every metric
    for row in parsed.rows:
        for judge, by_sample in want.items():
            assert parsed.scales[judge](row.judgments[judge], None).score == by_sample[row.source_id], (judge, row.source_id)
    assert {info["evaluation_result_id"] for info in parsed.judge_info.values()} == {j.removeprefix("eee:") for j in want}


def test_metric_picks_one():
    parsed = parser_for("eee")([SOURCE], EeeOptions(metric="quasi_exact_match:test"))
    assert list(parsed.scales) == ["eee:quasi_exact_match:test"]
    assert all(list(r.judgments) == ["eee:quasi_exact_match:test"] for r in parsed.rows)


def test_an_unknown_metric_is_refused_listing_the_metrics(tmp_path, capsys):
    assert main(["import", "eee", str(SOURCE), "--metric", "accuracy", "--suites", "bbq", "--out", str(tmp_path / "run")]) == 1
    err = capsys.readouterr().err
    assert "no sample of metric 'accuracy'" in err and "exact_match:test" in err and "--metric" in err


def test_the_aggregates_decoding_reaches_each_record():
    config = aggregate()["evaluation_results"][0]["generation_config"]["generation_args"]
    parsed = parser_for("eee")([SOURCE])
    for row in parsed.rows:
        gen = generation_config(parsed, row)
        assert (gen.temperature, gen.max_new_tokens) == (config["temperature"], config["max_tokens"]) == (0.0, 1)


def test_two_values_of_one_item_and_metric_are_refused_naming_both_rows(tmp_path, capsys):
    folder = tmp_path / "eee"
    shutil.copytree(SOURCE, folder)
    (path,) = folder.glob("*_samples.jsonl")
    lines = path.read_text(encoding="utf-8").splitlines()
    again = json.loads(lines[0])
    again["evaluation"]["score"] = 1.0 - again["evaluation"]["score"]  # the same item and metric, another value
    lines.append(json.dumps(again))
    text = "\n".join(lines) + "\n"
    path.write_text(text, encoding="utf-8")
    (agg_path,) = [p for p in folder.glob("*.json")]
    agg = json.loads(agg_path.read_text(encoding="utf-8"))
    agg["detailed_evaluation_results"].update(checksum=hashlib.sha256(text.encode()).hexdigest(), total_rows=len(lines))
    agg_path.write_text(json.dumps(agg), encoding="utf-8")
    out = tmp_path / "run"
    assert main(["import", "eee", str(folder), "--suites", "bbq", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:{len(lines)}:evaluation_result_id" in err
    assert f"a second value of judge eee:{again['evaluation_result_id']} for sample {again['sample_id']!r} (first at line 1)" in err
    assert not out.exists()


def test_a_sample_the_source_marks_failed_is_a_failed_item(tmp_path, capsys):
    """EEE's ``error`` field on a sample (timeout, refusal, API error): its record keeps the text, its score is no verdict."""
    from slmboard_badinput import _eee_pair

    folder = _eee_pair(tmp_path)
    path, agg_path = folder / "agg_samples.jsonl", folder / "agg.json"
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    lines[1].update(error="API error: 429 Too Many Requests", output={"raw": []})
    text = "".join(json.dumps(s) + "\n" for s in lines)
    path.write_text(text, encoding="utf-8")
    agg = json.loads(agg_path.read_text(encoding="utf-8"))
    agg["detailed_evaluation_results"]["checksum"] = hashlib.sha256(text.encode()).hexdigest()
    agg_path.write_text(json.dumps(agg), encoding="utf-8")
    out = tmp_path / "run"
    assert main(["import", "eee", str(folder), "--suites", "smoke", "--out", str(out)]) == 0
    assert "smoke: 1 failed request(s)" in capsys.readouterr().out
    from toolkit.core.records_io import iter_jsonl
    from toolkit.core.runs import RunDir

    run = RunDir(out)
    responses = {r["prompt"]: r for _, r in iter_jsonl(run.response_file("smoke"))}
    failed = responses[lines[1]["input"]["raw"]]
    assert failed["request_error"] == "API error: 429 Too Many Requests" and failed["response"] == ""
    judged = {r["prompt"]: r for _, r in iter_jsonl(run.judgment_file("eee:smoke/s_raw", "smoke"))}
    assert judged[lines[1]["input"]["raw"]]["judge_status"] != "ok"
    assert "429" in judged[lines[1]["input"]["raw"]]["judge_reason"]
    assert judged[lines[0]["input"]["raw"]]["judge_status"] == "ok"
