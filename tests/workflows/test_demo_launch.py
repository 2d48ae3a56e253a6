"""The demo workflow never imports the Space (a layer above it): the API hands it the launcher."""
from __future__ import annotations

import pytest

from toolkit.core.errors import SlmboardError
from toolkit.core.services import Services
from toolkit.workflows.demo_board import DemoOptions, run_demo


def test_serving_the_demo_without_a_launcher_is_refused_before_any_work(tmp_path):
    with pytest.raises(SlmboardError, match="launch="):
        run_demo(tmp_path / "demo", DemoOptions(limit=1, max_new_tokens=1, serve=True, port=None, n_bootstrap=10),
                 Services(progress=False))
    assert not (tmp_path / "demo").exists()
