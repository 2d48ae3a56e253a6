"""Where things live in a published dataset (a folder laid out exactly like a Hugging Face dataset repo).

A leaf module (it imports only :mod:`toolkit.naming`): reading and validation use these paths without
loading the publishing package.

    README.md                                      rendered from dataset_card.md (YAML `configs:`)
    data/<suite>/<submission_id>__<judge>.parquet   per-item ItemRecords; one new file per submission
    data/leaderboard/leaderboard.parquet            recomputed from every per-item record
    data/moderation/<submission_id>.parquet         ModerationRecords
    data/submissions/submissions.parquet            one row per submission (flattened manifest)
    submissions/<submission_id>.json                the manifests
"""
from __future__ import annotations

from pathlib import Path

from .naming import judge_slug

DATA_DIR = "data"
MANIFEST_DIR = "submissions"
LEADERBOARD_FILE = "data/leaderboard/leaderboard.parquet"
SUBMISSIONS_INDEX_FILE = "data/submissions/submissions.parquet"
RESERVED_CONFIGS = ("leaderboard", "moderation", "submissions")
SPLIT = "test"  # every config has one split; these are evaluation records


def item_file(suite: str, submission_id: str, judge_id: str) -> str:
    return f"{DATA_DIR}/{suite}/{submission_id}__{judge_slug(judge_id)}.parquet"


def moderation_file(submission_id: str) -> str:
    return f"{DATA_DIR}/moderation/{submission_id}.parquet"


def manifest_file(submission_id: str) -> str:
    return f"{MANIFEST_DIR}/{submission_id}.json"


def suite_configs(root: Path) -> list[str]:
    """Suites that have at least one per-item file in the dataset."""
    data = root / DATA_DIR
    if not data.is_dir():
        return []
    return sorted(
        p.name for p in data.iterdir() if p.is_dir() and p.name not in RESERVED_CONFIGS and any(p.glob("*.parquet"))
    )


def item_files(root: Path) -> list[Path]:
    return sorted(f for suite in suite_configs(root) for f in (root / DATA_DIR / suite).glob("*.parquet"))


def configs(root: Path) -> list[dict]:
    """The YAML `configs:` entries for the dataset card: one per suite, plus the shared tables present."""
    entries = [{"config_name": s, "data_files": [{"split": SPLIT, "path": f"{DATA_DIR}/{s}/*.parquet"}]} for s in suite_configs(root)]
    for name, pattern, probe in (
        ("leaderboard", LEADERBOARD_FILE, LEADERBOARD_FILE),
        ("moderation", f"{DATA_DIR}/moderation/*.parquet", f"{DATA_DIR}/moderation"),
        ("submissions", SUBMISSIONS_INDEX_FILE, SUBMISSIONS_INDEX_FILE),
    ):
        target = root / probe
        if (target.is_file()) or (target.is_dir() and any(target.glob("*.parquet"))):
            entries.append({"config_name": name, "data_files": [{"split": SPLIT, "path": pattern}]})
    if entries:
        entries[0]["default"] = True
    return entries
