"""Write the demo's precomputed offline-judge verdicts on the XSTest release (toolkit/workflows/demo_data/verdicts/).

    python tools/demo_verdicts.py                  # every judge of OFFLINE_JUDGES (minutes each on 2 cores)
    python tools/demo_verdicts.py --judges learned # one judge, e.g. after the learned judge's weights changed

Each judge runs for real on the five release models' answers, imported exactly as the demo imports
them; its verdicts are stored keyed by sha256(prompt, response), with the judge id and rubric version
that produced them in verdicts/index.json. The demo replays them only while the installed judge has
that rubric version (tests/workflows/test_demo_xstest.py checks both the version and a fresh run).
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def judge_release(spec: str, work: Path) -> tuple[str, str, dict]:
    """(judge id, rubric version, {key: Judgment}) of a fresh run of ``spec`` on every release answer."""
    from toolkit.stages.judging import judge_run, make_judge
    from toolkit.stages.judging.base import Judge, Judgment
    from toolkit.workflows import xstest_release as xr

    data_dir = xr.unpack_prompts(work / "benchmarks")
    inner = make_judge(spec)
    verdicts: dict[str, Judgment] = {}

    class Recording(Judge):  # the real judge; every verdict it gives is kept
        judge_id, rubric_version = inner.judge_id, inner.rubric_version

        def judge(self, inputs):
            out = inner.judge(inputs)
            verdicts.update({xr.verdict_key(x.prompt, x.response): j for x, j in zip(inputs, out)})
            return out

    for model in xr.MODELS:
        run = work / model.run_name
        if not run.exists():
            xr.import_model(model, run, data_dir)
        judge_run(run, Recording(), show_progress=True)
    return inner.judge_id, inner.rubric_version, verdicts


def main(argv: list[str] | None = None) -> int:
    from toolkit.workflows import xstest_release as xr

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--judges", default=",".join(xr.OFFLINE_JUDGES), help="judge specs, comma-separated")
    p.add_argument("--work", default=None, help="folder for the imported runs (default: a temporary one)")
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(a.work or tmp)
        for spec in [s.strip() for s in a.judges.split(",") if s.strip()]:
            judge_id, rubric, verdicts = judge_release(spec, work)
            index = xr.read_index()  # read now: another judge's entry may have been written meanwhile
            old = index.get(spec)
            if old and old["judge_id"] != judge_id:  # a new version of the judge: its old file goes
                xr.verdict_file(old["judge_id"]).unlink(missing_ok=True)
            path = xr.write_verdicts(judge_id, verdicts)
            index[spec] = {"judge_id": judge_id, "rubric_version": rubric, "file": path.name, "n": len(verdicts),
                           "made_by": "tools/demo_verdicts.py"}
            xr.VERDICT_INDEX.write_text(json.dumps(dict(sorted(index.items())), indent=2) + "\n", encoding="utf-8")
            print(f"{spec}: {len(verdicts)} verdicts of {rubric} -> {path.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
