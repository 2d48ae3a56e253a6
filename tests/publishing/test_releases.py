"""Releases (issue 49 item 2): ``slmboard release BOARD NAME`` writes what changed since the previous release into
the card, commits it and tags that commit; ``BOARD@NAME`` reads the board as it was (rank, exports, serve), on a
local board (a git tag) and on a Hub board (a tag of the dataset: the emulator's ``create_tag``, read back by
``load_dataset(revision=NAME)``).

Expected values come from the runs this file submits, by S_adj = S_raw · (1 − AR): a (1, ½, 0) 1/3, c (½, 0, 0)
1/9, then b (1, ½, ½) 2/9 between them on the local board, b (1, 1, 1) 1 above a on the Hub board."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from toolkit import api
from toolkit.core.errors import BadOption, ReleaseRefused
from slmboard_testing import new_board

A = {"smoke_001": 1.0, "smoke_002": 0.5, "smoke_003": 0.0}
B = {"smoke_001": 1.0, "smoke_002": 1.0, "smoke_003": 1.0}
B_BETWEEN = {"smoke_001": 1.0, "smoke_002": 0.5, "smoke_003": 0.5}
C = {"smoke_001": 0.5, "smoke_002": 0.0, "smoke_003": 0.0}
FAST = api.SubmitOptions(n_bootstrap=0)


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def _card_block(text: str) -> dict:
    from toolkit.data.reading import read_card_header

    return read_card_header(text)["slmboard"]


def test_a_local_release_is_a_tag_whose_card_says_what_changed_and_board_at_name_reads_it(synthetic_run, tmp_path):
    board = new_board(tmp_path / "board")
    api.submit(synthetic_run("a", scores=A), to=board, options=FAST)
    api.submit(synthetic_run("c", scores=C, model_id="org/model-c", submission_id="model-c-1"), to=board, options=FAST)
    first = api.release(board, "v1", api.ReleaseOptions(notes="the first board"))
    api.submit(synthetic_run("b", scores=B_BETWEEN, model_id="org/model-b", submission_id="model-b-1"), to=board,
               options=FAST)
    second = api.release(board, "v2")

    # each tag names its release commit, whose card holds the entries up to it (the submit in between kept v1's)
    assert _git(board, "rev-parse", "v1^{commit}").strip() == first.revision
    assert _git(board, "rev-parse", "v2^{commit}").strip() == second.revision == _git(board, "rev-parse", "HEAD").strip()
    at_v1 = _card_block(_git(board, "show", "v1:README.md"))["releases"]
    at_v2 = _card_block(_git(board, "show", "v2:README.md"))["releases"]
    assert [r["name"] for r in at_v1] == ["v1"] and [r["name"] for r in at_v2] == ["v1", "v2"]
    assert at_v1[0] == {**at_v2[0]} and at_v1[0]["notes"] == "the first board" and at_v1[0]["since"] is None
    assert at_v1[0]["models_added"] == ["org/model-a", "org/model-c"] and at_v1[0]["judges_added"] == ["heuristic-v1"]
    assert at_v2[1]["since"] == "v1" and at_v2[1]["models_added"] == ["org/model-b"] and at_v2[1]["judges_added"] == []
    assert at_v2[1]["ranks_moved"] == ["smoke · heuristic-v1: org/model-c 2 → 3"]  # b went between a (kept 1) and c
    body = (board / "README.md").read_text()
    assert "## Releases" in body and "### v2" in body and body.index("### v2") < body.index("### v1")

    # BOARD@NAME: the board as each release had it, read through the one read-at-revision function
    then = api.rank(f"{board}@v1", options=api.RankOptions(n_bootstrap=0))
    assert list(then["model_id"]) == ["org/model-a", "org/model-c"] and list(then["s_raw"]) == pytest.approx([0.5, 1 / 6])
    now = api.rank(f"{board}@v2", options=api.RankOptions(n_bootstrap=0))
    assert sorted(now["model_id"]) == ["org/model-a", "org/model-b", "org/model-c"]

    # refused: a name the board has, a name that is no plain tag, and writing to a release
    with pytest.raises(ReleaseRefused, match="already has a tag named 'v1'"):
        api.release(board, "v1")
    _git(board, "branch", "stable", "v1")
    with pytest.raises(ReleaseRefused, match="already has a branch named 'stable'"):
        api.release(board, "stable")
    for name, why in (("main", "reads as a branch"), ("v1 final", "use letters, digits"), ("deadbeef12", "or a commit")):
        with pytest.raises(BadOption, match=why):
            api.release(board, name)
    with pytest.raises(BadOption, match="read only"):
        api.submit(synthetic_run("d", model_id="org/model-d", submission_id="model-d-1"), to=f"{board}@v1", options=FAST)
    assert _git(board, "tag").split() == ["v1", "v2"] and _git(board, "status", "--porcelain") == ""
    for read in (lambda: api.rank(f"{board}@v9"), lambda: api.serve(f"{board}@v9", api.ServeOptions(block=False))):
        with pytest.raises(Exception, match="no revision 'v9'"):  # refused before any server starts
            read()


HUB_RELEASES = """
    import json, os, pathlib
    from datasets import load_dataset
    from huggingface_hub import HfApi
    from toolkit import api
    from toolkit.core.errors import ReleaseRefused
    from toolkit.testing.runs import make_run
    work, hub, fast = pathlib.Path(os.environ["WORK"]), HfApi(), api.SubmitOptions(n_bootstrap=0)
    api.create("org/board", options=api.CreateOptions(requests=False))
    api.submit(make_run(work / "a", scores={A}), to="org/board", options=fast)
    v1 = api.release("org/board", "v1", api.ReleaseOptions(notes="first"))
    api.submit(make_run(work / "b", scores={B}, model_id="org/model-b", submission_id="model-b-1"), to="org/board",
               options=fast)
    api.submit(make_run(work / "c", model_id="org/model-c", submission_id="model-c-1"), to="org/board",
               options=api.SubmitOptions(n_bootstrap=0, create_pr=True))
    refused = []
    for name in ("v1", "v2"):
        try:
            api.release("org/board", name)
        except ReleaseRefused as exc:
            refused.append(str(exc))
    hub.change_discussion_status("org/board", 1, "closed", repo_type="dataset")
    v2 = api.release("org/board", "v2")
    cache = str(work / "ds-cache")
    old = load_dataset("org/board", "leaderboard", split="test", revision="v1", cache_dir=cache).to_pandas()
    new = load_dataset("org/board", "leaderboard", split="test", revision="v2", cache_dir=cache).to_pandas()
    ranked = api.rank("org/board@v1", options=api.RankOptions(n_bootstrap=0))
    tags = {t.name: t.target_commit for t in hub.list_repo_refs("org/board", repo_type="dataset").tags}
    from space import versions  # the Space's selector on a Hub board: its releases, and a release's board
    from space.state import Holder
    holder = Holder("hf://datasets/org/board", warm=False)
    versions.show("v1")
    space_v1 = sorted(holder.board.leaderboard["model_id"].unique())
    versions.show(None)
    print(json.dumps({"space_names": holder.release_names, "space_v1": space_v1,
                      "space_latest": sorted(holder.board.leaderboard["model_id"].unique()),"v1": v1.revision, "v2": v2.revision, "entry2": v2.entry, "refused": refused, "tags": tags,
                      "old": sorted(old["model_id"]), "new": sorted(new["model_id"]), "ranked": list(ranked["model_id"])}))
""".replace("{A}", repr(A)).replace("{B}", repr(B))


def test_a_hub_release_is_a_tag_of_the_dataset_that_load_dataset_and_rank_read(tmp_path):
    from slmboard_hub_clients import client, hub_env
    from slmboard_hub_emulator import start_emulator

    emu = start_emulator()
    try:
        got = client({**hub_env(emu, tmp_path), "WORK": str(tmp_path)}, HUB_RELEASES)
    finally:
        emu.stop()
    assert got["tags"] == {"v1": got["v1"], "v2": got["v2"]}
    assert "already has a tag named 'v1'" in got["refused"][0]
    assert "1 pull request(s) open (#1" in got["refused"][1] and "model-c-1" in got["refused"][1]
    assert got["old"] == ["org/model-a"] == got["ranked"] and got["new"] == ["org/model-a", "org/model-b"]
    assert got["space_names"] == ["v2", "v1"] and got["space_v1"] == ["org/model-a"]
    assert got["space_latest"] == ["org/model-a", "org/model-b"]
    assert got["entry2"]["since"] == "v1" and got["entry2"]["models_added"] == ["org/model-b"]
    assert got["entry2"]["ranks_moved"] == ["smoke · heuristic-v1: org/model-a 1 → 2"]


def test_the_entry_compares_ranks_under_each_suites_primary_judge():
    import pandas as pd

    from toolkit.outputs.publishing.release import release_entry

    def board(rows):
        return pd.DataFrame(rows, columns=["suite", "judge_id", "model_id", "rank_adj"])

    before = board([("s", "j1", "m1", 1), ("s", "j1", "m2", 2), ("s", "j2", "m1", 2), ("s", "j2", "m2", 1)])
    now = board([("s", "j1", "m1", 2), ("s", "j1", "m2", 1), ("s", "j2", "m1", 1), ("s", "j2", "m2", 2),
                 ("s", "j3", "m3", 1)])
    entry = release_entry("v2", None, "v1", before, now, {"s": "j1"})
    assert entry["ranks_moved"] == ["s · j1: m1 1 → 2", "s · j1: m2 2 → 1"]  # j2's moves are not the shown ranks
    assert entry["models_added"] == ["m3"] and entry["judges_added"] == ["j3"]
    assert release_entry("v1", "n", None, None, now, {})["models_added"] == ["m1", "m2", "m3"]
