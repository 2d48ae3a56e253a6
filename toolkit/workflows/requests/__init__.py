"""The worker of a board's evaluation requests (claim, heartbeat, evaluate, close); the queue itself is
:mod:`toolkit.outputs.requests` (re-exported here)."""
from toolkit.outputs.requests import (STATUSES, BoardSide, EvalRequest, Filed, RequestRefused, RequestsStore, file_request,
                                      list_requests, open_queue, read_board)
from .worker import Outcome, WorkerOptions, work_once

__all__ = ["BoardSide", "read_board", "Filed", "RequestRefused", "file_request", "STATUSES", "EvalRequest",
           "RequestsStore", "open_queue", "Outcome", "WorkerOptions", "work_once", "list_requests"]
