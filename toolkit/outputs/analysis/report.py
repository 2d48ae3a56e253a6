"""`slmboard analyze`: every diagnostic of paper 1 on a set of per-item records, written to one folder.

Outputs (all CSV unless noted; a README.md in the folder lists them with every note):
  leaderboard.csv            the leaderboard with bootstrap intervals (as `rank`)
  suite_instability.csv      mean rank_range per (suite, judge)
  suite_rank_correlations.csv / policy_rank_correlations.csv   Kendall τ, Spearman ρ
  judge_sensitivity.csv      each model's rank per judge (S_raw, S_adj), rank_range_judges, per suite, on the
                             cells every judge scored; judge_sensitivity_pairs.csv (τ-b per judge pair) and
                             judge_sensitivity_suites.csv (mean judge vs mean policy rank range); also in README.md
  bbq.csv                    BBQ accuracy, unmapped, by context condition, bias scores (when present)
  row_metrics.parquet        the 12 metrics per (model, item) row of the ternary suites
  prompt_level.csv           prompt-level AR and metrics per (suite, judge, prompt); ar_correlations.csv
                             (r, p, BH q, kept) per judge and scope
  prediction_*.csv           within-suite, cross-suite, unseen-model ambiguity prediction (+ best), per judge
  metadata_correlations.csv  Table 4, one block of rows per judge_id (when submission manifests are available)
  figures/*.png              Fig 2–5 and scores with CI whiskers, one file per judge (and suite)

Judges are never pooled: every AR, correlation and predictor uses one judge's labels; the "all
suites" scope pools the suites of one judge.
  summary.json               scorer, embedder, syllable source, counts, notes

The folder is built under a temporary name next to ``out`` and moved into place at the end, so a
failed analysis leaves no partial output.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from toolkit.core.errors import AnalysisError, SlmboardError

BBQ_JUDGES = ("bbq-mc-v1",)


def is_bbq(items: pd.DataFrame) -> pd.Series:
    """Multiple-choice (accuracy-scored) records: the bbq suite or the bbq-mc judge."""
    mask = items["suite"].eq("bbq") | items["judge_id"].isin(BBQ_JUDGES)
    return mask.fillna(False).astype(bool)


def run_analysis(data: str | Path, out: str | Path, *, submissions: str | Path | None, n_bootstrap: int, seed: int,
                 max_prompts: int | None, metrics: bool, unseen_k: int | None, show_progress: bool) -> "AnalysisResult":
    """:func:`toolkit.api.analyze`, whose defaults are the analysis's (stated there only)."""
    from toolkit.data.reading import leaderboard, open_data, read_item_frame
    from toolkit.data.scoring import bbq_metrics, policy_rank_correlations, suite_instability, suite_rank_correlations

    out = Path(out)
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / "summary.json").is_file())):
        # The folder is replaced as a whole: never delete something that is not an earlier analysis.
        raise AnalysisError(f"{out}: exists and is not an earlier `slmboard analyze` output; give a new or empty folder")
    # Only the columns some analysis uses (texts only when the metrics run): full reads of large
    # datasets are dominated by text and the nested generation config.
    columns = ["submission_id", "model_revision", "judge_status", "choice", "gold_choice", "correct", "item_metadata", "unsafe_prob"]
    dataset = open_data(data)  # resolved (a Hub id: downloaded) once for both reads
    items = read_item_frame(dataset, columns=columns + (["prompt", "response"] if metrics else []))
    notes: list[str] = []
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        (tmp / "figures").mkdir()
        bbq_mask = is_bbq(items)
        ternary = items[~bbq_mask]
        board = leaderboard(dataset, n_bootstrap=n_bootstrap, seed=seed)  # one (suite, judge) at a time
        board.to_csv(tmp / "leaderboard.csv", index=False)
        tboard = board[~(board["suite"].eq("bbq") | board["judge_id"].isin(BBQ_JUDGES))]
        suite_instability(tboard).to_csv(tmp / "suite_instability.csv", index=False)
        src = suite_rank_correlations(board)
        src.to_csv(tmp / "suite_rank_correlations.csv", index=False)
        if len(src) == 0:
            notes.append("suite rank correlations: only one (suite, judge) leaderboard, nothing to compare")
        policy_rank_correlations(tboard).to_csv(tmp / "policy_rank_correlations.csv", index=False)
        sensitivity = _judge_sensitivity(dataset, tmp)
        summary: dict = {"data": str(data), "n_records": int(len(items)), "n_models": int(items["model_id"].nunique()),
                         "suites": sorted(items["suite"].unique().tolist()), "n_bootstrap": n_bootstrap, "seed": seed}
        if bbq_mask.any():
            bbq_metrics(items[bbq_mask], source=str(data)).to_csv(tmp / "bbq.csv", index=False)
        else:
            notes.append("BBQ: no multiple-choice records in the data")
        _figures_from_board(tboard, items, tmp / "figures")

        if metrics and len(ternary):
            notes += _diagnostics(ternary, tmp, seed, max_prompts, unseen_k, show_progress, summary)
        elif not metrics:
            notes.append("metrics, correlations and prediction skipped (--no-metrics)")
        else:
            notes.append("no ternary-scored records: metrics, correlations and prediction not computed")
        if submissions is not None:
            notes += _metadata(tboard, submissions, tmp)
        else:
            notes.append("model metadata correlations: no --submissions folder given")
        summary["notes"] = notes
        summary["judge_sensitivity"] = sensitivity.suites.astype(object).where(sensitivity.suites.notna(), None) \
            .to_dict(orient="records")
        summary["files"] = sorted(str(p.relative_to(tmp)) for p in tmp.rglob("*") if p.is_file())
        (tmp / "summary.json").write_text(json.dumps(summary, indent=2, default=str) + "\n", encoding="utf-8")
        (tmp / "README.md").write_text(_readme(summary, sensitivity), encoding="utf-8")
        if out.exists():
            shutil.rmtree(out)
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return AnalysisResult(out, summary["n_records"], summary["n_models"], summary["suites"], summary["files"], notes,
                          summary)


@dataclass
class AnalysisResult:
    """What ``analyze`` wrote: ``summary`` is summary.json as written (every diagnostic's headline numbers)."""

    out: Path
    n_records: int
    n_models: int
    suites: list[str]
    files: list[str]
    notes: list[str]
    summary: dict


def _diagnostics(ternary, tmp: Path, seed, max_prompts, unseen_k, show_progress, summary) -> list[str]:
    from . import correlations, figures, metrics, prediction

    notes = []
    rows = ternary[ternary["score"].notna()].copy()
    if max_prompts is not None:
        keep = []
        for suite, block in rows.groupby("suite", sort=True):
            ids = np.array(sorted(block["item_id"].unique()))
            if len(ids) > max_prompts:
                ids = np.random.default_rng(seed).choice(ids, size=max_prompts, replace=False)
                notes.append(f"{suite}: metrics on a seeded sample of {max_prompts} of its prompts (--max-prompts)")
            keep.append(block[block["item_id"].isin(ids)])
        rows = pd.concat(keep, ignore_index=True)
    rows = rows.reset_index(drop=True)
    scorers = metrics.Scorers(show_progress=show_progress)
    prompts = rows["prompt"].astype(str).drop_duplicates().tolist()
    pm = metrics.prompt_metrics(prompts, scorers)
    pm.insert(0, "prompt", prompts)
    pairs = rows[["prompt", "response"]].astype(str).drop_duplicates().reset_index(drop=True)
    om = metrics.output_metrics(pairs["prompt"].tolist(), pairs["response"].tolist(), scorers)
    om = pd.concat([pairs, om], axis=1)
    rows = rows.assign(prompt=rows["prompt"].astype(str), response=rows["response"].astype(str))
    rows = rows.merge(pm, on="prompt", how="left").merge(om, on=["prompt", "response"], how="left")
    keep_cols = ["suite", "judge_id", "model_id", "item_id", "score"] + list(metrics.ALL_METRICS)
    rows[keep_cols].to_parquet(tmp / "row_metrics.parquet", index=False)
    summary.update(scorer=metrics.SCORER, embedder=metrics.EMBEDDER, spacy_model=metrics.SPACY_MODEL,
                   syllables=metrics.syllable_source(), n_metric_rows=int(len(rows)), n_prompts=len(prompts))

    ptable = correlations.prompt_level_table(rows)
    ptable.to_csv(tmp / "prompt_level.csv", index=False)
    corr = correlations.correlations_by_scope(ptable)
    corr.to_csv(tmp / "ar_correlations.csv", index=False)
    for (judge, scope), block in corr.groupby(["judge_id", "scope"], sort=False):
        if not block["kept"].any():
            notes.append(f"AR correlations ({judge}, {scope}): no metric kept at q < 0.05 — see the note column for untestable ones")
    for judge in sorted(ptable["judge_id"].unique()):
        _save(figures.metric_associations(ptable, corr, judge=judge), tmp / "figures" / f"fig5_metric_ar_associations__{_stem(judge)}.png")

    within = prediction.within_suite(rows, seed=seed)
    cross = prediction.cross_suite(rows, seed=seed)
    unseen = prediction.unseen_models(rows, k=unseen_k, seed=seed)
    allp = pd.concat([within, cross, unseen], ignore_index=True)
    allp.to_csv(tmp / "prediction_all.csv", index=False)
    prediction.best_by_balanced_accuracy(allp).to_csv(tmp / "prediction_best.csv", index=False)
    matrix = prediction.best_by_balanced_accuracy(cross)
    if not matrix.empty and matrix["test"].ne("").any():
        labelled = matrix[matrix["test"] != ""].assign(train=lambda t: t["train"] + " [" + t["judge_id"] + "]",
                                                       test=lambda t: t["test"] + " [" + t["test_judge_id"] + "]")
        labelled.pivot_table(index="train", columns="test", values="balanced_accuracy", aggfunc="first").to_csv(tmp / "prediction_transfer_matrix.csv")
    for table in (within, cross, unseen):
        for note in table.loc[table["note"] != "", "note"].unique():
            notes.append(f"prediction: {note}")
    return notes


def _judge_sensitivity(dataset, tmp: Path):
    """Ranks per judge on the cells every judge of a suite scored (the multiple-choice suites left out)."""
    from toolkit.data.reading.judge_board import judge_sensitivity_board
    from toolkit.data.scoring.judge_sensitivity import JudgeSensitivity

    result = judge_sensitivity_board(dataset)
    result = JudgeSensitivity(*(t[t["suite"] != "bbq"].reset_index(drop=True)
                                for t in (result.models, result.pairs, result.suites)))
    result.models.to_csv(tmp / "judge_sensitivity.csv", index=False)
    result.pairs.to_csv(tmp / "judge_sensitivity_pairs.csv", index=False)
    result.suites.to_csv(tmp / "judge_sensitivity_suites.csv", index=False)
    return result


def _sensitivity_markdown(result) -> list[str]:
    """README.md's judge sensitivity section: per suite, the means, the τ-b pairs and the model × judge ranks."""
    from toolkit.data.scoring.judge_sensitivity import rank_table

    lines = ["", "## Judge sensitivity", "",
             "How far ranks move when the judge changes, beside how far they move across the six ambiguity policies, "
             "on the (model, item) cells every judge of the suite scored (docs/concepts.md, *Judge sensitivity*)."]
    if result.empty:
        return lines + ["", "No suite has two judges: nothing to compare."]
    lines += ["", "| suite | judges | models | items | mean rank range over judges (S_raw) | (S_adj) | "
              "mean rank range over policies |", "|---|---|---|---|---|---|---|"]
    for s in result.suites.itertuples():
        lines.append(f"| {s.suite} | {s.judges} | {s.n_models} | {s.n_items} | {_num(s.mean_rank_range_judges)} | "
                     f"{_num(s.mean_rank_range_judges_adj)} | {_num(s.mean_policy_rank_range)} |")
    for suite in result.suites["suite"]:
        pairs = result.pairs[result.pairs["suite"] == suite]
        lines += ["", f"### {suite}", "", "| judge A | judge B | τ-b (S_raw) | τ-b (S_adj) | models | note |",
                  "|---|---|---|---|---|---|"]
        for (a, b), block in pairs.groupby(["judge_a", "judge_b"], sort=True):
            tau = block.set_index("metric")["kendall_tau_b"]
            note = "; ".join(dict.fromkeys(n for n in block["note"] if n))
            lines.append(f"| {a} | {b} | {_num(tau.get('s_raw'))} | {_num(tau.get('s_adj'))} | "
                         f"{int(block['n_models'].iloc[0])} | {note} |")
        table = rank_table(result.models, suite)
        lines += ["", "| " + " | ".join(table.columns) + " |", "|" + "---|" * len(table.columns)]
        lines += ["| " + " | ".join(_num(v) if not isinstance(v, str) else v for v in row) + " |"
                  for row in table.itertuples(index=False)]
    return lines


def _num(value) -> str:
    if value is None or value != value:
        return "—"
    return f"{float(value):g}" if float(value).is_integer() else f"{float(value):.3f}"


def _metadata(tboard, submissions, tmp: Path) -> list[str]:
    from . import metadata

    features = metadata.read_manifests(submissions)
    outcomes = metadata.model_outcomes(tboard)
    matched = outcomes["model_id"].isin(features["model_id"])
    if not matched.any():
        return [f"model metadata: no model of the data has a manifest in {submissions}: correlations not computed"]
    notes = []
    if not matched.all():
        missing = sorted(outcomes.loc[~matched, "model_id"].unique())
        notes.append(f"model metadata: no manifest for {len(missing)} model(s): {', '.join(missing[:10])}")
    table = metadata.metadata_correlations(features, outcomes)
    table.to_csv(tmp / "metadata_correlations.csv", index=False)
    for note in table.loc[table["note"] != "", "note"].unique():
        notes.append(f"model metadata: {note}")
    return notes


def _figures_from_board(tboard: pd.DataFrame, items: pd.DataFrame, folder: Path) -> None:
    from . import figures

    for (suite, judge), _ in tboard.groupby(["suite", "judge_id"], sort=True):
        stem = _stem(f"{suite}__{judge}")
        _save(figures.rank_trajectories(tboard, suite, judge), folder / f"fig4_rank_trajectories__{stem}.png")
        _save(figures.label_mix(tboard, suite, judge), folder / f"fig2_label_mix__{stem}.png")
        _save(figures.scores_with_ci(tboard, suite, judge), folder / f"scores_ci__{stem}.png")
    ternary = items[~is_bbq(items)]
    for judge in sorted(ternary["judge_id"].unique()):
        _save(figures.score_distributions(ternary, judge=judge), folder / f"fig3_score_distributions__{_stem(judge)}.png")
    if ternary.empty:
        _save(figures.score_distributions(ternary), folder / "fig3_score_distributions.png")


def _stem(name: str) -> str:
    """A file-name part for a judge or suite id (``org/model`` must not make a folder)."""
    return name.replace("/", "_")


def _save(fig, path: Path) -> None:
    fig.savefig(path)


def _readme(summary: dict, sensitivity=None) -> str:
    lines = ["# slmboard analyze", "", f"Data: `{summary['data']}` — {summary['n_records']} records, "
             f"{summary['n_models']} models, suites: {', '.join(summary['suites'])}.", ""]
    for key in ("scorer", "embedder", "spacy_model", "syllables"):
        if key in summary:
            lines.append(f"- {key}: {summary[key]}")
    if sensitivity is not None:
        lines += _sensitivity_markdown(sensitivity)
    lines += ["", "## Notes", ""] + [f"- {n}" for n in summary["notes"]] + ["", "## Files", ""]
    lines += [f"- `{f}`" for f in summary["files"]]
    return "\n".join(lines) + "\n"
