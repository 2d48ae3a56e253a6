"""Gradio re-reads the signature of a component class's ``__init__`` every time it renders a block's
config: for every block of the page when a visitor's first event opens its session, and for every
output of every event (skipped ones included). ``inspect.signature`` is slow (~0.5 ms a call); on this
page of ~150 blocks it was most of what opening a session cost (BENCHMARKS.md, "Space under concurrent
clients", shared links). A function's signature does not change while the process runs, so inside
``gradio.blocks`` (only there) ``inspect.signature`` of a callable is computed once and kept.
The configs Gradio renders are the same (tests/space/test_space_prepared.py).
"""
from __future__ import annotations

import inspect
import threading
import types


class _Inspect(types.ModuleType):
    """``inspect`` with ``signature(obj)`` (no options) kept per callable."""

    def __init__(self):
        super().__init__("inspect")
        self.__dict__.update({k: v for k, v in vars(inspect).items() if not k.startswith("__") and k != "signature"})
        self._signatures: dict = {}
        self._lock = threading.Lock()

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
    """Idempotent: gradio.blocks then reads signatures through :class:`_Inspect`."""
    import gradio.blocks

    if not isinstance(gradio.blocks.inspect, _Inspect):
        gradio.blocks.inspect = _Inspect()


def uninstall() -> None:
    import gradio.blocks

    gradio.blocks.inspect = inspect
