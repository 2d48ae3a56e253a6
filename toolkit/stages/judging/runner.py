"""Add one judge's judgments to a run: ResponseRecords → ItemRecords (resumable; never regenerates).

Resume semantics: an item that already has a record from this judge is skipped. Records whose
judge_status is "error" (an API failure, not a verdict) are retried on the next run by default:
they are dropped from the judgments file (atomic rewrite) and judged again; parse errors are
verdicts about the reply and stay. Judges with their own request pool (``preferred_batch_size``)
get larger batches; judges that need every pending item at once (``whole_run``, e.g. one Batch
API job) get them in one call. A judge is given only the suites whose kind it fits (:attr:`Judge.fits`):
the others are skipped with one line each and nothing is written for them. Once a suite's judgments are complete the judge's
``finalize_group`` sees all of them (MD-Judge refits its Otsu thresholds on all items).
The engine (:mod:`toolkit.core.stage_engine`) does the resuming, appending and progress.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Iterator, Sequence

from schemas import ItemRecord, ResponseRecord

from toolkit.core.errors import NothingToJudge, SlmboardError
from toolkit.core.runs import RunDir
from toolkit.core.stage_engine import WHOLE_RUN, Batching, Stage, run_stage
from .base import Judge, JudgeInput, Judgment, RequestUsage, make_judge
from .components import DEFAULT_JUDGE, JudgeSpec
from .fitness import skip_line, suite_kind_of
from .records import JudgeResult, item_record, read_responses


class JudgingStage(Stage[ResponseRecord, ItemRecord]):
    """ResponseRecords -> ItemRecords in ``RUN/judgments/<judge>/<suite>.jsonl``; one group per suite."""

    record_type = ItemRecord
    finalizes = True  # the judge's finalize_group sees every complete (model, suite)

    def __init__(self, run: RunDir, judge: Judge, batch_size: int, retry_errors: bool, result: JudgeResult) -> None:
        self.run, self.judge, self.retry_errors, self.result = run, judge, retry_errors, result
        self.description = f"judge {judge.judge_id}"
        caps = judge.capabilities
        self.batching = WHOLE_RUN if caps.whole_run else Batching(max(batch_size, caps.preferred_batch_size), across_groups=True)
        self.sunk: set[tuple[str, str]] = set()  # items whose request rows the judge already handed to the ledger
        if hasattr(judge, "usage_sink"):
            judge.usage_sink = self.sink

    def output_file(self, group: str) -> Path:
        return self.run.judgment_file(self.judge.judge_id, group)

    def keep_on_resume(self, record: ItemRecord) -> bool:
        # An API failure is not a verdict: judged again by default. Parse errors are verdicts and stay.
        # A judgment of a response edited since (stale) is judged again too.
        return not (self.retry_errors and record.judge_status == "error") and not self._stale(record)

    def _stale(self, record: ItemRecord) -> bool:
        from toolkit.core.runs import judged_response_sha256

        hashes = getattr(self, "_hashes", None)
        if hashes is None:
            hashes = self._hashes = {}
        if record.suite not in hashes:
            hashes[record.suite] = self.run.response_hashes(record.suite)
        now = hashes[record.suite].get(record.item_id)
        return now is not None and judged_response_sha256(record) != now[0]

    def process(self, batch: list[ResponseRecord], progress: Callable[[int], None]) -> Iterator[list[ItemRecord]]:
        inputs = [JudgeInput(suite=r.suite, item_id=r.item_id, prompt=r.prompt, response=r.response, gold=r.gold,
                             category=r.category, gold_choice=r.gold_choice, choice=r.choice) for r in batch]
        # A failed request (request_error) has no answer to judge: a failed item, never sent to the judge.
        asked = [i for i, r in enumerate(batch) if r.request_error is None]
        started = time.perf_counter()
        answered = self.judge.judge_with_progress([inputs[i] for i in asked], progress) if asked else []
        if len(answered) != len(asked):
            raise SlmboardError(f"judge {self.judge.judge_id} returned {len(answered)} judgments for {len(asked)} items")
        judgments = {i: judgment for i, judgment in zip(asked, answered)}
        judgments = [judgments.get(i) or Judgment(None, "parse_error", None, f"no answer to judge: the request failed "
                                                                              f"({r.request_error[:200]})")
                     for i, r in enumerate(batch)]
        if len(asked) < len(batch):
            progress(len(batch) - len(asked))
        self.record_usage(batch, judgments, time.perf_counter() - started, inputs)
        records = [item_record(r, self.judge, j, self.judge.record_extras(x)) for r, j, x in zip(batch, judgments, inputs)]
        for record, judgment in zip(records, judgments):
            self.result.status_counts[judgment.status] += 1
            self.result.label_counts[record.label or "failed"] += 1
            if judgment.status != "ok":
                self.result.failure_reasons[f"{judgment.status}: {(judgment.reason or '?')[:120]}"] += 1
        yield records

    def record_usage(self, batch: list[ResponseRecord], judgments: list[Judgment], seconds: float,
                     inputs: list[JudgeInput]) -> None:
        """One ledger row per judgment not in the ledger yet, appended before its record (see
        :mod:`toolkit.core.usage`); a judge that counts nothing itself (a local one) gets the item's share of the
        batch's seconds."""
        from toolkit.core.usage import append_usage

        share = seconds / max(1, len(batch))
        rows = [self.usage_row(x, j.usage or RequestUsage(seconds=share), j.raw)
                for x, j in zip(inputs, judgments) if (x.suite, x.item_id) not in self.sunk]
        append_usage(self.run.judge_usage_file(self.judge.judge_id), rows)
        self.sunk.clear()

    def sink(self, item: JudgeInput, judgment: Judgment) -> None:
        """A request's row, on disk the moment its answer exists (an LLM judge calls this as each request ends)."""
        from toolkit.core.usage import append_usage

        append_usage(self.run.judge_usage_file(self.judge.judge_id), [self.usage_row(item, judgment.usage, judgment.raw)])
        self.sunk.add((item.suite, item.item_id))

    def usage_row(self, item: JudgeInput, u: RequestUsage, reply: str | None):
        """The ledger row of one judgment; a reply whose server reported no ``usage`` is counted as the estimate
        counts (:func:`.token_counts.count_reply_tokens`)."""
        from dataclasses import replace

        from schemas.usage import UsageRecord
        from .token_counts import count_reply_tokens

        if u.requests and u.tokens_from == "none" and reply is not None:
            counted = count_reply_tokens(self.judge, item, reply)
            if counted is not None:
                u = replace(u, prompt_tokens=counted[0], output_tokens=counted[1], tokens_from="tokenizer")
        return UsageRecord(stage="judgment", producer=self.judge.judge_id, suite=item.suite, item_id=item.item_id,
                           prompt_tokens=u.prompt_tokens, output_tokens=u.output_tokens, tokens_from=u.tokens_from,
                           seconds=round(u.seconds, 6), requests=u.requests, cache_hit=u.cache_hit,
                           batch_api=u.batch_api, device=self.judge_device)

    @property
    def judge_device(self) -> str | None:
        """Where the judge ran: its server (an API judge: its host, never a key), else its own device."""
        base_url = getattr(self.judge, "base_url", None)
        if getattr(self.judge, "registered_as", None) in ("openai", "guard"):
            from urllib.parse import urlsplit

            return urlsplit(base_url).netloc if base_url else "api.openai.com"
        device = getattr(self.judge, "device", None)
        return str(device) if device is not None else None

    def finalize_group(self, group: str, records: list[ItemRecord]) -> list[ItemRecord]:
        return self.judge.finalize_group(records)


def judge_run(
    run_dir: str | Path,
    judge: "JudgeSpec | Judge | str" = DEFAULT_JUDGE,
    suites: Sequence[str] | None = None,
    batch_size: int = 32,
    show_progress: bool = True,
    retry_errors: bool = True,
    prices: dict | None = None,
) -> JudgeResult:
    """Judge every response of the run that this judge has not judged yet.

    ``judge``: a spec, a :class:`JudgeSpec` with options, or a built Judge. ``retry_errors``: judge again the
    items whose earlier record is an API failure ("error"). ``prices``: judge -> :class:`~schemas.usage.Price`
    given instead of the shipped table's (:mod:`.prices`). What it spent is added to ``RUN/cost.json``.
    """
    run = RunDir(run_dir)
    run.load_config()  # fails clearly on a folder that is not a run
    from toolkit.core.usage import run_cost

    run_cost(run)  # a damaged usage ledger or cost.json stops judging before anything is written
    response_files = [f for f in run.response_files() if not suites or f.stem in set(suites)]
    if not response_files:
        raise NothingToJudge(f"{run.root}: no responses to judge; generate responses into this run folder first")
    judge_obj = judge if isinstance(judge, Judge) else make_judge(judge)
    result = JudgeResult(run.root, judge_obj.judge_id)
    from .panel import PanelJudge, check_slug_clash, judge_panel

    if isinstance(judge_obj, PanelJudge):  # judged from its members' records: no judge call of its own
        judge_panel(run, judge_obj, suites, result, lambda spec, absent: judge_run(
            run.root, spec, absent, batch_size, show_progress, retry_errors))
        from toolkit.core.usage import read_cost

        result.cost = read_cost(run)  # the members' (a panel sends no request of its own)
        return result
    from .prices import judge_prices

    price = judge_prices(judge_obj, prices or {})  # a price for another judge is refused before any work
    check_slug_clash(run, judge_obj.judge_id)
    by_suite = {path.stem: read_responses(path) for path in response_files}  # validate all before writing
    fits = tuple(judge_obj.fits)
    for suite, responses in by_suite.items():
        kind = suite_kind_of(suite, (r.gold for r in responses), (r.gold_choice for r in responses))
        if kind not in fits:  # the judge cannot read these answers: nothing is written for the suite
            result.skipped_suites.append(skip_line(suite, kind, judge_obj.judge_id, fits))
    if len(result.skipped_suites) == len(by_suite):
        raise NothingToJudge(f"{run.root}: {judge_obj.judge_id} judges none of the run's suites: "
                             + "; ".join(result.skipped_suites))
    skipped = {line.split(":", 1)[0] for line in result.skipped_suites}
    tasks = [r for suite, responses in by_suite.items() if suite not in skipped for r in responses]
    judge_obj.check_suites(sorted(s for s in by_suite if s not in skipped))  # e.g. a wording on AIR-Bench
    judge_obj.prepare(run.judgments_dir(judge_obj.judge_id))  # may refuse (a judge-config.json of other settings)
    run.record_judge_fits(judge_obj.judge_id, list(fits))  # what submit records in the manifest
    record_plugin(run, judge_obj)
    outcome = run_stage(JudgingStage(run, judge_obj, batch_size, retry_errors, result), tasks, show_progress=show_progress)
    result.n_new, result.n_skipped, result.n_retried_errors = outcome.n_written, outcome.n_skipped, outcome.n_redone
    result.seconds = outcome.seconds
    result.judge_stats = judge_obj.usage_stats()
    from toolkit.core.usage import write_cost

    result.cost = write_cost(run, {judge_obj.judge_id: price})
    return result


def record_plugin(run: RunDir, judge: Judge) -> None:
    """A plugin judge (another package's) writes its package and version into ``judge-config.json`` (published with
    the run); a run judged by another version of it is refused, so one judgment folder is one judge's. The plugin
    is found by the judge's class (the registered target), never by parsing its id back."""
    import json

    from toolkit.core.records_io import atomic_write_text
    from .components import JUDGES

    spec = getattr(judge, "spec", None)  # the spec that built it says where it came from
    plugin = spec.component.extra.get("plugin") if spec is not None else next(
        (c.extra["plugin"] for c in JUDGES.components() if "plugin" in c.extra and c.target is type(judge)), None)
    if plugin is None:
        return
    judge_id = judge.judge_id
    path = run.judge_config_file(judge_id)
    try:
        config = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {"judge_id": judge_id}
    except ValueError as exc:
        raise SlmboardError(f"{path}: not valid JSON ({exc}); fix or remove it") from None
    earlier = config.get("plugin")
    if earlier is not None and (earlier.get("package"), earlier.get("version")) != (plugin["package"], plugin["version"]):
        raise SlmboardError(f"{path}: this run was judged by {judge_id} from {earlier.get('package')} "
                            f"{earlier.get('version')}, and {plugin['package']} {plugin['version']} is installed now; "
                            "judge a copy of the run, or install the version it was judged with")
    if earlier != plugin:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps({**config, "plugin": plugin}, indent=2, sort_keys=True) + "\n")
