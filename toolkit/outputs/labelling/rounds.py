"""``slmboard labels BOARD``: the labelling policy (``--init``), an offline round (``--export FILE.csv``, then
``--from FILE.csv``) and the round's progress with each labeller's agreement with the others.

Every label is checked before anything is written (:func:`check_labels`): the item is one the board holds and the
policy samples, the word is the suite's, the labeller is allowed, under the daily cap, has not labelled that answer
before, and the note is short. The first problem is the one line of the refusal (with how many more there are).
"""
from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional

from toolkit.core.dataset_ref import DatasetRef
from toolkit.core.errors import LabelsRefused, NothingToCommit
from toolkit.core.label_policy import (CHOICES, CSV_NAME, NOTE_MAX_CHARS, LabelPolicy, refused_suites,
                                       score_of_choice)
from .board import BoardView, board_name, read_board_root
from .store import Label, LabelsSnapshot, LabelsStore, init_store, now_iso
from .tally import ready

#: the columns of an offline round's CSV file; a lab fills labeller, label and (optionally) note
CSV_COLUMNS = ("submission_id", "suite", "item_id", "model_id", "response_sha256", "prompt", "response", "choices",
               "labeller", "label", "note")
CSV_PREFIX = "csv:"


def board_ref(board: str | Path) -> DatasetRef:
    from toolkit.outputs.publishing.hub import parse_target

    return parse_target(board, param="board")


def open_board(ref: DatasetRef, with_answers: bool = True) -> BoardView:
    """The board at its current revision (a local board's work tree, a Hub board's snapshot)."""
    if ref.is_hub:
        from toolkit.data.reading.locate import HubId, fetch_snapshot

        root = fetch_snapshot(HubId(ref.repo_id, ref.revision)).root
    else:
        root = ref.path
        if not (root / ".git").is_dir():
            raise LabelsRefused(f"{ref.url}: no such board; create it with `slmboard create`", param="board")
    return read_board_root(root, ref.url, board_name(ref), with_answers)


def labels_ref(ref: DatasetRef, policy: LabelPolicy) -> DatasetRef:
    """The labels dataset of the board ``ref``: the policy's, else ``ORG/NAME-labels`` or ``<board>-labels/`` beside."""
    if policy.dataset:
        return DatasetRef.parse(policy.dataset, writing=True, param="dataset")
    if ref.is_hub:
        return DatasetRef.parse(f"{ref.repo_id}-labels", writing=True)
    return DatasetRef.parse(str(ref.path.resolve().parent / f"{ref.path.resolve().name}-labels"), writing=True)


# ---- the policy ----------------------------------------------------------------------------------------------------
@dataclass
class InitResult:
    board: str
    labels_dataset: str
    created: bool  # the labels dataset was made now
    revision: Optional[str]  # the board's commit of the policy; None: the recipe already held it
    policy: LabelPolicy


def _suite_kind(name: str) -> str:
    from toolkit.stages.suites._registry import suite_kind

    return suite_kind(name)


def init_labels(board: str | Path, fields: Mapping[str, Any]) -> InitResult:
    """Write the labelling policy (the recipe's ``labels:``, its fields given now over the ones it has) into the
    board's recipe as a commit of its own and make the labels dataset beside the board (kept when it exists)."""
    from toolkit.core.board_recipe import read_recipe
    from toolkit.core.dataset_layout import BOARD_FILE
    from toolkit.core.records_io import atomic_write_text
    from toolkit.outputs.publishing.card import render_card

    ref = board_ref(board)
    view = open_board(ref, with_answers=False)
    old = view.recipe.labels.model_dump() if view.recipe.labels else {}
    from pydantic import ValidationError

    from toolkit.core.options import value_error

    try:
        policy = LabelPolicy.model_validate({**old, **{k: v for k, v in fields.items() if v is not None}})
    except ValidationError as exc:
        raise value_error(exc, LabelPolicy.model_fields) from None
    if policy.suites is not None:
        kinds = {s: view.suite_kinds.get(s) or _suite_kind(s) for s in policy.suites}
        refused = refused_suites(policy.suites, kinds)
        if refused:
            raise LabelsRefused(f"{ref.url}: " + "; ".join(refused) + " (multiple-choice suites are never offered)",
                                param="suites")
    target = labels_ref(ref, policy)
    created = init_store(LabelsStore(target), ref.url)

    def write(root: Path) -> list[str]:
        recipe = read_recipe(root)
        new = recipe.with_labels(policy)
        if new == recipe:
            raise NothingToCommit("the recipe already holds this policy")
        atomic_write_text(root / BOARD_FILE, new.to_yaml())
        atomic_write_text(root / "README.md", render_card(root, repo_id=ref.repo_id))
        return [BOARD_FILE, "README.md"]

    message = f"Labelling policy: {policy.votes} votes per item, sample {policy.sample} per suite and model"
    try:
        revision = _commit_board(ref, message, write)
    except NothingToCommit:
        revision = None
    return InitResult(ref.url, target.url, created, revision, policy)


def _commit_board(ref: DatasetRef, message: str, write) -> str:
    from toolkit.outputs.publishing.hub import HubPublisher
    from toolkit.outputs.publishing.local_folder import LocalFolderHub

    if ref.is_hub:
        return HubPublisher(ref.repo_id, create=False, revision=ref.revision or "main").commit(message, write).revision
    return LocalFolderHub(ref.path).commit(message, write).revision


# ---- reading the round ---------------------------------------------------------------------------------------------
@dataclass
class Round:
    """The board, its labels and the answers of its sample, read together."""

    ref: DatasetRef
    view: BoardView
    store: LabelsStore
    snapshot: LabelsSnapshot

    @property
    def policy(self) -> LabelPolicy:
        return self.view.policy

    def scores(self, exclude: Iterable[str] = ()) -> dict[tuple[str, str, str], dict[str, Optional[float]]]:
        """item -> labeller -> score (None: can't tell) of the labels of answers the board still holds as labelled."""
        left_out = set(exclude)
        out: dict[tuple[str, str, str], dict[str, Optional[float]]] = {}
        for label in self.snapshot.labels:
            answer = self.view.answers.get(label.item)
            if answer is None or answer.response_sha256 != label.response_sha256 or label.labeller in left_out:
                continue
            out.setdefault(label.item, {})[label.labeller] = score_of_choice(label.choice, answer.gold)
        return out

    def needing_votes(self) -> list:
        scores = self.scores()
        return [a for a in self.view.sample() if not ready(list(scores.get(a.item, {}).values()), self.policy.votes)]


def open_round(board: str | Path) -> Round:
    ref = board_ref(board)
    view = open_board(ref)
    store = LabelsStore(labels_ref(ref, view.policy))
    if not store.exists():
        raise LabelsRefused(f"{store.shown}: no labels dataset; set init first (toolkit.api.labels_init)", param="init")
    return Round(ref, view, store, store.read())


# ---- an offline round ----------------------------------------------------------------------------------------------
def export_csv(board: str | Path, out: str | Path) -> int:
    """Write the answers that need votes as an offline round's CSV file (one row per answer; a lab copies a row per
    labeller); the number of rows."""
    from toolkit.core.records_io import atomic_write_text

    r = open_round(board)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_COLUMNS)
    writer.writeheader()
    rows = r.needing_votes()
    for a in rows:
        writer.writerow({"submission_id": a.submission_id, "suite": a.suite, "item_id": a.item_id, "model_id": a.model_id,
                         "response_sha256": a.response_sha256, "prompt": a.prompt, "response": a.response,
                         "choices": " | ".join(CHOICES), "labeller": "", "label": "", "note": ""})
    atomic_write_text(out, buffer.getvalue())
    return len(rows)


@dataclass
class Imported:
    labels_dataset: str
    revision: str
    n_labels: int
    labellers: list[str] = field(default_factory=list)


def read_csv_labels(path: Path, data: bytes) -> tuple[list[tuple[int, dict]], str]:
    """(row number, row) of the filled rows of an offline round's CSV file, and the file's hash."""
    digest = hashlib.sha256(data).hexdigest()[:12]
    try:
        reader = csv.DictReader(io.StringIO(data.decode("utf-8-sig")))
        missing = [c for c in ("submission_id", "suite", "item_id", "response_sha256", "labeller", "label")
                   if c not in (reader.fieldnames or [])]
        rows = [(n, row) for n, row in enumerate(reader, 2)]
    except (UnicodeDecodeError, csv.Error) as exc:
        raise LabelsRefused(f"{path}: not a CSV file of labels: {exc}", param="from_csv") from None
    if missing:
        raise LabelsRefused(f"{path}: no column {', '.join(missing)} (the columns an export writes)",
                            param="from_csv")
    return [(n, row) for n, row in rows if (row.get("label") or "").strip() or (row.get("labeller") or "").strip()], digest


def check_labels(r: Round, labels: list[tuple[str, Label]], allowed_as: Mapping[str, str]) -> list[str]:
    """Every problem of ``labels`` ((where, label) pairs), each one line naming where; [] when all may be stored.
    ``allowed_as``: labeller -> the name the allow-list knows them by (``csv:NAME`` for an offline round's)."""
    policy, problems = r.policy, []
    sampled = {a.item for a in r.view.sample()}
    had = {(label.item, label.labeller) for label in r.snapshot.labels}
    since = datetime.now(timezone.utc) - timedelta(days=1)
    today: dict[str, int] = {}
    for label in r.snapshot.labels:
        if datetime.strptime(label.when, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc) > since:
            today[label.labeller] = today.get(label.labeller, 0) + 1
    for where, label in labels:
        answer = r.view.answers.get(label.item)
        name = allowed_as.get(label.labeller, label.labeller)
        if answer is None:
            problems.append(f"{where}: item_id: the board holds no answer {label.item_id!r} of {label.submission_id} "
                            f"on {label.suite}")
        elif answer.response_sha256 != label.response_sha256:
            problems.append(f"{where}: response_sha256: not the board's answer to {label.item_id} (was it changed?)")
        elif label.item not in sampled:
            problems.append(f"{where}: item_id: {label.item_id} of {label.submission_id} on {label.suite} is not among "
                            "the answers to label (the policy's suites and sample)")
        if not policy.allows(name):
            problems.append(f"{where}: labeller: {name!r} is not on the board's allow-list of labellers (the "
                            "policy's labellers)")
        if (label.item, label.labeller) in had:
            problems.append(f"{where}: labeller: {name!r} has labelled {label.item_id} of {label.submission_id} already")
        had.add((label.item, label.labeller))
        today[label.labeller] = today.get(label.labeller, 0) + 1
        if today[label.labeller] == policy.per_user_per_day + 1:
            problems.append(f"{where}: labeller: {name!r} is over the daily cap of {policy.per_user_per_day} labels")
        if label.note is not None and len(label.note) > NOTE_MAX_CHARS:
            problems.append(f"{where}: note: {len(label.note)} characters, over the limit of {NOTE_MAX_CHARS}")
    return problems


def refuse(problems: list[str], param: str) -> None:
    if problems:
        more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
        raise LabelsRefused(problems[0] + more, param=param)


def import_csv(board: str | Path, path: str | Path) -> Imported:
    """Store the labels of an offline round's CSV file (see the module doc); nothing is written on any problem."""
    from pydantic import ValidationError

    path = Path(path)
    if not path.is_file():
        raise LabelsRefused(f"{path}: no such file", param="from_csv")
    r = open_round(board)
    r.store.check_writable()
    rows, digest = read_csv_labels(path, path.read_bytes())
    labels, problems, allowed_as, when = [], [], {}, now_iso()
    for n, row in rows:
        where = f"{path} row {n}"
        name, word = (row.get("labeller") or "").strip(), (row.get("label") or "").strip().lower()
        if not CSV_NAME.match(name):
            problems.append(f"{where}: labeller: {name[:40]!r} is not a safe name (letters, digits, '.', '_', '-'; "
                            "at most 64)")
            continue
        if word not in CHOICES:
            problems.append(f"{where}: label: {word[:40]!r} is not one of the suite's words: {', '.join(CHOICES)}")
            continue
        labeller = f"{CSV_PREFIX}{digest}/{name}"
        allowed_as[labeller] = CSV_PREFIX + name
        note = row.get("note") or None
        try:
            labels.append((where, Label(submission_id=row["submission_id"], suite=row["suite"], item_id=row["item_id"],
                                        response_sha256=row["response_sha256"], labeller=labeller, choice=word,
                                        note=note, when=when, source=CSV_PREFIX + digest)))
        except ValidationError as exc:
            e = exc.errors()[0]
            problems.append(f"{where}: {e['loc'][0] if e['loc'] else 'row'}: {e['msg']}")
    if not rows:
        problems.append(f"{path}: no filled rows (labeller and label columns)")
    problems += check_labels(r, labels, allowed_as)
    refuse(problems, "from_csv")
    revision = r.store.add([label for _, label in labels], f"Labels of an offline round ({path.name}, {len(labels)} labels)")
    return Imported(r.store.shown, revision, len(labels), sorted({allowed_as[lab.labeller] for _, lab in labels}))


# ---- progress ------------------------------------------------------------------------------------------------------
@dataclass
class Progress:
    board: str
    labels_dataset: str
    suites: dict[str, tuple[int, int, int]]  # suite -> (answers sampled, answers ready, labels)
    alpha: Optional[float]
    labellers: dict[str, tuple[int, Optional[float]]]  # labeller -> (labels, alpha of the others without them)


def progress(board: str | Path) -> Progress:
    from toolkit.data.scoring.people_agreement import alpha_without, ordinal_alpha

    r = open_round(board)
    scores = r.scores()
    suites: dict[str, list[int]] = {s: [0, 0, 0] for s in r.view.suites()}
    for a in r.view.sample():
        by = scores.get(a.item, {})
        counts = suites[a.suite]
        counts[0] += 1
        counts[1] += ready(list(by.values()), r.policy.votes)
        counts[2] += len(by)
    n_labels: dict[str, int] = {}
    for by in scores.values():
        for who in by:
            n_labels[who] = n_labels.get(who, 0) + 1
    without = alpha_without(scores)
    return Progress(r.ref.url, r.store.shown, {s: tuple(c) for s, c in suites.items()},
                    ordinal_alpha([list(by.values()) for by in scores.values()]),
                    {who: (n_labels[who], without[who]) for who in sorted(n_labels)})
