"""Evaluation requests of a board: ask for one (``request_evaluation``), work them (``work_requests``, the
board's worker) and list them (``list_requests``)."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from toolkit.core.services import Services, services_or_default

if TYPE_CHECKING:
    from toolkit.outputs.requests import EvalRequest, Filed
    from toolkit.workflows.requests import Outcome
    from toolkit.workflows.requests.options import WorkRequestsOptions

__all__ = ["request_evaluation", "work_requests", "list_requests"]


def request_evaluation(model: str, to: str, who: str | None = None, services: Services | None = None) -> Filed:
    """Ask the board ``to`` (a Hub dataset made by ``create``) to evaluate ``model`` (``ORG/NAME[@REVISION]``):
    the board's request policy is checked (the model readable and public, safetensors weights within the
    parameter limit, a chat template, no code of its own, not on the board nor already requested, the
    user's daily rate), each refusal a :class:`~toolkit.core.errors.RequestRefused`, nothing written;
    then the request is written to the board's requests dataset, or opened there as a pull request when
    the token may not write. ``who``: the user it is filed for (a Space, for its logged-in user); None: the
    token's account. ``services``: the Hugging Face token of its Hub calls."""
    from toolkit.core.hub_access import hub_token
    from toolkit.outputs.requests import file_request

    with hub_token(services_or_default(services).token):
        return file_request(model, to, who=who)


def work_requests(board: str, options: WorkRequestsOptions | None = None,
                  services: Services | None = None) -> list[Outcome]:
    """(Maintainers) the board's worker: claim a request, evaluate it with the board's recipe (generate → judge →
    submit, on the executor), close it finished or failed. ``options`` (:class:`WorkRequestsOptions`): ``once``
    handles one request (or none waiting) and returns; else every ``poll`` seconds until ``max_requests`` were
    handled (None: forever); ``runs``: where run folders live (storage shared by the workers lets a reclaimed
    request resume). ``services``: the Hugging Face token of its Hub calls and downloads (a fine-grained token that
    may write the board and its requests dataset), progress bars, and where each outcome is said."""
    import time

    from toolkit.core.hub_access import using_token
    from toolkit.workflows.requests import WorkerOptions, work_once
    from toolkit.workflows.requests.options import WorkRequestsOptions

    from .running import evaluate

    o, services = options or WorkRequestsOptions(), services_or_default(services)
    worker = WorkerOptions(evaluate=evaluate, runs=Path(o.runs), executor=o.executor, ray_address=o.ray_address,
                           batch_size=o.batch_size, heartbeat_s=o.heartbeat_s)
    say = services.say
    done: list[Outcome] = []
    with using_token(services.token):
        while True:
            outcome = work_once(board, worker, show_progress=services.progress, say=say)
            if outcome is not None:
                done.append(outcome)
                say(f"{outcome.request.status}: {outcome.request.model}@{outcome.request.commit[:12]}"
                    + (f" -> submission {outcome.request.submission_id}" if outcome.request.submission_id else "")
                    + (f" ({outcome.request.reason})" if outcome.request.reason else ""))
            if o.once or (o.max_requests is not None and len(done) >= o.max_requests):
                return done
            if outcome is None:
                time.sleep(o.poll or 60.0)


def list_requests(board: str, services: Services | None = None) -> list[EvalRequest]:
    """Every evaluation request of ``board`` (pending, running, finished, failed; pull requests included), newest first."""
    from toolkit.core.hub_access import hub_token
    from toolkit.outputs.requests import list_requests as listed

    with hub_token(services_or_default(services).token):
        return listed(board)
