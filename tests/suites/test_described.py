"""The suites that only read a file are described as data (described/<name>.yaml) and read by one class: the
items, their ids and the hashes their records carry are those the per-suite classes made."""
import hashlib
import json

import pytest

from toolkit.stages.suites import SUITES, get_suite, load_items
from toolkit.stages.suites import DescribedSuite, described_suite

#: (items, digest of every item's id, prompt hash, category, gold and metadata) of each suite on the benchmark
#: mirror, as the per-suite Python classes loaded them before the suites became data (commit bbc75c0).
BEFORE = {
    "sst": (100, "18a168b12db964a15f555401a24de8db722bea0b58127a2e80cbf4c6d61a6e74"),
    "harmbench": (400, "9555fa65f2a8383f757fc1430e7e8266ab20ba3dd835a7678fe2d56f0e2c1788"),
    "xstest": (450, "8978a5a070f615a8b19a3d268b241c0d0d938c3cffc984fd676356bde1346da6"),
}
#: what runs record of each suite (``suite_revision``) and where its source is pinned, as before
SOURCES = {
    "sst": ("d7aee9a9422a5a5488f478fd79c2479c891c0f3b", "6d95a1301e0d0f3a3c4cf5392f4afff11ad6e3066f95d23aaa138d44aedf986c"),
    "harmbench": ("8e1604d1171fe8a48d8febecd22f600e462bdcdd", "8d81accedd38eaaf8b760618622bb888417d1fd0c86eba65c427a16f1cbb4afc"),
    "xstest": ("d7bb5bd738c1fcbc36edd83d5e7d1b71a3e2d84d", "11783fb294ed017473ee53c207d71f2161c7672c8d0b037501e78387f801cb5a"),
}


def digest(items) -> str:
    h = hashlib.sha256()
    for i in items:
        h.update(json.dumps([i.suite, i.item_id, hashlib.sha256(i.prompt.encode()).hexdigest(), i.category, i.gold,
                             json.dumps(dict(i.metadata), sort_keys=True)]).encode() + b"\n")
    return h.hexdigest()


@pytest.mark.parametrize("name", sorted(BEFORE))
def test_described_suite_loads_the_items_the_class_loaded(name, mirror):
    items = load_items(name, data_dir=mirror)
    assert (len(items), digest(items)) == BEFORE[name]


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_described_suite_keeps_its_name_order_revision_and_pinned_file(name):
    assert list(SUITES)[:4] == ["smoke", "sst", "harmbench", "xstest"]
    suite = get_suite(name)
    assert isinstance(suite, DescribedSuite) and type(suite).__name__ != "DescribedSuite"
    (source,) = suite.sources()
    assert (suite.revision, source.sha256) == SOURCES[name] and suite.revision in source.url == suite.source


def test_a_description_naming_a_column_it_does_not_declare_is_refused():
    text = (get_suite("sst").spec.model_dump_json())
    broken = json.loads(text)
    broken["item"]["prompt"] = "{prompt}"  # sst's prompt column is prompts_final
    with pytest.raises(ValueError, match=r"demo\.yaml: .*names column 'prompt', which is not in columns"):
        described_suite(json.dumps(broken), "demo.yaml")
    broken["item"]["prompt"] = "{prompts_final|upper}"
    with pytest.raises(ValueError, match="unknown filter 'upper'"):
        described_suite(json.dumps(broken), "demo.yaml")


def test_a_plugin_can_describe_a_csv_suite_as_data(tmp_path):
    """The same YAML read from outside the package: a class of its own, reading a data folder."""
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "rows.csv").write_text("n,text,kind\n1,  Hi there ,A\n2,Bye,\n", encoding="utf-8")
    cls = described_suite(
        "name: mine\nkind: free-text\ndescription: two rows\nsource: https://example.org/{revision}/rows.csv\n"
        "revision: abc\nlicense: MIT\nfile: mine/rows.csv\nsha256: '00000000'\nn_items: 2\ncolumns: [n, text, kind]\n"
        "item:\n  id: 'mine_{n}'\n  prompt: '{text}'\n  category: '{kind|lower}'\n", "mine.yaml")
    items = cls().load(tmp_path)
    assert [(i.item_id, i.prompt, i.category, i.gold) for i in items] == [("mine_1", "  Hi there ", "a", None),
                                                                         ("mine_2", "Bye", None, None)]
    assert cls.source == "https://example.org/abc/rows.csv"
