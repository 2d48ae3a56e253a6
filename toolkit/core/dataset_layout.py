"""Where things live in a published dataset (a folder laid out exactly like a Hugging Face dataset repo).

A leaf module (it imports only :mod:`toolkit.core.judge_names`): reading and validation use these paths without
loading the publishing package.

    README.md                                      rendered from dataset_card.md (YAML `configs:`)
    LICENSE.md, eval.yaml                           the licence and the Hub's benchmark description
    data/<suite>/<submission_id>__<judge>.parquet   per-item ItemRecords; one new file per submission
    data/leaderboard/leaderboard.parquet            recomputed from every per-item record
    data/moderation/<submission_id>.parquet         ModerationRecords
    data/submissions/submissions.parquet            one row per submission (flattened manifest)
    data/audit/rejudge.json                         the maintainers' re-judging audit (recompute --rejudge)
    submissions/<submission_id>.json                the manifests
"""
from __future__ import annotations

from pathlib import Path

from toolkit.core.judge_names import judge_slug

DATA_DIR = "data"
MANIFEST_DIR = "submissions"
CARD_FILE = "README.md"
LICENSE_FILE = "LICENSE.md"
EVAL_FILE = "eval.yaml"
LEADERBOARD_FILE = "data/leaderboard/leaderboard.parquet"
SUBMISSIONS_INDEX_FILE = "data/submissions/submissions.parquet"
MODERATION_DIR = "data/moderation"
AUDIT_FILE = "data/audit/rejudge.json"
RESERVED_CONFIGS = ("leaderboard", "moderation", "submissions")
SPLIT = "test"  # every config has one split; these are evaluation records
#: Per-item files and manifests: a submission adds them, nothing changes or deletes them.
APPEND_ONLY = (f"{DATA_DIR}/", f"{MANIFEST_DIR}/")
#: The shared tables under data/, rebuilt from the records by every submission.
REBUILT = (f"{DATA_DIR}/leaderboard/", f"{DATA_DIR}/submissions/")


def item_file(suite: str, submission_id: str, judge_id: str) -> str:
    return f"{DATA_DIR}/{suite}/{submission_id}__{judge_slug(judge_id)}.parquet"


def moderation_file(submission_id: str) -> str:
    return f"{MODERATION_DIR}/{submission_id}.parquet"


def manifest_file(submission_id: str) -> str:
    return f"{MANIFEST_DIR}/{submission_id}.json"


def is_manifest_path(relative: str) -> bool:
    """A dataset-relative path names a submission manifest."""
    return relative.startswith(f"{MANIFEST_DIR}/") and relative.endswith(".json")


def submission_id_of_manifest(relative: str) -> str:
    return relative.removeprefix(f"{MANIFEST_DIR}/").removesuffix(".json")


def is_dataset(root: Path) -> bool:
    """A folder laid out as a published dataset: ``data/`` beside a card or manifests (during a first
    submission the manifest is written before the card)."""
    return (root / DATA_DIR).is_dir() and ((root / CARD_FILE).is_file() or (root / MANIFEST_DIR).is_dir())


def manifest_files(root: Path) -> list[Path]:
    folder = root / MANIFEST_DIR
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def moderation_files(root: Path) -> list[Path]:
    return sorted((root / MODERATION_DIR).glob("*.parquet"))


def suite_configs(root: Path) -> list[str]:
    """Suites that have at least one per-item file in the dataset."""
    data = root / DATA_DIR
    if not data.is_dir():
        return []
    return sorted(
        p.name for p in data.iterdir() if p.is_dir() and p.name not in RESERVED_CONFIGS and any(p.glob("*.parquet"))
    )


def suite_item_files(root: Path, suite: str) -> list[Path]:
    """The per-item files of one suite (none for a reserved name or a suite not present)."""
    if suite in RESERVED_CONFIGS:
        return []
    return sorted((root / DATA_DIR / suite).glob("*.parquet"))


def item_files(root: Path) -> list[Path]:
    return sorted(f for suite in suite_configs(root) for f in suite_item_files(root, suite))


def configs(root: Path) -> list[dict]:
    """The YAML `configs:` entries for the dataset card: one per suite, plus the shared tables present."""
    entries = [{"config_name": s, "data_files": [{"split": SPLIT, "path": f"{DATA_DIR}/{s}/*.parquet"}]} for s in suite_configs(root)]
    for name, pattern, probe in (
        ("leaderboard", LEADERBOARD_FILE, LEADERBOARD_FILE),
        ("moderation", f"{MODERATION_DIR}/*.parquet", MODERATION_DIR),
        ("submissions", SUBMISSIONS_INDEX_FILE, SUBMISSIONS_INDEX_FILE),
    ):
        target = root / probe
        if (target.is_file()) or (target.is_dir() and any(target.glob("*.parquet"))):
            entries.append({"config_name": name, "data_files": [{"split": SPLIT, "path": pattern}]})
    if entries:
        entries[0]["default"] = True
    return entries
