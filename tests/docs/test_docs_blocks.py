"""Docs that cannot rot: every bash / python block of README.md and docs/ runs (on the embedded default,
against a Hub emulator) or, when marked as needing a GPU, the real Hub, an API key, the network or
time, is checked against the parser. The convention: tests/slmboard_docs_runner.py."""
from __future__ import annotations

import time

import pytest

from slmboard_docs_runner import (REPO, Block, blocks, check_block, doc_pages, failure, link_repo_files, page_env,
                                  run_block)
from slmboard_hub_emulator import start_emulator
EVALUATE_GUIDE = REPO / "docs" / "guides" / "evaluate-and-submit.md"
#: Pages with blocks; the evaluate guide runs in its own test, which also serves the board it publishes.
PAGES = [p for p in doc_pages() if blocks(p) and p != EVALUATE_GUIDE]


def run_page(page, scratch):
    """Run ``page``'s runnable blocks in order in ``scratch`` (one emulator); check the marked ones."""
    problems = [problem for b in blocks(page) if b.needs for problem in check_block(b)]
    runnable = [b for b in blocks(page) if not b.needs]
    emu = start_emulator() if runnable else None
    try:
        env = page_env(scratch, emu) if emu else None
        link_repo_files(scratch)
        for block in runnable:
            started = time.monotonic()
            proc = run_block(block, scratch, env)
            print(f"{block.where}: {block.lang} block, exit {proc.returncode}, {time.monotonic() - started:.1f} s")
            if proc.returncode != 0:
                problems.append(failure(block, proc))
                break  # later blocks build on this one
        return problems, env, emu
    except BaseException:
        if emu:
            emu.stop()
        raise


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(REPO)) for p in PAGES])
def test_every_block_of_the_page_runs_or_parses(page, tmp_path):
    problems, _, emu = run_page(page, tmp_path)
    if emu:
        emu.stop()
    assert not problems, "\n\n".join(problems)


def test_the_runner_fails_a_failing_block_and_an_unknown_flag(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# t\n\n```bash\nslmboard validate no-such-folder\n```\n\n<!-- needs: gpu -->\n```bash\n"
                    "slmboard generate --out r --model vllm:x \\\n  --no-such-flag 3\nmake no-such-target\n```\n\n"
                    "```text\nnot run\n```\n")
    found = blocks(page)
    assert [(b.line, b.needs) for b in found] == [(3, set()), (8, {"gpu"})]
    problems, _, emu = run_page(page, tmp_path / "scratch")
    emu.stop()
    assert len(problems) == 3, problems
    assert "page.md:3: exit 1" in problems[2]
    assert "--no-such-flag" in problems[0] and "make: no target ['no-such-target']" in problems[1]


def test_a_marked_block_that_parses_passes():
    block = Block(REPO / "x.md", 1, "bash", "$ slmboard rank my-org/my-board --token $HF_TOKEN \\\n  --out <DIR> --bootstrap 100\n"
                  "make docs\n", {"hub"})
    assert check_block(block) == [], check_block(block)




def test_the_evaluate_guide_followed_literally_publishes_a_board_the_space_shows(tmp_path):
    """The guide's runnable blocks publish to the Hub emulator; its `slmboard serve DATASET` (marked: it starts
    a server) then serves that board, and the Space's API lists the guide's model on it."""
    import subprocess

    import gradio_client
    import httpx

    from slmboard_docs_runner import command_lines
    from slmboard_hub_emulator import free_port

    serves = [argv for b in blocks(EVALUATE_GUIDE) if b.needs and b.lang == "bash" for argv in command_lines(b.code)
              if argv[:2] == ["slmboard", "serve"]]
    assert serves, f"{EVALUATE_GUIDE.name} does not end by serving its board (`slmboard serve DATASET`)"
    problems, env, emu = run_page(EVALUATE_GUIDE, tmp_path)
    try:
        assert not problems, "\n\n".join(problems)
        port = free_port()
        server = subprocess.Popen([*serves[-1], "--port", str(port)], cwd=tmp_path, env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            url, deadline = f"http://127.0.0.1:{port}/", time.monotonic() + 180
            while time.monotonic() < deadline:
                assert server.poll() is None, f"serve exited {server.returncode}: {server.stdout.read()[-3000:]}"
                try:
                    if httpx.get(url, timeout=5).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(1)
            client = gradio_client.Client(url, verbose=False)
            suites = client.predict(api_name="/suites")
            assert suites, "the Space shows no board"
            suite, judges = next(iter(suites.items()))
            rows = client.predict(suite, judges[0], api_name="/leaderboard")
            assert rows and all(r["model_id"] for r in rows), rows
        finally:
            server.terminate()
            server.wait(timeout=30)
    finally:
        if emu:
            emu.stop()
