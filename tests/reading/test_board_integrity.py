"""A published board proves what it holds (issue 43): every reader reads only the record files a manifest
of the board's commit names, each checked against the manifest's sha256 before a row of it is used.

An edited parquet file (one score changed) is refused by ``rank`` and ``validate`` in one line naming the
file and the submission; ``recompute`` writes nothing; ``serve`` leaves that submission out and says so.
Files a killed writer left in the work tree (no committed manifest names them) are never read. Hashes
are checked once per board revision.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from toolkit import api
from toolkit.data.reading import checked, open_data, read_local_board
from slmboard_testing import new_board

A = {"smoke_001": 1.0, "smoke_002": 0.5, "smoke_003": 0.0}  # S_raw (1 + 0.5) / 3 as submitted
B = {"smoke_001": 1.0, "smoke_002": 1.0, "smoke_003": 1.0}
REPO = Path(__file__).resolve().parents[2]


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root, capture_output=True,
                          text=True, check=True).stdout


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "toolkit.cli", *args], capture_output=True, text=True, env=env, timeout=300)


def edit_one_score(path: Path, item: str = "smoke_003", score: float = 1.0) -> None:
    """What a careless maintainer or an attacker does: change one score, keep the rest of the file."""
    table = pq.read_table(path)
    scores = [score if i == item else s for i, s in zip(table.column("item_id").to_pylist(), table.column("score").to_pylist())]
    labels = [{1.0: "safe", 0.5: "ambiguous", 0.0: "harmful"}.get(s) for s in scores]  # and its label: every row valid
    table = table.set_column(table.schema.get_field_index("score"), "score", pa.array(scores, type=table.schema.field("score").type))
    table = table.set_column(table.schema.get_field_index("label"), "label", pa.array(labels, type=table.schema.field("label").type))
    pq.write_table(table, path, compression="zstd")


@pytest.fixture
def board(synthetic_run, tmp_path) -> Path:
    folder = new_board(tmp_path / "board")
    api.submit(synthetic_run("a", scores=A), to=folder, options=api.SubmitOptions(n_bootstrap=0))
    api.submit(synthetic_run("b", scores=B, model_id="org/model-b", submission_id="model-b-1"), to=folder, options=api.SubmitOptions(n_bootstrap=0))
    return folder


@pytest.mark.parametrize("committed", [False, True], ids=["edited-in-the-work-tree", "edited-and-committed"])
def test_an_edited_parquet_is_refused_by_rank_and_validate_and_recompute_writes_nothing(board, committed, tmp_path):
    edited = board / "data" / "smoke" / "model-a-1__heuristic-v1.parquet"
    edit_one_score(edited)
    if committed:
        _git(board, "commit", "-qam", "edit one score")
    head = _git(board, "rev-parse", "HEAD")
    before = {p: p.read_bytes() for p in board.rglob("*") if p.is_file() and ".git" not in p.parts}

    ranked = _cli("rank", str(board), "--bootstrap", "0", "--quiet", "--out", str(tmp_path / "lb"))
    assert ranked.returncode == 1 and "Traceback" not in ranked.stderr
    line = ranked.stderr.strip().splitlines()[-1]
    assert "data/smoke/model-a-1__heuristic-v1.parquet" in line and "model-a-1" in line and "sha256" in line
    assert not (tmp_path / "lb").exists()

    checked_report = _cli("validate", str(board))
    assert checked_report.returncode == 1 and "Traceback" not in checked_report.stderr
    assert "model-a-1__heuristic-v1.parquet" in checked_report.stderr and "sha256" in checked_report.stderr

    if committed:  # an uncommitted edit is refused by recompute already (not slmboard's change)
        again = _cli("recompute", str(board), "--bootstrap", "0")
        assert again.returncode == 1 and "model-a-1" in again.stderr and "Traceback" not in again.stderr
        assert _git(board, "rev-parse", "HEAD") == head
        assert {p: p.read_bytes() for p in board.rglob("*") if p.is_file() and ".git" not in p.parts} == before


def test_serve_leaves_the_edited_submission_out_and_says_so(board):
    sys.path.insert(0, str(REPO))
    from space.data import load_board

    edit_one_score(board / "data" / "smoke" / "model-a-1__heuristic-v1.parquet")
    shown = load_board(board)
    assert set(shown.leaderboard["model_id"]) == {"org/model-b"}
    assert any("model-a-1" in line and "sha256" in line for line in shown.refused)
    assert "model-a-1" in (shown.notice or "")


def test_files_no_committed_manifest_names_are_never_read(board, synthetic_run, tmp_path):
    """What a killed submit (or a hand) leaves in the work tree: a data file and a manifest, both
    uncommitted. Readers see the board as committed."""
    (board / "data" / "smoke" / "stray__heuristic-v1.parquet").write_bytes(
        (board / "data" / "smoke" / "model-b-1__heuristic-v1.parquet").read_bytes())
    (board / "submissions" / "stray.json").write_text((board / "submissions" / "model-b-1.json").read_text()
                                                      .replace("model-b-1", "stray"))
    dataset = open_data(board)
    assert sorted(m.submission_id for m in dataset.manifests) == ["model-a-1", "model-b-1"]
    assert sorted(f.path.name for f in dataset.item_files()) == ["model-a-1__heuristic-v1.parquet",
                                                                   "model-b-1__heuristic-v1.parquet"]
    assert sorted(api.rank(board, options=api.RankOptions(n_bootstrap=0))["submission_id"]) == ["model-a-1", "model-b-1"]


def test_hashes_are_checked_once_per_board_revision(board, synthetic_run, monkeypatch):
    hashed: list[str] = []
    real = checked.file_sha256
    monkeypatch.setattr(checked, "file_sha256", lambda path: hashed.append(Path(path).name) or real(path))
    checked._VERIFIED.clear()
    api.rank(board, options=api.RankOptions(n_bootstrap=0))
    assert sorted(hashed) == ["model-a-1__heuristic-v1.parquet", "model-b-1__heuristic-v1.parquet"]
    api.rank(board, options=api.RankOptions(n_bootstrap=0))
    open_data(board).item_files()
    assert len(hashed) == 2  # the same revision: not hashed again
    api.submit(synthetic_run("c", scores=A, model_id="org/model-c", submission_id="model-c-1"), to=board, options=api.SubmitOptions(n_bootstrap=0))
    hashed.clear()
    api.rank(board, options=api.RankOptions(n_bootstrap=0))
    assert len(hashed) == 3  # a new revision: checked again, once


def test_read_local_board_at_a_revision(board, synthetic_run):
    first = _git(board, "rev-list", "--max-parents=0", "HEAD").strip()
    second = _git(board, "rev-parse", "HEAD~1").strip()
    at_head = read_local_board(board)
    assert at_head.root == board and sorted(at_head.manifests) == ["submissions/model-a-1.json", "submissions/model-b-1.json"]
    older = read_local_board(board, second)
    assert older.commit == second and sorted(older.manifests) == ["submissions/model-a-1.json"]
    assert (older.root / "data" / "smoke" / "model-a-1__heuristic-v1.parquet").is_file()
    assert not (older.root / "data" / "smoke" / "model-b-1__heuristic-v1.parquet").exists()
    assert read_local_board(board, first).manifests == {}
    with pytest.raises(Exception, match="no-such-rev"):
        read_local_board(board, "no-such-rev")
