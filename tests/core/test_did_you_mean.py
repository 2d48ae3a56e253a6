"""A misspelt suite, judge, backend or subcommand gets the closest valid name ("did you mean"), in one line
(issue 32 point 5); a name close to nothing gets only the list."""
from __future__ import annotations

import pytest

from toolkit.cli import main
from toolkit.core.errors import UnknownComponent, closest
from toolkit.core.registry import Registry


@pytest.mark.parametrize(
    "argv, message",
    [
        (["generate", "--out", "{tmp}/r", "--suites", "smoke,harmbnch"], "unknown suite 'harmbnch' (did you mean 'harmbench'?); valid suites: "),
        (["generate", "--out", "{tmp}/r", "--suites", "SMOK"], "unknown suite 'SMOK' (did you mean 'smoke'?); valid suites: "),
        (["generate", "--out", "{tmp}/r", "--model", "vlm:x", "--suites", "smoke"],
         "unknown model backend 'vlm' (did you mean 'vllm'?); valid model backends: hf, openai, vllm"),
        (["judge", "{tmp}/r", "--judge", "heuristc"], "unknown judge 'heuristc' (did you mean 'heuristic'?); valid judges: "),
    ],
)
def test_a_misspelt_component_gets_the_closest_name(tmp_path, capsys, argv, message):
    from slmboard_testing import make_run

    make_run(tmp_path / "r", judged=False)
    assert main([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: " + message) and err.count("\n") == 1


@pytest.mark.parametrize(
    "argv, wanted",
    [(["evalute"], "'evaluate'"), (["rnak"], "'rank'"), (["export", "eval-result"], "'eval-results'")],
)
def test_a_misspelt_subcommand_gets_the_closest_command(capsys, argv, wanted):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"(did you mean {wanted}?)" in err and "Traceback" not in err


def test_a_name_close_to_nothing_gets_only_the_list():
    reg = Registry("shape")
    reg.add("box", "a box", dict)
    reg.add("circle", "a circle", dict)
    with pytest.raises(UnknownComponent) as exc:
        reg.get("zzzz")
    assert str(exc.value) == "unknown shape 'zzzz'; valid shapes: box, circle" and exc.value.suggestion is None
    with pytest.raises(UnknownComponent, match=r"'circel' \(did you mean 'circle'\?\)"):
        reg.get("circel")


def test_closest_ignores_case_and_keeps_the_registered_spelling():
    assert closest("XSTEST", ["smoke", "xstest"]) == "xstest"
    assert closest("Salad-Defense", ["salad", "salad_defense"]) == "salad_defense"
    assert closest("", ["smoke"]) is None and closest(None, ["smoke"]) is None
