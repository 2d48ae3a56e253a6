"""Hub side of issue 13, real huggingface_hub client against the Hub emulator (emulated server):
gating on submit/recompute, exports read from a Hub dataset id, pull requests on model repos
(opened / already open / refused). Clients run in subprocesses: HF_ENDPOINT is read at import."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from slmboard_export_fixtures import expected_board, write_records
from slmboard_hub_clients import hub_env, cli, client
from slmboard_hub_emulator import start_emulator

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def emulator():
    emu = start_emulator()
    yield emu
    emu.stop()





GATED = """
    import json
    from huggingface_hub import HfApi
    print(json.dumps({r: HfApi().dataset_info(r).gated for r in %r}))
"""


def test_submit_gates_a_new_repo_no_gate_opts_out_and_recompute_regates(emulator, synthetic_run, tmp_path):
    env = hub_env(emulator, tmp_path)
    cli(env, "create", "org/gated")
    cli(env, "submit", str(synthetic_run("a")), "--to", "org/gated", "--bootstrap", "0")
    cli(env, "create", "org/open", "--no-gate")
    cli(env, "submit", str(synthetic_run("b")), "--to", "org/open", "--bootstrap", "0")
    assert client(env, GATED % ["org/gated", "org/open"]) == {"org/gated": "auto", "org/open": False}
    client(env, """
        from huggingface_hub import HfApi
        HfApi().update_repo_settings("org/gated", repo_type="dataset", gated=False)  # settings drifted
        print("{}")
    """)
    cli(env, "recompute", "org/gated", "--bootstrap", "0")
    cli(env, "recompute", "org/open", "--bootstrap", "0")  # the card says ungated: stays open
    assert client(env, GATED % ["org/gated", "org/open"]) == {"org/gated": "auto", "org/open": False}
    cards = client(env, """
        import json
        from huggingface_hub import DatasetCard
        print(json.dumps({r: DatasetCard.load(r, repo_type="dataset").data.to_dict() for r in ("org/gated", "org/open")}))
    """)
    assert cards["org/gated"]["slmboard"]["gated"] is True and "extra_gated_fields" in cards["org/gated"]
    assert cards["org/open"]["slmboard"]["gated"] is False and "extra_gated_fields" not in cards["org/open"]


def test_exports_read_a_hub_dataset_and_name_its_commit(emulator, synthetic_run, tmp_path):
    env = hub_env(emulator, tmp_path)
    cli(env, "create", "org/board")
    cli(env, "submit", str(synthetic_run("a")), "--to", "org/board", "--bootstrap", "0")
    head = client(env, 'import json; from huggingface_hub import HfApi; print(json.dumps(HfApi().dataset_info("org/board").sha))')
    cli(env, "export", "eee", "org/board", "--out", str(tmp_path / "eee"), "--bootstrap", "0")
    doc = json.loads(next((tmp_path / "eee").rglob("*-*.json")).read_text())
    details = doc["source_metadata"]["additional_details"]
    assert details["dataset"] == "org/board" and details["dataset_revision"] == head
    assert details["dataset_url"] == "https://huggingface.co/datasets/org/board"
    cli(env, "export", "eval-results", "hf://datasets/org/board", "--out", str(tmp_path / "er"))
    text = (tmp_path / "er/org/model-a/.eval_results/slmboard.yaml").read_text()
    entry = yaml.safe_load(text)[0]
    assert entry["dataset"] == {"id": "org/board", "task_id": "smoke", "revision": head}


PR_STATE = """
    import json
    from huggingface_hub import HfApi
    api = HfApi()
    out = {}
    for m in ("org/model-a",):
        prs = list(api.get_repo_discussions(m, discussion_type="pull_request"))
        out[m] = {"prs": [(p.num, p.title, p.status) for p in prs],
                  "main": api.list_repo_files(m),
                  "pr_files": api.list_repo_files(m, revision="refs/pr/1") if prs else [],
                  "yaml": open(api.hf_hub_download(m, ".eval_results/slmboard.yaml", revision="refs/pr/1")).read() if prs else ""}
    print(json.dumps(out))
"""


def test_push_opens_one_pr_per_model_then_reports_already_open_and_refused(emulator, tmp_path):
    env = hub_env(emulator, tmp_path)
    data = write_records(tmp_path / "items.jsonl")
    client(env, f"""
        import urllib.request
        from huggingface_hub import HfApi
        api = HfApi()
        api.create_repo("org/model-a")
        api.create_repo("org/model-b")
        req = urllib.request.Request("{emulator.url}/_emulator/repo-flags/models/org/model-b",
                                     data=b'{{"discussions_disabled": true}}', headers={{"Content-Type": "application/json"}})
        urllib.request.urlopen(req).read()
        print("{{}}")
    """)
    out = tmp_path / "er"
    first = cli(env, "export", "eval-results", str(data), "--out", str(out), "--dataset-id", "org/board", "--push", check=False)
    assert first.returncode == 1, first.stdout + first.stderr  # model-b refused
    lines = {line.split()[1]: line.split()[0] for line in first.stdout.splitlines() if line.startswith("  ")}
    assert lines == {"org/model-a": "opened", "org/model-b": "refused", "solo": "skipped"}, first.stdout
    assert "Discussions are disabled" in first.stdout
    state = client(env, PR_STATE)["org/model-a"]
    assert state["prs"] == [[1, "Add slmboard safety results (org/board)", "open"]]
    assert ".eval_results/slmboard.yaml" not in state["main"]  # a pull request, never a direct commit
    assert state["yaml"] == (out / "org/model-a/.eval_results/slmboard.yaml").read_text()
    pushed = {e["dataset"]["task_id"]: e["value"] for e in yaml.safe_load(state["yaml"])}
    want = expected_board()
    assert pushed == pytest.approx({s: want[(s, "heuristic-v1", "org/model-a")]["s_adj"] for s in ("sst", "xstest")})
    second = cli(env, "export", "eval-results", str(data), "--out", str(out), "--dataset-id", "org/board", "--push", check=False)
    lines = {line.split()[1]: line.split()[0] for line in second.stdout.splitlines() if line.startswith("  ")}
    assert lines["org/model-a"] == "already-open" and lines["org/model-b"] == "refused"
    assert len(client(env, PR_STATE)["org/model-a"]["prs"]) == 1  # not opened twice
    for text in (first.stdout, first.stderr, second.stdout, second.stderr):
        assert emulator.token not in text


def test_push_to_a_missing_model_repo_fails_then_succeeds_once_it_exists(emulator, synthetic_run, tmp_path):
    env = hub_env(emulator, tmp_path)
    ds = tmp_path / "ds"
    cli(env, "create", str(ds))
    cli(env, "submit", str(synthetic_run("a")), "--to", str(ds), "--bootstrap", "0")
    args = ("export", "eval-results", str(ds), "--out", str(tmp_path / "er"), "--dataset-id", "org/board", "--push")
    missing = cli(env, *args, check=False)
    assert missing.returncode == 1 and "missing      org/model-a" in missing.stdout, missing.stdout
    client(env, 'from huggingface_hub import HfApi; HfApi().create_repo("org/model-a"); print("{}")')
    proc = cli(env, *args)
    assert "opened       org/model-a" in proc.stdout and "/org/model-a/discussions/1" in proc.stdout
