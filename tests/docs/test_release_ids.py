"""The docs import XSTest's release files under the model ids the package's copy of the release gives them
(toolkit/workflows/demo_data/PROVENANCE.md), and those agree with the release's own description as the benchmark
mirror records it (issue 47: the guides imported `llama2orig`, Llama-2 with its system prompt, as the bare model)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from toolkit.workflows.xstest_release import MODELS

REPO = Path(__file__).resolve().parents[2]
PROVENANCE = REPO / "toolkit" / "workflows" / "demo_data" / "PROVENANCE.md"
MIRROR_PROVENANCE = REPO.parent / "shared" / "benchmarks" / "xstest" / "PROVENANCE.md"
RELEASE_FILE = re.compile(r"xstest_v2_completions_(\w+?)_gpteval\.csv")


def _package_ids() -> dict[str, str]:
    """release configuration (llama2orig) -> the model id in the package's PROVENANCE table."""
    out = {}
    for line in PROVENANCE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        found = RELEASE_FILE.match(cells[0]) if len(cells) == 4 else None
        if found:
            out[found.group(1)] = cells[3]
    return out


def _doc_imports() -> list[tuple[str, str, str]]:
    """(page, release configuration, --model-id) of every `import table` of a release file in the docs."""
    out = []
    for page in sorted((REPO / "docs").rglob("*.md")):
        text = page.read_text(encoding="utf-8").replace("\\\n", " ")
        for command in re.findall(r"slmboard import table [^\n]+", text):
            config, model = RELEASE_FILE.search(command), re.search(r"--model-id (\S+)", command)
            if config and model:
                out.append((page.relative_to(REPO).as_posix(), config.group(1), model.group(1)))
    return out


def test_the_package_provenance_names_what_the_demo_imports():
    ids = _package_ids()
    assert set(ids) == {"gpt4", "llama2new", "llama2orig", "mistralinstruct", "mistralguard"}
    assert ids == {m.name: m.model_id for m in MODELS}


def test_every_guide_imports_a_release_file_under_the_provenance_id():
    ids, imports = _package_ids(), _doc_imports()
    assert {config for _, config, _ in imports} >= {"llama2orig", "gpt4"}  # the scan sees the guides' imports
    assert [(page, config, model) for page, config, model in imports if model != ids[config]] == []


@pytest.mark.skipif(not MIRROR_PROVENANCE.is_file(), reason="benchmark mirror not here")
def test_the_bare_model_id_is_the_releases_llama2new():
    """The mirror's description of the release: `llama2new` is Llama-2-70b-chat-hf without a system prompt, so
    the bare id is that configuration's, and `llama2orig` (with the system prompt) is another system."""
    mirror = MIRROR_PROVENANCE.read_text(encoding="utf-8")
    assert "the release's `llama2new`\nconfiguration; model id `meta-llama/Llama-2-70b-chat-hf`" in mirror
    ids = _package_ids()
    assert ids["llama2new"] == "meta-llama/Llama-2-70b-chat-hf" != ids["llama2orig"]
