"""Gradio re-reads the signature of a component class's ``__init__`` every time it renders a block's
config: for every block of the page when a visitor's first event opens its session, and for every
output of every event (skipped ones included); and every component built for an event's output (each
``gr.update``, a skip included, is applied to a new component) reads its ``__init__``'s argument spec
(``inspect.getfullargspec``, gradio.component_meta). ``inspect.signature`` is slow (~0.5 ms a call); on this
page of ~150 blocks it was most of what opening a session cost (BENCHMARKS.md, "Space under concurrent
clients", shared links), and the argument specs ~4 ms of a 17 ms shared-link restore ("Space: 50 visitors").
A function's signature does not change while the process runs, so inside ``gradio.blocks`` and
``gradio.component_meta`` (only there) both are computed once per callable and kept. The configs Gradio
renders are the same (tests/space/test_space_prepared.py).
"""
from __future__ import annotations

import inspect
import threading
import types


class _Inspect(types.ModuleType):
    """``inspect`` with ``signature(obj)`` (no options) and ``getfullargspec(func)`` kept per callable."""

    def __init__(self):
        super().__init__("inspect")
        self.__dict__.update({k: v for k, v in vars(inspect).items()
                              if not k.startswith("__") and k not in ("signature", "getfullargspec")})
        self._signatures: dict = {}
        self._argspecs: dict = {}
        self._lock = threading.Lock()

    def getfullargspec(self, func):  # noqa: D102 - inspect.getfullargspec, kept
        try:
            return self._argspecs[func]
        except KeyError:
            pass
        except TypeError:
            return inspect.getfullargspec(func)
        spec = inspect.getfullargspec(func)
        with self._lock:
            self._argspecs[func] = spec
        return spec

    def signature(self, obj, *args, **kwargs):  # noqa: D102 - inspect.signature, kept
        if args or kwargs:
            return inspect.signature(obj, *args, **kwargs)
        try:
            return self._signatures[obj]
        except KeyError:
            pass
        except TypeError:  # an unhashable callable: not kept
            return inspect.signature(obj)
        sig = inspect.signature(obj)
        with self._lock:
            self._signatures[obj] = sig
        return sig


def install() -> None:
    """Idempotent: gradio.blocks and gradio.component_meta then read signatures through :class:`_Inspect`."""
    import gradio.blocks
    import gradio.component_meta

    kept = gradio.blocks.inspect if isinstance(gradio.blocks.inspect, _Inspect) else _Inspect()
    gradio.blocks.inspect = gradio.component_meta.inspect = kept


def uninstall() -> None:
    import gradio.blocks
    import gradio.component_meta

    gradio.blocks.inspect = gradio.component_meta.inspect = inspect
