"""The token a command is given reaches its Hub calls, also from the threads a board submits in;
left out, huggingface_hub's own resolution (HF_TOKEN, the saved login) applies."""
from __future__ import annotations

from toolkit.stages.executors.base import run_in_thread
from toolkit.core.hub_access import current_token, hub_api, hub_token


def test_token_is_scoped_to_the_call_and_none_passes_through():
    assert current_token() is None
    with hub_token("hf_commandtoken123"):
        assert current_token() == "hf_commandtoken123" and hub_api().token == "hf_commandtoken123"
        with hub_token(None):  # an inner call without a token keeps the outer one
            assert current_token() == "hf_commandtoken123"
    assert current_token() is None and hub_api().token is None  # HfApi(token=None): HF_TOKEN / the saved login


def test_a_job_thread_carries_the_token_of_the_command_that_started_it():
    with hub_token("hf_boardtoken4567"):
        seen = run_in_thread(current_token, name="submit")
    assert seen.result(timeout=10) == "hf_boardtoken4567"
