"""Space data access and formatting, without a server."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from toolkit.data.board_figures import label_mix_figure
from space.table import GROUPS, fmt_coverage, fmt_delta, fmt_score, format_table, headers, model_cell
from space.data import ENV_VAR, LEADERBOARD_PATH, data_source, load_board, md_code, md_escape, records

REPO = Path(__file__).resolve().parents[2]


def test_board_reads_fixture(dataset, xss):
    board = load_board(dataset)
    assert board.message is None and not board.empty
    assert board.suites() == ["smoke", "xstest"]
    assert board.judges("smoke") == ["heuristic", "openai:gpt-judge"]
    rows = board.rows("smoke", "heuristic")
    assert list(rows["model_id"]) == ["org/alpha-135m", "org/beta-360m", xss]
    assert list(rows["rank_raw"]) == [1, 2, 3]
    assert len(board.submissions) == 3


def test_table_format(dataset, xss):
    board = load_board(dataset)
    table = format_table(board.rows("smoke", "heuristic"), GROUPS)
    assert list(table.columns) == headers(GROUPS, has_coverage=False)  # no coverage column in this leaderboard
    first = dict(zip(table.columns, table.iloc[0]))
    assert first["Rank"] == "1"
    # a Hub-shaped id links to its model page, the revision in the link title (hover); text escaped
    assert first["Model"] == r'[org/alpha\-135m](https://huggingface.co/org/alpha-135m "revision ' + "0" * 40 + '")'
    assert first["S_raw"] == "0.850 [0.800, 0.900]"  # bounds present (judge 1)
    assert first["HCR"] == "10.0%" and first["Scored"] == "20" and first["Failed"] == "0"
    # every policy column header names the policy in full
    assert [c for c in table.columns if c.startswith("Rank ") and c not in ("Rank adj", "Rank range", "Rank UB")] == \
        ["Rank pessimistic", "Rank partial_low", "Rank midpoint", "Rank partial_high", "Rank optimistic", "Rank excluded"]
    # beta has half ambiguous answers: it drops one place under S_adj, the XSS model gains one
    assert list(table["Δ adj"]) == ["0", "▼1", "▲1"]
    assert table["Model"][2] == r"\<img src=x onerror=alert\(1\)\>"  # not an id: escaped text, no link
    # judge 2 wrote no bootstrap bounds: a plain number, no brackets
    assert "[" not in format_table(board.rows("smoke", "openai:gpt-judge"))["S_raw"][0]
    assert "[" not in format_table(board.rows("smoke", "heuristic"), ["raw"])["S_raw"][0]  # intervals hidden
    assert (table.map(type) == str).all().all()


def test_model_cell_and_coverage():
    assert model_cell("meta-llama/Llama-2-70b-chat-hf") == \
        r"[meta\-llama/Llama\-2\-70b\-chat\-hf](https://huggingface.co/meta-llama/Llama-2-70b-chat-hf)"
    assert model_cell("local model (v2)") == r"local model \(v2\)"
    assert model_cell("a/b", 'x" onmouseover="1') == r"[a/b](https://huggingface.co/a/b)"  # odd revision: no title
    assert fmt_coverage(1.0) == "100%" and fmt_coverage(0.625) == "62.5% (partial)" and fmt_coverage(None) == "—"


@pytest.mark.parametrize("value,expected", [(2, "▲2"), (-3, "▼3"), (0, "0"), (None, "—"), (float("nan"), "—")])
def test_fmt_delta(value, expected):
    assert fmt_delta(value) == expected


def test_fmt_score():
    assert fmt_score(0.61, 0.55, 0.67) == "0.610 [0.550, 0.670]"
    assert fmt_score(0.61, None, None) == "0.610"
    assert fmt_score(None) == "—"


@pytest.mark.parametrize("n", [1, 26])
def test_plot_scales_with_models(n, lb_rows):
    counts = {f"org/model-{i:02d}${i}$": (i % 5, 3, 10, 0) for i in range(n)}  # "$" = mathtext bait
    rows = lb_rows("smoke", "heuristic", counts)
    fig = label_mix_figure(rows)
    assert len(fig.axes[0].get_yticklabels()) == n
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig).draw()  # mathtext errors would surface here
    assert fig.get_figheight() == pytest.approx(1.3 + 0.32 * n)


def test_plot_none_when_empty():
    assert label_mix_figure(pd.DataFrame(columns=["model_id", "hcr", "ar", "srr"])) is None


def test_missing_and_empty_data(tmp_path):
    for board in (load_board(tmp_path / "does-not-exist"), load_board(tmp_path)):
        assert board.empty and "No submissions yet" in board.message and "slmboard demo" in board.message
        assert board.suites() == [] and board.rows("smoke", "heuristic").empty


def test_corrupt_and_incomplete_leaderboard(tmp_path):
    path = tmp_path / LEADERBOARD_PATH
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not parquet")
    assert "could not be read" in load_board(tmp_path).message
    pd.DataFrame({"suite": ["smoke"], "model_id": ["m"]}).to_parquet(path)
    board = load_board(tmp_path)
    assert board.empty and "judge_id" in board.message


def test_optional_columns_absent(tmp_path, make_dataset):
    root = make_dataset(tmp_path / "ds")
    lb = pd.read_parquet(root / LEADERBOARD_PATH).drop(columns=["s_raw_lo", "s_raw_hi", "s_adj_lo", "s_adj_hi"])
    lb.to_parquet(root / LEADERBOARD_PATH)
    table = format_table(load_board(root).rows("smoke", "heuristic"))
    assert table["S_raw"][0] == "0.850"


def test_records_json_safe(dataset):
    rows = records(load_board(dataset).rows("smoke", "openai:gpt-judge"))
    assert rows[0]["s_raw_lo"] is None and isinstance(rows[0]["rank_raw"], int)


def test_data_dir_resolution(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    assert data_source(None) == tmp_path
    assert data_source(tmp_path / "x") == tmp_path / "x"
    # a Hub id in any of the data layer's spellings stays an id (it is opened through the data layer)
    for hub in ("org/board", "org/board@main", "hf://datasets/org/board"):
        assert data_source(hub) == hub


def test_md_escape():
    assert md_escape("<b>*x*</b>") == r"\<b\>\*x\*\</b\>"


def test_md_code_shows_a_command_as_typed():
    # inside a code span Markdown shows backslashes literally, so an escaped board name would read org/my\-board
    assert md_code("slmboard review org/my-board_1.v2") == "`slmboard review org/my-board_1.v2`"
    assert md_code("a`b") == "`ab`"  # a backtick would end the span early


def test_space_imports_no_torch():
    code = ("import sys; sys.path.insert(0, %r); import space.app; "
            "bad = [m for m in ('torch', 'transformers', 'lm_eval') if m in sys.modules]; "
            "assert not bad, bad" % str(REPO))
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


def test_primary_judge_from_the_card_export_writes(dataset):
    """The card `submit`/`recompute` render (toolkit.outputs.publishing.card) names the primary judge; the
    Space shows that one and its reason, and falls back to the rule without a card entry."""
    from toolkit.outputs.publishing.card import CardChoices, render_card

    board = load_board(dataset)
    # no slmboard block in the fixture's card: the rule decides
    assert board.judge_reason("smoke").startswith("no primary judge in the dataset card; by rule:")
    subs_path = dataset / "data" / "submissions" / "submissions.parquet"
    subs = pd.read_parquet(subs_path)
    subs.assign(judge_ids="heuristic, openai:gpt-judge", n_records=40).to_parquet(subs_path, index=False)  # as submit writes
    card = render_card(dataset, choices=CardChoices(gated=False, primary_judge_overrides={"smoke": "openai:gpt-judge"}))
    (dataset / "README.md").write_text(card)
    board = load_board(dataset)
    assert board.default_judge("smoke") == "openai:gpt-judge"
    assert board.judge_reason("smoke").startswith("the suite's primary judge as the dataset card records it: set by")
    assert board.default_judge("xstest") in ("heuristic", "openai:gpt-judge")
    (dataset / "README.md").write_text("---\nslmboard:\n  primary_judges:\n    smoke: gone-judge\n---\n")
    board = load_board(dataset)
    assert board.default_judge("smoke") == "heuristic" and "names gone-judge, which has no rows here" in board.judge_reason("smoke")


def test_a_suite_of_only_people_and_panels_opens_on_one_and_says_the_rule_picks_none(tmp_path):
    """The primary-judge rule never picks people's labels or a panel; the Space still opens the suite on one of them
    (first by name) and says why, or on the one the card names."""
    from space.data import primary_judges
    from toolkit.data.reading import open_data

    (tmp_path / "README.md").write_text("---\nconfigs: []\n---\n")
    rows = [("xstest", j, m, 0) for j in ("panel:lowest:gpt4-xstest+human-xstest", "human-xstest") for m in ("a", "b")]
    rows += [("smoke", "heuristic-v1", "a", 0), ("smoke", "human-x", "a", 0), ("smoke", "human-x", "b", 0)]
    board = pd.DataFrame(rows, columns=["suite", "judge_id", "model_id", "n_failed"])
    chosen = primary_judges(open_data(tmp_path), board)
    assert chosen["smoke"][0] == "heuristic-v1" and "the only judge the rule may pick" in chosen["smoke"][1]
    judge, why = chosen["xstest"]
    assert judge == "human-xstest" and why.startswith("no judge the rule may pick")
    (tmp_path / "README.md").write_text("---\nslmboard:\n  primary_judges:\n    xstest: panel:lowest:gpt4-xstest+human-xstest\n---\n")
    assert primary_judges(open_data(tmp_path), board)["xstest"][0] == "panel:lowest:gpt4-xstest+human-xstest"


def test_refresh_probes_at_most_once_per_interval_and_downloads_once(tmp_path, make_dataset, monkeypatch):
    """Every open page's timer asks for a refresh; the data are probed at most once per interval, and a
    Hub probe's download is the board that gets served (not downloaded a second time)."""
    import space.state as state

    root = tmp_path / "data"
    root.mkdir()
    holder = state.Holder(root, warm=False)
    holder.refresh_if_changed(at_most_every=60)  # the first probe: nothing new
    make_dataset(root)
    for _ in range(3):  # other pages' ticks within the interval: no probe
        holder.refresh_if_changed(at_most_every=60)
    assert holder.version == 0 and holder.board.empty
    holder.refresh_if_changed(at_most_every=0)
    assert holder.version == 1 and not holder.board.empty

    loads = []
    monkeypatch.setattr(state, "load_board", lambda data: loads.append(data) or load_board(data))
    monkeypatch.setattr(state.Holder, "is_hub", lambda self: True)  # each probe "downloads" a snapshot
    make_dataset(root, {"smoke": {"org/alpha-135m": (5, 0, 0, 0)}})  # a new leaderboard file
    holder.refresh_if_changed(at_most_every=0)
    assert holder.version == 2 and len(loads) == 1


def test_could_be_rank_and_undecided_columns(dataset):
    """rank_best/rank_worst as "Could be rank" beside Rank UB, n_undecided beside n_failed; a board from before the
    columns existed shows a dash and 0."""
    from space.table import export_table, fmt_rank_span

    assert [fmt_rank_span(*v) for v in ((2, 4), (1, 1), (None, 3), (float("nan"), float("nan")))] == ["2–4", "1", "—", "—"]
    board = load_board(dataset)
    rows = board.rows("smoke", "heuristic").copy()
    old = format_table(rows, GROUPS)
    assert set(old["Could be rank"]) == {"—"} and set(old["Undecided"]) == {"0"}
    rows["rank_best"], rows["rank_worst"], rows["n_undecided"] = [1.0, 1.0, 3.0], [2.0, 2.0, 3.0], [0.0, 4.0, 0.0]
    table = format_table(rows, GROUPS)
    cols = list(table.columns)
    assert cols.index("Could be rank") == cols.index("Rank UB") + 1 and cols.index("Undecided") == cols.index("Failed") + 1
    assert list(table["Could be rank"]) == ["1–2", "1–2", "3"] and list(table["Undecided"]) == ["0", "4", "0"]
    exported = export_table(rows, GROUPS)
    assert list(exported["rank_best"]) == [1, 1, 3] and list(exported["rank_worst"]) == [2, 2, 3]
    assert list(exported["n_undecided"]) == [0, 4, 0]
    from space.tabs.leaderboard import caption

    assert "1 failed judgment(s), 4 without a decision (a judge panel's rule) in total" in caption(
        board, "smoke", "heuristic", rows, 3)
    assert "without a decision" not in caption(board, "smoke", "heuristic", board.rows("smoke", "heuristic"), 3)
