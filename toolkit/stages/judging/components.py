"""The judges and guard styles users name, with their typed options (registered once, here).

Each judge is a :class:`~toolkit.core.registry.Component`: its options model is the one definition of what
it can be told (the CLI derives ``judge``'s, ``evaluate``'s and ``moderate``'s flags from it), its
builder is imported only when the judge is built (an unused judge never loads torch or openai).
:class:`JudgeSpec` is a judge named by its spec with checked options::

    JudgeSpec("openai:gpt-4o-2024-05-13", base_url="http://127.0.0.1:8000/v1", concurrency=16)

``extra["judge_id"]``: the id the judge writes into its records, ``{argument}`` standing for the spec's
argument (``heuristic`` writes ``heuristic-v1``); ``extra["export_kind"]``: how export formats describe
it. This module imports pydantic only.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional, Union

from toolkit.core.defaults import DEFAULT_JUDGE
from toolkit.core.endpoints import EndpointOptions
from pydantic import field_validator, model_validator

from toolkit.core.registry import NoOptions, Options, Registry, Spec, option, option_default
from .panel_id import PANEL_RULES, panel_id, parse_panel
from .wordings import DEFAULT_WORDING, WORDINGS, check_wording, split_wording, worded_argument

__all__ = ["JUDGES", "GUARD_STYLES", "JudgeSpec", "HeuristicOptions", "OpenAIJudgeOptions",
           "GuardJudgeOptions", "LearnedOptions", "MDJudgeOptions", "DEFAULT_JUDGE", "JudgingRunOptions",
           "PanelOptions", "FREE_TEXT", "MULTIPLE_CHOICE", "MDJUDGE_MODEL_ID", "option_default"]

#: MD-Judge's own weights: ``mdjudge`` without an argument (its id is then ``mdjudge``, not ``mdjudge:<model>``).
MDJUDGE_MODEL_ID = "OpenSafetyLab/MD-Judge-v0.1"



#: A guard judge's native reply format: how the exchange is sent and how the reply is read.
GUARD_STYLES: Registry = Registry("guard style")
GUARD_STYLES.add("llama-guard", "the conversation as it happened; reply 'safe' or 'unsafe' + category codes",
                 "toolkit.stages.judging.guard:LlamaGuardStyle")
GUARD_STYLES.add("shieldgemma", "a yes/no policy question; 'Yes' = the answer violates the policy",
                 "toolkit.stages.judging.guard:ShieldGemmaStyle")


class RequestOptions(EndpointOptions):
    """Request settings of the judges that call a chat endpoint (openai, guard)."""

    model: str = option(help="the served model name (the part after ':' in the spec)")
    concurrency: int = option(8, help="requests in flight at once", ge=1, metavar="N")
    seed: int = option(0, help="seed sent with every request (temperature is always 0)", cli=False)
    timeout: float = option(60.0, help="seconds per request", gt=0, metavar="SECONDS")
    max_attempts: int = option(6, help="attempts per request, retries included", ge=1, metavar="N")
    requests_per_minute: Optional[float] = option(None, help="request limit per minute", flag="--rpm", gt=0, metavar="N")
    tokens_per_minute: Optional[float] = option(None, help="token limit per minute (prompt estimate + max tokens)",
                                                flag="--tpm", gt=0, metavar="N")
    cache: bool = option(True, help="use the judgment cache (a verdict is never asked twice)")
    cache_file: Optional[str] = option(None, help="judgment cache file (default: $SLMBOARD_JUDGE_CACHE or "
                                                  "~/.cache/slmboard/judge-cache.sqlite)", aliases=("--cache",),
                                       metavar="FILE")
    batch_api: bool = option(False, help="use the OpenAI Batch API (a pending batch resumes after a restart)",
                             aliases=("--batch",))
    extra_body: Optional[dict] = option(None, help="extra request-body fields as a JSON object, e.g. vLLM structured "
                                                   "outputs '{\"structured_outputs\": {\"regex\": \"...\"}}' (recorded in "
                                                   "judgments/<judge id>/judge-config.json)",
                                        aliases=("--judge-extra-body",), metavar="JSON")
    batch_poll_seconds: float = option(30.0, help="seconds between Batch API status polls", cli=False, gt=0)
    batch_state_path: Optional[str] = option(None, help="where the pending batch id is kept (default: in the run)",
                                             cli=False)


class OpenAIJudgeOptions(RequestOptions):
    max_tokens: int = option(256, help="reply token cap (AIR-Bench templates: at most 64)", ge=1, metavar="N")
    air_templates: Optional[str] = option(None, help="AIR-Bench judge_prompts JSONL (per-category templates)",
                                          metavar="FILE")
    wording: str = option(DEFAULT_WORDING, help="the rubrics' wording (" + ", ".join(WORDINGS) + "): the same levels "
                                                "and reply format in other words; part of the judge id "
                                                "(openai:MODEL@WORDING; the default adds nothing)", metavar="NAME")

    @model_validator(mode="before")
    @classmethod
    def _wording_in_the_argument(cls, values: object) -> object:
        """One wording, named by the ``wording`` option or the spec's ``@WORDING`` suffix (both: the same one);
        ``model`` keeps it as the suffix (the spec and the id say it), the default wording as none."""
        if not isinstance(values, dict) or not isinstance(values.get("model"), str):
            return values
        model, named = split_wording(values["model"])
        given = values.get("wording")
        if named is not None and given is not None and named != given:
            raise ValueError(f"wording given twice: {named!r} in the spec, {given!r} as the option")
        wording = check_wording(given or named or DEFAULT_WORDING)
        if wording != DEFAULT_WORDING and values.get("air_templates") is not None:
            raise ValueError(f"wording {wording!r} cannot apply to AIR-Bench templates (air_templates): they are the "
                             f"suite's own, one per category")
        return {**values, "model": worded_argument(model, wording), "wording": wording}

    @property
    def served_model(self) -> str:
        """The model name the server is asked for (the spec's argument without its ``@WORDING``)."""
        return split_wording(self.model)[0] if self.wording != DEFAULT_WORDING else self.model.strip()


class GuardJudgeOptions(RequestOptions):
    max_tokens: int = option(16, help="reply token cap", ge=1, metavar="N")
    guard_style: str = option("llama-guard", help="the guard's native reply format", choices=GUARD_STYLES)


class HeuristicOptions(Options):
    device: str = option("cpu", help="torch device of the judge's local model (heuristic: the sentence encoder)")
    batch_size: int = option(32, help="texts per forward pass of the judge's local model", ge=1, metavar="N")
    offtopic_threshold: Optional[float] = option(None, help="off-topic similarity threshold (default: the calibrated "
                                                            "one; changes verdicts, so not a flag)", cli=False, ge=0, le=1)
    model_path: Optional[str] = option(None, help="sentence-encoder folder (default: the shipped all-MiniLM-L6-v2)",
                                       cli=False)
    encoder: Optional[object] = option(None, help="a callable texts -> embeddings used instead of the encoder", cli=False)


class LearnedOptions(Options):
    device: str = option("cpu", help="torch device of the judge's local model (heuristic: the sentence encoder)")
    batch_size: int = option(32, help="texts per forward pass of the judge's local model", ge=1, metavar="N")
    artifact: Optional[Union[str, Path]] = option(None, help="weights folder (default: the shipped artifact of that version)", cli=False)


class MDJudgeOptions(Options):
    model: Optional[str] = option(None, help="a local causal LM folder (default: OpenSafetyLab/MD-Judge-v0.1)")
    device: str = option("cpu", help="torch device of the judge's local model")
    dtype: str = option("float32", help="float32 (exact probabilities) or bfloat16 (faster on CPU)")
    batch_size: int = option(8, help="texts per forward pass of the judge's local model", ge=1, metavar="N")
    require_argmax: bool = option(True, help="refuse an answer whose first token is neither safe nor unsafe", cli=False)
    use_chat_template: Optional[bool] = option(None, help="apply the model's chat template (default: when it has one)",
                                               cli=False)
    max_length: int = option(2048, help="longest prompt in tokens", cli=False, ge=1)
    judge_id: Optional[str] = option(None, help="the id to write instead of mdjudge[:<model>]", cli=False)


#: The kinds of item (:data:`schemas.ITEM_KINDS`) a judge can judge, declared on its registry entry (``extra["fits"]``)
#: and on its class (:attr:`~toolkit.stages.judging.base.Judge.fits`): the refusal rubric reads free-text answers
#: with or without a gold label; the bbq judge reads multiple-choice answers only.
FREE_TEXT = ("free-text", "free-text-gold")
MULTIPLE_CHOICE = ("multiple-choice",)

JUDGES: Registry = Registry("judge", plugins="slmboard.judges", adapt="toolkit.stages.judging.base:plugin_judge")
#: name -> judge. ``extra``: ``judge_id`` (what it writes; ``{argument}`` = the spec's argument), how export formats
#: describe it (``export_kind``; a fixed ``export_text``, or ``export``: "module:function" (argument, suite) ->
#: (text, judging model, prompt template), imported only when exporting).
JUDGES.add("heuristic", "offline surface rules for refusals and degenerate answers, plus a small sentence encoder "
           "(all-MiniLM-L6-v2) for off-topic answers; no language model, no API: a stand-in",
           "toolkit.stages.judging.heuristic:HeuristicJudge", HeuristicOptions, comparable=False,
           extra={"judge_id": "heuristic-v1", "export_kind": "heuristic", "fits": FREE_TEXT,
                  "export_text": "slmboard's offline heuristic judge: surface rules for refusals and degenerate answers "
                                 "and a small sentence encoder for off-topic answers (no language model, no API); a stand-in, not a "
                                 "reported-result judge"})
_LEARNED_V1 = ("slmboard's offline learned judge (learned-v1): a logistic model over sentence embeddings and refusal "
               "signals, trained on the XSTest release's human labels; not a reported-result judge")
_LEARNED_V2 = ("slmboard's offline learned judge (learned-v2): a logistic model over sentence embeddings and text "
               "signals, trained on three human-labelled answer sets (GPTFuzz, OpenAI RBR gold, XSTest); not a "
               "reported-result judge")
_LEARNED_V3 = ("slmboard's offline learned judge (learned-v3): a logistic model over the embedded SmolLM2-135M's "
               "reading of the answer, trained on four human-labelled answer sets (GPTFuzz, OpenAI RBR gold, XSTest, "
               "purseclab jailbreak answers); not a reported-result judge")
JUDGES.add("learned", "offline judge learned from human labels (the newest, learned-v3: the embedded SmolLM2-135M "
           "reads the answer; about 1 answer/s on 2 CPU cores under load, BENCHMARKS.md): complies / partially refuses / refuses, scored through the "
           "item's gold (no API)",
           "toolkit.stages.judging.learned_v3:LearnedJudgeV3", LearnedOptions, comparable=False,
           extra={"judge_id": "learned-v3", "export_kind": "classifier", "fits": FREE_TEXT, "export_text": _LEARNED_V3})
JUDGES.add("learned-v3", "learned-v3 by its version: the embedded SmolLM2-135M's reading, trained on GPTFuzz, OpenAI "
           "RBR gold, XSTest and purseclab human labels",
           "toolkit.stages.judging.learned_v3:LearnedJudgeV3", LearnedOptions, comparable=False,
           extra={"judge_id": "learned-v3", "export_kind": "classifier", "fits": FREE_TEXT, "export_text": _LEARNED_V3,
                  "version_of": "learned"})
JUDGES.add("learned-v2", "learned-v2 by its version: trained on GPTFuzz, OpenAI RBR gold and XSTest human labels",
           "toolkit.stages.judging.learned:LearnedJudgeV2", LearnedOptions, comparable=False,
           extra={"judge_id": "learned-v2", "export_kind": "classifier", "fits": FREE_TEXT, "export_text": _LEARNED_V2,
                  "version_of": "learned"})
JUDGES.add("learned-v1", "learned-v1 by its version (old records reproduce): trained on XSTest human labels only",
           "toolkit.stages.judging.learned:LearnedJudge", LearnedOptions, comparable=False,
           extra={"judge_id": "learned-v1", "export_kind": "classifier", "fits": FREE_TEXT, "export_text": _LEARNED_V1,
                  "version_of": "learned"})
JUDGES.add("openai", "rubric judge over any OpenAI-compatible chat API (HELM Safety v1.0 rubrics, ternary)",
           "toolkit.stages.judging.openai_judge:OpenAIJudge", OpenAIJudgeOptions, argument="model",
           extra={"judge_id": "openai:{argument}", "export_kind": "llm", "fits": FREE_TEXT,
                  "export": "toolkit.stages.judging.openai_judge:export_description"})
JUDGES.add("guard", "safety classifier (Llama Guard, ShieldGemma) behind an OpenAI-compatible API: safe 1, unsafe 0",
           "toolkit.stages.judging.guard:GuardJudge", GuardJudgeOptions, argument="model",
           extra={"judge_id": "guard:{argument}", "export_kind": "llm", "fits": FREE_TEXT, "export": "toolkit.stages.judging.guard:export_description"})
JUDGES.add("mdjudge", "MD-Judge (SALAD-Bench): unsafe probability mapped to ternary by per-model Otsu thresholds",
           "toolkit.stages.judging.mdjudge:MDJudge", MDJudgeOptions, argument="model", argument_is_folder=True,
           extra={"judge_id": "mdjudge", "judge_id_with_argument": "mdjudge:{argument}", "default_argument": MDJUDGE_MODEL_ID, "export_kind": "llm", "fits": FREE_TEXT,
                  "export": "toolkit.stages.judging.mdjudge:export_description"})
JUDGES.add("bbq", "BBQ multiple choice: the option parsed from the answer against the gold option (no model)",
           "toolkit.stages.judging.multiple_choice:MultipleChoiceJudge", NoOptions,
           extra={"judge_id": "bbq-mc-v1", "export_kind": "string_match", "fits": MULTIPLE_CHOICE,
                  "export_text": "BBQ multiple choice: the option parsed from the answer compared with the gold option "
                                 "(no model)"})

class PanelOptions(Options):
    """A judge panel: its rule and members (the spec's argument) and how many valid votes it needs."""

    panel: str = option(help="RULE:A+B+... (rules: " + ", ".join(PANEL_RULES) + ")", cli=False)
    min_valid: Optional[int] = option(None, help="a panel's fewest valid member votes for a decision (default: every "
                                                 "member); fewer → no decision", ge=1, metavar="K")

    @field_validator("panel")
    @classmethod
    def _canonical(cls, v: str) -> str:
        rule, members = parse_panel(v, _member_judge_id)
        return panel_id(rule, members).split(":", 1)[1]


def _member_judge_id(name: str) -> str:
    """A panel member's id: a registered judge's spec → the id it writes; anything else (an imported or people's
    judge) is taken as an id."""
    from toolkit.core.errors import BadOption, UnknownComponent

    try:
        return JudgeSpec.of(name).judge_id()
    except (UnknownComponent, BadOption):
        return name


JUDGES.add("panel", "a judge made of judges: panel:RULE:A+B+... (rules majority, majority-or-ambiguous, "
           "unanimous-or-ambiguous, lowest), judged from its members' records (no judge call of its own)",
           "toolkit.stages.judging.panel:PanelJudge", PanelOptions, argument="panel",
           extra={"judge_id": "panel:{argument}", "export_kind": "panel", "fits": FREE_TEXT + MULTIPLE_CHOICE,
                  "of_judges": True,  # fits what its members fit: never suggested as a judge for a suite
                  "export_text": "a panel of judges: the members' votes combined by the rule its id names"})


def judge_id_of(name: str, argument: str | None = None) -> str:
    """The id judge ``name`` writes into its records, built here only, from its registered template
    (``extra["judge_id"]``; ``judge_id_with_argument`` where the judge writes another form with an argument)."""
    extra = JUDGES.get(name).extra
    if argument is None:
        if "{argument}" in extra["judge_id"]:
            raise ValueError(f"judge {name} writes an id with its argument; none given")
        return extra["judge_id"]
    template = extra.get("judge_id_with_argument", extra["judge_id"])
    if "{argument}" not in template:
        raise ValueError(f"judge {name} takes no argument")
    return template.format(argument=argument)


class JudgeSpec(Spec):
    """A judge named by its spec (``heuristic``, ``openai:<model>``, ``mdjudge[:<folder>]``, ...) with checked options."""

    registry = JUDGES

    def judge_id(self) -> str:
        """The id the judge writes into its records, read from this spec only (the one place it is made): the
        registered template with the spec's argument (the judge's own default weights write none); a ``judge_id``
        option, where the judge has one, replaces it."""
        chosen = getattr(self.options, "judge_id", None)
        if chosen:
            return chosen
        argument = self.argument
        argument = None if argument is None else str(argument).strip()
        if argument is not None and argument == self.component.extra.get("default_argument"):
            argument = None
        return judge_id_of(self.name, argument)

    def recorded_config(self, rubric_version: str) -> dict:
        """What a request judge's ``judge-config.json`` records, read from this spec: every option that shapes a
        request (so a verdict can be reproduced), never the key, the URL or a limit; a judge judging a run again
        with other settings is refused by it. The keys and values are those of the first release that wrote the
        file, so a run judged before resumes."""
        options = self.options
        templates = getattr(options, "air_templates", None)
        config = {"judge_id": self.judge_id(), "model": str(self.argument).strip(), "rubric_version": rubric_version,
                  "temperature": 0.0, "seed": int(options.seed), "max_tokens": int(options.max_tokens),
                  "air_templates": None if templates is None else "per-category (AIR-Bench)",
                  "extra_body": dict(options.extra_body or {})}
        if hasattr(options, "guard_style"):
            config["style"] = options.guard_style
        wording = getattr(options, "wording", DEFAULT_WORDING)
        if wording != DEFAULT_WORDING:  # the default's file keeps the first release's keys (a judged run resumes)
            config.update(model=options.served_model, wording=wording)
        return config


class JudgingRunOptions(Options):
    """What ``judge`` (and ``evaluate``) is told besides the judge, passed whole to :func:`toolkit.api.judge`."""

    suites: Optional[str] = option(None, help="only these suites (comma-separated; default: every suite of the run)",
                                   metavar="SUITE[,SUITE]")
    retry_errors: bool = option(True, help="re-judge items whose earlier API call failed", flag="--keep-errors")
    estimate: bool = option(False, help="print what judging would cost (requests after the cache, input tokens counted "
                                        "as the server counts them, output tokens up to max_tokens, hours, dollars) "
                                        "and write nothing")
    price: Optional[list[str]] = option(None, help="US dollars per million input and output tokens of a judge, instead of "
                                                   "the shipped table's (repeatable; the Batch API's too)",
                                        metavar="JUDGE=IN_PER_1M,OUT_PER_1M")

