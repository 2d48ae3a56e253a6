"""The suite registry: one :class:`~toolkit.core.registry.Registry` of suites, filled by @register_suite from each
Suite class (its options model, description and whether its results are comparable with reported ones)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence, TypeVar, Union

from schemas import ITEM_KINDS

from toolkit.core.errors import BadOption
from toolkit.core.registry import Registry
from ._base import Suite, SuiteItem

def _checked(cls: object) -> str:
    name = getattr(cls, "name", None)
    if not (isinstance(cls, type) and issubclass(cls, Suite)):
        raise TypeError(f"{cls!r} is not a subclass of Suite")
    if not isinstance(name, str) or not name:
        raise ValueError(f"{cls.__qualname__} must set a non-empty class attribute 'name'")
    for attr in ("description", "source", "revision", "license"):
        if not isinstance(getattr(cls, attr, None), str):
            raise ValueError(f"suite '{name}' ({cls.__qualname__}) must set a string class attribute {attr!r}")
    kind = cls.__dict__.get("kind", getattr(cls, "kind", None))
    if kind not in ITEM_KINDS:
        raise ValueError(f"suite '{name}' ({cls.__qualname__}) must declare its kind, one of {', '.join(ITEM_KINDS)}; got {kind!r}")
    return name


def plugin_suite(name: str, obj: object, plugin: dict) -> dict:
    """A suite another package adds (entry-point group ``slmboard.suites``, ``NAME = "module:SuiteSubclass"``, the
    class's ``name`` equal to NAME). Its records' ``suite_revision`` names the package and version that made them."""
    if _checked(obj) != name:
        raise TypeError(f"the entry point is named {name!r} but the class's name is {getattr(obj, 'name')!r}")
    cls = type(obj.__name__, (obj,), {"revision": f"{obj.revision} ({plugin['package']} {plugin['version']})",
                                      "__module__": obj.__module__, "__qualname__": obj.__qualname__})
    return {"summary": cls.description, "target": cls, "options": cls.Options, "comparable": cls.comparable,
            "extra": {"source": cls.source, "revision": cls.revision, "license": cls.license, "kind": cls.kind}}


#: name -> suite, in registration order (``list(SUITES)``, ``SUITES["smoke"].load()`` is the class).
SUITES: Registry[Suite] = Registry("suite", normalize=lambda n: n.strip().lower(), plugins="slmboard.suites",
                                   adapt=plugin_suite)

S = TypeVar("S", bound=type[Suite])


def register_suite(cls: S) -> S:
    """Class decorator: add a Suite subclass to SUITES under its ``name``."""
    name = _checked(cls)
    kind = cls.kind
    SUITES.add(name, cls.description, cls, cls.Options, comparable=cls.comparable,
               extra={"source": cls.source, "revision": cls.revision, "license": cls.license, "kind": kind})
    return cls


def get_suite(name: str, **options: object) -> Suite:
    """An instance of the registered suite ``name`` (UnknownComponent, listing valid names, otherwise)."""
    return SUITES.get(name).build(options)


def suite_kind(name: str) -> str:
    """The kind of item the registered suite ``name`` holds (UnknownComponent for an unknown name)."""
    return SUITES.get(name).extra["kind"]


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


@dataclass(frozen=True)
class SuiteInfo:
    """One row of `slmboard suites list`: what a suite is and where its data comes from."""

    name: str
    kind: str  # one of schemas.ITEM_KINDS: free-text answers (with or without a gold label) or multiple-choice
    items: int | None  # None: a plugin suite that does not say
    source: str
    revision: str
    license: str
    comparable: bool
    summary: str


def suite_infos() -> list[SuiteInfo]:
    """Every registered suite, in registration order."""
    out = []
    for component in SUITES.components():
        cls = component.load()
        out.append(SuiteInfo(component.name, component.extra["kind"],
                             getattr(cls, "n_items", None), cls.source, cls.revision, cls.license, cls.comparable, component.summary))
    return out


def download_suites(to: Union[Path, str], names: Union[Sequence[str], str, None] = None,
                    sample: bool = False) -> list:
    """The pinned source files of ``names`` (default: every suite whose data does not ship with the package) into
    the data folder ``to``, hashes checked (see ``_sources``); returns what is there (``FetchedFile`` each).
    ``sample``: the samples the package ships instead (default: every suite that has one), no network."""
    from ._samples import SAMPLES, write_samples
    from ._sources import download

    if names is None:
        names = list(SAMPLES) if sample else [c.name for c in SUITES.components()]
    suites = [get_suite(n) for n in _names(names)]
    return write_samples(suites, Path(to)) if sample else download(suites, Path(to))
