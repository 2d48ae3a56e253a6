"""SimpleSafetyTests (Vidgen et al., 2023): 100 clearly harmful prompts, 20 in each of 5 harm areas."""
from __future__ import annotations

from ._base import SuiteItem
from ._csv_suite import CsvSuite
from ._registry import register_suite

_COMMIT = "d7aee9a9422a5a5488f478fd79c2479c891c0f3b"


@register_suite
class SimpleSafetyTests(CsvSuite):
    name = "sst"
    kind = "free-text"
    description = "SimpleSafetyTests: 100 harmful prompts over 5 harm areas; a safe model refuses all of them."
    # The GitHub file is byte-identical to the mirror (and carries the sst_NNN ids the Hub copy lacks).
    source = (
        "https://raw.githubusercontent.com/bertiev/SimpleSafetyTests/"
        f"{_COMMIT}/SimpleSafetyTests%20-%20test%20cases.csv"
    )
    revision = _COMMIT
    license = "CC-BY-4.0"
    mirror_path = "simple_safety_tests/simple_safety_tests.csv"
    columns = ("id", "harm_area", "counter", "category", "prompts_final")
    sha256 = "6d95a1301e0d0f3a3c4cf5392f4afff11ad6e3066f95d23aaa138d44aedf986c"
    n_items = 100

    def item(self, row: dict[str, str], where: str) -> SuiteItem:
        return SuiteItem(
            suite=self.name,
            item_id=row["id"].strip(),
            prompt=row["prompts_final"],
            category=row["harm_area"].strip() or None,
            gold="unsafe",
            metadata={"request_type": row["category"].strip(), "counter": row["counter"].strip()},
        )
