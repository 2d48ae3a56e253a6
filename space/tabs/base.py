"""The contract between the app and its tabs.

A tab module has ``build(ctx) -> TabView``, called inside its ``gr.Tab``. The app wires one set of
events for all tabs: the shared suite/judge selectors, every tab's inputs (restorable from the
URL's query parameters) and each tab's outputs recomputed by ``update``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from space.state import Holder, Settings


@dataclass
class Ctx:
    holder: Holder
    settings: Settings


@dataclass
class Param:
    """An input restorable from the URL: ``?key=value``."""

    key: str
    component: Any
    default: Any
    #: str from the URL -> component value (None: keep the string)
    parse: Callable[[str], Any] | None = None
    #: reset to the default when the suite changes (its choices depend on the suite)
    per_suite: bool = False
    #: values whose views are computed ahead for every (suite, judge), once per data version
    prepare: tuple = ()


@dataclass
class TabView:
    key: str
    params: list[Param] = field(default_factory=list)
    outputs: list[Any] = field(default_factory=list)
    #: (suite, judge, values {param key: value} of every tab) -> one value/update per output
    update: Callable[[str | None, str | None, dict], tuple] | None = None
    #: keys whose change recomputes this tab (its own params are always included)
    reads: set[str] = field(default_factory=set)
    #: computed only while the tab is open (and when it is opened): expensive reads
    lazy: bool = False
    #: computed in a follow-up event, after the rest of the page has answered (slow figures)
    deferred: bool = False
    #: the last outputs only a click on a row fills (``update`` clears them): a restored view leaves them empty
    details: int = 0
    #: ``update`` is a function of the data, suite, judge and the values of ``params`` and ``reads``
    #: only: its outputs are kept once per data version and inputs (space/prepared.py)
    memo: bool = False
