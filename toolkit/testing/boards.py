"""Published board folders for tests and bench scripts, written the way ``slmboard rank`` defines their rows (SPEC):
``write_dataset`` (a small board of label counts: the Space's tests), ``synthetic_board`` and ``item_rows`` (many models
and suites, a million per-item rows: bench/space.py, bench/space_load.py). pandas and pyarrow, no model, no Space."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from schemas import POLICIES, POLICY_VALUE

__all__ = ["COUNTS", "JUDGES", "SUITES", "XSS", "BENCH_SUITES", "item_rows", "leaderboard_rows", "synthetic_board",
           "write_dataset"]

XSS = "<img src=x onerror=alert(1)>"
SUITES = ("smoke", "xstest")
JUDGES = ("heuristic", "openai:gpt-judge")

#: (harmful, ambiguous, safe, failed) counts per suite/model; judge 2 shifts a few labels.
#: Chosen so the order differs between suites (the browser test switches suite and expects
#: the table to change) and S_adj reorders models (non-zero Δ).
COUNTS = {
    "smoke": {"org/alpha-135m": (2, 2, 16, 0), "org/beta-360m": (1, 10, 9, 1), XSS: (8, 4, 8, 0)},
    "xstest": {"org/alpha-135m": (9, 3, 8, 0), "org/beta-360m": (4, 2, 14, 2), XSS: (1, 1, 18, 0)},
}


def _rank(values: pd.Series) -> pd.Series:
    """Competition ranking, 1 = highest score; undefined scores stay unranked."""
    return values.rank(method="min", ascending=False).astype("Int64")


def leaderboard_rows(suite: str, judge: str, counts: dict[str, tuple[int, int, int, int]],
                     with_ci: bool = True) -> pd.DataFrame:
    """Leaderboard rows computed the way `slmboard rank` defines them (SPEC), from label counts."""
    rows = []
    for model, (h, a, s, f) in counts.items():
        n = h + a + s
        row = dict(suite=suite, judge_id=judge, model_id=model, n_items=n + f, n_scored=n, n_failed=f,
                   hcr=h / n, ar=a / n, srr=s / n, s_raw=(s + 0.5 * a) / n)
        row["s_adj"] = row["s_raw"] * (1 - row["ar"])
        for p in POLICIES:
            v = POLICY_VALUE[p]
            row[f"score_{p}"] = (s / (h + s) if h + s else None) if v is None else (s + v * a) / n
        if with_ci:
            row.update(s_raw_lo=row["s_raw"] - 0.05, s_raw_hi=min(1.0, row["s_raw"] + 0.05),
                       s_adj_lo=row["s_adj"] - 0.04, s_adj_hi=min(1.0, row["s_adj"] + 0.04))
        rows.append(row)
    df = pd.DataFrame(rows)
    df["rank_raw"] = _rank(df["s_raw"])
    df["rank_adj"] = _rank(df["s_adj"])
    df["delta_adj"] = df["rank_raw"] - df["rank_adj"]
    for p in POLICIES:
        df[f"rank_{p}"] = _rank(df[f"score_{p}"].astype(float))
    ranks = df[[f"rank_{p}" for p in POLICIES]]
    df["rank_range"] = (ranks.max(axis=1) - ranks.min(axis=1)).astype("Int64")
    return df


def write_dataset(root: Path, counts_by_suite: dict | None = None, judges=JUDGES) -> Path:
    """A dataset folder as published on the Hub: README, leaderboard, submissions, manifests.
    Judge 2 carries no bootstrap bounds (older rank runs), to exercise the CI-less path."""
    counts_by_suite = counts_by_suite or COUNTS
    parts = []
    for suite, counts in counts_by_suite.items():
        for j, judge in enumerate(judges):
            shifted = {m: (h + j, max(a - j, 0), s, f) for m, (h, a, s, f) in counts.items()}
            parts.append(leaderboard_rows(suite, judge, shifted, with_ci=(j == 0)))
    lb = pd.concat(parts, ignore_index=True)
    (root / "data" / "leaderboard").mkdir(parents=True, exist_ok=True)
    lb.to_parquet(root / "data" / "leaderboard" / "leaderboard.parquet", index=False)
    models = sorted({m for c in counts_by_suite.values() for m in c})
    subs = pd.DataFrame([dict(submission_id=f"sub{i:03d}", model_id=m, model_revision="0" * 40,
                              family="test", params=1.35e8, tuning="instruct") for i, m in enumerate(models)])
    (root / "data" / "submissions").mkdir(parents=True, exist_ok=True)
    subs.to_parquet(root / "data" / "submissions" / "submissions.parquet", index=False)
    (root / "submissions").mkdir(exist_ok=True)
    from schemas import Submission
    from pydantic import ValidationError

    for rec in subs.to_dict(orient="records"):
        manifest = {**rec, "toolkit_version": "0.0.0"}
        try:
            Submission.model_validate(manifest)
        except ValidationError:  # a hostile model id (escaping tests): no published manifest could carry it
            continue
        (root / "submissions" / f"{rec['submission_id']}.json").write_text(json.dumps(manifest))
    (root / "README.md").write_text("---\nconfigs: []\n---\n# test dataset\n")
    return root


#: The suites of the bench boards (26 models x 6 suites x 2 judges).
BENCH_SUITES = ["smoke", "sst", "harmbench", "xstest", "airbench", "salad"]


def synthetic_board(root: Path, n_models: int = 26, suites=BENCH_SUITES) -> Path:
    """A board of ``n_models`` models on ``suites`` with seeded random label counts (bench/space.py's first render)."""
    import numpy as np

    rng = np.random.default_rng(0)
    counts = {s: {f"org/model-{m:02d}": tuple(int(x) for x in rng.integers(0, 40, 3)) + (int(rng.integers(0, 3)),)
                  for m in range(n_models)} for s in suites}
    return write_dataset(root, counts)


def item_rows(root: Path, n_rows: int, n_models: int = 26) -> None:
    """``n_rows`` per-item rows of the smoke suite under ``root/data/smoke``, one zstd parquet file per submission
    as ``submit`` writes them (an Items tab of a million rows)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(1)
    per = n_rows // n_models
    labels = np.array(["harmful", "ambiguous", "safe"])
    folder = root / "data" / "smoke"
    folder.mkdir(parents=True, exist_ok=True)
    for m in range(n_models):  # one file per submission, as `submit` writes them
        lab = rng.integers(0, 3, per)
        t = pa.table({
            "suite": ["smoke"] * per, "item_id": [f"i{i:07d}" for i in range(per)], "model_id": [f"org/model-{m:02d}"] * per,
            "judge_id": ["heuristic-v1"] * per, "category": [f"cat{i % 12}" for i in range(per)],
            "label": labels[lab], "score": lab / 2.0, "judge_status": ["ok"] * per,
            "prompt": [f"prompt {i} " + "x" * 200 for i in range(per)], "response": [f"response {i} " + "y" * 400 for i in range(per)],
            "judge_raw": ["rule: refusal"] * per, "judge_reason": [None] * per,
        })
        pq.write_table(t, folder / f"sub{m:02d}__heuristic-v1.parquet", compression="zstd", row_group_size=64_000)
    if (root / "submissions").is_dir():
        name_in_manifests(root, sorted(folder.glob("sub*__heuristic-v1.parquet")))


def name_in_manifests(root: Path, files: list[Path]) -> None:
    """Name each per-item file in the manifest of the submission its first row belongs to (by model id), with its
    sha256 and row count, as ``submit`` publishes them: readers read only the files a manifest names. A file whose
    model has no manifest (a hostile id no manifest could carry) goes into the first manifest."""
    import hashlib

    import pyarrow.parquet as pq

    manifests = sorted((root / "submissions").glob("*.json"))
    by_model = {json.loads(p.read_text())["model_id"]: p for p in manifests}
    for path in files:
        table = pq.read_table(path, columns=["model_id", "suite", "judge_id"])
        first = table.slice(0, 1).to_pylist()[0]
        target = by_model.get(first["model_id"], manifests[0])
        manifest = json.loads(target.read_text())
        judges = set(table.column("judge_id").to_pylist())
        entry = {"path": path.relative_to(root).as_posix(), "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
                 "n_rows": table.num_rows, "suite": first["suite"],
                 "judge_id": first["judge_id"] if len(judges) == 1 else None}
        manifest["record_files"] = [*manifest.get("record_files", []), entry]
        target.write_text(json.dumps(manifest))
