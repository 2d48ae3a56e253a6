"""What the queue reads of the board itself: its recipe (``board.yaml``) and which models it already holds."""
from __future__ import annotations

import json
from dataclasses import dataclass

from toolkit.core.dataset_layout import BOARD_FILE
from toolkit.core.errors import SlmboardError
from toolkit.core.hub_access import current_token, hub_api, hub_call
from toolkit.core.request_policy import HUB_ID, EvaluationRecipe, RequestPolicy, recipe_parts


@dataclass
class BoardSide:
    board: str
    policy: RequestPolicy
    evaluation: EvaluationRecipe

    @property
    def requests_dataset(self) -> str:
        return self.policy.requests_dataset(self.board)


def board_id(board: str) -> str:
    """The Hub id of ``board`` (ORG/NAME or hf://datasets/ORG/NAME): the queue lives on the Hub only."""
    rid = str(board).removeprefix("hf://datasets/").strip("/")
    if not HUB_ID.match(rid):
        raise SlmboardError(f"{board}: requests need a board on the Hub (ORG/NAME)", param="board")
    return rid


def read_board(board: str) -> BoardSide:
    """The board's policy and evaluation recipe; refused when the board does not exist."""
    import yaml
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import EntryNotFoundError

    rid = board_id(board)
    api = hub_api()
    with hub_call(rid):
        if not api.repo_exists(rid, repo_type="dataset"):
            raise SlmboardError(f"board {rid}: no such dataset on the Hub; make it with `slmboard create {rid}`")
        try:
            path = hf_hub_download(rid, BOARD_FILE, repo_type="dataset", token=current_token())
            data = yaml.safe_load(open(path, encoding="utf-8").read())
        except EntryNotFoundError:
            data = None  # a board from before `create`: the default policy and evaluation
        except yaml.YAMLError as exc:
            raise SlmboardError(f"{rid}/{BOARD_FILE}: not valid YAML: {str(exc).splitlines()[0]}") from None
    if data is not None:
        from toolkit.core.board_recipe import parse_recipe

        parse_recipe(data, f"{rid}/{BOARD_FILE}")  # the whole recipe checked: a typo never reads as "unconstrained"
    policy, evaluation = recipe_parts(data, f"{rid}/{BOARD_FILE}")
    return BoardSide(rid, policy, evaluation)


def on_board(board: str, model: str, commit: str) -> str | None:
    """The submission id under which ``model`` at ``commit`` is already on ``board``, or None."""
    from huggingface_hub import hf_hub_download

    api = hub_api()
    with hub_call(board):
        files = [f for f in api.list_repo_files(board, repo_type="dataset")
                 if f.startswith("submissions/") and f.endswith(".json")]
        for f in files:
            with open(hf_hub_download(board, f, repo_type="dataset", token=current_token()), encoding="utf-8") as fh:
                manifest = json.load(fh)
            if manifest.get("model_id") == model and manifest.get("model_revision") == commit:
                return manifest.get("submission_id") or f
    return None
