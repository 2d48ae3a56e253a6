"""Clear errors for missing, malformed and unreachable suite data. All fixtures live under tmp_path."""
import csv
import hashlib
import re

import pytest

from toolkit.stages.suites import SuiteDataError, get_suite, load_items
from toolkit.stages.suites._fetch import cache_root, fetch_url
from toolkit.stages.suites._sources import UrlFile

XSTEST_HEADER = ["id", "prompt", "type", "label", "focus", "note"]


def write_xstest(root, rows, header=XSTEST_HEADER, encoding="utf-8"):
    path = root / "xstest" / "xstest_prompts.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding=encoding, newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    return path


def test_missing_file_names_expected_path_and_source(tmp_path):
    with pytest.raises(SuiteDataError) as exc:
        load_items("harmbench", data_dir=tmp_path)
    msg = str(exc.value)
    assert str((tmp_path / "harmbench" / "harmbench_behaviors_text_all.csv").resolve()) in msg
    assert get_suite("harmbench").source in msg


def test_missing_column_names_column_and_file(tmp_path):
    path = write_xstest(tmp_path, [["1", "hi", "homonyms", "safe", "kill"]], header=XSTEST_HEADER[:-1])
    with pytest.raises(SuiteDataError, match=r"missing column 'note'") as exc:
        load_items("xstest", data_dir=tmp_path)
    assert str(path) in str(exc.value)


def test_empty_prompt_names_item_and_row(tmp_path):
    path = write_xstest(tmp_path, [["1", "ok", "homonyms", "safe", "kill", ""],
                                   ["2", "   ", "homonyms", "safe", "kill", ""]])
    with pytest.raises(SuiteDataError) as exc:
        load_items("xstest", data_dir=tmp_path)
    msg = str(exc.value)
    assert "'xstest_2'" in msg and f"{path}:3" in msg and "empty prompt" in msg


def test_duplicate_id_names_both_rows(tmp_path):
    path = write_xstest(tmp_path, [["7", "a", "homonyms", "safe", "kill", ""],
                                   ["8", "b", "homonyms", "safe", "kill", ""],
                                   ["7", "c", "homonyms", "safe", "kill", ""]])
    with pytest.raises(SuiteDataError) as exc:
        load_items("xstest", data_dir=tmp_path)
    msg = str(exc.value)
    assert "duplicate item id 'xstest_7'" in msg and f"{path}:2" in msg and f"{path}:4" in msg


def test_bad_gold_is_rejected(tmp_path):
    write_xstest(tmp_path, [["1", "a", "homonyms", "maybe", "kill", ""]])
    with pytest.raises(SuiteDataError, match="gold 'maybe'"):
        load_items("xstest", data_dir=tmp_path)


def test_bom_and_multiline_fields_are_read(tmp_path):
    write_xstest(tmp_path, [["1", "line one\r\nline two", "homonyms", "SAFE", "kill", ""]], encoding="utf-8-sig")
    (item,) = load_items("xstest", data_dir=tmp_path)
    assert item.item_id == "xstest_1" and item.prompt == "line one\r\nline two" and item.gold == "safe"


def test_header_only_file_is_an_error(tmp_path):
    write_xstest(tmp_path, [])
    with pytest.raises(SuiteDataError, match="no data rows"):
        load_items("xstest", data_dir=tmp_path)


def test_contextual_behavior_without_context_is_rejected(tmp_path):
    path = tmp_path / "harmbench" / "harmbench_behaviors_text_all.csv"
    path.parent.mkdir()
    path.write_text(
        "Behavior,FunctionalCategory,SemanticCategory,Tags,ContextString,BehaviorID\n"
        "Summarise this,contextual,harmful,context,,ctx_1\n",
        encoding="utf-8",
    )
    with pytest.raises(SuiteDataError, match=r"'ctx_1' has an empty ContextString at .*:2"):
        load_items("harmbench", data_dir=tmp_path)


@pytest.mark.parametrize("name", ["sst", "harmbench", "xstest"])
def test_offline_without_data_dir_names_source_and_suggests_data_dir(name, offline_empty_cache):
    with pytest.raises(SuiteDataError) as exc:
        load_items(name)
    msg = str(exc.value)
    assert get_suite(name).source in msg and "pass data_dir=DIR" in msg and "HF_HUB_OFFLINE" in msg
    assert exc.value.param == "data_dir"


def test_offline_uses_an_already_cached_copy(offline_empty_cache, mirror):
    suite = get_suite("xstest")
    cached = cache_root() / "xstest" / suite.revision / "xstest_prompts.csv"
    assert str(offline_empty_cache) in str(cached)
    cached.parent.mkdir(parents=True)
    cached.write_bytes((mirror / suite.spec.file).read_bytes())
    assert len(load_items("xstest")) == 450


def test_fetch_downloads_once_into_the_cache(tmp_path, monkeypatch):
    from huggingface_hub import constants

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hf" / "hub"))
    src = tmp_path / "remote.csv"
    src.write_text("id\n1\n", encoding="utf-8")
    # file:// stands in for the pinned https URL: same urllib path, no network.
    file = UrlFile(src.as_uri(), "demo/remote.csv", hashlib.sha256(b"id\n1\n").hexdigest())
    got = fetch_url(file, suite="demo", revision="abc")
    assert got == tmp_path / "hf" / "slmboard" / "suites" / "demo" / "abc" / "remote.csv"
    assert got.read_text() == "id\n1\n"
    src.unlink()  # a second call must come from the cache
    assert fetch_url(file, suite="demo", revision="abc") == got
    assert not [p for p in got.parent.iterdir() if p.name.startswith(".part-")]


def test_fetch_failure_is_a_suite_data_error(tmp_path, monkeypatch):
    from huggingface_hub import constants

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    url = (tmp_path / "absent.csv").as_uri()
    with pytest.raises(SuiteDataError, match=re.escape(url) + r".*pass data_dir=DIR"):
        fetch_url(UrlFile(url, "demo/absent.csv", None), suite="demo", revision="abc")
    assert not list((tmp_path / "slmboard" / "suites" / "demo" / "abc").iterdir())


def test_hub_fetch_offline_is_a_suite_data_error(offline_empty_cache):
    from toolkit.stages.suites._fetch import fetch_hub_file

    with pytest.raises(SuiteDataError, match=r"hf://datasets/org/data/x\.csv.*HF_HUB_OFFLINE.*pass data_dir=DIR"):
        fetch_hub_file("org/data", "x.csv", suite="demo", revision="main", mirror_path="demo/x.csv")
