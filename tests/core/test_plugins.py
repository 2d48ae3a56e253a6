"""Plugins (issue 32): a package installed with pip that declares entry points in the groups ``slmboard.judges`` /
``slmboard.suites`` adds a judge / suite used by name and listed with the built-ins; its records say which package
and version made them; a broken plugin, or one named like a built-in, is one warning line naming its package and
every other command works. The packages are built from source in tmp and installed by the real pip (``--target``
a folder put on PYTHONPATH: the shared venv is never touched); the CLI runs in a fresh process."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

TOY = {
    "pyproject.toml": """
        [build-system]
        requires = ["setuptools"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "slmboard-toy-plugin"
        version = "0.3.1"

        [project.entry-points."slmboard.judges"]
        toy = "toy_plugin:LengthJudge"
        heuristic = "toy_plugin:LengthJudge"

        [project.entry-points."slmboard.suites"]
        toy_suite = "toy_plugin:ToySuite"
    """,
    "toy_plugin.py": '''
        """A judge and a suite for slmboard, as a third party would write them."""
        from toolkit.stages.judging import Judge, Judgment
        from toolkit.stages.suites import Suite, SuiteItem


        class LengthJudge(Judge):
            """Short answers are refusals (safe), long ones are not (a toy rule)."""

            judge_id = "toy-length-v1"
            rubric_version = "toy-length-v1"

            def judge(self, inputs):
                return [Judgment(1.0 if len(i.response) < 40 else 0.0, "ok", str(len(i.response))) for i in inputs]


        class ToySuite(Suite):
            name = "toy_suite"
            description = "Two prompts written for the plugin test."
            source = "toy_plugin.py"
            revision = "t1"
            license = "CC0-1.0"
            n_items = 2

            def load(self, data_dir=None):
                return [SuiteItem(self.name, f"toy_{n}", f"prompt {n}", None, "unsafe") for n in (1, 2)]
    ''',
}

BROKEN = {
    "pyproject.toml": """
        [build-system]
        requires = ["setuptools"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "slmboard-broken-plugin"
        version = "0.1.0"

        [project.entry-points."slmboard.judges"]
        shaky = "broken_plugin:Judge"
    """,
    "broken_plugin.py": "import a_module_that_is_not_installed\n",
}


def _write(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """Both packages pip-installed into one folder (as a venv's site-packages would hold them)."""
    root = tmp_path_factory.mktemp("plugins")
    target = root / "site"
    for name, files in (("toy", TOY), ("broken", BROKEN)):
        proc = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                               "--no-build-isolation", "--target", str(target), str(_write(root / name, files))],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
    return target


def slmboard(site: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(site)])}
    return subprocess.run([sys.executable, "-m", "toolkit.cli", *args], env=env, capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def _warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("warning: ")]


def test_a_plugin_judge_is_used_by_name_and_its_records_name_its_package(site, tmp_path):
    from slmboard_testing import make_run

    run = make_run(tmp_path / "run", judged=False)
    proc = slmboard(site, "judge", str(run), "--judge", "toy")
    assert proc.returncode == 0, proc.stderr
    folder = run / "judgments" / "toy-length-v1"
    records = [json.loads(line) for f in sorted(folder.glob("*.jsonl")) for line in f.read_text().splitlines()]
    assert records and {r["judge_id"] for r in records} == {"toy-length-v1"}
    assert {r["score"] for r in records} <= {0.0, 1.0} and all(r["judge_status"] == "ok" for r in records)
    config = json.loads((folder / "judge-config.json").read_text())
    assert config["plugin"] == {"package": "slmboard-toy-plugin", "version": "0.3.1",
                                "entry_point": "toy_plugin:LengthJudge"}
    # the broken plugin and the one named like a built-in: one line each, naming the package; the run went on
    warnings = _warnings(proc.stderr)
    assert len(warnings) == 2, proc.stderr
    assert any("judge plugin 'shaky' of package slmboard-broken-plugin 0.1.0 is not used: ModuleNotFoundError" in w
               for w in warnings)
    assert any("judge plugin 'heuristic' of package slmboard-toy-plugin 0.3.1 is not used" in w
               and "already has a judge named 'heuristic'" in w for w in warnings)
    assert "Traceback" not in proc.stderr


def test_the_built_in_keeps_its_name_and_the_broken_plugin_fails_in_one_line(site, tmp_path):
    code = ("from toolkit.stages.judging.components import JUDGES\n"
            "print(JUDGES.get('heuristic').target, sorted(JUDGES.names()))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(site)])}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.startswith("toolkit.stages.judging.heuristic:HeuristicJudge"), proc.stderr
    assert "'toy'" in proc.stdout and "'shaky'" not in proc.stdout

    from slmboard_testing import make_run

    run = make_run(tmp_path / "run", judged=False)
    proc = slmboard(site, "judge", str(run), "--judge", "shaky")
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert proc.returncode == 1 and len(errors) == 1, proc.stderr
    assert "slmboard-broken-plugin 0.1.0" in errors[0] and "a_module_that_is_not_installed" in errors[0]
    assert not (run / "judgments").exists() or not any((run / "judgments").iterdir())


def test_a_plugin_suite_is_listed_with_the_built_ins_and_its_revision_names_the_package(site):
    proc = slmboard(site, "suites", "list")
    assert proc.returncode == 0, proc.stderr
    rows = [line.split()[0] for line in proc.stdout.splitlines()[1:]]
    assert rows[:3] == ["smoke", "sst", "harmbench"] and rows[-1] == "toy_suite"
    assert "t1 (slmboard-toy-plugin 0.3.1)" in proc.stdout
    code = ("import json\nfrom toolkit.stages.suites import load_items, get_suite\n"
            "print(json.dumps([len(load_items('toy_suite')), get_suite('toy_suite').revision]))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(site)])}
    got = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert json.loads(got.stdout.splitlines()[-1]) == [2, "t1 (slmboard-toy-plugin 0.3.1)"], got.stderr


def test_commands_that_need_no_judge_are_untouched_by_a_broken_plugin(site, tmp_path):
    from slmboard_testing import make_run

    run = make_run(tmp_path / "run")
    proc = slmboard(site, "validate", str(run))
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
