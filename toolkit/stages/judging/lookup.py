"""Which registered judge a spec or a judge id belongs to (no judge is built), and which parts of a run make
it not comparable with reported results."""
from __future__ import annotations

from typing import Iterable

from toolkit.core.registry import Component, split_spec
from .components import JUDGES, JudgeSpec, judge_id_of

__all__ = ["judge_component", "not_comparable"]


def _ids(component: Component, argument: str | None) -> list[str]:
    try:
        return [judge_id_of(component.name, argument)]
    except ValueError:
        return []


def judge_component(spec_or_id: str) -> Component | None:
    """The registered judge a spec (``heuristic``, ``openai:gpt-4o``) or a written id (``heuristic-v1``,
    ``openai:gpt-4o``, ``bbq-mc-v1``) belongs to; None for judges no component wrote (human labels, imports)."""
    name, argument = split_spec(spec_or_id)
    if name in JUDGES:
        component = JUDGES.get(name)
        if (argument is None and not component.argument_required) or (argument and component.argument is not None):
            return component
    for component in JUDGES.components():
        if spec_or_id in _ids(component, None) or (argument is not None and name == component.name):
            return component
    return None


def not_comparable(suites: Iterable[str] = (), judges: "Iterable[str | JudgeSpec]" = ()) -> list[str]:
    """One line per suite or judge whose results are not comparable with reported results (the smoke suite,
    the offline heuristic judge): commands print them, the dataset card lists them. A judge is a
    :class:`JudgeSpec` (its component is known: nothing is parsed) or a written id read from records."""
    from toolkit.stages.suites import SUITES

    lines = [f"suite {s}: {SUITES.get(s).summary}" for s in dict.fromkeys(suites)
             if s in SUITES and not SUITES.get(s).comparable]
    for judge in dict.fromkeys(judges):
        if isinstance(judge, JudgeSpec):
            component, written = JUDGES.get(judge.name), judge_id_of(judge.name, judge.argument)
        else:
            component, written = judge_component(judge), judge
        if component is not None and not component.comparable:
            lines.append(f"judge {written}: {component.summary}")
    return lines

