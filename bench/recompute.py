#!/usr/bin/env python
"""Recompute the full leaderboard from ~1,000,000 per-item records, against just reading them.

    python bench/recompute.py [--workdir /tmp/slmboard-bench] [--repeats 3] [--bootstrap 1000]

1. Generates (once, cached in --workdir) one parquet file of ItemRecords with the project's arrow
   schema: 26 models × 6 suites (AIR-Bench-, SALAD-, HarmBench-, SST-, XSTest-sized suites and one
   synthetic "large" suite), 38,462 items × 26 models = 1,000,012 rows; realistic label mixes
   (per-model ambiguity propensity × per-item difficulty, so items correlate across models like
   real suites do) and ~1% failed judgments (score null) for a few models; prompt and response text
   of realistic length so the file reads like a real one.
2. Times, each phase in a fresh subprocess (peak RSS = that process's ru_maxrss):
   (a) `read`      — pq.read_table(file).to_pandas(): just reading the records into pandas;
       `read_arrow`— pq.read_table(file): reading them into Arrow only (no pandas conversion);
       `read_cols` — reading just the 7 columns `rank` uses into pandas (the strictest baseline);
   (b) `rank`      — toolkit.api.rank(file): read + the full leaderboard incl. the paired bootstrap
                     (pattern counts; --bootstrap resamples per (suite, judge));
   (c) `naive`     — the same 7-column read + a baseline bootstrap that resamples rows per (suite, judge)
                     (draw item ids, gather every model's rows of those items, count labels).
   Phases alternate within each repeat so the ratios compare runs made under the same load.
3. ``--boards 100,1000`` (issue 16): full-size boards, N models × AIR-Bench/SALAD/BBQ/HarmBench/SST/XSTest
   sizes, one judge, only the 7 rank columns (:func:`generate_board`); phases `read_cols` (100 only),
   `scan` / `scan_dict` (streaming scans) and `rank`, each with its peak RSS.
4. ``--base DIR`` (issue 16): `rank` of the checkout DIR (the previous code) side by side with this one on
   the 1M file, then every leaderboard column of the two compared.
Files go to --workdir (keep it under /tmp); delete it when done.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUITE_SIZES = {
    "air_bench_2024": 5694,
    "salad_bench": 21318,
    "harmbench": 400,
    "simple_safety_tests": 100,
    "xstest": 450,
    "synthetic_large": 10500,
}
N_MODELS = 26
JUDGE = "gpt-4o-rubric-v1"
#: The columns `rank` reads (toolkit.api.rank): the strictest "just reading" baseline.
RANK_COLUMNS = ["suite", "judge_id", "model_id", "item_id", "score", "submission_id", "model_revision"]


def generate(path: Path, seed: int = 0, sizes: dict[str, int] | None = None, n_models: int = N_MODELS) -> int:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from schemas import sha256_text
    from toolkit.core.arrow_schemas import ITEM_RECORD_SCHEMA

    rng = np.random.default_rng(seed)
    sizes = SUITE_SIZES if sizes is None else sizes
    models = [f"bench-org/slm-{i:02d}" for i in range(n_models)]
    # Per-model propensities: some models are ambiguity-heavy (like GPT-2 on AIR-Bench), some decisive.
    amb_model = rng.beta(2, 2, size=n_models)
    safe_model = rng.beta(2, 2, size=n_models)
    fail_model = np.where(rng.random(n_models) < 0.2, 0.01, 0.0)
    gen = {"temperature": 0.0, "max_new_tokens": 512, "seed": 0, "chat_template_sha256": None, "backend": "hf",
           "dtype": "bfloat16", "batch_size": 16, "device": "cuda", "do_sample": False}
    writer = pq.ParquetWriter(path, ITEM_RECORD_SCHEMA, compression="snappy")
    words = np.array("how do i make explain write a detailed guide the policy about safe harmful content step "
                     "please describe why someone would help me with this request in order to avoid".split())
    total = 0
    for suite, n_items in sizes.items():
        item_ids = np.array([f"{suite}-{i:06d}" for i in range(n_items)])
        prompts = [" ".join(rng.choice(words, size=rng.integers(8, 40))) for _ in range(n_items)]
        prompt_sha = [sha256_text(p) for p in prompts]
        difficulty = rng.normal(0, 1, size=n_items)
        for m, model in enumerate(models):
            logit_amb = np.log(amb_model[m] / (1 - amb_model[m])) + difficulty
            p_amb = 1 / (1 + np.exp(-logit_amb))
            u = rng.random(n_items)
            score = np.where(u < p_amb, 0.5, np.where(rng.random(n_items) < safe_model[m], 1.0, 0.0))
            failed = rng.random(n_items) < fail_model[m]
            score = np.where(failed, np.nan, score)
            label = np.where(failed, None, np.where(score == 0.5, "ambiguous", np.where(score == 1.0, "safe", "harmful")))
            responses = np.where(score == 1.0, "I can't help with that request. " * 3,
                                 np.where(score == 0.5, "Choosing a lock depends on the door you have and " * 4,
                                          "Sure, here is a detailed guide with steps one two three. " * 4))
            n = n_items
            columns = {
                "schema_version": ["1.0"] * n,
                "submission_id": [f"slm-{m:02d}-1"] * n,
                "model_id": [model] * n,
                "model_revision": ["0" * 40] * n,
                "suite": [suite] * n,
                "item_id": item_ids,
                "category": [f"cat-{i % 40}" for i in range(n)],
                "prompt": prompts,
                "prompt_sha256": prompt_sha,
                "response": responses,
                "generation": [gen] * n,
                "gold": [None] * n,
                "suite_revision": ["v1"] * n,
                "toolkit_version": ["0.1.0"] * n,
                "response_sha256": [None] * n,
                "finish_reason": ["stop"] * n,
                "n_output_tokens": rng.integers(1, 512, size=n),
                "correct": [None] * n,
                "choice": [None] * n,
                "gold_choice": [None] * n,
                "item_metadata": [None] * n,
                "judge_id": [JUDGE] * n,
                "judge_status": np.where(failed, "parse_error", "ok"),
                "score": pa.array(score, mask=failed),
                "label": label.tolist(),
                "judge_raw": ["score: x"] * n,
                "unsafe_prob": [None] * n,
                "judge_reason": np.where(failed, "unparseable judge output", None).tolist(),
                "rubric_version": ["helm-safety-v1"] * n,
            }
            # Fields the schema gained since (all optional) stay null, so the file keeps the current schema.
            columns.update({f.name: [None] * n for f in ITEM_RECORD_SCHEMA if f.name not in columns})
            table = pa.table(columns, schema=ITEM_RECORD_SCHEMA)
            writer.write_table(table)
            total += n
    writer.close()
    return total


#: Full-size suites for the board benchmark (issue 16): AIR-Bench 2024, SALAD-Bench base, BBQ, HarmBench
#: (text, all behaviors), SimpleSafetyTests, XSTest — 86,454 items per model (toolkit/stages/suites docstrings,
#: /work/shared/benchmarks/README.md).
BOARD_SIZES = {"air_bench_2024": 5694, "salad_bench": 21318, "bbq": 58492, "harmbench": 400,
               "simple_safety_tests": 100, "xstest": 450}
BOARD_JUDGE = "openai:gpt-4o-2024-05-13"


def generate_board(path: Path, n_models: int, seed: int = 0) -> int:
    """A board of ``n_models`` × BOARD_SIZES with only the columns rank reads, one row group per
    (suite, model) as a dataset's per-submission files give; realistic ids (org/model names, item ids
    like the suites', 40-hex revisions); labels from per-model propensity × item difficulty; ~1% failed
    judgments for a fifth of the models."""
    import hashlib

    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    schema = pa.schema([(c, pa.float64() if c == "score" else pa.string()) for c in RANK_COLUMNS])
    models = [f"org-{i % 97:02d}/SmolLM-{(i * 37) % 1700 + 100}M-Instruct-v{i}" for i in range(n_models)]
    amb, safe = rng.beta(2, 2, size=n_models), rng.beta(2, 2, size=n_models)
    fail = np.where(rng.random(n_models) < 0.2, 0.01, 0.0)
    total = 0
    with pq.ParquetWriter(path, schema, compression="snappy") as writer:
        for suite, n in BOARD_SIZES.items():
            items = pa.array([f"{suite}-{i:06d}" for i in range(n)])
            difficulty = rng.normal(0, 1, size=n)
            zeros = pa.array(np.zeros(n, dtype=np.int32))
            for m, model in enumerate(models):
                p_amb = 1 / (1 + np.exp(-(np.log(amb[m] / (1 - amb[m])) + difficulty)))
                score = np.where(rng.random(n) < p_amb, 0.5, np.where(rng.random(n) < safe[m], 1.0, 0.0))
                failed = rng.random(n) < fail[m]
                const = {"suite": suite, "judge_id": BOARD_JUDGE, "model_id": model,
                         "submission_id": f"{model.split('/')[1].lower()}-20261202T0{m % 10}0000",
                         "model_revision": hashlib.sha1(model.encode()).hexdigest()}
                cols = {c: pc.take(pa.array([v]), zeros) for c, v in const.items()}
                cols.update(item_id=items, score=pa.array(score, mask=failed))
                writer.write_table(pa.table([cols[c] for c in RANK_COLUMNS], schema=schema))
                total += n
    return total


def naive_bootstrap(frame, n_resamples: int, seed: int = 0) -> dict:
    """Baseline: per (suite, judge), resample item ids and gather every model's rows of those items."""
    import numpy as np
    import pandas as pd

    out = {}
    for (suite, judge), block in frame.groupby(["suite", "judge_id"], sort=True, observed=True):
        rng = np.random.default_rng(seed)
        block = block.sort_values("item_id", kind="stable")
        item_codes, items = pd.factorize(block["item_id"], sort=True)
        model_codes, models = pd.factorize(block["model_id"], sort=True)
        score = block["score"].to_numpy(dtype=np.float64)
        label = np.where(score == 0.0, 0, np.where(score == 0.5, 1, np.where(score == 1.0, 2, 3)))
        starts = np.searchsorted(item_codes, np.arange(len(items)))
        lengths = np.bincount(item_codes, minlength=len(items))
        n_m = len(models)
        s_raw = np.empty((n_resamples, n_m))
        for b in range(n_resamples):
            drawn = rng.integers(0, len(items), size=len(items))
            # rows of the drawn items (with repetition): a run of row indices per drawn item
            reps = lengths[drawn]
            rows = np.repeat(starts[drawn] - np.cumsum(reps) + reps, reps) + np.arange(reps.sum())
            counts = np.bincount(model_codes[rows] * 4 + label[rows], minlength=n_m * 4).reshape(n_m, 4)
            n = counts[:, :3].sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                s_raw[b] = (counts[:, 2] + 0.5 * counts[:, 1]) / n
        out[(suite, judge)] = np.nanpercentile(s_raw, [2.5, 97.5], axis=0)
    return out


def phase(name: str, path: str, n_bootstrap: int) -> None:
    """Run one timed phase in this (fresh) process and print a JSON line."""
    import resource

    t0 = time.perf_counter()
    if name == "read":
        import pyarrow.parquet as pq

        frame = pq.read_table(path).to_pandas()
        rows = len(frame)
    elif name == "read_arrow":
        import pyarrow.parquet as pq

        rows = pq.read_table(path).num_rows
    elif name == "read_cols":
        import pyarrow.parquet as pq

        frame = pq.read_table(path, columns=RANK_COLUMNS).to_pandas()
        rows = len(frame)
    elif name == "scan":  # streaming read of the rank columns, nothing kept (strings decoded)
        import pyarrow.parquet as pq

        rows = sum(b.num_rows for b in pq.ParquetFile(path).iter_batches(batch_size=1 << 18, columns=RANK_COLUMNS))
    elif name == "scan_dict":  # the same with the key columns dictionary-encoded, as the reader reads them
        import pyarrow.parquet as pq

        keys = [c for c in RANK_COLUMNS if c != "score"]
        pf = pq.ParquetFile(path, read_dictionary=keys)
        rows = sum(b.num_rows for b in pf.iter_batches(batch_size=1 << 18, columns=RANK_COLUMNS))
    elif name == "rank_dump":  # rank, then write the table for the side-by-side equality check
        from toolkit import api

        table = api.rank(path, options=api.RankOptions(n_bootstrap=n_bootstrap))
        table.to_pickle(os.environ["SLMBOARD_BENCH_DUMP"])
        rows = len(table)
    elif name == "rank":
        from toolkit import api

        table = api.rank(path, options=api.RankOptions(n_bootstrap=n_bootstrap))
        rows = len(table)
    elif name == "recompute":  # a board folder: its leaderboard, index, card and figures rebuilt (not committed)
        from toolkit import api

        rows = api.recompute(path, options=api.RecomputeOptions(n_bootstrap=n_bootstrap, commit=False)).n_rows
    elif name == "naive":
        from toolkit import api

        from toolkit.data.reading import read_item_frame

        frame = read_item_frame(path, columns=RANK_COLUMNS)
        naive_bootstrap(frame, n_bootstrap)
        rows = len(frame)
    else:
        raise SystemExit(f"unknown phase {name}")
    wall = time.perf_counter() - t0
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"phase": name, "wall_s": wall, "peak_rss_mb": rss_mb, "rows": rows}))


def run_phase(name: str, path: Path, n_bootstrap: int, root: Path = ROOT, env_extra: dict | None = None) -> dict:
    """One phase in a fresh process (``root`` = the checkout whose toolkit it imports)."""
    env = dict(os.environ, PYTHONPATH=str(root), **(env_extra or {}))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--phase", name, "--path", str(path), "--bootstrap", str(n_bootstrap)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"phase {name} ({root}) failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _load() -> str:
    return "load avg " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def boards(work: Path, sizes: list[int], repeats: int, n_bootstrap: int) -> None:
    """Issue 16: full-size boards of N models × six suites; rank vs a bare read / streaming scan."""
    for n in sizes:
        path = work / f"board-{n}.parquet"
        if not path.exists():
            t0 = time.perf_counter()
            rows = generate_board(path.with_suffix(".tmp"), n)
            os.replace(path.with_suffix(".tmp"), path)
            print(f"generated {rows:,} rows ({n} models) → {path} ({path.stat().st_size / 1e6:.0f} MB) in {time.perf_counter() - t0:.0f} s", flush=True)
        phases = (["read_cols"] if n <= 100 else []) + ["scan", "scan_dict", "rank"]
        for r in range(repeats):
            got = {p: run_phase(p, path, n_bootstrap) for p in phases}
            line = "  ".join(f"{p} {g['wall_s']:.1f} s / {g['peak_rss_mb']:.0f} MB" for p, g in got.items())
            ratios = ", ".join(f"rank/{b} {got['rank']['wall_s'] / got[b]['wall_s']:.2f}×" for b in phases if b != "rank")
            print(f"{n} models, {got['rank']['rows']} board rows, repeat {r + 1}: {line}  ({ratios}; {_load()})", flush=True)


def side_by_side(path: Path, base: Path, repeats: int, n_bootstrap: int) -> None:
    """Today's rank (checkout ``base``) and this one on the same file, alternating; then every column compared."""
    import pandas as pd

    for r in range(repeats):
        new = run_phase("rank", path, n_bootstrap)
        old = run_phase("rank", path, n_bootstrap, root=base)
        cols = run_phase("read_cols", path, n_bootstrap)
        print(f"1M rows, repeat {r + 1}: rank (this) {new['wall_s']:.2f} s / {new['peak_rss_mb']:.0f} MB, "
              f"rank (base) {old['wall_s']:.2f} s / {old['peak_rss_mb']:.0f} MB, read_cols {cols['wall_s']:.2f} s "
              f"/ {cols['peak_rss_mb']:.0f} MB; this/base {new['wall_s'] / old['wall_s']:.2f}× ({_load()})", flush=True)
    dumps = {}
    for label, root in (("this", ROOT), ("base", base)):
        dumps[label] = path.with_name(f"rank-{label}.pkl")
        run_phase("rank_dump", path, n_bootstrap, root=root, env_extra={"SLMBOARD_BENCH_DUMP": str(dumps[label])})
    a, b = (pd.read_pickle(dumps[k]) for k in ("this", "base"))
    shared = [c for c in b.columns if c in a.columns]
    differ = [c for c in shared if not a[c].astype(object).where(a[c].notna(), None).equals(b[c].astype(object).where(b[c].notna(), None))]
    print(f"equality: {len(a)} vs {len(b)} rows; {len(shared)} shared columns, differing: {differ or 'none'}; "
          f"only in this: {[c for c in a.columns if c not in b.columns]}", flush=True)
    for f in dumps.values():
        f.unlink()


def make_board(path: Path, board: Path) -> Path:
    """Issue 43: the 1M file as a published board (a git folder: the file under data/, a manifest naming its
    sha256), made once; `rank` and `recompute` of it check that hash before a row is used."""
    import hashlib

    if (board / ".git").is_dir():
        return board
    tmp = board.with_name(board.name + ".tmp")
    subprocess.run(["rm", "-rf", str(tmp)], check=True)
    rel = "data/air_bench_2024/bench-1m__gpt-4o-rubric-v1.parquet"
    (tmp / rel).parent.mkdir(parents=True)
    os.link(path, tmp / rel) if os.stat(path).st_dev == os.stat(tmp).st_dev else subprocess.run(["cp", str(path), str(tmp / rel)], check=True)
    digest = hashlib.sha256((tmp / rel).read_bytes()).hexdigest()
    manifest = {"schema_version": "1.0", "submission_id": "bench-1m", "model_id": "org/bench", "model_revision": "r" * 40,
                "toolkit_version": "bench", "created_at": "2026-01-01T00:00:00+00:00",
                "record_files": [{"path": rel, "sha256": digest, "n_rows": 1_000_012}]}
    (tmp / "submissions").mkdir()
    (tmp / "submissions" / "bench-1m.json").write_text(json.dumps(manifest, indent=2))
    (tmp / "README.md").write_text("---\n---\n")
    ident = ["-c", "user.name=bench", "-c", "user.email=b@b", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=tmp, check=True)
    subprocess.run(["git", *ident, "add", "-A"], cwd=tmp, check=True)
    subprocess.run(["git", *ident, "commit", "-qm", "bench board"], cwd=tmp, check=True)
    os.replace(tmp, board)
    return board


def board_side_by_side(path: Path, base: Path, repeats: int, n_bootstrap: int) -> None:
    """Issue 43: `rank` and `recompute` of the 1M-row board, this checkout (hashes checked) against ``base``."""
    board = make_board(path, path.with_name("board-1m"))
    for r in range(repeats):
        got = {}
        for phase_name in ("rank", "recompute"):
            got[(phase_name, "this")] = run_phase(phase_name, board, n_bootstrap)
            got[(phase_name, "base")] = run_phase(phase_name, board, n_bootstrap, root=base)
        print(f"1M-row board, repeat {r + 1}: " + "; ".join(
            f"{ph} this {got[(ph, 'this')]['wall_s']:.2f} s / {got[(ph, 'this')]['peak_rss_mb']:.0f} MB, base "
            f"{got[(ph, 'base')]['wall_s']:.2f} s / {got[(ph, 'base')]['peak_rss_mb']:.0f} MB "
            f"({got[(ph, 'this')]['wall_s'] / got[(ph, 'base')]['wall_s']:.2f}×)" for ph in ("rank", "recompute"))
            + f" ({_load()})", flush=True)


def main() -> int:
    from toolkit.data.scoring.bootstrap import N_BOOTSTRAP

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", default="/tmp/slmboard-bench")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--bootstrap", type=int, default=N_BOOTSTRAP)
    ap.add_argument("--no-naive", action="store_true", help="skip the (slow) naive baseline")
    ap.add_argument("--boards", help="issue 16: comma-separated model counts of full-size boards (e.g. 100,1000)")
    ap.add_argument("--base", help="a checkout of the previous code: run its rank side by side on the 1M file and compare")
    ap.add_argument("--board-base", help="issue 43: a checkout of the previous code: rank and recompute of the 1M-row "
                                         "board (a git folder naming the file's sha256), side by side")
    ap.add_argument("--phase", help=argparse.SUPPRESS)
    ap.add_argument("--path", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.phase:
        phase(a.phase, a.path, a.bootstrap)
        return 0
    work = Path(a.workdir)
    work.mkdir(parents=True, exist_ok=True)
    path = work / "items-1m.parquet"
    if not path.exists():
        t0 = time.perf_counter()
        n = generate(path.with_suffix(".tmp"))
        os.replace(path.with_suffix(".tmp"), path)
        print(f"generated {n:,} rows → {path} ({path.stat().st_size / 1e6:.0f} MB) in {time.perf_counter() - t0:.0f} s")
    if a.boards:
        boards(work, [int(x) for x in a.boards.split(",")], a.repeats, a.bootstrap)
        return 0
    if a.board_base:
        board_side_by_side(path, Path(a.board_base), a.repeats, a.bootstrap)
        return 0
    if a.base:
        side_by_side(path, Path(a.base), a.repeats, a.bootstrap)
        return 0
    phases = ["read", "read_arrow", "read_cols", "rank"] + ([] if a.no_naive else ["naive"])
    results: dict[str, list[dict]] = {p: [] for p in phases}
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for r in range(a.repeats):
        for p in phases:
            cmd = [sys.executable, __file__, "--phase", p, "--path", str(path), "--bootstrap", str(a.bootstrap)]
            line = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout.strip().splitlines()[-1]
            res = json.loads(line)
            results[p].append(res)
            print(f"repeat {r + 1}: {p:<5} {res['wall_s']:7.2f} s  peak RSS {res['peak_rss_mb']:6.0f} MB", flush=True)
    print(f"\nfile: {path} ({path.stat().st_size / 1e6:.0f} MB, {results['read'][0]['rows']:,} rows); "
          f"bootstrap {a.bootstrap} resamples; {os.cpu_count()} CPU cores; load avg {os.getloadavg()[0]:.2f}")
    for r in range(a.repeats):
        w = {p: results[p][r]["wall_s"] for p in phases}
        parts = [f"rank/{b} {w['rank'] / w[b]:.2f}×" for b in ("read", "read_arrow", "read_cols")]
        if "naive" in w:
            parts += [f"naive/{b} {w['naive'] / w[b]:.2f}×" for b in ("read", "read_arrow", "read_cols")]
        print(f"repeat {r + 1}: " + ", ".join(parts))
    med = {p: statistics.median(x["wall_s"] for x in v) for p, v in results.items()}
    rss = {p: max(x["peak_rss_mb"] for x in v) for p, v in results.items()}
    print("median: " + ", ".join(f"{p} {med[p]:.2f} s (peak RSS {rss[p]:.0f} MB)" for p in phases))
    return 0


if __name__ == "__main__":
    sys.exit(main())
