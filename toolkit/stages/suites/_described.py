"""Suites described as data: a small YAML file (``described/<name>.yaml``) says where a suite's one CSV file comes
from and how a row becomes an item; one class reads every such suite.

    name: sst                                   # what --suites names
    kind: free-text                             # one of schemas.ITEM_KINDS
    description: ...                            # `slmboard suites list`, the registry's summary
    source: https://.../{revision}/file.csv     # the pinned public source ({revision} filled in)
    revision: <commit>
    license: CC-BY-4.0
    file: simple_safety_tests/simple_safety_tests.csv   # where a data folder holds it
    sha256: <hex>                               # of the file at the pinned revision
    n_items: 100
    columns: [id, harm_area, prompts_final]     # the header must hold these
    item:                                       # how a row becomes an item
      id: "{id|strip}"                          # {column}, with filters |strip |lower
      prompt: "{prompts_final}"                 # text kept byte-exact unless a filter says otherwise
      category: "{harm_area|strip}"             # empty -> none
      gold: unsafe                              # a constant, a template or null
      metadata: {request_type: "{category|strip}"}
      cases:                                    # (HarmBench's) rows whose column equals a value differ
        - when: {column: FunctionalCategory, equals: contextual}
          require: ContextString                # a blank cell is refused, naming the item and the row
          prompt: "{ContextString}\\n\\n---\\n\\n{Behavior}"
          metadata: {context: "{ContextString}"}

A suite with logic of its own (several files, Hub sources, multiple choice) stays a Suite subclass.
"""
from __future__ import annotations

import re
from importlib import resources
from pathlib import Path
from typing import ClassVar, Optional

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ._base import Suite, SuiteDataError, SuiteItem, check_items, read_rows
from ._fetch import fetch_url
from ._registry import register_suite
from ._sources import UrlFile

#: ``{column}`` or ``{column|filter|...}`` in a template
_PLACEHOLDER = re.compile(r"\{(\w+)((?:\|\w+)*)\}")
_FILTERS = {"strip": str.strip, "lower": str.lower}


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Case(_Frozen):
    """Rows whose ``when.column`` equals ``when.equals`` (stripped) take these fields instead."""

    when: dict[str, str] = Field(description="{column: NAME, equals: VALUE}")
    require: Optional[str] = None
    prompt: Optional[str] = None
    metadata: dict[str, str] = {}

    @model_validator(mode="after")
    def _when_is_one_test(self) -> "Case":
        if set(self.when) != {"column", "equals"}:
            raise ValueError("when takes exactly column and equals")
        return self


class ItemTemplate(_Frozen):
    id: str
    prompt: str
    category: Optional[str] = None
    gold: Optional[str] = None
    metadata: dict[str, str] = {}
    cases: list[Case] = []


class SuiteDescription(_Frozen):
    """One ``described/<name>.yaml``."""

    name: str
    kind: str
    description: str
    source: str
    revision: str
    license: str
    file: str
    sha256: str
    n_items: int
    columns: tuple[str, ...]
    item: ItemTemplate

    @model_validator(mode="after")
    def _templates_name_declared_columns(self) -> "SuiteDescription":
        item = self.item
        templates = [item.id, item.prompt, item.category, item.gold, *item.metadata.values()]
        for case in item.cases:
            templates += [case.prompt, *case.metadata.values()]
            used = [case.when["column"]] + ([case.require] if case.require else [])
            templates += [f"{{{c}}}" for c in used]
        for template in filter(None, templates):
            for column, filters in _PLACEHOLDER.findall(template):
                if column not in self.columns:
                    raise ValueError(f"{template!r} names column {column!r}, which is not in columns")
                unknown = [f for f in filters.split("|")[1:] if f not in _FILTERS]
                if unknown:
                    raise ValueError(f"{template!r}: unknown filter {unknown[0]!r}; filters: {', '.join(_FILTERS)}")
        return self


def fill(template: str, row: dict[str, str]) -> str:
    """``template`` with each ``{column|filter...}`` replaced by the row's cell, filtered."""
    def cell(match: re.Match) -> str:
        value = row[match.group(1)]
        for name in match.group(2).split("|")[1:]:
            value = _FILTERS[name](value)
        return value

    return _PLACEHOLDER.sub(cell, template)


class DescribedSuite(Suite):
    """A suite read from one CSV file, ``<data_dir>/<file>`` or its source fetched into the cache, as its
    :class:`SuiteDescription` says."""

    spec: ClassVar[SuiteDescription]

    def sources(self) -> list[UrlFile]:
        return [UrlFile(self.source, self.spec.file, self.spec.sha256)]

    def locate(self, data_dir: Optional[Path] = None) -> Path:
        if data_dir is None:
            return fetch_url(self.sources()[0], suite=self.name, revision=self.revision)
        path = Path(data_dir) / self.spec.file
        if not path.is_file():
            raise self.missing_data(f"expected its data at {path.resolve()}, which does not exist", self.source,
                                    "put it there (`slmboard suites download` (toolkit.api.download_suites) does)")
        return path

    def load(self, data_dir: Optional[Path] = None) -> list[SuiteItem]:
        path = self.locate(data_dir)
        items, where = [], []
        for n, (line, row) in enumerate(read_rows(path, self.spec.columns), start=1):
            loc = f"{path}:{line} (data row {n})"
            items.append(self.item(row, loc))
            where.append(loc)
        if not items:
            raise SuiteDataError(f"suite '{self.name}': {path} has no data rows")
        return check_items(items, where)

    def item(self, row: dict[str, str], where: str) -> SuiteItem:
        template = self.spec.item
        # an id whose cells are all blank is blank (check_items refuses it, naming the row)
        blank_id = all(not row[c].strip() for c, _ in _PLACEHOLDER.findall(template.id))
        item_id = "" if blank_id and _PLACEHOLDER.search(template.id) else fill(template.id, row)
        prompt, metadata = template.prompt, dict(template.metadata)
        for case in template.cases:
            if row[case.when["column"]].strip() != case.when["equals"]:
                continue
            if case.require and not row[case.require].strip():
                raise SuiteDataError(f"suite '{self.name}': {case.when['equals']} item '{item_id}' has an empty "
                                     f"{case.require} at {where}")
            prompt = case.prompt or prompt
            metadata.update(case.metadata)
        return SuiteItem(
            suite=self.name,
            item_id=item_id,
            prompt=fill(prompt, row),
            category=fill(template.category, row) or None if template.category is not None else None,
            gold=fill(template.gold, row) if template.gold is not None else None,
            metadata={key: fill(value, row) for key, value in metadata.items()},
        )


def described_suite(text: str, where: str) -> type[DescribedSuite]:
    """The Suite class of one YAML description (a ValueError naming ``where`` when it is malformed)."""
    import yaml
    from pydantic import ValidationError

    try:
        spec = SuiteDescription.model_validate(yaml.safe_load(text))
    except yaml.YAMLError as exc:
        raise ValueError(f"suite description {where}: not valid YAML ({exc})") from exc
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'the file'}: {e['msg'].removeprefix('Value error, ')}"
                             for e in exc.errors())
        raise ValueError(f"suite description {where}: {problems}") from exc
    class_name = "".join(part.capitalize() for part in re.split(r"\W+", spec.name)) + "Suite"
    return type(class_name, (DescribedSuite,), {
        "spec": spec, "name": spec.name, "kind": spec.kind, "description": spec.description,
        "source": spec.source.replace("{revision}", spec.revision), "revision": spec.revision,
        "license": spec.license, "n_items": spec.n_items, "__module__": __name__, "__qualname__": class_name,
        "__doc__": spec.description})


def register_described(names: tuple[str, ...]) -> None:
    """Register the packaged descriptions ``described/<name>.yaml`` in this order (each class also becomes an
    attribute of this module, so its instances pickle)."""
    folder = resources.files(__package__).joinpath("described")
    for name in names:
        cls = described_suite(folder.joinpath(f"{name}.yaml").read_text(encoding="utf-8"),
                              f"toolkit/stages/suites/described/{name}.yaml")
        globals()[cls.__name__] = register_suite(cls)
