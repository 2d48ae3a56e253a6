"""A model without a chat template gets the raw prompt, and the records say so (chat_template_sha256 null)."""
import json
import os

from toolkit.cli import main
from toolkit.stages.generation.embedded import dense_model_dir


def test_raw_prompt_is_recorded_and_noted(tmp_path, capsys):
    src, _ = dense_model_dir()
    model = tmp_path / "smol-no-template"
    model.mkdir()
    for f in src.iterdir():
        if f.name != "chat_template.jinja":  # the same weights and tokenizer, minus the template
            os.symlink(f, model / f.name)
    run = tmp_path / "run"
    rc = main(["generate", "--out", str(run), "--suites", "smoke", "--limit", "1", "--max-new-tokens", "2",
               "--model-args", f"pretrained={model}"])
    assert rc == 0
    assert "no chat template; raw prompts were sent" in capsys.readouterr().out
    row = json.loads((run / "responses" / "smoke.jsonl").read_text().splitlines()[0])
    assert row["generation"]["chat_template_sha256"] is None
    assert row["model_id"] == "smol-no-template" and row["model_revision"].startswith("sha256:")  # local: content hash
