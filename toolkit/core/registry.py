"""One typed registry for every pluggable component: suites, judges, backends, guards, guard styles,
moderators, moderation benchmarks, import and export formats.

A :class:`Registry` maps a name to a :class:`Component`. Every component declares

- ``options``: a pydantic model (a subclass of :class:`Options`) of everything it can be told. Unknown
  options are refused by name (``extra="forbid"``); the CLI derives each component's flags from it
  (``toolkit.commands.options``), so one option has one spelling in Python and on the command line.
- ``describe()``: what it is, for people (``slmboard`` help, the dataset card, the export formats).
- ``target``: what builds it, called as ``target(options, **services)`` -- its options model whole, plus injected
  services (never one option as a keyword); a ``"module:object"`` string is imported on first use, so an unused
  judge never imports its dependencies (torch, openai). A spec's :meth:`Spec.build` leaves itself on the built
  object as ``.spec``.

A spec string names a component and, for some, its one argument: ``"heuristic"``, ``"openai:gpt-4o"``,
``"hf:./my-model"``. The argument fills the option the component declares as ``argument`` (a served
model name, a local folder or Hub id). :class:`Spec` is a parsed, validated spec with its options.

A name is registered once: a second, different entry under the same name is refused (the same object
seen again, e.g. a reloaded module, is accepted). Looking up an unknown name raises
:class:`~toolkit.core.errors.UnknownComponent`, which lists every valid name; it is a
:class:`~toolkit.core.errors.SlmboardError`, so the CLI prints it as one line and exits 1.

The design follows lm-eval's ``api/registry.py`` (lazy ``module:object`` targets, a per-kind type
check) and inspect_ai's registry (components created from typed parameters); this module imports
nothing heavy (pydantic only).
"""
from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Generic, Iterator, Mapping, TypeVar

from pydantic import ValidationError

from toolkit.core.errors import BadOption, PluginFailed, UnknownComponent
from toolkit.core.options import (NoOptions, OptionInfo, Options, choices_of, did_you_mean, option, option_default,
                                  option_infos, parse_pairs)

__all__ = ["Registry", "Component", "Options", "NoOptions", "Description", "OptionInfo", "Spec", "option",
           "UnknownComponent", "split_spec", "choices_of", "option_infos", "parse_pairs", "option_default"]

T = TypeVar("T")


@dataclass(frozen=True)
class Description:
    """What a component is: ``str()`` gives one line for people."""

    kind: str
    name: str
    summary: str
    argument: str | None  # what NAME:ARG's argument is; None: the name takes none
    argument_required: bool
    comparable: bool  # False: its results are not comparable with reported results
    options: tuple[OptionInfo, ...]
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def spec(self) -> str:
        """How the component is named, e.g. ``openai:<served model name>``."""
        if self.argument is None:
            return self.name
        arg = f"<{self.argument}>"
        return f"{self.name}:{arg}" if self.argument_required else f"{self.name}[:{arg}]"

    def __str__(self) -> str:
        note = "" if self.comparable else " (not comparable with reported results)"
        return f"{self.spec}: {self.summary}{note}"


@dataclass(frozen=True)
class Component(Generic[T]):
    """A registry entry: a name, a typed options model, what builds it and how to describe it.

    ``argument``: the option that ``NAME:ARG`` fills (None: the name takes no argument).
    ``comparable``: False for components whose results must not be compared with reported results
    (the smoke suite, the offline heuristic judge); the CLI and the dataset card say so.
    ``extra``: kind-specific facts other modules read (e.g. a judge's id format).
    ``target``: what :meth:`build` calls with the options, or (for entries that are data, such as a guard's
    prompt format) the entry itself, read with :meth:`load`.
    """

    name: str
    summary: str
    target: str | Callable[..., T]
    options: type[Options] = NoOptions
    argument: str | None = None
    comparable: bool = True
    extra: Mapping[str, Any] = field(default_factory=dict)
    kind: str = "component"
    #: the argument is a local model folder or a Hub id: one written as a path must be an existing folder
    argument_is_folder: bool = False

    def __post_init__(self) -> None:
        if not (isinstance(self.options, type) and issubclass(self.options, Options)):
            raise TypeError(f"{self.kind} {self.name!r}: options must be a subclass of toolkit.core.registry.Options")
        if self.argument is not None and self.argument not in self.options.model_fields:
            raise TypeError(f"{self.kind} {self.name!r}: argument {self.argument!r} is not one of its options")
        if isinstance(self.target, str):
            module, sep, attr = self.target.partition(":")
            if not sep or not module or not attr:
                raise ValueError(f"{self.kind} {self.name!r}: target {self.target!r} is not 'module:object'")

    @property
    def argument_required(self) -> bool:
        return self.argument is not None and self.options.model_fields[self.argument].is_required()

    def load(self) -> Callable[..., T]:
        """The builder (imported on first use when declared as ``"module:object"``)."""
        if not isinstance(self.target, str):
            return self.target
        module, _, attr = self.target.partition(":")
        return getattr(importlib.import_module(module), attr)

    def describe(self) -> Description:
        return Description(self.kind, self.name, self.summary, self.argument, self.argument_required, self.comparable,
                           option_infos(self.options, self.argument), dict(self.extra))

    def parse_options(self, values: Options | Mapping[str, Any] | None = None, argument: str | None = None) -> Options:
        """``values`` checked against the options model; unknown or bad options are refused by name.

        The error's ``param`` names the option, so the CLI can name its flag.
        """
        if isinstance(values, self.options) and argument is None:
            return values
        if values is not None and not isinstance(values, (Mapping, Options)):  # an old call: one option positional
            raise BadOption(f"{self.kind} {self.name!r} is built from its options model ({self.options.__name__}), "
                            f"got {type(values).__name__} {values!r}")
        given = dict(values) if isinstance(values, Mapping) else (
            values.given_kwargs() if isinstance(values, Options) else {})
        if argument is not None:
            if self.argument is None:
                raise BadOption(f"{self.kind} {self.name!r} takes no ':<argument>' in its spec (got {argument!r})")
            if not argument.strip():
                raise BadOption(f"{self.kind} spec {self.name}:{argument!r} has an empty argument after ':'")
            if self.argument in given:
                raise BadOption(f"{self.kind} {self.name!r}: {self.argument} given twice (in the spec and as an option)",
                                param=self.argument)
            given[self.argument] = argument.strip()
        unknown = sorted(set(given) - set(self.options.model_fields))
        if unknown:
            valid = ", ".join(n for n in self.options.model_fields if n != self.argument) or "none"
            hint = did_you_mean(unknown[0], [n for n in self.options.model_fields if n != self.argument])
            raise BadOption(f"{self.kind} {self.name!r} has no option {unknown[0]!r}{hint}; its options: {valid}",
                            param=unknown[0])
        for name, value in given.items():
            choices = choices_of(self.options.model_fields[name])
            if choices is not None and value is not None and value not in choices:
                raise BadOption(f"{self.kind} {self.name!r}: option {name!r} must be one of {', '.join(choices)}, "
                                f"got {value!r}", param=name)
        try:
            return self.options(**given)
        except BadOption as exc:
            if getattr(exc, "validation_error", None) is None:
                raise
            raise _option_error(self, exc.validation_error) from None

    def build(self, options: Options | Mapping[str, Any] | None = None, argument: str | None = None, /,
              **services: Any) -> T:
        """The component, built from checked options (``argument`` as after ``NAME:`` in a spec).

        The builder is called as ``builder(options, **services)``: its options model whole, plus what is injected
        by name (:class:`~toolkit.core.services.Services`, the run's options a backend reads its batch size from)
        -- never one option as a keyword, so an option is written once, in its model."""
        checked = self.parse_options(options, argument)
        clash = sorted(set(services) & set(self.options.model_fields))
        if clash:
            raise TypeError(f"{self.kind} {self.name!r}: {clash[0]!r} is one of its options, not a service; give it "
                            f"in the options")
        return self.load()(checked, **services)


def _option_error(component: Component, exc: ValidationError) -> BadOption:
    err = exc.errors(include_url=False)[0]
    name = str(err["loc"][0]) if err["loc"] else None
    if err["type"] == "missing" and name == component.argument:
        return BadOption(f"the {component.name} {component.kind} needs its {name}: {component.describe().spec}", param=name)
    if err["type"] == "missing":
        return BadOption(f"{component.kind} {component.name!r}: option {name!r} is required", param=name)
    if err["type"] == "value_error":  # a validator's own message says what is wrong, starting with the option's name
        message = err["msg"].removeprefix("Value error, ")
        first = message.split(" ", 1)[0]
        name = name or (first if first in component.options.model_fields else None)
        return BadOption(f"{component.kind} {component.name!r}: {message}", param=name)
    return BadOption(f"{component.kind} {component.name!r}: option {name!r}: {err['msg'][:1].lower()}{err['msg'][1:]} "
                     f"(got {err.get('input')!r})", param=name)


PATH_PREFIXES = ("/", "./", "../", "~")


def looks_like_path(text: str) -> bool:
    """Written as a local path (``/x``, ``./x``, ``../x``, ``~/x``), never a Hub id ORG/NAME."""
    return text.startswith(PATH_PREFIXES) or text in (".", "..")


def _check_folder(kind: str, name: str, value: Any) -> None:
    """A folder argument written as a path must exist here: otherwise it would be tried as a Hub id and fail
    deep in a download with a traceback."""
    from pathlib import Path

    if isinstance(value, str) and looks_like_path(value) and not Path(value).expanduser().is_dir():
        what = "not a folder" if Path(value).expanduser().exists() else "no such folder"
        raise BadOption(f"{what}: {value} ({kind} {name}:<model folder or Hub id ORG/NAME>)")


def split_spec(spec: str) -> tuple[str, str | None]:
    """``"openai:gpt-4o"`` -> ("openai", "gpt-4o"); ``"heuristic"`` -> ("heuristic", None)."""
    name, sep, argument = spec.strip().partition(":")
    return name.strip(), (argument if sep else None)


class Registry(Generic[T]):
    """Named :class:`Component` entries of one kind.

    ``kind`` names the component in messages ("suite", "judge"); ``normalize`` maps a looked-up name to
    its registered form (e.g. lower-case suite names).

    ``plugins``: an entry-point group (``slmboard.judges``) whose entries other installed packages add,
    loaded on the first look-up (after the built-ins registered). ``adapt(name, obj, plugin)`` (or its
    ``"module:function"``, imported when a plugin is found) turns an entry
    point's object into :meth:`add`'s arguments (``summary``, ``target``, ``options`` and details) or raises
    TypeError saying why it cannot be one; ``plugin`` is ``{"package", "version", "entry_point"}``, which the
    component keeps as ``extra["plugin"]`` so what it writes can say where it came from. A plugin that fails
    to load, or that takes a built-in's name, is one warning line on stderr naming its package (the other
    components work); looking up its name raises :class:`~toolkit.core.errors.PluginFailed`.
    """

    def __init__(self, kind: str, normalize: Callable[[str], str] = str.strip, plugins: str | None = None,
                 adapt: "Callable[[str, Any, dict], dict] | str | None" = None) -> None:
        self.kind = kind
        self._normalize = normalize
        self._entries: dict[str, Component[T]] = {}
        self.plugin_group = plugins
        self._adapt = adapt
        self._plugins_loaded = plugins is None
        self._failed: dict[str, str] = {}  # plugin name -> why it is not registered

    # ---- adding ----------------------------------------------------------------------------
    def add(self, name: str, summary: str, target: str | Callable[..., T], options: type[Options] = NoOptions,
            **details: Any) -> Component[T]:
        """Register a component (``details``: ``argument``, ``comparable``, ``extra``); a taken name is refused
        unless it is the same entry again (a reloaded module)."""
        self._check_name(name)
        entry = Component(name, summary, target, options, kind=self.kind, **details)
        old = self._entries.get(name)
        if old is not None and not _same(old, entry):
            raise ValueError(f"{self.kind} name {name!r} is already registered by {_describe(old.target)}")
        self._entries[name] = entry
        return entry

    def register(self, name: str, summary: str | None = None, options: type[Options] = NoOptions,
                 **details: Any) -> Callable[[Callable[..., T]], Callable[..., T]]:
        """Decorator form of :meth:`add` (the summary defaults to the object's docstring's first line)."""
        self._check_name(name)

        def deco(target: Callable[..., T]) -> Callable[..., T]:
            text = summary or (inspect.getdoc(target) or name).splitlines()[0]
            self.add(name, text, target, options, **details)
            return target

        return deco

    # ---- plugins ---------------------------------------------------------------------------
    def load_plugins(self) -> dict[str, str]:
        """Register the entry points of :attr:`plugin_group` (once); returns name -> why, for those that failed."""
        if self._plugins_loaded:
            return dict(self._failed)
        self._plugins_loaded = True
        import sys
        from importlib.metadata import entry_points

        for ep in entry_points(group=self.plugin_group):
            dist = getattr(ep, "dist", None)
            plugin = {"package": dist.name if dist is not None else "(unknown package)",
                      "version": dist.version if dist is not None else "(unknown version)", "entry_point": ep.value}
            where = f"{self.kind} plugin {ep.name!r} of package {plugin['package']} {plugin['version']}"
            try:
                self._check_name(ep.name)
                if self._normalize(ep.name) in self._entries:
                    raise TypeError(f"slmboard already has a {self.kind} named {ep.name!r}; rename the entry point")
                obj = ep.load()
                adapt = _resolve(self._adapt) if isinstance(self._adapt, str) else self._adapt
                details = dict(adapt(ep.name, obj, plugin) if adapt else
                               {"summary": (inspect.getdoc(obj) or ep.name).splitlines()[0], "target": obj})
                summary, target = details.pop("summary"), details.pop("target")
                options = details.pop("options", NoOptions)
                details["extra"] = {**dict(details.get("extra") or {}), "plugin": plugin}
                self.add(ep.name, summary, target, options, **details)
            except Exception as exc:  # any failure of someone else's package: one line, the others keep working
                reason = (str(exc).strip().splitlines() or [""])[0]
                self._failed[self._normalize(ep.name)] = f"{where} is not used: {type(exc).__name__}: {reason}"
                print(f"warning: {self._failed[self._normalize(ep.name)]}", file=sys.stderr)
        return dict(self._failed)

    # ---- looking up ------------------------------------------------------------------------
    def get(self, name: str) -> Component[T]:
        """The component ``name``; :class:`UnknownComponent` (listing valid names) when there is none."""
        key = self._normalize(name) if isinstance(name, str) else name
        if isinstance(key, str) and key not in self._entries:
            self.load_plugins()
            if key in self._failed and key not in self._entries:
                raise PluginFailed(self._failed[key])
        if not isinstance(key, str) or key not in self._entries:
            raise UnknownComponent(self.kind, name, self.names())
        return self._entries[key]

    def build(self, spec: str, options: Options | Mapping[str, Any] | None = None) -> T:
        """Build from a spec string such as ``"openai:gpt-4o"`` with ``options``."""
        if not isinstance(spec, str) or not spec.strip():
            raise BadOption(f"{self.kind} spec must be a non-empty string, got {spec!r}; valid {self.kind}s: "
                            f"{', '.join(self.names())}")
        name, argument = split_spec(spec)
        return self.get(name).build(options, argument)

    def names(self) -> list[str]:
        """Every valid name, sorted."""
        self.load_plugins()
        return sorted(self._entries)

    def components(self) -> list[Component[T]]:
        """Every component, in registration order (plugins last)."""
        self.load_plugins()
        return list(self._entries.values())

    def __getitem__(self, name: str) -> Component[T]:
        return self.get(name)

    def __contains__(self, name: object) -> bool:
        if isinstance(name, str) and self._normalize(name) not in self._entries:
            self.load_plugins()
        return isinstance(name, str) and self._normalize(name) in self._entries

    def __iter__(self) -> Iterator[str]:
        """Names in registration order."""
        self.load_plugins()
        return iter(list(self._entries))

    def __len__(self) -> int:
        self.load_plugins()
        return len(self._entries)

    # ---- internals -------------------------------------------------------------------------
    def _check_name(self, name: str) -> None:
        if not isinstance(name, str) or not name or ":" in name or name != name.strip():
            raise ValueError(f"invalid {self.kind} name {name!r} (non-empty, no ':' and no surrounding spaces)")


class Spec(Generic[T]):
    """A component named by a spec string with checked options, e.g.
    ``JudgeSpec("openai:gpt-4o", base_url="http://127.0.0.1:8000/v1")``; ``build()`` makes it.

    Subclasses bind a registry (``JudgeSpec``, ``BackendSpec``, ``ModeratorSpec``). Unknown options and bad
    values are refused at construction, naming the option (``BadOption.param``).
    """

    registry: ClassVar[Registry]

    def __init__(self, spec: str, /, **options: Any) -> None:
        if not isinstance(spec, str) or not spec.strip():
            raise BadOption(f"{self.registry.kind} spec must be a non-empty string, got {spec!r}; valid "
                            f"{self.registry.kind}s: {', '.join(self.registry.names())}")
        name, argument = split_spec(spec)
        self.component: Component[T] = self.registry.get(name)
        self.options: Options = self.component.parse_options(options, argument)
        #: the options given, in the order given (the argument first)
        self.given: tuple[str, ...] = ((self.component.argument,) if argument is not None else ()) + tuple(options)
        if self.component.argument_is_folder:
            _check_folder(self.registry.kind, name, getattr(self.options, self.component.argument, None))

    @classmethod
    def of(cls, value: "Spec[T] | str", **options: Any) -> "Spec[T]":
        """``value`` (a spec or its string) with ``options`` added (checked again)."""
        if isinstance(value, cls):
            return cls(str(value), **{**value.explicit(), **options}) if options else value
        return cls(value, **options)  # type: ignore[arg-type]

    @property
    def name(self) -> str:
        return self.component.name

    @property
    def argument(self) -> str | None:
        return None if self.component.argument is None else getattr(self.options, self.component.argument)

    def explicit(self) -> dict[str, Any]:
        """The options that were given (not defaults), in the order given, the argument excluded."""
        return {k: getattr(self.options, k) for k in self.given if k != self.component.argument}

    @classmethod
    def from_options(cls, name: str, options: Options | None = None) -> "Spec[T]":
        """The spec of component ``name`` with the options object ``options`` (what a builder called directly,
        not through a spec, keeps as its ``.spec``); the options given are the ones set on it."""
        spec = cls.__new__(cls)
        spec.component = cls.registry.get(name)
        spec.options = spec.component.parse_options(options)
        spec.given = tuple(n for n in type(spec.options).model_fields if n in spec.options.model_fields_set)
        return spec

    def build(self, **services: Any) -> T:
        """The component, keeping this spec as its ``.spec`` (its id and recorded config are read from it)."""
        built = self.component.build(self.options, **services)
        try:
            built.spec = self  # type: ignore[attr-defined]
        except (AttributeError, TypeError):  # an object that takes no attributes (a frozen one) keeps none
            pass
        return built

    def __str__(self) -> str:
        arg = self.argument
        return self.name if arg is None else f"{self.name}:{arg}"

    def __repr__(self) -> str:
        opts = "".join(f", {k}={v!r}" for k, v in self.explicit().items())
        return f"{type(self).__name__}({str(self)!r}{opts})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and (self.name, self.options) == (other.name, other.options)  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, str(self)))


def _resolve(target: str) -> Callable[..., Any]:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def _same(a: Component, b: Component) -> bool:
    # A reloaded module re-creates its classes: same target (by module and qualified name) is the same entry.
    x, y = a.target, b.target
    return x == y or x is y or (
        getattr(x, "__module__", None) == getattr(y, "__module__", None)
        and getattr(x, "__qualname__", None) == getattr(y, "__qualname__", None)
        and getattr(x, "__qualname__", None) is not None
    )


def _describe(obj: object) -> str:
    if inspect.isclass(obj) or inspect.isfunction(obj):
        return f"{obj.__module__}.{obj.__qualname__}"
    return repr(obj)
