"""Arrow schemas of every record type, derived from the pydantic models by one function.

:func:`arrow_schema` maps each model field to an arrow type (str and Literal → string, int → int64,
float → float64, bool → bool, a nested model → struct, list[X] → list<X>, Optional[X] → X, nullable). A record field
added to the model reaches every parquet file without editing a schema here. Published column
order is the model's declaration order (parquet shards of one config must share one schema, so a
new field goes last).
"""
from __future__ import annotations

import types
import typing
from functools import lru_cache
from typing import Any, Literal, Union

import pyarrow as pa
from pydantic import BaseModel

from schemas import ItemRecord, LeaderboardRow, ModerationRecord, ResponseRecord

__all__ = ["arrow_schema", "arrow_type", "ITEM_RECORD_SCHEMA", "RESPONSE_RECORD_SCHEMA", "MODERATION_RECORD_SCHEMA",
           "LEADERBOARD_SCHEMA", "GENERATION_TYPE", "leaderboard_arrow"]

_SCALARS: dict[type, pa.DataType] = {str: pa.string(), int: pa.int64(), float: pa.float64(), bool: pa.bool_()}

def arrow_type(annotation: Any) -> pa.DataType:
    """The arrow type of one field annotation (Annotated / Optional / Literal unwrapped)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return arrow_type(typing.get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(members) != 1:
            raise TypeError(f"cannot map the union {annotation!r} to one arrow type")
        return arrow_type(members[0])
    if origin is Literal:
        kinds = {type(v) for v in typing.get_args(annotation)}
        if len(kinds) != 1:
            raise TypeError(f"cannot map the mixed Literal {annotation!r} to one arrow type")
        return _SCALARS[kinds.pop()]
    if origin is list:  # a list of records (ItemRecord.votes) → list<struct>
        return pa.list_(arrow_type(typing.get_args(annotation)[0]))
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return pa.struct(list(arrow_schema(annotation)))
    if annotation in _SCALARS:
        return _SCALARS[annotation]
    raise TypeError(f"no arrow type for {annotation!r}; extend arrow_type")


@lru_cache(maxsize=None)
def arrow_schema(model: type[BaseModel]) -> pa.Schema:
    """The arrow schema of ``model``: one nullable column per field, in the model's declaration order."""
    return pa.schema([(name, arrow_type(f.annotation)) for name, f in model.model_fields.items()])


ITEM_RECORD_SCHEMA = arrow_schema(ItemRecord)
RESPONSE_RECORD_SCHEMA = arrow_schema(ResponseRecord)
MODERATION_RECORD_SCHEMA = arrow_schema(ModerationRecord)
LEADERBOARD_SCHEMA = arrow_schema(LeaderboardRow)
GENERATION_TYPE = ITEM_RECORD_SCHEMA.field("generation").type


def leaderboard_arrow(table: Any) -> pa.Table:
    """The leaderboard with one fixed arrow schema, whatever pandas inferred (all-null columns included)."""
    clean = table.astype(object).where(table.notna(), None)
    return pa.Table.from_pylist(clean.to_dict(orient="records"), schema=LEADERBOARD_SCHEMA)
