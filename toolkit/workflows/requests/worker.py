"""The worker: claim one request, keep its heartbeat, evaluate it with the board's recipe, publish, close it.

A claim is a commit conditioned on the commit the worker read: of two workers that read the same
pending request, one commit lands and the other is refused (HTTP 412), reads again and sees it running.
A running request whose heartbeat is older than the policy's ``stale_after_s`` is claimed again; the run
folder of a request is named after the model and commit under the worker's run storage, so a worker that
shares that storage with the lost one resumes from the records already written (the stages are
resumable) and one that does not starts over. Each is said in the request's log.

A requested model is untrusted: it is loaded at its checked commit, from safetensors only, never with its
own code (``trust_remote_code`` false); any failure to load or run it fails that request, and the queue goes on.
"""
from __future__ import annotations

import os
import socket
import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from toolkit.core.errors import SlmboardError
from toolkit.core.hub_access import current_token, hub_api, hub_call, hub_token
from toolkit.outputs.requests.board import BoardSide, read_board
from toolkit.outputs.requests.filing import PICKLED_WEIGHTS
from toolkit.outputs.requests.record import EvalRequest, age_s, now
from toolkit.outputs.requests.store import RequestsStore, Snapshot, retrying

DEFAULT_HEARTBEAT_S = 60.0


@dataclass
class Outcome:
    request: EvalRequest  # as it was closed (finished or failed)
    reclaimed: bool = False


@dataclass
class WorkerOptions:
    #: generate → judge → submit of one run (``toolkit.api.evaluate``: out, to, model, judge, options, services); given by the caller, since
    #: this layer sits below the API
    evaluate: Callable[..., Any] | None = None
    runs: Path = Path("slmboard-worker-runs")
    executor: str = "local"
    ray_address: str | None = None
    batch_size: int | str | None = None
    heartbeat_s: float = DEFAULT_HEARTBEAT_S
    name: str = field(default_factory=lambda: f"{socket.gethostname()[:40]}-{os.getpid()}-{uuid.uuid4().hex[:6]}")


def run_folder(runs: Path, board: str, request: EvalRequest) -> Path:
    """RUNS/<board>/<model>__<commit>: one run per board (each board has its own recipe) and requested commit."""
    org, name = request.model.split("/")
    return Path(runs) / board.replace("/", "__") / f"{org}__{name}__{request.commit[:12]}"


def _records_in(run: Path) -> int:
    responses = run / "responses"
    files = sorted(responses.glob("*.jsonl")) if responses.is_dir() else []
    return sum(1 for f in files for line in f.read_text(encoding="utf-8").splitlines() if line.strip())


def choose(snapshot: Snapshot, stale_after_s: float) -> EvalRequest | None:
    """The next request to claim: a proposed (pull request) or pending one, oldest first; else a stale running one."""
    waiting = [r for r in snapshot.all() if r.status == "pending"]
    stale = [r for r in snapshot.requests.values() if r.status == "running" and age_s(r.heartbeat) > stale_after_s]
    for group in (waiting, stale):
        if group:
            return min(group, key=lambda r: (r.when, r.model))
    return None


def claim(store: RequestsStore, side: BoardSide, options: WorkerOptions,
          say: Callable[[str], None] = lambda line: None) -> tuple[EvalRequest, bool] | None:
    """Claim one request (a commit conditioned on the head read); None when there is nothing to do."""

    def attempt():
        snapshot = store.snapshot()
        chosen = choose(snapshot, side.policy.stale_after_s)
        if chosen is None:
            return None
        run = run_folder(options.runs, side.board, chosen)
        reclaimed = chosen.status == "running"
        if reclaimed:
            n = _records_in(run)
            how = (f"resuming from {n} records in {run}" if n else
                   "starting over (no records of the earlier attempt on this worker's run storage)")
            line = f"reclaimed by {options.name}: heartbeat of {chosen.worker} is {age_s(chosen.heartbeat):.0f} s old; {how}"
        else:
            line = f"claimed by {options.name}" + (f" from pull request #{chosen.pull_request}" if chosen.pull_request else "")
        claimed = chosen.noted(line, status="running", worker=options.name, heartbeat=now(), attempts=chosen.attempts + 1)
        store.write([claimed], snapshot.head, f"Claim {chosen.model}@{chosen.commit[:12]} ({options.name})")
        return claimed, reclaimed

    claimed = retrying(attempt)
    if claimed is not None and claimed[0].pull_request:
        _close_adopted(store, claimed[0], options, say)
    return claimed


def _close_adopted(store: RequestsStore, request: EvalRequest, options: WorkerOptions, say: Callable[[str], None]) -> None:
    """The pull request a claimed request came from is closed: the request lives on main now. Closing is
    tidying (the queue reads main first, so an open one is never claimed twice): a failure is said, not raised."""
    try:
        store.close_proposal(request.pull_request, f"Adopted onto the main branch and claimed by {options.name}; "
                                                   "its progress is in requests/ on main.")
    except SlmboardError as exc:
        say(f"could not close pull request #{request.pull_request} of {request.model}: {str(exc).splitlines()[0]}")


def update(store: RequestsStore, mine: EvalRequest, options: WorkerOptions, change: Callable[[EvalRequest], EvalRequest],
           message: str) -> EvalRequest | None:
    """Apply ``change`` to the request as it is now, if this worker still holds it; None when another took it."""

    def attempt():
        snapshot = store.snapshot(with_pull_requests=False)
        current = snapshot.requests.get(mine.path)
        if current is None or current.status != "running" or current.worker != options.name:
            return None
        new = change(current)
        store.write([new], snapshot.head, message)
        return new

    return retrying(attempt)


class Heartbeat(threading.Thread):
    """Writes the claimed request's heartbeat every ``every_s`` seconds; ``lost`` is set when another worker took it."""

    def __init__(self, store: RequestsStore, mine: EvalRequest, options: WorkerOptions):
        super().__init__(daemon=True, name="slmboard-heartbeat")
        self.store, self.mine, self.options = store, mine, options
        self.stop = threading.Event()
        self.lost = threading.Event()
        self.token = current_token()

    def run(self) -> None:
        while not self.stop.wait(self.options.heartbeat_s):
            try:
                with hub_token(self.token):
                    got = update(self.store, self.mine, self.options, lambda r: r.model_copy(update={"heartbeat": now()}),
                                 f"Heartbeat {self.mine.model}@{self.mine.commit[:12]}")
            except Exception:  # a missed beat is retried at the next; a long outage lets another worker take over
                continue
            if got is None:
                self.lost.set()
                return


def _loadable(request: EvalRequest) -> None:
    """Refuse, before anything is downloaded, a commit whose weights are not safetensors only."""
    with hub_call(request.model, kind="model", revision=request.commit):
        info = hub_api().model_info(request.model, revision=request.commit)
    files = [s.rfilename for s in info.siblings or []]
    pickled = [f for f in files if f.endswith(PICKLED_WEIGHTS)]
    if pickled or not any(f.endswith(".safetensors") for f in files):
        raise SlmboardError(f"weights not in safetensors only ({', '.join(pickled[:3]) or 'no .safetensors file'})")


def judge_spec(name: str) -> str:
    """The judge to run for a board.yaml judge entry: a judge name (``heuristic``) or the id it writes (``heuristic-v1``)."""
    from toolkit.core.judge_names import _VERSIONED
    from toolkit.stages.judging.components import JUDGES

    base = name.split(":", 1)[0]
    if base in JUDGES:
        return name
    versioned = _VERSIONED.match(name)
    if versioned and versioned.group("name") in JUDGES:
        return versioned.group("name")
    raise SlmboardError(f"board.yaml judge {name!r} names no judge this worker can run (judges: {', '.join(JUDGES.names())})")


def evaluate_request(request: EvalRequest, side: BoardSide, options: WorkerOptions, show_progress: bool) -> str:
    """Run the board's recipe on ``request`` and publish it; the submission id."""
    if options.evaluate is None:
        raise SlmboardError("the worker was given no evaluate function (toolkit.api.work_requests gives it)")
    _loadable(request)
    recipe = side.evaluation
    from toolkit.outputs.publishing.options import SubmitOptions
    from toolkit.stages.executors.base import FanoutOptions
    from toolkit.stages.generation.components import BackendSpec, GenerationRunOptions
    from toolkit.workflows.fanout.options import EvaluationOptions
    from toolkit.core.services import Services

    model = BackendSpec.combine(f"hf:{request.model}", {"revision": request.commit, "trust_remote_code": False})
    steps = EvaluationOptions(
        generation=GenerationRunOptions(suites=recipe.suites, limit=recipe.limit, max_new_tokens=recipe.max_new_tokens,
                                        batch_size=options.batch_size),
        submission=SubmitOptions(submitter=request.who, allow_partial=recipe.limit is not None),
        execution=FanoutOptions(executor=options.executor, ray_address=options.ray_address))
    result = options.evaluate(run_folder(options.runs, side.board, request), side.board, model,
                              judge_spec(recipe.judge), steps, Services(token=current_token(), progress=show_progress))
    return result.submission_id


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text and not isinstance(exc, SlmboardError) else (text[0] if text else type(exc).__name__)


def work_once(board: str, options: WorkerOptions, show_progress: bool = False,
              say: Callable[[str], None] = lambda line: None) -> Outcome | None:
    """Claim, evaluate and close one request of ``board``; None when the queue has nothing to do."""
    side = read_board(board)
    store = RequestsStore(side.requests_dataset)
    claimed = claim(store, side, options, say)
    if claimed is None:
        return None
    mine, reclaimed = claimed
    say(mine.log[-1].split(" ", 1)[1] + f": {mine.model}@{mine.commit[:12]}")
    beat = Heartbeat(store, mine, options)
    beat.start()
    try:
        submission = evaluate_request(mine, side, options, show_progress)
        change = lambda r: r.noted(f"finished: submission {submission}", status="finished", submission_id=submission,
                                   heartbeat=now())
        verb = "Finished"
    except Exception as exc:  # a model that fails to load or run fails its request; the queue goes on
        reason = _reason(exc)
        change = lambda r: r.noted(f"failed: {reason}", status="failed", reason=reason, heartbeat=now())
        verb = "Failed"
    finally:
        beat.stop.set()
        beat.join()
    closed = update(store, mine, options, change, f"{verb} {mine.model}@{mine.commit[:12]}")
    if closed is None:  # another worker reclaimed it meanwhile: it closes it (publishing is idempotent)
        raise SlmboardError(f"{mine.model}@{mine.commit[:12]}: another worker took this request over while it ran "
                            "(heartbeats were not landing); it will close it")
    return Outcome(closed, reclaimed)
