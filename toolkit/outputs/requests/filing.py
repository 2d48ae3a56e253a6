"""Filing a request: every check of the board's policy, then one conditioned commit (or a pull request).

Each check refuses in one line with the reason and nothing is written before all have passed. The
model is read at the commit its revision resolves to, so what was checked is what the worker loads.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from toolkit.core.errors import HubNoWriteAccess, RequestRefused, SlmboardError
from toolkit.core.hub_access import current_token, hub_api, hub_call
from toolkit.core.request_policy import HUB_ID, RequestPolicy
from .board import BoardSide, on_board, read_board
from .record import OPEN, EvalRequest, age_s, now, request_path
from .store import Moved, RequestsStore, Snapshot, retrying

#: Weight files transformers would unpickle: a requested model is loaded from safetensors only.
PICKLED_WEIGHTS = (".bin", ".pt", ".pth", ".ckpt", ".pkl")


@dataclass
class Filed:
    request: EvalRequest
    dataset: str
    pull_request_url: str | None  # set when the filer may not write: the request is a pull request


def parse_model_ref(text: str) -> tuple[str, str]:
    """MODEL[@REVISION] -> (model, revision)."""
    model, _, revision = str(text).strip().partition("@")
    if not HUB_ID.match(model):
        raise RequestRefused(f"{text!r}: not a Hub model id (ORG/NAME[@REVISION])", param="model")
    return model, revision or "main"


def _json_file(model: str, commit: str, name: str, files: set[str]) -> dict:
    from huggingface_hub import hf_hub_download

    if name not in files:
        return {}
    with open(hf_hub_download(model, name, revision=commit, token=current_token()), encoding="utf-8") as fh:
        try:
            return json.load(fh)
        except json.JSONDecodeError:
            raise RequestRefused(f"{model}@{commit[:12]}: {name} is not valid JSON") from None


def check_model(model: str, revision: str, policy: RequestPolicy) -> tuple[str, int]:
    """(the commit ``revision`` resolves to, the parameter count) of a model the policy takes; else refused."""
    api = hub_api()
    what = f"{model}@{revision}" if revision != "main" else model
    with hub_call(model, kind="model", revision=None if revision == "main" else revision):
        info = api.model_info(model, revision=revision)
    if info.private:
        raise RequestRefused(f"{what}: private; the board evaluates public models only")
    if info.gated:
        raise RequestRefused(f"{what}: gated; the board's worker cannot read it and would publish what its conditions guard")
    commit = info.sha
    files = {s.rfilename for s in info.siblings or []}
    if not any(f.endswith(".safetensors") for f in files):
        raise RequestRefused(f"{what}: no safetensors weights; the board loads safetensors only")
    with hub_call(model, kind="model", revision=commit):
        config = _json_file(model, commit, "config.json", files)
        tokenizer_config = _json_file(model, commit, "tokenizer_config.json", files)
        if "auto_map" in config or "auto_map" in tokenizer_config:
            raise RequestRefused(f"{what}: needs its own code (auto_map in "
                                 f"{'config.json' if 'auto_map' in config else 'tokenizer_config.json'}); "
                                 "the board never runs a requested model's code")
        params = sum(api.get_safetensors_metadata(model, revision=commit).parameter_count.values())
    if params > policy.max_params:
        raise RequestRefused(f"{what}: {params:,} parameters; this board takes at most {policy.max_params:,}")
    if policy.chat_template_required and "chat_template.jinja" not in files and not tokenizer_config.get("chat_template"):
        raise RequestRefused(f"{what}: no chat template (tokenizer_config.json chat_template or chat_template.jinja); "
                             "this board evaluates chat models")
    if policy.licenses is not None:
        licence = _card_licence(model, commit, files)
        if licence not in policy.licenses:
            raise RequestRefused(f"{what}: licence {licence or 'not declared'}; this board takes "
                                 f"{', '.join(policy.licenses)}")
    return commit, params


def _card_licence(model: str, commit: str, files: set[str]) -> str | None:
    from huggingface_hub import ModelCard

    if "README.md" not in files:
        return None
    with hub_call(model, kind="model", revision=commit):
        card = ModelCard.load(model, token=current_token(), repo_type="model") if commit else None
    return (card.data.to_dict().get("license") if card else None) or None


def queue_refusal(snapshot: Snapshot, model: str, commit: str, who: str, policy: RequestPolicy) -> str | None:
    path = request_path(model, commit)
    same = snapshot.requests.get(path) or snapshot.proposed.get(path)
    if same is not None and same.status != "failed":
        where = f" (pull request #{same.pull_request})" if same.pull_request else ""
        return f"{model}@{commit[:12]}: already requested{where}, {same.status} (filed by {same.who} at {same.when})"
    recent = [r for r in snapshot.all() if r.who == who and age_s(r.when) < 86400]
    if len(recent) >= policy.per_user_per_day:
        return f"{who} filed {len(recent)} request{'s' if len(recent) != 1 else ''} in the last 24 hours; this board takes {policy.per_user_per_day} a day"
    return None


def _after_failure(request: EvalRequest, failed: EvalRequest | None) -> EvalRequest:
    """A request filed again after it failed: the new one keeps the old one's log (why it failed among it) and
    its attempts, so the history is not lost when the file is overwritten."""
    if failed is None or failed.status != "failed":
        return request
    return request.model_copy(update={"log": [*failed.log, *request.log], "attempts": failed.attempts})


def file_request(model_ref: str, board: str, who: str | None = None) -> Filed:
    """Check ``model_ref`` against ``board``'s policy and write the request (see the module doc). ``who``: the
    user it is filed for (a Space files for its logged-in user); None: the token's own account (whoami)."""
    model, revision = parse_model_ref(model_ref)
    side: BoardSide = read_board(board)
    store = RequestsStore(side.requests_dataset)
    if not store.exists():
        raise SlmboardError(f"board {side.board} takes no requests: {side.requests_dataset} does not exist "
                            f"(made by `slmboard create {side.board}`)")
    commit, params = check_model(model, revision, side.policy)
    held = on_board(side.board, model, commit)
    if held:
        raise RequestRefused(f"{model}@{commit[:12]}: already on the board (submission {held})")
    if who is None:
        with hub_call(side.requests_dataset):
            who = hub_api().whoami()["name"]
    request = EvalRequest(model=model, commit=commit, revision=revision, who=who, when=now(), params=params)
    request = request.noted(f"filed by {who}")

    def attempt() -> Filed:
        snapshot = store.snapshot()
        refusal = queue_refusal(snapshot, model, commit, who, side.policy)
        if refusal:
            raise RequestRefused(refusal)
        message = f"Request {model}@{commit[:12]} (by {who})"
        filed = _after_failure(request, snapshot.requests.get(request_path(model, commit)))
        try:
            store.write([filed], snapshot.head, message)
            return Filed(filed, side.requests_dataset, None)
        except HubNoWriteAccess:
            pass
        url = store.write([filed], snapshot.head, message, create_pr=True)  # may not write: propose it
        return Filed(filed, side.requests_dataset, url)

    return retrying(attempt)


__all__ = ["Filed", "RequestRefused", "file_request", "check_model", "parse_model_ref", "Moved"]
