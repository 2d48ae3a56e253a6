"""--shard K/N: a deterministic, disjoint, covering partition of the items."""
import pytest

from toolkit.core.errors import SlmboardError
from toolkit.stages.generation import parse_shard, select_shard
from toolkit.stages.suites import load_items


def test_partition_is_disjoint_covering_and_balanced():
    items = load_items("smoke")
    parts = [select_shard(items, (k, 4)) for k in range(4)]
    ids = [i.item_id for p in parts for i in p]
    assert sorted(ids) == sorted(i.item_id for i in items) and len(ids) == len(set(ids))
    assert max(map(len, parts)) - min(map(len, parts)) <= 1
    assert [i.item_id for i in parts[1][:2]] == ["smoke_002", "smoke_006"]  # round robin in file order
    assert select_shard(items, (1, 4)) == parts[1]  # deterministic


def test_partition_is_per_suite():
    items = load_items(["smoke"], limit=3) + [i for i in load_items("smoke", limit=2)]
    assert select_shard(items, None) == items


@pytest.mark.parametrize("text", ["4/4", "1", "a/b", "-1/3", "0/0", "1/2/3"])
def test_bad_shard_is_an_error_saying_the_form(text):
    with pytest.raises(SlmboardError, match="K/N|0..N-1"):
        parse_shard(text)


def test_good_shards():
    assert parse_shard("0/1") == (0, 1) and parse_shard(" 3 / 4 ") == (3, 4) and parse_shard(None) is None
