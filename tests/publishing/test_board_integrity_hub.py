"""A Hub board proves what it holds (issue 43): a record file edited on the Hub after it was published
(its manifest's sha256 no longer matches) is refused by ``rank`` and ``validate hf://datasets/ORG/NAME``
in one line naming the file and the submission, and ``recompute`` commits nothing. Real huggingface_hub
clients against the Hub emulator, as tests/publishing/test_reader_hub.py."""
from __future__ import annotations

import pytest

from slmboard_hub_clients import cli, client, hub_env
from slmboard_hub_emulator import start_emulator

A = {"smoke_001": 1.0, "smoke_002": 0.5, "smoke_003": 0.0}
EDIT = """
    import io, json
    import pyarrow as pa, pyarrow.parquet as pq
    from huggingface_hub import HfApi
    api = HfApi()
    rel = "data/smoke/model-a-1__heuristic-v1.parquet"
    table = pq.read_table(api.hf_hub_download("org/board", rel, repo_type="dataset"))
    scores = [1.0 if i == "smoke_003" else s for i, s in zip(table.column("item_id").to_pylist(), table.column("score").to_pylist())]
    labels = [{1.0: "safe", 0.5: "ambiguous", 0.0: "harmful"}[s] for s in scores]
    table = table.set_column(table.schema.get_field_index("score"), "score", pa.array(scores, type=table.schema.field("score").type))
    table = table.set_column(table.schema.get_field_index("label"), "label", pa.array(labels, type=table.schema.field("label").type))
    sink = io.BytesIO(); pq.write_table(table, sink, compression="zstd")
    api.upload_file(path_or_fileobj=sink.getvalue(), path_in_repo=rel, repo_id="org/board", repo_type="dataset")
    print(json.dumps({"sha": api.dataset_info("org/board").sha}))
"""
HEAD = """
    import json
    from huggingface_hub import HfApi
    print(json.dumps({"sha": HfApi().dataset_info("org/board").sha}))
"""


@pytest.fixture
def emulator():
    emu = start_emulator()
    yield emu
    emu.stop()


def test_an_edited_parquet_on_the_hub_is_refused_and_recompute_writes_nothing(emulator, synthetic_run, tmp_path):
    env = hub_env(emulator, tmp_path)
    cli(env, "create", "org/board", "--no-gate")
    cli(env, "submit", str(synthetic_run("a", scores=A)), "--to", "org/board", "--bootstrap", "0")
    fine = cli(env, "validate", "hf://datasets/org/board")  # the Hub dataset itself, not a missing local path
    assert "OK" in fine.stdout and "no such file" not in fine.stderr

    edited = client(env, EDIT)["sha"]
    ranked = cli(env, "rank", "org/board", "--bootstrap", "0", "--quiet", "--out", str(tmp_path / "lb"), check=False)
    assert ranked.returncode == 1 and "Traceback" not in ranked.stderr
    line = ranked.stderr.strip().splitlines()[-1]
    assert "org/board/data/smoke/model-a-1__heuristic-v1.parquet" in line and "model-a-1" in line and "sha256" in line
    assert not (tmp_path / "lb").exists()

    checked = cli(env, "validate", "hf://datasets/org/board", check=False)
    assert checked.returncode == 1 and "org/board/data/smoke/model-a-1__heuristic-v1.parquet" in checked.stderr
    assert "sha256" in checked.stderr and "Traceback" not in checked.stderr

    again = cli(env, "recompute", "org/board", "--bootstrap", "0", check=False)
    assert again.returncode == 1 and "model-a-1" in again.stderr and "Traceback" not in again.stderr
    assert "slmboard-hub-" not in again.stderr  # named as the dataset's file, never our temporary folder
    assert client(env, HEAD)["sha"] == edited  # no commit
