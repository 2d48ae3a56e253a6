"""People's labels of a board's own answers (``slmboard labels``): the policy and the labels dataset, an offline round
(export, then the filled CSV file), its progress, and the board's people judge."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from toolkit.core.services import Services, services_or_default

from ._shared import PathLike

if TYPE_CHECKING:
    from toolkit.core.label_policy import LabelPolicy
    from toolkit.outputs.labelling import Imported, InitResult, Progress, Published
    from toolkit.outputs.labelling.options import LabelsOptions

__all__ = ["labels_init", "labels_export", "labels_from_csv", "labels_progress", "labels_publish"]


def labels_init(board: PathLike, policy: "LabelPolicy | Mapping[str, Any] | None" = None,
                services: Services | None = None) -> "InitResult":
    """Write the labelling policy into the board's recipe (``board.yaml`` ``labels:``, recipe version 2) as a commit of
    its own and make the labels dataset beside the board (``ORG/NAME-labels`` on the Hub, ``<board>-labels/`` beside
    a local board; kept when it exists). ``policy``: the fields given now (:class:`LabelPolicy`); the others keep what
    the recipe holds, else their defaults."""
    from toolkit.core.hub_access import hub_token
    from toolkit.outputs.labelling import init_labels

    fields = policy.model_dump(exclude_unset=True) if hasattr(policy, "model_dump") else dict(policy or {})
    with hub_token(services_or_default(services).token):
        return init_labels(board, fields)


def labels_export(board: PathLike, out: PathLike, services: Services | None = None) -> int:
    """Write the answers of the board's sample that need votes to the CSV file ``out`` (in the suites' own words); the
    number of rows."""
    from toolkit.core.hub_access import hub_token
    from toolkit.outputs.labelling import export_csv

    with hub_token(services_or_default(services).token):
        return export_csv(board, out)


def labels_from_csv(board: PathLike, csv_file: PathLike, services: Services | None = None) -> "Imported":
    """Store the labels of an offline round's filled CSV file (labellers as ``csv:<file hash>/<name>``); every label
    is checked first and nothing is written on any problem (:class:`~toolkit.core.errors.LabelsRefused`)."""
    from toolkit.core.hub_access import hub_token
    from toolkit.outputs.labelling import import_csv

    with hub_token(services_or_default(services).token):
        return import_csv(board, csv_file)


def labels_progress(board: PathLike, services: Services | None = None) -> "Progress":
    """The round's progress per suite, people's agreement (Krippendorff's ordinal alpha) and each labeller's labels
    and the alpha of the others without them."""
    from toolkit.core.hub_access import hub_token
    from toolkit.outputs.labelling import progress

    with hub_token(services_or_default(services).token):
        return progress(board)


def labels_publish(board: PathLike, options: "LabelsOptions | None" = None,
                   services: Services | None = None) -> "Published":
    """Publish the answers with enough votes as the board's people judge ``human-<NAME>-labels`` (one commit; the
    judge is rebuilt whole each time); ``options.exclude`` leaves labellers out."""
    from toolkit.core.hub_access import hub_token
    from toolkit.outputs.labelling import publish_labels
    from toolkit.outputs.labelling.options import LabelsOptions

    o = options or LabelsOptions(publish=True)
    with hub_token(services_or_default(services).token):
        return publish_labels(board, o.exclude or (), o.n_bootstrap)
