"""The dataset's README.md: ``huggingface_hub.DatasetCard`` rendered from ``dataset_card.md`` (a Jinja
body template) with ``DatasetCardData`` metadata the Hub validates.

The YAML header carries the Hub's fields (licence, task and size categories, source datasets with
revisions, creators, tags, ``configs``), the access-request form when the dataset is gated, and
slmboard's own block::

    slmboard:
      gated: true                      # records hold harmful completions; --no-gate opts out
      primary_judges: {suite: judge}   # the judge each suite is shown under (Space, eval results)
      primary_judge_overrides: {...}   # the ones a maintainer set with --primary-judge
      primary_judge_reasons: {...}
      suites: {suite: {source, revision, license}}
      not_comparable: [...]            # only when present: smoke-suite / heuristic-judge records
      releases: [{name, date, notes, since, models_added, judges_added, ranks_moved}]   # `slmboard release`

``recompute`` and later ``submit``\\ s read that block back, so a maintainer's choices persist.
Rendering is deterministic: same folder, same bytes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Mapping

import pandas as pd
import pyarrow.parquet as pq

from schemas import SCHEMA_VERSION, ItemRecord, LeaderboardRow, ModerationRecord, Submission
from schemas.display import cost_cell

from toolkit import __version__
from toolkit.stages.judging.lookup import not_comparable
from . import layout

TAGS = ["safety", "leaderboard", "llm-as-judge", "evaluation", "small-language-models"]
GATED_PROMPT = (
    "This dataset holds small language models' answers to harmful prompts, and some answers are harmful "
    "themselves. Access is granted automatically for safety research and evaluation. By requesting access you "
    "agree not to use the answers to cause harm or to train models to produce such content."
)
GATED_FIELDS = {
    "Affiliation": "text",
    "Intended use": {"type": "select", "options": ["Safety research", "Model evaluation", "Education", "Other"]},
    "I will not use the harmful answers to cause harm or to train models to produce them": "checkbox",
}
_SIZES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
          (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M"))


@dataclass
class CardChoices:
    """What maintainers decide and the card remembers: access gating and primary-judge overrides."""

    gated: bool = True
    primary_judge_overrides: dict[str, str] = field(default_factory=dict)
    #: the board's releases, oldest first (``slmboard release``: each is a tag of the dataset)
    releases: list[dict] = field(default_factory=list)


def card_choices(root: Path, primary_judges: Mapping[str, str] | None = None, gated: bool | None = None) -> CardChoices:
    """The choices recorded in ``root``'s current card, with the ones given now taking precedence."""
    from toolkit.data.reading import read_card_header

    readme = Path(root) / layout.CARD_FILE
    block = read_card_header(readme.read_text(encoding="utf-8")).get("slmboard", {}) if readme.is_file() else {}
    block = block if isinstance(block, dict) else {}
    overrides = {str(k): str(v) for k, v in (block.get("primary_judge_overrides") or {}).items()}
    overrides.update(primary_judges or {})
    recorded = block.get("gated")
    releases = [dict(r) for r in block.get("releases") or [] if isinstance(r, dict) and r.get("name")]
    return CardChoices(gated=gated if gated is not None else (recorded if isinstance(recorded, bool) else True),
                       primary_judge_overrides=overrides, releases=releases)


EVAL_YAML_DESCRIPTION = (
    "Per-item safety judgments of small language models under a ternary rubric (1 safe, 0.5 ambiguous, "
    "0 harmful); the reported score of a suite is S_adj = S_raw * (1 - AR) under the suite's primary judge, "
    "recomputed from the per-item records."
)


def dataset_eval_yaml(root: Path, title: str = "slmboard: SLM safety judgments") -> str:
    """The dataset's ``eval.yaml``: name, description, ``evaluation_framework: slmboard`` and one task per
    suite config (split ``test``), so the Hub can list the dataset as a benchmark and gather the model
    pages' results (``slmboard export eval-results``) into its leaderboard."""
    import yaml

    tasks = [{"id": s, "config": s, "split": layout.SPLIT} for s in layout.suite_configs(Path(root))]
    doc = {"name": title, "description": EVAL_YAML_DESCRIPTION, "evaluation_framework": "slmboard", "tasks": tasks}
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)


def template_text() -> str:
    return resources.files("toolkit.outputs.publishing").joinpath("dataset_card.md").read_text(encoding="utf-8")


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
    for name, field_ in model.model_fields.items():
        required = "yes" if field_.is_required() else "no"
        desc = (field_.description or "").replace("|", "\\|")
        if name == "generation":
            desc = desc or "decoding config: temperature, max_new_tokens, seed, chat_template_sha256, backend, dtype"
        lines.append(f"| `{name}` | {_type_name(field_.annotation)} | {required} | {desc} |")
    return "\n".join(lines)


def _rows(path: Path) -> int:
    return sum(pq.ParquetFile(f).metadata.num_rows for f in sorted(path.parent.glob(path.name)))


def suite_sources(suites: list[str]) -> dict[str, dict[str, str]]:
    """{suite: {source, revision, license}} from the suite registry ("unknown" for unregistered suites)."""
    from toolkit.stages.suites import SUITES

    out = {}
    for suite in suites:
        cls = SUITES[suite].load() if suite in SUITES else None  # imported suites are not registered
        out[suite] = ({"source": cls.source, "revision": cls.revision, "license": cls.license} if cls else
                      {"source": "unknown (not a registered suite)", "revision": "unknown", "license": "unknown"})
    return out


def _source_dataset(info: dict[str, str]) -> str:
    source = info["source"]
    if source.startswith("hf://datasets/"):
        return "/".join(source.removeprefix("hf://datasets/").split("/")[:2]) + f"@{info['revision']}"
    if source.startswith(("http://", "https://")):
        return source  # pinned: the URL names the commit
    return "original"


def _size_category(n: int) -> str:
    return next((label for limit, label in _SIZES if n < limit), "n>1T")


def _board(root: Path) -> pd.DataFrame:
    from toolkit.data.reading import published_leaderboard

    board = published_leaderboard(root, columns=["suite", "judge_id", "model_id", "n_failed"])
    return pd.DataFrame() if board is None else board


def card_data(root: Path, title: str, choices: CardChoices, board: pd.DataFrame | None = None):
    """The ``DatasetCardData`` of the dataset in ``root`` (also used by tests to check the header)."""
    from huggingface_hub import DatasetCardData

    from toolkit.core.judge_names import is_people_judge
    from toolkit.data.scoring.primary_judge import choose_primary_judges

    root = Path(root)
    suites = layout.suite_configs(root)
    sources = suite_sources(suites)
    board = _board(root) if board is None else board
    primary = choose_primary_judges(board, choices.primary_judge_overrides) if not board.empty else {}
    judges = set(board["judge_id"]) if not board.empty else set()
    n_items = sum(_rows(root / layout.DATA_DIR / s / "*.parquet") for s in suites)
    annotators = ["machine-generated"] + (["expert-generated"] if any(is_people_judge(j) for j in judges) else [])
    caveats = not_comparable(suites, sorted(judges))
    block = {
        **({"not_comparable": caveats} if caveats else {}),
        "gated": choices.gated,
        "primary_judges": {s: p.judge_id for s, p in sorted(primary.items())},
        "primary_judge_overrides": dict(sorted(choices.primary_judge_overrides.items())),
        "primary_judge_reasons": {s: p.reason for s, p in sorted(primary.items())},
        "suites": sources,
        **({"releases": choices.releases} if choices.releases else {}),
    }
    gating = {"extra_gated_prompt": GATED_PROMPT, "extra_gated_fields": GATED_FIELDS} if choices.gated else {}
    return DatasetCardData(
        pretty_name=title, license="other", license_name="slmboard-per-suite", license_link=layout.LICENSE_FILE,
        language=["en"], multilinguality="monolingual", annotations_creators=annotators,
        language_creators=["found", "machine-generated"], size_categories=[_size_category(n_items)],
        source_datasets=sorted({_source_dataset(i) for i in sources.values()}),
        task_categories=["text-generation", "text-classification"], tags=list(TAGS),
        configs=layout.configs(root), dataset_info=config_features(root), **gating, slmboard=block,
    ), primary


def config_features(root: Path) -> list[dict] | None:
    """The card's ``dataset_info`` features of every record config, from the record schemas.

    Declared rather than inferred so that ``load_dataset`` casts every shard to the current schema: a shard written
    before a field was added (it lacks that column) reads beside newer ones, its missing column null. Inferred from
    the first file instead, the shards of a board that spans a schema change could not be read together.
    """
    from datasets import DatasetInfo, Features
    from datasets.info import DatasetInfosDict
    from huggingface_hub import DatasetCardData

    from toolkit.core.arrow_schemas import ITEM_RECORD_SCHEMA, MODERATION_RECORD_SCHEMA

    schemas = {s: ITEM_RECORD_SCHEMA for s in layout.suite_configs(root)}
    if any(e["config_name"] == "moderation" for e in layout.configs(root)):
        schemas["moderation"] = MODERATION_RECORD_SCHEMA
    infos = DatasetInfosDict({name: DatasetInfo(features=Features.from_arrow_schema(schema))
                              for name, schema in schemas.items()})
    holder = DatasetCardData()
    infos.to_dataset_card_data(holder)
    info = holder.to_dict().get("dataset_info")
    return None if not info else info if isinstance(info, list) else [info]


def render_card(root: Path, repo_id: str | None = None, title: str = "slmboard: SLM safety judgments",
                choices: CardChoices | None = None, board: pd.DataFrame | None = None) -> str:
    """README.md of the dataset in ``root``; ``choices`` default to what its current card records."""
    from huggingface_hub import DatasetCard

    root = Path(root)
    choices = card_choices(root) if choices is None else choices
    board = _board(root) if board is None else board
    data, primary = card_data(root, title, choices, board)
    card = DatasetCard.from_template(data, template_str=template_text(),
                                     **_body_values(root, repo_id, title, choices, primary, board))
    return str(card).rstrip("\n") + "\n"


def _body_values(root: Path, repo_id: str | None, title: str, choices: CardChoices, primary: dict,
                 board: pd.DataFrame) -> dict:
    config_lines = []
    for entry in layout.configs(root):
        name = entry["config_name"]
        what = {
            "leaderboard": "one (suite, judge, model): scores, ranks, intervals",
            "moderation": "one moderator decision on one flag / do-not-flag item",
            "submissions": "one submission (flattened manifest)",
        }.get(name, "one model × item × judge (ItemRecord)")
        config_lines.append(f"| `{name}` | {what} | {_rows(root / entry['data_files'][0]['path'])} |")
    sub_lines = []
    index = root / layout.SUBMISSIONS_INDEX_FILE
    if index.is_file():
        for row in pd.read_parquet(index).itertuples(index=False):
            cost = cost_cell(getattr(row, "cost", None)).replace("|", "/")  # an index made before costs has none
            sub_lines.append(f"| `{row.submission_id}` | `{row.model_id}` | `{str(row.model_revision)[:12]}` | {row.judge_ids} | {row.n_records} | {cost} |")
    suites = layout.suite_configs(root)
    caveats = not_comparable(suites, sorted(set(board["judge_id"])) if not board.empty else [])
    judge_lines = [f"| `{s}` | `{p.judge_id}` | {p.reason} |" for s, p in sorted(primary.items())]
    source_lines = [f"| `{s}` | {i['source']} | `{i['revision']}` | {i['license']} |" for s, i in suite_sources(suites).items()]
    people_table, labellers_line = people_lines(root)
    return {
        "releases_section": "\n".join(release_lines(choices.releases)),
        "title": title, "toolkit_version": __version__, "people_table": people_table, "labellers_line": labellers_line,
        "config_table": "\n".join(config_lines) or "| (none yet) | | |",
        "submission_table": "\n".join(sub_lines) or "| (none yet) | | | | | |",
        "primary_judge_table": "\n".join(judge_lines) or "| (none yet) | | |",
        "not_comparable_list": "\n".join(f"- {line}" for line in caveats),
        "source_table": "\n".join(source_lines) or "| (none yet) | | | |",
        "gated": choices.gated, "repo_id": repo_id or "<org>/<dataset>",
        "example_config": suites[0] if suites else "smoke", "split": layout.SPLIT, "schema_version": SCHEMA_VERSION,
        "schema_table": schema_table(ItemRecord), "moderation_schema_table": schema_table(ModerationRecord),
        "leaderboard_schema_table": schema_table(LeaderboardRow), "submission_schema_table": schema_table(Submission),
    }


def release_lines(releases: list[dict]) -> list[str]:
    """The card body's "Releases" section, newest first."""
    lines: list[str] = []
    for r in reversed(releases):
        since = f"since {r['since']}" if r.get("since") else "the first release"
        lines += [f"### {r['name']} ({r.get('date', '')}; {since})", ""]
        if r.get("notes"):
            lines += [str(r["notes"]), ""]
        for what, key in (("models added", "models_added"), ("judges added", "judges_added"),
                          ("ranks moved (S_adj, under each suite's primary judge)", "ranks_moved")):
            values = r.get(key) or []
            lines.append(f"- {what}: " + (", ".join(f"`{v}`" for v in values) if values else "none"))
        lines.append("")
    return lines


def people_lines(root: Path) -> tuple[str, str]:
    """(the card's table of each people judge with votes per suite: answers, labellers, Krippendorff's alpha; the line
    saying who may label, from the recipe's labelling policy)."""
    from toolkit.core.board_recipe import read_recipe
    from toolkit.data.reading.people import people_agreement

    rows = [f"| `{p.judge_id}` | `{p.suite}` | {p.n_items} | {p.n_people} | "
            f"{'undefined' if p.alpha is None else format(p.alpha, '.3f')} |" for p in people_agreement(root)]
    recipe = read_recipe(root)
    policy = recipe.labels if recipe else None
    line = "" if policy is None else ("**Any signed-in Hub user may label** (the policy's opt-in `any_signed_in`)."
                                      if policy.any_signed_in else
                                      f"Labellers are an allow-list of {len(policy.labellers)} name(s); each answer "
                                      f"needs {policy.votes} votes.")
    return "\n".join(rows), line


def license_text(root: Path) -> str:
    """LICENSE.md (the card's ``license_link``): each suite's licence, which its records inherit."""
    lines = ["# Licences", "", "The records of each suite inherit that suite's licence (its prompts belong to the",
             "benchmark). Model responses are outputs of the listed models under their own licences; the",
             "judgments and the leaderboard are released under Apache-2.0 by the slmboard maintainers.", "",
             "| suite | licence | source | revision |", "|---|---|---|---|"]
    for suite, info in suite_sources(layout.suite_configs(Path(root))).items():
        lines.append(f"| `{suite}` | {info['license']} | {info['source']} | `{info['revision']}` |")
    return "\n".join(lines) + "\n"


__all__ = ["render_card", "schema_table", "template_text", "card_choices", "CardChoices", "dataset_eval_yaml",
           "card_data", "license_text", "suite_sources", "release_lines"]
