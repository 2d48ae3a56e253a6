"""Write the suite samples the package ships (toolkit/stages/suites/samples/) from the workspace's benchmark mirror.

    python tools/suite_samples.py ../shared/benchmarks

Each sample is the source's header and some of its records, byte for byte (line endings included), chosen by a
fixed rule (:data:`RULES`), so running it again gives the same bytes. ``suites download --sample``
copies them into a data folder (toolkit/stages/suites/_samples.py); PROVENANCE.md there says what each is.
"""
from __future__ import annotations

import csv
import hashlib
import io
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "toolkit" / "stages" / "suites" / "samples"
#: sample path (the data-folder layout) -> the rule, in words, for PROVENANCE.md
RULES = {
    "simple_safety_tests/simple_safety_tests.csv": "the rows with counter 1-3 of each harm area and kind of request (5 areas x 2: information and advice seeking, instructions and actions)",
    "harmbench/harmbench_behaviors_text_all.csv": "the first 10 rows of each FunctionalCategory (standard, "
                                                   "contextual, copyright)",
    "bbq/data/Age.jsonl": "the first 36 lines (9 templates' ambiguous and disambiguated, negative and "
                          "non-negative questions)",
}


def _records(text: str) -> list[str]:
    """The CSV records of ``text`` as their source text (line endings kept): a record ends at a line end outside
    quotes (an even count of quote characters so far; an escaped quote is two)."""
    out, buf = [], ""
    for line in text.splitlines(keepends=True):
        buf += line
        if buf.count('"') % 2 == 0:
            out.append(buf)
            buf = ""
    return out


def _csv_rows(path: Path, keep) -> bytes:
    """The header and the records of ``path`` whose row ``keep`` accepts, byte for byte."""
    header, *records = _records(path.read_bytes().decode("utf-8"))
    names = next(csv.reader(io.StringIO(header, newline="")))
    kept = [r for r in records if keep(dict(zip(names, next(csv.reader(io.StringIO(r, newline=""))))))]
    return (header + "".join(kept)).encode("utf-8")


def build(mirror: Path) -> dict[str, bytes]:
    seen: dict[str, int] = {}

    def first_ten(row: dict[str, str]) -> bool:
        seen[row["FunctionalCategory"]] = seen.get(row["FunctionalCategory"], 0) + 1
        return seen[row["FunctionalCategory"]] <= 10

    age = (mirror / "bbq" / "data" / "Age.jsonl").read_bytes().splitlines(keepends=True)[:36]
    return {
        "simple_safety_tests/simple_safety_tests.csv": _csv_rows(
            mirror / "simple_safety_tests" / "simple_safety_tests.csv", lambda r: int(r["counter"]) <= 3),
        "harmbench/harmbench_behaviors_text_all.csv": _csv_rows(
            mirror / "harmbench" / "harmbench_behaviors_text_all.csv", first_ten),
        "bbq/data/Age.jsonl": b"".join(age),
    }


def main(mirror: str) -> None:
    for rel, body in build(Path(mirror)).items():
        (OUT / rel).parent.mkdir(parents=True, exist_ok=True)
        (OUT / rel).write_bytes(body)
        print(f"{rel}: {len(body)} bytes, sha256 {hashlib.sha256(body).hexdigest()}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/benchmarks")
