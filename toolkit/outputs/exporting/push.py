"""Open one pull request per model repo with its ``.eval_results/slmboard.yaml`` (never a direct commit).

Outcome per model: ``opened`` (new PR), ``already-open`` (an open PR of ours with the same title:
nothing is opened twice), ``refused`` (401/403: no right to open a PR, discussions disabled),
``missing`` (404: no such model repo, or a private one), ``error`` (anything else), ``skipped`` (a
model id without an organisation has no Hub page). Tokens never appear in a message.
"""
from __future__ import annotations

from pathlib import Path

from toolkit.outputs.exporting.components import EvalResultsOptions
from .eval_results import RESULTS_PATH, EvalResultsExport, PushOutcome, export_eval_results


def pr_title(dataset_id: str) -> str:
    return f"Add slmboard safety results ({dataset_id})"


def export_and_push(data: str | Path, out: str | Path, options: EvalResultsOptions | None = None) -> EvalResultsExport:
    """``export eval-results``: write the files, then (``options.push``) open one pull request per model repo."""
    options = options or EvalResultsOptions()
    result = export_eval_results(data, out, dataset_id=options.dataset_id, primary_judges=options.primary_judges or None)
    if options.push:
        result.pushed = push_eval_results(result)
    return result


def push_eval_results(export: EvalResultsExport) -> list[PushOutcome]:
    from toolkit.core.hub_access import hub_api

    api = hub_api()
    return [push_one(api, model_id, (export.out / rel).read_bytes(), export.dataset_id)
            for model_id, rel in sorted(export.files.items())]


def push_one(api, model_id: str, content: bytes, dataset_id: str) -> PushOutcome:
    from huggingface_hub import CommitOperationAdd
    from huggingface_hub.errors import HfHubHTTPError, RepositoryNotFoundError

    from toolkit.outputs.publishing.hub import _token, scrub

    if "/" not in model_id:
        return PushOutcome(model_id, "skipped", message="not a Hub model id (no organisation)")
    title = pr_title(dataset_id)
    try:
        for pr in api.get_repo_discussions(model_id, repo_type="model", discussion_type="pull_request",
                                           discussion_status="open"):
            if pr.title == title:
                return PushOutcome(model_id, "already-open", pr.url)
        info = api.create_commit(
            model_id, [CommitOperationAdd(RESULTS_PATH, content)], commit_message=title, repo_type="model",
            commit_description=(f"Safety scores of this model on the suites of the slmboard leaderboard "
                                f"https://huggingface.co/datasets/{dataset_id} (S_adj under each suite's primary judge; "
                                "see the notes of each entry). Opened by `slmboard export eval-results --push`."),
            create_pr=True)
        return PushOutcome(model_id, "opened", info.pr_url)
    except RepositoryNotFoundError:
        return PushOutcome(model_id, "missing", message="no such model repo (or it is private)")
    except HfHubHTTPError as exc:
        status = getattr(getattr(exc, "response", None), "status_code", None)
        text = scrub(str(exc).splitlines()[0] if str(exc) else type(exc).__name__, _token())
        return PushOutcome(model_id, "refused" if status in (401, 403) else "error", message=f"HTTP {status}: {text}")
    except Exception as exc:  # no network: the next model would fail the same way, so stop with one line
        from toolkit.core.hub_access import translate

        error = translate(exc, model_id, "model", write=True)
        if error is None:
            raise
        raise error from None


__all__ = ["push_eval_results", "push_one", "pr_title"]
