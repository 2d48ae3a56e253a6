"""The docs pages run as a reader outside the repository runs them: against the built wheel in a fresh venv,
made once per test session (building and installing take seconds; every page shares them)."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def docs_install(tmp_path_factory):
    from slmboard_docs_sandbox import build_wheel, install_wheel

    root = tmp_path_factory.mktemp("docs-wheel")
    return install_wheel(build_wheel(root), root / "venv")
