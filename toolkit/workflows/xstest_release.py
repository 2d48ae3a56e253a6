"""The XSTest v2 release as the demo's board: five real models' answers with people's labels.

The release (github.com/paul-rottger/exaggerated-safety) ships each model's 450 answers with two
annotators' labels, their ``final_label`` and the release's GPT-4 classifier label. The files ship
unchanged (gzip) in ``demo_data/`` with their provenance (``demo_data/PROVENANCE.md``); the demo
imports them through ``import table`` exactly as docs/reference/interoperability.md does, so the
board shows people (``human-xstest``), the GPT-4 classifier (``gpt4-xstest``) and the offline judges
side by side, and three panels of the GPT-4 classifier and the offline judges (:data:`PANELS`: ``majority``,
``majority-or-ambiguous``, ``lowest``), judged from the records the runs already hold. Nothing here reads ``tests/`` or the benchmark mirror.

The offline judges take minutes on 2 250 answers, so their verdicts ship precomputed
(``demo_data/verdicts/``, written by ``tools/demo_verdicts.py``) and are replayed through the real
judging stage: the records are what a fresh run writes (a test compares them). A verdict file made
by another version of a judge than the one installed is not used; that judge then runs for real.
"""
from __future__ import annotations

import gzip
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from toolkit.stages.judging.base import Judge, JudgeCapabilities, JudgeInput, Judgment

DATA = Path(__file__).resolve().parent / "demo_data"
VERDICTS = DATA / "verdicts"
VERDICT_INDEX = VERDICTS / "index.json"
PROMPTS_FILE = "xstest_prompts.csv.gz"
SUITE = "xstest"
#: the release's human labels and GPT-4 classifier labels, as judges (the columns of every ``*_gpteval`` file)
JUDGE_COLUMNS = ("human-xstest=final_label", "gpt4-xstest=gpt4_label")
HUMAN_JUDGE = "human-xstest"
#: the offline judges whose verdicts ship precomputed (specs of the judge registry). learned is pinned to v1, whose
#: verdicts ship: learned-v2 missed its held-out targets (BENCHMARKS.md) and is not an offline default.
OFFLINE_JUDGES = ("heuristic", "learned-v1")
#: the release's GPT-4 classifier beside the two offline judges, as judge ids (the panels' members)
PANEL_MEMBERS = ("gpt4-xstest", "heuristic-v1", "learned-v1")
#: the panels the demo publishes, judged from the members' records each run already holds (no judge call)
PANEL_RULES = ("majority", "majority-or-ambiguous", "lowest")
PANELS = tuple(f"panel:{rule}:" + "+".join(sorted(PANEL_MEMBERS)) for rule in PANEL_RULES)


@dataclass(frozen=True)
class ReleaseModel:
    """One answer file of the release: ``name`` is the release's own (the file's middle part)."""

    name: str
    model_id: str
    what: str

    @property
    def file(self) -> Path:
        return DATA / f"xstest_v2_completions_{self.name}_gpteval.csv.gz"

    @property
    def run_name(self) -> str:
        return f"xstest-{self.name}"


#: Two Llama-2 and two Mistral configurations are different systems: each keeps its own model id,
#: named after the release's configuration (system prompt / guardrail prompt).
MODELS = (
    ReleaseModel("gpt4", "openai/gpt-4-0613", "GPT-4"),
    ReleaseModel("llama2new", "meta-llama/Llama-2-70b-chat-hf", "Llama-2-70b-chat, no system prompt"),
    ReleaseModel("llama2orig", "meta-llama/Llama-2-70b-chat-hf-sysprompt",
                 "Llama-2-70b-chat with its original system prompt"),
    ReleaseModel("mistralinstruct", "mistralai/Mistral-7B-Instruct-v0.1", "Mistral-7B-Instruct, no system prompt"),
    ReleaseModel("mistralguard", "mistralai/Mistral-7B-Instruct-v0.1-guardrail",
                 "Mistral-7B-Instruct with the guardrail system prompt"),
)


def content_sha256(path: Path) -> str:
    """sha256 of the file's content (inside the gzip): what a judge card's ``training_data`` records."""
    data = path.read_bytes()
    return hashlib.sha256(gzip.decompress(data) if path.name.endswith(".gz") else data).hexdigest()


def unpack_prompts(data_dir: Path) -> Path:
    """The XSTest prompts as the suite reads them (``DATA_DIR/xstest/xstest_prompts.csv``); returns DATA_DIR."""
    target = Path(data_dir) / "xstest" / "xstest_prompts.csv"
    content = gzip.decompress((DATA / PROMPTS_FILE).read_bytes())
    if not target.is_file() or target.read_bytes() != content:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(".part")
        tmp.write_bytes(content)
        tmp.replace(target)
    return Path(data_dir)


def import_model(model: ReleaseModel, out: Path, data_dir: Path):
    """One release file → a run folder, through ``import table`` (the release lacks one prompt, v2-195,
    asked in an earlier wording: reported unmatched, the run is partial)."""
    return import_release_file(model.file, model.model_id, out, data_dir)


def import_release_file(path: Path, model_id: str, out: Path, data_dir: Path):
    """A table in the release's columns → a run folder (``slmboard import table PATH --suites xstest
    --columns prompt=prompt,response=completion --judge-column human-xstest=final_label
    --judge-column gpt4-xstest=gpt4_label --labels refusal --skip-unmatched``)."""
    from toolkit.stages.importing import import_source

    return import_source("table", [path], out, suite=SUITE, data_dir=data_dir, model_id=model_id,
                         skip_unmatched=True, options={"columns": "prompt=prompt,response=completion",
                                                       "judge_columns": list(JUDGE_COLUMNS), "labels": "refusal"})


# -- precomputed verdicts -------------------------------------------------------------------------

def verdict_key(prompt: str, response: str) -> str:
    return hashlib.sha256(f"{prompt}\x1f{response}".encode("utf-8")).hexdigest()


def verdict_file(judge_id: str) -> Path:
    return VERDICTS / f"{judge_id}.jsonl.gz"


def read_index() -> dict:
    """{judge spec: {judge_id, rubric_version, file, sha256, n, made_by}} of the shipped verdicts."""
    return json.loads(VERDICT_INDEX.read_text(encoding="utf-8")) if VERDICT_INDEX.is_file() else {}


def read_verdicts(judge_id: str) -> dict[str, Judgment]:
    out = {}
    for line in gzip.decompress(verdict_file(judge_id).read_bytes()).decode("utf-8").splitlines():
        row = json.loads(line)
        out[row["key"]] = Judgment(row["score"], row["status"], row["raw"], row["reason"], row["unsafe_prob"])
    return out


def write_verdicts(judge_id: str, verdicts: dict[str, Judgment]) -> Path:
    """Sorted by key, gzip without a timestamp: the same verdicts give the same bytes."""
    lines = [json.dumps({"key": k, "score": j.score, "status": j.status, "raw": j.raw, "reason": j.reason,
                         "unsafe_prob": j.unsafe_prob}, sort_keys=True, ensure_ascii=False)
             for k, j in sorted(verdicts.items())]
    path = verdict_file(judge_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode("utf-8"), compresslevel=9, mtime=0))
    return path


class ReplayJudge(Judge):
    """``judge`` itself, answering from shipped verdicts made by the same judge version; an answer
    without one is judged for real. Its records are the real judge's (same id, rubric version, fields)."""

    def __init__(self, judge: Judge, verdicts: dict[str, Judgment]) -> None:
        self.inner = judge
        self.judge_id, self.rubric_version = judge.judge_id, judge.rubric_version
        self.verdicts = verdicts
        self.n_replayed = 0

    @property
    def capabilities(self) -> JudgeCapabilities:
        return self.inner.capabilities

    def judge(self, inputs: Sequence[JudgeInput]) -> list[Judgment]:
        found = [self.verdicts.get(verdict_key(x.prompt, x.response)) for x in inputs]
        missing = [x for x, j in zip(inputs, found) if j is None]
        fresh = iter(self.inner.judge(missing) if missing else [])
        self.n_replayed += len(inputs) - len(missing)
        return [j if j is not None else next(fresh) for j in found]


def offline_judge(spec: str) -> tuple[Judge, str]:
    """The judge of ``spec`` for the demo, and how it judges: replaying the shipped verdicts when they were
    made by the installed version of the judge, else for real (and the line says why)."""
    from toolkit.stages.judging import make_judge

    judge = make_judge(spec)
    entry = read_index().get(spec)
    if entry is None:
        return judge, f"no shipped verdicts of {spec}: judging for real"
    if entry["rubric_version"] != judge.rubric_version:
        return judge, (f"shipped verdicts are {entry['rubric_version']}, the installed judge is {judge.rubric_version}: "
                       "judging for real (python tools/demo_verdicts.py regenerates them)")
    return ReplayJudge(judge, read_verdicts(entry["judge_id"])), f"replaying {entry['n']} shipped verdicts of {entry['rubric_version']}"


# -- the demo's publishing step -------------------------------------------------------------------

def publish_release(workdir: Path, dataset: Path, n_bootstrap: int, console, show_progress: bool = False) -> list[str]:
    """Import, judge offline, judge the panels and publish the five release models into ``dataset`` (resumable: a
    model already published is skipped). People's labels are the suite's primary judge. Returns the model ids."""
    from toolkit.core.dataset_layout import manifest_file
    from toolkit.outputs.publishing.submit import submit
    from toolkit.core.runs import RunDir
    from toolkit.stages.judging import judge_run

    data_dir = unpack_prompts(Path(workdir) / "benchmarks")
    judges = [offline_judge(spec) for spec in OFFLINE_JUDGES]
    for judge, how in judges:
        console.print(f"{judge.judge_id}: {how}")
    for model in MODELS:
        run = Path(workdir) / model.run_name
        if not (run / "run.json").is_file():
            result = import_model(model, run, data_dir)
            console.print(f"{model.model_id} ({model.what}): {result.report.summary()}")
        for judge, _ in judges:
            judge_run(run, judge, show_progress=show_progress)
        for panel in PANELS:  # from the records just written: a re-read, no judge call
            judge_run(run, panel, show_progress=show_progress)
        sid = RunDir(run).load_config().submission_id
        if (Path(dataset) / manifest_file(sid)).exists():
            console.print(f"{model.model_id} is already in {dataset}; skipping")
            continue
        sub = submit(run, to=dataset, n_bootstrap=n_bootstrap, data_dir=data_dir, allow_partial=True,
                     primary_judges={SUITE: HUMAN_JUDGE})
        console.print(f"{model.model_id}: {sub.n_records} records → {sub.dataset} (commit {sub.revision[:12]})")
    return [m.model_id for m in MODELS]
