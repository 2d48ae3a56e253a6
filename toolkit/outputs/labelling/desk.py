"""The Space's labelling desk: the next answer for a signed-in labeller, their label checked as an offline round's
are (:func:`~.rounds.check_labels`), and labels written in batches.

A label is first appended to a spool file on the Space's disk (fsync'd) and held as *pending*; a batch thread
commits every pending label as one new file of the labels dataset at most once per ``every`` seconds (never one
commit per click). A label is *saved* only once its commit landed; a batch that fails stays pending and is tried
again, and its labeller sees why. Labels pending when the Space stops are read back from the spool when it starts
again and committed then (kept, never silently dropped); a spool line that no longer reads is reported as lost.
Two Spaces (or two labellers) taking the last slot of one answer both land: each batch is a new path, a Hub commit
that finds the branch moved is retried on the new head (:class:`~toolkit.outputs.publishing.hub.HubPublisher`), and
the second label is an extra label.
"""
from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from pydantic import ValidationError

from toolkit.core.errors import LabelsRefused, SlmboardError
from toolkit.core.label_policy import CHOICES, score_of_choice
from .board import Answer, board_name, read_board_root
from .rounds import Round, board_ref, check_labels, labels_ref, refuse
from .store import Label, LabelsSnapshot, LabelsStore, now_iso
from .tally import ready

BATCH_SECONDS = 5.0
SPACE_SOURCE = "space"


@dataclass
class Status:
    label: Label
    state: str  # "pending" | "saved" | "lost"
    why: str = ""


class LabelDesk:
    """The labelling of one board by the visitors of one Space process (see the module doc)."""

    def __init__(self, board: str | Path, root: Path, spool: Path, every: float = BATCH_SECONDS, start: bool = True):
        self.ref = board_ref(board)
        self.every = every
        self.spool = Path(spool)
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self.statuses: list[Status] = []
        self.refresh(root)
        self._read_spool()
        self._thread = None
        if start:
            self._thread = threading.Thread(target=self._run, name="slmboard-label-batches", daemon=True)
            self._thread.start()

    # ---- the board and its labels ------------------------------------------------------------------------------
    def refresh(self, root: Path) -> None:
        """Read the board (its folder or snapshot ``root``) and the labels dataset again."""
        view = read_board_root(Path(root), self.ref.url, board_name(self.ref))
        self.root = Path(root)
        store = LabelsStore(labels_ref(self.ref, view.policy))
        snapshot = store.read()
        with self._lock:
            self.view, self.store, self.snapshot = view, store, snapshot

    @property
    def policy(self):
        return self.view.policy

    def _labels(self) -> list[Label]:
        """Committed labels and the ones still pending: what every check counts."""
        pending = [s.label for s in self.statuses if s.state == "pending"]
        return [*self.snapshot.labels, *pending]

    def next_for(self, user: str) -> Optional[Answer]:
        """The first answer of the sample that needs votes and that ``user`` has not labelled; None when none is left."""
        with self._lock:
            labels = self._labels()
            mine = {label.item for label in labels if label.labeller == user}
            scores: dict = {}
            for label in labels:
                answer = self.view.answers.get(label.item)
                if answer is not None and answer.response_sha256 == label.response_sha256:
                    scores.setdefault(label.item, []).append(score_of_choice(label.choice, answer.gold))
            for answer in self.view.sample():
                if answer.item not in mine and not ready(scores.get(answer.item, []), self.policy.votes):
                    return answer
        return None

    def give(self, user: str, item: tuple[str, str, str], response_sha256: str, choice: str,
             note: Optional[str] = None) -> Label:
        """Take ``user``'s label of ``item``, checked (refused in one line, nothing kept); pending until its batch lands."""
        if choice not in CHOICES:
            raise LabelsRefused(f"label: {str(choice)[:40]!r} is not one of the suite's words: {', '.join(CHOICES)}",
                                param="choice")
        sid, suite, item_id = item
        try:
            label = Label(submission_id=sid, suite=suite, item_id=item_id, response_sha256=response_sha256,
                          labeller=user, choice=choice, note=(note or "").strip() or None, when=now_iso(),
                          source=SPACE_SOURCE)
        except ValidationError as exc:
            e = exc.errors()[0]
            raise LabelsRefused(f"{e['loc'][0] if e['loc'] else 'label'}: {e['msg']}", param="label") from None
        with self._lock:
            r = Round(self.ref, self.view, self.store, LabelsSnapshot(self.snapshot.salt, self._labels()))
            refuse(check_labels(r, [("label", label)], {}), "label")
            with open(self.spool, "a", encoding="utf-8") as fh:
                fh.write(label.model_dump_json() + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            self.statuses.append(Status(label, "pending"))
        return label

    def judges_said(self, item: tuple[str, str, str]) -> dict[str, str]:
        """judge id -> the label each judge of the board gave the answer ``item`` (shown only after a person chose)."""
        import pyarrow.parquet as pq

        from toolkit.core.dataset_layout import manifest_file
        from toolkit.data.reading import read_manifest_files

        sid, suite, item_id = item
        path = self.root / manifest_file(sid)
        out: dict[str, str] = {}
        for m in read_manifest_files([(path, str(path))]) if path.is_file() else []:
            for f in m.record_files:
                if f.suite == suite and f.judge_id and f.judge_id != self.view.people_judge:
                    rows = pq.read_table(self.root / f.path, columns=["item_id", "label", "judge_status"]).to_pylist()
                    row = next((r for r in rows if r["item_id"] == item_id), None)
                    if row is not None:
                        out[f.judge_id] = row["label"] or row["judge_status"]
        return out

    def statuses_of(self, user: str) -> list[Status]:
        with self._lock:
            return [s for s in self.statuses if s.label.labeller == user]

    # ---- batches -------------------------------------------------------------------------------------------------
    def _read_spool(self) -> None:
        if not self.spool.is_file():
            return
        for n, line in enumerate(self.spool.read_text(encoding="utf-8").splitlines(), 1):
            try:
                self.statuses.append(Status(Label.model_validate_json(line), "pending"))
            except ValidationError:
                # reported, not dropped: the line stays in the spool's lost file for the maintainer
                with open(self.spool.with_suffix(".lost"), "a", encoding="utf-8") as fh:
                    fh.write(line + "\n")
        committed = {s.label for s in self.statuses} & set(self.snapshot.labels)
        for s in self.statuses:  # a batch that landed just before the Space stopped
            if s.label in committed:
                s.state = "saved"

    def flush(self) -> int:
        """Commit every pending label as one batch; the number saved (0: nothing pending, or the commit failed: the
        labels stay pending and say why)."""
        with self._lock:
            batch = [s for s in self.statuses if s.state == "pending"]
        if not batch:
            return 0
        try:
            self.store.add([s.label for s in batch], f"Labels from the Space ({len(batch)})")
        except SlmboardError as exc:
            with self._lock:
                for s in batch:
                    s.why = f"not saved yet, will be retried: {str(exc).splitlines()[0]}"
            return 0
        with self._lock:
            for s in batch:
                s.state, s.why = "saved", ""
            self.snapshot.labels.extend(s.label for s in batch)
            left = [s.label for s in self.statuses if s.state == "pending"]
            tmp = self.spool.with_suffix(".tmp")
            tmp.write_text("".join(label.model_dump_json() + "\n" for label in left), encoding="utf-8")
            os.replace(tmp, self.spool)
        return len(batch)

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.flush()

    def close(self) -> None:
        """Stop the batch thread after one last batch."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
        self.flush()

    def progress(self) -> dict[str, tuple[int, int]]:
        """suite -> (answers sampled, answers with enough votes), counting saved labels."""
        with self._lock:
            r = Round(self.ref, self.view, self.store, self.snapshot)
            scores, out = r.scores(), {}
            for a in self.view.sample():
                sampled, done = out.get(a.suite, (0, 0))
                out[a.suite] = (sampled + 1, done + ready(list(scores.get(a.item, {}).values()), self.policy.votes))
            return out


__all__ = ["LabelDesk", "Status", "BATCH_SECONDS"]
