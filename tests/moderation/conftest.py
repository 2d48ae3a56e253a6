"""Fixtures for the moderation tests: one embedded-SmolLM2 moderator per session (fp32)."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def local_moderator():
    from toolkit.stages.moderation.components import LocalModeratorOptions
    from toolkit.stages.moderation.moderators import LocalModerator

    return LocalModerator(LocalModeratorOptions(dtype="float32", batch_size=4))


@pytest.fixture
def mod_row():
    def make(item_id="1", gold="flag", decision="flag", p=0.9, verbal=0.8, benchmark="xstest",
             moderator_id="org/mod-a", variant="default", **kw):
        row = {"schema_version": "1.0", "submission_id": "sub-1", "moderator_id": moderator_id,
               "benchmark": benchmark, "item_id": str(item_id), "gold": gold, "decision": decision,
               "p_flag_logprob": p, "confidence_verbal": verbal, "raw_output": "x", "prompt_variant": variant}
        row.update(kw)
        return row

    return make
