"""Shared helpers for the import tests: the XSTest release files and a tree digest for "nothing written"."""
from __future__ import annotations

import csv
import gzip
import hashlib
import io
from pathlib import Path

import pytest

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
RELEASE = FIXTURES / "xstest_release"
SHARED = Path(__file__).resolve().parents[2].parent / "shared"
GPT4_GPTEVAL = SHARED / "benchmarks" / "xstest" / "xstest_v2_completions_gpt4_gpteval.csv"


@pytest.fixture
def benchmarks() -> Path:
    if not (SHARED / "benchmarks" / "xstest" / "xstest_prompts.csv").is_file():
        pytest.skip(f"benchmark mirror not found under {SHARED}")
    return SHARED / "benchmarks"


@pytest.fixture
def gpt4_gpteval(benchmarks) -> Path:
    if not GPT4_GPTEVAL.is_file():
        pytest.skip(f"{GPT4_GPTEVAL} not found")
    return GPT4_GPTEVAL


def read_csv_rows(path: Path) -> list[dict]:
    data = gzip.decompress(path.read_bytes()) if path.name.endswith(".gz") else path.read_bytes()
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"))))


def tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    if root.exists():
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()
