"""Each submission's cost on the board (issue 48): the manifest's ``cost`` map (generation and every published
judge), extended by ``submit --update`` with the judge it adds, the dataset card's submissions table and the
Space's "details" column group."""
from __future__ import annotations

import json
from pathlib import Path

from toolkit import api
from toolkit.core.records_io import iter_jsonl
from toolkit.core.runs import RunDir
from toolkit.core.usage import write_cost
from schemas.usage import Price

API_JUDGE = "openai:gpt-4o-mini"


def _ledger(run: Path, rel: str, rows: list[dict]) -> None:
    path = run / ".usage" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as out:
        out.writelines(json.dumps(r) + "\n" for r in rows)


def _rows(stage: str, producer: str, ids: list[str], **spent) -> list[dict]:
    return [{"stage": stage, "producer": producer, "suite": "smoke", "item_id": i, **spent} for i in ids]


def test_the_manifest_card_and_space_show_what_each_submission_cost(synthetic_run, tmp_path):
    from space.table import format_table
    from space.views import with_metadata

    run = synthetic_run("a")
    ids = [r["item_id"] for _, r in iter_jsonl(run / "responses" / "smoke.jsonl")]
    assert len(ids) == 3
    _ledger(run, "responses.jsonl", _rows("generation", "hf", ids, prompt_tokens=50, output_tokens=150, seconds=40.0,
                                          tokens_from="backend"))
    _ledger(run, "judgments/heuristic-v1.jsonl", _rows("judgment", "heuristic-v1", ids, seconds=2.0))
    _ledger(run, "judgments/learned-v1.jsonl", _rows("judgment", "learned-v1", ids, seconds=9.0))  # never published
    write_cost(RunDir(run))
    dataset = tmp_path / "board"
    api.create(dataset)
    api.submit(run, to=dataset, options=api.SubmitOptions(n_bootstrap=0))
    manifest = json.loads((dataset / "submissions" / "model-a-1.json").read_text())
    assert sorted(manifest["cost"]) == ["generation", "heuristic-v1"]  # the unpublished judge cost the board nothing
    generation = manifest["cost"]["generation"]
    assert (generation["items"], generation["prompt_tokens"], generation["output_tokens"], generation["seconds"]) == \
        (3, 150, 450, 120.0)

    # An API judge added later: its records (the heuristic's verdicts under its id) and what its requests cost.
    judged = run / "judgments" / "openai-gpt-4o-mini"
    judged.mkdir()
    rows = [dict(r, judge_id=API_JUDGE) for _, r in iter_jsonl(run / "judgments" / "heuristic-v1" / "smoke.jsonl")]
    (judged / "smoke.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    _ledger(run, "judgments/openai-gpt-4o-mini.jsonl",
            _rows("judgment", API_JUDGE, ids, prompt_tokens=400, output_tokens=100, seconds=1200.0, requests=1,
                  tokens_from="server"))
    write_cost(RunDir(run), {API_JUDGE: (Price(input_per_1m=1, output_per_1m=2, source="given (--price)"),) * 2})
    write_cost(RunDir(run), {API_JUDGE: (None, None)})  # judged again without --price: the price given stays
    api.submit(run, to=dataset, options=api.SubmitOptions(n_bootstrap=0, update=True))
    updated = json.loads((dataset / "submissions" / "model-a-1.json").read_text())
    assert sorted(updated["cost"]) == ["generation", "heuristic-v1", API_JUDGE]
    assert {k: updated["cost"][k] for k in manifest["cost"]} == manifest["cost"]  # what was published stays
    added = updated["cost"][API_JUDGE]
    assert (added["requests"], added["prompt_tokens"], added["output_tokens"]) == (3, 1200, 300)
    assert abs(added["usd"] - (1200 * 1 + 300 * 2) / 1e6) < 1e-12

    # 1,500 tokens, $0.0018 and 3 × 1,200 s = 1 h: what the card and the Space's details show for this judge
    card = (dataset / "README.md").read_text()
    assert f"{API_JUDGE}: 1.5k tok · $0.0018 · 1.00 h" in card and "generation: 600 tok · 0.03 h" in card
    board = api.rank(dataset, options=api.RankOptions(n_bootstrap=0))
    subs = __import__("pandas").read_parquet(dataset / "data" / "submissions" / "submissions.parquet")
    table = format_table(with_metadata(board, subs), groups=("raw", "details"))
    cost = dict(zip(board["judge_id"], table["Cost"]))
    assert cost == {API_JUDGE: "1.5k tok · $0.0018 · 1.00 h", "heuristic-v1": "0 tok · 0.00 h"}


def test_a_board_holding_a_manifest_from_before_the_cost_map_still_reads_and_ranks(synthetic_run, tmp_path):
    """The cost map is one schema change, in the manifest only (per-item records, what load_dataset reads, are
    unchanged): a manifest written before it (no ``cost`` key) beside one written after still ranks, both models."""
    dataset = tmp_path / "board"
    api.create(dataset)
    for name in ("a", "b"):
        run = synthetic_run(name, model_id=f"org/model-{name}", submission_id=f"model-{name}-1")
        api.submit(run, to=dataset, options=api.SubmitOptions(n_bootstrap=0))
    old = dataset / "submissions" / "model-a-1.json"
    manifest = json.loads(old.read_text())
    manifest.pop("cost", None)
    old.write_text(json.dumps(manifest))
    assert "cost" not in json.loads(old.read_text())
    table = api.rank(dataset, options=api.RankOptions(n_bootstrap=0))
    assert sorted(table["model_id"].unique()) == sorted({json.loads(p.read_text())["model_id"]
                                                         for p in (dataset / "submissions").glob("*.json")})
