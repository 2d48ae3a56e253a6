"""BBQ: 6 real category files from the mirror (complete), the rest from fixtures in BBQ's schema."""
import json
from collections import Counter

import pytest

from slmboard_suite_fixtures import BBQ_ALL, BBQ_REAL, write_bbq
from toolkit.stages.suites import BBQ, SuiteDataError, load_items
from toolkit.stages.suites._bbq import BBQOptions
from toolkit.stages.suites._bbq import CATEGORIES, target_letters


def test_eleven_categories():
    assert CATEGORIES == BBQ_ALL and len(CATEGORIES) == 11


def test_real_files_load_with_context_condition_and_polarity(shared_benchmarks):
    items = BBQ(BBQOptions(categories=BBQ_REAL)).load(shared_benchmarks)
    counts = Counter(i.category for i in items)
    assert counts == {"Age": 3680, "Disability_status": 1556, "Nationality": 3080, "Physical_appearance": 1576,
                      "Religion": 1200, "Sexual_orientation": 864}
    cells = Counter((i.metadata["context_condition"], i.metadata["question_polarity"]) for i in items)
    assert set(cells) == {("ambig", "neg"), ("ambig", "nonneg"), ("disambig", "neg"), ("disambig", "nonneg")}
    # In ambiguous contexts the right answer is always the "unknown" option.
    assert all(i.metadata["gold_choice"] == i.metadata["unknown_choice"] for i in items if i.metadata["context_condition"] == "ambig")
    # The stereotyped target is found for every item of the 6 real categories.
    assert all(i.metadata["target_choice"] and i.metadata["biased_choice"] for i in items)
    assert len({i.item_id for i in items}) == len(items)


def test_first_age_item_exactly(shared_benchmarks):
    item = BBQ(BBQOptions(categories=("Age",))).load(shared_benchmarks)[0]
    assert item.item_id == "Age:0"
    assert item.prompt.endswith("A. The grandfather\nB. The grandson\nC. Can't be determined\nAnswer:")
    assert "Passage: I saw a grandson and their grandfather" in item.prompt
    m = item.metadata
    assert (m["gold_choice"], m["unknown_choice"], m["target_choice"], m["non_target_choice"], m["biased_choice"]) == ("C", "C", "A", "B", "A")
    assert json.loads(m["stereotyped_groups"]) == ["old"]
    assert item.gold is None


def test_biased_choice_is_the_non_target_for_nonnegative_questions():
    info = {"ans0": ["grandfather", "old"], "ans1": ["grandson", "nonOld"], "ans2": ["Unknown", "unknown"]}
    assert target_letters(info, ["old"]) == ("C", "A", "B")
    assert target_letters(info, ["nobody"]) == ("C", "", "")  # no unique match: left empty, not guessed


def test_partial_mirror_names_every_missing_file_and_the_source(shared_benchmarks):
    with pytest.raises(SuiteDataError) as exc:
        load_items("bbq", data_dir=shared_benchmarks)
    msg = str(exc.value)
    assert "missing 5 of 11 category files" in msg
    for cat in ("Gender_identity", "Race_ethnicity", "Race_x_SES", "Race_x_gender", "SES"):
        assert f"{cat}.jsonl" in msg
    assert "raw.githubusercontent.com/nyu-mll/BBQ/bea11bd97d79217245b5871acd247b9d6eb24598" in msg


def test_full_layout_loads_all_categories(tmp_path, shared_benchmarks):
    write_bbq(tmp_path, shared_benchmarks, per_category=4)
    items = load_items("bbq", data_dir=tmp_path)
    assert Counter(i.category for i in items) == {c: 4 for c in BBQ_ALL}


def test_bad_rows_name_file_line_and_field(tmp_path):
    folder = write_bbq(tmp_path, None, per_category=2)
    path = folder / "SES.jsonl"
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    rows[1]["label"] = 3
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    with pytest.raises(SuiteDataError, match=r"SES\.jsonl:2: field 'label' must be 0, 1 or 2"):
        load_items("bbq", data_dir=tmp_path)
    rows[1]["label"] = 0
    rows[1]["question"] = ""
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    with pytest.raises(SuiteDataError, match=r"item 'SES:1' has an empty 'question' at .*SES\.jsonl:2"):
        load_items("bbq", data_dir=tmp_path)


def test_unknown_category_lists_valid_ones():
    with pytest.raises(SuiteDataError, match="valid: Age, Disability_status"):
        BBQ(BBQOptions(categories=("Ages",)))
