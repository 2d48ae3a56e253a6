"""The built distributions carry the real dataset-card template, not a link to it.

``toolkit/outputs/publishing/dataset_card.md`` is a symlink to the root ``dataset_card.md`` (one file to
edit); setuptools copies the content into the sdist and the wheel. This builds both, from the
committed tree (git archive, which keeps the symlink as a symlink), the way a release would.
"""
from __future__ import annotations

import io
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CARD = "toolkit/outputs/publishing/dataset_card.md"
BUILD = "import sys; from setuptools import build_meta as b; print(getattr(b, sys.argv[1])(sys.argv[2]))"


def test_sdist_and_the_wheel_built_from_it_carry_the_card_content(tmp_path):
    if not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout (git archive)")
    src, dist = tmp_path / "src", tmp_path / "dist"
    src.mkdir()
    dist.mkdir()
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        assert tar.getmember(CARD).issym()  # what this test is about
        tar.extractall(src, filter="tar")
    committed = (src / "dataset_card.md").read_bytes()

    sdist = subprocess.run([sys.executable, "-c", BUILD, "build_sdist", str(dist)], cwd=src, capture_output=True,
                           text=True, check=True).stdout.strip().splitlines()[-1]
    with tarfile.open(dist / sdist) as tar:
        member = tar.getmember(f"{sdist.removesuffix('.tar.gz')}/{CARD}")
        assert member.isfile() and tar.extractfile(member).read() == committed
        tar.extractall(tmp_path / "sdist", filter="tar")

    unpacked = tmp_path / "sdist" / sdist.removesuffix(".tar.gz")
    wheel = subprocess.run([sys.executable, "-c", BUILD, "build_wheel", str(dist)], cwd=unpacked, capture_output=True,
                           text=True, check=True).stdout.strip().splitlines()[-1]
    with zipfile.ZipFile(dist / wheel) as whl:
        assert whl.read(CARD) == committed
