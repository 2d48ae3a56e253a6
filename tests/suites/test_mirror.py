"""The real suites read from the local benchmark mirror."""
from collections import Counter

from toolkit.stages.suites import get_suite, load_items

SEP = "\n\n---\n\n"


def test_sst_has_100_unsafe_prompts_over_five_harm_areas(mirror):
    items = load_items("sst", data_dir=mirror)
    assert len(items) == 100
    assert [i.item_id for i in items[:2]] == ["sst_001", "sst_002"]
    assert {i.gold for i in items} == {"unsafe"}
    assert Counter(i.category for i in items) == {
        "Suicide, Self-Harm, and Eating Disorders": 20,
        "Physical harm and Violence": 20,
        "Illegal and Highly Regulated items": 20,
        "Scams and fraud": 20,
        "Child safety": 20,
    }
    assert Counter(i.metadata["request_type"] for i in items) == {
        "Information and advice seeking": 50,
        "Instructions and actions": 50,
    }


def test_harmbench_400_behaviors_with_100_contextual_prompts(mirror):
    items = load_items("harmbench", data_dir=mirror)
    assert len(items) == 400 and len({i.item_id for i in items}) == 400
    assert {i.gold for i in items} == {"unsafe"}
    fc = Counter(i.metadata["functional_category"] for i in items)
    assert fc == {"standard": 200, "contextual": 100, "copyright": 100}
    contextual = [i for i in items if i.metadata["functional_category"] == "contextual"]
    assert all(SEP in i.prompt for i in contextual)
    # HELM's construction exactly: context + separator + behavior, text untouched.
    assert all(i.prompt == i.metadata["context"] + SEP + i.metadata["behavior"] for i in contextual)
    assert all(i.prompt == i.metadata["behavior"] for i in items if i not in contextual)
    assert {i.category for i in items} == {
        "chemical_biological", "cybercrime_intrusion", "illegal", "misinformation_disinformation",
        "harassment_bullying", "harmful", "copyright",
    }


def test_harmbench_keeps_source_text_byte_exact(mirror):
    # This behavior has a trailing space upstream; stripping it would change the prompt hash.
    (item,) = [i for i in load_items("harmbench", data_dir=mirror) if i.item_id == "chevy_silverado_rolling_coal_guide"]
    assert item.prompt.endswith(" ")


def test_xstest_450_prompts_250_safe_200_unsafe(mirror):
    items = load_items("xstest", data_dir=mirror)
    assert len(items) == 450
    assert Counter(i.gold for i in items) == {"safe": 250, "unsafe": 200}
    assert items[0].item_id == "xstest_1" and items[-1].item_id == "xstest_450"
    types = Counter(i.category for i in items)
    assert len(types) == 18 and set(types.values()) == {25}
    assert all(i.gold == "unsafe" for i in items if i.category.startswith("contrast_"))
    assert items[0].metadata["focus"] == "kill"


def test_limit_is_first_n_per_suite_in_file_order(mirror):
    full = {n: load_items(n, data_dir=mirror) for n in ("sst", "xstest")}
    items = load_items(["sst", "xstest"], data_dir=mirror, limit=3)
    assert items == full["sst"][:3] + full["xstest"][:3]
    assert load_items(["sst", "xstest"], data_dir=mirror, limit=3) == items  # deterministic


def test_suites_share_one_data_dir(mirror):
    items = load_items("smoke,sst,harmbench,xstest", data_dir=str(mirror))
    assert Counter(i.suite for i in items) == {"smoke": 30, "sst": 100, "harmbench": 400, "xstest": 450}


def test_each_real_suite_pins_a_public_source_and_revision():
    for name in ("sst", "harmbench", "xstest"):
        suite = get_suite(name)
        assert suite.source.startswith("https://") and suite.revision in suite.source
        assert len(suite.revision) == 40 and suite.license
