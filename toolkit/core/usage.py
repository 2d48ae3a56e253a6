"""A run's usage ledgers and what they add up to (``RUN/cost.json``).

Each stage appends one :class:`~schemas.usage.UsageRecord` per answer or judgment it produced, to
``RUN/.usage/responses.jsonl`` or ``RUN/.usage/judgments/<judge>.jsonl``, *before* the records themselves: a run
killed between the two appends judges the item again on resume, where the cache answers (a cache hit costs
nothing), so every request is counted exactly once. ``cost.json`` is recomputed from the ledgers whole after each
stage, so it never drifts from them: ``{"generation": StageCost, "<judge id>": StageCost, ...}`` -- the shape of the
manifest's ``cost`` map.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable, Mapping

from pydantic import ValidationError

from schemas.usage import Price, StageCost, UsageRecord

from toolkit.core.errors import SlmboardError
from toolkit.core.records_io import JsonlAppender, atomic_write_text
from toolkit.core.runs import RunDir

GENERATION = "generation"  # the cost map's key of the generation stage (judge ids are the others)


def append_usage(path: Path, rows: Iterable[UsageRecord]) -> None:
    rows = [r.model_dump(mode="json") for r in rows]
    if rows:
        with JsonlAppender(path) as out:
            out.append(rows)


def read_usage(path: Path) -> list[UsageRecord]:
    """The ledger's rows; a torn last line (a process killed mid-append) is no row. Any other bad line stops with
    the file, line and field."""
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    elif lines:
        lines.pop()  # no trailing newline: torn
    out = []
    for n, line in enumerate(lines, 1):
        try:
            out.append(UsageRecord.model_validate_json(line))
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or "row"
            raise SlmboardError(f"{path}:{n}: {field}: {err['msg']}") from None
    return out


def stage_cost(rows: Iterable[UsageRecord], price: Price | None = None, batch_price: Price | None = None) -> StageCost:
    """Totals of one stage's rows; dollars where a price is known (Batch API rows at ``batch_price`` when given)."""
    c = dict(items=0, requests=0, cache_hits=0, prompt_tokens=0, output_tokens=0, unknown_tokens=0, seconds=0.0)
    usd = 0.0
    for r in rows:
        c["items"] += 1
        c["requests"] += r.requests
        c["cache_hits"] += r.cache_hit
        c["seconds"] += r.seconds
        if r.cache_hit:
            continue
        if (r.prompt_tokens is None or r.output_tokens is None) and (r.requests or r.stage == "generation"):
            c["unknown_tokens"] += 1  # a local judge reads no tokens: nothing is unknown about it
        pt, ot = r.prompt_tokens or 0, r.output_tokens or 0
        c["prompt_tokens"] += pt
        c["output_tokens"] += ot
        rate = batch_price if (r.batch_api and batch_price is not None) else price
        if rate is not None:
            usd += (pt * rate.input_per_1m + ot * rate.output_per_1m) / 1e6
    return StageCost(**{**c, "seconds": round(c["seconds"], 3)}, usd=round(usd, 6) if price is not None else None,
                     price=price, batch_price=batch_price)


def read_cost(run: RunDir | str | Path) -> dict[str, StageCost]:
    """The run's ``cost.json`` ({} when it has none)."""
    path = (run if isinstance(run, RunDir) else RunDir(run)).cost_file
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {key: StageCost.model_validate(value) for key, value in data.items()}
    except (ValueError, AttributeError) as exc:
        raise SlmboardError(f"{path}: not a cost file ({str(exc).splitlines()[0]}); remove it, the next judge or "
                            "generate writes it again from the usage ledgers") from None


def run_cost(run: RunDir, prices: Mapping[str, tuple[Price | None, Price | None]] = {}) -> dict[str, StageCost]:
    """Every ledger of the run added up. ``prices``: judge id -> (price, Batch API price); a judge not named keeps
    the prices its earlier cost.json used."""
    earlier = read_cost(run)
    out: dict[str, StageCost] = {}
    for path in run.usage_files():
        rows = read_usage(path)
        by_producer: dict[str, list[UsageRecord]] = {}
        for r in rows:
            by_producer.setdefault(GENERATION if r.stage == "generation" else r.producer, []).append(r)
        for key, group in by_producer.items():
            given = prices.get(key)
            if not given or given == (None, None):  # nothing said now: the prices it was priced at before
                given = (earlier[key].price, earlier[key].batch_price) if key in earlier else (None, None)
            price, batch = given
            out[key] = stage_cost(group, price, batch)
    return out


def write_cost(run: RunDir, prices: Mapping[str, tuple[Price | None, Price | None]] = {}) -> dict[str, StageCost]:
    cost = run_cost(run, prices)
    if cost:
        atomic_write_text(run.cost_file, json.dumps({k: v.model_dump(mode="json") for k, v in cost.items()},
                                                    indent=2, sort_keys=True) + "\n")
    return cost


def dollars(usd: float) -> str:
    """Money as commands print it: cents from $10 up, else four significant digits (a smoke run costs fractions of
    a cent)."""
    return f"${usd:,.2f}" if usd >= 10 else f"${usd:.4g}"


def cost_lines(cost: Mapping[str, StageCost], keys: Iterable[str] | None = None) -> list[str]:
    """One line per stage, as commands print them."""
    lines = []
    for key in keys if keys is not None else cost:
        c = cost.get(key)
        if c is None:
            continue
        money = f", {dollars(c.usd)}" if c.usd is not None else ""
        unknown = f" ({c.unknown_tokens} item(s) without token counts)" if c.unknown_tokens else ""
        lines.append(f"  cost {key}: {c.items} item(s), {c.requests} request(s), {c.cache_hits} cache hit(s), tokens "
                     f"{c.prompt_tokens:,} in + {c.output_tokens:,} out{unknown}, {c.seconds / 3600:.4f} h{money}")
    return lines
