"""Combine the run folders of ``--shard K/N`` runs into one run, and prove it is complete.

Checks, each failing with a message that names the folder / file / item:
- every input is a run folder of the same model, revision, backend, decoding and submission id;
- together they are shards 0..N-1 of one N (none missing, none twice) — or unsharded runs;
- no item answered twice with different responses (identical duplicates are kept once);
- the merged responses are exactly the suite's item list (same ``--limit``): nothing missing, nothing extra.

The merged folder is written to a temporary sibling and renamed into place, so a failure leaves
nothing behind.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from toolkit.core.errors import RecordError, SlmboardError
from toolkit.core.records_io import iter_jsonl, write_jsonl_atomic
from toolkit.core.runs import RunConfig, RunDir
from toolkit.stages.suites import load_items
from .shards import parse_shard, select_shard


@dataclass
class MergeResult:
    out: Path
    n_shards: int
    counts: dict[str, int] = field(default_factory=dict)  # suite -> merged records
    n_duplicates: int = 0


def _read(path: Path) -> list[dict]:
    rows = []
    for _, row in iter_jsonl(path):
        if isinstance(row, RecordError):
            raise SlmboardError(f"{row} (repair or re-run that shard before merging)")
        rows.append(row)
    return rows


def merge_runs(shard_dirs: Sequence[str | Path], out: str | Path, data_dir: str | Path | None = None,
               show_missing: int = 10) -> MergeResult:
    """Merge shard run folders into ``out`` (which must not exist yet)."""
    if not shard_dirs:
        raise SlmboardError("no shard folders given")
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        raise SlmboardError(f"{out} already exists and is not empty; merge into a new folder")
    runs = [RunDir(d) for d in shard_dirs]
    configs = [r.load_config() for r in runs]  # fails clearly on a non-run folder
    _check_one_run(runs, configs)
    n = _shard_count(runs, configs)
    suites = sorted({s for c in configs for s in c.suites})
    expected: dict[str, list] = {s: [] for s in suites}
    for item in load_items(suites, data_dir=data_dir, limit=configs[0].limit):
        expected[item.suite].append(item)

    result = MergeResult(out=out, n_shards=n)
    merged: dict[str, list[dict]] = {}
    for suite in suites:
        by_id = _collect_suite(suite, runs, result)
        want = [i.item_id for i in expected[suite]]
        _check_complete(suite, want, by_id, expected[suite], n, show_missing)
        merged[suite] = [by_id[i][0] for i in want]  # the suite's own order
        result.counts[suite] = len(want)
    _write_merged(out, configs, suites, merged, runs)
    return result


def _check_one_run(runs: list[RunDir], configs: list[RunConfig]) -> None:
    """Every folder is a run of the same model, revision, backend, decoding, submission id and limit."""
    first = configs[0]
    for run, cfg in zip(runs[1:], configs[1:]):
        if cfg.identity() != first.identity():
            raise SlmboardError(
                f"{run.root} is a run of {cfg.model_id}@{cfg.model_revision} ({cfg.backend}) with other settings "
                f"than {runs[0].root}; only shards of one run can be merged"
            )
        if cfg.limit != first.limit:
            raise SlmboardError(f"{run.root} used limit {cfg.limit}, {runs[0].root} used limit {first.limit}")


def _shard_count(runs: list[RunDir], configs: list[RunConfig]) -> int:
    """N when the folders are shards 0..N-1 of one N (none missing, none twice); 1 for one unsharded run."""
    shards = [parse_shard(c.shard) for c in configs]
    if any(s is None for s in shards):
        if len(runs) > 1:
            plain = [str(r.root) for r, s in zip(runs, shards) if s is None]
            raise SlmboardError(f"not shard runs (generated without a shard): {', '.join(plain)}; merge only the folders of one K/N shard set")
        return 1
    ns = {s[1] for s in shards}
    if len(ns) != 1:
        raise SlmboardError(f"shards of different N: {sorted(f'{r.root}={c.shard}' for r, c in zip(runs, configs))}")
    n = ns.pop()
    seen: dict[int, Path] = {}
    for run, (k, _) in zip(runs, shards):
        if k in seen:
            raise SlmboardError(f"shard {k}/{n} given twice: {seen[k]} and {run.root}")
        seen[k] = run.root
    missing = [f"{k}/{n}" for k in range(n) if k not in seen]
    if missing:
        raise SlmboardError(f"missing shard folder(s) for {', '.join(missing)} (have {len(seen)} of {n})")
    return n


def _collect_suite(suite: str, runs: list[RunDir], result: MergeResult) -> dict[str, tuple[dict, Path]]:
    """{item id: (row, file)} of one suite over every shard; identical duplicates are counted and kept once."""
    by_id: dict[str, tuple[dict, Path]] = {}
    for run in runs:
        path = run.response_file(suite)
        if not path.exists():
            continue
        for row in _read(path):
            item_id = row.get("item_id")
            if item_id in by_id:
                old, where = by_id[item_id]
                if old.get("response_sha256") != row.get("response_sha256") or old.get("prompt_sha256") != row.get("prompt_sha256"):
                    raise SlmboardError(
                        f"item {suite}/{item_id} answered differently in {where} and {path}; re-run one shard cleanly"
                    )
                result.n_duplicates += 1
                continue
            by_id[item_id] = (row, path)
    return by_id


def _check_complete(suite: str, want: list[str], by_id: dict, items: list, n: int, show_missing: int) -> None:
    """The answered ids are exactly the suite's item list; a missing item names the shard that owns it."""
    missing = [i for i in want if i not in by_id]
    extra = sorted(set(by_id) - set(want))
    if missing:
        owner = {}
        if n > 1:
            for k in range(n):
                for item in select_shard(items, (k, n)):
                    owner[item.item_id] = k
        shown = ", ".join(f"{i}" + (f" (shard {owner[i]}/{n})" if i in owner else "") for i in missing[:show_missing])
        more = f" and {len(missing) - show_missing} more" if len(missing) > show_missing else ""
        raise SlmboardError(
            f"incomplete: suite {suite} has {len(want)} items, the shards answered {len(want) - len(missing)}; "
            f"missing {shown}{more}. Re-run the shard(s) named (the same command resumes)."
        )
    if extra:
        raise SlmboardError(
            f"suite {suite}: {len(extra)} answered item(s) are not in the suite's item list "
            f"(e.g. {', '.join(extra[:show_missing])}); was another data_dir (benchmark mirror) or suite revision used?"
        )


def _write_merged(out: Path, configs: list[RunConfig], suites: list[str], merged: dict[str, list[dict]],
                  runs: Sequence[RunDir] = ()) -> None:
    """The merged run written to a temporary sibling and renamed into place (a failure leaves nothing)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.merge-", dir=out.parent))
    try:
        config = configs[0].model_copy(update={"shard": None, "suites": suites})
        revisions, samples = {}, {}
        for c in configs:
            revisions.update(c.suite_revisions)
            samples.update(c.suite_samples)
        config.suite_revisions, config.suite_samples = revisions, samples
        RunDir(tmp).save_config(config)
        for suite, rows in merged.items():
            write_jsonl_atomic(RunDir(tmp).response_file(suite), rows)
        # every shard's spending, a retried shard's included (it was spent); what the merged run cost
        from toolkit.core.usage import append_usage, read_usage, write_cost

        for run in runs:
            append_usage(RunDir(tmp).generation_usage_file, read_usage(run.generation_usage_file))
        write_cost(RunDir(tmp))
        if out.exists():
            out.rmdir()  # empty (checked above)
        os.replace(tmp, out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
