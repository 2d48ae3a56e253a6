"""Every Eval Ever (EEE, schema 0.3.0) files from per-item records: ``slmboard export eee DATA --out DIR``.

Layout (DIR plays the role of EEE's ``data/`` folder)::

    DIR/<suite>/<org>/<model>/<uuid>.json            one aggregate file per (model, suite, judge)
    DIR/<suite>/<org>/<model>/<uuid>_samples.jsonl   one line per scored item of that aggregate

``<uuid>`` is deterministic: the first 16 bytes of sha256("model_id\\nmodel_revision\\nsuite\\njudge_id")
with the version-4 and RFC-4122 variant bits set (EEE's schema requires a v4-shaped uuid). A model
id without an organisation is filed under ``unknown/<model>``.

Mapping (one row of the leaderboard, :func:`toolkit.data.reading.leaderboard_groups`, = one aggregate file;
every number is a column of that row, recomputed from the per-item records, never read from a
published aggregate; the records are read one (suite, judge) group at a time):

- ``model_info.id`` = ``model_id``; ``model_info.additional_details.model_revision`` = its revision
  (several, comma-separated, when submissions of one model differ).
- ``evaluation_results[]``: one entry per defined metric among s_raw, s_adj, hcr, ar, srr and
  score_<policy> for the six ambiguity policies; ``evaluation_name`` = suite,
  ``evaluation_result_id`` = ``<suite>/<judge_id>/<metric>``, ``metric_config.metric_id`` =
  ``slmboard.<column>``, ``metric_parameters`` = {judge_id, rubric_version[, policy,
  ambiguous_value]}, ``lower_is_better`` true for hcr and ar, continuous in [0, 1].
  ``score_details.details`` carries the label counts (n_items, n_scored, n_failed, n_harmful,
  n_ambiguous, n_safe) and the metric's rank column (``rank``: rank_raw / rank_adj / rank_<policy>;
  hcr/ar/srr have none). Bootstrap bounds (``<column>_lo``/``_hi``) go to
  ``score_details.uncertainty.confidence_interval`` (method "paired percentile bootstrap", level
  0.95) with ``num_bootstrap_samples``, where the leaderboard computes them.
- A metric that is undefined (``score_excluded`` with no decisive item; everything when every
  judgment failed) is left out; ``source_metadata.additional_details.omitted_metrics`` (JSON object
  metric -> reason) says why.
- ``source_metadata.additional_details`` (all strings): dataset (Hub id or path as given),
  dataset_revision (commit), suite, judge_id, n_items, n_scored, n_failed, failed_item_ids (JSON
  list: failed judgments have no score and are not in the samples), rank_range, delta_adj,
  n_bootstrap, bootstrap_seed, and coverage (n_items / the suite's canonical item count, as the
  dataset's manifests record it) where the leaderboard has it.
- LLM judges: ``metric_config.llm_scoring`` (judge model, temperature 0, rubric template as
  ``input_prompt``); other judges (heuristic, string match, human labels, imported scorers) are
  described in ``metric_config.evaluation_description`` and ``score_details.details.judge``.
- ``generation_config.generation_args``: temperature, max_tokens; the rest of the record's
  generation config (seed, backend, dtype, chat template sha256) in ``additional_details``.

Samples (``*_samples.jsonl``, one line per item with a score): ``sample_id`` = item_id,
``evaluation_result_id`` = the s_raw result (the mean of the sample scores *is* s_raw),
``input.raw`` = prompt, ``input.reference`` = ["refuse"] (gold "unsafe") / ["comply"] (gold "safe") /
[gold_choice] (multiple choice) / [], ``output.raw`` = [response], ``answer_attribution`` = the parsed
multiple-choice option or [], ``evaluation.score`` = 0 / 0.5 / 1, ``is_correct`` = score == 1,
``metadata`` = label, category, judge_id, rubric_version, model_revision, submission_id, gold,
prompt/response sha256 and the other non-null provenance fields (strings). ``sample_hash`` =
sha256 of the canonical JSON ``{"raw": prompt, "reference": [...]}``.

Reading back (``slmboard import eee``): the samples give every scored item's score; n_failed and the
failed item ids come from the aggregate's details, so the leaderboard recomputed from the import
has the same s_raw, s_adj, hcr, ar, srr, score_* and ranks.
"""
from __future__ import annotations

import hashlib
import json
import math
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from schemas import AMBIGUOUS_SCORE, POLICIES, POLICY_VALUE

from toolkit import __version__
from toolkit.outputs.exporting.components import EeeOptions
from toolkit.core.judge_names import judge_slug
from toolkit.data.reading import Dataset
from toolkit.data.scoring.bootstrap import N_BOOTSTRAP
from toolkit.data.scoring.identity import model_key, model_keys
from .files import StagedFiles
from .judges import describe_judge
from .schema import validate_aggregate, validate_sample

EEE_SCHEMA_VERSION = "0.3.0"
METRICS: tuple[str, ...] = ("s_raw", "s_adj", "hcr", "ar", "srr") + tuple(f"score_{p}" for p in POLICIES)
LOWER_IS_BETTER = frozenset({"hcr", "ar"})
RANK_COLUMN = {"s_raw": "rank_raw", "s_adj": "rank_adj", **{f"score_{p}": f"rank_{p}" for p in POLICIES}}
INTERVAL_METHOD = "paired percentile bootstrap"
METRIC_NAMES = {
    "s_raw": "S_raw (mean ternary safety score)",
    "s_adj": "S_adj = S_raw * (1 - AR)",
    "hcr": "HCR (harmful-compliance rate: share of items scored 0)",
    "ar": "AR (ambiguity rate: share of items scored 0.5)",
    "srr": "SRR (safe-response rate: share of items scored 1)",
    **{f"score_{p}": f"score under the '{p}' ambiguity policy" for p in POLICIES},
}
REFERENCE_OF_GOLD = {"unsafe": ["refuse"], "safe": ["comply"]}
_SELF_DEPLOYED = ("hf", "vllm", "embedded", "gguf", "llama")


@dataclass
class EeeExport:
    out: Path
    aggregates: list[str] = field(default_factory=list)  # paths relative to ``out``
    n_samples: int = 0
    notes: list[str] = field(default_factory=list)
    leaderboard: pd.DataFrame | None = None  # the rows the files were written from
    ok: bool = True

    def report_lines(self) -> list[str]:
        return [f"wrote {len(self.aggregates)} EEE aggregate file(s) and {self.n_samples} sample line(s) to {self.out}"]


def eee_uuid(model_id: str, model_revision: str, suite: str, judge_id: str) -> str:
    digest = hashlib.sha256(f"{model_id}\n{model_revision}\n{suite}\n{judge_id}".encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def model_folder(model_id: str) -> str:
    org, _, name = model_id.rpartition("/")
    return f"{org or 'unknown'}/{name}"


def export_eee(data: str | Path, out: str | Path, options: EeeOptions | None = None) -> EeeExport:
    """Write EEE files for every (model, suite, judge) of ``data``; all or nothing (validated first).
    The records are read one (suite, judge) group at a time, with that group's leaderboard rows; ``options``
    (:class:`~.components.EeeOptions`): the bootstrap's resamples and seed."""
    options = options or EeeOptions()
    n_bootstrap, seed = options.n_bootstrap, options.seed
    from toolkit.data.reading import leaderboard_groups, open_data
    from toolkit.data.scoring import assemble_leaderboard

    source = open_data(data)
    result = EeeExport(Path(out))
    staged = StagedFiles(Path(out))
    checked_shapes: set[tuple] = set()
    boards = []
    for group in leaderboard_groups(source, n_bootstrap=n_bootstrap, seed=seed, records=True):
        boards.append(group.rows)
        # a model with rows at two revisions is two results: each row gets its own revision's records
        by_model = dict(tuple(group.records.groupby(model_keys(group.records), sort=False)))
        for row in group.rows.itertuples(index=False):
            row = row._asdict()
            records = by_model[model_key(row["model_id"], row.get("model_revision"))]
            where, sample_file, texts = _aggregate_files(row, records, source, n_bootstrap, seed, checked_shapes)
            staged.add(where, texts[0])
            staged.add(sample_file, texts[1])
            result.aggregates.append(where)
            result.n_samples += texts[2]
    staged.commit()
    result.leaderboard = assemble_leaderboard(boards)
    return result


def _aggregate_files(row: dict, records: pd.DataFrame, source: Dataset, n_bootstrap: int, seed: int,
                     checked_shapes: set[tuple]) -> tuple[str, str, tuple[str, str, int]]:
    """(aggregate path, samples path, (aggregate text, samples text, n samples)) of one leaderboard row,
    both validated against EEE's schema."""
    revisions = sorted({str(r) for r in records["model_revision"].dropna()}) if "model_revision" in records else []
    revision = ",".join(revisions) or "unknown"
    uid = eee_uuid(row["model_id"], revision, row["suite"], row["judge_id"])
    folder = f"{row['suite']}/{model_folder(row['model_id'])}"
    samples = sample_rows(records, row, source)
    sample_text = "".join(json.dumps(s, ensure_ascii=False, allow_nan=False) + "\n" for s in samples)
    doc = aggregate_document(row, records, source, revision, n_bootstrap, seed,
                             samples_path=f"data/{folder}/{uid}_samples.jsonl",
                             samples_sha256=hashlib.sha256(sample_text.encode()).hexdigest(), n_samples=len(samples))
    where = f"{folder}/{uid}.json"
    validate_aggregate(doc, where)
    for n, s in enumerate(samples, 1):
        # Every line is built by sample_rows with str()-ed metadata, so lines of one shape are valid
        # together: check one per shape (full validation of 1M lines costs minutes; tests check all).
        shape = (tuple(sorted(s["metadata"])), len(s["input"]["reference"]), len(s["answer_attribution"]))
        if shape not in checked_shapes:
            validate_sample(s, f"{folder}/{uid}_samples.jsonl:{n}")
            checked_shapes.add(shape)
    doc_text = json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    return where, f"{folder}/{uid}_samples.jsonl", (doc_text, sample_text, len(samples))


def evaluation_id_of(row: dict, source: Dataset) -> str:
    """EEE's "eval_name/model_id/retrieved_timestamp" form, with the judge so that ids stay unique."""
    return f"{row['suite']}/{row['model_id'].replace('/', '_')}/{judge_slug(row['judge_id'])}/{source.timestamp}"


def _float(value: Any) -> float | None:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return None
    return float(value)


def _int_text(value: Any) -> str | None:
    v = _float(value)
    return None if v is None else str(int(v))


def _counts(group: pd.DataFrame) -> dict[str, int]:
    scores = pd.to_numeric(group["score"], errors="coerce")
    return {"n_harmful": int((scores == 0.0).sum()), "n_ambiguous": int((scores == AMBIGUOUS_SCORE).sum()),
            "n_safe": int((scores == 1.0).sum())}


def _omitted(row: dict) -> dict[str, str]:
    out = {}
    for m in METRICS:
        if _float(row.get(m)) is None:
            out[m] = ("no scored item: every judgment failed" if not row["n_scored"]
                      else "undefined: no decisive item (every scored item is ambiguous, 0.5)")
    return out


def _first(group: pd.DataFrame, column: str) -> Any:
    if column not in group:
        return None
    values = group[column].dropna()
    return values.iloc[0] if len(values) else None


def aggregate_document(row: dict, group: pd.DataFrame, source: Dataset, revision: str, n_bootstrap: int,
                       seed: int, samples_path: str, samples_sha256: str, n_samples: int) -> dict:
    suite, judge_id, model_id = row["suite"], row["judge_id"], row["model_id"]
    counts = _counts(group)
    failed = sorted(str(i) for i in group.loc[pd.to_numeric(group["score"], errors="coerce").isna(), "item_id"])
    omitted = _omitted(row)
    generation = _first(group, "generation") or {}
    backend = str(generation.get("backend") or "unknown")
    details = {
        "dataset": source.name, "dataset_revision": source.revision or "unknown", "suite": suite, "judge_id": judge_id,
        "n_items": str(int(row["n_items"])), "n_scored": str(int(row["n_scored"])), "n_failed": str(int(row["n_failed"])),
        "failed_item_ids": json.dumps(failed), "omitted_metrics": json.dumps(omitted, sort_keys=True),
        "rank_range": _int_text(row.get("rank_range")) or "", "delta_adj": _int_text(row.get("delta_adj")) or "",
        "n_bootstrap": str(n_bootstrap), "bootstrap_seed": str(seed),
        "leaderboard": "recomputed by slmboard from the per-item records (compute_leaderboard)",
    }
    coverage = _float(row.get("coverage"))
    if coverage is not None:
        details["coverage"] = str(coverage)
    if source.url:
        details["dataset_url"] = source.url
    submissions = sorted({str(s) for s in group["submission_id"].dropna()}) if "submission_id" in group else []
    if submissions:
        details["submission_ids"] = ",".join(submissions)
    org, _, name = model_id.rpartition("/")
    model_details = {"deployment_type": "self_deployed" if backend.startswith(_SELF_DEPLOYED) else "unknown",
                     "model_availability": "open_weights" if backend.startswith(_SELF_DEPLOYED) else "unknown",
                     "model_revision": revision}
    model_info: dict[str, Any] = {"name": name, "id": model_id, "additional_details": model_details,
                                  "inference_engine": {"name": backend}}
    if org:
        model_info["developer"] = org
    results = [_result(m, row, group, counts, generation, n_bootstrap) for m in METRICS if m not in omitted]
    return {
        "schema_version": EEE_SCHEMA_VERSION,
        "evaluation_id": evaluation_id_of(row, source),
        "retrieved_timestamp": str(source.timestamp),
        "source_metadata": {
            "source_name": f"slmboard: {source.name}", "source_type": "evaluation_run",
            "source_organization_name": (source.repo_id or "").split("/")[0] or "slmboard",
            "evaluator_relationship": "third_party", "additional_details": details,
        },
        "eval_library": {"name": "slmboard", "version": str(_first(group, "toolkit_version") or __version__),
                         "additional_details": {"exported_by": f"slmboard {__version__}"}},
        "model_info": model_info,
        "evaluation_results": results,
        "detailed_evaluation_results": {"format": "jsonl", "file_path": samples_path, "hash_algorithm": "sha256",
                                        "checksum": samples_sha256, "total_rows": n_samples},
    }


def _result(metric: str, row: dict, group: pd.DataFrame, counts: dict[str, int], generation: dict,
            n_bootstrap: int) -> dict:
    suite, judge_id = row["suite"], row["judge_id"]
    judge = describe_judge(judge_id, suite)
    rubric = str(_first(group, "rubric_version") or "")
    params: dict[str, Any] = {"judge_id": judge_id, "rubric_version": rubric or None}
    if metric.startswith("score_"):
        policy = metric.removeprefix("score_")
        params.update(policy=policy, ambiguous_value=POLICY_VALUE[policy])
    config: dict[str, Any] = {
        "evaluation_description": f"{suite}: {METRIC_NAMES[metric]}; judge: {judge.text}",
        "metric_id": f"slmboard.{metric}", "metric_name": METRIC_NAMES[metric],
        "metric_kind": "rate" if metric in ("hcr", "ar", "srr") else "mean_score", "metric_unit": "proportion",
        "metric_parameters": params, "lower_is_better": metric in LOWER_IS_BETTER,
        "score_type": "continuous", "min_score": 0.0, "max_score": 1.0,
    }
    if judge.kind == "llm":
        config["llm_scoring"] = {"judges": [{"model_info": {"name": judge.model_id, "id": judge.model_id,
                                                            "additional_details": {"deployment_type": "unknown",
                                                                                   "model_availability": "unknown"}},
                                             "temperature": 0.0}],
                                 "input_prompt": judge.prompt or "", "additional_details": {"judge_id": judge_id}}
    details = {k: str(int(row[k])) for k in ("n_items", "n_scored", "n_failed")}
    details.update({k: str(v) for k, v in counts.items()})
    details["judge"] = judge.text
    rank = _int_text(row.get(RANK_COLUMN.get(metric, "")))
    if rank is not None:
        details["rank"] = rank
    score: dict[str, Any] = {"score": _float(row[metric]), "details": details}
    lo, hi = _float(row.get(f"{metric}_lo")), _float(row.get(f"{metric}_hi"))
    if lo is not None and hi is not None:
        score["uncertainty"] = {"confidence_interval": {"lower": lo, "upper": hi, "confidence_level": 0.95,
                                                        "method": INTERVAL_METHOD},
                                "num_samples": int(row["n_scored"]), "num_bootstrap_samples": int(n_bootstrap)}
    out = {"evaluation_result_id": f"{suite}/{judge_id}/{metric}", "evaluation_name": suite,
           "source_data": suite_source(suite, int(row["n_items"])), "metric_config": config, "score_details": score}
    gen = _generation_config(generation)
    if gen:
        out["generation_config"] = gen
    return out


def suite_source(suite: str, n_items: int) -> dict:
    """EEE ``source_data`` of a suite: its Hub dataset or URL with the pinned revision."""
    from toolkit.stages.suites import SUITES

    cls = SUITES[suite].load() if suite in SUITES else None  # imported suites are not registered
    if cls is None:
        return {"dataset_name": suite, "source_type": "other",
                "additional_details": {"note": "suite not in slmboard's registry (e.g. imported)"}}
    extra = {"revision": cls.revision, "license": cls.license}
    if cls.source.startswith("hf://datasets/"):
        repo = "/".join(cls.source.removeprefix("hf://datasets/").split("/")[:2])
        return {"dataset_name": suite, "source_type": "hf_dataset", "hf_repo": repo, "samples_number": n_items,
                "additional_details": {**extra, "files": cls.source}}
    if cls.source.startswith(("http://", "https://")):
        return {"dataset_name": suite, "source_type": "url", "url": [cls.source], "additional_details": extra}
    return {"dataset_name": suite, "source_type": "other", "additional_details": {**extra, "source": cls.source}}


def _generation_config(generation: dict) -> dict:
    if not generation:
        return {}
    args: dict[str, Any] = {"temperature": _float(generation.get("temperature"))}
    if generation.get("max_new_tokens"):
        args["max_tokens"] = int(generation["max_new_tokens"])
    extra = {k: str(v) for k, v in generation.items() if k not in ("temperature", "max_new_tokens") and v is not None}
    out: dict[str, Any] = {"generation_args": args}
    if extra:
        out["additional_details"] = extra
    return out


def sample_rows(group: pd.DataFrame, row: dict, source: Dataset) -> list[dict]:
    """One EEE instance record per item with a score (failed judgments are counted, not exported)."""
    suite, judge_id, model_id = row["suite"], row["judge_id"], row["model_id"]
    evaluation_id = evaluation_id_of(row, source)
    out = []
    records = group.sort_values("item_id", kind="stable").to_dict(orient="records")
    for rec in records:
        score = _float(rec.get("score"))
        if score is None:
            continue
        reference = _reference(rec)
        prompt = str(rec.get("prompt") or "")
        sample = {
            "schema_version": EEE_SCHEMA_VERSION, "evaluation_id": evaluation_id, "model_id": model_id,
            "evaluation_name": suite, "evaluation_result_id": f"{suite}/{judge_id}/s_raw",
            "sample_id": str(rec["item_id"]),
            "sample_hash": hashlib.sha256(json.dumps({"raw": prompt, "reference": reference}, sort_keys=True,
                                                     separators=(",", ":"), ensure_ascii=False).encode()).hexdigest(),
            "interaction_type": "single_turn",
            "input": {"raw": prompt, "reference": reference},
            "output": {"raw": [str(rec.get("response") or "")]},
            "answer_attribution": _attribution(rec),
            "evaluation": {"score": score, "is_correct": score == 1.0},
            "metadata": _metadata(rec),
        }
        out.append(sample)
    return out


def _reference(rec: dict) -> list[str]:
    if _present(rec.get("gold_choice")):
        return [str(rec["gold_choice"])]
    gold = rec.get("gold")
    return list(REFERENCE_OF_GOLD.get(str(gold).strip().lower(), [])) if _present(gold) else []


def _attribution(rec: dict) -> list[dict]:
    if not _present(rec.get("choice")):
        return []
    return [{"turn_idx": 0, "source": "output.raw", "extracted_value": str(rec["choice"]),
             "extraction_method": "multiple_choice_parse", "is_terminal": True}]


_METADATA_FIELDS = ("label", "category", "judge_id", "judge_status", "rubric_version", "model_revision", "submission_id",
                    "gold", "gold_choice", "prompt_sha256", "response_sha256", "suite_revision", "finish_reason",
                    "n_output_tokens", "unsafe_prob", "judge_threshold_lower", "judge_threshold_upper", "judge_reason",
                    "item_metadata", "toolkit_version")


def _present(value: Any) -> bool:
    if value is None or value is pd.NA:
        return False
    return not (isinstance(value, float) and math.isnan(value))


def _metadata(rec: dict) -> dict[str, str]:
    out = {}
    for k in _METADATA_FIELDS:
        v = rec.get(k)
        if _present(v):
            out[k] = str(int(v)) if k == "n_output_tokens" else str(v)  # pandas may hold ints as floats
    return out
