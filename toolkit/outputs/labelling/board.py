"""What labelling reads of the board: its policy (``board.yaml`` ``labels:``), the kind of each suite, and the answers
people label, each with the hashes published records must match (read from the board's own record files, as
their committed manifests name them)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from schemas import sha256_text

from toolkit.core.board_recipe import BoardRecipe, read_recipe
from toolkit.core.dataset_layout import BOARD_FILE, manifest_files
from toolkit.core.dataset_ref import DatasetRef
from toolkit.core.errors import LabelsRefused
from toolkit.core.judge_names import is_people_judge, judge_slug
from toolkit.core.label_policy import LabelPolicy, labelled_suites, sample_items

#: the columns of a record file labelling reads (the answer, never a judge's verdict)
COLUMNS = ["submission_id", "model_id", "suite", "item_id", "category", "prompt", "response", "response_sha256", "gold"]


@dataclass(frozen=True)
class Answer:
    """One answer of the board people may label: an item of a suite, answered by one submission's model."""

    submission_id: str
    model_id: str
    suite: str
    item_id: str
    category: str | None
    gold: str | None
    prompt: str
    response: str
    response_sha256: str

    @property
    def item(self) -> tuple[str, str, str]:
        return self.submission_id, self.suite, self.item_id


@dataclass
class BoardView:
    """The board as labelling sees it, at one revision."""

    board: str  # as shown
    name: str  # the board's name (the people judge is human-<name>-labels)
    recipe: BoardRecipe
    suite_kinds: dict[str, str]
    answers: dict[tuple[str, str, str], Answer] = field(default_factory=dict)

    @property
    def policy(self) -> LabelPolicy:
        if self.recipe.labels is None:
            raise LabelsRefused(f"{self.board} has no labelling policy; set init first (toolkit.api.labels_init)",
                                param="init")
        return self.recipe.labels

    @property
    def people_judge(self) -> str:
        return people_judge_id(self.name)

    def suites(self) -> list[str]:
        return [s for s in labelled_suites(self.policy, self.suite_kinds) if s in self.suite_kinds]

    def sample(self) -> list[Answer]:
        """The answers to label, per (suite, submission) in the policy's sample order (see label_policy)."""
        policy, out = self.policy, []
        groups: dict[tuple[str, str], list[Answer]] = {}
        for a in self.answers.values():
            groups.setdefault((a.suite, a.submission_id), []).append(a)
        for suite in self.suites():
            for (s, sid), answers in sorted(groups.items()):
                if s != suite:
                    continue
                by_id = {a.item_id: a for a in answers}
                out += [by_id[i] for i in sample_items(policy.seed, policy.sample, suite, sid,
                                                       [(a.item_id, a.category) for a in answers])]
        return out


def people_judge_id(board_name: str) -> str:
    """The id of the board's people judge: ``human-<NAME>-labels`` (a people judge by its name's first part)."""
    judge = f"human-{judge_slug(board_name)}-labels"
    assert is_people_judge(judge)
    return judge


def board_name(ref: DatasetRef) -> str:
    return ref.repo_id.split("/")[-1] if ref.is_hub else re.sub(r"-labels$", "", Path(ref.path).name) or "board"


def read_board_root(root: Path, shown: str, name: str, with_answers: bool = True) -> BoardView:
    """The board in the folder ``root`` (a local board's work tree, or a snapshot of a Hub board)."""
    import pyarrow.parquet as pq

    from toolkit.data.reading import read_manifest_files

    recipe = read_recipe(root)
    if recipe is None:
        raise LabelsRefused(f"{shown} has no {BOARD_FILE}: labelling needs a board made by `slmboard create`")
    manifests = read_manifest_files([(p, str(p)) for p in manifest_files(root)])
    kinds = {s: k for m in manifests for s, k in m.suite_kinds.items()}
    view = BoardView(shown, name, recipe, kinds)
    if not with_answers:
        return view
    for m in manifests:
        seen = set()
        for f in m.record_files:  # one file per suite is enough: every judge of a suite judged the same answers
            if not f.suite or f.suite in seen or not f.judge_id or f.judge_id == view.people_judge:
                continue  # the answers of any judge but this board's people judge (an imported people judge's too)
            seen.add(f.suite)
            present = set(pq.read_schema(root / f.path).names)  # an older shard may lack an optional column
            for row in pq.read_table(root / f.path, columns=[c for c in COLUMNS if c in present]).to_pylist():
                answer = Answer(row["submission_id"], row["model_id"], row["suite"], row["item_id"], row.get("category"),
                                row.get("gold"), row["prompt"], row["response"],
                                row.get("response_sha256") or sha256_text(row["response"]))
                view.answers[answer.item] = answer
    return view
