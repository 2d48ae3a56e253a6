"""Published submissions take new judges (issue 31): `submit RUN --to DATASET --update` publishes the judgments the
dataset lacks when the run's responses equal the published ones by content hash, on a local folder and on the
Hub emulator, directly or as a pull request that `review` accepts."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from slmboard_hub_clients import cli as hub_cli
from slmboard_hub_clients import client, hub_env
from slmboard_hub_emulator import start_emulator
from toolkit import api
from toolkit.core.errors import SlmboardError
from toolkit.outputs.publishing.submit import AlreadyPublished

ROOT = Path(__file__).resolve().parents[2]
DATASET = "org/board"


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "toolkit.cli", *args], capture_output=True, text=True, cwd=ROOT)


def change_response(run: Path, item_id: str, text: str) -> None:
    """The run's answer to ``item_id`` differs from what was published (every file of the run says so)."""
    for path in [run / "responses" / "smoke.jsonl", *sorted((run / "judgments").glob("*/smoke.jsonl"))]:
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        for row in rows:
            if row["item_id"] == item_id:
                row["response"] = text
                row.pop("response_sha256", None)
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def git_log(root: Path) -> list[str]:
    return subprocess.run(["git", "log", "--format=%s"], cwd=root, capture_output=True, text=True, check=True).stdout.split("\n")[:-1]


def test_update_adds_a_judge_to_a_published_submission_in_a_folder(synthetic_run, tmp_path):
    run = synthetic_run("a")
    dataset = tmp_path / "board"
    api.create(dataset)
    api.submit(run, to=dataset, options=api.SubmitOptions(n_bootstrap=0))
    # judging the run again and submitting it as before is refused, pointing at --update
    api.judge(run, judge="learned-v1", services=api.Services(progress=False))
    with pytest.raises(AlreadyPublished, match="submit it as an update"):
        api.submit(run, to=dataset, options=api.SubmitOptions(n_bootstrap=0))
    proc = cli("submit", str(run), "--to", str(dataset), "--update", "--bootstrap", "0")
    assert proc.returncode == 0, proc.stderr
    assert "published 3 record(s) of model-a-1" in proc.stdout
    assert (dataset / "data" / "smoke" / "model-a-1__learned-v1.parquet").is_file()
    manifest = json.loads((dataset / "submissions" / "model-a-1.json").read_text())
    assert [f["judge_id"] for f in manifest["record_files"]] == ["heuristic-v1", "learned-v1"]
    assert manifest["judge_fits"]["learned-v1"] == ["free-text", "free-text-gold"]
    board = api.rank(dataset, options=api.RankOptions(n_bootstrap=0))
    assert sorted(board.judge_id) == ["heuristic-v1", "learned-v1"]
    assert git_log(dataset) == ["Update submission model-a-1", "Add submission model-a-1 (org/model-a@rev1)",
                                "Create the board (board.yaml, dataset card)"]
    # nothing left to add: refused, nothing written
    proc = cli("submit", str(run), "--to", str(dataset), "--update", "--bootstrap", "0")
    assert proc.returncode != 0 and "nothing to update: every judge of the run is already published for model-a-1" in proc.stderr
    assert len(git_log(dataset)) == 3


def test_update_refuses_other_responses_naming_the_items(synthetic_run, tmp_path):
    run = synthetic_run("a")
    dataset = tmp_path / "board"
    api.create(dataset)
    api.submit(run, to=dataset, options=api.SubmitOptions(n_bootstrap=0))
    change_response(run, "smoke_002", "Sure, here is how.")
    api.judge(run, judge="learned-v1", services=api.Services(progress=False))
    before = git_log(dataset)
    with pytest.raises(SlmboardError, match=r"data/smoke/model-a-1__learned-v1.parquet: 1 responses differ from the "
                                            r"published ones by content hash: smoke_002"):
        api.submit(run, to=dataset, options=api.SubmitOptions(n_bootstrap=0, update=True))
    assert git_log(dataset) == before and not (dataset / "data" / "smoke" / "model-a-1__learned-v1.parquet").exists()
    # a submission the dataset does not hold is not an update
    other = synthetic_run("b", model_id="org/model-b", submission_id="model-b-1")
    with pytest.raises(SlmboardError, match=f"submission 'model-b-1' is not in {dataset}; submit it first \\(not as an update\\)"):
        api.submit(other, to=dataset, options=api.SubmitOptions(n_bootstrap=0, update=True))


@pytest.fixture
def emulator():
    emu = start_emulator()
    yield emu
    emu.stop()


def pr_of_an_update(run: Path, published_manifest: dict, out: Path) -> Path:
    """The files an update of ``run`` would change, made by hand (the client refuses to make a bad one)."""
    from schemas import Submission
    from toolkit.outputs.publishing.rebuild import manifest_json
    from toolkit.outputs.publishing.submit import prepare_submission
    from toolkit.outputs.publishing.update import updated_manifest

    prepared = prepare_submission(run)
    manifest, added = updated_manifest(Submission.model_validate(published_manifest), prepared.manifest)
    for f in added:
        (out / f.path).parent.mkdir(parents=True, exist_ok=True)
        (out / f.path).write_bytes(prepared.files[f.path])
    (out / "submissions").mkdir(parents=True)
    (out / "submissions" / f"{manifest.submission_id}.json").write_text(manifest_json(manifest))
    return out


def test_update_on_the_hub_directly_and_as_a_pull_request_that_review_accepts(emulator, synthetic_run, tmp_path):
    env = hub_env(emulator, tmp_path)
    run = synthetic_run("a")
    hub_cli(env, "create", DATASET)
    hub_cli(env, "submit", str(run), "--to", DATASET, "--bootstrap", "0")
    published = client(env, """
        import json; from huggingface_hub import hf_hub_download
        print(json.dumps(json.load(open(hf_hub_download("org/board", "submissions/model-a-1.json", repo_type="dataset")))))""")
    api.judge(run, judge="learned-v1", services=api.Services(progress=False))
    # a tampered update (another answer to smoke_003), opened by hand: review names the item
    tampered = synthetic_run("t")
    api.judge(tampered, judge="learned-v1", services=api.Services(progress=False))
    change_response(tampered, "smoke_003", "Here you go.")
    folder = pr_of_an_update(tampered, published, tmp_path / "pr-tampered")
    client(env, f"""
        from huggingface_hub import HfApi
        HfApi().upload_folder(repo_id="org/board", repo_type="dataset", folder_path={str(folder)!r},
                              commit_message="Update submission model-a-1", create_pr=True)
        print("{{}}")""")
    out = hub_cli(env, "submit", str(run), "--to", DATASET, "--update", "--create-pr", "--bootstrap", "0")
    assert "/discussions/2" in out.stdout
    files = client(env, """
        import json; from huggingface_hub import HfApi
        api = HfApi()
        print(json.dumps({"main": api.list_repo_files("org/board", repo_type="dataset"),
                          "pr": api.list_repo_files("org/board", repo_type="dataset", revision="refs/pr/2")}))""")
    new = "data/smoke/model-a-1__learned-v1.parquet"
    assert new not in files["main"] and new in files["pr"]
    proc = hub_cli(env, "review", DATASET, "--no-comment", check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    report = proc.stdout
    assert "PR #2" in report
    pr1 = report[report.index("PR #1"):report.index("PR #2")] if report.index("PR #1") < report.index("PR #2") else report[report.index("PR #1"):]
    assert "FAILED" in pr1 and "1 responses differ from the published ones by content hash: smoke_003" in pr1
    pr2 = report[report.index("PR #2"):] if report.index("PR #1") < report.index("PR #2") else report[report.index("PR #2"):report.index("PR #1")]
    assert "passed" in pr2 and "FAILED" not in pr2
    # and straight to main
    hub_cli(env, "submit", str(run), "--to", DATASET, "--update", "--bootstrap", "0")
    main = client(env, """
        import json; from huggingface_hub import HfApi, hf_hub_download
        api = HfApi()
        manifest = json.load(open(hf_hub_download("org/board", "submissions/model-a-1.json", repo_type="dataset")))
        print(json.dumps({"files": api.list_repo_files("org/board", repo_type="dataset"),
                          "judges": [f["judge_id"] for f in manifest["record_files"]]}))""")
    assert new in main["files"] and main["judges"] == ["heuristic-v1", "learned-v1"]
