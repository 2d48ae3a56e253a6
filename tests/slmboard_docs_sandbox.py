"""Where a page of the docs runs: the way a reader outside the repository has slmboard.

- :func:`install_wheel`: the wheel ``pip wheel`` builds from the checkout, installed with ``--no-deps`` into a
  fresh venv whose other packages are the test venv's (so package data the wheel lacks fails the page, and the
  checkout is never imported: :func:`install_wheel` checks that ``toolkit`` comes from the new venv).
- :data:`SUPPLIES`: the output folder of another tool's run that a page shows in a marked block (lm-eval, HELM,
  Inspect: minutes of CPU or an API key), made here under the same name from the fixture runs those tools wrote,
  and put into the page's folder only when a marked block of that page names it. Everything else a page reads
  comes from the installed package by a block of the page itself (``slmboard suites download --sample``, the
  package's copy of a release file): nothing is copied from the benchmark mirror, and nothing in a page's
  folder points back into the repository.
- :func:`offline_env`: the network off for a page (proxies at a closed port, the Hub emulator excepted).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Callable, Iterable

REPO = Path(__file__).resolve().parents[1]
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


#: where a page's HTTP(S) goes: a port of this machine that nothing listens on (the discard port's), so any
#: request that honours the proxy variables (urllib, requests, httpx, pip, curl) fails at once with
#: "connection refused" instead of reaching the network
CLOSED_PROXY = "http://127.0.0.1:9"


def offline_env() -> dict[str, str]:
    """The environment that keeps a page off the network: every proxy variable at :data:`CLOSED_PROXY`, except
    for this machine (the Hub emulator at 127.0.0.1), no package index, and the dataset / transformers clients
    offline (``HF_HUB_OFFLINE`` stays unset: the Hub calls go to the emulator)."""
    proxies = {name: CLOSED_PROXY for base in ("http_proxy", "https_proxy", "all_proxy")
               for name in (base, base.upper())}
    local = "127.0.0.1,localhost,::1"
    return {**proxies, "no_proxy": local, "NO_PROXY": local, "PIP_NO_INDEX": "1", "HF_DATASETS_OFFLINE": "1"}


def _clean_env() -> dict[str, str]:
    """This process's environment without what would make the checkout importable."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}


# ---- what another tool's marked run writes ------------------------------------------------------------
def _copy(source: Path) -> Callable[[Path], None]:
    def make(target: Path) -> None:
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return make


def _into(inner: str, make: Callable[[Path], None]) -> Callable[[Path], None]:
    """``make`` at ``TARGET/inner`` (a tool writes its output below the folder the command names)."""
    def made(target: Path) -> None:
        (target / inner).parent.mkdir(parents=True, exist_ok=True)
        make(target / inner)
    return made


_INSPECT_LOG = "2026-12-03T08-50-40-00-00_xstest_dYBA3y4tNbuoDXBL2itzxq.eval"
#: name a marked block of a page leaves in the page's folder -> how the runner makes the same here. Only the output
#: folders of other tools' runs (minutes of CPU, or an API key): the suites' data, the XSTest release and
#: Safety-Flag's outputs come from the package itself, by a runnable block of the page (its offline twin)
SUPPLIES: dict[str, Callable[[Path], None]] = {
    # lm_eval ... --output_path lm-eval-out/: what bring-results.md's offline lm-eval block itself wrote (real
    # lm-eval 0.4.13 on `slmboard model-path` and the package's samples; tests/docs/test_guide_supplies.py)
    "lm-eval-out": _copy(REPO / "tests" / "docs" / "fixtures" / "guide_lm_eval" / "lm-eval-out"),
    # helm-run ... --suite safety (real crfm-helm 0.5.16 runs of SmolLM2-135M)
    "benchmark_output": _into("runs/safety", _copy(FIXTURES / "helm_real" / "runs")),
    # inspect eval ... --log-dir inspect-logs (a real inspect_ai 0.3.285 XSTest log)
    "inspect-logs": _into(_INSPECT_LOG, _copy(FIXTURES / "inspect_xstest" / "logs_mock_grader" / _INSPECT_LOG)),
}


def named(code: str, names: Iterable[str] = SUPPLIES) -> list[str]:
    """The names of ``names`` that ``code`` mentions as a path word (``lm-eval-out/`` names ``lm-eval-out``)."""
    return [n for n in names if re.search(rf"(?<![\w.-]){re.escape(n)}(?![\w.-])", code)]


def supply(codes: Iterable[str], scratch: Path) -> list[str]:
    """Make in ``scratch`` what the marked blocks ``codes`` leave there; the names made."""
    made = []
    for code in codes:
        for name in named(code):
            if not (scratch / name).exists():
                SUPPLIES[name](scratch / name)
                made.append(name)
    return made
