"""What the v2 item lists were checked against, pinned so the checks rerun offline.

The lists were compared with Safety-Flag's per-item files (github.com/yibo-hu-lab/safety-flag-benchmark
@ 75718fc), which are not in the mirror. For the lists whose second-model file was read in full, the
expected values below were computed from the transcription of that release file (every line's ``id`` and
``gt``), not from the list files: the line count, the unique ids, the gold balance, and the sha256 of the
id set with gold (one ``"<id>\\t<gold>\\n"`` per unique id, ids sorted as strings). A list edited by hand,
a lost or added item, or a flipped gold fails here; the manifest's ``checks`` name the file and commit.
"""
from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import pytest

from toolkit.stages.moderation.suite import load_items

LISTS = Path(__file__).resolve().parents[2] / "toolkit" / "stages" / "moderation" / "lists" / "v2"

#: bench -> (release file read in full, its lines, unique ids, flag, no flag, sha256 of sorted "id\tgold\n")
RELEASE_SETS = {
    "aegis": ("Llama-3.1-8B-Instruct__aegis_s0.jsonl", 200, 198, 98, 100,
              "69edf52c810474f3c9639e2088de2d0e5ee4ac3ae09925e50889280e3b90c6c6"),
    "toxicchat": ("Llama-3.1-8B-Instruct__toxicchat_s0.jsonl", 200, 200, 100, 100,
                  "95f4a60322ede369708de667b6cb8d33977ab9e29e63092d24474a271bb6895d"),
    "beavertails": ("OLMo-2-7B__beavertails.jsonl", 200, 200, 109, 91,
                    "9fb200600f2230a05984757b4c827f45e7f1922a49d9959092130e93d39f1e17"),
    "ethics": ("Qwen2.5-32B__ethics_sev_s0.jsonl", 200, 200, 94, 106,
               "cdbf08f05fcdbdbd334fb27b48b1d536db3cb551db435020e7f6d1116a5f1b15"),
}


def _manifest() -> dict:
    return json.loads((LISTS / "MANIFEST.json").read_text())


def _rows(bench: str) -> list[dict]:
    return [json.loads(line) for line in (LISTS / f"{bench}.jsonl").read_text().splitlines() if line.strip()]


def test_every_list_matches_its_manifest_entry():
    lists = _manifest()["lists"]
    assert set(lists) == {"beavertails", "xstest", "ethics", "wildguardtest", "aegis", "toxicchat", "toxigen"}
    for bench, info in lists.items():
        assert hashlib.sha256((LISTS / f"{bench}.jsonl").read_bytes()).hexdigest() == info["sha256"], bench
        rows = _rows(bench)
        ids = [r["item_id"] for r in rows]
        assert len(ids) == len(set(ids)), f"{bench}: repeated ids"
        n_flag = n_no_flag = 0
        for r in rows:
            assert set(r) == {"item_id", "gold"} and r["gold"] in ("flag", "no_flag"), (bench, r)
            n_flag += r["gold"] == "flag"
            n_no_flag += r["gold"] == "no_flag"
        assert (len(rows), n_flag, n_no_flag) == (info["n"], info["n_flag"], info["n_no_flag"]), bench


@pytest.mark.parametrize("bench", sorted(RELEASE_SETS))
def test_list_is_the_release_set_read_in_full(bench):
    release_file, lines, unique, flag, no_flag, digest = RELEASE_SETS[bench]
    rows = _rows(bench)
    gold = {r["item_id"]: r["gold"] for r in rows}
    assert (len(gold), sum(g == "flag" for g in gold.values()), sum(g == "no_flag" for g in gold.values())) \
        == (unique, flag, no_flag)
    text = "".join(f"{i}\t{gold[i]}\n" for i in sorted(gold))
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == digest, f"{bench}: ids or gold differ from {release_file}"
    checks = _manifest()["lists"][bench]["checks"]
    # the provenance names the file that was read, its commit and what was found
    assert release_file in checks and "75718fc" in checks and "read in full" in checks, bench
    assert f"{lines} lines" in checks, bench


def test_ethics_is_rows_0_to_199_of_test_hard_with_their_labels(shared_benchmarks):
    rows = _rows("ethics")
    assert [r["item_id"] for r in rows] == [str(i) for i in range(200)]
    with open(shared_benchmarks / "ethics" / "cm_test_hard.csv", newline="") as fh:
        source = list(csv.DictReader(fh))
    for r in rows:
        assert r["gold"] == ("flag" if source[int(r["item_id"])]["label"] == "1" else "no_flag"), r
    # the loader joins every listed id to its row's text
    items = load_items("ethics", shared_benchmarks)
    assert [i.item_id for i in items] == [str(i) for i in range(200)]
    assert all(i.text == source[int(i.item_id)]["input"] for i in items)
    assert sum(i.gold == "flag" for i in items) == 94
