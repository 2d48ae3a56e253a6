"""The lm-eval tasks slmboard ships (`slmboard tasks lm-eval`), lm-eval loading them, a live run through them, and a
mixed run (xstest + sst + bbq) that imports and publishes with lm-eval's accuracy on BBQ only."""
from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from importing_helpers import FIXTURES, tree_digest
from toolkit.cli import main
from toolkit.core.records_io import iter_jsonl
from toolkit.core.runs import RunDir
from toolkit.stages.suites import SUITES

REPO = Path(__file__).resolve().parents[2]
LM_EVAL_RUN = FIXTURES / "lm_eval" / "run"
MODEL = ["--model-id", "HuggingFaceTB/SmolLM2-135M-Instruct", "--model-revision", "gguf-q4_1-sha256:b179c9523d0e6a0f"]
sys.path.insert(0, str(FIXTURES / "lm_eval"))


def lm_eval_fixture():
    import importlib.util

    spec = importlib.util.spec_from_file_location("lm_eval_fixture_regenerate", FIXTURES / "lm_eval" / "regenerate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tasks_command_prints_the_folder_of_one_task_per_suite(capsys):
    assert main(["tasks", "lm-eval"]) == 0
    folder = Path(capsys.readouterr().out.strip())
    assert folder == REPO / "toolkit" / "stages" / "lm_eval_tasks"
    assert sorted(p.name for p in folder.glob("*.yaml")) == sorted(f"slmboard_{name}.yaml" for name in SUITES.names())
    assert (folder / "suite_docs.py").is_file()
    assert lm_eval_fixture().shipped_tasks_folder() == str(folder)  # the console script says the same


def _mirror_prompts(benchmarks: Path) -> dict[str, list[str]]:
    """Each mirrored suite's prompts in file order, read here with csv (HarmBench: context, HELM's separator, behavior)."""
    def rows(path):
        with open(path, encoding="utf-8", newline="") as fh:
            return list(csv.DictReader(fh))

    harm = [(r["ContextString"] + "\n\n---\n\n" + r["Behavior"]) if r["FunctionalCategory"].strip() == "contextual" else r["Behavior"]
            for r in rows(benchmarks / "harmbench" / "harmbench_behaviors_text_all.csv")]
    return {"xstest": [r["prompt"] for r in rows(benchmarks / "xstest" / "xstest_prompts.csv")],
            "sst": [r["prompts_final"] for r in rows(benchmarks / "simple_safety_tests" / "simple_safety_tests.csv")],
            "harmbench": harm}


def test_lm_eval_loads_every_task_with_slmboards_items_and_decoding(benchmarks):
    """lm-eval's own TaskManager reads the shipped folder; documents are the mirror's items in order; decoding as in
    paper 1 §3.1 (greedy, 512 new tokens, SALAD 256), BBQ multiple choice over A/B/C with BBQ's label."""
    import yaml
    from lm_eval.tasks import TaskManager

    loader = type("TaskYaml", (yaml.SafeLoader,), {})
    loader.add_constructor("!function", lambda load, node: load.construct_scalar(node))  # lm-eval resolves it; not needed here

    folder = REPO / "toolkit" / "stages" / "lm_eval_tasks"
    manager = TaskManager(include_path=str(folder), include_defaults=False,
                          metadata={"data_dir": str(benchmarks), "bbq_categories": "Age,Religion"})
    assert set(manager.all_tasks) == {f"slmboard_{name}" for name in SUITES.names()}
    for name in SUITES.names():  # the configs of the Hub-only suites too, without loading their data
        config = yaml.load((folder / f"slmboard_{name}.yaml").read_text(encoding="utf-8"), Loader=loader)
        if name == "bbq":
            assert config["output_type"] == "multiple_choice" and config["doc_to_choice"] == ["A", "B", "C"]
        else:
            gen = config["generation_kwargs"]
            assert config["output_type"] == "generate_until" and (gen["do_sample"], gen["temperature"]) == (False, 0.0)
            assert gen["max_gen_toks"] == (256 if name.startswith("salad") else 512), name
    tasks = manager.load(["slmboard_xstest", "slmboard_sst", "slmboard_harmbench", "slmboard_bbq"])["tasks"]
    prompts = _mirror_prompts(benchmarks)
    for suite in ("xstest", "sst", "harmbench"):
        task = tasks[f"slmboard_{suite}"]
        assert [task.doc_to_text(d) for d in task.test_docs()] == prompts[suite], suite
    bbq = tasks["slmboard_bbq"]
    docs = list(bbq.test_docs())
    lines = [json.loads(x) for c in ("Age", "Religion") for x in (benchmarks / "bbq" / "data" / f"{c}.jsonl").open(encoding="utf-8")]
    assert [d["id"] for d in docs] == [f"{x['category']}:{x['example_id']}" for x in lines]
    assert [bbq.doc_to_target(d) for d in docs] == [x["label"] for x in lines]
    assert all(f"Passage: {x['context']}\nQuestion: {x['question']}\nA. {x['ans0']}\n" in bbq.doc_to_text(d) for d, x in zip(docs, lines))


def test_the_wheel_carries_the_task_folder(tmp_path):
    """What `pip install slmboard` gets: the YAMLs and their loader inside the package, found by tasks_dir()."""
    src = tmp_path / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("toolkit", "schemas", "space"):
        shutil.copytree(REPO / name, src / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copyfile(REPO / name, src / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path / "dist"), str(src)],
                   check=True, capture_output=True)
    (wheel,) = (tmp_path / "dist").glob("slmboard-*.whl")
    with zipfile.ZipFile(wheel) as z:
        z.extractall(tmp_path / "site")
    found = subprocess.run([sys.executable, "-c", "from toolkit.stages.lm_eval_tasks import tasks_dir; print(tasks_dir())"],
                           cwd=tmp_path, env={"PYTHONPATH": str(tmp_path / "site")}, check=True, capture_output=True, text=True).stdout.strip()
    assert found == str(tmp_path / "site" / "toolkit" / "stages" / "lm_eval_tasks")
    assert sorted(p.name for p in Path(found).iterdir() if p.suffix in (".yaml", ".py")) == \
        sorted([f"slmboard_{n}.yaml" for n in SUITES.names()] + ["__init__.py", "suite_docs.py"])


def _board(dataset: Path, out: Path):
    import pyarrow.parquet as pq

    assert main(["rank", str(dataset), "--bootstrap", "0", "--quiet", "--out", str(out)]) == 0
    return pq.read_table(out / "leaderboard.parquet").to_pandas()


def test_a_mixed_lm_eval_run_publishes_with_lm_evals_accuracy_on_bbq_only(benchmarks, tmp_path, capsys):
    """xstest + sst + bbq in one lm-eval output (written by lm-eval with the shipped tasks): one import, heuristic
    judgments for the run, one submit; lm-eval:acc is held to BBQ alone (run.json says so) and is BBQ accuracy."""
    if not any(LM_EVAL_RUN.rglob("results_*.json")):
        pytest.skip("lm-eval fixture missing; regenerate with tests/importing/fixtures/lm_eval/regenerate.py")
    run = tmp_path / "run"
    assert main(["import", "lm-eval", str(LM_EVAL_RUN), *MODEL, "--data-dir", str(benchmarks), "--out", str(run)]) == 0
    judges = json.loads((run / "run.json").read_text(encoding="utf-8"))["imports"][0]["judges"]
    assert judges["lm-eval:acc"]["suites"] == ["bbq"]
    assert main(["judge", str(run), "--judge", "heuristic"]) == 0
    assert main(["submit", str(run), "--to", str(tmp_path / "dataset"), "--allow-partial", "--data-dir", str(benchmarks),
                 "--bootstrap", "0"]) == 0
    board = _board(tmp_path / "dataset", tmp_path / "board")
    acc = [json.loads(line)["acc"] for line in next(LM_EVAL_RUN.rglob("samples_slmboard_bbq_*.jsonl")).read_text().splitlines()]
    n = {task: len(next(LM_EVAL_RUN.rglob(f"samples_slmboard_{task}_*.jsonl")).read_text().splitlines()) for task in ("xstest", "sst", "bbq")}
    got = {(r.suite, r.judge_id): r for r in board.itertuples()}
    assert {k: r.n_items for k, r in got.items()} == {("bbq", "lm-eval:acc"): n["bbq"], ("bbq", "heuristic-v1"): n["bbq"],
                                                      ("xstest", "heuristic-v1"): n["xstest"], ("sst", "heuristic-v1"): n["sst"]}
    assert got[("bbq", "lm-eval:acc")].s_raw == pytest.approx(sum(acc) / len(acc))
    capsys.readouterr()
    # Without the declaration, lm-eval:acc would be held to every suite: refused, nothing published.
    config = json.loads((run / "run.json").read_text(encoding="utf-8"))
    del config["imports"][0]["judges"]["lm-eval:acc"]["suites"]
    (run / "run.json").write_text(json.dumps(config), encoding="utf-8")
    before = tree_digest(tmp_path / "d2")
    assert main(["submit", str(run), "--to", str(tmp_path / "d2"), "--allow-partial", "--data-dir", str(benchmarks), "--bootstrap", "0"]) == 1
    assert f"{n['xstest']} generated item(s) not judged by lm-eval:acc" in capsys.readouterr().err
    assert tree_digest(tmp_path / "d2") == before


@pytest.mark.slow
def test_live_lm_eval_through_the_shipped_tasks_imports(benchmarks, tmp_path):
    """lm-eval runs here, --include_path "$(slmboard tasks lm-eval)", on SmolLM2 over one item of xstest, sst and
    bbq; its output imports item by item (and is left as lm-eval wrote it)."""
    pytest.importorskip("lm_eval")
    out = lm_eval_fixture().run_lm_eval(benchmarks, tmp_path / "lm-eval-out", limit=1, max_tokens=8)
    before = tree_digest(out)
    run = tmp_path / "run"
    assert main(["import", "lm-eval", str(out), *MODEL, "--data-dir", str(benchmarks), "--out", str(run)]) == 0
    assert tree_digest(out) == before
    for suite, item in (("xstest", "xstest_1"), ("sst", "sst_001")):
        (rec,) = [r for _, r in iter_jsonl(RunDir(run).response_file(suite))]
        (sample,) = [json.loads(x) for x in next(out.rglob(f"samples_slmboard_{suite}_*.jsonl")).read_text().splitlines()]
        assert rec["item_id"] == item and rec["response"] == sample["filtered_resps"][0]
    (rec,) = [r for _, r in iter_jsonl(RunDir(run).judgment_file("lm-eval:acc", "bbq"))]
    assert rec["item_id"] == "Age:0" and rec["gold_choice"] == "ABC"[json.loads((benchmarks / "bbq" / "data" / "Age.jsonl").open().readline())["label"]]
    assert main(["validate", str(run)]) == 0
