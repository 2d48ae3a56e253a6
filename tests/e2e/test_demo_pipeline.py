"""The whole spine on the real embedded model (SmolLM2 via lm-eval HFLM), a few items, short answers."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("demo")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "toolkit.cli", "demo", "--workdir", str(work), "--limit", "3", "--max-new-tokens", "24", "--no-serve"],
        capture_output=True, text=True, env=env, timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (work / "demo-stdout.txt").write_text(proc.stdout)
    return work


def test_demo_prints_the_leaderboard(demo_dir):
    out = (demo_dir / "demo-stdout.txt").read_text()
    assert "HuggingFaceTB/SmolLM2-135M-Instruct" in out
    assert "suite smoke" in out and "judge heuristic-v1" in out


def test_demo_records_carry_provenance(demo_dir):
    from datasets import load_dataset

    items = load_dataset(str(demo_dir / "dataset"), "smoke", split="test", cache_dir=str(demo_dir / "hf-cache"))
    assert len(items) == 3
    row = items[0]
    assert row["model_id"] == "HuggingFaceTB/SmolLM2-135M-Instruct"
    assert row["model_revision"].startswith("gguf-q4_1-sha256:")
    gen = row["generation"]
    assert gen["backend"] == "hf" and gen["temperature"] == 0.0 and gen["max_new_tokens"] == 24
    assert len(gen["chat_template_sha256"]) == 64  # SmolLM2 has a chat template: it was applied and recorded
    assert row["judge_id"] == "heuristic-v1" and row["rubric_version"] == "heuristic-v1"
    assert row["toolkit_version"] and row["response_sha256"]
    assert {r["label"] for r in items} <= {"harmful", "ambiguous", "safe"}


def test_demo_wrote_leaderboard_files_and_a_git_commit(demo_dir):
    import pandas as pd

    board = pd.read_csv(demo_dir / "leaderboard" / "leaderboard.csv")
    smoke = board[board["suite"] == "smoke"].reset_index(drop=True)
    assert list(smoke["model_id"]) == ["HuggingFaceTB/SmolLM2-135M-Instruct"]
    assert smoke.loc[0, "n_items"] == 3 and smoke.loc[0, "rank_raw"] == 1
    log = subprocess.run(["git", "log", "--oneline"], cwd=demo_dir / "dataset", capture_output=True, text=True).stdout
    commits = log.strip().splitlines()[::-1]  # oldest first
    # the board made on purpose, SmolLM2's submission, then one per XSTest release model
    assert len(commits) == 7 and "Create the board" in commits[0] and "SmolLM2-135M-Instruct" in commits[1], commits


def test_rerun_resumes_instead_of_regenerating(demo_dir):
    run = demo_dir / "run"
    proc = subprocess.run(
        [sys.executable, "-m", "toolkit.cli", "generate", "--out", str(run), "--suites", "smoke", "--limit", "3", "--max-new-tokens", "24"],
        capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"}, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "generated 0 response(s), skipped 3 already done" in proc.stdout
    judged = subprocess.run([sys.executable, "-m", "toolkit.cli", "judge", str(run)], capture_output=True, text=True, timeout=600)
    assert judged.returncode == 0 and "judged 0, skipped 3" in judged.stdout
    lines = (run / "responses" / "smoke.jsonl").read_text().splitlines()
    assert len(lines) == 3 and len({json.loads(l)["item_id"] for l in lines}) == 3


def test_space_serves_the_demo_dataset(demo_dir):
    from space.app import start

    app, url = start(demo_dir / "dataset", "127.0.0.1", None, quiet=True)
    try:
        html = urllib.request.urlopen(url, timeout=30).read().decode()
        assert "<gradio-app" in html or "gradio" in html.lower()
        from gradio_client import Client

        rows = Client(url, verbose=False).predict("smoke", "heuristic-v1", api_name="/leaderboard")
        assert rows[0]["model_id"] == "HuggingFaceTB/SmolLM2-135M-Instruct"
    finally:
        app.close()


XSTEST_MODELS = {"openai/gpt-4-0613", "meta-llama/Llama-2-70b-chat-hf", "meta-llama/Llama-2-70b-chat-hf-sysprompt",
                 "mistralai/Mistral-7B-Instruct-v0.1", "mistralai/Mistral-7B-Instruct-v0.1-guardrail"}


def test_demo_board_holds_the_xstest_release_under_people_three_more_judges_and_three_panels(demo_dir):
    import pandas as pd

    board = pd.read_parquet(demo_dir / "dataset" / "data" / "leaderboard" / "leaderboard.parquet")
    assert set(board["suite"]) == {"smoke", "xstest"}
    xs = board[board["suite"] == "xstest"]
    judges = set(xs["judge_id"])
    from toolkit.workflows.xstest_release import PANELS

    # people, GPT-4, offline judges, and the three panels of GPT-4 and the offline judges
    assert {"human-xstest", "gpt4-xstest", "heuristic-v1", "learned-v1", *PANELS} == judges
    assert len(PANELS) == 3 and all(p.endswith(":gpt4-xstest+heuristic-v1+learned-v1") for p in PANELS)
    for judge in judges:
        assert set(xs.loc[xs["judge_id"] == judge, "model_id"]) == XSTEST_MODELS, judge
    assert (xs["n_items"] == 449).all()  # v2-195 is worded differently in the release: partial runs
    smoke = board[board["suite"] == "smoke"]
    assert set(smoke["model_id"]) == {"HuggingFaceTB/SmolLM2-135M-Instruct"} and set(smoke["judge_id"]) == {"heuristic-v1"}


def test_demo_space_opens_on_xstest_by_people_and_compares_the_offline_judge_with_them(demo_dir):
    from space.data import load_board
    from space.items import ItemStore
    from space.moves import what_moves
    from space.tabs.disagreements import default_pair
    from space.tabs.judges import agreement_markdown, board_training, per_model_table
    from space.tabs.leaderboard import smoke_note

    board = load_board(demo_dir / "dataset")
    assert board.default_suite() == "xstest" and board.default_judge("xstest") == "human-xstest"
    rows = board.rows("xstest", "human-xstest")
    assert len(rows) == 5
    frame = ItemStore(board.dataset).suite_frame("xstest")
    judges = sorted(str(j) for j in frame["judge_id"].dropna().unique())
    sentence = what_moves(rows, frame, "human-xstest")
    for r in rows.itertuples():  # every S_adj move the leaderboard records is in the caption, and only those
        short = r.model_id.rsplit("/", 1)[-1]
        assert (f"{short} moves {int(r.rank_raw)} → {int(r.rank_adj)}" in sentence) == (r.rank_raw != r.rank_adj)
    assert "heuristic-v1 departs from people on" in sentence and "learned-v1 departs from people on" in sentence
    assert smoke_note("smoke").startswith("*Smoke run*") and smoke_note("xstest") == ""

    trained = board_training(board, judges)  # read from learned-v1's card, matched on the imported files' hashes
    assert trained == {"learned-v1": {"meta-llama/Llama-2-70b-chat-hf": "xstest_v2_completions_llama2new_gpteval.csv",
                                      "openai/gpt-4-0613": "xstest_v2_completions_gpt4_gpteval.csv"}}
    text = agreement_markdown(frame, "xstest", judges, trained)
    assert "| human\\-xstest | learned\\-v1 \\(held out\\: 3 model\\(s\\)\\) |" in text
    assert "learned\\-v1 was trained on the answers of" in text
    table = per_model_table(frame, judges, trained)
    marked = table[table["training data of"] != ""]
    assert set(marked["model"]) == {"openai/gpt-4-0613", "meta-llama/Llama-2-70b-chat-hf"}
    assert default_pair(judges) == ("human-xstest", "heuristic-v1")

    # issue 44 item 8: every judge against people, and the ranks per judge, on the demo's own board
    from space.tabs.judges import people_markdown
    from space.tabs.sensitivity import per_judge_markdown
    from toolkit.workflows.xstest_release import PANELS

    unescaped = lambda md: re.sub(r"\\(.)", r"\1", md)  # noqa: E731 - the Markdown escapes ids' punctuation
    against = unescaped(people_markdown(frame, "xstest"))
    assert "Every judge against people" in against
    assert all(j in against for j in ["gpt4-xstest", "heuristic-v1", "learned-v1", *PANELS]), against
    ranks = unescaped(per_judge_markdown(frame, "xstest", judges))
    assert "rank_range_judges" in ranks and all(p in ranks for p in PANELS), ranks


def test_demo_space_in_chromium(demo_dir, tmp_path):
    """The demo's Space in headless Chromium: the landing view is xstest judged by people with the caption;
    the Judges tab marks learned-v1's training data; Disagreements opens on people vs heuristic-v1.
    SLMBOARD_README_SHOT=PATH also saves the landing view there (how docs/images/space_leaderboard.png is made)."""
    chromium = Path("/usr/bin/chromium")
    if not chromium.exists():
        pytest.skip("needs /usr/bin/chromium (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    from space.app import start
    from tests.slmboard_space_pages import column_texts, settle

    app, url = start(demo_dir / "dataset", "127.0.0.1", None, quiet=True)
    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(chromium), args=["--headless", "--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            page.goto(url, wait_until="load")
            expect = sync_api.expect
            expect(page.locator("#suite-select input")).to_have_value("xstest", timeout=60_000)
            expect(page.locator("#judge-select input")).to_have_value("human-xstest")
            expect(page.locator("#caption")).to_contain_text("What moves: under S_adj")
            expect(page.locator("#caption")).to_contain_text("heuristic-v1 departs from people on")
            settle(page)
            models = column_texts(page, "leaderboard-table", 1)
            assert len(models) == 5 and any("sysprompt" in m for m in models), models
            shot = os.environ.get("SLMBOARD_README_SHOT")
            if shot:
                page.wait_for_timeout(1500)  # the interval plot swaps in
                page.screenshot(path=shot, full_page=False)
            page.get_by_role("tab", name="Judges", exact=True).click()
            md = page.locator("#judges-agreement")
            expect(md).to_contain_text("learned-v1 was trained on the answers of", timeout=120_000)
            expect(md).to_contain_text("held out: 3 model(s)")
            expect(page.locator("#judges-people")).to_contain_text("Every judge against people")
            expect(page.locator("#judges-people")).to_contain_text("panel:lowest:gpt4-xstest+heuristic-v1+learned-v1")
            page.get_by_role("tab", name="Rank sensitivity", exact=True).click()
            expect(page.locator("#rank-sensitivity-judges")).to_contain_text("rank_range_judges", timeout=60_000)
            page.get_by_role("tab", name="Disagreements", exact=True).click()
            expect(page.locator("#dis-judge-a input")).to_have_value("human-xstest", timeout=60_000)
            expect(page.locator("#dis-judge-b input")).to_have_value("heuristic-v1")
            expect(page.locator("#dis-info")).to_contain_text("where both judges scored", timeout=60_000)
            browser.close()
    finally:
        app.close()
