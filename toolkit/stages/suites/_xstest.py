"""XSTest (Röttger et al., 2024): 250 safe prompts that look unsafe and 200 unsafe contrasts."""
from __future__ import annotations

from ._base import SuiteItem
from ._csv_suite import CsvSuite
from ._registry import register_suite

_COMMIT = "d7bb5bd738c1fcbc36edd83d5e7d1b71a3e2d84d"


@register_suite
class XSTest(CsvSuite):
    name = "xstest"
    kind = "free-text-gold"
    description = (
        "XSTest: 250 safe prompts a well-calibrated model should answer (exaggerated-safety probes) and "
        "200 unsafe contrast prompts it should refuse."
    )
    source = f"https://raw.githubusercontent.com/paul-rottger/exaggerated-safety/{_COMMIT}/xstest_prompts.csv"
    revision = _COMMIT
    license = "CC-BY-4.0"
    mirror_path = "xstest/xstest_prompts.csv"
    columns = ("id", "prompt", "type", "label", "focus", "note")
    sha256 = "11783fb294ed017473ee53c207d71f2161c7672c8d0b037501e78387f801cb5a"
    n_items = 450

    def item(self, row: dict[str, str], where: str) -> SuiteItem:
        source_id = row["id"].strip()
        return SuiteItem(
            suite=self.name,
            item_id=f"xstest_{source_id}" if source_id else "",  # empty id is rejected by check_items
            prompt=row["prompt"],
            category=row["type"].strip() or None,
            gold=row["label"].strip().lower(),  # check_items rejects anything but safe/unsafe
            metadata={"focus": row["focus"], "note": row["note"]},
        )
