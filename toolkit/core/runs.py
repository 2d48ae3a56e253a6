"""A run folder: everything one model's evaluation produced, stage by stage.

    RUN/run.json                          RunConfig: model, revision, backend, decoding, suites
    RUN/responses/<suite>.jsonl           ResponseRecords (appended per batch; resumable)
    RUN/judgments/<judge>/<suite>.jsonl   ItemRecords, one folder per judge
    RUN/judgments/<judge>/judge-config.json   an API judge's request settings (published in the manifest)
    RUN/judgments/<judge>/judge-fits.json     the kinds of item the judge declares it can judge (the manifest's judge_fits)
    RUN/moderation/<benchmark>.jsonl      ModerationRecords (moderator reliability track)
    RUN/model.json                        optional model metadata for the manifest (family, params, ...)
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field

from schemas import GenerationConfig

from toolkit.core.errors import NotARun, RunMismatch, SlmboardError
from toolkit.core.judge_names import judge_slug
from toolkit.core.records_io import atomic_write_text

RUN_CONFIG_FILE = "run.json"
JUDGE_CONFIG_FILE = "judge-config.json"
JUDGE_FITS_FILE = "judge-fits.json"
COST_FILE = "cost.json"
#: the usage ledgers (schemas.usage.UsageRecord): a dot folder, so that validate, the readers and submit, which
#: read every record file of a run, never take them for records
USAGE_DIR = ".usage"


class RunConfig(BaseModel):
    """What a run is; re-running the same command must find the same config (else it is another run)."""

    model_config = ConfigDict(extra="forbid", protected_namespaces=())

    submission_id: str
    model_id: str
    model_revision: str
    backend: str
    model_args: dict[str, str] = Field(default_factory=dict)
    generation: GenerationConfig
    # Imports: each suite's own decoding, as its records carry it (a HELM folder asks BBQ for 1 token, the rest
    # for 512); ``generation`` is then the first suite's. Empty for generated runs (one setting, per-suite caps by rule).
    suite_generation: dict[str, GenerationConfig] = Field(default_factory=dict)
    suites: list[str]
    suite_revisions: dict[str, str] = Field(default_factory=dict)
    # suite -> the part of it the run's data folder held ("30 of 100 prompts") where that was the package's sample:
    # the submission counts coverage against the whole suite, so numbers from a sample never read as complete
    suite_samples: dict[str, str] = Field(default_factory=dict)
    limit: Optional[int] = None
    shard: Optional[str] = None
    toolkit_version: str
    model_info: dict[str, Any] = Field(default_factory=dict, description="metadata read from the model config")
    created_at: Optional[str] = None
    # Runs made by `slmboard import`: one entry per imported source (format, tool, files + sha256, options).
    imports: list[dict[str, Any]] = Field(default_factory=list)

    def identity(self) -> dict[str, Any]:
        """The fields that must match for a resumed run to continue this one."""
        gen = self.generation.model_dump()
        gen.pop("batch_size", None)  # batch size may change between attempts
        return {
            "model_id": self.model_id,
            "model_revision": self.model_revision,
            "backend": self.backend,
            "generation": gen,
            "submission_id": self.submission_id,
        }


class RunDir:
    def __init__(self, root: str | Path):
        self.root = Path(root)

    @property
    def config_path(self) -> Path:
        return self.root / RUN_CONFIG_FILE

    @property
    def responses_dir(self) -> Path:
        return self.root / "responses"

    def response_file(self, suite: str) -> Path:
        return self.responses_dir / f"{suite}.jsonl"

    @property
    def judgments_root(self) -> Path:
        return self.root / "judgments"

    def judgments_dir(self, judge_id: str) -> Path:
        return self.judgments_root / judge_slug(judge_id)

    def judgment_file(self, judge_id: str, suite: str) -> Path:
        return self.judgments_dir(judge_id) / f"{suite}.jsonl"

    def judge_config_file(self, judge_id: str) -> Path:
        return self.judgments_dir(judge_id) / JUDGE_CONFIG_FILE

    def judge_fits_file(self, judge_id: str) -> Path:
        return self.judgments_dir(judge_id) / JUDGE_FITS_FILE

    def recorded_judge_fits(self, judge_id: str) -> Optional[list[str]]:
        """The kinds of item the judging stage recorded for ``judge_id`` (None when it recorded none:
        an imported judge, or a run judged before fitness was recorded)."""
        path = self.judge_fits_file(judge_id)
        if not path.is_file():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise SlmboardError(f"{path}: not valid JSON ({exc})") from exc
        fits = data.get("fits") if isinstance(data, dict) else None
        if not isinstance(fits, list) or not all(isinstance(k, str) for k in fits):
            raise SlmboardError(f"{path}: expected {{\"judge_id\": ..., \"fits\": [kinds]}}")
        return fits

    def record_judge_fits(self, judge_id: str, fits: list[str]) -> None:
        path = self.judge_fits_file(judge_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps({"judge_id": judge_id, "fits": list(fits)}, indent=2) + "\n")

    @property
    def cost_file(self) -> Path:
        return self.root / COST_FILE

    @property
    def generation_usage_file(self) -> Path:
        return self.root / USAGE_DIR / "responses.jsonl"

    def judge_usage_file(self, judge_id: str) -> Path:
        return self.root / USAGE_DIR / "judgments" / f"{judge_slug(judge_id)}.jsonl"

    def usage_files(self) -> list[Path]:
        """Every usage ledger of the run: the generation's first, then each judge's."""
        judged = self.root / USAGE_DIR / "judgments"
        return ([self.generation_usage_file] if self.generation_usage_file.is_file() else []) + (
            sorted(judged.glob("*.jsonl")) if judged.is_dir() else [])

    @property
    def moderation_dir(self) -> Path:
        return self.root / "moderation"

    def moderation_file(self, benchmark: str) -> Path:
        return self.moderation_dir / f"{benchmark}.jsonl"

    def moderation_files(self) -> list[Path]:
        base = self.moderation_dir
        return sorted(base.glob("*.jsonl")) if base.is_dir() else []

    @property
    def model_info_path(self) -> Path:
        return self.root / "model.json"

    def exists(self) -> bool:
        return self.config_path.is_file()

    def load_config(self) -> RunConfig:
        if not self.config_path.is_file():
            raise NotARun(f"{self.root}: not a run folder (no run.json); generate responses into it first")
        try:
            return RunConfig.model_validate_json(self.config_path.read_text(encoding="utf-8"))
        except Exception as exc:
            raise SlmboardError(f"{self.config_path}: invalid run config: {exc}") from exc

    def save_config(self, config: RunConfig) -> None:
        atomic_write_text(self.config_path, json.dumps(config.model_dump(mode="json"), indent=2) + "\n")

    def response_files(self) -> list[Path]:
        return sorted(self.responses_dir.glob("*.jsonl")) if self.responses_dir.is_dir() else []

    def judgment_files(self) -> list[Path]:
        base = self.judgments_root
        return sorted(base.glob("*/*.jsonl")) if base.is_dir() else []

    def response_hashes(self, suite: str) -> dict[str, tuple[str, int]]:
        """item_id -> (sha256 of the response text the run holds now, its line in responses/<suite>.jsonl):
        what a judgment of that item must have judged (a response edited after judging makes it stale)."""
        from schemas import sha256_text

        from toolkit.core.records_io import iter_jsonl

        path = self.response_file(suite)
        out: dict[str, tuple[str, int]] = {}
        if path.is_file():
            for line, row in iter_jsonl(path):
                if isinstance(row, dict) and "item_id" in row and isinstance(row.get("response"), str):
                    out.setdefault(str(row["item_id"]), (sha256_text(row["response"]), line))
        return out


def judged_response_sha256(record) -> str | None:
    """sha256 of the response a judgment judged (its text when it carries one, else its response_sha256)."""
    from schemas import sha256_text

    response = getattr(record, "response", None) if not isinstance(record, dict) else record.get("response")
    if isinstance(response, str):
        return sha256_text(response)
    return getattr(record, "response_sha256", None) if not isinstance(record, dict) else record.get("response_sha256")

