"""One model's run fanned out as ``generate --shard K/N`` jobs, merged by the driver.

    RUN/run.json, RUN/responses/     the merged run (written by the driver once every shard is complete)
    RUN/.shards/plan.json            what the shards are (N, the model's options) + this attempt's id
    RUN/.shards/K-of-N/              shard K's own run folder: ``generate --shard K/N`` resumes it
    RUN/.shards/K-of-N/attempts.jsonl   one line per time a job started on it (node, pid, time)

A job (:func:`run_shard`, on whatever node the executor picks) writes its records straight into its
shard folder: the run folder must be on storage every node sees (see docs/ARCHITECTURE.md, "Out of
one machine"). Each shard folder has one writer at a time (an exclusive lock), so a retried job,
or the job of a re-run driver, resumes from exactly the records on disk -- the stage engine's own
resume (``toolkit.core.stage_engine``) -- and nothing is lost or written twice. The folder starts with a dot so
that ``validate RUN`` and the readers never count a shard's records beside the merged ones.
"""
from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
import socket
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

from toolkit.core.errors import RecordError, SlmboardError, StorageNotShared
from toolkit.stages.generation.components import GenerationRunOptions
from toolkit.stages.generation.merge import MergeResult, merge_runs
from toolkit.stages.generation.runner import generate
from toolkit.stages.generation.shards import select_shard
from toolkit.core.records_io import atomic_write_text, iter_jsonl
from toolkit.core.runs import RunConfig, RunDir, RunMismatch
from toolkit.stages.suites import SuiteItem

SHARDS_DIR = ".shards"
PLAN_FILE = "plan.json"
ATTEMPTS_FILE = "attempts.jsonl"
LOCK_FILE = ".lock"


def shards_root(run: Path) -> Path:
    return Path(run) / SHARDS_DIR


def shard_dir(run: Path, k: int, n: int) -> Path:
    return shards_root(run) / f"{k}-of-{n}"


@dataclass(frozen=True)
class ModelJob:
    """How one model of fanned-out work is generated: the backend's name and its lm-eval ``model_args`` (text,
    which travels to any node) and the run's options (paths absolute: a job may run in another working
    directory, on another node). Picklable."""

    model: str
    model_args: str
    options: GenerationRunOptions

    def identity(self) -> dict[str, Any]:
        """What the model's shard folders are bound to (another value is another run)."""
        return {"model": self.model, "model_args": self.model_args, "submission_id": self.options.submission_id,
                "max_new_tokens": self.options.max_new_tokens, "mode": self.options.mode}


@dataclass(frozen=True)
class ShardJob:
    """What a worker needs to run shard K of N of one model (picklable; paths absolute)."""

    run_dir: str
    k: int
    n: int
    plan_id: str
    model: ModelJob

    @property
    def label(self) -> str:
        return f"{self.k}/{self.n}"


@dataclass(frozen=True)
class ShardOutcome:
    shard: str
    n_new: int
    n_skipped: int
    seconds: float
    n_output_tokens: int
    attempt: int
    node: str


def prepare_shards(run: Path, n: int | None, model: ModelJob) -> tuple[int, str]:
    """Check RUN can hold this model's shards and write the plan; returns (N, this attempt's plan id).

    N defaults to the N already on disk (else 1). A folder holding a run made without shards, or
    shards of another N or another model, is refused before any job starts."""
    root = shards_root(run)
    plan_path = root / PLAN_FILE
    previous = json.loads(plan_path.read_text(encoding="utf-8")) if plan_path.is_file() else None
    if previous is None and RunDir(run).exists():
        raise RunMismatch(f"{run} holds a run generated without shards; resume it without an executor, "
                          "or give the fanned-out run another folder", param="out")
    identity = model.identity()
    if previous is not None:
        if n is not None and n != previous["shards"]:
            raise RunMismatch(f"{root} holds {previous['shards']} shard(s), not {n}; re-run with the same shard count "
                              "or give the run another folder", param="shards")
        if previous["identity"] != identity:
            changed = sorted(k for k in identity if previous["identity"].get(k) != identity[k])
            raise RunMismatch(f"{root} holds shards made with other {', '.join(changed)}; "
                              "give this run another folder", param="out")
        n = previous["shards"]
    n = n or 1
    if n < 1:
        raise SlmboardError(f"shards must be at least 1, got {n}", param="shards")
    plan_id = uuid.uuid4().hex
    root.mkdir(parents=True, exist_ok=True)
    atomic_write_text(plan_path, json.dumps({"plan_id": plan_id, "shards": n, "identity": identity}, indent=2) + "\n")
    return n, plan_id


def done_items(folder: Path) -> set[tuple[str, str]]:
    """(suite, item id) of each whole record in a run folder's response files (a torn last line does not count)."""
    done: set[tuple[str, str]] = set()
    for path in RunDir(folder).response_files():
        done.update((path.stem, str(row["item_id"])) for _, row in iter_jsonl(path) if isinstance(row, dict) and "item_id" in row)
    return done


def run_shard(job: ShardJob) -> ShardOutcome:
    """On a worker: shard K of N into its own folder, resuming what an earlier attempt wrote."""
    from toolkit.stages.executors.base import node_name

    run = Path(job.run_dir)
    _check_visible(run, job.plan_id)
    folder = shard_dir(run, job.k, job.n)
    folder.mkdir(parents=True, exist_ok=True)
    with _exclusive(folder / LOCK_FILE):
        attempt = _log_attempt(folder, node_name())
        options = job.model.options.model_copy(update={"shard": job.label})
        result = generate(folder, job.model.model, job.model.model_args, options=options, show_progress=False)
    return ShardOutcome(job.label, result.n_new, result.n_skipped, result.seconds, result.n_output_tokens, attempt, node_name())


def _check_visible(run: Path, plan_id: str) -> None:
    plan_path = shards_root(run) / PLAN_FILE
    try:
        seen = json.loads(plan_path.read_text(encoding="utf-8")).get("plan_id")
    except (OSError, ValueError):
        seen = None
    if seen != plan_id:
        raise StorageNotShared(
            f"{plan_path} as the driver wrote it is not visible on node {socket.gethostname()}: the workers write each "
            "shard's records into the run folder, so it must be on storage every node mounts at the same path "
            "(NFS, a Kubernetes ReadWriteMany volume, the cluster's shared file system)", param="out")


@contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    """One writer per shard folder: a second job (an orphan of a killed driver) waits for the first."""
    import fcntl

    with open(lock_path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _log_attempt(folder: Path, node: str) -> int:
    path = folder / ATTEMPTS_FILE
    attempt = 1 + (path.read_bytes().count(b"\n") if path.is_file() else 0)
    line = {"attempt": attempt, "node": node, "host": socket.gethostname(), "pid": os.getpid(),
            "started_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(line) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    return attempt


def read_attempts(run: Path, k: int, n: int) -> list[dict[str, Any]]:
    """Every start of shard K's job, in order (the retries of a job whose worker died show here)."""
    path = shard_dir(run, k, n) / ATTEMPTS_FILE
    return [row for _, row in iter_jsonl(path) if isinstance(row, dict)] if path.is_file() else []


def merge_shards(run: Path, n: int, data_dir: str | None) -> tuple[MergeResult, RunConfig]:
    """Merge the N complete shard folders into RUN (``generation.merge`` checks completeness).

    Response files are replaced one by one and run.json last, so run.json names a whole merge; a run
    already in RUN must be the same model and hold no answer the shards lack (nothing is lost)."""
    staging = shards_root(run) / "merged"
    if staging.exists():
        shutil.rmtree(staging)  # a merge interrupted earlier; the shards still hold everything
    result = merge_runs([shard_dir(run, k, n) for k in range(n)], staging, data_dir=data_dir)
    merged, target = RunDir(staging), RunDir(run)
    config = merged.load_config()
    if target.exists():
        previous = target.load_config()
        if previous.identity() != config.identity():
            raise RunMismatch(f"{run} holds a run of {previous.model_id}@{previous.model_revision} with other settings "
                              "than its shards; give this run another folder", param="out")
        _check_nothing_lost(target, merged)
    target.responses_dir.mkdir(parents=True, exist_ok=True)
    for path in merged.response_files():
        os.replace(path, target.response_file(path.stem))
    if merged.generation_usage_file.is_file():  # the shards' ledger is the whole generation's
        target.generation_usage_file.parent.mkdir(parents=True, exist_ok=True)
        os.replace(merged.generation_usage_file, target.generation_usage_file)
        from toolkit.core.usage import write_cost

        write_cost(target)
    os.replace(merged.config_path, target.config_path)
    shutil.rmtree(staging, ignore_errors=True)
    return result, config


def _check_nothing_lost(target: RunDir, merged: RunDir) -> None:
    for path in target.response_files():
        have = {str(row.get("item_id")) for _, row in iter_jsonl(path) if isinstance(row, dict)}
        kept = {str(row.get("item_id")) for _, row in iter_jsonl(merged.response_file(path.stem)) if isinstance(row, dict)} \
            if merged.response_file(path.stem).is_file() else set()
        lost = sorted(have - kept)
        if lost:
            raise SlmboardError(str(RecordError(str(path), None, "item_id",
                                f"{len(lost)} answer(s) the shards do not hold (e.g. {', '.join(lost[:3])}); they were "
                                "generated without the executor: give the fanned-out run another folder")), param="out")


def shard_items(items: Sequence[SuiteItem], n: int) -> list[set[tuple[str, str]]]:
    """(suite, item id) of the items of each of the N shards (the partition ``generate --shard K/N`` uses)."""
    return [{(i.suite, i.item_id) for i in select_shard(items, (k, n))} for k in range(n)]
