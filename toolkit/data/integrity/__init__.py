"""What a published board proves it holds (issue 43; part of the data layer, below reading and validation):
:mod:`.revision` reads a local board at a revision (its manifests from git), :mod:`.checked` checks the record
files its manifests name against their sha256, once per board revision."""
from . import checked
from .checked import CheckedFiles, TamperedBoard, check_board, file_sha256
from .revision import BoardRevision, read_local_board

__all__ = ["checked", "CheckedFiles", "TamperedBoard", "check_board", "file_sha256", "BoardRevision", "read_local_board"]
