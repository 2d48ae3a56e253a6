from pathlib import Path

import pytest

# The repo is /work/main and the read-only benchmark mirror is /work/shared/benchmarks.
MIRROR = Path(__file__).resolve().parents[2].parent / "shared" / "benchmarks"


@pytest.fixture(scope="session")
def mirror() -> Path:
    if not MIRROR.is_dir():
        pytest.skip(f"benchmark mirror not found at {MIRROR} (expected beside the repo, in shared/benchmarks)")
    return MIRROR


@pytest.fixture
def offline_empty_cache(tmp_path, monkeypatch):
    """HF_HUB_OFFLINE=1 and a fresh, empty suite cache, so nothing can come from the network or a past run."""
    from huggingface_hub import constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hf" / "hub"))
    return tmp_path / "hf"
