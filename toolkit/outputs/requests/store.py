"""The requests dataset on the Hub: read every request at one commit, write one conditioned on that commit.

Every write names the commit it read (``parent_commit``): the Hub refuses it (HTTP 412) when anything
landed since, so a claim, a heartbeat or a new request never overwrites a change it did not see; the
caller reads again and decides again. Requests filed as pull requests (by users who may not write) are
read from the open pull requests and count as requests until a worker adopts them onto the main branch.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from toolkit.core.errors import HubCommitConflict, SlmboardError
from toolkit.core.hub_access import hub_api, hub_call
from .record import REQUESTS_DIR, EvalRequest, parse_request


class Moved(Exception):
    """The requests dataset moved since it was read (HTTP 412) or another commit is landing (409)."""


@dataclass
class Snapshot:
    head: str
    requests: dict[str, EvalRequest]  # path -> request on the main branch
    proposed: dict[str, EvalRequest]  # path -> request of an open pull request not yet on main

    def all(self) -> list[EvalRequest]:
        return [*self.requests.values(), *self.proposed.values()]


class RequestsStore:
    def __init__(self, dataset: str):
        self.dataset = dataset

    def exists(self) -> bool:
        with hub_call(self.dataset):
            return hub_api().repo_exists(self.dataset, repo_type="dataset")

    def _read(self, api, revision: str) -> dict[str, EvalRequest]:
        from huggingface_hub import hf_hub_download

        from toolkit.core.hub_access import current_token

        out = {}
        try:
            entries = api.list_repo_tree(self.dataset, repo_type="dataset", path_in_repo=REQUESTS_DIR, recursive=True,
                                         revision=revision)
            paths = sorted(e.path for e in entries if e.path.endswith(".json") and getattr(e, "size", 1) is not None)
        except Exception as exc:  # no requests folder yet: an empty queue
            if getattr(getattr(exc, "response", None), "status_code", None) == 404:
                return {}
            raise
        for path in paths:
            local = hf_hub_download(self.dataset, path, repo_type="dataset", revision=revision, token=current_token())
            with open(local, "rb") as fh:
                out[path] = parse_request(fh.read(), path)
        return out

    def snapshot(self, with_pull_requests: bool = True) -> Snapshot:
        api = hub_api()
        with hub_call(self.dataset):
            head = api.dataset_info(self.dataset, revision="main").sha
            requests = self._read(api, head)
            proposed: dict[str, EvalRequest] = {}
            if with_pull_requests:
                for d in api.get_repo_discussions(self.dataset, repo_type="dataset", discussion_type="pull_request",
                                                  discussion_status="open"):
                    ref = f"refs/pr/{d.num}"
                    for path, request in self._read(api, ref).items():
                        if path not in requests and path not in proposed:
                            proposed[path] = request.model_copy(update={"pull_request": d.num})
        return Snapshot(head, requests, proposed)

    def write(self, requests: list[EvalRequest], parent: str, message: str, create_pr: bool = False) -> str:
        """Commit ``requests`` onto ``parent`` (the head that was read); the new commit (or the pull request's url).
        Raises :class:`Moved` when the dataset moved since ``parent`` was read."""
        from huggingface_hub import CommitOperationAdd

        operations = [CommitOperationAdd(r.path, r.to_bytes()) for r in requests]
        try:
            with hub_call(self.dataset, write=True, pull_request=create_pr):
                info = hub_api().create_commit(self.dataset, operations, commit_message=message, repo_type="dataset",
                                               parent_commit=parent, create_pr=create_pr)
        except HubCommitConflict as exc:
            raise Moved(str(exc)) from None
        return info.pr_url if create_pr else info.oid


    def close_proposal(self, number: int, comment: str) -> None:
        """Close pull request ``number`` (its request now lives on the main branch), saying why."""
        with hub_call(self.dataset, write=True):
            hub_api().change_discussion_status(self.dataset, number, "closed", comment=comment, repo_type="dataset")


def retrying(step, tries: int = 8):
    """Run ``step()`` (read, decide, write) again while the dataset moves under it."""
    for attempt in range(tries):
        try:
            return step()
        except Moved:
            time.sleep(0.2 * (attempt + 1))
    raise SlmboardError("the requests dataset kept changing while this was written; try again")


def open_queue(dataset: str, board: str, private: bool = False) -> str:
    """Create the requests dataset ``dataset`` of ``board`` (``slmboard create`` calls this); its url. An existing
    one is kept as it is."""
    from huggingface_hub import CommitOperationAdd

    api = hub_api()
    with hub_call(dataset, write=True):
        url = str(api.create_repo(dataset, repo_type="dataset", private=private, exist_ok=True))
        files = set(api.list_repo_files(dataset, repo_type="dataset"))
        if "README.md" not in files:
            card = (f"---\nconfigs: []\n---\n# Evaluation requests of {board}\n\nOne JSON file per requested model and "
                    f"commit under `{REQUESTS_DIR}/`, written by `slmboard request` and the board's Space and updated by "
                    f"`slmboard worker` (status, heartbeat, log). Results land on [{board}](../{board}).\n")
            api.create_commit(dataset, [CommitOperationAdd("README.md", card.encode())], repo_type="dataset",
                              commit_message="The requests dataset of " + board)
    return url
