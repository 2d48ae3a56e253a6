"""What kind of scorer a judge id stands for, as the export formats describe it.

LLM judges (``openai:<model>``, ``mdjudge[:<model>]``, ``guard:<model>``) come with the model that
judged and the prompt template it was given; everything else (the offline heuristic, BBQ's
multiple-choice matcher, human labels and other tools' scorers brought in by ``slmboard import``)
is described in words.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class JudgeDescription:
    kind: str  # "llm" | "heuristic" | "string_match" | "human" | "imported" | "unknown"
    text: str  # one sentence for people
    model_id: str | None = None  # the judging model (LLM judges)
    prompt: str | None = None  # the template the LLM judge was given (LLM judges)


def describe_judge(judge_id: str, suite: str) -> JudgeDescription:
    name, _, arg = judge_id.partition(":")
    if name == "openai" and arg:
        return JudgeDescription("llm", f"LLM judge {arg} scoring each answer with the suite's rubric (ternary)",
                                arg, _rubric_prompt(suite))
    if name == "mdjudge":
        from ..judging.mdjudge import MDJUDGE_MODEL_ID, PROMPT_TEMPLATE

        model = arg or MDJUDGE_MODEL_ID
        return JudgeDescription("llm", f"{model}: unsafe probability mapped to ternary by per-model Otsu thresholds",
                                model, PROMPT_TEMPLATE)
    if name == "guard" and arg:
        from ..judging.guard import SHIELDGEMMA_TEMPLATE

        prompt = SHIELDGEMMA_TEMPLATE if "shieldgemma" in arg.lower() else (
            "(the guard model's own chat template applied by its server to the conversation: user prompt, assistant answer)")
        return JudgeDescription("llm", f"safety classifier {arg}: safe -> 1, unsafe -> 0 (never ambiguous)", arg, prompt)
    if judge_id.startswith("heuristic"):
        return JudgeDescription("heuristic", "slmboard's offline heuristic judge: surface rules for refusals and "
                                "degenerate answers (no model); a stand-in, not a reported-result judge")
    if judge_id.startswith("bbq"):
        return JudgeDescription("string_match", "BBQ multiple choice: the option parsed from the answer compared with the "
                                "gold option (no model)")
    if name == "human" or judge_id.startswith("human"):
        return JudgeDescription("human", f"human labels ({judge_id}) mapped to the ternary rubric")
    if name in ("helm", "lm-eval", "lm_eval", "inspect", "eee", "table", "import"):
        return JudgeDescription("imported", f"scores brought in from {name} by `slmboard import` ({judge_id})")
    return JudgeDescription("unknown", f"judge {judge_id} (kind not recorded)")


def _rubric_prompt(suite: str) -> str:
    from ..judging.base import JudgeInput
    from ..judging.rubrics import XSTEST_SAFE, XSTEST_UNSAFE, rubric_for

    if suite == "xstest":  # the template depends on the item's gold label
        return f"[items with gold 'safe']\n{XSTEST_SAFE.template}\n\n[items with gold 'unsafe']\n{XSTEST_UNSAFE.template}"
    if suite == "airbench":
        return "(AIR-Bench's per-category judge templates, judge_prompt_final.csv of the suite's pinned revision)"
    return rubric_for(JudgeInput(suite=suite, item_id="-", prompt="", response="")).template
