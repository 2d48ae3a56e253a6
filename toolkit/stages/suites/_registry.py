"""The suite registry: one :class:`~toolkit.core.registry.Registry` of suites, filled by @register_suite from each
Suite class (its options model, description and whether its results are comparable with reported ones)."""
from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence, TypeVar, Union

from toolkit.core.errors import BadOption
from toolkit.core.registry import Registry
from ._base import Suite, SuiteItem

#: name -> suite, in registration order (``list(SUITES)``, ``SUITES["smoke"].load()`` is the class).
SUITES: Registry[Suite] = Registry("suite", normalize=lambda n: n.strip().lower())

S = TypeVar("S", bound=type[Suite])


def register_suite(cls: S) -> S:
    """Class decorator: add a Suite subclass to SUITES under its ``name``."""
    name = getattr(cls, "name", None)
    if not (isinstance(cls, type) and issubclass(cls, Suite)):
        raise TypeError(f"{cls!r} is not a subclass of Suite")
    if not isinstance(name, str) or not name:
        raise ValueError(f"{cls.__qualname__} must set a non-empty class attribute 'name'")
    for attr in ("description", "source", "revision", "license"):
        if not isinstance(getattr(cls, attr, None), str):
            raise ValueError(f"suite '{name}' ({cls.__qualname__}) must set a string class attribute {attr!r}")
    SUITES.add(name, cls.description, cls, cls.Options, comparable=cls.comparable,
               extra={"source": cls.source, "revision": cls.revision, "license": cls.license})
    return cls


def get_suite(name: str, **options: object) -> Suite:
    """An instance of the registered suite ``name`` (UnknownComponent, listing valid names, otherwise)."""
    return SUITES.get(name).build(options)


def _names(names: Union[Sequence[str], str]) -> list[str]:
    # A single string may be a comma list, as typed after --suites.
    raw = names.split(",") if isinstance(names, str) else list(names)
    out: list[str] = []
    for n in (x.strip() for x in raw):
        if n and n not in out:  # loading a suite twice would only duplicate its ids
            out.append(n)
    if not out:
        raise BadOption(f"no suite names given; valid suites: {', '.join(SUITES.names())}")
    return out


def load_items(
    names: Union[Sequence[str], str],
    data_dir: Optional[Union[Path, str]] = None,
    limit: Optional[int] = None,
) -> list[SuiteItem]:
    """Items of each named suite in file order; ``limit`` keeps the first N of each suite."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise BadOption(f"limit must be a positive integer or None, got {limit!r}")
    suites = [get_suite(n) for n in _names(names)]  # resolve every name before any slow load
    root = Path(data_dir).expanduser() if data_dir is not None else None
    items: list[SuiteItem] = []
    for suite in suites:
        loaded = suite.load(root)
        items.extend(loaded if limit is None else loaded[:limit])
    return items
