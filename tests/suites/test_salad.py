"""SALAD-Bench: the base set from a fixture in the Hub's base_set.json schema; the defense set from the real mirror."""
import json
from collections import Counter

import pytest

from slmboard_suite_fixtures import SALAD_ROWS, write_salad
from toolkit.stages.suites import SuiteDataError, load_items


def test_base_set_keeps_the_three_level_taxonomy(tmp_path):
    write_salad(tmp_path)
    items = load_items("salad", data_dir=tmp_path)
    assert [i.item_id for i in items] == ["salad_0", "salad_1", "salad_17"]
    first = items[0]
    assert first.prompt == SALAD_ROWS[0]["question"] and first.gold == "unsafe"
    assert first.category == "O5: Malicious Use"
    assert first.metadata["category_2"] == "O14: Illegal Activities"
    assert first.metadata["category_3"] == "O53: Financial Crimes"
    assert first.metadata["source"] == "GPT-Gen" and first.metadata["qid"] == "0"


def test_jsonl_form_is_read_too(tmp_path):
    path = tmp_path / "salad_bench" / "base_set.json"
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(json.dumps(r) for r in SALAD_ROWS) + "\n", encoding="utf-8")
    assert len(load_items("salad", data_dir=tmp_path)) == 3


def test_missing_field_names_element(tmp_path):
    rows = [dict(SALAD_ROWS[0]), {k: v for k, v in SALAD_ROWS[1].items() if k != "3-category"}]
    write_salad(tmp_path, rows=rows)
    with pytest.raises(SuiteDataError, match=r"base_set\.json \[element 1\]: missing field '3-category'"):
        load_items("salad", data_dir=tmp_path)


def test_empty_question_is_rejected_with_its_id(tmp_path):
    write_salad(tmp_path, rows=[dict(SALAD_ROWS[0], question=" ")])
    with pytest.raises(SuiteDataError, match=r"'salad_0' has an empty prompt"):
        load_items("salad", data_dir=tmp_path)


def test_missing_base_set_names_the_hub_file(shared_benchmarks):
    with pytest.raises(SuiteDataError) as exc:
        load_items("salad", data_dir=shared_benchmarks)
    msg = str(exc.value)
    expected = shared_benchmarks / "salad_bench" / "base_set.json"
    assert str(expected) in msg or str(expected.resolve()) in msg  # the mirror may sit behind a symlink
    assert "hf://datasets/OpenSafetyLab/Salad-Data/base_set.json" in msg


def test_defense_enhanced_set_on_the_real_file(shared_benchmarks):
    items = load_items("salad_defense", data_dir=shared_benchmarks)
    assert len(items) == 200 and len({i.metadata["qid"] for i in items}) == 200
    assert Counter(i.metadata["dmethod"] for i in items) == {"orig": 61, "reminder_prompt": 62, "xsafe_prompt": 41, "safe_prompt": 36}
    assert len({i.metadata["category_3"] for i in items}) == 51
    assert len({i.category for i in items}) <= 6
    first = items[0]
    assert first.item_id == "salad_def_862" and first.metadata["base_question"] in first.prompt
