"""What kind of scorer a judge id stands for, as the export formats describe it.

A judge that a registered component wrote is described by that component (``JUDGES``' ``extra``): LLM
judges (``openai:<model>``, ``mdjudge[:<model>]``, ``guard:<model>``) come with the model that judged and
the prompt template it was given; the offline heuristic and BBQ's matcher in words. Human labels and
other tools' scorers brought in by ``slmboard import`` are described by where they came from.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class JudgeDescription:
    kind: str  # "llm" | "heuristic" | "classifier" | "string_match" | "human" | "imported" | "unknown"
    text: str  # one sentence for people
    model_id: str | None = None  # the judging model (LLM judges)
    prompt: str | None = None  # the template the LLM judge was given (LLM judges)


def describe_judge(judge_id: str, suite: str) -> JudgeDescription:
    """What the judge behind ``judge_id`` is, as its registered component describes it; judges that no
    component wrote are human labels or scores another tool's import brought in."""
    from toolkit.stages.importing.components import FORMATS
    from toolkit.stages.judging.lookup import judge_component

    component = judge_component(judge_id)
    if component is not None:
        extra = component.extra
        if "export" in extra:
            module, _, attr = extra["export"].partition(":")
            argument = judge_id.partition(":")[2] or None
            text, model, prompt = getattr(importlib.import_module(module), attr)(argument, suite)
            return JudgeDescription(extra["export_kind"], text, model, prompt)
        return JudgeDescription(extra["export_kind"], extra["export_text"])
    from toolkit.core.judge_names import is_people_judge

    name = judge_id.partition(":")[0]
    if is_people_judge(judge_id):
        return JudgeDescription("human", f"human labels ({judge_id}) mapped to the ternary rubric")
    if name in FORMATS or name in ("lm_eval", "import"):
        return JudgeDescription("imported", f"scores brought in from {name} by `slmboard import` ({judge_id})")
    return JudgeDescription("unknown", f"judge {judge_id} (kind not recorded)")
