"""Item lists (package data), source adapters and harmonisation, on the mirror and on fixtures
written in each Hub-only source's own schema."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from toolkit.core.errors import UnknownComponent
from toolkit.stages.moderation.sources import BENCHMARKS, SOURCES
from toolkit.stages.moderation.suite import (build_item_list, load_item_list, load_items, manifest, read_item_list,
                                      select_balanced, write_item_list)
from toolkit.stages.suites._base import SuiteDataError


#: (items, flag items) of each v2 list: the release's per-item files as read (counted independently of the
#: list files when they were transcribed; the manifest records file, commit and checks).
RELEASE_COUNTS = {"beavertails": (200, 109), "xstest": (200, 100), "ethics": (200, 94), "wildguardtest": (200, 100),
                  "aegis": (198, 98), "toxicchat": (200, 100), "toxigen": (200, 100)}


def test_package_lists_match_manifest_and_release_counts():
    man = manifest()
    assert man["version"] == "v2"
    base = Path(__file__).resolve().parents[2] / "toolkit" / "stages" / "moderation" / "lists" / "v2"
    assert set(man["lists"]) == set(BENCHMARKS)  # every source has its complete list now
    for bench, info in man["lists"].items():
        rows = load_item_list(bench)
        assert hashlib.sha256((base / f"{bench}.jsonl").read_bytes()).hexdigest() == info["sha256"]
        n_flag = sum(r["gold"] == "flag" for r in rows)
        assert (len(rows), n_flag) == (info["n"], info["n_flag"]) == RELEASE_COUNTS[bench], bench
        assert info["complete"] is True and info["checks"] and info["origin"]
        assert all(set(r) == {"item_id", "gold"} for r in rows)  # ids + labels, no source text
    ids = [r["item_id"] for r in load_item_list("beavertails")]
    assert sorted(ids, key=int) == [str(i) for i in range(200)]  # rows 0..199, the release's common set
    tox = load_item_list("toxigen")
    assert all((r["gold"] == "flag") == (int(r["item_id"].split(":")[1]) < 100) for r in tox)
    with pytest.raises(UnknownComponent, match="unknown moderation benchmark 'nope'; valid moderation benchmarks: aegis"):
        load_item_list("nope")


def test_lists_agree_with_the_released_audit_sample(shared_benchmarks):
    """The release's harmonization audit (a separate file, @ 559f590, in the mirror) names 25 items per
    benchmark with their gold: every one that the scored set contains must be listed with that gold."""
    audit_dir = shared_benchmarks / "safety-flag" / "harmonization_audit"
    meta = json.loads((audit_dir / "item_meta.json").read_text())
    gold = json.loads((audit_dir / "gold.json").read_text())
    ours = {"wildguard": "wildguardtest"}
    for bench in {m["benchmark"] for m in meta}:
        listed = {r["item_id"]: r["gold"] for r in load_item_list(ours.get(bench, bench))}
        audit = {m["uid"].split(":", 1)[1]: gold[m["uid"]] for m in meta if m["benchmark"] == bench}
        missing = sorted(u for u in audit if u not in listed)
        # BeaverTails: the audit drew from all ~300 ids; the leaderboard scores 0..199 only
        assert missing == ([] if bench != "beavertails" else sorted(u for u in audit if int(u) >= 200)), bench
        for uid, g in audit.items():
            if uid in listed:
                assert listed[uid] == {"(A)": "flag", "(B)": "no_flag"}[g], (bench, uid)


def test_toxigen_ids_cannot_be_joined_to_text(tmp_path):
    path = tmp_path / "toxigen.parquet"
    pq.write_table(pa.Table.from_pylist(_fixture_rows("toxigen", 12)), path)
    with pytest.raises(SuiteDataError, match="200 listed ids cannot be joined to source text: not possible yet") as err:
        load_items("toxigen", path)
    assert err.value.param == ("build_moderation_list", "lists_dir", "data") and "--" not in str(err.value)


def test_mirror_sources_join_the_lists(shared_benchmarks):
    xs = load_items("xstest", shared_benchmarks)
    assert len(xs) == 200 and sum(i.gold == "flag" for i in xs) == 100
    assert xs[0].text.startswith("How can I kill a Python process")
    eth = load_items("ethics", shared_benchmarks, limit=10)
    assert len(eth) == 10 and sum(i.gold == "flag" for i in eth) == 5
    # the released Safety-Flag XSTest outputs use exactly our ids and gold
    rel = shared_benchmarks / "safety-flag" / "results" / "Llama-3.1-8B__xstest.jsonl"
    released = {json.loads(l)["id"]: json.loads(l)["gt"] for l in rel.read_text().splitlines()}
    assert {i.item_id: ("(A)" if i.gold == "flag" else "(B)") for i in xs} == released


def test_listed_gold_must_match_source(shared_benchmarks, tmp_path):
    rows = read_item_list(Path(__file__).resolve().parents[2] / "toolkit/stages/moderation/lists/v2/xstest.jsonl")
    rows[0] = {"item_id": rows[0]["item_id"], "gold": "flag" if rows[0]["gold"] == "no_flag" else "no_flag"}
    write_item_list(tmp_path / "xstest.jsonl", rows)
    with pytest.raises(SuiteDataError, match=r"item '0': listed gold"):
        load_items("xstest", shared_benchmarks, lists_dir=tmp_path)
    (tmp_path / "xstest.jsonl").write_text('{"item_id": "0", "gold": "maybe"}\n')
    with pytest.raises(SuiteDataError, match=r"xstest.jsonl:1:gold"):
        load_items("xstest", shared_benchmarks, lists_dir=tmp_path)


# One small export per Hub-only source, in that source's own column schema.
def _fixture_rows(bench: str, n: int) -> list[dict]:
    rows = []
    for i in range(n):
        bad = i % 2 == 0
        if bench == "beavertails":
            rows.append({"prompt": f"q{i}", "response": f"a{i}", "is_safe": not bad,
                         "category": {"violence,aiding_and_abetting,incitement": bad}})
        elif bench == "wildguardtest":
            rows.append({"prompt": f"p{i}", "adversarial": False, "response": None,
                         "prompt_harm_label": None if i == 5 else ("harmful" if bad else "unharmful"),
                         "response_harm_label": None, "response_refusal_label": None, "subcategory": "x"})
        elif bench == "aegis":
            rows.append({"id": f"{i:032x}", "prompt": f"p{i}", "response": "" if i % 3 else f"r{i}",
                         "prompt_label": "unsafe" if bad else "safe", "response_label": "",
                         "violated_categories": ""})
        elif bench == "toxicchat":
            rows.append({"conv_id": hashlib.sha256(str(i).encode()).hexdigest(), "user_input": f"u{i}",
                         "model_output": "m", "human_annotation": True, "toxicity": int(bad), "jailbreaking": 0,
                         "openai_moderation": "[]"})
        elif bench == "toxigen":
            rows.append({"text": f"t{i}", "target_group": "g", "toxicity_ai": 3.0,
                         "toxicity_human": [4.6, 1.3, 3.0, 2.0, 4.0, 1.0][i % 6]})
    return rows


@pytest.mark.parametrize("bench", ["beavertails", "wildguardtest", "aegis", "toxicchat", "toxigen"])
def test_hub_only_sources_from_exports(bench, tmp_path):
    rows = _fixture_rows(bench, 24)
    path = tmp_path / f"{bench}.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    lst = build_item_list(bench, path, n_per_class=4, seed=0)
    assert len(lst) == 8 and sum(r["gold"] == "flag" for r in lst) == 4
    assert lst == build_item_list(bench, path, n_per_class=4, seed=0)  # fixed: same list every time
    write_item_list(tmp_path / "lists" / f"{bench}.jsonl", lst)
    items = load_items(bench, path, lists_dir=tmp_path / "lists")
    by_id = {str(i) if SOURCES[bench].id_field is None else r[SOURCES[bench].id_field]: r for i, r in enumerate(rows)}
    for it in items:
        src = by_id[it.item_id]
        if bench == "toxigen":  # 4-5 flag, 1-2 no flag, 3 never listed
            assert src["toxicity_human"] != 3.0
            assert (it.gold == "flag") == (src["toxicity_human"] >= 4)
        if bench == "beavertails":
            assert it.text == f"User: {src['prompt']}\nAssistant: {src['response']}"
        if bench == "wildguardtest":
            assert src["prompt_harm_label"] is not None
    # the same export as JSONL reads identically
    jl = tmp_path / f"{bench}.jsonl"
    jl.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert [i.item_id for i in load_items(bench, jl, lists_dir=tmp_path / "lists")] == [i.item_id for i in items]


def test_source_errors_are_precise(tmp_path):
    path = tmp_path / "tc.jsonl"
    path.write_text(json.dumps({"conv_id": "a", "user_input": "x", "toxicity": 7}) + "\n")
    with pytest.raises(SuiteDataError, match=r"row 0 \(a\): label value outside the toxicchat scheme"):
        build_item_list("toxicchat", path, n_per_class=1)
    path.write_text(json.dumps({"conv_id": "a", "text": "x"}) + "\n")
    with pytest.raises(SuiteDataError, match=r"missing column\(s\) \['user_input', 'toxicity'\]"):
        build_item_list("toxicchat", path, n_per_class=1)
    with pytest.raises(SuiteDataError, match="only 1 'flag' items available, 2 requested"):
        select_balanced([("a", "flag"), ("b", "no_flag"), ("c", "no_flag")], n_per_class=2)
    with pytest.raises(SuiteDataError, match="Hub-only source"):
        load_items("aegis", tmp_path)
    assert set(BENCHMARKS) == {"beavertails", "xstest", "ethics", "wildguardtest", "aegis", "toxicchat", "toxigen"}


def test_reports_list_benchmarks_in_the_registered_order():
    """The reports' order (schemas.display, read by the Space without the moderation sources) is the order
    the sources are registered in: that of the Safety-Flag release's DATASETS."""
    from schemas.display import MODERATION_BENCHMARK_ORDER
    from toolkit.data.reliability.report import benchmark_order

    assert BENCHMARKS == MODERATION_BENCHMARK_ORDER
    assert benchmark_order(["toxigen", "zzz", "beavertails", "aaa"]) == ["beavertails", "toxigen", "aaa", "zzz"]
