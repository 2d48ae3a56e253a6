"""What a judge's tokens cost: the shipped table (``data/prices/openai.json``: the API judges the docs name, each
price with the page and date it was read; never fetched at run time) or ``--price JUDGE=IN_PER_1M,OUT_PER_1M``.

A table price applies only to the OpenAI API itself (no ``base_url``): a model of the same name served elsewhere
(vLLM on one's own machine) is not billed by OpenAI. A given price applies to the Batch API too.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Sequence

from schemas.usage import Price

from toolkit.core.errors import BadOption
from toolkit.core.judge_names import judge_slug

TABLE = Path(__file__).resolve().parent / "data" / "prices" / "openai.json"
Prices = tuple[Price | None, Price | None]  # (price, Batch API price)


@lru_cache(maxsize=1)
def price_table() -> dict[str, Prices]:
    models = json.loads(TABLE.read_text(encoding="utf-8"))["models"]
    out = {}
    for model, row in models.items():
        where = {"source": row["source"], "read_on": row["read_on"]}
        batch = row.get("batch")
        out[model] = (Price(input_per_1m=row["input_per_1m"], output_per_1m=row["output_per_1m"], **where),
                      Price(**batch, **where) if batch else None)
    return out


def parse_prices(values: Sequence[str] | None) -> dict[str, Price]:
    """``["JUDGE=IN,OUT", ...]`` -> judge -> Price; a malformed one is refused naming it."""
    out: dict[str, Price] = {}
    for value in values or ():
        judge, _, rates = value.rpartition("=")
        parts = rates.split(",")
        try:
            if not judge.strip() or len(parts) != 2:
                raise ValueError
            inp, outp = (float(p) for p in parts)
            if not (inp >= 0 and outp >= 0):
                raise ValueError
        except ValueError:
            raise BadOption(f"price {value!r}: expected JUDGE=IN_PER_1M,OUT_PER_1M (US dollars per million input and "
                            "output tokens, e.g. openai:gpt-4o=2.5,10)", param="price") from None
        out[judge.strip()] = Price(input_per_1m=inp, output_per_1m=outp, source="given (--price)")
    return out


def judge_prices(judge: object, given: dict[str, Price]) -> Prices:
    """The prices of a built judge: one given for it (by id, folder slug or spec), else the table's for an OpenAI API
    model, else none. A price given for another judge is refused (a typo must not leave a run unpriced silently)."""
    judge_id = getattr(judge, "judge_id", "")
    names = {judge_id, judge_slug(judge_id) if judge_id else "", str(getattr(judge, "spec", "") or "")}
    for name in given:
        if name not in names:
            raise BadOption(f"price of {name!r}: this command's judge is {judge_id!r}, not {name!r}", param="price")
    if given:
        price = next(iter(given.values()))
        return price, price
    model = getattr(judge, "model", None)
    if getattr(judge, "registered_as", None) == "openai" and getattr(judge, "base_url", None) is None and model:
        return price_table().get(model, (None, None))
    return None, None
