"""``slmboard create DATASET``: a new board, on purpose: its recipe (``board.yaml``) and its dataset card, one commit.

A local folder becomes a git repository (as ``submit`` makes one); a Hub id becomes a dataset repo, gated
before anything else lands unless the recipe says ``gated: false``. Creating a board that exists is refused,
unless its board.yaml already holds exactly this recipe (then nothing changes and the result says so).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from toolkit.core.board_recipe import BoardRecipe, read_recipe
from toolkit.core.dataset_layout import BOARD_FILE, is_dataset
from toolkit.core.errors import BoardExists, NothingToCommit
from toolkit.core.records_io import atomic_write_text
from toolkit.data.scoring.bootstrap import N_BOOTSTRAP
from .card import CardChoices


@dataclass
class CreateResult:
    dataset: str  # a folder, or hf://datasets/ORG/NAME
    revision: str | None
    created: bool  # False: the board already held exactly this recipe
    recipe: BoardRecipe
    requests_dataset: str | None = None  # where evaluation requests go (a Hub board that takes them)
    labels_dataset: str | None = None  # where people's labels go (create --labels)


def create_board(dataset: str | Path, recipe: BoardRecipe, private: bool = False) -> CreateResult:
    from .hub import HubPublisher, parse_target
    from .local_folder import LocalFolderHub
    from .submit import rebuild_shared_files

    from .recipe import resolve_names

    ref = parse_target(dataset, param=None)
    shown = ref.url
    recipe = resolve_names(recipe)  # before anything is written: a typo never becomes a dead board

    def write(root: Path) -> list[str]:
        existing = read_recipe(root)
        if existing == recipe:
            raise NothingToCommit("the board already holds this recipe")
        if existing is not None:
            raise BoardExists(f"{shown} is already a board with another recipe ({BOARD_FILE}); change its {BOARD_FILE} "
                              "by a commit of its own, or create another dataset")
        if existing is None and is_dataset(root):
            raise BoardExists(f"{shown} is already a board (published before board.yaml existed); it takes submissions "
                              "as it is")
        atomic_write_text(root / BOARD_FILE, recipe.to_yaml())
        choices = CardChoices(gated=recipe.gated, primary_judge_overrides=dict(recipe.primary_judges or {}))
        rebuild_shared_files(root, n_bootstrap=N_BOOTSTRAP, repo_id=ref.repo_id, choices=choices)
        return [BOARD_FILE]

    message = "Create the board (board.yaml, dataset card)"
    try:
        if ref.is_hub:
            hub = HubPublisher(ref.repo_id, private=private, gate_new_repo=recipe.gated, revision=ref.revision or "main")
            hub.check_branch() if ref.revision else None
            return CreateResult(shown, hub.commit(message, write).revision, True, recipe)
        local = LocalFolderHub(ref.path)
        return CreateResult(shown, local.commit(message, write).revision, True, recipe)
    except NothingToCommit:  # board.yaml, card and the rest are exactly what this recipe makes
        return CreateResult(shown, None, False, recipe)
