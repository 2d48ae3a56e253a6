"""People's agreement with each other on a board: Krippendorff's alpha of each people judge's published votes, per
suite (the card and the Space's Judges tab show it; ``slmboard labels --publish`` prints the same figure)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from toolkit.core import dataset_layout as layout
from toolkit.core.judge_names import is_people_judge
from toolkit.data.scoring.people_agreement import ordinal_alpha


@dataclass(frozen=True)
class PeopleAgreement:
    judge_id: str
    suite: str
    n_items: int  # answers with votes
    n_people: int  # pseudonymous labellers among the votes
    alpha: Optional[float]  # None: undefined (too few pairable votes, or all the same)


def people_agreement(root: Path) -> list[PeopleAgreement]:
    """One row per (people judge with votes, suite) of the dataset folder ``root``, by suite then judge."""
    import pyarrow.parquet as pq

    out = []
    for suite in layout.suite_configs(Path(root)):
        units: dict[str, list] = {}
        for path in layout.suite_item_files(Path(root), suite):
            if "votes" not in pq.read_schema(path).names:  # a shard from before votes existed
                continue
            for row in pq.read_table(path, columns=["judge_id", "votes"]).to_pylist():
                if row["votes"] and is_people_judge(row["judge_id"]):
                    units.setdefault(row["judge_id"], []).append(row["votes"])
        for judge, votes in sorted(units.items()):
            people = {v["judge_id"] for vs in votes for v in vs}
            out.append(PeopleAgreement(judge, suite, len(votes), len(people),
                                       ordinal_alpha([[v["score"] for v in vs] for vs in votes])))
    return out
