"""One typed registry for every pluggable component: suites, judges, backends, moderators.

A :class:`Registry` maps a name to an entry of one declared kind (a Suite class, a Judge
factory, ...). Entries are added two ways:

- ``@REG.register("name")`` on a class or function (the entry is type-checked at once), or
- ``REG.register_lazy("name", "package.module:object")``: the module is imported only when the
  name is first looked up, so an unused judge never imports its dependencies (torch, openai).

A name is registered once: a second, different entry under the same name is refused (the same
object seen again, e.g. a reloaded module, is accepted). Looking up an unknown name raises
:class:`~toolkit.errors.UnknownComponent`, which lists every valid name; it is a
:class:`~toolkit.errors.SlmboardError`, so the CLI prints it as one line and exits 1.

The design follows lm-eval's ``api/registry.py`` (lazy ``module:object`` placeholders, a per-kind
type check); this module imports nothing heavy.
"""
from __future__ import annotations

import importlib
import inspect
from typing import Callable, Generic, Iterator, TypeVar

from .errors import UnknownComponent

__all__ = ["Registry", "UnknownComponent"]

T = TypeVar("T")


class Registry(Generic[T]):
    """Named entries of one kind.

    ``kind`` names the component in messages ("suite", "judge"); ``check`` returns True for a
    valid entry (e.g. "a subclass of Suite", "callable"); ``normalize`` maps a looked-up name to
    its registered form (e.g. lower-case suite names).
    """

    def __init__(
        self,
        kind: str,
        check: Callable[[object], bool],
        expected: str,
        normalize: Callable[[str], str] = str.strip,
        error: Callable[[str, object, list[str]], UnknownComponent] = UnknownComponent,
    ) -> None:
        self.kind = kind
        self._check = check
        self._expected = expected
        self._normalize = normalize
        self._error = error
        self._entries: dict[str, T] = {}
        self._lazy: dict[str, str] = {}  # name -> "module:object", until first use

    # ---- adding ----------------------------------------------------------------------------
    def add(self, name: str, entry: T) -> T:
        """Register ``entry`` under ``name`` (type-checked; a different entry for a taken name is refused)."""
        self._check_name(name)
        if not self._check(entry):
            raise TypeError(f"{self.kind} {name!r}: {entry!r} is not {self._expected}")
        old = self._entries.get(name)
        if old is not None and not _same(old, entry):
            raise ValueError(f"{self.kind} name {name!r} is already registered by {_describe(old)}")
        self._entries[name] = entry
        return entry

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator form of :meth:`add`."""
        self._check_name(name)

        def deco(entry: T) -> T:
            return self.add(name, entry)

        return deco

    def register_lazy(self, name: str, target: str) -> None:
        """Register ``"module:object"``, imported on first lookup of ``name``."""
        self._check_name(name)
        module, sep, attr = target.partition(":")
        if not sep or not module or not attr:
            raise ValueError(f"{self.kind} {name!r}: lazy target {target!r} is not 'module:object'")
        if name in self._entries or self._lazy.get(name, target) != target:
            raise ValueError(f"{self.kind} name {name!r} is already registered")
        self._lazy[name] = target

    # ---- looking up ------------------------------------------------------------------------
    def get(self, name: str) -> T:
        """The entry of ``name``; :class:`UnknownComponent` (listing valid names) when there is none."""
        key = self._normalize(name) if isinstance(name, str) else name
        if isinstance(key, str) and key not in self._entries and key in self._lazy:
            self._load(key)
        if not isinstance(key, str) or key not in self._entries:
            raise self._error(self.kind, name, self.names())
        return self._entries[key]

    def names(self) -> list[str]:
        """Every valid name, loaded or not, sorted."""
        return sorted(set(self._entries) | set(self._lazy))

    def loaded(self) -> dict[str, T]:
        """The entries registered so far, in registration order (lazy ones not yet imported are absent)."""
        return dict(self._entries)

    def items(self) -> list[tuple[str, T]]:
        """(name, entry) of every name, in registration order (lazy entries are imported)."""
        return [(name, self.get(name)) for name in self]

    def __getitem__(self, name: str) -> T:
        return self.get(name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._normalize(name) in set(self.names())

    def __iter__(self) -> Iterator[str]:
        """Names in registration order (eager entries first, then lazy ones not yet imported)."""
        return iter([*self._entries, *(n for n in self._lazy if n not in self._entries)])

    def __len__(self) -> int:
        return len(self.names())

    # ---- internals -------------------------------------------------------------------------
    def _check_name(self, name: str) -> None:
        if not isinstance(name, str) or not name or ":" in name or name != name.strip():
            raise ValueError(f"invalid {self.kind} name {name!r} (non-empty, no ':' and no surrounding spaces)")

    def _load(self, name: str) -> None:
        module, _, attr = self._lazy[name].partition(":")
        obj = getattr(importlib.import_module(module), attr)
        # Importing the module may have registered the name itself (a decorator); otherwise add it.
        if name not in self._entries:
            self.add(name, obj)
        del self._lazy[name]


def _same(a: object, b: object) -> bool:
    # A reloaded module re-creates its classes: same module and qualified name is the same entry.
    return a is b or (
        getattr(a, "__module__", None) == getattr(b, "__module__", None)
        and getattr(a, "__qualname__", None) == getattr(b, "__qualname__", None)
        and getattr(a, "__qualname__", None) is not None
    )


def _describe(obj: object) -> str:
    if inspect.isclass(obj) or inspect.isfunction(obj):
        return f"{obj.__module__}.{obj.__qualname__}"
    return repr(obj)
