"""Every call to the Hugging Face Hub: the token it carries, and what a failure of it tells the user.

The token: a command's ``--token`` (an API function's ``token=``) is set for the duration of the call
with :func:`hub_token`; every Hub call below reads it with :func:`current_token` (``hub_api()`` for an
``HfApi``, ``token=current_token()`` for the download functions). ``None`` passes huggingface_hub's
own resolution through unchanged (HF_TOKEN, then the token saved by ``hf auth login``). A context
variable rather than a parameter on every reader, because the readers sit several layers below the
commands; ``serve`` sets a process default instead, because the Space reads in server threads.

A failure: :func:`hub_call` turns whatever huggingface_hub / httpx raise (no network, 401, 403, 404,
409/412, 429, 5xx) into one :class:`~toolkit.core.errors.HubAccessError` naming the repo and what to do.
The token never appears in a message (messages are scrubbed of it).
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

from toolkit.core.errors import (HubAccessError, HubCommitConflict, HubGated, HubNoWriteAccess, HubRateLimited, HubRepoNotFound,
                                 HubRevisionNotFound, HubUnreachable, HubXetUploadFailed, SlmboardError)

_TOKEN: ContextVar[str | None] = ContextVar("slmboard_hub_token", default=None)
_process_token: str | None = None  # serve: the Space's server threads do not see the caller's context


@contextmanager
def hub_token(token: str | None) -> Iterator[None]:
    """Hub calls inside this block carry ``token`` (None: huggingface_hub's own resolution)."""
    if token is None:
        yield
        return
    reset = _TOKEN.set(token)
    try:
        yield
    finally:
        _TOKEN.reset(reset)


@contextmanager
def downloads_token(token: str | None) -> Iterator[None]:
    """A command's ``--token`` as HF_TOKEN while it runs: model and benchmark downloads (transformers, lm-eval,
    datasets) and the processes the command starts resolve it as huggingface_hub does; restored after, so
    an in-process caller's environment is left as it was. (Ray workers keep their own login.)"""
    if not token:
        yield
        return
    saved = os.environ.get("HF_TOKEN")
    os.environ["HF_TOKEN"] = token
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("HF_TOKEN", None)
        else:
            os.environ["HF_TOKEN"] = saved


@contextmanager
def using_token(token: str | None) -> Iterator[None]:
    """An API function's ``token=``: for its Hub calls (:func:`hub_token`) and the downloads of the libraries
    it runs (:func:`downloads_token`)."""
    with hub_token(token), downloads_token(token):
        yield


def set_process_token(token: str | None) -> None:
    """The token of every Hub call of this process that runs outside a :func:`hub_token` block (serve)."""
    global _process_token
    _process_token = token


def current_token() -> str | None:
    return _TOKEN.get() or _process_token


def hub_api():
    from huggingface_hub import HfApi

    return HfApi(token=current_token())


def endpoint() -> str:
    from huggingface_hub import constants

    return constants.ENDPOINT.rstrip("/")


def repo_url(repo: str, kind: str = "dataset") -> str:
    return f"{endpoint()}/{'' if kind == 'model' else kind + 's/'}{repo}"


def _offline() -> bool:
    import os

    from huggingface_hub import constants

    return bool(constants.HF_HUB_OFFLINE) or os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on")


def _status(exc: BaseException) -> int | None:
    response = getattr(exc, "response", None)
    return getattr(response, "status_code", None)


def _transport_errors() -> tuple[type[BaseException], ...]:
    """The HTTP clients' "nothing came back" errors: httpx's, and httpx2's (huggingface_hub >= 2 talks
    through httpx2, whose errors are not httpx's classes)."""
    import socket

    from huggingface_hub.errors import LocalEntryNotFoundError, OfflineModeIsEnabled

    found: list[type[BaseException]] = [OfflineModeIsEnabled, LocalEntryNotFoundError, ConnectionError, TimeoutError,
                                        socket.gaierror]  # gaierror: a host name that does not resolve (no DNS)
    for client in ("httpx", "httpx2"):
        try:
            found.append(__import__(client).TransportError)
        except (ImportError, AttributeError):
            pass
    return tuple(found)


def _is_connection_failure(exc: BaseException) -> bool:
    """No network, a host that does not resolve, a closed port, a timeout, offline mode: nothing reached the Hub
    (or nothing came back)."""
    transport = _transport_errors()
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:  # the download functions wrap the connection error
        seen.add(id(exc))
        if isinstance(exc, transport):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def translate(exc: BaseException, repo: str, kind: str = "dataset", write: bool = False,
              revision: str | None = None, pull_request: bool = False) -> HubAccessError | None:
    """The one-line error of a Hub failure on ``repo`` (a ``kind`` repo), or None when ``exc`` is no Hub failure.
    ``write``: the call writes (a commit, settings); ``pull_request``: it opens a pull request."""
    from huggingface_hub.errors import (GatedRepoError, HfHubHTTPError, HFValidationError, RepositoryNotFoundError,
                                        RevisionNotFoundError)

    what = f"{kind} {repo}" + (f"@{revision}" if revision else "")
    if _in_xet_upload(exc):  # before the connection check: hf_xet reports every failure as a ConnectionError
        return HubXetUploadFailed(repo, _status(exc), f"{what}: the Hub answered, but uploading the files to its Xet "
                                  f"storage failed ({_xet_reason(exc)})", "try again; if it keeps failing, upload "
                                  "through classic LFS instead: set HF_HUB_DISABLE_XET=1", revision=revision)
    if _is_connection_failure(exc) and not isinstance(exc, HfHubHTTPError):
        if _offline() and write:  # nothing to download: creating or writing a Hub dataset needs the Hub itself
            return HubUnreachable(repo, None, f"{what}: HF_HUB_OFFLINE is set, and writing a Hub dataset needs the Hub",
                                  "unset HF_HUB_OFFLINE; or keep the board in a local folder, which needs no Hub "
                                  "(`slmboard create ./my-board`, then submit to ./my-board)", revision=revision)
        if _offline():
            return HubUnreachable(repo, None, f"{what}: HF_HUB_OFFLINE is set and it is not in the local cache",
                                  "unset HF_HUB_OFFLINE to download it", revision=revision)
        return HubUnreachable(repo, None, f"{what}: cannot reach the Hub at {endpoint()}",
                              "check the network connection (and HF_ENDPOINT), then try again", revision=revision)
    if isinstance(exc, HFValidationError):  # e.g. a path where an id belongs: it never reached the Hub
        return HubAccessError(repo, None, f"{what}: not a Hub repo id", "write it as ORG/NAME", revision=revision)
    if not isinstance(exc, HfHubHTTPError):
        return None
    status = _status(exc)
    if isinstance(exc, RevisionNotFoundError):
        return HubRevisionNotFound(repo, status, f"{what}: revision not found", "check the branch, tag, commit or refs/pr/N",
                                   revision=revision)
    if isinstance(exc, GatedRepoError) or (status == 403 and "gated" in str(exc).lower()):
        return HubGated(repo, status, f"{what} is gated and this account has not been granted access",
                        f"accept the conditions on {repo_url(repo, kind)}, then try again", revision=revision)
    if isinstance(exc, RepositoryNotFoundError) and status == 401:  # the Hub's answer to an anonymous private read
        return HubRepoNotFound(repo, status, f"{what}: not found on the Hub, or private and this request carried no token "
                               "that can see it (HTTP 401)", "check the name ORG/NAME; if it is private, run "
                               "`hf auth login` or pass a token", param="token", revision=revision)
    if isinstance(exc, RepositoryNotFoundError) or status == 404:
        return not_found(repo, kind, status, revision)
    if status == 401:
        return HubAccessError(repo, status, f"{what}: the Hub refused the request (HTTP 401: not logged in or the token is invalid)",
                              "run `hf auth login` or pass a token", param="token")
    if status == 403:
        said = _server_message(exc)
        if pull_request:
            return HubNoWriteAccess(repo, status, f"{what}: the Hub refused the pull request (HTTP 403{said})",
                                    "ask its owner to open pull requests (discussions) or for write access",
                                    revision=revision)
        if write and kind == "dataset":
            return HubNoWriteAccess(repo, status, f"{what}: this token may not write to it (HTTP 403)",
                                    "ask its owner for write access, or submit it as a pull request", param="create_pr",
                                    revision=revision)
        kind_of = HubNoWriteAccess if write else HubAccessError
        return kind_of(repo, status, f"{what}: this token has no {'write' if write else 'read'} access to it (HTTP 403)",
                       f"ask its owner for {'write ' if write else ''}access, or use a token of an account that has it",
                       revision=revision)
    if status in (409, 412):
        return HubCommitConflict(repo, status, f"{what}: other commits kept landing at the same time (HTTP {status})",
                              "try again", revision=revision)
    if status == 429:
        return HubRateLimited(repo, status, f"{what}: rate limited by the Hub (HTTP 429)", "wait a few minutes and retry",
                              revision=revision)
    from toolkit.core.secrets import scrub_secrets

    first = scrub_secrets(str(exc).splitlines()[0] if str(exc) else type(exc).__name__, [current_token()])
    advice = "try again later" if status and status >= 500 else "see the Hub's message"
    return HubAccessError(repo, status, f"{what}: the Hub answered HTTP {status}: {first}", advice, revision=revision)


def _in_xet_upload(exc: BaseException) -> bool:
    """``exc`` came out of huggingface_hub's Xet upload (hf_xet's errors carry no type of their own; the frame
    they leave Python from is the upload function)."""
    import traceback

    return any(frame.name == "_upload_xet_files" for frame in traceback.extract_tb(exc.__traceback__))


def _xet_reason(exc: BaseException) -> str:
    """hf_xet's first line, shortened to what failed and where (its URLs carry object hashes), scrubbed of tokens."""
    import re

    from toolkit.core.secrets import scrub_secrets

    text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    text = re.sub(r"(?:domain: |for url )?\(?(https?://[^/\s)]+)[^\s)]*\)?", r"at \1", text)  # a URL: its host only
    return scrub_secrets(text[:200], [current_token()])


def _server_message(exc: BaseException) -> str:
    """': <the Hub's own reason>' when it gave one (e.g. discussions disabled), scrubbed of tokens."""
    from toolkit.core.secrets import scrub_secrets

    text = (getattr(exc, "server_message", None) or "").strip().splitlines()
    return f": {scrub_secrets(text[0], [current_token()])}" if text else ""


def not_found(repo: str, kind: str = "dataset", status: int | None = 404, revision: str | None = None) -> HubRepoNotFound:
    """The repo is not there (or not visible with this token)."""
    return HubRepoNotFound(repo, status, f"{kind} {repo}: not found on the Hub (HTTP {status})",
                           "check the name ORG/NAME; a private repo also reads as not found without a token that can see it",
                           revision=revision)


@contextmanager
def hub_call(repo: str, kind: str = "dataset", write: bool = False, revision: str | None = None,
             pull_request: bool = False) -> Iterator[None]:
    """Hub failures inside this block become one :class:`HubAccessError` about ``repo``."""
    try:
        yield
    except SlmboardError:
        raise
    except Exception as exc:  # huggingface_hub raises many types; translate() knows the Hub's
        error = translate(exc, repo, kind, write, revision, pull_request)
        if error is None:
            raise
        raise error from None
