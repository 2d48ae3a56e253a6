"""The API's shape (issue 42): every function takes its target(s), the component spec, option objects and
``services`` -- at most 6 parameters, no ``*args`` / ``**kwargs`` -- and no option of any Options model is a
parameter of its own (the only exceptions: a field a registered component declares as its spec argument, and
the spec parameter itself, ``model`` / ``judge``, which names a component). Unknown options are refused by name."""
from __future__ import annotations

import inspect

import pytest

from toolkit import api
from toolkit.testing.options_models import all_options_models
from toolkit.core.registry import Options, Registry

MAX_PARAMETERS = 6


def _api_functions() -> dict[str, object]:
    return {name: obj for name in api.__all__ if inspect.isfunction(obj := getattr(api, name))}


def _options_models() -> set[type[Options]]:
    return all_options_models()


def _spec_arguments() -> set[str]:
    import gc

    return {c.argument for r in gc.get_objects() if isinstance(r, Registry) for c in r.components() if c.argument}


def _names_a_component(parameter: inspect.Parameter) -> bool:
    """The spec parameter (``model``, ``judge``): a spec string, a typed Spec or a built component."""
    return "Spec" in str(parameter.annotation)


def test_every_api_function_has_at_most_six_parameters_and_no_varargs():
    functions = _api_functions()
    assert {"generate", "evaluate", "evaluate_models", "judge", "submit", "rank", "not_comparable"} <= set(functions)
    for name, fn in functions.items():
        params = inspect.signature(fn).parameters.values()
        assert len(params) <= MAX_PARAMETERS, f"api.{name} has {len(params)} parameters (at most {MAX_PARAMETERS})"
        varargs = [p.name for p in params if p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]
        assert not varargs, f"api.{name} takes *{varargs[0]} / **{varargs[0]}: options are fields of an Options model"


def test_no_option_of_an_options_model_is_an_api_parameter():
    fields: dict[str, list[str]] = {}
    for model in _options_models():
        for field in model.model_fields:
            fields.setdefault(field, []).append(model.__name__)
    assert {"limit", "suites", "n_bootstrap", "token", "batch_size", "seed"} <= set(fields)  # the walk found them
    allowed = _spec_arguments()
    assert "model" in allowed
    offenders = []
    for name, fn in _api_functions().items():
        for p in inspect.signature(fn).parameters.values():
            if p.name in fields and p.name not in allowed and not _names_a_component(p):
                offenders.append(f"api.{name}({p.name}=...): an option of {', '.join(sorted(fields[p.name]))}")
    assert not offenders, "options are passed as Options objects, not as parameters:\n" + "\n".join(offenders)


@pytest.mark.parametrize("model, typo, meant", [("GenerationRunOptions", "limt", "limit"),
                                                ("SubmitOptions", "submiter", "submitter"),
                                                ("RankOptions", "n_bootstraps", "n_bootstrap")])
def test_an_unknown_option_is_refused_by_name_with_did_you_mean(model, typo, meant):
    with pytest.raises(api.BadOption) as info:
        getattr(api, model)(**{typo: 1})
    assert info.value.param == typo
    assert f"has no option {typo!r} (did you mean {meant!r}?)" in str(info.value)


def test_a_bad_option_value_is_refused_by_name():
    with pytest.raises(api.BadOption, match="limit must be at least 1") as info:
        api.GenerationRunOptions(limit=0)
    assert info.value.param == "limit"


def test_a_component_option_typo_gets_did_you_mean():
    with pytest.raises(api.BadOption, match=r"has no option 'concurency' \(did you mean 'concurrency'\?\)"):
        api.JudgeSpec("openai:m", concurency=4)


def test_the_old_keywords_break_cleanly():
    with pytest.raises(TypeError):
        api.generate("runs/x", suites="smoke", limit=2)  # type: ignore[call-arg]
