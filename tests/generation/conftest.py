from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def hf_backend():
    """One real HF backend (embedded SmolLM2 via lm-eval HFLM) shared by the tests of this folder."""
    from toolkit.stages.generation import make_backend
    from toolkit.stages.generation.components import GenerationRunOptions

    return make_backend("hf", {}, GenerationRunOptions(batch_size=4))


@pytest.fixture(scope="session")
def mirror_or_none() -> Path | None:
    path = Path(__file__).resolve().parents[2].parent / "shared" / "benchmarks"
    return path if path.is_dir() else None
