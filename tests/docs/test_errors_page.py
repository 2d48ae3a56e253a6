"""docs/reference/errors.md has a section for every error kind: the classes of toolkit/core/errors.py and every
class elsewhere in toolkit/ that derives from one of them (found by reading the source, so nothing heavy is
imported). A new error without a section fails here."""
from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import toolkit.core.errors

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "reference" / "errors.md"


def error_kinds() -> set[str]:
    kinds = {name for name, obj in vars(toolkit.core.errors).items()
             if inspect.isclass(obj) and obj.__module__ == toolkit.core.errors.__name__}
    classes = [(node.name, {getattr(b, "id", getattr(b, "attr", "")) for b in node.bases})
               for path in (REPO / "toolkit").rglob("*.py")
               for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(node, ast.ClassDef)]
    grown = True
    while grown:  # subclasses of subclasses
        before = len(kinds)
        kinds |= {name for name, bases in classes if bases & kinds}
        grown = len(kinds) > before
    return kinds


def test_every_error_kind_has_a_section():
    sections = set(re.findall(r"^#{2,4} `(\w+)`", PAGE.read_text(encoding="utf-8"), re.M))
    missing = sorted(error_kinds() - sections)
    assert not missing, f"{PAGE.relative_to(REPO)} has no section (### `Name`) for: {missing}"
