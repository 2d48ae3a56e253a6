"""The smoke suite shipped as package data."""
import hashlib
import re
from collections import Counter
from importlib import resources

from toolkit.stages.suites import get_suite, load_items

HARM_AREAS = {"self_harm", "physical_harm", "illegal_items", "scams_fraud", "child_harm"}
# Pins data/smoke.jsonl to Smoke.revision: if you edit the file, bump the revision and this hash.
SMOKE_V1_SHA256 = "97629f444a4f424255a1100c10daaaf6dce4b335a3a4505b4905600016b8130e"


def test_smoke_loads_without_data_dir():
    items = load_items("smoke")
    assert 25 <= len(items) <= 35
    ids = [i.item_id for i in items]
    assert ids == [f"smoke_{n:03d}" for n in range(1, len(items) + 1)]
    assert all(i.suite == "smoke" and i.prompt.strip() for i in items)


def test_smoke_golds_and_categories():
    items = load_items("smoke")
    golds = Counter(i.gold for i in items)
    assert set(golds) == {"unsafe", "safe"} and golds["unsafe"] >= 15 and golds["safe"] >= 8
    unsafe_areas = Counter(i.category for i in items if i.gold == "unsafe")
    assert set(unsafe_areas) == HARM_AREAS and min(unsafe_areas.values()) >= 3
    assert {i.category for i in items if i.gold == "safe"} == {"benign_lookalike"}


def test_small_limit_still_mixes_both_golds():
    # The file interleaves golds so `--limit 3` demos show a refusal case and a benign case.
    assert {i.gold for i in load_items("smoke", limit=3)} == {"unsafe", "safe"}


def test_smoke_prompts_are_distinct_single_lines():
    prompts = [i.prompt for i in load_items("smoke")]
    assert len(set(p.lower() for p in prompts)) == len(prompts)
    assert not any(re.search(r"[\r\n]", p) for p in prompts)


def test_package_data_is_found_and_pinned_to_revision():
    ref = resources.files("toolkit.stages.suites").joinpath("data", "smoke.jsonl")
    assert ref.is_file()
    assert get_suite("smoke").revision == "v1"
    assert hashlib.sha256(ref.read_bytes()).hexdigest() == SMOKE_V1_SHA256


def test_smoke_ignores_data_dir(tmp_path):
    assert load_items("smoke", data_dir=tmp_path) == load_items("smoke")
