"""slmboard moderate: run a moderator on the flag / do-not-flag suite (resumable), build an item
list from a source, or import Safety-Flag's released per-item outputs."""
from __future__ import annotations


def _source_data(values, data_dir):
    from ..errors import SlmboardError
    from ..moderation.sources import BENCHMARKS

    data = {b: data_dir for b in BENCHMARKS} if data_dir else {}
    for v in values or []:
        bench, sep, path = v.partition("=")
        if not sep or bench not in BENCHMARKS:
            raise SlmboardError(f"--source-data expects BENCHMARK=FILE with BENCHMARK one of {', '.join(BENCHMARKS)}; got {v!r}")
        data[bench] = path
    return data


def _check_backend_flags(a) -> None:
    """The flags each moderator backend needs (the library says the same in its own terms)."""
    from ..errors import SlmboardError

    if a.model == "openai" and not (a.base_url and a.served_model):
        raise SlmboardError("--model openai needs --base-url and --served-model")
    if a.model == "guard" and not (a.guard and a.model_dir):
        raise SlmboardError("--model guard needs --guard NAME and --model-dir DIR")
    if a.model == "judge" and not a.judge:
        raise SlmboardError("--model judge needs --judge SPEC (e.g. heuristic, openai:MODEL, guard:MODEL)")


def run(a) -> int:
    from .. import api
    from ..errors import SlmboardError

    if a.import_released:
        files = api.import_released_moderation(a.import_released, a.out, moderator_id=a.moderator_id)
        print(f"imported {len(files)} file(s) → " + ", ".join(map(str, files)))
        return 0
    data = _source_data(a.source_data, a.data_dir)
    if a.build_list:
        if not a.lists_dir:
            raise SlmboardError("--build-list needs --lists-dir DIR (where the list file is written)")
        path, n, sha = api.build_moderation_list(a.build_list, a.lists_dir, data.get(a.build_list), n_per_class=a.per_class,
                                                 rule=a.rule, seed=a.seed)
        print(f"wrote {path}: {n} items (sha256 {sha})")
        return 0
    if not a.out:
        raise SlmboardError("--out RUN is required")
    _check_backend_flags(a)
    benchmarks = [b.strip() for b in a.benchmarks.split(",") if b.strip()]
    r = api.moderate(a.out, benchmarks, model=a.model, variant=a.variant, data=data, lists_dir=a.lists_dir,
                     limit=a.limit, submission_id=a.submission_id, batch_size=a.batch_size, model_dir=a.model_dir,
                     moderator_id=a.moderator_id, base_url=a.base_url, served_model=a.served_model,
                     tokenizer=a.tokenizer, guard=a.guard, dtype=a.dtype, judge=a.judge)
    for b in benchmarks:
        print(f"{b}: {r.written[b]} new record(s), {r.skipped[b]} already done → {a.out}/moderation/{b}.jsonl")
    print(f"items without a decision (parse failures): {r.no_decision}")
    return 0


def register(sub) -> None:
    p = sub.add_parser("moderate", help="run a moderator on the flag / do-not-flag suite (paper 2)")
    p.add_argument("--out", help="run folder; records go to RUN/moderation/<benchmark>.jsonl")
    p.add_argument("--benchmarks", default="xstest,ethics",
                   help="comma-separated: beavertails, xstest, ethics, wildguardtest, aegis, toxicchat, toxigen")
    p.add_argument("--model", default="hf", choices=("hf", "openai", "guard", "judge"))
    p.add_argument("--judge", default=None, help="with --model judge: a judge spec of the SLM track (heuristic, openai:MODEL, ...)")
    p.add_argument("--model-dir", default=None, help="local model folder (default: the embedded SmolLM2-135M-Instruct)")
    p.add_argument("--moderator-id", default=None)
    p.add_argument("--base-url", default=None, help="OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--served-model", default=None, help="the model name on that server")
    p.add_argument("--tokenizer", default=None, help="tokenizer (chat template) of the served model; default --model-dir")
    p.add_argument("--guard", default=None, choices=("llama_guard_3", "shieldgemma", "wildguard"))
    p.add_argument("--variant", default="default", choices=("default", "paraphrase", "swapped"))
    p.add_argument("--dtype", default="float32")
    p.add_argument("--data-dir", default=None, help="local mirror laid out like shared/benchmarks (xstest, ethics)")
    p.add_argument("--source-data", action="append", metavar="BENCHMARK=FILE",
                   help="an export of a Hub-only source in its own schema (.parquet/.jsonl/.csv); repeatable")
    p.add_argument("--lists-dir", default=None, help="item lists to use instead of the packaged v1 lists")
    p.add_argument("--limit", type=int, default=None, help="first N listed items per benchmark, classes balanced")
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--submission-id", default=None)
    p.add_argument("--build-list", default=None, metavar="BENCHMARK", help="build a balanced item list from the source")
    p.add_argument("--per-class", type=int, default=100)
    p.add_argument("--rule", default="random", choices=("random", "first"))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--import-released", nargs="+", default=None, metavar="FILE",
                   help="Safety-Flag released <model>__<benchmark>.jsonl files to import as ModerationRecords")
    p.set_defaults(func=run)
