"""Command-line flags derived from options models (one option, one spelling: the flag is ``--`` + the
Python name with dashes unless the model declares an established shorter one).

:class:`OptionFlags` adds the flags of one or more pydantic option models (a component's, or a command's
run options) to a parser and reads back what was given:

- a flag is added once per option name; several components may share it (``--base-url`` for every
  endpoint component), the help says which take it and their defaults;
- flags default to "not given", so only what a user typed reaches a component (its own defaults apply);
- :meth:`OptionFlags.values` refuses a flag the chosen component does not take, naming the ones that do.

A command that runs two components with overlapping options (``evaluate``: a model and a judge) gives the
second a prefix (``--judge-base-url``). The types map as: bool -> a switch (``--no-x`` when the default is
on), int/float/str -> a value, choices -> ``choices``, ``list[str]`` -> repeatable, ``dict[str, str]`` ->
repeatable ``KEY=VALUE``, ``dict`` -> a JSON object.
"""
from __future__ import annotations

import argparse
import json
import sys
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from toolkit import api

__all__ = ["OptionFlags", "Flag", "spec_help", "print_not_comparable"]

_NOT_GIVEN = argparse.SUPPRESS


@dataclass
class Flag:
    name: str  # the Python option name
    flag: str
    dest: str
    kind: str  # "switch" | "value" | "list" | "pairs" | "json"
    owners: dict[str, Any] = field(default_factory=dict)  # owner -> its default


def _plain(annotation: Any) -> Any:
    """Optional[X] / Annotated[X, ...] -> X."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _plain(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _plain(members[0]) if len(members) == 1 else annotation
    return annotation


def _kind(annotation: Any) -> tuple[str, Any]:
    plain = _plain(annotation)
    origin = typing.get_origin(plain)
    if origin in (typing.Union, types.UnionType) and int in typing.get_args(plain):
        return "value", _int_or_text  # e.g. a batch size: a number or "auto"
    if plain is bool:
        return "switch", None
    if plain in (int, float):
        return "value", plain
    if origin is list:
        return "list", str
    if origin is dict and typing.get_args(plain) == (str, str):
        return "pairs", str
    if plain is dict or origin is dict:
        return "json", str
    if origin is typing.Literal:
        return "value", str
    return "value", str


def _help(info: api.OptionInfo, owners: dict[str, Any], all_owners: Sequence[str]) -> str:
    text = info.help or info.name.replace("_", " ")
    shown = {o: d for o, d in owners.items() if d is not None and not isinstance(d, bool) and d != {} and d != []}
    who = "" if set(owners) >= set(all_owners) or len(all_owners) < 2 else f" [{', '.join(_labels(owners, all_owners))}]"
    if len(set(map(str, shown.values()))) == 1 and "default" not in text:
        text += f" (default {next(iter(shown.values()))})"
    elif len(shown) > 1:
        labels = dict(zip(owners, _labels(owners, all_owners)))
        text += " (default " + ", ".join(f"{d} for {labels[o]}" for o, d in shown.items()) + ")"
    return text.replace("%", "%%") + who


def _labels(owners: Iterable[str], all_owners: Sequence[str]) -> list[str]:
    """Owners by component name ("openai"), or "kind name" ("moderator openai") when two kinds on one
    parser have components of the same name."""
    names = [o.partition(":")[2] or o for o in all_owners]
    shared = {n for n in names if names.count(n) > 1}
    def label(owner: str) -> str:
        kind, _, name = owner.partition(":")
        return f"{kind.split()[0]} {name}" if name in shared else (name or owner)
    return [label(o) for o in owners]


def _int_or_text(value: str) -> int | str:
    return int(value) if value.strip().lstrip("-").isdigit() else value


class OptionFlags:
    """The flags of one or more options models on one parser (see the module docstring)."""

    def __init__(self, parser: argparse.ArgumentParser, prefix: str = "", dest_prefix: str = "") -> None:
        """``prefix``: of the flags and their attributes (``--judge-base-url``); ``dest_prefix``: of the attributes only,
        where a model's option names would meet the command's own arguments (``create``'s positional ``dataset``)."""
        self.parser, self.prefix, self.dest_prefix = parser, prefix, dest_prefix
        self.flags: dict[str, Flag] = {}
        self.owners: dict[str, list[str]] = {}  # owner -> its option names that have flags

    # ---- adding ----------------------------------------------------------------------------
    def add_model(self, model: type[api.Options], owner: str, title: str | None = None, exclude: Iterable[str] = (),
                  argument: str | None = None) -> "OptionFlags":
        """The flags of ``model``'s options (those not excluded, not the spec argument, not Python-only)."""
        return self._add([(owner, model, argument)], title, set(exclude))

    def add_registry(self, *registries: api.Registry, title: str | None = None, exclude: Iterable[str] = ()) -> "OptionFlags":
        """The flags of every component of ``registries`` (owner ``"<kind>:<name>"``); components of several
        registries that share an option share its flag."""
        entries = [(f"{r.kind}:{c.name}", c.options, c.argument) for r in registries for c in r.components()]
        return self._add(entries, title, set(exclude))

    def _add(self, entries: list, title: str | None, exclude: set[str]) -> "OptionFlags":
        infos: dict[str, tuple[api.OptionInfo, dict[str, Any]]] = {}
        for owner, model, argument in entries:
            self.owners.setdefault(owner, [])
            for info in api.option_infos(model, argument):
                if info.flag is None or info.name in exclude:
                    continue
                first, owners = infos.setdefault(info.name, (info, {}))
                if _kind(first.annotation) != _kind(info.annotation):
                    raise TypeError(f"option {info.name!r}: {owner} declares another type than {', '.join(owners)}")
                owners[owner] = info.default
                self.owners[owner].append(info.name)
        group = self.parser.add_argument_group(title) if title else self.parser
        all_owners = [owner for owner, _, _ in entries]
        for name, (info, owners) in infos.items():
            if name in self.flags:
                raise TypeError(f"option {name!r} is added twice to one parser; add its models together")
            self._add_flag(group, info, owners, all_owners)
        return self

    def _add_flag(self, group: Any, info: api.OptionInfo, owners: dict[str, Any], all_owners: Sequence[str]) -> None:
        kind, value_type = _kind(info.annotation)
        flag = info.flag if not self.prefix else "--" + self.prefix + info.flag.removeprefix("--")
        on = any(d is True for d in owners.values())
        if kind == "switch" and on and not info.flag.startswith("--no-") and info.flag == "--" + info.name.replace("_", "-"):
            flag = flag.replace("--", "--no-", 1)  # a switch that is on by default is turned off
        dest = (self.dest_prefix + self.prefix + info.name).replace("-", "_")
        spec = Flag(info.name, flag, dest, kind, dict(owners))
        self.flags[info.name] = spec
        text = _help(info, owners, all_owners)
        negated = kind == "switch" and on  # its flag turns the option off: the help says what the flag does
        kwargs: dict[str, Any] = {"dest": dest, "default": _NOT_GIVEN, "help": "do not " + text if negated else text}
        if kind == "switch":
            kwargs.update(action="store_const", const=not (flag.startswith(f"--{self.prefix}no-") or on))
        else:
            kwargs.update(metavar=info.metavar or (None if info.choices else info.name.upper()))
            if info.choices:
                kwargs["choices"] = list(info.choices)
            if kind in ("list", "pairs"):
                kwargs["action"] = "append"
            elif value_type is not str:
                kwargs["type"] = value_type
        group.add_argument(flag, **kwargs)
        for alias in () if self.prefix else info.aliases:
            group.add_argument(alias, **{**kwargs, "help": argparse.SUPPRESS})

    # ---- reading ---------------------------------------------------------------------------
    def given(self, args: argparse.Namespace) -> dict[str, Any]:
        """Every option whose flag was given, converted (name -> value)."""
        out = {}
        for name, spec in self.flags.items():
            if hasattr(args, spec.dest):
                out[name] = self._convert(spec, getattr(args, spec.dest))
        return out

    def values(self, args: argparse.Namespace, *owners: str) -> dict[str, Any]:
        """The options given for ``owners`` (the chosen components); a flag none of them takes is refused."""
        given = self.given(args)
        for name in given:
            spec = self.flags[name]
            if not set(owners) & set(spec.owners):
                takers = ", ".join(o.partition(":")[2] or o for o in spec.owners)
                chosen = " / ".join(owners)
                raise api.BadOption(f"{spec.flag} does not apply to {chosen}; it applies to: {takers}")
        return {name: value for name, value in given.items() if set(owners) & set(self.flags[name].owners)}

    def for_owner(self, args: argparse.Namespace, owner: str) -> dict[str, Any]:
        """The options given that ``owner`` takes (no refusal: :meth:`values` checks the whole set)."""
        return {name: value for name, value in self.given(args).items() if owner in self.flags[name].owners}

    @staticmethod
    def _convert(spec: Flag, value: Any) -> Any:
        if spec.kind == "pairs":
            return api.parse_pairs(value, spec.flag, key="KEY", value="VALUE")
        if spec.kind == "json":
            try:
                parsed = json.loads(value)
            except ValueError as exc:
                raise api.BadOption(f"{spec.flag}: not valid JSON ({exc}): {value[:80]!r}") from exc
            if not isinstance(parsed, dict):
                raise api.BadOption(f"{spec.flag}: must be a JSON object such as '{{\"key\": \"value\"}}', "
                                    f"got {type(parsed).__name__}")
            return parsed
        return value


def spec_help(registry: api.Registry, what: str) -> str:
    """Help for a flag naming a component of ``registry``: each one as its spec and summary."""
    names = "; ".join(str(c.describe()) for c in registry.components())
    return f"{what}: {names}".replace("%", "%%")


def print_not_comparable(lines: list[str]) -> None:
    """Say, on stderr, which parts of a run make it not comparable with reported results (smoke suite, heuristic judge)."""
    for line in lines:
        print(f"note: not comparable with reported results: {line}", file=sys.stderr)

