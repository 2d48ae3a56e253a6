"""HarmBench text behaviors (Mazeika et al., 2024): 400 behaviors, standard / contextual / copyright."""
from __future__ import annotations

from ._base import SuiteDataError, SuiteItem
from ._csv_suite import CsvSuite
from ._registry import register_suite

_COMMIT = "8e1604d1171fe8a48d8febecd22f600e462bdcdd"  # the commit HELM pins
SEPARATOR = "\n\n---\n\n"  # HELM's join of context and behavior


@register_suite
class HarmBench(CsvSuite):
    name = "harmbench"
    kind = "free-text"
    description = (
        "HarmBench text behaviors (200 standard, 100 contextual, 100 copyright), sent as direct requests; "
        "contextual ones as context + separator + behavior, as HELM builds them."
    )
    source = (
        "https://raw.githubusercontent.com/centerforaisafety/HarmBench/"
        f"{_COMMIT}/data/behavior_datasets/harmbench_behaviors_text_all.csv"
    )
    revision = _COMMIT
    license = "MIT"
    mirror_path = "harmbench/harmbench_behaviors_text_all.csv"
    columns = ("Behavior", "FunctionalCategory", "SemanticCategory", "Tags", "ContextString", "BehaviorID")
    sha256 = "8d81accedd38eaaf8b760618622bb888417d1fd0c86eba65c427a16f1cbb4afc"
    n_items = 400

    def item(self, row: dict[str, str], where: str) -> SuiteItem:
        behavior, context = row["Behavior"], row["ContextString"]
        functional = row["FunctionalCategory"].strip()
        metadata = {"functional_category": functional, "tags": row["Tags"].strip(), "behavior": behavior}
        # Text is kept byte-exact (no strip), as HELM sends it; the prompt hash depends on it.
        if functional == "contextual":
            if not context.strip():
                raise SuiteDataError(
                    f"suite '{self.name}': contextual behavior '{row['BehaviorID']}' has an empty ContextString at {where}"
                )
            prompt = context + SEPARATOR + behavior
            metadata["context"] = context
        else:
            prompt = behavior
        return SuiteItem(
            suite=self.name,
            item_id=row["BehaviorID"].strip(),
            prompt=prompt,
            category=row["SemanticCategory"].strip() or None,
            gold="unsafe",
            metadata=metadata,
        )
