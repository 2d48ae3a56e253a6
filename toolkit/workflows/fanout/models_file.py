"""The models file of ``slmboard evaluate --models``: one entry per model of a board.

    # models.yaml
    models:
      - model_args: pretrained=HuggingFaceTB/SmolLM2-135M-Instruct
        revision: 12fd25f77366fa6b3b4b768ec3050bf629380bac
        submission_id: smollm2-135m
      - model: openai:my-slm
        model_args: base_url=http://10.0.0.5:8000/v1
        submission_id: my-slm-v2

An entry's keys are ``slmboard generate``'s options that belong to one model, spelled as the
command line spells them (``--model-args`` is ``model_args``); ``revision`` is the ``revision`` of
``model_args``, written apart because a board pins one per model. What makes models comparable on
one board -- suites, limit, decoding, judge -- is set once, on the command line. The whole file is
checked before anything is scheduled; every problem is listed with its line, entry and field.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from toolkit.core.errors import BadOption, RecordError, SlmboardError, ValidationFailed, pydantic_errors
from toolkit.stages.generation.components import BACKENDS, BackendSpec, parse_model_args
from toolkit.core.registry import split_spec
from toolkit.stages.generation.runner import default_submission_id

__all__ = ["ModelEntry", "ModelsFile", "load_models_file", "BOARD_OPTIONS"]

#: Options of the whole board: set on the command line, refused in an entry (with this reason).
BOARD_OPTIONS = ("suites", "limit", "max_new_tokens", "data_dir", "judge", "to", "out", "executor",
                 "ray_address", "shards", "submitter", "bootstrap", "create_pr")


class ModelEntry(BaseModel):
    """One model of the board; a field left out takes the command line's value."""

    model_config = ConfigDict(extra="forbid", protected_namespaces=())

    model: Optional[str] = Field(None, description="the model, as --model: hf[:<Hub id or folder>], vllm:<...>, "
                                                   "openai:<served model>")
    model_args: str = Field("", description="as --model-args: pretrained=...,dtype=... (default: the embedded SmolLM2)")
    revision: Optional[str] = Field(None, description="model_args' revision: the pinned Hub commit of this model")
    submission_id: Optional[str] = Field(None, pattern=r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$",
                                         description="as --submission-id; also names the model's run folder")
    batch_size: Optional[Union[int, Literal["auto"]]] = Field(None, description="as --batch-size")
    concurrency: Optional[int] = Field(None, ge=1, description="as --concurrency")
    gpus_per_task: Optional[float] = Field(None, ge=0, description="as --gpus-per-task (e.g. tensor-parallel vLLM)")
    cpus_per_task: Optional[float] = Field(None, gt=0, description="as --cpus-per-task")

    @field_validator("model")
    @classmethod
    def _known_backend(cls, value: Optional[str]) -> Optional[str]:
        if value is not None and split_spec(value)[0] not in BACKENDS:
            raise ValueError(f"unknown model backend {value!r}; valid model backends: {', '.join(BACKENDS.names())}")
        return value

    @field_validator("model_args")
    @classmethod
    def _parsable(cls, value: str) -> str:
        try:
            args = parse_model_args(value)
        except SlmboardError as exc:
            raise ValueError(str(exc)) from exc
        known = sorted({name for c in BACKENDS.components() for name in c.options.model_fields})
        unknown = sorted(set(args) - set(known))
        if unknown:
            raise ValueError(f"unknown model argument {unknown[0]!r}; valid keys: {', '.join(known)}")
        return value

    @model_validator(mode="after")
    def _one_revision(self) -> "ModelEntry":
        written = parse_model_args(self.model_args).get("revision")
        if self.revision is not None and written is not None and written != self.revision:
            raise ValueError(f"revision {self.revision!r} and model_args revision={written} disagree; write it once")
        if self.model is not None:  # the backend is known: its own options, checked as generate checks them
            try:
                BackendSpec.combine(self.model, self.generate_args())
            except SlmboardError as exc:
                raise ValueError(str(exc)) from exc
        return self

    def generate_args(self) -> str:
        """``model_args`` with the entry's revision in it (the string ``generate`` takes)."""
        args = parse_model_args(self.model_args)
        if self.revision is not None:
            args["revision"] = self.revision
        return ",".join(f"{k}={v}" for k, v in args.items())

    def run_name(self) -> str:
        """The entry's run folder under the board's --out: its submission id, else its model's name."""
        if self.submission_id:
            return self.submission_id
        args = parse_model_args(self.model_args)
        argument = split_spec(self.model)[1] if self.model else None
        name = args.get("model_id") or argument or args.get("model") or args.get("pretrained") or "smollm2-135m-instruct"
        return default_submission_id(name, self.revision or "default")


class ModelsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    models: list[ModelEntry] = Field(min_length=1)


def load_models_file(path: str | Path) -> ModelsFile:
    """Read and check a models file; :class:`ValidationFailed` lists every problem (line, entry, field)."""
    path = Path(path)
    if not path.is_file():
        raise BadOption(f"models file {path} does not exist", param="models")
    data, lines = _parse(path, text=path.read_text(encoding="utf-8"))
    errors, cleaned = _shape_errors(path, data, lines)
    board = None
    if cleaned is not None:
        try:
            board = ModelsFile.model_validate(cleaned)
        except ValidationError as exc:
            errors += [_locate(path, e, data, lines) for e in pydantic_errors(exc, str(path), None)]
    if board is not None and not errors:
        errors = _duplicate_names(path, board, lines)
    if errors:
        raise ValidationFailed(errors, param="models")
    return board


def _parse(path: Path, text: str) -> tuple[Any, dict[tuple, int]]:
    """The file's data and the line of each entry (``(i,)``) and each key of an entry (``(i, key)``)."""
    import yaml

    try:
        data = yaml.safe_load(text)
        root = yaml.compose(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        raise ValidationFailed([RecordError(str(path), mark.line + 1 if mark else None, None, f"not valid YAML: {problem}")],
                               param="models") from exc
    lines: dict[tuple, int] = {}
    if isinstance(root, yaml.MappingNode):
        for key, value in root.value:
            lines[(key.value,)] = key.start_mark.line + 1
            if key.value == "models" and isinstance(value, yaml.SequenceNode):
                for i, entry in enumerate(value.value):
                    lines[(i,)] = entry.start_mark.line + 1
                    if isinstance(entry, yaml.MappingNode):
                        lines.update({(i, k.value): k.start_mark.line + 1 for k, _ in entry.value})
    return data, lines


def _entry_label(data: Any, i: int) -> str:
    entry = data["models"][i] if isinstance(data, dict) and isinstance(data.get("models"), list) else None
    sid = entry.get("submission_id") if isinstance(entry, dict) else None
    return f"entry {i + 1}" + (f" ({sid})" if isinstance(sid, str) else "")


def _shape_errors(path: Path, data: Any, lines: dict[tuple, int]) -> tuple[list[RecordError], dict | None]:
    """A mapping with a list of entries under ``models``; keys of the whole board refused by name. Returns
    the errors and the data without the refused keys (None when its shape leaves nothing to check)."""
    where = str(path)
    if not isinstance(data, dict) or "models" not in data:
        return [RecordError(where, None, None, "expected a mapping with a list under 'models:' (one entry per model)")], None
    errors = [RecordError(where, lines.get((key,)), key, _board_option(key)) for key in data if key != "models"]
    if not isinstance(data["models"], list):
        return errors + [RecordError(where, lines.get(("models",)), "models", "expected a list of entries, one per model")], None
    entries = []
    for i, entry in enumerate(data["models"]):
        if isinstance(entry, dict):
            errors.extend(RecordError(where, lines.get((i, key), lines.get((i,))), f"{_entry_label(data, i)}: {key}",
                                      _board_option(key)) for key in entry if key in BOARD_OPTIONS)
            entry = {k: v for k, v in entry.items() if k not in BOARD_OPTIONS}
        entries.append(entry)
    return errors, {"models": entries}


def _board_option(key: str) -> str:
    if key in BOARD_OPTIONS:
        return f"{key} is an option of the whole board: set it on the command line, not per model"
    return "unknown key; a models file holds one list, 'models:'"


def _locate(path: Path, error: RecordError, data: Any, lines: dict[tuple, int]) -> RecordError:
    """pydantic's ``models.2.model_args`` as the entry's line and label (1-based, with its submission id)."""
    m = re.match(r"^models\.(\d+)(?:\.(\w+))?", error.field or "")
    if not m:
        return RecordError(error.file, lines.get(("models",)), error.field, error.message)
    i, key = int(m.group(1)), m.group(2)
    line = lines.get((i, key)) if key else None
    field = f"{_entry_label(data, i)}: {key}" if key else _entry_label(data, i)
    message = error.message.removeprefix("Value error, ")
    if message == "unknown field (not in the schema)":
        message = f"unknown option; an entry takes {', '.join(ModelEntry.model_fields)}"
    return RecordError(error.file, line or lines.get((i,)), field, message)


def _duplicate_names(path: Path, board: ModelsFile, lines: dict[tuple, int]) -> list[RecordError]:
    """Two entries may not share a run folder (the folder is the entry's submission id or model name)."""
    first: dict[str, int] = {}
    errors = []
    for i, entry in enumerate(board.models):
        name = entry.run_name()
        if name in first:
            errors.append(RecordError(str(path), lines.get((i,)), f"entry {i + 1}",
                                      f"names the same run {name!r} as entry {first[name] + 1}; give it its own submission_id"))
        first.setdefault(name, i)
    return errors
