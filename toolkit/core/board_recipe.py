"""A board's recipe, ``board.yaml`` at the top of its dataset: what a submission to it must be.

Written by ``slmboard create``; read by ``submit`` (each field that is set is one check, refused in one
line); a field left unset constrains nothing, and a board without ``board.yaml`` (every board published
before ``create`` existed) takes any submission, as before. New policies (e.g. who may submit) are new
optional fields of :class:`BoardRecipe` and a line in :meth:`BoardRecipe.refusals`: an old board.yaml
stays valid, and an unknown key is refused so a typo never reads as "unconstrained".
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from toolkit.core.dataset_layout import BOARD_FILE
from toolkit.core.errors import SlmboardError, pydantic_errors
from toolkit.core.judge_names import resolve_judge_name
from toolkit.core.label_policy import LabelPolicy
from toolkit.core.request_policy import RequestPolicy

#: The newest recipe version this slmboard reads. Version 2 added the labelling policy (``labels:``): a recipe that
#: has one says version 2, so an older slmboard refuses it in one line instead of misreading the board.
RECIPE_VERSION = 2
#: The version a recipe without a labelling policy keeps (every reader since `create` reads it).
BASE_RECIPE_VERSION = 1
LABELS_RECIPE_VERSION = 2


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Decoding(_Part):
    """Generation settings every submission must have used (each one that is set)."""

    temperature: Optional[float] = Field(None, ge=0)
    max_new_tokens: Optional[int] = Field(None, ge=1)
    seed: Optional[int] = None


class Limits(_Part):
    """How much of each suite a submission covers."""

    items: Optional[int] = Field(None, ge=1, description="the run's --limit (items per suite); unset: any")
    complete: Optional[bool] = Field(None, description="true: every canonical item of each suite (no --allow-partial)")


class BoardRecipe(_Part):
    """``board.yaml``. Every field is optional; :meth:`refusals` says what a submission breaks."""

    version: int = BASE_RECIPE_VERSION
    description: Optional[str] = None
    suites: Optional[list[str]] = Field(None, description="the suites a submission may hold")
    judges: Optional[list[str]] = Field(None, description="the judge ids a submission may hold")
    primary_judges: Optional[dict[str, str]] = Field(None, description="the judge each suite is ranked under")
    decoding: Optional[Decoding] = None
    limits: Optional[Limits] = None
    gated: bool = Field(True, description="access requests on the dataset (records hold harmful completions)")
    requests: Optional[RequestPolicy] = Field(None, description="the policy of evaluation requests (slmboard request); "
                                                                "unset: the defaults of RequestPolicy")
    labels: Optional[LabelPolicy] = Field(None, description="the labelling policy (slmboard labels BOARD --init); unset: "
                                                            "the board takes no people's labels")

    def with_labels(self, policy: LabelPolicy) -> "BoardRecipe":
        """This recipe with the labelling policy ``policy`` (and the recipe version that has one)."""
        return self.model_copy(update={"labels": policy, "version": max(self.version, LABELS_RECIPE_VERSION)})

    def to_yaml(self) -> str:
        import yaml

        body = self.model_dump(mode="json", exclude_none=True)
        return ("# The recipe of this board (slmboard create); submit checks every field that is set.\n"
                + yaml.safe_dump(body, sort_keys=False))

    def refusals(self, suites: list[str], judges: list[str], generation: dict[str, Any], limit: int | None,
                 partial: bool) -> list[str]:
        """One line per rule of this recipe that a submission (its suites, judge ids, generation settings, --limit,
        whether it lacks canonical items) breaks; [] when it fits."""
        out = []
        if self.suites is not None and sorted(set(suites) - set(self.suites)):
            out.append(f"suite(s) {', '.join(sorted(set(suites) - set(self.suites)))} are not on this board "
                       f"(board.yaml suites: {', '.join(self.suites)})")
        # a recipe may name a judge as typed (`create --judges heuristic`) or by the id it writes (heuristic-v1)
        allowed = {resolve_judge_name(name, judges) or name for name in self.judges or ()}
        if self.judges is not None and sorted(set(judges) - allowed):
            out.append(f"judge(s) {', '.join(sorted(set(judges) - allowed))} are not on this board "
                       f"(board.yaml judges: {', '.join(self.judges)})")
        for key, wanted in (self.decoding.model_dump(exclude_none=True) if self.decoding else {}).items():
            if generation.get(key) != wanted:
                out.append(f"decoding {key} is {generation.get(key)!r}; board.yaml requires {wanted!r}")
        if self.limits and self.limits.items is not None and limit != self.limits.items:
            out.append(f"the run was generated with limit {limit!r}; board.yaml requires limits.items {self.limits.items}")
        if self.limits and self.limits.complete and partial:
            out.append("the run lacks canonical items; board.yaml requires complete suites (limits.complete)")
        return out


def read_recipe(root: Path) -> BoardRecipe | None:
    """The board.yaml of the dataset folder ``root``; None when it has none (a board from before ``create``)."""
    path = Path(root) / BOARD_FILE
    if not path.is_file():
        return None
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise SlmboardError(f"{path}: not valid YAML: {str(exc).splitlines()[0]}") from None
    return parse_recipe(data, str(path))


def parse_recipe(data: Any, where: str) -> BoardRecipe:
    if not isinstance(data, dict):
        raise SlmboardError(f"{where}: expected a mapping of recipe fields (suites, judges, primary_judges, decoding, "
                            "limits, gated)")
    version = data.get("version", BASE_RECIPE_VERSION)
    if isinstance(version, int) and not isinstance(version, bool) and version > RECIPE_VERSION:
        from toolkit import __version__

        raise SlmboardError(f"{where}: recipe version {version} needs a newer slmboard (slmboard {__version__} reads "
                            f"recipe version {RECIPE_VERSION}); upgrade slmboard to use this board")
    try:
        return BoardRecipe.model_validate(data)
    except ValidationError as exc:
        first = pydantic_errors(exc, where, None)
        raise SlmboardError("; ".join(str(e) for e in first)) from None
