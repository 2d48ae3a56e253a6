"""toolkit.registry: one typed registry and one unknown-name error for suites, judges, backends, moderators."""
from __future__ import annotations

import sys

import pytest

from toolkit.cli import main
from toolkit.errors import SlmboardError, UnknownComponent
from toolkit.registry import Registry


def _ints() -> Registry[int]:
    return Registry("number", lambda x: isinstance(x, int) and not isinstance(x, bool), "an int")


def test_entries_are_type_checked_and_duplicates_refused():
    reg = _ints()
    reg.add("one", 1)
    with pytest.raises(TypeError, match="number 'two': 'x' is not an int"):
        reg.add("two", "x")
    with pytest.raises(ValueError, match="already registered"):
        reg.add("one", 2)
    reg.add("one", 1)  # the same entry again (a reloaded module) is fine
    with pytest.raises(ValueError, match="invalid number name"):
        reg.add("a:b", 3)
    assert reg.get("one") == 1 and list(reg) == ["one"]


def test_unknown_name_lists_every_valid_name_including_lazy_ones():
    reg = _ints()
    reg.add("b", 2)
    reg.register_lazy("a", "math:inf")
    with pytest.raises(UnknownComponent) as exc:
        reg.get("c")
    assert str(exc.value) == "unknown number 'c'; valid numbers: a, b"
    assert isinstance(exc.value, SlmboardError) and exc.value.valid == ["a", "b"]


def test_lazy_entry_is_imported_on_first_lookup_and_type_checked(tmp_path, monkeypatch):
    mod = tmp_path / "lazy_registry_probe.py"
    mod.write_text("VALUE = 7\nTEXT = 'seven'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    reg = _ints()
    reg.register_lazy("seven", "lazy_registry_probe:VALUE")
    reg.register_lazy("text", "lazy_registry_probe:TEXT")
    assert "lazy_registry_probe" not in sys.modules
    assert "seven" in reg and reg.get("seven") == 7
    assert "lazy_registry_probe" in sys.modules
    with pytest.raises(TypeError, match="is not an int"):
        reg.get("text")
    with pytest.raises(ValueError, match="module:object"):
        reg.register_lazy("bad", "no_colon")


def test_unused_judges_are_not_imported():
    import subprocess

    code = ("import sys; from toolkit.judging import make_judge; make_judge('heuristic'); "
            "print(sorted(m for m in sys.modules if m.startswith('toolkit.judging.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "toolkit.judging.heuristic" in out
    assert "toolkit.judging.mdjudge" not in out and "toolkit.judging.openai_judge" not in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["generate", "--out", "{tmp}/r", "--suites", "nope"], "unknown suite 'nope'; valid suites: "),
        (["generate", "--out", "{tmp}/r", "--model", "nope", "--suites", "smoke"], "unknown model backend 'nope'; valid model backends: hf, openai, vllm"),
        (["judge", "{tmp}/r", "--judge", "nope"], "unknown judge 'nope'; valid judges: bbq, guard, heuristic, learned, mdjudge, openai"),
    ],
)
def test_cli_prints_one_line_for_every_unknown_component(tmp_path, capsys, argv, message):
    from slmboard_testing import make_run

    make_run(tmp_path / "r", judged=False)
    assert main([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: " + message) and "Traceback" not in err
