"""What the docs runner supplies in place of the guide's offline lm-eval step (issue 47) is that step's own output:
tests/docs/fixtures/guide_lm_eval/lm-eval-out was written by the block of bring-results.md as its text stands
(regenerate.py there runs it), and its results record every argument the block passes. A block whose command
changes fails here until the folder is made again."""
from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "fixtures" / "guide_lm_eval"))
import regenerate  # noqa: E402

SUPPLIED = HERE / "fixtures" / "guide_lm_eval" / "lm-eval-out"


def _flags(code: str) -> dict[str, str]:
    words = shlex.split(code.replace("\\\n", " "))
    words = words[words.index("lm_eval") + 1:]
    out, i = {}, 0
    while i < len(words):
        key = words[i].lstrip("-")
        takes_value = i + 1 < len(words) and not words[i + 1].startswith("--")
        out[key] = words[i + 1] if takes_value else ""
        i += 2 if takes_value else 1
    return out


def _supplied() -> tuple[dict, list[str]]:
    (results,) = SUPPLIED.glob("*/results_*.json")
    return json.loads(results.read_text(encoding="utf-8")), sorted(p.name for p in results.parent.glob("samples_*.jsonl"))


def test_the_supplied_lm_eval_output_records_the_guide_blocks_own_arguments():
    block = regenerate.offline_lm_eval_block()
    flags = _flags(block.code)
    results, samples = _supplied()
    config = results["config"]
    tasks = flags["tasks"].split(",")
    assert sorted(results["results"]) == sorted(tasks)
    assert [s.split("_20")[0] for s in samples] == sorted(f"samples_{t}" for t in tasks)  # --log_samples
    assert config["model"] == flags["model"]
    # pretrained="$(slmboard model-path)": the embedded model's folder, whatever its absolute path was there
    assert flags["model_args"] == "pretrained=$(slmboard model-path)"
    from toolkit.stages.generation.embedded import dense_model_dir

    assert Path(config["model_args"]["pretrained"]).name == Path(dense_model_dir()[0]).name
    assert str(config["batch_size"]) == flags["batch_size"]
    assert config["limit"] == float(flags["limit"])
    key, value = flags["gen_kwargs"].split("=")
    assert config["gen_kwargs"] == {key: int(value)}
    metadata = json.loads(flags["metadata"])
    for task in tasks:  # each task read the block's data folder and categories
        assert {k: results["configs"][task]["metadata"].get(k) for k in metadata} == metadata, task
    assert "apply_chat_template" in flags and results.get("chat_template")  # the chat template was applied
