"""Options: the typed models of everything a component, a stage or an API call can be told.

An :class:`Options` model refuses unknown options by name (``extra="forbid"``, with a did-you-mean), checks
values, and carries each field's CLI facts (:func:`option`), from which ``toolkit.commands.options`` derives
the flags -- so one option has one spelling in Python and on the command line, written once, in its model.
:func:`option_default` reads a default back (a builder never retypes one). This module imports pydantic only.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from toolkit.core.errors import BadOption

__all__ = ["Options", "NoOptions", "OptionInfo", "option", "option_default", "option_infos", "choices_of",
           "parse_pairs", "did_you_mean", "value_error"]


class Options(BaseModel):
    """Base of every component's options: unknown options are refused by name, values are checked."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    def __init__(self, /, **values: Any) -> None:
        """Unknown options refused by name (with the nearest valid one); a bad value is a :class:`BadOption`
        naming its option (the pydantic error kept as ``validation_error``, for a component's own wording)."""
        fields = type(self).model_fields
        unknown = [name for name in values if name not in fields]
        if unknown:
            raise BadOption(f"{type(self).__name__} has no option {unknown[0]!r}{did_you_mean(unknown[0], fields)}; "
                            f"its options: {', '.join(fields) or 'none'}", param=unknown[0])
        try:
            super().__init__(**values)
        except ValidationError as exc:
            bad = value_error(exc, fields)
            bad.validation_error = exc
            raise bad from None

    def as_kwargs(self) -> dict[str, Any]:
        """Every option (given or default), in declaration order, as keyword arguments."""
        return {name: getattr(self, name) for name in type(self).model_fields}

    def given_kwargs(self) -> dict[str, Any]:
        """The options that were given (not defaults), in declaration order."""
        return {name: getattr(self, name) for name in type(self).model_fields if name in self.model_fields_set}

    @model_validator(mode="after")
    def _value_is_a_choice(self) -> "Options":
        for name, f in type(self).model_fields.items():
            choices = choices_of(f)
            value = getattr(self, name)
            if choices is not None and value is not None and value not in choices:
                raise ValueError(f"{name} must be one of {', '.join(choices)}, got {value!r}")
        return self


class NoOptions(Options):
    """A component that takes no options."""


def option(default: Any = ..., *, help: str, flag: str | None = None, aliases: tuple[str, ...] = (),
           cli: bool = True, metavar: str | None = None, choices: "Iterable[str] | None" = None,
           **constraints: Any) -> Any:
    """A field of an :class:`Options` model.

    ``help`` is the CLI help text (and the field's description); ``flag`` replaces the default flag
    (``--`` + the name with dashes) where a shorter spelling is established; ``aliases`` are further,
    hidden spellings kept for one release; ``cli=False`` keeps an option to Python (objects such as an
    encoder, or settings that change verdicts without changing the judge id); ``choices`` are the valid
    values (a :class:`~toolkit.core.registry.Registry`: its names). ``constraints`` are pydantic's (``ge``, ``le``, ...).
    """
    extra = {"cli": {"flag": flag, "aliases": list(aliases), "enabled": cli, "metavar": metavar, "choices": choices}}
    return Field(default, description=help, json_schema_extra=extra, **constraints)


def _cli_meta(f: Any) -> dict:
    extra = f.json_schema_extra if isinstance(f.json_schema_extra, dict) else {}
    return dict(extra.get("cli") or {})


def choices_of(f: Any) -> tuple[str, ...] | None:
    """The valid values of an options field (None: any value of its type)."""
    choices = _cli_meta(f).get("choices")
    return None if choices is None else tuple(choices)


@dataclass(frozen=True)
class OptionInfo:
    """One option of a component, as help and docs show it."""

    name: str
    annotation: Any
    default: Any
    required: bool
    help: str
    flag: str | None  # None: Python only (or the spec argument)
    aliases: tuple[str, ...] = ()
    metavar: str | None = None
    choices: tuple[str, ...] | None = None


def option_infos(model: type[Options], argument: str | None = None) -> tuple[OptionInfo, ...]:
    """The options of ``model`` in declaration order (the spec argument has no flag)."""
    out = []
    for name, f in model.model_fields.items():
        cli = _cli_meta(f)
        enabled = cli.get("enabled", True) and name != argument
        flag = (cli.get("flag") or "--" + name.replace("_", "-")) if enabled else None
        default = None if f.is_required() else f.get_default(call_default_factory=True)
        out.append(OptionInfo(name, f.annotation, default, f.is_required(), f.description or "", flag,
                              tuple(cli.get("aliases") or ()) if enabled else (), cli.get("metavar"), choices_of(f)))
    return tuple(out)


def value_error(exc: ValidationError, fields: Mapping[str, Any]) -> BadOption:
    """A keyword argument's bad value, in one line naming it (``limit must be at least 1, got 0``)."""
    err = exc.errors(include_url=False)[0]
    name = str(err["loc"][0]) if err["loc"] else None
    if name is None:  # a check of the whole object (a choice): its message starts with the option's name
        first = err["msg"].removeprefix("Value error, ").split(" ", 1)[0]
        name = first if first in fields else None
        if name is not None:
            return BadOption(err["msg"].removeprefix("Value error, "), param=name)
    bound = (err.get("ctx") or {}).get("ge")
    if err["type"] == "greater_than_equal":
        return BadOption(f"{name} must be at least {bound}, got {err.get('input')!r}", param=name)
    message = err["msg"].removeprefix("Value error, ")
    if err["type"] == "value_error":  # a validator's own message says what is wrong and names the option
        return BadOption(message, param=name)
    return BadOption(f"{name}: {message[:1].lower()}{message[1:]} (got {err.get('input')!r})" if name else message,
                     param=name)


def parse_pairs(items: "Iterable[str]", what: str, param: str | None = None, key: str = "key",
                value: str = "value") -> dict[str, str]:
    """``["a=1", "b=2"]`` -> ``{"a": "1", "b": "2"}`` (repeatable ``KEY=VALUE`` options, lm-eval's
    ``model_args``); an item without ``=`` or with an empty side, and a key given twice, are refused."""
    out: dict[str, str] = {}
    for item in items:
        k, sep, v = item.partition("=")
        k, v = k.strip(), v.strip()
        if not sep or not k or not v:
            raise BadOption(f"{what} {item!r} is not {key}={value}", param=param)
        if k in out and out[k] != v:
            raise BadOption(f"{what} {k!r} given twice ({out[k]!r}, {v!r})", param=param)
        out[k] = v
    return out


def option_default(model: type[Options], name: str) -> Any:
    """The default of one option of ``model``: written once, in the model (a builder reads it, never retypes it)."""
    return model.model_fields[name].get_default(call_default_factory=True)


def did_you_mean(name: str, valid: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``valid`` to ``name``; empty when none is close."""
    close = difflib.get_close_matches(name, list(valid), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def comma_names(value: Any) -> Any:
    """A comma list as the command line types it (``"a, b"``) or a sequence -> its names, stripped; None stays None."""
    if value is None:
        return None
    # a name never holds a comma, so a repeated flag's values may each be a comma list too
    raw = [part for v in ([value] if isinstance(value, str) else value) for part in str(v).split(",")]
    return [n.strip() for n in raw if n.strip()]


def comma_text(value: Any) -> Any:
    """A sequence of names, as Python passes them, as the comma list the command line types; text stays text."""
    return ",".join(comma_names(value)) if isinstance(value, (list, tuple)) else value
