"""Where a page of the docs runs: the way a reader outside the repository has slmboard.

- :func:`install_wheel`: the wheel ``pip wheel`` builds from the checkout, installed with ``--no-deps`` into a
  fresh venv whose other packages are the test venv's (so package data the wheel lacks fails the page, and the
  checkout is never imported: :func:`install_wheel` checks that ``toolkit`` comes from the new venv).
- :data:`SUPPLIES`: what a page's ``<!-- needs: network -->`` commands would fetch (the suites' data as
  ``slmboard suites download --to suite-data`` leaves it, XSTest's release file, an lm-eval / HELM / Inspect
  output folder, Safety-Flag's released outputs), made here under the same name from the workspace's benchmark
  mirror and the fixture runs those tools wrote, and put into the page's folder only when a network-marked
  block of that page names it. Nothing in a page's folder points back into the repository.
"""
from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Callable, Iterable

REPO = Path(__file__).resolve().parents[1]
SHARED_BENCHMARKS = REPO.parent / "shared" / "benchmarks"
FIXTURES = REPO / "tests" / "importing" / "fixtures"
#: what the wheel is built from: pyproject.toml's packages and the files it names
_WHEEL_SOURCES = ("pyproject.toml", "README.md", "toolkit", "schemas", "space")


class Install:
    """A venv holding the built wheel; its ``bin`` goes first on a page's PATH."""

    def __init__(self, root: Path, wheel: Path):
        self.root, self.wheel = root, wheel
        self.bin = root / "bin"
        self.python = self.bin / "python"


def build_wheel(out: Path) -> Path:
    """The project's wheel, built from a copy of the sources the wheel is made of (so the build leaves nothing
    in the checkout), without build isolation: the test venv's setuptools, no index needed."""
    src = out / "src"
    for name in _WHEEL_SOURCES:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            src.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, src / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                    "--quiet", "--wheel-dir", str(out / "dist"), str(src)], check=True, capture_output=True, text=True)
    (wheel,) = (out / "dist").glob("slmboard-*.whl")
    return wheel


def install_wheel(wheel: Path, root: Path) -> Install:
    """A fresh venv at ``root`` with ``wheel`` installed ``--no-deps``; its dependencies are the test venv's.

    A venv made from a venv's interpreter inherits the base interpreter's packages, not the venv's (what
    ``--system-site-packages`` would give), so a ``.pth`` file adds the test venv's site-packages after the new
    venv's own, as a site folder (its own ``.pth`` files run: setuptools' distutils shim, which building a
    plugin on a page needs), then takes the test venv's editable-install finder of the checkout back off
    ``sys.meta_path``: a module the wheel lacks fails to import instead of coming from the checkout."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    install = Install(root, wheel)
    own = Path(subprocess.run([str(install.python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                              check=True, capture_output=True, text=True, env=_clean_env()).stdout.strip())
    (own / "_slmboard_docs_deps.pth").write_text(
        f"import site, sys; site.addsitedir({sysconfig.get_path('purelib')!r}); "
        "sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, '__module__', '').startswith('__editable__')]\n")
    for name in ("pip", "pip3"):  # made --without-pip (seconds saved): `pip` on a page is the test venv's pip run here
        script = install.bin / name
        script.write_text('#!/bin/sh\nexec "$(dirname "$0")/python" -m pip "$@"\n')
        script.chmod(0o755)
    subprocess.run([str(install.python), "-m", "pip", "install", "--no-deps", "--no-index", "--quiet",
                    "--disable-pip-version-check", str(wheel)], check=True, capture_output=True, text=True,
                   env=_clean_env())
    where = subprocess.run([str(install.python), "-c", "import toolkit; print(toolkit.__file__)"], check=True,
                           capture_output=True, text=True, env=_clean_env(), cwd=root).stdout.strip()
    if not Path(where).resolve().is_relative_to(root.resolve()):
        raise RuntimeError(f"the docs venv imports toolkit from {where}, not from the installed wheel in {root}")
    hooked = subprocess.run([str(install.python), "-c", "import sys; print([f for f in sys.meta_path if "
                             "'editable' in repr(f).lower()])"], check=True, capture_output=True, text=True,
                            env=_clean_env(), cwd=root).stdout.strip()
    if hooked != "[]":
        raise RuntimeError(f"the docs venv can still import the checkout through {hooked}")
    if not (install.bin / "slmboard").is_file():
        raise RuntimeError(f"installing {wheel.name} made no `slmboard` command in {install.bin}")
    return install


def _clean_env() -> dict[str, str]:
    """This process's environment without what would make the checkout importable."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}


# ---- what network-marked commands fetch ----------------------------------------------------------------
def seed_suite_data(target: Path) -> None:
    """A data folder as ``slmboard suites download --to TARGET`` leaves it (each suite's source files at the
    paths the suites read, and the manifest), from the workspace's mirror of the pinned sources; files the
    mirror lacks (five BBQ categories) are left out, as a partial download leaves them."""
    from toolkit.stages.suites import SUITES, get_suite
    from toolkit.stages.suites._sources import FetchedFile, HubFiles, _sha256, _write_manifest

    fetched = []
    for component in SUITES.components():
        suite = get_suite(component.name)
        for source in suite.sources():
            if isinstance(source, HubFiles):
                files = [p for pattern in source.patterns for p in (SHARED_BENCHMARKS / source.folder).glob(pattern)]
                where, revision = f"hf://datasets/{source.repo_id}", source.revision
            else:
                files = [SHARED_BENCHMARKS / source.path] if (SHARED_BENCHMARKS / source.path).is_file() else []
                where, revision = source.url, suite.revision
            for file in files:
                rel = file.relative_to(SHARED_BENCHMARKS).as_posix()
                (target / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(file, target / rel)
                fetched.append(FetchedFile(suite.name, rel, where, revision, _sha256(file), True))
    _write_manifest(target, fetched)


def _copy(source: Path) -> Callable[[Path], None]:
    def make(target: Path) -> None:
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return make


def _gunzip(source: Path) -> Callable[[Path], None]:
    def make(target: Path) -> None:
        target.write_bytes(gzip.decompress(source.read_bytes()))
    return make


def _into(inner: str, make: Callable[[Path], None]) -> Callable[[Path], None]:
    """``make`` at ``TARGET/inner`` (a tool writes its output below the folder the command names)."""
    def made(target: Path) -> None:
        (target / inner).parent.mkdir(parents=True, exist_ok=True)
        make(target / inner)
    return made


_INSPECT_LOG = "2026-12-03T08-50-40-00-00_xstest_dYBA3y4tNbuoDXBL2itzxq.eval"
#: name a network-marked command of a page leaves in the page's folder -> how the runner makes the same here
SUPPLIES: dict[str, Callable[[Path], None]] = {
    # slmboard suites download --suites ... --to suite-data
    "suite-data": seed_suite_data,
    # curl -LO of XSTest's release file (the fixture is its gzip -9n copy, unchanged inside)
    "xstest_v2_completions_llama2orig_gpteval.csv": _gunzip(
        FIXTURES / "xstest_release" / "xstest_v2_completions_llama2orig_gpteval.csv.gz"),
    # curl -LO of Safety-Flag's released per-item outputs
    "Llama-3.1-8B__xstest.jsonl": _copy(SHARED_BENCHMARKS / "safety-flag" / "results" / "Llama-3.1-8B__xstest.jsonl"),
    # lm_eval ... --output_path lm-eval-out/ (real lm-eval 0.4.13 with slmboard's tasks, --limit 3)
    "lm-eval-out": _copy(FIXTURES / "lm_eval" / "run"),
    # helm-run ... --suite safety (real crfm-helm 0.5.16 runs of SmolLM2-135M)
    "benchmark_output": _into("runs/safety", _copy(FIXTURES / "helm_real" / "runs")),
    # inspect eval ... --log-dir inspect-logs (a real inspect_ai 0.3.285 XSTest log)
    "inspect-logs": _into(_INSPECT_LOG, _copy(FIXTURES / "inspect_xstest" / "logs_mock_grader" / _INSPECT_LOG)),
}


#: the supplies made from the workspace's benchmark mirror (../shared), which a clone elsewhere lacks
FROM_MIRROR = frozenset({"suite-data", "Llama-3.1-8B__xstest.jsonl"})


def named(code: str, names: Iterable[str] = SUPPLIES) -> list[str]:
    """The names of ``names`` that ``code`` mentions as a path word (``lm-eval-out/`` names ``lm-eval-out``)."""
    return [n for n in names if re.search(rf"(?<![\w.-]){re.escape(n)}(?![\w.-])", code)]


def supply(codes: Iterable[str], scratch: Path) -> list[str]:
    """Make in ``scratch`` what the network-marked blocks ``codes`` fetch; the names made."""
    made = []
    for code in codes:
        for name in named(code):
            if name in FROM_MIRROR and not SHARED_BENCHMARKS.is_dir():
                import pytest

                pytest.skip(f"the page fetches {name}, which the runner makes from the benchmark mirror, "
                            f"not found at {SHARED_BENCHMARKS}")
            if not (scratch / name).exists():
                SUPPLIES[name](scratch / name)
                made.append(name)
    return made
