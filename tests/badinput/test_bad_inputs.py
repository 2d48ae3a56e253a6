"""The bad-input corpus (tests/slmboard_badinput.py): clear errors, non-zero exits, nothing written."""
from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path

import pytest

from slmboard_badinput import CLI_CASES, DOC_HEADER, FILE_CASES, RECORD_CASES, render_table
from slmboard_testing import make_item_row, make_run, new_board
from toolkit import api
from toolkit.cli import main
from toolkit.core.runs import RunDir

REPO = Path(__file__).resolve().parents[2]


def tree_digest(root: Path, skip: str | None = None) -> str:
    """The files under ``root`` and their bytes; ``skip``: a folder name left out wherever it is (``.git``: git's
    own bookkeeping, such as ORIG_HEAD after a commit that was undone)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and skip not in p.relative_to(root).parts):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def test_corpus_has_at_least_40_kinds():
    assert len(RECORD_CASES) + len(FILE_CASES) + len(CLI_CASES) >= 40
    names = [c.name for c in (*RECORD_CASES, *FILE_CASES, *CLI_CASES)]
    assert len(names) == len(set(names))


def test_other_cases_name_tests_that_exist():
    from slmboard_badinput import OTHER_CASES

    assert all((REPO / test).is_file() for *_, test in OTHER_CASES)


def test_docs_table_matches_corpus():
    doc = (REPO / "docs" / "bad-inputs.md").read_text(encoding="utf-8")
    assert doc == DOC_HEADER + render_table(), "regenerate: python tests/slmboard_badinput.py > docs/bad-inputs.md"


@pytest.mark.parametrize("case", RECORD_CASES, ids=lambda c: c.name)
def test_validate_names_file_row_and_field(case, tmp_path, capsys):
    path = tmp_path / "records.jsonl"
    path.write_bytes(json.dumps(make_item_row("i1")).encode() + b"\n" + case.line() + b"\n")
    rc = main(["validate", str(path)])
    err = capsys.readouterr().err
    assert rc == 1
    locator = f"{path}:{case.where}" + ("" if ":" in case.where else ":")
    matching = [line for line in err.splitlines() if line.startswith(locator)]
    assert matching, f"no error at {locator} in:\n{err}"
    assert any(case.message in line for line in matching), f"{case.message!r} not in {matching}"


@pytest.fixture(scope="module")
def published(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("published")
    dataset = base / "dataset"
    new_board(dataset)
    api.submit(make_run(base / "good"), to=dataset, options=api.SubmitOptions(n_bootstrap=0))
    return dataset


@pytest.mark.parametrize("case", RECORD_CASES, ids=lambda c: c.name)
def test_submit_refuses_and_leaves_dataset_byte_identical(case, published, tmp_path, capsys):
    before = tree_digest(published)
    run = make_run(tmp_path / "run", model_id="org/model-x", submission_id="model-x-1")
    jfile = RunDir(run).judgment_file("heuristic-v1", "smoke")
    good_lines = jfile.read_bytes().splitlines()
    jfile.write_bytes(good_lines[0] + b"\n" + case.line() + b"\n" + b"\n".join(good_lines[1:]) + b"\n")
    rc = main(["submit", str(run), "--to", str(published), "--bootstrap", "0"])
    err = capsys.readouterr().err
    assert rc == 1, err
    assert f"{jfile}:2" in err
    assert tree_digest(published) == before


@pytest.mark.parametrize("case", FILE_CASES, ids=lambda c: c.name)
def test_bad_files(case, tmp_path, capsys):
    (tmp_path / "submissions").mkdir()
    path = case.make(tmp_path)
    rc = main(["validate", str(path)])
    out = capsys.readouterr()
    assert rc == 1
    text = out.err + out.out
    assert case.message in text, text[-2000:]
    assert str(path) in text


@pytest.mark.parametrize("case", CLI_CASES, ids=lambda c: c.name)
def test_bad_cli_arguments(case, tmp_path, capsys):
    run = make_run(tmp_path / "a-run")
    if case.prepare is not None:
        case.prepare(tmp_path)
    with case.around(tmp_path) if case.around else contextlib.nullcontext({}) as fields:
        argv = [a.format(tmp=tmp_path, run=run, **fields) for a in case.argv]
        before = tree_digest(tmp_path, skip=".git")
        rc = main(argv)
        text = capsys.readouterr().err
        assert tree_digest(tmp_path, skip=".git") == before, "the refused command wrote files"
    assert rc == 1, text
    assert case.message in text, text
    assert "Traceback" not in text
    assert not (tmp_path / "run").exists() or not any((tmp_path / "run").rglob("*.jsonl"))
