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


_ORIGINAL_INIT = SessionState.__init__


def install() -> None:
    """Idempotent: sessions opened from now on render their configs lazily."""
    SessionState.__init__ = _lazy_init


def uninstall() -> None:
    SessionState.__init__ = _ORIGINAL_INIT
