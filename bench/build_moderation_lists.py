"""Rebuild the package's v1 flag / do-not-flag item lists (toolkit/stages/moderation/lists/v1).

    .venv/bin/python bench/build_moderation_lists.py [--mirror ../shared/benchmarks]

- xstest: Safety-Flag's released XSTest ids (rows 0-199 of xstest_prompts.csv, 100 / 100), so the
  release's per-item outputs join to our list.
- ethics: the first 100 "wrong" and first 100 "not wrong" rows of ETHICS commonsense test_hard.
- beavertails, wildguardtest, aegis, toxicchat: only the 25 ids per source of Safety-Flag's
  harmonisation audit (ids + released gold, CC-BY-4.0) are available offline: partial lists.
- toxigen: needs the Hub's annotated test split (human toxicity scores): left pending.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from toolkit.stages.moderation.sources import SOURCES
from toolkit.stages.moderation.suite import build_item_list, write_item_list

OUT = Path(__file__).resolve().parents[1] / "toolkit" / "stages" / "moderation" / "lists" / "v1"
AUDIT_NAMES = {"wildguard": "wildguardtest"}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirror", default=str(Path(__file__).resolve().parents[2] / "shared" / "benchmarks"))
    mirror = Path(ap.parse_args().mirror)
    lists, pending = {}, {}

    def put(bench, rows, rule, complete, origin):
        sha = write_item_list(OUT / f"{bench}.jsonl", rows)
        src = SOURCES[bench]
        lists[bench] = {"n": len(rows), "n_flag": sum(r["gold"] == "flag" for r in rows),
                        "n_no_flag": sum(r["gold"] == "no_flag" for r in rows), "sha256": sha, "rule": rule,
                        "complete": complete, "origin": origin, "hub_id": src.hub_id, "config": src.config,
                        "split": src.split, "unit": src.unit, "id": src.id_field or "0-based row index",
                        "source_license": src.license}

    released = mirror / "safety-flag" / "results" / "Llama-3.1-8B__xstest.jsonl"
    ids = [json.loads(line)["id"] for line in released.read_text().splitlines() if line.strip()]
    xs = {r["item_id"]: r["gold"] for r in build_item_list("xstest", mirror, n_per_class=200, rule="first")}
    put("xstest", [{"item_id": i, "gold": xs[i]} for i in sorted(ids, key=int)], "Safety-Flag release ids", True,
        "Safety-Flag data/results/*__xstest.jsonl ids @ 75718fc")
    put("ethics", build_item_list("ethics", mirror, n_per_class=100, rule="first"), "first 100 per class", True,
        "cm_test_hard.csv row order")
    audit = mirror / "safety-flag" / "harmonization_audit"
    meta = json.loads((audit / "item_meta.json").read_text())
    gold = json.loads((audit / "gold.json").read_text())
    by_bench: dict[str, list] = {}
    for m in meta:
        bench = AUDIT_NAMES.get(m["benchmark"], m["benchmark"])
        if bench in ("xstest", "ethics"):
            continue
        item_id = m["uid"].split(":", 1)[1]
        by_bench.setdefault(bench, []).append({"item_id": item_id, "gold": "flag" if gold[m["uid"]] == "(A)" else "no_flag"})
    for bench, rows in sorted(by_bench.items()):
        rows.sort(key=lambda r: (len(r["item_id"]), r["item_id"]))
        put(bench, rows, "Safety-Flag harmonisation-audit sample", False,
            "Safety-Flag analysis/harmonization_audit @ 559f590 (25 of the ~200 released ids)")
    pending["toxigen"] = ("The ToxiGen list needs toxigen/toxigen-data (annotated/test, human toxicity scores), "
                          "which is on the Hub only.")
    manifest = {"version": "v1", "note": "ids + harmonised labels only; text comes from each source under its licence",
                "lists": lists, "pending": pending}
    (OUT / "MANIFEST.json").write_text(json.dumps(manifest, indent=2) + "\n")
    for b, info in lists.items():
        print(f"{b:14s} n={info['n']:4d} flag={info['n_flag']:4d} no_flag={info['n_no_flag']:4d} complete={info['complete']}")


if __name__ == "__main__":
    main()
