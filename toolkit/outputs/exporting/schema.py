"""Validate EEE documents against the schema files shipped in ``eee_schema/`` (copied unchanged from
evaleval/every_eval_ever, MIT; see eee_schema/LICENSE.txt). An invalid document is our bug: the export
stops before writing anything and names the file and the JSON path that failed."""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from .files import ExportError

AGGREGATE_SCHEMA = "eval.schema.json"
SAMPLE_SCHEMA = "instance_level_eval.schema.json"


def schema_text(name: str) -> str:
    return resources.files("toolkit.outputs.exporting").joinpath("eee_schema", name).read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def _validator(name: str):
    import jsonschema

    schema = json.loads(schema_text(name))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def schema_errors(document: dict, name: str) -> list[str]:
    """Every violation as "<json path>: <message>" (empty when the document is valid)."""
    errors = sorted(_validator(name).iter_errors(document), key=lambda e: list(e.absolute_path))
    return [f"{'/'.join(str(p) for p in e.absolute_path) or '(root)'}: {e.message}" for e in errors]


def _check(document: dict, name: str, where: str) -> None:
    errors = schema_errors(document, name)
    if errors:
        raise ExportError(f"{where}: not valid against EEE {name}: " + "; ".join(errors[:5]))


def validate_aggregate(document: dict, where: str) -> None:
    _check(document, AGGREGATE_SCHEMA, where)


def validate_sample(document: dict, where: str) -> None:
    _check(document, SAMPLE_SCHEMA, where)
