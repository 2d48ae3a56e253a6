"""Evaluation requests: a queue of models to evaluate, in a requests dataset beside the board.

``slmboard request`` and the Space's form file one (:func:`file_request`); ``slmboard requests`` and the
Space's Submit tab list them (:func:`list_requests`); the worker (``toolkit.workflows.requests``) claims
and evaluates them.
"""
from .board import BoardSide, read_board
from .filing import Filed, RequestRefused, file_request
from .record import STATUSES, EvalRequest
from .store import RequestsStore, open_queue


def list_requests(board: str) -> list[EvalRequest]:
    """Every request of ``board`` (pull requests included), newest first."""
    side = read_board(board)
    return sorted(RequestsStore(side.requests_dataset).snapshot().all(), key=lambda r: r.when, reverse=True)


__all__ = ["BoardSide", "read_board", "Filed", "RequestRefused", "file_request", "STATUSES", "EvalRequest",
           "RequestsStore", "open_queue", "list_requests"]
