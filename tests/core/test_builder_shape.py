"""Options objects are the only door (issue 42): every registered component's builder takes its options model whole
(plus injected services), never one option as a keyword; a built judge keeps the spec that built it."""
from __future__ import annotations

import inspect

import pytest

from toolkit.testing.options_models import all_options_models
from toolkit.core.options import Options


def _all_options_models() -> set[type[Options]]:
    return all_options_models()


def _option_names() -> dict[str, list[str]]:
    names: dict[str, list[str]] = {}
    for model in _all_options_models():
        for name in model.model_fields:
            names.setdefault(name, []).append(model.__qualname__)
    return names


def _registries():
    from toolkit.outputs.exporting.components import EXPORT_FORMATS
    from toolkit.stages.executors.base import EXECUTORS
    from toolkit.stages.generation.components import BACKENDS
    from toolkit.stages.importing.components import FORMATS
    from toolkit.stages.judging.components import GUARD_STYLES, JUDGES
    from toolkit.stages.moderation.components import GUARDS, MODERATORS
    from toolkit.stages.suites import SUITES

    return [SUITES, JUDGES, GUARD_STYLES, BACKENDS, MODERATORS, GUARDS, EXECUTORS, FORMATS, EXPORT_FORMATS]


def _builders():
    """(registry kind, component, what builds it) of every component whose target is a class or a function."""
    out = []
    for registry in _registries():
        for component in registry.components():
            target = component.load()
            if inspect.isclass(target) or inspect.isfunction(target):
                out.append((registry.kind, component, target))
    return out


def _parameters(target) -> list[str]:
    fn = target.__init__ if inspect.isclass(target) else target
    return [name for name in inspect.signature(fn).parameters if name != "self"]


def test_no_builder_takes_an_option_as_a_keyword():
    options = _option_names()
    builders = _builders()
    assert len(builders) >= 30, "every registry's builders are found"
    wrong = []
    for kind, component, target in builders:
        for name in _parameters(target):
            if name in options and name != component.argument:
                wrong.append(f"{kind} {component.name} ({target.__module__}.{target.__qualname__}): parameter {name!r} "
                             f"is a field of {', '.join(sorted(options[name]))}")
    assert not wrong, "options reach a builder in their model, whole:\n" + "\n".join(wrong)


def test_every_builder_takes_its_options_model_whole():
    for kind, component, target in _builders():
        params = inspect.signature(target.__init__ if inspect.isclass(target) else target).parameters
        assert "options" in params, f"{kind} {component.name}: its builder takes `options` (its model whole)"
        assert not {inspect.Parameter.VAR_KEYWORD, inspect.Parameter.VAR_POSITIONAL} & {p.kind for p in params.values()}, \
            f"{kind} {component.name}: no *args / **kwargs in a builder"


def test_a_built_judge_keeps_its_spec_and_its_id_is_read_from_it():
    from toolkit.stages.judging.base import JudgeSpec, make_judge
    from toolkit.stages.judging.components import HeuristicOptions
    from toolkit.stages.judging.heuristic import HeuristicJudge

    built = make_judge("heuristic", batch_size=4)
    assert isinstance(built.spec, JudgeSpec) and built.spec == JudgeSpec("heuristic", batch_size=4)
    assert built.spec.judge_id() == built.judge_id == "heuristic-v1"
    assert JudgeSpec.of(str(built.spec), **built.spec.explicit()).build().judge_id == built.judge_id
    direct = HeuristicJudge(HeuristicOptions(batch_size=4))  # built directly: it makes its own spec
    assert direct.spec == built.spec and direct.batch_size == 4


def test_an_argument_judge_id_and_config_come_from_its_spec(monkeypatch):
    from toolkit.stages.judging.base import make_judge

    judge = make_judge("openai:gpt-x", base_url="http://127.0.0.1:9/v1", cache=False, seed=3)
    assert judge.judge_id == judge.spec.judge_id() == "openai:gpt-x"
    config = judge.request_config()
    assert config == {"judge_id": "openai:gpt-x", "model": "gpt-x", "rubric_version": judge.rubric_version,
                      "temperature": 0.0, "seed": 3, "max_tokens": 256, "air_templates": None, "extra_body": {}}
    assert make_judge("mdjudge").judge_id == "mdjudge"
    assert make_judge("mdjudge:OpenSafetyLab/MD-Judge-v0.1").judge_id == "mdjudge"  # its own weights: no argument


def test_an_option_given_as_a_service_is_refused():
    from toolkit.stages.judging.components import JUDGES

    with pytest.raises(TypeError, match="batch_size"):
        JUDGES.get("heuristic").build(None, None, batch_size=3)


def test_an_unknown_option_is_refused_with_a_did_you_mean():
    from toolkit.core.errors import BadOption
    from toolkit.stages.judging.base import JudgeSpec

    with pytest.raises(BadOption, match=r"has no option 'batch_sise' \(did you mean 'batch_size'\?\)"):
        JudgeSpec("heuristic", batch_sise=4)
