"""`slmboard merge`: shards combine into one complete run; anything missing, doubled or mixed is an error."""
import json
import subprocess
import sys

import pytest

from toolkit import api
from toolkit.core.errors import SlmboardError
from toolkit.stages.suites import load_items

N = 3


@pytest.fixture(scope="module")
def shards(tmp_path_factory, hf_backend):
    root = tmp_path_factory.mktemp("shards")
    for k in range(N):
        api.generate(root / f"s{k}", model=hf_backend, options=api.GenerationRunOptions(suites="smoke", limit=7, max_new_tokens=2, shard=f"{k}/{N}"), services=api.Services(progress=False))
    return root


def copy_run(src, dst):
    import shutil

    shutil.copytree(src, dst)
    return dst


def test_merge_is_complete_and_in_suite_order(shards, tmp_path):
    out = tmp_path / "merged"
    # Through the real CLI (a fresh process), as a user runs it.
    proc = subprocess.run([sys.executable, "-m", "toolkit.cli", "merge", *(str(shards / f"s{k}") for k in range(N)),
                           "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "merged 3 shard(s): smoke 7 response(s)" in proc.stdout
    ids = [json.loads(x)["item_id"] for x in (out / "responses" / "smoke.jsonl").read_text().splitlines()]
    assert ids == [i.item_id for i in load_items("smoke", limit=7)]
    config = json.loads((out / "run.json").read_text())
    assert config["shard"] is None and config["limit"] == 7
    assert not api.validate(out).errors


def test_missing_shard_folder_is_named(shards, tmp_path):
    with pytest.raises(SlmboardError, match=r"missing shard folder\(s\) for 2/3"):
        api.merge([shards / "s0", shards / "s1"], tmp_path / "m")
    assert not (tmp_path / "m").exists()


def test_missing_item_is_named_with_its_shard(shards, tmp_path):
    s1 = copy_run(shards / "s1", tmp_path / "s1")
    f = s1 / "responses" / "smoke.jsonl"
    lines = f.read_text().splitlines(keepends=True)
    dropped = json.loads(lines[0])["item_id"]
    f.write_text("".join(lines[1:]))
    with pytest.raises(SlmboardError, match=rf"incomplete: suite smoke has 7 items.*missing {dropped} \(shard 1/3\)"):
        api.merge([shards / "s0", s1, shards / "s2"], tmp_path / "m")
    assert not (tmp_path / "m").exists() and not list(tmp_path.glob(".m.merge-*"))


def test_conflicting_duplicate_is_an_error(shards, tmp_path):
    s2 = copy_run(shards / "s2", tmp_path / "s2")
    f = s2 / "responses" / "smoke.jsonl"
    row = json.loads((shards / "s0" / "responses" / "smoke.jsonl").read_text().splitlines()[0])
    from schemas import sha256_text

    row["response"] = "something else"
    row["response_sha256"] = sha256_text(row["response"])
    with open(f, "a") as fh:
        fh.write(json.dumps(row) + "\n")
    with pytest.raises(SlmboardError, match=rf"item smoke/{row['item_id']} answered differently"):
        api.merge([shards / "s0", shards / "s1", s2], tmp_path / "m")


def test_same_shard_twice_and_nonempty_out(shards, tmp_path):
    with pytest.raises(SlmboardError, match="shard 0/3 given twice"):
        api.merge([shards / "s0", shards / "s0", shards / "s1"], tmp_path / "m")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    with pytest.raises(SlmboardError, match="not empty"):
        api.merge([shards / f"s{k}" for k in range(N)], tmp_path / "full")


def test_resume_refuses_another_shard_in_the_same_folder(shards, hf_backend):
    with pytest.raises(SlmboardError, match="holds shard 0/3"):
        api.generate(shards / "s0", model=hf_backend, options=api.GenerationRunOptions(suites="smoke", limit=7, max_new_tokens=2, shard="1/3"), services=api.Services(progress=False))
