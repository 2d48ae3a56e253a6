"""slmboard import: results another tool wrote → an ordinary run folder (or more judges for one)."""
from __future__ import annotations

import sys


def run(a) -> int:
    from .. import api
    from ..importing.matching import REWORDED, describe

    # the library's reasons name parameters; this is the command line
    cli_words = ((REWORDED, REWORDED.replace("accept_reworded", "--accept-reworded")), ("fit id_map", "fit --id-map"))

    r = api.import_results(a.format, a.source, a.out, suite=a.suite, model_id=a.model_id, model_revision=a.model_revision,
                           data_dir=a.data_dir, id_map=a.id_map, skip_unmatched=a.skip_unmatched,
                           accept_reworded=a.accept_reworded, submission_id=a.submission_id, columns=a.columns,
                           judge_columns=a.judge_column, labels=a.labels, helm_version=a.helm_version,
                           judge_models=a.judge_model, prompt_field=a.prompt_field)
    rep = r.report
    print(rep.summary())
    for skipped in rep.skipped:
        print(f"  skipped {skipped.origin}: {skipped.rows} row(s) of no slmboard suite (--skip-unmatched)")
    for row, why in rep.unmatched[:20]:
        for library, cli in cli_words:
            why = why.replace(library, cli)
        print(f"  unmatched {describe(row)}: {why}")
    for row, first in rep.duplicates[:5]:
        print(f"  duplicate {row.where} (same as {first}; left out)")
    for suite, ids in rep.missing.items():
        if ids:
            print(f"  {suite}: {len(ids)} of {rep.totals[suite]} item(s) not in the source: "
                  + ", ".join(ids[:8]) + (" …" if len(ids) > 8 else ""))
    for judge, counts in sorted(r.status.items()):
        pe = counts.get("parse_error", 0)
        print(f"judge {judge}: {counts.get('ok', 0)} scored, {pe} parse_error")
    o = r.outcome
    for stale in o.stale_removed:
        print(f"removed {stale.path}: staging folder of an import that was killed (pid {stale.pid}, no longer running)",
              file=sys.stderr)
    verb = "wrote" if o.created else "updated"
    print(f"{verb} {r.run_dir} ({r.submission_id}); judges added: {', '.join(o.judges_added) or 'none'}"
          + (f"; unchanged: {', '.join(o.judges_unchanged)}" if o.judges_unchanged else ""))
    if any(rep.missing.values()):
        print(f"the run lacks suite items: publish it with `slmboard submit {r.run_dir} --to DATASET --allow-partial`",
              file=sys.stderr)
    return 0


def register(sub) -> None:
    p = sub.add_parser("import", help="turn another tool's results (table, eee, lm-eval, inspect, helm) into a run folder")
    p.add_argument("format", help="table | eee | lm-eval | inspect | helm")
    p.add_argument("source", nargs="+", help="source files or folders")
    p.add_argument("--out", required=True, help="run folder to write (or to add judges to, when it holds the same responses)")
    p.add_argument("--suite", default=None,
                   help="suite the source answers, for sources (or parts, e.g. HELM run folders) that do not say theirs")
    p.add_argument("--data-dir", default=None, help="local mirror of the benchmark files")
    p.add_argument("--model-id", default=None, help="ORG/NAME of the model (when the source does not say)")
    p.add_argument("--model-revision", default=None, help="model revision (default: from the source, else a hash of the source files)")
    p.add_argument("--submission-id", default=None)
    p.add_argument("--id-map", default=None, help="match by id: SOURCE=SUITE pattern, e.g. 'v2-{n}=xstest_{n}' (default: by prompt text)")
    p.add_argument("--skip-unmatched", action="store_true",
                   help="leave out source rows that match no suite item, and parts of the source of no slmboard suite "
                        "(a HELM run folder of another scenario); both listed")
    p.add_argument("--accept-reworded", action="store_true",
                   help="import rows matched by id (--id-map, or the source's own id when it is a suite id) whose prompt "
                        "wording differs (source wording kept in item_metadata)")
    t = p.add_argument_group("table")
    t.add_argument("--columns", default=None, help="prompt=COL,response=COL[,item_id=COL]")
    t.add_argument("--judge-column", action="append", default=None, metavar="JUDGE_ID=COL", help="a label column as a judge (repeatable)")
    t.add_argument("--labels", default=None, help="ternary | refusal | 'a=0,b=0.5,c=1' (default ternary)")
    le = p.add_argument_group("lm-eval")
    le.add_argument("--prompt-field", default=None, help="the doc field holding the prompt (default: prompt, prompts_final, ...)")
    h = p.add_argument_group("helm")
    h.add_argument("--helm-version", default=None,
                   help="the crfm-helm version that wrote the runs, e.g. 0.5.16: picks the judge models behind "
                        "'gpt'/'llama' (HELM records only those short names) and is recorded as the tool version; default 0.5")
    h.add_argument("--judge-model", action="append", default=None, metavar="KEY=MODEL",
                   help="the judge model behind a HELM annotation key (KEY_score), e.g. "
                        "claude=anthropic/claude-3-5-sonnet-20240620; repeatable; overrides the --helm-version table; "
                        "recorded in run.json. A key neither names is refused")
    p.set_defaults(func=run)
