"""Docs that cannot rot: every bash / python block of README.md and docs/ runs (on the embedded default,
against a Hub emulator) or, when marked as needing a GPU, the real Hub, an API key, the network or
time, is checked against the parser. The convention: tests/slmboard_docs_runner.py."""
from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest

from slmboard_docs_runner import (REPO, Block, blocks, check_block, doc_pages, failure, page_env, run_block,
                                  supply_inputs)
from slmboard_docs_sandbox import SUPPLIES, named
from slmboard_hub_emulator import start_emulator
EVALUATE_GUIDE = REPO / "docs" / "guides" / "evaluate-and-submit.md"
#: Pages with blocks; the evaluate guide runs in its own test, which also serves the board it publishes.
PAGES = [p for p in doc_pages() if blocks(p) and p != EVALUATE_GUIDE]
#: the pages a newcomer follows with only the installed package
USER_PAGES = [REPO / "docs" / n for n in ("index.md", "quickstart.md", "install.md")] + sorted(
    (REPO / "docs" / "guides").glob("*.md"))


def run_page(page, scratch, install):
    """Run ``page``'s runnable blocks in order in ``scratch`` (one emulator) against ``install`` (the built
    wheel); check the marked ones."""
    problems = [problem for b in blocks(page) if b.needs for problem in check_block(b)]
    runnable = [b for b in blocks(page) if not b.needs]
    emu = start_emulator() if runnable else None
    try:
        env = page_env(scratch, emu, install) if emu else None
        scratch.mkdir(parents=True, exist_ok=True)
        if runnable:
            supply_inputs(blocks(page), scratch)
        for block in runnable:
            started = time.monotonic()
            proc = run_block(block, scratch, env, install)
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
def test_every_block_of_the_page_runs_or_parses(page, tmp_path, docs_install):
    problems, _, emu = run_page(page, tmp_path, docs_install)
    if emu:
        emu.stop()
    assert not problems, "\n\n".join(problems)


def test_the_runner_fails_a_failing_block_and_an_unknown_flag(tmp_path, docs_install):
    page = tmp_path / "page.md"
    page.write_text("# t\n\n```bash\nslmboard validate no-such-folder\n```\n\n<!-- needs: gpu -->\n```bash\n"
                    "slmboard generate --out r --model vllm:x \\\n  --no-such-flag 3\nmake no-such-target\n```\n\n"
                    "```text\nnot run\n```\n")
    found = blocks(page)
    assert [(b.line, b.needs) for b in found] == [(3, set()), (8, {"gpu"})]
    problems, _, emu = run_page(page, tmp_path / "scratch", docs_install)
    emu.stop()
    assert len(problems) == 3, problems
    assert "page.md:3: exit 1" in problems[2]
    assert "--no-such-flag" in problems[0] and "make: no target ['no-such-target']" in problems[1]


def test_a_page_runs_against_the_installed_wheel_outside_the_checkout_and_off_the_network(tmp_path, docs_install):
    """The blocks import the wheel's toolkit (not the checkout's), run in a folder with nothing of the repository,
    make their suite data from the package (`suites download --sample`), and reach no network: a proxy that
    refuses stands for it, a full download fails at once and leaves nothing, and the Hub emulator still answers."""
    page = tmp_path / "page.md"
    page.write_text(f"""# t

```bash
test -z "$(ls)"    # the page's folder starts empty (its own .hf-home aside)
slmboard suites download --sample --suites xstest,sst --to suite-data
! slmboard suites download --suites bbq --to full-data 2> refused.txt
grep -q "could not download" refused.txt && test ! -e full-data
```

```python
import json, os, socket, sys, urllib.request
from pathlib import Path
from urllib.parse import urlsplit
import toolkit
assert Path(toolkit.__file__).resolve().is_relative_to(Path(os.environ["VIRTUAL_ENV"]).resolve()), toolkit.__file__
# the test venv's site-packages are shared on purpose, and CI keeps that venv inside the checkout (.venv)
repo, shared = Path({str(REPO)!r}), Path({str(Path(sys.prefix).resolve())!r})
assert not any(Path(p or ".").resolve().is_relative_to(repo) and not Path(p).resolve().is_relative_to(shared)
               for p in sys.path), sys.path
try:
    import slmboard_testing
except ImportError:
    pass
else:
    raise AssertionError("the tests' helpers are importable")
files = {{f["path"]: f for f in json.loads(Path("suite-data/slmboard-suites.json").read_text())["files"]}}
assert set(files) == {{"xstest/xstest_prompts.csv", "simple_safety_tests/simple_safety_tests.csv"}}, files
assert files["simple_safety_tests/simple_safety_tests.csv"]["source"].startswith("slmboard's sample: 30 of 100")
# the network: every scheme goes to a proxy nobody listens on; the Hub emulator (this machine) is let through
for scheme in ("http", "https"):
    proxy = urlsplit(urllib.request.getproxies()[scheme])
    try:
        socket.create_connection((proxy.hostname, proxy.port), timeout=5).close()
    except ConnectionRefusedError:
        pass
    else:
        raise AssertionError(f"{{scheme}}: the proxy {{proxy.geturl()}} answers")
assert urllib.request.proxy_bypass(urlsplit(os.environ["HF_ENDPOINT"]).hostname)
assert os.environ["PIP_NO_INDEX"] == "1"
```

```bash
test ! -e tests && test ! -e benchmarks
test "$(command -v slmboard)" = "$VIRTUAL_ENV/bin/slmboard" && test "$(command -v pip)" = "$VIRTUAL_ENV/bin/pip"
```
""")
    problems, _, emu = run_page(page, tmp_path / "scratch", docs_install)
    emu.stop()
    assert not problems, "\n\n".join(problems)


def test_every_fetch_has_an_offline_twin_and_the_runner_supplies_only_other_tools_output():
    """The suites' data, the XSTest release and Safety-Flag's outputs come from the package by a block of the page
    (its offline twin); the runner stands in only for the output folder of another tool's marked run."""
    assert set(SUPPLIES) == {"lm-eval-out", "benchmark_output", "inspect-logs"}, sorted(SUPPLIES)
    twins = {p.name for p in doc_pages() for b in blocks(p) if not b.needs and "suites download --sample" in b.code}
    fetching = {p.name for p in doc_pages() if any(not b.needs and "--data-dir suite-data" in b.code
                                                   for b in blocks(p))}
    assert fetching <= twins, f"pages that read suite-data without making it offline: {sorted(fetching - twins)}"
    hub_model = {p.name for p in doc_pages() for b in blocks(p) if "network" in b.needs and "pretrained=HuggingFaceTB/" in b.code}
    local_model = {p.name for p in doc_pages() for b in blocks(p)
                   if "lm_eval " in b.code and 'pretrained="$(slmboard model-path)"' in b.code}
    assert hub_model and hub_model <= local_model, f"lm-eval on the Hub's model, no offline twin: {hub_model - local_model}"


def test_no_page_reaches_into_the_repository():
    """A reader with only the installed package has no tests/ and no workspace mirror: no block of any page names
    them, no guide sends the reader there, and every input the runner supplies is fetched by a command a page
    shows (a marked block: another tool's run)."""
    inside = re.compile(r"(?<![\w/.])tests/|\.\./shared\b|shared/benchmarks")
    offenders = [b.where for p in doc_pages() for b in blocks(p) if inside.search(b.code)]
    offenders += [str(p.relative_to(REPO)) for p in USER_PAGES if inside.search(p.read_text(encoding="utf-8"))]
    assert not offenders, offenders
    made = {n for p in doc_pages() for b in blocks(p) if b.needs for n in named(b.code)}
    assert made == set(SUPPLIES), f"supplied but made by no marked block: {sorted(set(SUPPLIES) - made)}"


def test_a_marked_block_that_parses_passes():
    block = Block(REPO / "x.md", 1, "bash", "$ slmboard rank my-org/my-board --token $HF_TOKEN \\\n  --out <DIR> --bootstrap 100\n"
                  "make docs\n", {"hub"})
    assert check_block(block) == [], check_block(block)




def test_the_evaluate_guide_followed_literally_publishes_a_board_the_space_shows(tmp_path, docs_install):
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
    problems, env, emu = run_page(EVALUATE_GUIDE, tmp_path, docs_install)
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


def test_every_repository_path_the_docs_name_exists_and_the_readme_shows_the_pip_route():
    """README once sent readers to `toolkit/api.py` (the API is the package toolkit/api/) and showed only the make
    route a pip user cannot take: every repository path a page names exists, and README installs as Quickstart does."""
    path = re.compile(r"(?<![\w/.~$-])((?:toolkit|space|schemas|tools|bench)/[\w/.-]*[\w/])")
    missing = [f"{p.relative_to(REPO)}: {m.group(1)}" for p in doc_pages()
               for m in path.finditer(p.read_text(encoding="utf-8")) if not (REPO / m.group(1)).exists()]
    assert not missing, missing
    readme = "".join(b.code for b in blocks(REPO / "README.md"))
    quickstart = "".join(b.code for b in blocks(REPO / "docs" / "quickstart.md") if "pip install" in b.code)
    assert quickstart and all(line in readme for line in quickstart.splitlines() if line.startswith("pip install"))
