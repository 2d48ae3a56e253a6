"""Flags checked before a model loads (issue 43): a bad dtype (flag or --model-args) is one line and writes
nothing; ``--model-id`` names a model from a local folder only; ``trust_remote_code=true`` is said in one
warning line and recorded in the run."""
from __future__ import annotations

import json

import pytest

from toolkit.cli import main
from slmboard_testing import CannedBackend


@pytest.mark.parametrize("flags, said", [(["--dtype", "nope"], "unknown dtype 'nope'"),
                                          (["--model-args", "dtype=float17"], "unknown dtype 'float17'"),
                                          (["--model-id", "mine"], "the embedded model names itself")])
def test_a_bad_flag_is_one_line_before_loading_and_writes_nothing(flags, said, tmp_path, capsys):
    assert main(["generate", "--out", str(tmp_path / "run"), "--suites", "smoke", *flags]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and said in err[0] and "Traceback" not in err[0]
    assert not (tmp_path / "run").exists()


def test_model_id_of_a_local_folder_is_taken(tmp_path):
    from toolkit.stages.generation.components import BackendSpec

    folder = tmp_path / "weights"
    folder.mkdir()
    spec = BackendSpec.combine(f"hf:{folder}", "model_id=org/mine")
    assert spec.options.model_id == "org/mine"


def test_trust_remote_code_is_said_once_and_recorded(tmp_path, capsys):
    from toolkit.stages.generation.components import GenerationRunOptions
    from toolkit.stages.generation.runner import generate

    generate(tmp_path / "run", model="hf", model_args="trust_remote_code=true",
             options=GenerationRunOptions(suites="smoke", limit=1), backend=CannedBackend(), show_progress=False)
    warned = [line for line in capsys.readouterr().err.splitlines() if "trust_remote_code" in line]
    assert len(warned) == 1 and warned[0].startswith("warning: trust_remote_code=true")
    assert json.loads((tmp_path / "run" / "run.json").read_text())["model_args"]["trust_remote_code"] == "true"
