"""One grammar of a dataset reference (issue 33): every spelling means the same to readers (rank, serve,
export, the Space) and writers (submit --to, create); each disagreement the old three grammars had is a case."""
from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.core.dataset_ref import DatasetRef
from toolkit.core.errors import BadOption
from toolkit.data.reading import parse_hub_id
from toolkit.outputs.publishing.hub import parse_target

# (spelling, Hub (repo id, revision) or None for a local path)
SPELLINGS = [
    ("org/name", ("org/name", None)),
    ("org/name@main", ("org/name", "main")),  # was a folder ./org/name@main to submit --to
    ("hf://datasets/org/name", ("org/name", None)),
    ("hf://datasets/org/name@v1", ("org/name", "v1")),  # was refused by submit --to
    ("hf://datasets/org/name/", ("org/name", None)),
    ("org/name@refs/pr/3", ("org/name", "refs/pr/3")),
    ("./org/name", None),
    ("./org/name@main", None),
    ("/abs/org", None),
    ("~/boards/x", None),
]


@pytest.mark.parametrize("spelling, hub", SPELLINGS)
def test_readers_and_writers_read_a_spelling_alike(spelling, hub, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    read = parse_hub_id(spelling)
    written = parse_target(spelling)
    assert (tuple(read) if read else None) == hub
    assert ((written.repo_id, written.revision) if written.is_hub else None) == hub
    if hub is None:
        assert written.path == Path(spelling).expanduser()


def test_an_existing_folder_wins_and_a_board_is_said(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "org" / "name").mkdir(parents=True)
    assert parse_hub_id("org/name") is None
    ref = parse_target("org/name")
    assert ref.path == Path("org/name") and ref.folder_note() is None  # an empty folder: no Hub dataset is shadowed
    (tmp_path / "org" / "name" / "board.yaml").write_text("suites: [xstest]\n")
    assert DatasetRef.parse("org/name").folder_note() == ("read the local folder org/name (it exists here); write "
                                                          "hf://datasets/org/name for the Hub dataset of that name")
    assert parse_target("hf://datasets/org/name").is_hub  # the explicit form still names the Hub


@pytest.mark.parametrize("spelling", ["my-board", "a/b/c", "org/name@", "name@main"])
def test_a_writer_refuses_what_is_neither_a_hub_id_nor_a_path(spelling, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BadOption, match="ambiguous") as caught:
        parse_target(spelling)
    assert caught.value.param == "to"
    assert parse_hub_id(spelling) is None  # a reader takes it as a path (and says "no such file" if it is not one)


@pytest.mark.parametrize("spelling", ["hf://datasets/name", "hf://models/org/name", "hf://datasets/org/name@", "hf://datasets/a/b/c"])
def test_a_malformed_hub_url_is_refused_by_readers_and_writers(spelling):
    for parse in (parse_hub_id, parse_target):
        with pytest.raises(BadOption, match="expected hf://datasets/ORG/NAME"):
            parse(spelling)


def test_explicit_parse_keeps_what_was_written():
    ref = DatasetRef.parse("hf://datasets/org/name@v1")
    assert ref.written == "hf://datasets/org/name@v1" and ref.url == "hf://datasets/org/name@v1" and str(ref) == "org/name@v1"


def test_the_folder_note_only_where_the_words_could_be_both(tmp_path, monkeypatch, capsys):
    """Issue 47: a run folder, a moderation run or a folder of records can be no Hub dataset: reading them says
    nothing; a board folder spelled like an id, typed by the user, is said once in the command however often the
    command reads it; a board a workflow names itself (an API call, the demo's demo-output/dataset) is said nothing."""
    import shutil

    from slmboard_testing import make_run
    from toolkit import api
    from toolkit.cli import main

    monkeypatch.chdir(tmp_path)
    run = make_run(tmp_path / "runs" / "llama2", judged=True)
    shutil.copytree(run / "judgments", tmp_path / "records" / "llama2")
    for argv in (["rank", "runs/llama2"], ["validate", "runs/llama2"], ["rank", "records/llama2"]):
        assert main(argv) == 0
        assert "note:" not in capsys.readouterr().err, argv
    from slmboard_testing import new_board

    api.submit(run, to=new_board("./org/board"))
    assert main(["rank", "org/board"]) == 0
    assert capsys.readouterr().err.count("note: read the local folder org/board (it exists here)") == 1
    api.rank("org/board")  # the same words from a program, not typed on a command line
    assert "note:" not in capsys.readouterr().err


def test_board_at_name_is_a_local_board_at_a_revision_and_read_only(tmp_path, monkeypatch):
    """``PATH@NAME`` (issue 49): PATH an existing board folder (git), ``PATH@NAME`` no existing path."""
    monkeypatch.chdir(tmp_path)
    for folder in ("board", "org/name"):
        (tmp_path / folder / ".git").mkdir(parents=True)
    ref = DatasetRef.parse("board@v1")
    assert (ref.is_hub, ref.path, ref.revision, str(ref)) == (False, Path("board"), "v1", "board@v1")
    assert DatasetRef.parse("org/name@v1").path == Path("org/name")  # the folder here, not the Hub id of that spelling
    assert DatasetRef.parse("./board@refs/tags/v1").revision == "refs/tags/v1"
    assert DatasetRef.parse("other/name@v1").repo_id == "other/name"  # no such folder: the Hub
    (tmp_path / "board@v2").mkdir()
    assert DatasetRef.parse("board@v2").revision is None  # an existing path is that path
    (tmp_path / "plain").mkdir()
    assert DatasetRef.parse("./plain@v1").revision is None  # not a board folder: a (missing) path
    with pytest.raises(BadOption, match="read only"):
        parse_target("board@v1")
