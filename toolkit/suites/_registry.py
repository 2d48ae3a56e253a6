"""The suite registry: a plain dict filled by @register_suite."""
from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence, TypeVar, Union

from ._base import Suite, SuiteItem, UnknownSuiteError

SUITES: dict[str, type[Suite]] = {}

S = TypeVar("S", bound=type[Suite])


def register_suite(cls: S) -> S:
    """Class decorator: add a Suite subclass to SUITES under its ``name``."""
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name:
        raise ValueError(f"{cls.__qualname__} must set a non-empty class attribute 'name'")
    for attr in ("description", "source", "revision", "license"):
        if not isinstance(getattr(cls, attr, None), str):
            raise ValueError(f"suite '{name}' ({cls.__qualname__}) must set a string class attribute {attr!r}")
    old = SUITES.get(name)
    # The same class seen again (module reloaded) is fine; two classes claiming one name are not.
    if old is not None and (old.__module__, old.__qualname__) != (cls.__module__, cls.__qualname__):
        raise ValueError(f"suite name '{name}' is already registered by {old.__module__}.{old.__qualname__}")
    SUITES[name] = cls
    return cls


def get_suite(name: str) -> Suite:
    """An instance of the registered suite ``name``."""
    cls = SUITES.get(name.strip().lower()) if isinstance(name, str) else None
    if cls is None:
        raise UnknownSuiteError(f"unknown suite {name!r}; valid suites: {', '.join(sorted(SUITES))}")
    return cls()


def _names(names: Union[Sequence[str], str]) -> list[str]:
    # A single string may be a comma list, as typed after --suites.
    raw = names.split(",") if isinstance(names, str) else list(names)
    out: list[str] = []
    for n in (x.strip() for x in raw):
        if n and n not in out:  # loading a suite twice would only duplicate its ids
            out.append(n)
    if not out:
        raise ValueError(f"no suite names given; valid suites: {', '.join(sorted(SUITES))}")
    return out


def load_items(
    names: Union[Sequence[str], str],
    data_dir: Optional[Union[Path, str]] = None,
    limit: Optional[int] = None,
) -> list[SuiteItem]:
    """Items of each named suite in file order; ``limit`` keeps the first N of each suite."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ValueError(f"limit must be a positive integer or None, got {limit!r}")
    suites = [get_suite(n) for n in _names(names)]  # resolve every name before any slow load
    root = Path(data_dir).expanduser() if data_dir is not None else None
    items: list[SuiteItem] = []
    for suite in suites:
        loaded = suite.load(root)
        items.extend(loaded if limit is None else loaded[:limit])
    return items
