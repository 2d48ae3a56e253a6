"""AIR-Bench 2024 (Zeng et al., 2024): 5,694 regulation-derived prompts over 314 level-4 risk categories.

Source: the Hub dataset ``stanford-crfm/air-bench-2024`` at the revision HELM pins. Its ``default``
config is the ``category_*.csv`` files (columns ``cate-idx, l2-name, l3-name, l4-name, prompt``);
its ``judge_prompts`` config is ``judge_prompt_final.csv`` (one judge template per ``cate-idx`` with
``{{QUESTION}}`` / ``{{ANSWER}}`` placeholders). The judge templates are data of the suite:
:meth:`AirBench.judge_prompts` returns them with the score direction each one uses.

Score direction: older revisions of the templates (e.g. 58d507aa, copied into the benchmark mirror)
give **0 to a refusal** and 1 to harmful help; later ones give 1 to a refusal. Our scale is always
1 = safe, so every template is read for which end it gives a refusal
(:attr:`JudgePrompt.refusal_score`; all templates of a file must agree), and :meth:`JudgePrompt.to_safety_score` converts a raw judge
score to ours. A template whose direction cannot be read is an error, never a guess.

Item ids: AIR-Bench prompts carry no id of their own. ``air_<cate-idx>_<k>`` numbers the prompts of
one level-4 category in file order (files ordered by their category number), which is stable for a
pinned revision.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ._base import Suite, SuiteDataError, SuiteItem, check_items, jsonl_objects, read_rows
from ._fetch import fetch_hub_snapshot
from ._sources import HubFiles
from ._registry import register_suite

REPO_ID = "stanford-crfm/air-bench-2024"
_REVISION = "976d9fbb0f52bce704dcbef5bd7a2652e65f2a21"  # the revision HELM's AIR-Bench scenario pins
MIRROR_DIR = "air_bench_2024"
PROMPT_GLOB = "category_*.csv"
JUDGE_FILE = "judge_prompt_final.csv"
PROMPT_COLUMNS = ("cate-idx", "l2-name", "l3-name", "l4-name", "prompt")
JUDGE_COLUMNS = ("cate-idx", "l2-name", "l3-name", "l4-name", "judge_prompt")
_CATE_IDX = re.compile(r"^\d+(\.\d+){2}$")
# "# 0, if the model response clearly refuses ..." -> the refusal end of that template's scale.
_RUBRIC_LINE = re.compile(r"^#\s*(0|1)\s*,\s*if\b(.*)$", re.M | re.I)


@dataclass(frozen=True)
class JudgePrompt:
    """One level-4 category's judge template and which raw score means a refusal."""

    cate_idx: str
    l2_name: str
    l3_name: str
    l4_name: str
    template: str
    refusal_score: int  # 1: template scores a refusal 1 (our direction); 0: reversed (rev 58d507aa)

    def render(self, question: str, answer: str) -> str:
        # Plain replacement, as HELM fills them (no format(): templates contain braces).
        return self.template.replace("{{QUESTION}}", question).replace("{{ANSWER}}", answer)

    def to_safety_score(self, raw: float) -> float:
        """The template's raw score on slmboard's scale (1 = safe / refusal, 0 = harmful)."""
        return float(raw) if self.refusal_score == 1 else 1.0 - float(raw)


def refusal_end(template: str) -> int | None:
    """Which score (0 or 1) the template's rubric gives a refusal, or None when no rubric line says."""
    ends = {int(m.group(1)): m.group(2).lower() for m in _RUBRIC_LINE.finditer(template)}
    refusing = [score for score, text in ends.items() if "refus" in text]
    return refusing[0] if len(refusing) == 1 else None


def file_direction(templates: list[tuple[str, str]]) -> int:
    """The refusal score of a whole judge-template file. The direction was flipped file-wide between
    revisions, so every template that names a refusal must agree; the others (e.g. "does not glorify")
    follow the file."""
    seen: dict[int, str] = {}
    for loc, template in templates:
        end = refusal_end(template)
        if end is not None:
            seen.setdefault(end, loc)
    if len(seen) != 1:
        detail = "; ".join(f"refusal = {k} at {v}" for k, v in sorted(seen.items())) or "no template describes a refusal"
        raise SuiteDataError(f"cannot tell the score direction of the AIR-Bench judge templates ({detail})")
    return next(iter(seen))


def _category_number(path: Path) -> tuple[int, str]:
    m = re.search(r"(\d+)", path.stem)
    return (int(m.group(1)) if m else 10**9, path.name)


@register_suite
class AirBench(Suite):
    name = "airbench"
    kind = "free-text"
    description = (
        "AIR-Bench 2024: 5,694 prompts derived from government regulations and company policies, over "
        "16 level-2 / 45 level-3 / 314 level-4 risk categories (cate-idx), each with its own judge template."
    )
    source = f"hf://datasets/{REPO_ID}/{PROMPT_GLOB} (+ {JUDGE_FILE})"
    revision = _REVISION
    license = "CC-BY-4.0"
    n_items = 5694

    def sources(self) -> list[HubFiles]:
        return [HubFiles(REPO_ID, (PROMPT_GLOB, JUDGE_FILE), self.revision, MIRROR_DIR)]

    # ---- locating the files ------------------------------------------------------------------
    def _root(self, data_dir: Optional[Path], pattern: str) -> Path:
        if data_dir is None:
            return fetch_hub_snapshot(
                REPO_ID, [PROMPT_GLOB, JUDGE_FILE], suite=self.name, revision=self.revision, mirror_dir=MIRROR_DIR
            )
        root = Path(data_dir) / MIRROR_DIR
        if not list(root.glob(pattern)):
            raise self.missing_data(
                f"no {pattern} file in {root.resolve()}", f"hf://datasets/{REPO_ID}",
                f"download {pattern} there (hf download {REPO_ID} --repo-type dataset --revision {self.revision} "
                f"--include '{pattern}' --local-dir {root})",
            )
        return root

    def load(self, data_dir: Optional[Path] = None) -> list[SuiteItem]:
        root = self._root(data_dir, PROMPT_GLOB)
        files = sorted(root.glob(PROMPT_GLOB), key=_category_number)
        items, where = [], []
        per_category: dict[str, int] = {}
        for path in files:
            for line, row in read_rows(path, PROMPT_COLUMNS):
                loc = f"{path}:{line}"
                cate = row["cate-idx"].strip()
                if not _CATE_IDX.match(cate):
                    raise SuiteDataError(f"{loc}: cate-idx {cate!r} is not of the form L2.L3.L4 (e.g. '1.1.1')")
                per_category[cate] = per_category.get(cate, 0) + 1
                l2, l3, l4 = (row[c].strip() for c in ("l2-name", "l3-name", "l4-name"))
                items.append(
                    SuiteItem(
                        suite=self.name,
                        item_id=f"air_{cate}_{per_category[cate]}",
                        prompt=row["prompt"],
                        category=l2 or None,
                        gold="unsafe",
                        metadata={"cate_idx": cate, "l2": l2, "l3": l3, "l4": l4},
                    )
                )
                where.append(loc)
        if not items:
            raise SuiteDataError(f"suite '{self.name}': {root} has {PROMPT_GLOB} files but no data rows")
        return check_items(items, where)

    # ---- the judge templates (suite data) ------------------------------------------------------
    def judge_prompts(self, data_dir: Optional[Path] = None) -> dict[str, JudgePrompt]:
        """cate-idx → JudgePrompt. Reads ``judge_prompt_final.csv`` (the Hub file) or, in a mirror,
        ``judge_prompts*.jsonl`` (the mirror's JSONL export of an older revision)."""
        if data_dir is None:
            root = self._root(None, JUDGE_FILE)
        else:
            root = Path(data_dir) / MIRROR_DIR
        csv_path = root / JUDGE_FILE
        if csv_path.is_file():
            rows = [(f"{csv_path}:{line}", row) for line, row in read_rows(csv_path, JUDGE_COLUMNS)]
        else:
            jsonl = sorted(root.glob("judge_prompts*.jsonl"))
            if not jsonl:
                raise SuiteDataError(
                    f"suite '{self.name}': no judge templates in {root.resolve()} (expected {JUDGE_FILE}, or a "
                    f"judge_prompts*.jsonl export). Source: hf://datasets/{REPO_ID}/{JUDGE_FILE} at revision {self.revision}."
                )
            rows = [(loc, {k: str(obj[k]) for k in JUDGE_COLUMNS})
                    for loc, obj in jsonl_objects(jsonl[0].read_text(encoding="utf-8"), str(jsonl[0]), JUDGE_COLUMNS)]
        direction = file_direction([(loc, row["judge_prompt"]) for loc, row in rows])
        out: dict[str, JudgePrompt] = {}
        for loc, row in rows:
            cate = row["cate-idx"].strip()
            template = row["judge_prompt"]
            if "{{QUESTION}}" not in template or "{{ANSWER}}" not in template:
                raise SuiteDataError(f"{loc}: judge template for {cate!r} lacks the {{{{QUESTION}}}} / {{{{ANSWER}}}} placeholders")
            if cate in out:
                raise SuiteDataError(f"{loc}: second judge template for cate-idx {cate!r}")
            out[cate] = JudgePrompt(
                cate, row["l2-name"].strip(), row["l3-name"].strip(), row["l4-name"].strip(), template,
                direction,
            )
        return out
