"""Whether the board a submission goes to exists: boards are made by ``slmboard create``
(:mod:`.create`), never by a submission, so a mistyped name never becomes a new folder or Hub dataset."""
from __future__ import annotations

from toolkit.core.errors import BoardMissing


def board_exists(dataset) -> bool:
    """Whether the dataset ``submit`` writes to is there (a local git folder, a Hub dataset repo); reads only."""
    from .hub import parse_target
    from .local_folder import LocalFolderHub

    ref = parse_target(dataset)
    if not ref.is_hub:
        return LocalFolderHub(ref.path).exists()
    from toolkit.core.hub_access import hub_api, hub_call

    with hub_call(ref.repo_id, revision=ref.revision):
        return hub_api().repo_exists(ref.repo_id, repo_type="dataset")


def missing_board(dataset) -> BoardMissing:
    from .hub import parse_target

    ref = parse_target(dataset)
    return BoardMissing(f"{ref.url}: no such dataset; create the board first with `slmboard create {ref.written}` "
                        "(boards are created on purpose: a mistyped name never becomes a new dataset)")


def refuse_missing_board(to) -> None:
    """A dataset is created on purpose (`slmboard create`): submit (and evaluate, before it generates) refuses one
    that does not exist, so a mistyped name never becomes a new folder or Hub dataset."""
    if not board_exists(to):
        raise missing_board(to)
