"""Suite items, the Suite base class and the error every suite raises on bad data."""
from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Iterator, Mapping, Optional, Sequence

from toolkit.core.errors import SlmboardError, SuiteDataError
from toolkit.core.registry import NoOptions, Options

GOLDS = ("unsafe", "safe")


@dataclass(frozen=True)
class SuiteItem:
    """One prompt of a suite, exactly as it is sent to the model."""

    suite: str
    item_id: str
    prompt: str
    category: Optional[str]
    gold: Optional[str]
    # hash=False: a dict is unhashable, and the other fields already identify the item.
    metadata: Mapping[str, str] = field(default_factory=dict, hash=False)


class Suite:
    """A named set of items with a pinned public source. Subclass and decorate with @register_suite."""

    name: ClassVar[str]
    description: ClassVar[str]
    source: ClassVar[str]  # public source: Hub dataset id or file URL
    revision: ClassVar[str]  # pinned commit / revision of that source
    license: ClassVar[str]
    #: what the suite can be told (``get_suite(name, **options)``)
    Options: ClassVar[type[Options]] = NoOptions
    #: False for suites whose results must not be compared with reported results (the smoke suite)
    comparable: ClassVar[bool] = True
    #: multiple-choice suites: answered by a letter (BBQ), judged by the bbq judge
    multiple_choice: ClassVar[bool] = False
    #: the kind of its items (one of :data:`schemas.ITEM_KINDS`): a judge judges only the suites whose kind it
    #: fits. Every suite declares it (the registry refuses a suite that does not).
    kind: ClassVar[str]
    #: how many items the whole suite has at its pinned revision (`slmboard suites list`; a test loads and counts)
    n_items: ClassVar[int]

    def __init__(self, options: Options | None = None) -> None:
        """A suite receives its options model whole (None: its defaults), kept as ``self.options``."""
        self.options = options if options is not None else type(self).Options()

    def sources(self) -> list:
        """The files this suite reads (``_sources.UrlFile`` / ``HubFiles``), as `slmboard suites download` fetches
        them; none for a suite whose data ships with the package."""
        return []

    def load(self, data_dir: Optional[Path] = None) -> list[SuiteItem]:
        raise NotImplementedError

    def multiple_choice_prompt(self, passage: str, question: str, options: Sequence[str]) -> Optional[str]:
        """The prompt this suite words from a multiple-choice question's parts (importers match other tools'
        questions by it); None for suites that are not multiple choice."""
        return None

    def option_letters(self, item: SuiteItem) -> dict[str, str]:
        """Option letter -> option text of a multiple-choice item; empty for other suites."""
        return {}

    def missing_data(self, problem: str, source: str, remedy: str) -> SuiteDataError:
        """The refusal of a ``data_dir`` that lacks this suite's data: ``problem``, where the data comes from,
        ``remedy``, and that leaving data_dir unset fetches it into the cache."""
        return SuiteDataError(
            f"suite '{self.name}': {problem}. Its source is {source} (revision {self.revision}); {remedy}, "
            "or leave data_dir unset to fetch it into the cache.",
            param="data_dir",
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, revision={self.revision!r})"


def json_object_with(line: str, loc: str, fields: tuple[str, ...] | list[str]) -> dict:
    """One JSONL line as an object holding ``fields``; SuiteDataError naming ``loc`` otherwise."""
    import json

    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise SuiteDataError(f"{loc}: not valid JSON ({exc.msg})") from exc
    if not isinstance(obj, dict):
        raise SuiteDataError(f"{loc}: expected a JSON object")
    missing = [f for f in fields if f not in obj]
    if missing:
        raise SuiteDataError(f"{loc}: missing field {', '.join(repr(f) for f in missing)}")
    return obj


def jsonl_objects(text: str, where: str, fields: tuple[str, ...] | list[str] = ()) -> list[tuple[str, dict]]:
    """(``where:line``, object) for each non-blank JSONL line of ``text``, each an object holding ``fields``;
    SuiteDataError naming the line otherwise."""
    return [(f"{where}:{n}", json_object_with(line, f"{where}:{n}", fields))
            for n, line in enumerate(text.splitlines(), start=1) if line.strip()]


def check_items(items: list[SuiteItem], where: list[str]) -> list[SuiteItem]:
    """Reject empty prompts and duplicate ids; ``where[i]`` says where item i came from (file:line)."""
    first_seen: dict[str, str] = {}
    for item, loc in zip(items, where):
        if not item.item_id.strip():
            raise SuiteDataError(f"suite '{item.suite}': empty item id at {loc}")
        if not item.prompt.strip():
            raise SuiteDataError(f"suite '{item.suite}': item '{item.item_id}' has an empty prompt at {loc}")
        if item.gold is not None and item.gold not in GOLDS:
            raise SuiteDataError(
                f"suite '{item.suite}': item '{item.item_id}' has gold {item.gold!r} at {loc}; expected one of {GOLDS}"
            )
        if item.item_id in first_seen:
            raise SuiteDataError(
                f"suite '{item.suite}': duplicate item id '{item.item_id}' at {first_seen[item.item_id]} and {loc}"
            )
        first_seen[item.item_id] = loc
    return items


def read_rows(path: Path, required: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str]]]:
    """(first line number, row) for each data row; raises if a required column is absent."""
    # utf-8-sig drops a BOM; newline="" keeps newlines inside quoted fields exactly as written.
    with open(path, encoding="utf-8-sig", newline="") as f:
        reader = csv.DictReader(f)
        header = reader.fieldnames or []
        missing = [c for c in required if c not in header]
        if missing:
            raise SuiteDataError(
                f"{path}: missing column {', '.join(repr(c) for c in missing)} (found columns: {', '.join(header)})"
            )
        start = reader.line_num + 1
        for row in reader:
            if None in row:  # DictReader files surplus cells under the key None
                raise SuiteDataError(f"{path}:{start}: row has more cells than the header")
            yield start, {k: (v if v is not None else "") for k, v in row.items()}
            start = reader.line_num + 1
