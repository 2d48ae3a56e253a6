"""The fan-out's own parts without a cluster: progress counting, the shard plan's refusals, the merge's
nothing-lost check, the storage check a job makes, and the executor's refusals."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from toolkit import api
from toolkit.core.errors import BadOption, SlmboardError, UnknownComponent
from toolkit.stages.generation.components import GenerationRunOptions
from toolkit.workflows.fanout.shard_runs import (PLAN_FILE, ModelJob, ShardJob, StorageNotShared, merge_shards, prepare_shards, run_shard,
                                       shard_dir, shards_root)
from toolkit.workflows.fanout.watch import LineCounter
from toolkit.core.runs import RunDir, RunMismatch
from toolkit.stages.suites import load_items

OPTIONS = ModelJob("hf", "", GenerationRunOptions(suites="smoke", limit=5, batch_size=4, max_new_tokens=2))


def test_line_counter_counts_whole_lines_only_and_recounts_a_cut_file(tmp_path):
    path = tmp_path / "r.jsonl"
    counter = LineCounter()
    assert counter.count([path]) == 0  # not there yet
    path.write_bytes(b'{"a": 1}\n{"a": 2}\n{"a"')  # two whole lines and a torn one
    assert counter.count([path]) == 2
    with open(path, "ab") as fh:
        fh.write(b': 3}\n{"a": 4}\n')
    assert counter.count([path]) == 4  # only the bytes added were read, the torn line now whole
    path.write_bytes(b'{"a": 1}\n')  # shorter than before (a torn tail cut by a resumed job)
    assert counter.count([path, tmp_path / "other.jsonl"]) == 1


def test_prepare_shards_refuses_what_would_mix_runs(tmp_path):
    run = tmp_path / "run"
    assert prepare_shards(run, None, OPTIONS)[0] == 1  # default: one shard
    with pytest.raises(RunMismatch, match=r"holds 1 shard\(s\), not 2") as exc:
        prepare_shards(run, 2, OPTIONS)
    assert exc.value.param == "shards"
    assert prepare_shards(run, None, OPTIONS)[0] == 1  # the N on disk
    with pytest.raises(RunMismatch, match="shards made with other model_args"):
        prepare_shards(run, None, ModelJob("hf", "dtype=bfloat16", OPTIONS.options))
    plain = tmp_path / "plain"
    RunDir(plain).root.mkdir()
    (plain / "run.json").write_text("{}")
    with pytest.raises(RunMismatch, match="holds a run generated without shards"):
        prepare_shards(plain, 2, OPTIONS)
    assert not shards_root(plain).exists()


def test_a_job_that_cannot_see_the_drivers_plan_says_storage_is_not_shared(tmp_path):
    run = tmp_path / "run"
    _, plan_id = prepare_shards(run, 2, OPTIONS)
    with pytest.raises(StorageNotShared, match="not visible on node .*storage every node mounts") as exc:
        run_shard(ShardJob(str(run), 0, 2, plan_id + "-another-driver", OPTIONS))
    assert exc.value.param == "out"
    assert not shard_dir(run, 0, 2).exists()  # nothing written, no model loaded


@pytest.fixture(scope="module")
def shards_done(tmp_path_factory) -> Path:
    """RUN/.shards/K-of-2 made by the real stage (`generate --shard K/2`, the embedded model, 2 tokens)."""
    from toolkit.stages.generation import make_backend
    from toolkit.stages.generation.components import GenerationRunOptions

    backend = make_backend("hf", {}, GenerationRunOptions(batch_size=4))
    run = tmp_path_factory.mktemp("fan") / "run"
    prepare_shards(run, 2, OPTIONS)
    for k in range(2):
        api.generate(shard_dir(run, k, 2), model=backend, options=api.GenerationRunOptions(suites="smoke", limit=5, max_new_tokens=2, batch_size=4, shard=f"{k}/2"), services=api.Services(progress=False))
    return run


def test_merge_fills_the_run_and_never_drops_an_answer_the_shards_lack(shards_done, tmp_path):
    import shutil

    run = tmp_path / "run"
    shutil.copytree(shards_done, run)
    result, config = merge_shards(run, 2, None)
    assert result.counts == {"smoke": 5} and config.shard is None
    lines = (run / "responses" / "smoke.jsonl").read_text().splitlines()
    assert [json.loads(x)["item_id"] for x in lines] == [i.item_id for i in load_items("smoke", limit=5)]
    assert not api.validate(run).errors  # the shards (a dot folder) are not counted twice

    extra = json.loads(lines[0])
    extra["item_id"] = "smoke_030"  # an answer only RUN holds (made without the executor)
    with open(run / "responses" / "smoke.jsonl", "a") as fh:
        fh.write(json.dumps(extra) + "\n")
    before = (run / "responses" / "smoke.jsonl").read_bytes()
    with pytest.raises(SlmboardError, match=r"smoke.jsonl:item_id: 1 answer\(s\) the shards do not hold \(e.g. smoke_030\)"):
        merge_shards(run, 2, None)
    assert (run / "responses" / "smoke.jsonl").read_bytes() == before  # nothing replaced


def test_fanout_refusals_come_before_any_work(tmp_path):
    from toolkit.stages.generation import Backend

    class Unused(Backend):  # a backend object the caller built itself; never asked for anything here
        name = "unused"
        describe = generate = None

    with pytest.raises(BadOption, match="^executor must be one of local, ray, got 'slurm'$"):
        api.FanoutOptions(executor="slurm")  # refused before any call runs
    with pytest.raises(BadOption, match="a backend object cannot travel") as exc:
        api.generate(tmp_path / "b", model=Unused(), fanout=api.FanoutOptions(shards=2))
    assert exc.value.param == "backend"
    with pytest.raises(BadOption, match="give one of the two"):
        api.generate(tmp_path / "c", fanout=api.FanoutOptions(shards=2), options=api.GenerationRunOptions(shard="0/2"))
    assert not any(tmp_path.iterdir())


def test_without_ray_the_ray_executor_says_how_to_install_it(tmp_path):
    code = ("import sys; sys.modules['ray'] = None\n"  # `import ray` now fails as when the extra is absent
            "from toolkit.cli import main\n"
            f"sys.exit(main(['generate', '--out', {str(tmp_path / 'run')!r}, '--limit', '1', '--executor', 'ray']))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert proc.stderr.strip() == ("error: the ray executor needs Ray: pip install 'slmboard[ray]' "
                                   "(executor is --executor on the command line)")
    assert not (tmp_path / "run").exists()
