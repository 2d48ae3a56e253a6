"""``--token`` of the commands that download models (generate, judge, moderate) reaches the download:
a private model on the Hub emulator is read with it, and refused without it, with no HF_TOKEN and no
saved login in the environment."""
from __future__ import annotations

import os
import shutil

import pytest

from slmboard_hub_clients import cli, client, hub_env
from slmboard_hub_emulator import start_emulator

MODEL = "org/tiny-private"


@pytest.fixture(scope="module")
def private_model(tmp_path_factory):
    """A tiny random Llama with the embedded SmolLM2's tokenizer, uploaded as a private model repo."""
    from transformers import LlamaConfig, LlamaForCausalLM

    from toolkit.stages.generation.embedded import dense_model_dir

    home = tmp_path_factory.mktemp("download-token")
    folder = home / "tiny"
    embedded, _ = dense_model_dir()
    config = LlamaConfig(vocab_size=49152, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=2048, tie_word_embeddings=True)
    LlamaForCausalLM(config).save_pretrained(folder)
    for name in ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja", "generation_config.json"):
        if (embedded / name).exists():
            shutil.copy(embedded / name, folder / name)
    emu = start_emulator()
    env = hub_env(emu, home)
    client(env, f"""
        import json
        from huggingface_hub import HfApi
        api = HfApi()
        api.create_repo({MODEL!r}, repo_type="model", private=True)
        api.upload_folder(repo_id={MODEL!r}, repo_type="model", folder_path={str(folder)!r})
        print(json.dumps({{"ok": True}}))
    """)
    yield emu, home
    emu.stop()


def test_generate_downloads_a_private_model_with_token_and_not_without(private_model, tmp_path):
    emu, home = private_model
    env = {k: v for k, v in hub_env(emu, tmp_path).items() if k != "HF_TOKEN"}  # no HF_TOKEN, no saved login
    env["HF_HUB_OFFLINE"] = "0"
    args = ["generate", "--model", f"hf:{MODEL}", "--suites", "smoke", "--limit", "1", "--max-new-tokens", "2"]
    refused = cli(env, *args, "--out", str(tmp_path / "refused"), check=False)
    assert refused.returncode == 1, refused.stderr[-2000:]
    assert MODEL in refused.stderr and "Traceback" not in refused.stderr and "--token" in refused.stderr

    done = cli(env, *args, "--out", str(tmp_path / "run"), "--token", emu.token)
    assert (tmp_path / "run" / "responses").is_dir() or any((tmp_path / "run").rglob("*.jsonl")), done.stdout
    assert emu.token not in done.stdout + done.stderr
    assert "HF_TOKEN" not in os.environ or os.environ["HF_TOKEN"] != emu.token  # the caller's environment untouched


def test_the_api_takes_the_token_as_the_command_does(private_model, tmp_path):
    """``api.generate(..., services=api.Services(token=...))`` from a notebook: refused without it, downloaded with it, and the
    caller's environment left as it was."""
    emu, _ = private_model
    env = {k: v for k, v in hub_env(emu, tmp_path).items() if k != "HF_TOKEN"}
    env["HF_HUB_OFFLINE"] = "0"
    got = client(env, f"""
        import json, os
        from toolkit import api
        from toolkit.core.errors import SlmboardError
        run = api.GenerationRunOptions(suites="smoke", limit=1, max_new_tokens=2)
        try:
            api.generate({str(tmp_path / "refused")!r}, "hf:{MODEL}", run, services=api.Services(progress=False))
            refused = None
        except SlmboardError as exc:
            refused = str(exc)
        result = api.generate({str(tmp_path / "run")!r}, "hf:{MODEL}", run,
                              services=api.Services(token={emu.token!r}, progress=False))
        print(json.dumps({{"refused": refused, "written": result.n_new, "hf_token": os.environ.get("HF_TOKEN")}}))
    """)
    assert got["refused"] and MODEL in got["refused"]
    assert got["written"] == 1 and got["hf_token"] is None
