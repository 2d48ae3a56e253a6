"""Render the dataset's README.md from ``dataset_card.md`` (a ``string.Template``)."""
from __future__ import annotations


from importlib import resources
from pathlib import Path
from string import Template

import pandas as pd
import pyarrow.parquet as pq
import yaml

from schemas import SCHEMA_VERSION, ItemRecord, LeaderboardRow, ModerationRecord, Submission

from .. import __version__
from . import layout


def read_card_header(text: str) -> dict:
    """The YAML header of a dataset card ({} when it has none or it does not parse as a mapping)."""
    if not text.startswith("---"):
        return {}
    try:
        header = yaml.safe_load(text.split("---", 2)[1])
    except (yaml.YAMLError, IndexError):
        return {}
    return header if isinstance(header, dict) else {}


def template_text() -> str:
    return resources.files("toolkit.publishing").joinpath("dataset_card.md").read_text(encoding="utf-8")


def _type_name(annotation: object) -> str:
    text = str(annotation).replace("typing.", "")
    if isinstance(annotation, type):
        text = annotation.__name__
    for noise in ("schemas.records.", "schemas._common.", "schemas.submission.", "schemas.leaderboard.", "<class '", "'>"):
        text = text.replace(noise, "")
    return text.replace("|", "\\|")


def schema_table(model=ItemRecord) -> str:
    """A Markdown table of a pydantic model's fields (name, type, required, description)."""
    lines = []
    for name, field in model.model_fields.items():
        required = "yes" if field.is_required() else "no"
        desc = (field.description or "").replace("|", "\\|")
        if name == "generation":
            desc = desc or "decoding config: temperature, max_new_tokens, seed, chat_template_sha256, backend, dtype"
        lines.append(f"| `{name}` | {_type_name(field.annotation)} | {required} | {desc} |")
    return "\n".join(lines)


def _rows(path: Path) -> int:
    return sum(pq.ParquetFile(f).metadata.num_rows for f in sorted(path.parent.glob(path.name)))


def render_card(root: Path, repo_id: str | None = None, title: str = "slmboard: SLM safety judgments") -> str:
    root = Path(root)
    configs = layout.configs(root)
    header = {
        "pretty_name": title,
        "license": "other",
        "language": ["en"],
        "tags": ["safety", "evaluation", "leaderboard", "small-language-models", "llm-as-a-judge"],
        "configs": configs,
    }
    config_lines = []
    for entry in configs:
        name = entry["config_name"]
        pattern = root / entry["data_files"][0]["path"]
        what = {
            "leaderboard": "one (suite, judge, model): scores, ranks, intervals",
            "moderation": "one moderator decision on one flag / do-not-flag item",
            "submissions": "one submission (flattened manifest)",
        }.get(name, "one model × item × judge (ItemRecord)")
        config_lines.append(f"| `{name}` | {what} | {_rows(pattern)} |")
    index = root / layout.SUBMISSIONS_INDEX_FILE
    sub_lines = []
    if index.is_file():
        subs = pd.read_parquet(index)
        for row in subs.itertuples(index=False):
            sub_lines.append(
                f"| `{row.submission_id}` | `{row.model_id}` | `{str(row.model_revision)[:12]}` | {row.judge_ids} | {row.n_records} |"
            )
    suites = layout.suite_configs(root)
    values = {
        "yaml_header": yaml.safe_dump(header, sort_keys=False, allow_unicode=True).strip(),
        "title": title,
        "toolkit_version": __version__,
        "config_table": "\n".join(config_lines) or "| (none yet) | | |",
        "submission_table": "\n".join(sub_lines) or "| (none yet) | | | | |",
        "repo_id": repo_id or "<org>/<dataset>",
        "example_config": suites[0] if suites else "smoke",
        "split": layout.SPLIT,
        "schema_version": SCHEMA_VERSION,
        "schema_table": schema_table(ItemRecord),
        "moderation_schema_table": schema_table(ModerationRecord),
        "leaderboard_schema_table": schema_table(LeaderboardRow),
        "submission_schema_table": schema_table(Submission),
    }
    return Template(template_text()).substitute(values)


__all__ = ["render_card", "schema_table", "template_text"]
