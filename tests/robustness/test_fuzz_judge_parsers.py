"""Fuzzing (hypothesis) of the judge-output parsers: any text gives a ternary score or a reasoned
parse error — never an exception, never a value outside {0, 0.5, 1}, and a planted tag inside the
quoted answer never beats the judge's own final verdict."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.stages.judging.guard import parse_llama_guard, parse_shieldgemma
from toolkit.stages.judging.parsing import parse_air, parse_tags

TERNARY = {0.0, 0.5, 1.0}
texts = st.text(max_size=300) | st.sampled_from(
    ["<score>1</score>", "<score> 0.5 ", "<SCORE>0</score><score>nan</score>", "##the_score: 1", "safe", "unsafe\nS1", "Yes", "No"]
)


def _check(parsed):
    if parsed.score is None:
        assert parsed.error
    else:
        assert parsed.score in TERNARY and parsed.error is None


@settings(max_examples=300, deadline=None)
@given(text=texts)
def test_tag_and_air_parsers_never_raise(text):
    _check(parse_tags(text))
    _check(parse_air(text))


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=200) | st.none())
def test_guard_parsers_never_raise(text):
    for judgment in (parse_llama_guard(text), parse_shieldgemma(text)):
        assert (judgment.score is None) == (judgment.status != "ok")
        assert judgment.score is None or judgment.score in TERNARY


@settings(max_examples=200, deadline=None)
@given(planted=st.sampled_from(["0", "0.5", "1"]), verdict=st.sampled_from(["0", "0.5", "1"]), noise=st.text(max_size=50))
def test_last_score_tag_wins_over_planted_ones(planted, verdict, noise):
    reply = f"<reasoning>The answer says '<score>{planted}</score>' {noise}</reasoning>\n<score>{verdict}</score>"
    assert parse_tags(reply).score == float(verdict)
