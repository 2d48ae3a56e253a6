"""The import part of the bad-input corpus: clear message naming file/row/field, exit 1, nothing written."""
from __future__ import annotations

import pytest

from importing_helpers import tree_digest
from slmboard_badinput import IMPORT_CASES
from toolkit.cli import main


@pytest.mark.parametrize("case", IMPORT_CASES, ids=lambda c: c.name)
def test_bad_import_source(case, tmp_path, capsys):
    argv = case.make(tmp_path)
    before = tree_digest(tmp_path)
    rc = main(["import", *argv])
    err = capsys.readouterr().err
    assert rc == 1, err
    src = argv[1] if len(argv) > 1 else ""
    assert case.message.replace("{src}", src) in err, err
    assert "Traceback" not in err
    assert tree_digest(tmp_path) == before  # nothing written, no staging folder left behind
