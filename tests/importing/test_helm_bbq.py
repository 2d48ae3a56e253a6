"""`slmboard import helm` on BBQ runs crfm-helm itself wrote: 0.5.16 (fixtures/helm_real) and HELM's main branch of
August 2024 (fixtures/helm_2024), both HELM Safety's entry ``bbq:subject=all,method=multiple_choice_joint,
output_format_instructions=mcqa,max_train_instances=0`` on SmolLM2-135M-Instruct.

The expected rows are worked out here from the raw files, not from the importer: each request state's instance
is looked up in the mirrored BBQ category files by HELM's own wording of it (``<context>\\nQuestion: <question>``,
options in file order); the answered letter goes through HELM's ``output_mapping`` to the option text and from
there to the file's option index; HELM's correctness is ``exact_match`` in ``per_instance_stats.json``.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from importing_helpers import FIXTURES
from toolkit.cli import main
from toolkit.core.records_io import iter_jsonl
from toolkit.core.runs import RunDir

MODEL = ["--model-id", "HuggingFaceTB/SmolLM2-135M-Instruct"]
SOURCES = {"helm-0.5.16": FIXTURES / "helm_real" / "runs", "helm-main-2024-08": FIXTURES / "helm_2024" / "runs"}


def bbq_folder(runs: Path) -> Path:
    (folder,) = [p.parent for p in runs.glob("bbq:*/run_spec.json")]
    return folder


def mirror_lines(benchmarks: Path) -> dict[tuple[str, tuple[str, ...]], tuple[str, int]]:
    """(HELM's input text, options) -> (item id, gold index) for every line of the mirrored category files."""
    out = {}
    for path in sorted((benchmarks / "bbq" / "data").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            d = json.loads(line)
            out[(f"{d['context']}\nQuestion: {d['question']}", (d["ans0"], d["ans1"], d["ans2"]))] = (f"{path.stem}:{d['example_id']}", d["label"])
    return out


def expected_rows(folder: Path, benchmarks: Path) -> dict[str, dict]:
    """item id -> what its records must say, from HELM's files and the mirror."""
    lines = mirror_lines(benchmarks)
    stats = json.loads((folder / "per_instance_stats.json").read_text(encoding="utf-8"))
    exact = {e["instance_id"]: s["mean"] for e in stats for s in e["stats"] if s["name"]["name"] == "exact_match"}
    out = {}
    for state in json.loads((folder / "scenario_state.json").read_text(encoding="utf-8"))["request_states"]:
        options = tuple(ref["output"]["text"] for ref in state["instance"]["references"])
        item_id, gold = lines[(state["instance"]["input"]["text"], options)]
        completion = state["result"]["completions"][0]["text"]
        chosen = state["output_mapping"].get(completion.strip())  # HELM's reading of the answer
        choice = "ABC"[options.index(chosen)] if chosen is not None else None
        out[item_id] = {"response": completion, "choice": choice, "gold_choice": "ABC"[gold], "correct": choice == "ABC"[gold],
                        "exact_match": exact[state["instance"]["id"]], "request_prompt": state["request"]["prompt"]}
    return out


@pytest.fixture(params=list(SOURCES))
def bbq_run(request, benchmarks, tmp_path) -> tuple[Path, dict[str, dict], Path]:
    folder = bbq_folder(SOURCES[request.param])
    out = tmp_path / "run"
    assert main(["import", "helm", str(folder), *MODEL, "--data-dir", str(benchmarks), "--out", str(out)]) == 0
    return out, expected_rows(folder, benchmarks), folder


def test_fixtures_hold_what_the_test_needs(benchmarks):
    """Every completion is a bare letter or no letter at all (so HELM's and slmboard's readings coincide), and
    the 2024 run holds both outcomes, so item-by-item agreement cannot hold by accident."""
    for name, runs in SOURCES.items():
        rows = expected_rows(bbq_folder(runs), benchmarks)
        assert len(rows) >= 8
        assert {r["response"].strip() for r in rows.values()} <= {"A", "B", "C", "The", "<|im_end|>"}, name
        assert all(row["exact_match"] == float(row["correct"]) for row in rows.values()), name  # HELM agrees with the mirror
        assert any(r["choice"] is None for r in rows.values()) and any(r["choice"] for r in rows.values()), name
    assert {r["exact_match"] for r in expected_rows(bbq_folder(SOURCES["helm-main-2024-08"]), benchmarks).values()} == {0.0, 1.0}


def test_every_bbq_row_matches_with_choice_through_output_mapping(bbq_run):
    run, want, folder = bbq_run
    got = {r["item_id"]: r for _, r in iter_jsonl(RunDir(run).response_file("bbq"))}
    assert sorted(got) == sorted(want)  # every request state matched its item
    max_tokens = json.loads((folder / "run_spec.json").read_text(encoding="utf-8"))["adapter_spec"]["max_tokens"]
    for item_id, row in want.items():
        rec = got[item_id]
        assert (rec["response"], rec["choice"], rec["gold_choice"], rec["correct"]) == \
            (row["response"], row["choice"], row["gold_choice"], row["correct"]), item_id
        meta = json.loads(rec["item_metadata"])
        # HELM's prompt carries its output-format instruction; the record keeps the suite's, and HELM's beside it
        assert meta["source_prompt"] == row["request_prompt"] != rec["prompt"] and rec["prompt"] in row["request_prompt"]
        assert rec["generation"]["max_new_tokens"] == max_tokens  # the BBQ run's own setting, not another run's


def test_helms_exact_match_is_the_judge_helm_exact_match(bbq_run):
    run, want, _ = bbq_run
    got = {r["item_id"]: r for _, r in iter_jsonl(RunDir(run).judgment_file("helm:exact_match", "bbq"))}
    assert {i: r["score"] for i, r in got.items()} == {i: row["exact_match"] for i, row in want.items()}
    entry = json.loads((run / "run.json").read_text(encoding="utf-8"))["imports"][0]
    assert entry["judges"]["helm:exact_match"]["suites"] == ["bbq"]
    assert any(s["path"].endswith("per_instance_stats.json") for s in entry["sources"])


def test_the_toolkits_bbq_judge_agrees_item_by_item_with_helms_exact_match(bbq_run, tmp_path, capsys):
    """The issue's "done when": slmboard's own BBQ judge on the imported rows gives HELM's exact_match, item by item."""
    run, want, _ = bbq_run
    assert main(["validate", str(run)]) == 0
    assert main(["judge", str(run), "--judge", "bbq", "--suites", "bbq"]) == 0
    ours = {r["item_id"]: r["score"] for _, r in iter_jsonl(RunDir(run).judgment_file("bbq-mc-v1", "bbq"))}
    helm = {r["item_id"]: r["score"] for _, r in iter_jsonl(RunDir(run).judgment_file("helm:exact_match", "bbq"))}
    assert ours == helm == {i: row["exact_match"] for i, row in want.items()}
    assert main(["agreement", str(run), "--judges", "helm:exact_match,bbq-mc-v1", "--out", str(tmp_path / "agreement")]) == 0
    bbq = json.loads((tmp_path / "agreement" / "agreement.json").read_text(encoding="utf-8"))["bbq"]
    assert bbq["n"] == len(want) and bbq["exact_agreement"] == 1.0
    capsys.readouterr()


def reversed_options_copy(folder: Path, target: Path) -> Path:
    """A copy of a real HELM BBQ run whose options HELM would have lettered in reverse (a scenario that shuffles
    options, as the issue reports): references, output_mapping, request prompt and answered letter all
    re-lettered consistently, so each completion still picks the same option text and exact_match holds."""
    import shutil

    shutil.copytree(folder, target)
    path = target / "scenario_state.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    for state in doc["request_states"]:
        refs = state["instance"]["references"][::-1]
        state["instance"]["references"] = refs
        old = state["output_mapping"]
        new = {letter: ref["output"]["text"] for letter, ref in zip("ABC", refs)}
        state["output_mapping"] = new
        head, _, _ = state["request"]["prompt"].partition("\nA. ")
        state["request"]["prompt"] = head + "\n" + "\n".join(f"{k}. {v}" for k, v in new.items()) + "\nAnswer:"
        for c in state["result"]["completions"]:
            text = c["text"].strip()
            if text in old:
                relettered = next(k for k, v in new.items() if v == old[text])
                c["text"] = c["text"].replace(text, relettered)
    path.write_text(json.dumps(doc), encoding="utf-8")
    return target


def test_options_lettered_otherwise_by_helm_still_map_to_the_suites_letters(benchmarks, tmp_path):
    folder = bbq_folder(SOURCES["helm-main-2024-08"])
    want = expected_rows(folder, benchmarks)
    source = reversed_options_copy(folder, tmp_path / "runs" / folder.name)
    run = tmp_path / "run"
    assert main(["import", "helm", str(source), *MODEL, "--data-dir", str(benchmarks), "--out", str(run)]) == 0
    got = {r["item_id"]: r for _, r in iter_jsonl(RunDir(run).response_file("bbq"))}
    assert sorted(got) == sorted(want)
    for item_id, row in want.items():
        rec = got[item_id]
        assert (rec["choice"], rec["correct"]) == (row["choice"], row["correct"]), item_id  # the suite's letters, not HELM's
    # the responses name HELM's letters, which now differ from the suite's
    assert any(r["response"].strip() in ("A", "B", "C") and r["response"].strip() != r["choice"] for r in got.values())
    assert main(["judge", str(run), "--judge", "bbq", "--suites", "bbq"]) == 0
    ours = {r["item_id"]: r["score"] for _, r in iter_jsonl(RunDir(run).judgment_file("bbq-mc-v1", "bbq"))}
    assert ours == {i: row["exact_match"] for i, row in want.items()}
