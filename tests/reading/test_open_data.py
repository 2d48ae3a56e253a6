"""The data layer's entry (issue 25): what ``open_data`` resolves a local DATA to, and the leaderboard
file written atomically (a crash while writing leaves the previous file whole)."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from toolkit import api
from toolkit.data.reading import leaderboard, open_data
from toolkit.data.reading.dataset import _place
from slmboard_testing import new_board

REPO = Path(__file__).resolve().parents[2]
SMOKE_ITEMS = sum(1 for line in (REPO / "toolkit/stages/suites/data/smoke.jsonl").read_text().splitlines() if line.strip())


def test_a_dataset_folder_a_run_folder_a_file_and_several(synthetic_run, tmp_path):
    run = synthetic_run("a")
    other = synthetic_run("b", model_id="org/model-b", submission_id="model-b-1")
    folder = tmp_path / "dataset"
    new_board(folder)
    api.submit(run, to=folder, options=api.SubmitOptions(n_bootstrap=0))

    dataset = open_data(folder)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=folder, capture_output=True, text=True, check=True).stdout.strip()
    assert dataset.is_published and dataset.root == folder and dataset.revision == head and dataset.repo_id is None
    assert [m.submission_id for m in dataset.manifests] == ["model-a-1"]
    assert dataset.suite_totals() == {"smoke": SMOKE_ITEMS}
    assert [c["config_name"] for c in dataset.card["configs"]][:1] == ["smoke"]
    assert [f.path.relative_to(folder).as_posix() for f in dataset.item_files()] == ["data/smoke/model-a-1__heuristic-v1.parquet"]

    as_run = open_data(run)
    assert not as_run.is_published and as_run.manifests == [] and as_run.suite_totals() == {}
    assert [f.path for f in as_run.item_files()] == [run / "judgments" / "heuristic-v1" / "smoke.jsonl"]
    assert _place(run).kind == "run"

    file = run / "judgments" / "heuristic-v1" / "smoke.jsonl"
    assert open_data(file).root is None and [f.name for f in open_data(file).item_files()] == [str(file)]
    both = open_data([run, other])
    assert both.root is None and len(both.item_files()) == 2
    assert sorted(leaderboard(both, n_bootstrap=0)["model_id"]) == ["org/model-a", "org/model-b"]
    # coverage: the folder knows the suite's size from its manifest, a run folder does not
    assert leaderboard(folder, n_bootstrap=0)["coverage"].tolist() == [pytest.approx(3 / SMOKE_ITEMS)]
    assert leaderboard(run, n_bootstrap=0)["coverage"].isna().all()


def _torn_writer(monkeypatch):
    """pyarrow's writer dying half way: it writes a few bytes where it was told to, then fails."""
    real = pq.write_table

    def torn(table, where, *args, **kwargs):
        if isinstance(where, (str, Path)):
            Path(where).write_bytes(b"PAR1 torn")
        else:
            where.write(b"PAR1 torn")
        raise OSError("disk full")

    monkeypatch.setattr(pq, "write_table", torn)
    return real


def test_rank_out_keeps_the_previous_leaderboard_whole_when_writing_fails(synthetic_run, tmp_path, monkeypatch):
    run, out = synthetic_run("a"), tmp_path / "board"
    api.rank(run, out=out, options=api.RankOptions(n_bootstrap=0))
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    _torn_writer(monkeypatch)
    with pytest.raises(OSError, match="disk full"):
        api.rank(run, out=out, options=api.RankOptions(n_bootstrap=0))
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # no torn file, no leftover temp file


def test_the_datasets_leaderboard_file_is_replaced_whole(synthetic_run, tmp_path, monkeypatch):
    from toolkit.core.dataset_layout import LEADERBOARD_FILE
    from toolkit.outputs.publishing.submit import rebuild_shared_files

    folder = tmp_path / "dataset"
    new_board(folder)
    api.submit(synthetic_run("a"), to=folder, options=api.SubmitOptions(n_bootstrap=0))
    before = (folder / LEADERBOARD_FILE).read_bytes()
    _torn_writer(monkeypatch)
    with pytest.raises(OSError, match="disk full"):
        rebuild_shared_files(folder, n_bootstrap=0)
    assert (folder / LEADERBOARD_FILE).read_bytes() == before
    assert sorted(p.name for p in (folder / LEADERBOARD_FILE).parent.iterdir()) == ["leaderboard.parquet"]


def test_the_readmes_data_layer_example_runs(synthetic_run, tmp_path, monkeypatch, capsys):
    from slmboard_testing import doc_texts

    example = next(block.split("```", 1)[0] for _, text in doc_texts() for block in text.split("```python\n")[1:]
                   if "open_data" in block.split("```", 1)[0])
    new_board(tmp_path / "my-dataset")
    api.submit(synthetic_run("a"), to=tmp_path / "my-dataset", options=api.SubmitOptions(n_bootstrap=0))
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(example, "the data-layer example", "exec"), namespace)
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[0] == namespace["dataset"].revision and f"'smoke': {SMOKE_ITEMS}" in out[0]
    assert out[1] == "smoke heuristic-v1 3" and len(namespace["board"]) == 1
