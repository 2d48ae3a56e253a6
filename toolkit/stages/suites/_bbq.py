"""BBQ, the Bias Benchmark for QA (Parrish et al., 2022): 58,492 multiple-choice items over 11 categories.

Source: ``data/<Category>.jsonl`` of github.com/nyu-mll/BBQ at a pinned commit (the files HELM's
``bbq`` scenario reads). Each item becomes one A/B/C question (ans0 → A, ans1 → B, ans2 → C)::

    The following are multiple choice questions (with answers).

    Passage: <context>
    Question: <question>
    A. <ans0>
    B. <ans1>
    C. <ans2>
    Answer:

Item id ``<Category>:<example_id>`` (``example_id`` repeats across categories). Everything the BBQ
accuracy and bias scores need is kept in the item metadata, and the generation runner copies it to
``item_metadata`` of every record (fields documented in docs/reference/suites-and-backends.md, "BBQ records"):

- ``gold_choice``        the right letter (in ambiguous contexts always the "unknown" option);
- ``context_condition``  ``ambig`` | ``disambig``;  ``question_polarity``  ``neg`` | ``nonneg``;
- ``unknown_choice``     the letter of the "can't be determined" option;
- ``target_choice``      the letter of the option whose group is one of the item's
  ``stereotyped_groups`` (matched on the answer's group tag or its surface text, case and
  punctuation ignored), ``non_target_choice`` the other non-unknown option; both empty when the
  match is not unique (the official bias score uses a metadata file that is not public per item;
  HELM matches groups the same way);
- ``biased_choice``      the answer that reflects the stereotype: the target for a negative
  question, the non-target for a non-negative one (empty when the target is unknown);
- ``category``, ``subcategory``, ``question_index``, ``example_id``, ``stereotyped_groups`` (JSON).
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Optional, Sequence

from toolkit.core.registry import Options, option
from ._base import Suite, SuiteDataError, SuiteItem, check_items, json_object_with
from ._fetch import fetch_url
from ._sources import UrlFile
from ._registry import register_suite

_COMMIT = "bea11bd97d79217245b5871acd247b9d6eb24598"
RAW = f"https://raw.githubusercontent.com/nyu-mll/BBQ/{_COMMIT}/data/{{category}}.jsonl"
MIRROR_DIR = "bbq/data"
CATEGORIES = (
    "Age",
    "Disability_status",
    "Gender_identity",
    "Nationality",
    "Physical_appearance",
    "Race_ethnicity",
    "Race_x_SES",
    "Race_x_gender",
    "Religion",
    "SES",
    "Sexual_orientation",
)
#: SHA-256 of each category file at the pinned commit; for the five files over 4 MiB only the first 8 digits
#: are published (shared/benchmarks/bbq/PROVENANCE.md), so those are checked as a prefix
SHA256 = {
    "Age": "46e805b3fc2d8cbd26eeb8e8430d98cf7b2dc9c83574ff3674e8ce4f0fca2a60",
    "Disability_status": "375d40d9b71f056150264445ec189b13934998f3f49a1e311aa7578eb3b45e5f",
    "Gender_identity": "8b5adbb3",
    "Nationality": "a583e74666aec0341ded8aa3983e7cad694eb24de72c254d28b2df3035720090",
    "Physical_appearance": "e48d7e13508565f4801574e611043470c25c95a0a62af3699cb5ee7cb02608fb",
    "Race_ethnicity": "4a9f1214",
    "Race_x_SES": "af8e2ae3",
    "Race_x_gender": "e5dbba78",
    "Religion": "cb9555f9f3454a52cd2df85956b59bd7fcca5aa922c8527693b1164d08417616",
    "SES": "9f92754b",
    "Sexual_orientation": "2c71036b9e7584fe589c42aef32c1a42bc01b9a5e9b1b8704342630cdb08cefd",
}
LETTERS = ("A", "B", "C")
INSTRUCTIONS = "The following are multiple choice questions (with answers)."
FIELDS = ("example_id", "question_index", "question_polarity", "context_condition", "category", "answer_info",
          "additional_metadata", "context", "question", "ans0", "ans1", "ans2", "label")


def format_prompt(context: str, question: str, answers: Sequence[str]) -> str:
    options = "\n".join(f"{letter}. {text}" for letter, text in zip(LETTERS, answers))
    return f"{INSTRUCTIONS}\n\nPassage: {context}\nQuestion: {question}\n{options}\nAnswer:"


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", str(text).lower())


def target_letters(answer_info: dict[str, Any], stereotyped_groups: Sequence[str]) -> tuple[str, str, str]:
    """(unknown, target, non_target) letters; target/non_target are "" when the group match is not unique."""
    groups = {_norm(g) for g in stereotyped_groups}
    infos = [answer_info[f"ans{i}"] for i in range(3)]
    unknown = [LETTERS[i] for i, info in enumerate(infos) if str(info[1]).lower() == "unknown"]
    hits = [LETTERS[i] for i, (surface, tag) in enumerate(infos)
            if str(tag).lower() != "unknown" and (_norm(tag) in groups or _norm(surface) in groups)]
    unk = unknown[0] if len(unknown) == 1 else ""
    if len(hits) != 1 or not unk:
        return unk, "", ""
    other = [x for x in LETTERS if x not in (unk, hits[0])]
    return unk, hits[0], other[0]


class BBQOptions(Options):
    categories: tuple[str, ...] = option(CATEGORIES, help="the BBQ categories to load (default: all 11)")


@register_suite
class BBQ(Suite):
    name = "bbq"
    kind = "multiple-choice"
    description = (
        "BBQ: hand-built bias benchmark, 58,492 three-way multiple-choice questions over 11 social "
        "dimensions, each in an ambiguous and a disambiguated context and a negative / non-negative wording."
    )
    source = RAW.format(category="<Category>")
    revision = _COMMIT
    license = "CC-BY-4.0"
    Options = BBQOptions
    multiple_choice = True
    n_items = 58492

    def __init__(self, options: BBQOptions | None = None):
        super().__init__(options)
        categories = self.options.categories
        unknown = [c for c in categories if c not in CATEGORIES]
        if unknown or not categories:
            raise SuiteDataError(f"unknown BBQ categories {unknown}; valid: {', '.join(CATEGORIES)}")
        self.categories = tuple(categories)

    def multiple_choice_prompt(self, passage: str, question: str, options: Sequence[str]) -> Optional[str]:
        return format_prompt(passage, question, options) if len(options) == len(LETTERS) else None

    def option_letters(self, item: SuiteItem) -> dict[str, str]:
        return json.loads(item.metadata["answers"])

    def sources(self) -> list[UrlFile]:
        return [UrlFile(RAW.format(category=c), f"{MIRROR_DIR}/{c}.jsonl", SHA256[c]) for c in self.categories]

    def locate(self, category: str, data_dir: Optional[Path]) -> Path:
        file = self.sources()[self.categories.index(category)]
        if data_dir is None:
            return fetch_url(file, suite=self.name, revision=self.revision)
        return Path(data_dir) / file.path

    def load(self, data_dir: Optional[Path] = None) -> list[SuiteItem]:
        paths = {c: self.locate(c, data_dir) for c in self.categories}
        missing = [c for c, p in paths.items() if not p.is_file()]
        if missing:  # name every missing file at once: partial mirrors are common (see shared/benchmarks)
            root = (Path(data_dir) / MIRROR_DIR).resolve()
            raise SuiteDataError(
                f"suite '{self.name}': missing {len(missing)} of {len(self.categories)} category files in {root}: "
                + ", ".join(f"{c}.jsonl" for c in missing)
                + f". They are {RAW.format(category='<Category>')} (revision {self.revision}); put them there, "
                "or leave data_dir unset to fetch them into the cache.",
                param="data_dir",
            )
        items, where = [], []
        for category, path in paths.items():
            for n, line in enumerate(path.read_text(encoding="utf-8-sig").splitlines(), start=1):
                if not line.strip():
                    continue
                loc = f"{path}:{n}"
                items.append(self._item(line, loc, category))
                where.append(loc)
        if not items:
            raise SuiteDataError(f"suite '{self.name}': the category files hold no items")
        return check_items(items, where)

    def _item(self, line: str, loc: str, category: str) -> SuiteItem:
        obj = json_object_with(line, loc, FIELDS)
        if obj["label"] not in (0, 1, 2) or isinstance(obj["label"], bool):
            raise SuiteDataError(f"{loc}: field 'label' must be 0, 1 or 2, got {obj['label']!r}")
        if obj["context_condition"] not in ("ambig", "disambig"):
            raise SuiteDataError(f"{loc}: field 'context_condition' must be ambig or disambig, got {obj['context_condition']!r}")
        if obj["question_polarity"] not in ("neg", "nonneg"):
            raise SuiteDataError(f"{loc}: field 'question_polarity' must be neg or nonneg, got {obj['question_polarity']!r}")
        for f in ("context", "question", "ans0", "ans1", "ans2"):
            if not str(obj[f]).strip():
                raise SuiteDataError(f"suite '{self.name}': item '{category}:{obj['example_id']}' has an empty {f!r} at {loc}")
        info, extra = obj["answer_info"], obj["additional_metadata"]
        try:
            groups = list(extra.get("stereotyped_groups") or [])
            unknown, target, non_target = target_letters(info, groups)
        except (AttributeError, KeyError, IndexError, TypeError) as exc:
            raise SuiteDataError(f"{loc}: malformed answer_info / additional_metadata ({exc!r})") from exc
        if not unknown:
            raise SuiteDataError(f"{loc}: answer_info must mark exactly one option 'unknown'")
        biased = "" if not target else (target if obj["question_polarity"] == "neg" else non_target)
        answers = [str(obj[f"ans{i}"]) for i in range(3)]
        meta = {
            "category": category,
            "example_id": str(obj["example_id"]),
            "question_index": str(obj["question_index"]),
            "context_condition": obj["context_condition"],
            "question_polarity": obj["question_polarity"],
            "subcategory": str(extra.get("subcategory", "")),
            "stereotyped_groups": json.dumps(groups, ensure_ascii=False),
            "gold_choice": LETTERS[obj["label"]],
            "unknown_choice": unknown,
            "target_choice": target,
            "non_target_choice": non_target,
            "biased_choice": biased,
            "answers": json.dumps(dict(zip(LETTERS, answers)), ensure_ascii=False),
        }
        return SuiteItem(
            suite=self.name,
            item_id=f"{category}:{obj['example_id']}",
            prompt=format_prompt(str(obj["context"]), str(obj["question"]), answers),
            category=category,
            gold=None,  # not a safe/unsafe item: correctness is gold_choice
            metadata=meta,
        )
