"""The v2 lists (Safety-Flag's released item sets) drive `slmboard moderate` wherever the source text is
available. The mirror holds XSTest and ETHICS only (tests/moderation/test_suite.py joins those); the four
Hub-only sources are exercised with exports in each source's own column schema that contain the listed ids."""
from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from toolkit.cli import main
from toolkit.stages.moderation.suite import load_item_list, load_items
from toolkit.stages.suites._base import SuiteDataError

JOINABLE_HUB_ONLY = ["beavertails", "wildguardtest", "aegis", "toxicchat"]


def _export(bench: str, listed: list[dict]) -> list[dict]:
    """Source rows whose own labels harmonise to the listed gold, plus rows that are not listed."""
    gold = {r["item_id"]: r["gold"] == "flag" for r in listed}
    if bench == "beavertails":  # id = row index
        return [{"prompt": f"q{i}", "response": f"a{i}", "is_safe": not gold.get(str(i), False)} for i in range(210)]
    if bench == "wildguardtest":  # id = row index; 1,725 rows in the real split
        return [{"prompt": f"p{i}", "prompt_harm_label": ("harmful" if gold.get(str(i)) else "unharmful")}
                for i in range(1725)]
    if bench == "aegis":  # id column
        ids = list(gold) + [f"{i:032x}" for i in range(5)]
        return [{"id": k, "prompt": f"p-{k}", "response": "", "prompt_label": "unsafe" if gold.get(k) else "safe",
                 "response_label": ""} for k in ids]
    ids = list(gold) + [f"{i:064x}" for i in range(5)]  # toxicchat: conv_id column
    return [{"conv_id": k, "user_input": f"u-{k}", "toxicity": int(gold.get(k, False))} for k in ids]


@pytest.mark.parametrize("bench", JOINABLE_HUB_ONLY)
def test_release_list_joins_a_source_export(bench, tmp_path, shared_benchmarks):
    listed = load_item_list(bench)
    path = tmp_path / f"{bench}.parquet"
    pq.write_table(pa.Table.from_pylist(_export(bench, listed)), path)
    items = load_items(bench, path)
    assert [i.item_id for i in items] == [r["item_id"] for r in listed]
    assert [i.gold for i in items] == [r["gold"] for r in listed]
    assert all(i.text for i in items)
    # the mirror has no copy of this source: a clear error, not a partial suite
    with pytest.raises(SuiteDataError, match="Hub-only source"):
        load_items(bench, shared_benchmarks)
    # a source whose label disagrees with the listed gold (another split, a changed source) stops loading
    rows = _export(bench, listed)
    first = listed[0]["item_id"]
    for r in rows:
        if str(r.get("id", r.get("conv_id", ""))) == first or (bench in ("beavertails", "wildguardtest") and
                                                               r["prompt"][1:] == first):
            if bench == "beavertails":
                r["is_safe"] = not r["is_safe"]
            elif bench == "wildguardtest":
                r["prompt_harm_label"] = "unharmful" if r["prompt_harm_label"] == "harmful" else "harmful"
            elif bench == "aegis":
                r["prompt_label"] = "safe" if r["prompt_label"] == "unsafe" else "unsafe"
            else:
                r["toxicity"] = 1 - r["toxicity"]
    pq.write_table(pa.Table.from_pylist(rows), path)
    with pytest.raises(SuiteDataError, match=rf"item '{first}': listed gold"):
        load_items(bench, path)


def test_moderate_runs_on_a_release_list(tmp_path, capsys):
    listed = load_item_list("aegis")
    path = tmp_path / "aegis_test.parquet"
    pq.write_table(pa.Table.from_pylist(_export("aegis", listed)), path)
    run = tmp_path / "run"
    assert main(["moderate", "--out", str(run), "--model", "judge", "--judge", "heuristic", "--suites", "aegis",
                 "--source-data", f"aegis={path}", "--limit", "6"]) == 0
    assert "aegis: 6 new record(s)" in capsys.readouterr().out
    from toolkit.data.reading.moderation import read_moderation

    frame = read_moderation(run)
    first_flag = [r["item_id"] for r in listed if r["gold"] == "flag"][:3]
    first_no = [r["item_id"] for r in listed if r["gold"] == "no_flag"][:3]
    assert sorted(frame["item_id"]) == sorted(first_flag + first_no)  # balanced head of the release list
    assert set(frame["benchmark"]) == {"aegis"}


def test_lists_rebuild_from_released_files(shared_benchmarks, tmp_path):
    """The mirror's released XSTest file rebuilds the shipped XSTest list exactly; two files that disagree,
    or a repeated id with other gold, are refused with the file and line."""
    import json

    from toolkit.core.errors import ValidationFailed
    from toolkit.stages.moderation.release_lists import compare_with_list, list_from_release_files, read_release_ids

    rel = shared_benchmarks / "safety-flag" / "results" / "Llama-3.1-8B__xstest.jsonl"
    rows = list_from_release_files([rel, rel])
    assert len(rows) == 200 and compare_with_list(rows, load_item_list("xstest")) == ""
    lines = rel.read_text().splitlines()
    other = tmp_path / "Other__xstest.jsonl"
    other.write_text("\n".join(lines[:-1]) + "\n")  # one id short
    with pytest.raises(SuiteDataError, match=r"disagree: 1 missing"):
        list_from_release_files([rel, other])
    flipped = json.loads(lines[0])
    flipped["gt"] = "(A)" if flipped["gt"] == "(B)" else "(B)"
    other.write_text("\n".join([json.dumps(flipped)] + lines[1:]) + "\n")
    with pytest.raises(SuiteDataError, match=r"1 with other gold"):
        list_from_release_files([rel, other])
    other.write_text("\n".join(lines + [json.dumps(flipped)]) + "\n")  # a repeat with other gold
    with pytest.raises(ValidationFailed, match=r"Other__xstest.jsonl:201"):
        read_release_ids(other)
    # a shipped list that lost an item is caught
    assert compare_with_list(rows, load_item_list("xstest")[1:]).startswith("1 extra")
