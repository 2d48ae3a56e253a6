"""A local folder that does not exist, written as a path (/x, ./x, ../x, ~/x), is refused in one line
before anything loads: as a component's model folder it is never tried as a Hub id (which ended in a
download traceback), and as a dataset argument it is never sent to the Hub."""
from __future__ import annotations

import pytest

from toolkit.cli import main


@pytest.mark.parametrize("argv", [
    ["generate", "--out", "{tmp}/g", "--model", "hf:/missing/folder", "--limit", "1"],
    ["generate", "--out", "{tmp}/g", "--model", "hf:~/missing-model", "--limit", "1"],
    ["judge", "{tmp}/run", "--judge", "mdjudge:/missing"],
    ["moderate", "--out", "{tmp}/m", "--model", "guard:/missing", "--guard", "llama_guard_3", "--limit", "1"],
    ["moderate", "--out", "{tmp}/m", "--model", "hf:./missing/folder", "--limit", "1"],
], ids=["hf-absolute", "hf-home", "mdjudge", "guard-moderator", "hf-moderator-relative"])
def test_missing_component_folder_is_one_line(argv, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "run").mkdir()
    assert main([a.format(tmp=tmp_path) for a in argv]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    missing = next(a for a in argv if ":" in a and a.split(":", 1)[1].startswith(("/", "./", "~"))).split(":", 1)[1]
    assert err == [err[0]] and err[0].startswith(f"error: no such folder: {missing} "), err


@pytest.mark.parametrize("argv,needle", [
    (["rank", "../missing/board"], "no such file or folder"),
    (["review", "./org/board"], "a local folder board has none: submitting a run to ./org/board (`slmboard submit`) runs the same checks"),
])
def test_dataset_written_as_a_path_is_not_a_hub_id(argv, needle, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0] and argv[1].lstrip("./") in err[0], err


@pytest.mark.parametrize("fmt", ["helm", "inspect", "lm-eval", "eee", "table"])
def test_import_of_a_missing_path_is_one_line_naming_it_and_the_argument(fmt, tmp_path, capsys, monkeypatch):
    """Issue 47: "1 validation error(s): nothere: no such file or folder" — a mistyped path is no validation error."""
    monkeypatch.chdir(tmp_path)
    assert main(["import", fmt, "nothere", "--out", "run"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: nothere: no such file or folder (expected "), err
    assert "validation error" not in err[0] and "source is the argument SOURCE" in err[0], err
    assert not (tmp_path / "run").exists()
