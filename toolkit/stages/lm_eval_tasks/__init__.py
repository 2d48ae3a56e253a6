"""slmboard's suites as lm-evaluation-harness tasks: one YAML per suite here, shipped as package data.

    lm_eval --model hf --model_args pretrained=ORG/NAME --include_path "$(slmboard tasks lm-eval)" \\
        --tasks slmboard_xstest,slmboard_sst,slmboard_bbq --apply_chat_template --log_samples --output_path out/ \\
        --metadata '{"data_dir": "../shared/benchmarks"}'
    slmboard import lm-eval out/ --out runs/model

Every task reads its suite through slmboard (``custom_dataset`` → :func:`suite_documents`), so lm-eval
sends exactly slmboard's prompts and ``slmboard import lm-eval`` matches every sample to its item.
Generative suites (``slmboard_<suite>``, generate_until, greedy, the suite's new-token budget) are meant
to run with ``--apply_chat_template``, as slmboard's own runner applies the model's chat template;
BBQ (``slmboard_bbq``) is multiple choice: the log-likelihood of " A" / " B" / " C" after slmboard's
BBQ wording, imported with ``choice`` and lm-eval's per-sample ``acc`` as the judge ``lm-eval:acc``.
``--metadata`` keys: ``data_dir`` (default ``$SLMBOARD_DATA_DIR``, else the pinned sources are fetched)
and ``bbq_categories`` (e.g. ``"Age,Religion"``: a subset of BBQ's 11 category files).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Optional

TASK_PREFIX = "slmboard_"


def tasks_dir() -> Path:
    """The folder of the task YAMLs (pass it to lm_eval --include_path)."""
    return Path(__file__).resolve().parent


def task_names() -> list[str]:
    return sorted(p.stem for p in tasks_dir().glob(f"{TASK_PREFIX}*.yaml"))


def suite_documents(suite: str, data_dir: Optional[str] = None, bbq_categories: Any = None, **_: Any):
    """The suite's items as lm-eval documents (a ``datasets.DatasetDict`` with one ``test`` split): ``id``
    (slmboard's item id), ``prompt`` (the text slmboard sends), ``category``, ``gold``; BBQ adds
    ``gold_index`` (0-2). Other ``--metadata`` keys lm-eval passes along are ignored."""
    import datasets

    from toolkit.stages.suites import BBQ, load_items
    from toolkit.stages.suites._bbq import BBQOptions

    data_dir = data_dir or os.environ.get("SLMBOARD_DATA_DIR") or None
    if suite == "bbq" and bbq_categories:
        names = bbq_categories.split(",") if isinstance(bbq_categories, str) else list(bbq_categories)
        items = BBQ(BBQOptions(categories=[n.strip() for n in names if n.strip()])).load(data_dir)
    else:
        items = load_items([suite], data_dir=data_dir)
    rows = []
    for item in items:
        row = {"id": item.item_id, "prompt": item.prompt, "category": item.category or "", "gold": item.gold or ""}
        if item.metadata.get("gold_choice"):
            row["gold_index"] = "ABC".index(item.metadata["gold_choice"])
        rows.append(row)
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(rows)})
