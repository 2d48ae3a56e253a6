"""`make docs`'s build, strict: a broken link, a missing page or an unresolved API reference fails it."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_site_builds_strictly(tmp_path):
    mkdocs = Path(sys.executable).with_name("mkdocs")
    proc = subprocess.run([str(mkdocs), "build", "--strict", "--site-dir", str(tmp_path / "site")], cwd=REPO,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(REPO)})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    assert (tmp_path / "site" / "reference" / "cli" / "index.html").is_file()
    # the runner's "needs" marks are visible notes on the site, and the mark itself is still in the source
    page = (tmp_path / "site" / "guides" / "evaluate-and-submit" / "index.html").read_text(encoding="utf-8")
    assert '<p class="admonition-title">Needs a GPU</p>' in page and "<!-- needs: gpu -->" in page
    assert '<p class="admonition-title">Needs an API key</p>' in page


def test_quickstart_and_install_come_right_after_home_and_developer_pages_have_their_own_section():
    import yaml

    nav = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]
    assert [next(iter(entry)) for entry in nav[:3]] == ["Home", "Quickstart", "Install"]
    sections = {next(iter(e)): next(iter(e.values())) for e in nav}
    development = [next(iter(p.values())) for p in sections["Development"]]
    assert set(development) == {"reference/installing-and-testing.md", "ARCHITECTURE.md", "bad-inputs.md", "moderation.md"}
    reference = [next(iter(p.values())) for p in sections["Reference"]]
    assert not set(reference) & set(development)


def test_the_ci_time_is_given_in_one_place():
    """How long CI takes is measured once and written once (installing-and-testing); other pages link there."""
    import re

    ci_time = re.compile(r"\bCI\b[^.]{0,160}?\d+(\.\d+)?\s*(min|minutes|s)\b", re.I)
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    found = [p.relative_to(REPO).as_posix() for p in pages if ci_time.search(p.read_text(encoding="utf-8"))]
    assert found == ["docs/reference/installing-and-testing.md"], found
