"""Typed errors. Every message names what is wrong and where (file:row:field when it applies)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from pydantic import ValidationError


class SlmboardError(Exception):
    """Base class: the CLI prints these as one clear message and exits 1 (no traceback).

    ``param`` names the Python parameter(s) at fault (or the ``toolkit.api`` function to call), when there
    are any; the message names them too, never a CLI flag (the CLI adds the flags: ``toolkit.cli.flag_hint``)."""

    param: str | tuple[str, ...] | None = None

    def __init__(self, *args: object, param: str | tuple[str, ...] | None = None):
        super().__init__(*args)
        self.param = param


@dataclass(frozen=True)
class RecordError:
    file: str
    row: int | None  # 1-based row / line number; None for file-level problems
    field: str | None
    message: str

    def __str__(self) -> str:
        where = self.file
        if self.row is not None:
            where += f":{self.row}"
        if self.field:
            where += f":{self.field}"
        return f"{where}: {self.message}"


def pydantic_errors(exc: "ValidationError", file: str, row: int | None) -> list[RecordError]:
    """One RecordError (file, row, field) per problem pydantic found in one record."""
    out = []
    for err in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in err["loc"]) or None
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "unknown field (not in the schema)"
        elif err["type"] == "missing":
            msg = "required field is missing"
        out.append(RecordError(file, row, loc, msg))
    return out


class ValidationFailed(SlmboardError):
    """Records or manifests failed validation; ``errors`` lists every problem found."""

    def __init__(self, errors: Sequence[RecordError], limit: int = 50, *, param: str | tuple[str, ...] | None = None):
        self.errors = list(errors)
        shown = "\n".join(f"  {e}" for e in self.errors[:limit])
        more = f"\n  ... and {len(self.errors) - limit} more" if len(self.errors) > limit else ""
        super().__init__(f"{len(self.errors)} validation error(s):\n{shown}{more}", param=param)


class RecordFileError(SlmboardError):
    """A record file cannot be read at all (missing, empty, not JSONL/parquet)."""


class PublishError(SlmboardError):
    """The dataset could not be updated; it was left as it was before the attempt."""


def closest(name: object, valid: Sequence[str]) -> str | None:
    """The valid name a misspelt ``name`` most likely meant (None: none is close), case ignored."""
    import difflib

    if not isinstance(name, str) or not name.strip():
        return None
    by_lower = {v.lower(): v for v in valid}
    match = difflib.get_close_matches(name.strip().lower(), list(by_lower), n=1, cutoff=0.7)
    return by_lower[match[0]] if match else None


class NothingToCommit(PublishError):
    """The dataset already holds exactly the files a commit would write."""


class UnknownComponent(SlmboardError, LookupError):
    """A name that no registry holds (suite, judge, backend, moderator); the message lists the valid names."""

    def __init__(self, kind: str, name: object, valid: Sequence[str]):
        self.kind, self.name, self.valid = kind, name, list(valid)
        self.suggestion = closest(name, self.valid)
        guess = f" (did you mean {self.suggestion!r}?)" if self.suggestion else ""
        super().__init__(f"unknown {kind} {name!r}{guess}; valid {kind}s: {', '.join(self.valid) or '(none)'}")

    def __str__(self) -> str:
        return str(self.args[0])


class PluginFailed(SlmboardError, LookupError):
    """A component an installed package adds (an entry point) could not be used: the message names the package."""


class RecordFileCorrupt(ValidationFailed):
    """A record file a stage resumes from holds bad rows; each error names the file and line."""

    def __init__(self, errors: Sequence[RecordError]):
        super().__init__(errors)
        self.args = (f"{self.args[0]}\nfix or remove these lines, then re-run the same command to resume",)


class BadOption(SlmboardError, ValueError):
    """An option value a library function cannot use (also a ValueError, for older callers); ``param``
    names the Python parameter at fault."""


class HubAccessError(SlmboardError):
    """A call to the Hugging Face Hub failed: one line naming the repo (and revision) and what to do.
    ``status`` is the HTTP status (None: the Hub was not reached). Made by
    :func:`toolkit.core.hub_access.translate` only; the subclasses below say what happened, so callers
    tell failures apart by type, never by the text of the message."""

    def __init__(self, repo: str, status: int | None, problem: str, advice: str, *, param: str | None = None,
                 revision: str | None = None):
        self.repo, self.status, self.problem, self.advice, self.revision = repo, status, problem, advice, revision
        super().__init__(f"{problem}; {advice}", param=param)

    def __reduce__(self):  # picklable (a Ray task's error travels to the driver) with its message as it is now
        return type(self), (self.repo, self.status, self.problem, self.advice), {
            "param": self.param, "args": self.args, "revision": self.revision}


class HubRepoNotFound(HubAccessError):
    """The repository does not exist (or is private and the token cannot see it)."""


class HubRevisionNotFound(HubAccessError):
    """The repository exists; the branch, tag, commit or pull request named after ``@`` does not."""


class HubGated(HubAccessError):
    """The repository is gated and this account has not been granted access."""


class HubNoWriteAccess(HubAccessError):
    """The token may read the repository but not write to it (or open a pull request on it)."""


class HubUnreachable(HubAccessError):
    """Nothing reached the Hub: no network, a host name that does not resolve, a closed port, offline mode."""


class HubXetUploadFailed(HubAccessError):
    """The Hub answered, but uploading the files to its Xet storage failed (the storage host unreachable, a
    proxy in between, a refused write token); classic LFS uploads (HF_HUB_DISABLE_XET=1) avoid that path."""


class HubCommitConflict(HubAccessError):
    """Another commit landed on the branch in between (HTTP 409/412): read the new head and try again."""


class HubRateLimited(HubAccessError):
    """The Hub answered HTTP 429."""


# Errors of the stages and outputs (defined here so that every error class has one home).

class JudgeConfigMismatch(SlmboardError):
    """A run's judgments were made with other request settings than the command asks for."""


class EmbeddingModelError(RuntimeError):
    """The off-topic rule's embedding model could not be loaded or run."""


class ArtifactError(SlmboardError):
    """The learned judge's weights are missing, altered or do not fit this version of the features."""


class NothingToJudge(SlmboardError):
    """The run folder holds no responses (for the asked suites), or none of a kind the judge can judge."""


class SuiteDataError(SlmboardError, ValueError):
    """A suite's data is missing, unreachable or malformed."""


class ExecutorError(SlmboardError):
    """A job could not run to its end on the executor (its worker kept dying, the cluster is unreachable)."""


class ImportFailed(ValidationFailed):
    """The source cannot be imported; every error names the source file, row and field."""


class ImportRefused(SlmboardError):
    """The source is readable but importing it would be wrong (differs from the run, unmatched rows...)."""


class StorageNotShared(SlmboardError):
    """A job's node cannot see the run folder the driver wrote."""


class ExportError(SlmboardError):
    """An export that cannot be written (bad input, missing dataset id, ...); nothing was written."""


class BoardRecipeRefused(SlmboardError):
    """A submission that the board's recipe (board.yaml) does not allow; the message names each rule it breaks."""


class BoardMissing(SlmboardError):
    """``submit`` / ``evaluate`` to a dataset that does not exist: boards are made by ``slmboard create``."""


class BoardExists(SlmboardError):
    """``create`` on a dataset that is already a board with another (or no) recipe."""


class ReleaseRefused(SlmboardError):
    """``release`` of a name the board already has, or of a Hub board while pull requests are open."""


class AlreadyPublished(SlmboardError):
    """The dataset already holds this submission id (or one of its per-item files)."""


class LabelsRefused(SlmboardError):
    """People's labels refused (an item the board does not hold, a second label of one person on one item, a word
    outside the suite's, a labeller off the allow-list or over the daily cap, a long note, a bad CSV name, no write
    access), or a labels command on a board without a labelling policy; nothing was written."""


class UpdateRefused(SlmboardError):
    """``submit --update`` would change what the dataset already publishes, or add nothing."""


class AnalysisError(SlmboardError):
    """The analysis could not run on this data."""


class PortInUse(SlmboardError):
    """The port asked for is taken: said before the server starts (Gradio's own error is a traceback that
    points at its environment variable)."""


class NotARun(SlmboardError):
    """A folder without run.json where a run folder is expected."""


class RunMismatch(SlmboardError):
    """A run folder holds another model, decoding config or shard than the command asks for."""


class ApiKeyMissing(SlmboardError):
    """No API key in the environment variable the component was told to read."""


class RequestRefused(SlmboardError):
    """An evaluation request the board's policy does not take (the message says why, in one line)."""


class UnknownFields(SlmboardError, ValueError):
    """A row to write has keys its record schema does not define."""
