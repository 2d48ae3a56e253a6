"""toolkit.core.registry: one typed registry of components (each with a pydantic options model and a describe()),
one unknown-name error, options refused by name (issue 25 item 2)."""
from __future__ import annotations

import inspect
import subprocess
import sys
from typing import Optional

import pytest

from toolkit import api
from toolkit.cli import main
from toolkit.core.errors import BadOption, SlmboardError, UnknownComponent
from toolkit.core.registry import NoOptions, Options, Registry, Spec, option


class _SizeOptions(Options):
    size: int = option(3, help="how big", ge=1)
    colour: str = option("red", help="which colour", choices=("red", "blue"))
    label: Optional[str] = option(None, help="what it is called (the part after ':')")


def _shapes() -> Registry:
    reg = Registry("shape")
    reg.add("box", "a box", dict, _SizeOptions, argument="label")
    reg.add("dot", "a dot", dict)
    return reg


class _ShapeSpec(Spec):
    registry = _shapes()


def test_names_are_registered_once_and_checked():
    reg = _shapes()
    reg.add("box", "a box", dict, _SizeOptions, argument="label")  # the same entry again (a reloaded module)
    with pytest.raises(ValueError, match="already registered"):
        reg.add("box", "another box", list)
    with pytest.raises(ValueError, match="invalid shape name"):
        reg.add("a:b", "x", dict)
    with pytest.raises(TypeError, match="options must be a subclass"):
        reg.add("bad", "x", dict, dict)
    with pytest.raises(TypeError, match="argument 'nope' is not one of its options"):
        reg.add("bad", "x", dict, _SizeOptions, argument="nope")
    assert list(reg) == ["box", "dot"] and "box" in reg and "cube" not in reg


def test_unknown_name_lists_every_valid_name():
    with pytest.raises(UnknownComponent) as exc:
        _shapes().get("cube")
    assert str(exc.value) == "unknown shape 'cube'; valid shapes: box, dot"
    assert isinstance(exc.value, SlmboardError) and exc.value.valid == ["box", "dot"]


def test_options_are_checked_and_an_unknown_one_is_refused_by_name():
    spec = _ShapeSpec("box:big one", size=5)
    assert spec.build() == {"size": 5, "colour": "red", "label": "big one"}  # defaults filled, argument placed
    assert spec.explicit() == {"size": 5} and str(spec) == "box:big one"
    with pytest.raises(BadOption) as exc:
        _ShapeSpec("box", sise=5)
    assert exc.value.param == "sise" and ("shape 'box' has no option 'sise' (did you mean 'size'?); its options: size, colour"
                                         in str(exc.value))
    with pytest.raises(BadOption) as exc:
        _ShapeSpec("box", size=0)
    assert exc.value.param == "size" and "greater than or equal to 1" in str(exc.value)
    with pytest.raises(BadOption) as exc:
        _ShapeSpec("box", colour="green")
    assert exc.value.param == "colour" and "must be one of red, blue" in str(exc.value)
    with pytest.raises(BadOption, match="takes no ':<argument>'"):
        _ShapeSpec("dot:x")
    with pytest.raises(BadOption, match="given twice"):
        _ShapeSpec("box:a", label="b")


def test_a_lazy_target_is_imported_when_built_not_when_registered(tmp_path, monkeypatch):
    (tmp_path / "lazy_registry_probe.py").write_text("def make(options):\n    return options.size\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    reg = Registry("shape")
    reg.add("lazy", "imported on first build", "lazy_registry_probe:make", _SizeOptions)
    assert "lazy_registry_probe" not in sys.modules
    assert reg.build("lazy", {"size": 7}) == 7 and "lazy_registry_probe" in sys.modules
    with pytest.raises(ValueError, match="module:object"):
        reg.add("bad", "x", "no_colon")


def _registries() -> list[Registry]:
    return [api.SUITES, api.JUDGES, api.BACKENDS, api.MODERATORS, api.MODERATION_BENCHMARKS, api.FORMATS,
            api.EXPORT_FORMATS]


def test_every_component_declares_options_and_describes_itself():
    from toolkit.stages.judging.components import GUARD_STYLES
    from toolkit.stages.moderation.components import GUARDS

    for reg in _registries() + [GUARD_STYLES, GUARDS]:
        assert len(reg) > 0, reg.kind
        for c in reg.components():
            assert issubclass(c.options, Options) and c.options.model_config["extra"] == "forbid", (reg.kind, c.name)
            d = c.describe()
            assert d.name == c.name and d.summary and str(d).startswith(d.spec), (reg.kind, c.name)
            assert all(o.help for o in d.options), (reg.kind, c.name, [o.name for o in d.options if not o.help])
            assert c.load() is not None  # a lazy target resolves


def _parameter_defaults(target) -> dict:
    """Defaults of the builder (a class's ``__init__`` or a function)."""
    init = target.__init__ if inspect.isclass(target) else target
    return {n: p.default for n, p in inspect.signature(init).parameters.items() if p.default is not inspect.Parameter.empty}


def test_options_defaults_are_the_builders_defaults():
    """A builder's defaults cannot drift from its options model's: it has none of its own (issue 42) -- it takes the
    model whole (``options=None``: the model's defaults) and reads every default from it."""
    checked = 0
    for reg in _registries():
        for c in reg.components():
            target = c.load()
            if not (inspect.isclass(target) or inspect.isfunction(target)):
                continue
            own = _parameter_defaults(target)
            assert not set(own) & set(c.options.model_fields), (reg.kind, c.name, sorted(set(own) & set(c.options.model_fields)))
            checked += 1
    assert checked > 20


def test_unused_judges_are_not_imported():
    code = ("import sys; from toolkit.stages.judging import make_judge; make_judge('heuristic'); "
            "print(sorted(m for m in sys.modules if m.startswith('toolkit.stages.judging.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "toolkit.stages.judging.heuristic" in out
    assert "toolkit.stages.judging.mdjudge" not in out and "toolkit.stages.judging.openai_judge" not in out


def test_one_error_for_an_unknown_name_of_every_kind():
    from toolkit.stages.suites import get_suite

    for lookup in (lambda: get_suite("nope"), lambda: api.JudgeSpec("nope"), lambda: api.BackendSpec("nope"),
                   lambda: api.ModeratorSpec("nope"), lambda: api.MODERATION_BENCHMARKS.get("nope"),
                   lambda: api.FORMATS.get("nope"), lambda: api.EXPORT_FORMATS.get("nope")):
        with pytest.raises(UnknownComponent):
            lookup()


def test_each_judge_is_registered_once():
    """Built-in judges are declared in one place (judging/components.py), never again by a decorator."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "toolkit"
    decorated = [f"{p.relative_to(root)}" for p in root.rglob("*.py")
                 for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
                 if isinstance(node, (ast.FunctionDef, ast.ClassDef)) for d in node.decorator_list
                 if "register_judge" in ast.unparse(d) or "register_backend" in ast.unparse(d)]
    assert decorated == []


@pytest.mark.parametrize(
    "argv, message",
    [
        (["generate", "--out", "{tmp}/r", "--suites", "nope"], "unknown suite 'nope'; valid suites: "),
        (["generate", "--out", "{tmp}/r", "--model", "nope", "--suites", "smoke"], "unknown model backend 'nope'; valid model backends: hf, openai, vllm"),
        (["judge", "{tmp}/r", "--judge", "nope"], "unknown judge 'nope'; valid judges: bbq, guard, heuristic, learned, learned-v1, learned-v2, learned-v3, mdjudge, openai"),
        (["moderate", "--out", "{tmp}/m", "--suites", "nope"], "unknown moderation benchmark 'nope'; valid moderation benchmarks: "),
        (["import", "nope", "{tmp}/x.csv", "--out", "{tmp}/i"], "unknown import format 'nope'; valid import formats: "),
    ],
)
def test_cli_prints_one_line_for_every_unknown_component(tmp_path, capsys, argv, message):
    from slmboard_testing import make_run

    make_run(tmp_path / "r", judged=False)
    assert main([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: " + message) and "Traceback" not in err


def test_the_api_describes_every_kind_of_component():
    judges = {d.name: d for d in api.components("judge")}
    assert set(judges) == set(api.JUDGES) and not judges["heuristic"].comparable and judges["openai"].comparable
    assert judges["openai"].spec == "openai:<model>" and judges["mdjudge"].spec == "mdjudge[:<model>]"
    flags = {o.name: o.flag for o in judges["openai"].options}
    assert flags["requests_per_minute"] == "--rpm" and flags["seed"] is None and "model" in flags and flags["model"] is None
    assert [d.name for d in api.components("export format")] == ["eee", "eval-results"]
    with pytest.raises(BadOption, match="unknown component kind 'judges'; valid kinds: suite, judge"):
        api.components("judges")
