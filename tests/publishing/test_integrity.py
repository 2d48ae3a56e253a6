"""Integrity checks of `submit`: item set vs the suite's canonical list, moderation records,
manifest hashes, no credentials in the manifest. Every refusal names file:row:field and writes nothing."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from schemas import sha256_text
from toolkit import api
from toolkit.core.errors import ValidationFailed
from toolkit.core.runs import RunDir
from slmboard_testing import new_board


def _rewrite(path, edit):
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    path.write_text("".join(json.dumps(r) + "\n" for r in edit(rows)))


def _both(run, edit):
    r = RunDir(run)
    _rewrite(r.response_file("smoke"), edit)
    _rewrite(r.judgment_file("heuristic-v1", "smoke"), edit)


def test_altered_prompt_is_refused(synthetic_run, tmp_path):
    run = synthetic_run("r")

    def alter(rows):
        rows[1]["prompt"] = "Tell me a joke."
        rows[1]["prompt_sha256"] = sha256_text("Tell me a joke.")
        return rows

    _both(run, alter)
    new_board(tmp_path / "ds")
    with pytest.raises(ValidationFailed) as info:
        api.submit(run, to=tmp_path / "ds", options=api.SubmitOptions(n_bootstrap=0))
    jfile = RunDir(run).judgment_file("heuristic-v1", "smoke")
    assert f"{jfile}:2:prompt_sha256: prompt of 'smoke_002' differs from the canonical prompt (altered prompt)" in str(info.value)
    assert not (tmp_path / "ds" / "submissions").exists()  # the created board holds no submission


def test_unknown_missing_and_duplicate_items_are_refused(synthetic_run, tmp_path):
    run = synthetic_run("r")

    def unknown(rows):
        rows[2]["item_id"] = "smoke_999"
        return rows

    _both(run, unknown)
    resp = RunDir(run).response_file("smoke")
    lines = resp.read_text().splitlines()
    resp.write_text("\n".join(lines + [lines[0]]) + "\n")  # a duplicated response row
    new_board(tmp_path / "ds")
    with pytest.raises(ValidationFailed) as info:
        api.submit(run, to=tmp_path / "ds", options=api.SubmitOptions(n_bootstrap=0))
    text = str(info.value)
    assert ":3:item_id: unknown item 'smoke_999'" in text
    assert f"{resp}:4:item_id: duplicate item 'smoke_001' (first at row 1)" in text
    assert "1 of the 3 canonical smoke item(s) missing: smoke_003" in text
    assert not (tmp_path / "ds" / "submissions").exists()  # the created board holds no submission


def test_moderation_records_are_published_as_their_own_config(synthetic_run, tmp_path):
    from datasets import load_dataset

    run = synthetic_run("r")
    mod = RunDir(run).moderation_file("xstest")
    mod.parent.mkdir(parents=True)
    rows = [{"submission_id": "model-a-1", "moderator_id": "org/guard", "benchmark": "xstest", "item_id": f"x{i}",
             "gold": "flag" if i % 2 else "no_flag", "decision": "flag", "p_flag_logprob": 0.9, "confidence_verbal": 0.7,
             "raw_output": "A", "prompt_variant": "default"} for i in range(4)]
    mod.write_text("".join(json.dumps(r) + "\n" for r in rows))
    ds = tmp_path / "ds"
    new_board(ds)
    api.submit(run, to=ds, options=api.SubmitOptions(n_bootstrap=0))
    assert (ds / "data" / "moderation" / "model-a-1.parquet").is_file()
    manifest = json.loads((ds / "submissions" / "model-a-1.json").read_text())
    assert "data/moderation/model-a-1.parquet" in [f["path"] for f in manifest["record_files"]]
    got = load_dataset(str(ds), "moderation", split="test", cache_dir=str(tmp_path / "c"))
    assert len(got) == 4 and set(got["moderator_id"]) == {"org/guard"}
    assert "config_name: moderation" in (ds / "README.md").read_text()


def test_bad_moderation_row_names_file_row_field(synthetic_run, tmp_path):
    run = synthetic_run("r")
    mod = RunDir(run).moderation_file("xstest")
    mod.parent.mkdir(parents=True)
    mod.write_text(json.dumps({"submission_id": "model-a-1", "moderator_id": "org/guard", "benchmark": "xstest",
                               "item_id": "x1", "gold": "maybe", "decision": "flag", "p_flag_logprob": None,
                               "confidence_verbal": None, "raw_output": None}) + "\n")
    new_board(tmp_path / "ds")
    proc = subprocess.run([sys.executable, "-m", "toolkit.cli", "submit", str(run), "--to", str(tmp_path / "ds")],
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert f"{mod}:1:gold" in proc.stderr
    assert not (tmp_path / "ds" / "submissions").exists()  # the created board holds no submission


def test_credentials_in_run_config_never_reach_the_manifest(synthetic_run, tmp_path):
    run = synthetic_run("r")
    cfg = RunDir(run).config_path
    data = json.loads(cfg.read_text())
    data["model_args"] = {"pretrained": "org/model-a", "token": "hf_secretSECRETsecret123"}
    cfg.write_text(json.dumps(data))
    ds = tmp_path / "ds"
    new_board(ds)
    api.submit(run, to=ds, options=api.SubmitOptions(n_bootstrap=0))
    for path in ds.rglob("*"):
        if path.is_file() and ".git" not in path.parts:
            assert b"hf_secretSECRETsecret123" not in path.read_bytes(), path


def test_unloadable_suite_is_reported_not_silently_passed(synthetic_run, tmp_path, monkeypatch):
    from toolkit.outputs.publishing import prepare_submission

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # no mirror and no fetching: the suite cannot be loaded

    run = synthetic_run("r", suite="harmbench", scores={"hb_1": 1.0})
    prepared = prepare_submission(run, data_dir=tmp_path / "no-mirror")
    assert any("harmbench" in n and "not checked" in n for n in prepared.notes)


def test_manifest_completeness_and_hashes(synthetic_run):
    from toolkit.outputs.publishing import prepare_submission
    from toolkit.outputs.publishing.integrity import check_manifest

    run = synthetic_run("r")
    prepared = prepare_submission(run)
    config = RunDir(run).load_config()
    assert check_manifest(prepared.manifest, prepared.files, config, "run.json") == []
    path = next(iter(prepared.files))
    tampered = {**prepared.files, path: prepared.files[path] + b"x"}
    assert any("sha256 differs from the manifest" in str(e) for e in check_manifest(prepared.manifest, tampered, config, "run.json"))
    extra = {**prepared.files, "data/smoke/stray.parquet": b"x"}
    assert any("without a manifest entry" in str(e) for e in check_manifest(prepared.manifest, extra, config, "run.json"))
    wider = config.model_copy(update={"suites": ["smoke", "xstest"]})
    errs = check_manifest(prepared.manifest, prepared.files, wider, "run.json")
    assert [str(e) for e in errs] == ["run.json:suites: run.json lists suite 'xstest' but it has no judgments by heuristic-v1"]


def test_two_local_submitters_at_once_both_land(synthetic_run, tmp_path):
    ds = tmp_path / "ds"
    runs = [synthetic_run(f"r{i}", model_id=f"org/m{i}", submission_id=f"m{i}-1") for i in range(2)]
    new_board(ds)
    procs = [subprocess.Popen([sys.executable, "-m", "toolkit.cli", "submit", str(r), "--to", str(ds), "--bootstrap", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for r in runs]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    log = subprocess.run(["git", "log", "--format=%s"], cwd=ds, capture_output=True, text=True, check=True).stdout
    assert log.count("Add submission") == 2
    import pandas as pd

    assert sorted(pd.read_parquet(ds / "data" / "leaderboard" / "leaderboard.parquet").model_id) == ["org/m0", "org/m1"]
