"""`slmboard space deploy`, `slmboard review` and the Space's submission queue against the Hub
emulator (real huggingface_hub client in subprocesses; emulator additions in
tests/slmboard_hub_emulator_spaces.py)."""
from __future__ import annotations

import hashlib
import json
import urllib.request
from pathlib import Path

import pytest

from slmboard_hub_clients import hub_env, cli, client
from slmboard_hub_emulator import start_emulator

REPO = Path(__file__).resolve().parents[2]
DATASET = "org/board"
SPACE = "org/board-space"


@pytest.fixture
def emulator():
    emu = start_emulator()
    yield emu
    emu.stop()





def inspect(emu) -> dict:
    with urllib.request.urlopen(f"{emu.url}/_emulator/spaces", timeout=10) as r:
        return json.loads(r.read())


def commits(env, repo, kind) -> int:
    return client(env, f"""
        import json; from huggingface_hub import HfApi
        print(json.dumps({{"n": len(HfApi().list_repo_commits({repo!r}, repo_type={kind!r}))}}))""")["n"]


def test_deploy_creates_space_sets_variable_and_is_idempotent(emulator, synthetic_run, tmp_path):
    env = hub_env(emulator, tmp_path)
    cli(env, "create", DATASET, "--no-gate")
    cli(env, "submit", str(synthetic_run("a")), "--to", DATASET, "--bootstrap", "0")  # public at first
    out = cli(env, "space", "deploy", SPACE, "--data", DATASET).stdout
    assert out.strip().splitlines()[-1] == f"{emulator.url}/spaces/{SPACE}"
    files = client(env, f"""
        import json; from huggingface_hub import HfApi
        print(json.dumps(HfApi().list_repo_files({SPACE!r}, repo_type="space")))""")
    for needed in ("app.py", "README.md", "requirements.txt", "space/app.py", "space/tabs/judges.py",
                   "toolkit/data/reading/__init__.py", "toolkit/data/scoring/agreement.py", "toolkit/data/reliability/report.py", "schemas/display.py"):
        assert needed in files, needed
    assert not any("__pycache__" in f for f in files)
    state = inspect(emulator)
    assert state["variables"][SPACE]["SLMBOARD_DATA"]["value"] == DATASET
    assert SPACE not in state["secrets"]  # a public dataset needs no token
    assert visibility(env) == {"space": False, "dataset": False}
    n = commits(env, SPACE, "space")
    again = cli(env, "space", "deploy", SPACE, "--data", DATASET).stdout
    assert "up to date: no commit" in again and "SLMBOARD_DATA" not in again
    assert commits(env, SPACE, "space") == n  # idempotent: nothing changed, nothing committed

    # a gated dataset: the deploying token becomes the Space secret HF_TOKEN
    client(env, f"""
        import json; from huggingface_hub import HfApi
        HfApi().update_repo_settings({DATASET!r}, repo_type="dataset", gated="auto"); print("{{}}")""")
    out = cli(env, "space", "deploy", SPACE, "--data", DATASET).stdout
    assert "HF_TOKEN" in out and inspect(emulator)["secrets"][SPACE] == ["HF_TOKEN"]
    # it says what it did; it does not ask the user to set the secret it has just set
    assert "stored the deploying token as the Space secret HF_TOKEN" in out and "nothing more to do" in out


def visibility(env) -> dict:
    return client(env, f"""
        import json; from huggingface_hub import HfApi
        api = HfApi()
        print(json.dumps({{"space": api.space_info({SPACE!r}).private, "dataset": api.dataset_info({DATASET!r}).private}}))""")


def test_a_space_with_hf_login_installs_gradios_oauth_extras():
    """The Space's card turns on "Log in with Hugging Face" (hf_oauth); without Gradio's OAuth extras
    in its requirements the deployed request form would have no login button."""
    import re

    card = (REPO / "space" / "README.md").read_text()
    requirements = (REPO / "space" / "requirements.txt").read_text()
    assert re.search(r"^hf_oauth: true$", card, re.M)
    assert re.search(r"^gradio\[oauth\][<>=,.\d]*$", requirements, re.M), requirements


def test_deploy_private_space_of_a_private_dataset(emulator, synthetic_run, tmp_path):
    """--private: the Space repo is created private; a private (ungated) dataset gets the deploying
    token as the HF_TOKEN secret; a second run commits nothing and the Space stays private."""
    env = hub_env(emulator, tmp_path)
    cli(env, "create", DATASET, "--no-gate")
    cli(env, "submit", str(synthetic_run("a")), "--to", DATASET, "--bootstrap", "0")
    client(env, f"""
        from huggingface_hub import HfApi
        HfApi().update_repo_settings({DATASET!r}, repo_type="dataset", private=True); print("{{}}")""")
    out = cli(env, "space", "deploy", SPACE, "--data", DATASET, "--private").stdout
    assert "HF_TOKEN" in out and out.strip().splitlines()[-1] == f"{emulator.url}/spaces/{SPACE}"
    assert visibility(env) == {"space": True, "dataset": True}
    state = inspect(emulator)
    assert state["secrets"][SPACE] == ["HF_TOKEN"]
    assert state["secret_sha256"][SPACE]["HF_TOKEN"] == hashlib.sha256(emulator.token.encode()).hexdigest()
    assert state["variables"][SPACE]["SLMBOARD_DATA"]["value"] == DATASET
    n = commits(env, SPACE, "space")
    again = cli(env, "space", "deploy", SPACE, "--data", DATASET, "--private").stdout
    assert "up to date: no commit" in again and "SLMBOARD_DATA" not in again
    assert commits(env, SPACE, "space") == n
    assert visibility(env)["space"] is True


def test_deploy_refuses_unknown_dataset_and_writes_nothing(emulator, tmp_path):
    env = hub_env(emulator, tmp_path)
    proc = cli(env, "space", "deploy", SPACE, "--data", "org/nope", check=False)
    assert proc.returncode != 0 and "org/nope" in proc.stderr and "not found" in proc.stderr
    assert inspect(emulator)["variables"] == {}


def test_deployed_space_renders_every_tab_without_torch(emulator, synthetic_run, tmp_path):
    """The files deploy ships are enough: from a snapshot of the Space repo (not this checkout), with
    torch unimportable, every tab's view computes from a dataset with two judges."""
    env = hub_env(emulator, tmp_path)
    cli(env, "create", DATASET)
    cli(env, "submit", str(synthetic_run("a")), "--to", DATASET, "--bootstrap", "0")
    cli(env, "submit", str(synthetic_run("a2", judge_id="other-judge", submission_id="model-a-2",
                                        scores={"smoke_001": 0.5, "smoke_002": 0.5, "smoke_003": 1.0})),
        "--to", DATASET, "--bootstrap", "0")
    cli(env, "space", "deploy", SPACE, "--data", DATASET)
    snap = client(env, f"""
        import json; from huggingface_hub import snapshot_download
        print(json.dumps(snapshot_download({SPACE!r}, repo_type="space", local_dir={str(tmp_path / 'space')!r})))""")
    code = f"""
        import importlib.abc, json, sys
        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path, target=None):
                if name.split(".")[0] in ("torch", "transformers", "lm_eval"):
                    raise ImportError("blocked: " + name)
        sys.meta_path.insert(0, Block())
        sys.path.insert(0, {snap!r})
        import space.app, toolkit
        demo = space.app.build_app({DATASET!r})
        out = {{"toolkit": toolkit.__file__}}
        for v in demo.slmboard_views:
            if v.update is not None:
                values = {{p.key: p.default for w in demo.slmboard_views for p in w.params}}
                out[v.key] = [str(x)[:4000] for x in v.update("smoke", None, values)]
        print(json.dumps(out))
    """
    env_space = {k: v for k, v in env.items() if k != "PYTHONPATH"}
    got = client(env_space, code, cwd=tmp_path)
    assert got["toolkit"].startswith(snap)  # the shipped copy, not this checkout
    # the Judges tab: every judge against people first (none on this board: said so), then the pairwise agreement
    assert "has no people's labels" in got["judges"][0]
    assert "exact agreement" in got["judges"][1] and r"other\-judge" in got["judges"][1]
    assert "record(s) match" in got["items"][4]
    # the Submit tab: the requests queue first (issue 36), then the pull-request queue
    assert "request(s) on **org/board**" in got["submit"][0]
    assert "2 open" not in got["submit"][2] and "open pull request(s)" in got["submit"][2]


def test_review_comments_each_open_pr_and_the_space_lists_them(emulator, synthetic_run, tmp_path):
    env = hub_env(emulator, tmp_path)
    cli(env, "create", DATASET)
    cli(env, "submit", str(synthetic_run("a")), "--to", DATASET, "--bootstrap", "0")
    cli(env, "submit", str(synthetic_run("b", model_id="org/model-b", submission_id="model-b-1")), "--to", DATASET,
        "--bootstrap", "0", "--create-pr")
    # a PR that rewrites model-a's per-item file (append-only) and adds a broken record file
    client(env, f"""
        import json; from huggingface_hub import HfApi, CommitOperationAdd
        api = HfApi()
        files = [f for f in api.list_repo_files({DATASET!r}, repo_type="dataset") if f.startswith("data/smoke/")]
        ops = [CommitOperationAdd(files[0], b"not parquet"),
               CommitOperationAdd("data/smoke/evil__x.jsonl", b'{{"suite": "smoke"}}\\n')]
        api.create_commit({DATASET!r}, ops, repo_type="dataset", commit_message="Rewrite history", create_pr=True)
        print(json.dumps(files))""")
    proc = cli(env, "review", DATASET, check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "PR #1" in proc.stdout and "passed" in proc.stdout and "PR #2" in proc.stdout and "FAILED" in proc.stdout
    comments = inspect(emulator)["comments"]
    ok, bad = comments[f"dataset/{DATASET}#1"], comments[f"dataset/{DATASET}#2"]
    assert len(ok) == 1 and "✅ passed" in ok[0] and "model-b-1" in ok[0]
    assert len(bad) == 1 and "❌ failed" in bad[0] and "changed by the pull request" in bad[0]
    assert "/tmp/" not in bad[0]  # paths relative to the PR, not the reviewer's disk
    queue = client(env, f"""
        import json, sys; sys.path.insert(0, {str(REPO)!r})
        from space.pr_queue import queue_table
        print(queue_table({DATASET!r}).to_json(orient="records"))""")
    by_pr = {r["PR"]: r for r in queue}
    assert by_pr["#1"]["review"] == "passed" and by_pr["#2"]["review"] == "failed"
    assert by_pr["#1"]["title"].startswith("Add submission model-b-1")


def _tampered_pr_folder(run: Path, out: Path, change, **manifest_changes) -> Path:
    """The files `submit` would publish for ``run``, with the per-item rows passed through ``change``
    (the manifest's sha256/n_rows follow, so only the item-set check can object), written as a PR."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    from toolkit.outputs.publishing.rebuild import manifest_json
    from toolkit.outputs.publishing.submit import prepare_submission

    prepared = prepare_submission(run)
    record_files = []
    for rf in prepared.manifest.record_files:
        rows = change(pq.read_table(io.BytesIO(prepared.files[rf.path])).to_pylist())
        sink = io.BytesIO()
        pq.write_table(pa.Table.from_pylist(rows, schema=pq.read_schema(io.BytesIO(prepared.files[rf.path]))), sink)
        data = sink.getvalue()
        (out / rf.path).parent.mkdir(parents=True, exist_ok=True)
        (out / rf.path).write_bytes(data)
        record_files.append(rf.model_copy(update={"sha256": hashlib.sha256(data).hexdigest(), "n_rows": len(rows)}))
    manifest = prepared.manifest.model_copy(update={"record_files": record_files, **manifest_changes})
    (out / "submissions").mkdir(parents=True, exist_ok=True)
    (out / "submissions" / f"{manifest.submission_id}.json").write_text(manifest_json(manifest))
    return out


def test_review_runs_submits_item_set_check(emulator, synthetic_run, tmp_path):
    """PRs whose per-item files are well-formed and hash-consistent but lack a canonical item or carry
    an unknown item id fail review, naming file, row and field; a partial run that declares exactly the
    item it lacks passes (submit --allow-partial's rule)."""
    env = hub_env(emulator, tmp_path)
    cli(env, "create", DATASET)
    cli(env, "submit", str(synthetic_run("a")), "--to", DATASET, "--bootstrap", "0")
    drop = lambda rows: [r for r in rows if r["item_id"] != "smoke_002"]  # noqa: E731
    rename = lambda rows: [{**r, "item_id": "smoke_999"} if r["item_id"] == "smoke_003" else r for r in rows]  # noqa: E731
    prs = {  # submission id -> (folder, title)
        "model-m-1": _tampered_pr_folder(synthetic_run("m", model_id="org/model-m", submission_id="model-m-1"),
                                         tmp_path / "pr-missing", drop),
        "model-u-1": _tampered_pr_folder(synthetic_run("u", model_id="org/model-u", submission_id="model-u-1"),
                                         tmp_path / "pr-unknown", rename),
        "model-p-1": _tampered_pr_folder(synthetic_run("p", model_id="org/model-p", submission_id="model-p-1"),
                                         tmp_path / "pr-partial", drop, partial=True,
                                         missing_items={"smoke": ["smoke_002"]}),
    }
    for sid, folder in prs.items():
        client(env, f"""
            import json; from huggingface_hub import HfApi
            HfApi().upload_folder(repo_id={DATASET!r}, repo_type="dataset", folder_path={str(folder)!r},
                                  commit_message="Add submission {sid}", create_pr=True)
            print("{{}}")""")
    proc = cli(env, "review", DATASET, check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    comments = inspect(emulator)["comments"]
    missing, unknown, partial = (comments[f"dataset/{DATASET}#{n}"][0] for n in (1, 2, 3))
    assert "❌ failed — 1 problem(s)" in missing, missing
    assert ("data/smoke/model-m-1__heuristic-v1.parquet:item_id: 1 of the 3 canonical smoke item(s) missing: smoke_002"
            in missing), missing
    assert "❌ failed — 2 problem(s)" in unknown, unknown  # smoke_999 unknown, and so smoke_003 missing
    # submit writes rows sorted by item id: smoke_003, renamed, is row 3
    assert "data/smoke/model-u-1__heuristic-v1.parquet:3:item_id: unknown item 'smoke_999'" in unknown, unknown
    assert "canonical smoke item(s) missing: smoke_003" in unknown, unknown
    assert "✅ passed" in partial and "model-p-1" in partial, partial
