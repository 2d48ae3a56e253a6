"""The suite samples the package ships: ``slmboard suites download --sample`` writes them into a data folder,
in the layout ``data_dir`` reads, with no network.

XSTest's prompts ship in full (the pinned file, byte for byte: the demo's copy); SimpleSafetyTests, HarmBench and
BBQ (its Age category) ship a few dozen of their rows, unchanged, under their licences (samples/PROVENANCE.md).
A sample is for trying the commands offline: a run judged or published from it covers only these rows, and the
data folder's manifest says so (each file's ``source`` begins with "slmboard's sample"); a run made from it records
that (run.json ``suite_samples``) and its submission counts coverage against the whole suite (``FULL_ITEMS``).
"""
from __future__ import annotations

import gzip
import os
from importlib import resources
from pathlib import Path
from typing import Sequence

from ._base import SuiteDataError
from ._sources import FetchedFile, _sha256, _write_manifest

#: suite -> (path in a data folder, the packaged file (under toolkit/), gzipped, rows of the sample / of the suite)
SAMPLES: dict[str, tuple[str, str, bool, str]] = {
    "xstest": ("xstest/xstest_prompts.csv", "workflows/demo_data/xstest_prompts.csv.gz", True, ""),
    "sst": ("simple_safety_tests/simple_safety_tests.csv",
            "stages/suites/samples/simple_safety_tests/simple_safety_tests.csv", False, "30 of 100 prompts"),
    "harmbench": ("harmbench/harmbench_behaviors_text_all.csv",
                  "stages/suites/samples/harmbench/harmbench_behaviors_text_all.csv", False, "30 of 400 behaviors"),
    "bbq": ("bbq/data/Age.jsonl", "stages/suites/samples/bbq/data/Age.jsonl", False,
            "36 of 3,680 rows (no other category)"),
}
#: items of the whole suite a part-sample is cut from (BBQ: its Age category, the one file the sample holds): what
#: a run made from a sample counts its coverage against, so a board built from samples shows them as partial
FULL_ITEMS: dict[str, int] = {"sst": 100, "harmbench": 400, "bbq": 3680}
#: what FULL_ITEMS counts, in words
FULL_OF: dict[str, str] = {"sst": "the whole suite", "harmbench": "the whole suite", "bbq": "BBQ's whole Age category"}


def sampled_suites(data_dir: str | Path | None, suites: Sequence[str]) -> dict[str, str]:
    """suite -> what part of it the data folder holds ("30 of 100 prompts"), for each of ``suites`` whose file in
    ``data_dir`` is the package's part-sample, byte for byte (whichever way it got there)."""
    if data_dir is None:
        return {}
    root, out = Path(data_dir).expanduser(), {}
    for suite in suites:
        if suite not in SAMPLES or not SAMPLES[suite][3]:
            continue
        rel, packaged, gzipped, share = SAMPLES[suite]
        try:
            held = (root / rel).read_bytes()
        except OSError:
            continue
        body = resources.files("toolkit").joinpath(packaged).read_bytes()
        if held == (gzip.decompress(body) if gzipped else body):
            out[suite] = share
    return out


def write_samples(suites: Sequence, to: Path) -> list[FetchedFile]:
    """The packaged sample of each of ``suites`` (Suite instances) in the data folder ``to``, recorded in its
    manifest. A suite with no sample is refused before anything is written."""
    missing = [s.name for s in suites if s.name not in SAMPLES]
    if missing:
        raise SuiteDataError(f"no sample ships for {', '.join(missing)}; samples ship for {', '.join(SAMPLES)} "
                             "(leave out sample to download the full files)", param="suites")
    to = Path(to).expanduser()
    if to.exists() and not to.is_dir():
        raise SuiteDataError(f"{to}: not a folder", param="to")
    bodies = {}
    for suite in suites:
        rel, packaged, gzipped, _ = SAMPLES[suite.name]
        body = resources.files("toolkit").joinpath(packaged).read_bytes()
        bodies[suite.name] = gzip.decompress(body) if gzipped else body
        if (to / rel).is_file() and (to / rel).read_bytes() != body:  # a full download is never cut to a sample
            raise SuiteDataError(f"{to / rel} is there with other bytes (a full download?); a sample does not "
                                 "replace it: write the samples into another folder", param="to")
    out = []
    for suite in suites:
        rel, _, _, share = SAMPLES[suite.name]
        body, target = bodies[suite.name], to / rel
        fresh = not target.is_file()
        if fresh:
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(f".{target.name}.part")
            tmp.write_bytes(body)
            os.replace(tmp, target)
        # the full XSTest file is the pinned source itself; a part of a file is named as the sample it is
        url = next((f.url for f in suite.sources() if getattr(f, "path", None) == rel), suite.source)
        source = url if not share else f"slmboard's sample: {share} of {url}"
        out.append(FetchedFile(suite.name, rel, source, suite.revision, _sha256(target), fresh))
    _write_manifest(to, out)
    return out
