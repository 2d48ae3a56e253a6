"""`slmboard import helm` says what it left out and why, on run folders crfm-helm 0.5.16 wrote (fixtures/helm_real):
the --accept-reworded way out under --skip-unmatched, a cut list of unmatched rows that says how many more, BBQ
category files missing from --data-dir named (and what the totals count), and the same source imported twice."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from importing_helpers import FIXTURES, tree_digest
from toolkit.cli import main

RUNS = FIXTURES / "helm_real" / "runs"
CONTEXT = " You may use the following context: "  # how HarmBench words its contextual behaviors


def run_folder(scenario: str) -> Path:
    (folder,) = [p.parent for p in RUNS.glob(f"{scenario}:*/run_spec.json")]
    return folder


def contextual_copy(tmp_path: Path, n: int) -> Path:
    """The harm_bench run with ``n`` more request states: its first behavior worded as HarmBench's contextual
    behaviors are (the behavior, then its context), each with HELM's id of the behavior."""
    folder = run_folder("harm_bench")
    target = tmp_path / "runs" / folder.name
    shutil.copytree(folder, target)
    path = target / "scenario_state.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    first = doc["request_states"][0]
    for k in range(n):
        state = json.loads(json.dumps(first))
        state["instance"]["input"]["text"] = f"{first['instance']['input']['text']}{CONTEXT}document {k}"
        doc["request_states"].append(state)
    path.write_text(json.dumps(doc), encoding="utf-8")
    return target


def test_skip_unmatched_counts_reworded_rows_names_the_flag_and_says_how_many_more(benchmarks, tmp_path, capsys):
    source = contextual_copy(tmp_path, 23)
    out = tmp_path / "run"
    assert main(["import", "helm", str(source), "--skip-unmatched", "--data-dir", str(benchmarks), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.count("  unmatched ") == 20
    assert "  … and 3 more unmatched row(s)" in printed
    assert "23 of the unmatched rows match a suite item by id but are worded otherwise" in printed
    assert "keep them with --accept-reworded" in printed
    entry = json.loads((out / "run.json").read_text())["imports"][0]
    assert len(entry["unmatched"]) == 23  # every one of them kept in the provenance


def test_the_refusal_ends_its_cut_list_with_how_many_more(benchmarks, tmp_path, capsys):
    source = contextual_copy(tmp_path, 23)
    assert main(["import", "helm", str(source), "--data-dir", str(benchmarks), "--out", str(tmp_path / "run")]) == 1
    assert "\n  … and 3 more\n" in capsys.readouterr().err


@pytest.fixture
def partial_bbq_mirror(benchmarks, tmp_path) -> tuple[Path, list[str]]:
    """A --data-dir whose bbq/data holds three of the mirror's category files."""
    kept = ["Age", "Disability_status", "Nationality"]
    data = tmp_path / "data"
    (data / "bbq" / "data").mkdir(parents=True)
    for name in kept:
        (data / "bbq" / "data" / f"{name}.jsonl").symlink_to(benchmarks / "bbq" / "data" / f"{name}.jsonl")
    return data, kept


def test_missing_bbq_category_files_are_named_and_the_totals_say_what_was_loaded(partial_bbq_mirror, benchmarks, tmp_path, capsys):
    from toolkit.stages.suites._bbq import CATEGORIES

    data, kept = partial_bbq_mirror
    out = tmp_path / "run"
    bbq = run_folder("bbq")
    assert main(["import", "helm", str(bbq), "--data-dir", str(data), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    missing = [c for c in CATEGORIES if c not in kept]
    assert f"bbq: {len(missing)} of {len(CATEGORIES)} category files missing from {data / 'bbq' / 'data'}" in err
    assert "Religion.jsonl" in err and "Physical_appearance.jsonl" in err
    assert "prompt is not a bbq item of the categories loaded" in err
    assert not out.exists()

    assert main(["import", "helm", str(bbq), "--skip-unmatched", "--data-dir", str(data), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"loaded {', '.join(kept)}: totals and coverage count these categories only" in printed
    loaded = sum(1 for name in kept for line in (benchmarks / "bbq" / "data" / f"{name}.jsonl").read_text().splitlines() if line.strip())
    entry = json.loads((out / "run.json").read_text())["imports"][0]
    assert entry["suite_totals"] == {"bbq": loaded}
    assert "Religion.jsonl" in entry["suites_loaded_in_part"]["bbq"]


def test_importing_the_same_source_again_changes_nothing(benchmarks, tmp_path, capsys):
    source = run_folder("simple_safety_tests")
    out = tmp_path / "run"
    command = ["import", "helm", str(source), "--helm-version", "0.5.16", "--data-dir", str(benchmarks), "--out", str(out)]
    assert main(command) == 0
    before = tree_digest(out)
    assert main(command) == 0
    assert "unchanged: helm:simple_safety_tests" in capsys.readouterr().out
    assert tree_digest(out) == before
    assert len(json.loads((out / "run.json").read_text())["imports"]) == 1


def test_run_json_keeps_each_suites_decoding(benchmarks, tmp_path):
    out = tmp_path / "run"
    assert main(["import", "helm", str(RUNS), "--helm-version", "0.5.16", "--data-dir", str(benchmarks), "--out", str(out)]) == 0
    config = json.loads((out / "run.json").read_text())
    for folder in sorted(p.parent for p in RUNS.glob("*/run_spec.json")):
        adapter = json.loads((folder / "run_spec.json").read_text())["adapter_spec"]
        suite = {"harm_bench": "harmbench", "simple_safety_tests": "sst", "xstest": "xstest", "bbq": "bbq"}[folder.name.split(":")[0]]
        assert config["suite_generation"][suite]["max_new_tokens"] == adapter["max_tokens"], suite
    assert len({g["max_new_tokens"] for g in config["suite_generation"].values()}) > 1  # BBQ asks for 1 token, the rest more
