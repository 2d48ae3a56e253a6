"""The demo's XSTest board: the release files shipped as package data, and the offline judges' shipped verdicts."""
from __future__ import annotations

import csv
import gzip
import io
import json
import re
import subprocess
from pathlib import Path

import pytest

from toolkit.workflows import xstest_release as xr

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "importing" / "fixtures" / "xstest_release"
MIRROR = REPO.parent / "shared" / "benchmarks" / "xstest"


def _blob(data: bytes) -> str:
    return subprocess.run(["git", "hash-object", "--stdin"], input=data, capture_output=True, check=True).stdout.decode().strip()


def _provenance_rows() -> dict[str, tuple[str, str]]:
    """{file here: (git blob, model id)} from the table of demo_data/PROVENANCE.md."""
    rows = {}
    for line in (xr.DATA / "PROVENANCE.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].endswith(".csv.gz"):
            rows[cells[0]] = (cells[2], cells[3])
    return rows


def test_package_data_is_the_release_unchanged_with_its_provenance_and_terms():
    rows = _provenance_rows()
    assert set(rows) == {p.name for p in xr.DATA.glob("*.csv.gz")} == {m.file.name for m in xr.MODELS} | {xr.PROMPTS_FILE}
    for name, (blob, _) in rows.items():
        assert _blob(gzip.decompress((xr.DATA / name).read_bytes())) == blob, name
    for model in xr.MODELS:
        assert rows[model.file.name][1] == model.model_id
        copy = FIXTURES / model.file.name  # the test fixtures hold the same bytes (gpt4's _gpteval file: the mirror)
        if copy.is_file():
            assert gzip.decompress(copy.read_bytes()) == gzip.decompress(model.file.read_bytes())
        elif (MIRROR / model.file.name.removesuffix(".gz")).is_file():
            assert (MIRROR / model.file.name.removesuffix(".gz")).read_bytes() == gzip.decompress(model.file.read_bytes())
    text = (xr.DATA / "PROVENANCE.md").read_text(encoding="utf-8")
    assert "d7bb5bd738c1fcbc36edd83d5e7d1b71a3e2d84d" in text and "CC BY 4.0" in text
    assert '"subject to the original licenses"' in text and all(w in text for w in ("Meta", "Mistral", "OpenAI"))
    # each configuration its own model id, as the release names them
    ids = [m.model_id for m in xr.MODELS]
    assert len(set(ids)) == 5 and sum(i.endswith("-sysprompt") for i in ids) == 1 and sum(i.endswith("-guardrail") for i in ids) == 1
    packaged = (REPO / "pyproject.toml").read_text()
    assert '"workflows/demo_data/*.csv.gz"' in packaged and '"workflows/demo_data/verdicts/*.jsonl.gz"' in packaged


def test_the_product_reads_only_its_package_data(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no tests/ or ../shared relative to here
    data_dir = xr.unpack_prompts(tmp_path / "benchmarks")
    model = xr.MODELS[2]
    result = xr.import_model(model, tmp_path / "run", data_dir)
    config = json.loads((tmp_path / "run" / "run.json").read_text())
    (source,) = config["imports"][0]["sources"]
    assert Path(source["path"]) == model.file and model.file.is_relative_to(REPO / "toolkit")
    assert source["content_sha256"] == xr.content_sha256(model.file)  # the hash a judge card records
    assert config["model_id"] == model.model_id and len(result.report.matched) == 449  # v2-195 is reworded upstream
    assert {p.name for p in (tmp_path / "run" / "judgments").iterdir()} == {"human-xstest", "gpt4-xstest"}


def _release_keys(tmp_path: Path) -> set[str]:
    data_dir = xr.unpack_prompts(tmp_path / "benchmarks")
    keys = set()
    for model in xr.MODELS:
        xr.import_model(model, tmp_path / model.run_name, data_dir)
        for line in (tmp_path / model.run_name / "responses" / "xstest.jsonl").read_text().splitlines():
            r = json.loads(line)
            keys.add(xr.verdict_key(r["prompt"], r["response"]))
    return keys


def test_shipped_verdicts_are_the_installed_judges_and_cover_every_answer(tmp_path):
    from toolkit.stages.judging import make_judge

    index = xr.read_index()
    assert set(index) == set(xr.OFFLINE_JUDGES)
    keys = _release_keys(tmp_path)
    for spec, entry in index.items():
        judge = make_judge(spec)
        # a new version of the judge (learned-v2) makes this fail until `python tools/demo_verdicts.py` ran
        assert entry["rubric_version"] == judge.rubric_version, f"regenerate: python tools/demo_verdicts.py --judges {spec}"
        assert entry["judge_id"] == judge.judge_id and entry["made_by"] == "tools/demo_verdicts.py"
        verdicts = xr.read_verdicts(entry["judge_id"])
        assert set(verdicts) == keys and entry["n"] == len(keys)
        assert isinstance(xr.offline_judge(spec)[0], xr.ReplayJudge)


def test_a_verdict_file_of_another_judge_version_is_not_replayed(monkeypatch):
    index = {spec: {**e, "rubric_version": e["rubric_version"] + "-older"} for spec, e in xr.read_index().items()}
    monkeypatch.setattr(xr, "read_index", lambda: index)
    judge, how = xr.offline_judge("heuristic")
    assert not isinstance(judge, xr.ReplayJudge) and "judging for real" in how and "tools/demo_verdicts.py" in how


_NUMBER = re.compile(r"-?\d+\.\d+")


def _same_raw(a: str | None, b: str | None) -> bool:
    """Equal judge output, printed probabilities and similarities within 0.002 (BLAS builds differ in the last digit)."""
    if a is None or b is None:
        return a == b
    na, nb = [float(x) for x in _NUMBER.findall(a)], [float(x) for x in _NUMBER.findall(b)]
    return _NUMBER.sub("#", a) == _NUMBER.sub("#", b) and len(na) == len(nb) and all(abs(x - y) <= 0.002 for x, y in zip(na, nb))


@pytest.mark.slow
@pytest.mark.parametrize("spec", xr.OFFLINE_JUDGES)
def test_replayed_records_equal_a_fresh_run_of_the_judge(spec, tmp_path):
    """Every 45th answer of each release model (50 answers), imported as the demo imports them, judged by the
    real judge in one run and replayed from the shipped verdicts in another: the same records."""
    from toolkit.stages.judging import judge_run, make_judge

    data_dir = xr.unpack_prompts(tmp_path / "benchmarks")
    real_judge = make_judge(spec)
    replay, how = xr.offline_judge(spec)
    assert isinstance(replay, xr.ReplayJudge), how
    compared = 0
    for model in xr.MODELS:
        text = gzip.decompress(model.file.read_bytes()).decode("utf-8")
        rows = list(csv.DictReader(io.StringIO(text)))
        subset = tmp_path / f"{model.name}.csv"
        with open(subset, "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows[::45])
        runs = {}
        for name, judge in (("real", real_judge), ("replay", replay)):
            run = tmp_path / f"{model.name}-{name}"
            xr.import_release_file(subset, model.model_id, run, data_dir)
            judge_run(run, judge, show_progress=False)
            lines = (run / "judgments" / real_judge.judge_id / "xstest.jsonl").read_text().splitlines()
            runs[name] = {r["item_id"]: r for r in map(json.loads, lines)}
        assert set(runs["real"]) == set(runs["replay"]) and len(runs["real"]) == 10
        for item, fresh in runs["real"].items():
            shipped = runs["replay"][item]
            assert _same_raw(fresh.pop("judge_raw"), shipped.pop("judge_raw")), (model.name, item)
            assert fresh == shipped, (model.name, item)
            compared += 1
    assert compared == 50 and replay.n_replayed == 50


@pytest.fixture(scope="module")
def release_board(tmp_path_factory) -> Path:
    """The demo's step 5 as the demo runs it (import, replay the offline judges, the panels, submit), no bootstrap."""
    import os

    from rich.console import Console

    from toolkit.core.board_recipe import BoardRecipe
    from toolkit.outputs.publishing.create import create_board

    work = tmp_path_factory.mktemp("release")
    create_board(work / "dataset", BoardRecipe(description="the demo's XSTest board"))
    with open(os.devnull, "w") as quiet:
        xr.publish_release(work, work / "dataset", 0, Console(file=quiet))
    return work / "dataset"


def _by_hand(rule: str, scores: list) -> tuple:
    """A panel's (score, status) from its members' scores, every member needed (the demo's min_valid)."""
    if any(s is None for s in scores):
        return None, "no_decision"
    if rule == "lowest":
        return min(scores), "ok"
    for s in scores:
        if 2 * scores.count(s) > len(scores):
            return s, "ok"
    return (0.5, "ok") if rule == "majority-or-ambiguous" else (None, "no_decision")


def test_demo_board_holds_three_panels_judged_from_the_members_records(release_board):
    import pandas as pd

    assert xr.PANELS == tuple(f"panel:{rule}:gpt4-xstest+heuristic-v1+learned-v1"
                              for rule in ("majority", "majority-or-ambiguous", "lowest"))
    board = pd.read_parquet(release_board / "data" / "leaderboard" / "leaderboard.parquet")
    items = pd.concat(pd.read_parquet(f) for f in sorted((release_board / "data" / "xstest").glob("*.parquet")))
    members = ("gpt4-xstest", "heuristic-v1", "learned-v1")
    scores = {(r.judge_id, r.model_id, r.item_id): (None if pd.isna(r.score) else float(r.score))
              for r in items.itertuples() if r.judge_id in members}
    n_differ = 0
    for panel in xr.PANELS:
        rule = panel.split(":")[1]
        rows = board[board["judge_id"] == panel]
        assert set(rows["model_id"]) == {m.model_id for m in xr.MODELS}, panel
        records = items[items["judge_id"] == panel]
        assert len(records) == 5 * 449, panel
        for r in records.itertuples():
            member_scores = [scores[(m, r.model_id, r.item_id)] for m in members]
            assert [(v["judge_id"], v["score"]) for v in r.votes] == list(zip(members, member_scores))
            score, status = _by_hand(rule, member_scores)
            assert r.judge_status == status and (score is None and pd.isna(r.score) or r.score == score), (panel, r.item_id)
            n_differ += len(set(member_scores)) > 1
        for row in rows.itertuples():  # the leaderboard counts what the records hold
            mine = records[records["model_id"] == row.model_id]
            assert row.n_undecided == (mine["judge_status"] == "no_decision").sum() and row.n_failed == 0
    assert n_differ >= 0.1 * 3 * 5 * 449  # the members disagree often enough for the rules to differ
    majority = board[board["judge_id"] == xr.PANELS[0]]
    assert majority["n_undecided"].sum() > 0  # no strict majority of three: undecided, never a silent 0.5
