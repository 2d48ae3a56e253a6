"""Judge panels: the id, the four rules and --min-valid (votes recomputed here by plain loops), no_decision,
the votes field, members judged first or refused, and bad input refused in one line with nothing written."""
from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from schemas import ItemRecord
from slmboard_testing import make_item_row, make_run
from toolkit.core.errors import SlmboardError
from toolkit.core.records_io import write_jsonl_atomic
from toolkit.core.runs import RunDir
from toolkit.data.reading import leaderboard
from toolkit.stages.judging.components import JudgeSpec
from toolkit.stages.judging.runner import JudgeResult, judge_run

MEMBERS = ("imported-a", "imported-b", "imported-c")
ITEMS = [f"smoke_{i:03d}" for i in range(1, 21)]


def _votes(seed=7):
    """Three imported judges' scores on 20 items: they disagree on at least 20% of items, some fail."""
    rng = random.Random(seed)
    out = {}
    for item in ITEMS:
        out[item] = {m: rng.choice([0.0, 0.5, 1.0, 1.0, None]) for m in MEMBERS}
    return out


def _run(tmp_path, votes):
    root = make_run(tmp_path / "run", scores={i: 1.0 for i in ITEMS}, judged=False)
    run = RunDir(root)
    for m in MEMBERS:
        rows = [make_item_row(i, votes[i][m], judge_id=m, prompt=_prompt(run, i)) for i in ITEMS]
        write_jsonl_atomic(run.judgment_file(m, "smoke"), rows)
        run.record_judge_fits(m, ["free-text", "free-text-gold"])
    return root


def _prompt(run, item):
    for line in run.response_file("smoke").read_text().splitlines():
        row = json.loads(line)
        if row["item_id"] == item:
            return row["prompt"]


def _expected(rule, scores, min_valid=None):
    """The rule by hand: (score, status)."""
    valid = [s for s in scores if s is not None]
    need = len(scores) if min_valid is None else min_valid
    if len(valid) < need:
        return None, "no_decision"
    if rule == "lowest":
        return min(valid), "ok"
    tally = {}
    for s in valid:
        tally[s] = tally.get(s, 0) + 1
    if rule == "unanimous-or-ambiguous":
        return (valid[0], "ok") if len(tally) == 1 else (0.5, "ok")
    for s, n in tally.items():
        if n * 2 > len(valid):
            return s, "ok"
    return (0.5, "ok") if rule == "majority-or-ambiguous" else (None, "no_decision")


def _records(root, judge_id):
    path = RunDir(root).judgment_file(judge_id, "smoke")
    return {r["item_id"]: ItemRecord.model_validate(r) for r in map(json.loads, path.read_text().splitlines())}


def test_panel_id_is_canonical_and_resolved():
    a = JudgeSpec.of("panel:majority:learned+heuristic").judge_id()
    b = JudgeSpec.of("panel:majority:heuristic-v1+learned-v3").judge_id()
    assert a == b == "panel:majority:heuristic-v1+learned-v3"
    from schemas import check_judge_id
    from toolkit.core.judge_names import judge_slug

    check_judge_id(a)  # the schema's judge-id pattern (no comma, parenthesis or space)
    assert "," not in a and judge_slug(a) == "panel-majority-heuristic-v1-learned-v3"


@pytest.mark.parametrize("rule", ["majority", "majority-or-ambiguous", "unanimous-or-ambiguous", "lowest"])
@pytest.mark.parametrize("min_valid", [None, 2])
def test_panel_votes_by_hand(tmp_path, rule, min_valid):
    votes = _votes()
    disagree = sum(len({v for v in votes[i].values() if v is not None}) > 1 for i in ITEMS)
    assert disagree >= 0.2 * len(ITEMS)
    root = _run(tmp_path, votes)
    spec = JudgeSpec.of(f"panel:{rule}:imported-c+imported-a+imported-b", **({"min_valid": min_valid} if min_valid else {}))
    result = judge_run(root, spec, show_progress=False)
    records = _records(root, spec.judge_id())
    n_undecided = 0
    for item in ITEMS:
        score, status = _expected(rule, [votes[item][m] for m in MEMBERS], min_valid)
        rec = records[item]
        assert (rec.score, rec.judge_status) == (score, status), item
        assert [v.judge_id for v in rec.votes] == list(MEMBERS)
        assert [v.score for v in rec.votes] == [votes[item][m] for m in MEMBERS]
        n_undecided += status == "no_decision"
        if status == "no_decision":
            assert rec.score is None and rec.judge_reason  # never a silent 0.5
    assert result.status_counts.get("no_decision", 0) == n_undecided
    board = leaderboard(root, n_bootstrap=0)
    row = board[board["judge_id"] == spec.judge_id()].iloc[0]
    assert row["n_undecided"] == n_undecided and row["n_failed"] == 0
    assert row["n_scored"] == len(ITEMS) - n_undecided


def test_no_decision_is_not_retried_and_makes_no_call(tmp_path):
    votes = {i: {"imported-a": 1.0, "imported-b": 0.0, "imported-c": 0.5} for i in ITEMS}
    root = _run(tmp_path, votes)
    calls = []
    from toolkit.stages.judging.panel import PanelJudge, judge_panel

    panel = JudgeSpec.of("panel:majority:imported-a+imported-b+imported-c").build()
    assert isinstance(panel, PanelJudge)
    for _ in range(2):
        result = JudgeResult(root, panel.judge_id)
        judge_panel(RunDir(root), panel, None, result, lambda spec, absent: calls.append(spec))
        assert result.status_counts == Counter({"no_decision": len(ITEMS)})
    assert calls == []  # every member present: no judge is called
    assert all(r.judge_status == "no_decision" for r in _records(root, panel.judge_id).values())


def test_missing_runnable_member_is_judged_first(tmp_path):
    votes = _votes()
    root = _run(tmp_path, votes)
    from toolkit.stages.judging.panel import judge_panel

    panel = JudgeSpec.of("panel:lowest:heuristic+imported-a").build()
    asked = []

    def judge_member(spec, absent):
        asked.append((spec.judge_id(), absent))
        rows = [make_item_row(i, 0.0, judge_id="heuristic-v1", prompt=_prompt(RunDir(root), i)) for i in ITEMS]
        write_jsonl_atomic(RunDir(root).judgment_file("heuristic-v1", "smoke"), rows)

    judge_panel(RunDir(root), panel, None, JudgeResult(root, panel.judge_id), judge_member)
    assert asked == [("heuristic-v1", ["smoke"])]
    records = _records(root, panel.judge_id)
    for item in ITEMS:  # heuristic-v1 (0 everywhere) beside imported-a, by hand
        assert (records[item].score, records[item].judge_status) == _expected("lowest", [0.0, votes[item]["imported-a"]])


def _refused(root, spec, **kw):
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    with pytest.raises(SlmboardError) as exc:
        judge_run(root, JudgeSpec.of(spec), show_progress=False, **kw)
    assert "\n" not in str(exc.value)
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before  # nothing written
    return str(exc.value)


@pytest.mark.parametrize("spec,says", [
    ("panel:majority:imported-a", "panel of one judge"),
    ("panel:majority:imported-a+imported-a", "given twice"),
    ("panel:mostly:imported-a+imported-b", "unknown"),
    ("panel:majority:imported-a+panel:lowest:imported-b+imported-c", "nested"),
])
def test_bad_panel_specs_refused_in_one_line(spec, says):
    with pytest.raises(SlmboardError) as exc:
        JudgeSpec.of(spec)
    assert says in str(exc.value) and "\n" not in str(exc.value)


def test_missing_member_that_cannot_run_refused(tmp_path):
    root = _run(tmp_path, _votes())
    message = _refused(root, "panel:majority:imported-a+people-xstest")
    assert "people-xstest" in message and "cannot be run" in message


def test_member_that_does_not_fit_suite_refused(tmp_path):
    root = _run(tmp_path, _votes())
    message = _refused(root, "panel:majority:bbq+imported-a", suites=["smoke"])
    assert "bbq-mc-v1 does not fit suite smoke" in message


def test_id_over_limit_refused():
    members = "+".join(f"imported-judge-{i:03d}-xxxxxxxxxxxxxxxx" for i in range(8))
    with pytest.raises(SlmboardError) as exc:
        JudgeSpec.of(f"panel:majority:{members}")
    assert "256" in str(exc.value)


def test_slug_clash_refused(tmp_path):
    root = _run(tmp_path, _votes())
    run = RunDir(root)
    run.record_judge_fits("panel:majority:imported-a+imported-b", ["free-text"])
    # another id with the same slug (panel-majority-imported-a-imported-b)
    fits = run.judge_fits_file("panel:majority:imported-a+imported-b")
    fits.write_text(json.dumps({"judge_id": "panel-majority-imported-a-imported-b", "fits": ["free-text"]}))
    message = _refused(root, "panel:majority:imported-a+imported-b")
    assert "share the folder" in message


def _edit_response(root, item, text):
    path = RunDir(root).response_file("smoke")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for row in rows:
        if row["item_id"] == item:
            row["response"] = text
    write_jsonl_atomic(path, rows)


def test_stale_member_that_cannot_run_makes_the_panel_refuse(tmp_path):
    root = _run(tmp_path, _votes())
    _edit_response(root, ITEMS[3], "An answer edited after the imported judges judged it.")
    message = _refused(root, "panel:majority:imported-a+imported-b")
    assert "imported-a" in message and "smoke" in message and "stale" in message


def test_stale_runnable_member_is_judged_again_before_the_panel(tmp_path):
    votes = _votes()
    root = _run(tmp_path, votes)
    run = RunDir(root)
    judge_run(root, JudgeSpec.of("heuristic"), show_progress=False)
    edited = "I can't help with that request."
    _edit_response(root, ITEMS[0], edited)
    # make imported-a current again (as an import of the edited response would), keep heuristic-v1 stale
    rows = [json.loads(line) for line in run.judgment_file("imported-a", "smoke").read_text().splitlines()]
    for row in rows:
        if row["item_id"] == ITEMS[0]:
            row["response"] = edited
    write_jsonl_atomic(run.judgment_file("imported-a", "smoke"), rows)
    judge_run(root, JudgeSpec.of("panel:lowest:heuristic+imported-a"), show_progress=False)
    heuristic = _records(root, "heuristic-v1")
    assert heuristic[ITEMS[0]].response == edited  # the member was judged again on the edited answer
    panel = _records(root, "panel:lowest:heuristic-v1+imported-a")
    vote = {v.judge_id: v for v in panel[ITEMS[0]].votes}
    from schemas import sha256_text

    assert vote["heuristic-v1"].response_sha256 == vote["imported-a"].response_sha256 == sha256_text(edited)
