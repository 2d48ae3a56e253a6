"""The import formats users name (``slmboard import FORMAT``), with their typed options, registered once.

Each format is a pure parser, ``parse(paths, **options) -> ParsedSource``, imported on first use; its
options model is the one definition of what it can be told (the CLI derives ``import``'s format flags
from it). This module imports pydantic only.
"""
from __future__ import annotations

from typing import Optional

from toolkit.core.registry import NoOptions, Options, Registry, option

__all__ = ["FORMATS", "TableOptions", "LmEvalOptions", "HelmOptions", "EeeOptions"]


class TableOptions(Options):
    columns: Optional[str] = option(None, help="which columns hold what: prompt=COL,response=COL[,item_id=COL] "
                                               "(default: columns named prompt and response)")
    judge_columns: Optional[list[str]] = option(None, help="a label column as a judge (repeatable)",
                                                flag="--judge-column", metavar="JUDGE_ID=COL")
    labels: str = option("ternary", help="how the label columns read: ternary | refusal | 'a=0,b=0.5,c=1'")


class LmEvalOptions(Options):
    prompt_field: Optional[str] = option(None, help="the doc field holding the prompt (default: the first of prompt, "
                                                    "prompts_final, ...)")


class HelmOptions(Options):
    helm_version: Optional[str] = option(None, help="the crfm-helm version that wrote the runs, e.g. 0.5.16: picks the "
                                                    "judge models behind 'gpt'/'llama' (HELM records only those short "
                                                    "names) and is recorded as the tool version; default 0.5")
    judge_models: Optional[list[str]] = option(None, help="the judge model behind a HELM annotation key (KEY_score), "
                                                         "e.g. claude=anthropic/claude-3-5-sonnet-20240620; repeatable; "
                                                         "overrides the helm_version table; recorded in run.json. A key "
                                                         "neither names is refused", flag="--judge-model",
                                               metavar="KEY=MODEL")


class EeeOptions(Options):
    metric: Optional[str] = option(None, help="import only this metric (an evaluation_result_id of the aggregate) of a "
                                             "samples file that holds several per item (default: each its own judge)",
                                   metavar="EVALUATION_RESULT_ID")


FORMATS: Registry = Registry("import format")
FORMATS.add("table", "a CSV, JSONL or parquet table of prompts, responses and label columns",
            "toolkit.stages.importing.table:parse", TableOptions)
FORMATS.add("eee", "Every Eval Ever aggregate + instance-level files", "toolkit.stages.importing.eee:parse", EeeOptions)
FORMATS.add("lm-eval", "an lm-eval output folder (results + --log_samples samples)",
            "toolkit.stages.importing.lm_eval:parse", LmEvalOptions)
FORMATS.add("inspect", "Inspect logs (.eval / .json)", "toolkit.stages.importing.inspect_log:parse", NoOptions)
FORMATS.add("helm", "HELM benchmark_output runs (safety scenarios and annotators)", "toolkit.stages.importing.helm:parse",
            HelmOptions)
