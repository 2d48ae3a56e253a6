"""People label the board's own answers: the labels dataset beside a board, offline rounds, progress and the board's
people judge (``slmboard labels``; the Space's Label tab writes through the same checks)."""
from .publish import Published, publish_labels
from .rounds import Imported, InitResult, Progress, export_csv, import_csv, init_labels, progress

__all__ = ["Published", "publish_labels", "Imported", "InitResult", "Progress", "export_csv", "import_csv",
           "init_labels", "progress"]
