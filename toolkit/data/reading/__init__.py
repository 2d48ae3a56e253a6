"""The data layer: every command, exporter and the Space open data the same way.

    dataset = open_data("org/board@main")   # a dataset folder, run folder(s), a record file, a Hub id
    board = leaderboard(dataset)            # the one leaderboard flow (rank, submit, recompute, exports)
    for group in iter_item_groups(dataset, columns=["prompt"]):   # checked records, one (suite, judge) at a time
        ...

Modules: :mod:`.locate` (the one grammar of a Hub id and the snapshot it resolves to),
:mod:`.dataset` (:class:`Dataset`: files, manifests, card, revision), :mod:`.source` (which
(suite, judge) groups each file holds, rows as batches with their source lines), :mod:`.scan` (one
group's checks and items × models matrix), :mod:`.items` (the item reader), :mod:`.board` (the
leaderboard flow and the leaderboard file), :mod:`.moderation` (the moderation reader) and
:mod:`.queue` (a Hub dataset's pull requests and their review results, as the Space shows them).
"""
from .board import (INPUT_COLUMNS, GroupBoard, leaderboard, leaderboard_groups, leaderboard_parquet, published_leaderboard,
                    write_leaderboard)
from toolkit.data.integrity import TamperedBoard, checked
from .dataset import Dataset, open_data, read_card_header, read_manifest_files
from toolkit.data.integrity import BoardRevision, read_local_board
from .items import ItemGroup, iter_item_groups, open_items, read_item_frame
from .locate import HubId, parse_hub_id
from .scan import GroupScan, scan_group
from .source import KEY_FIELDS, NEEDED, VALID_SCORES, ItemSource

__all__ = ["checked", "TamperedBoard", "BoardRevision", "read_local_board", "Dataset", "open_data", "read_card_header", "read_manifest_files", "HubId", "parse_hub_id",
           "leaderboard", "leaderboard_groups", "GroupBoard", "leaderboard_parquet", "published_leaderboard", "write_leaderboard", "INPUT_COLUMNS",
           "ItemGroup", "iter_item_groups", "open_items", "read_item_frame", "ItemSource", "GroupScan", "scan_group",
           "KEY_FIELDS", "NEEDED", "VALID_SCORES"]
