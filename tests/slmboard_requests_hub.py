"""The Hub emulator with tiny random Llamas uploaded as model repos, and a board that takes requests."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from slmboard_hub_clients import client, hub_env
from slmboard_hub_emulator import start_emulator

#: The recipe of every board here: the cheapest evaluation that still ranks (done-when of issue 36).
RECIPE = {"suites": ["smoke"], "judges": ["heuristic-v1"], "decoding": {"max_new_tokens": 8}, "limits": {"items": 2}}


def save_tiny(folder) -> None:
    """A tiny random Llama (about 0.8M parameters) with the embedded SmolLM2's tokenizer, saved as safetensors."""
    from transformers import LlamaConfig, LlamaForCausalLM

    from toolkit.stages.generation.embedded import dense_model_dir

    embedded, _ = dense_model_dir()
    config = LlamaConfig(vocab_size=49152, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=2048, tie_word_embeddings=True)
    LlamaForCausalLM(config).save_pretrained(folder, safe_serialization=True)
    for name in ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja", "generation_config.json"):
        if (embedded / name).exists():
            shutil.copy(embedded / name, folder / name)


def variant(base, folder, chat_template: bool = True, auto_map: bool = False) -> None:
    """A copy of the model in ``base``, without its chat template or needing its own code (auto_map)."""
    shutil.copytree(base, folder)
    if not chat_template:
        (folder / "chat_template.jinja").unlink(missing_ok=True)
    tok = json.loads((folder / "tokenizer_config.json").read_text())
    if not chat_template:
        tok.pop("chat_template", None)
        (folder / "tokenizer_config.json").write_text(json.dumps(tok))
    if auto_map:
        cfg = json.loads((folder / "config.json").read_text())
        cfg["auto_map"] = {"AutoModelForCausalLM": "modeling_evil.EvilForCausalLM"}
        (folder / "config.json").write_text(json.dumps(cfg))


@pytest.fixture(scope="package")
def hub(tmp_path_factory):
    """(emulator, home): org/tiny, org/tiny-b, org/no-template, org/remote-code, org/gated, org/private-tiny uploaded."""
    home = tmp_path_factory.mktemp("requests-hub")
    models = {"org/tiny": {}, "org/tiny-b": {}, "org/no-template": {"chat_template": False}, "org/remote-code": {"auto_map": True},
              "org/gated": {}, "org/private-tiny": {}}
    save_tiny(home / "base")
    for repo, kwargs in models.items():
        variant(home / "base", home / repo.replace("/", "__"), **kwargs)
    emu = start_emulator()
    env = hub_env(emu, home)
    client(env, f"""
        import json
        from huggingface_hub import HfApi
        api = HfApi()
        for repo in {list(models)!r}:
            api.create_repo(repo, repo_type="model", private=repo == "org/private-tiny")
            api.upload_folder(repo_id=repo, repo_type="model", folder_path={str(home)!r} + "/" + repo.replace("/", "__"))
        api.update_repo_settings("org/gated", gated="auto")
        print(json.dumps({{"ok": True}}))
    """)
    yield emu, home
    emu.stop()


def make_board(env, board: str, recipe: dict) -> None:
    """``slmboard create`` of a board with ``recipe`` as its board.yaml (its requests dataset beside it)."""
    client(env, f"""
        import json
        from toolkit import api
        result = api.create({board!r}, recipe={recipe!r})
        print(json.dumps({{"requests": result.requests_dataset}}))
    """)


def worker(env, board: str, runs, *extra: str) -> subprocess.Popen:
    """`slmboard worker BOARD --once` started in its own process (read it with communicate())."""
    return subprocess.Popen([sys.executable, "-m", "toolkit.cli", "worker", board, "--once", "--runs", str(runs),
                             "--quiet", *extra], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
