"""Write the JSON Schemas of the record models next to this file: ``python -m schemas.export``."""
from __future__ import annotations

import json
from pathlib import Path

from . import EXPORTED_MODELS

HERE = Path(__file__).parent


def render(name: str) -> str:
    return json.dumps(EXPORTED_MODELS[name].model_json_schema(), indent=2, sort_keys=True) + "\n"


def main() -> None:
    for name in EXPORTED_MODELS:
        (HERE / f"{name}.schema.json").write_text(render(name), encoding="utf-8")
        print(f"wrote schemas/{name}.schema.json")


if __name__ == "__main__":
    main()
