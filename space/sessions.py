"""Opening a Gradio session renders the config of every block of the page (``SessionState.__init__``): every
named API call through ``/gradio_api/call/NAME`` opens a new session, and so does each visitor's first event.
On this page (~150 blocks, the landing view baked into their values, which Gradio's ``delete_none`` walks)
that was ~4 ms of the ~15 ms a call to the table endpoint cost the server (BENCHMARKS.md, "Space: 50
visitors"). A session reads those configs only to save a deep link (``/gradio_api/deep_link``, which walks
them all) and to update the ones of the blocks an event touches, so here a block's config is rendered when
it is first read: the same dictionaries, rendered later (tests/space/test_space_sessions.py).
"""
from __future__ import annotations

import os

from gradio.state_holder import SessionState


class LazyConfigs(dict):
    """``{block id: config}`` of a session: rendered on first read; iterating renders the rest."""

    def __init__(self, blocks_config, ids: list[int]):
        super().__init__()
        self._blocks_config = blocks_config
        self._ids = ids

    def __missing__(self, key: int) -> dict:
        if key not in self._blocks_config.blocks:
            raise KeyError(key)
        config = self[key] = self._blocks_config.config_for_block(key, [], self._blocks_config.blocks[key])
        return config

    def _all(self) -> None:
        """Every block's config, in the page's order (as Gradio's own session lists them)."""
        if any(not dict.__contains__(self, k) for k in self._ids):
            rendered = dict(self)  # kept: an event may have updated them
            self.clear()
            for k in [*self._ids, *(k for k in rendered if k not in self._ids)]:
                if k in rendered:
                    dict.__setitem__(self, k, rendered[k])
                else:
                    self.__missing__(k)

    def items(self):
        self._all()
        return super().items()

    def values(self):
        self._all()
        return super().values()

    def __iter__(self):
        self._all()
        return super().__iter__()


def _lazy_init(self: SessionState, blocks) -> None:
    """``SessionState.__init__`` (gradio 6) with the configs rendered on first read."""
    from copy import copy

    self.blocks_config = copy(blocks.default_config)
    self.config_values = LazyConfigs(self.blocks_config, [k for k in self.blocks_config.blocks if k in blocks.blocks])
    self.state_data = {}
    self._state_ttl = {}
    self.is_closed = False
    self.STATE_TTL_WHEN_CLOSED = 1 if os.getenv("GRADIO_IS_E2E_TEST", None) else 3600


def _lazy_setitem(self: SessionState, key: int, value) -> None:
    """``SessionState.__setitem__`` (gradio 6), the block's config dropped instead of rendered: every event output
    with an update is set to a new component, then rendered once more (``_update_config``) and, with a value,
    updated in place (``_update_value_in_config``, which renders it again when it is missing)."""
    import datetime

    from gradio.components import State

    if not isinstance(self.config_values, LazyConfigs):  # a session from before install()
        return _ORIGINAL["__setitem__"](self, key, value)
    block = self.blocks_config.blocks.get(key)
    if isinstance(block, State):
        self._state_ttl[key] = (block.time_to_live, datetime.datetime.now())
        self.state_data[key] = value
    else:
        self.blocks_config.blocks[key] = value
    if block:
        self.config_values.pop(key, None)  # rendered from the block when next read


def _lazy_update_config(self: SessionState, key: int) -> None:
    if not isinstance(self.config_values, LazyConfigs):
        return _ORIGINAL["_update_config"](self, key)
    if self[key] is not None:
        self.config_values.pop(key, None)


_ORIGINAL = {name: getattr(SessionState, name) for name in ("__init__", "__setitem__", "_update_config")}
_LAZY = {"__init__": _lazy_init, "__setitem__": _lazy_setitem, "_update_config": _lazy_update_config}


def install() -> None:
    """Idempotent: sessions opened from now on render their configs lazily."""
    for name, fn in _LAZY.items():
        setattr(SessionState, name, fn)


def uninstall() -> None:
    for name, fn in _ORIGINAL.items():
        setattr(SessionState, name, fn)
