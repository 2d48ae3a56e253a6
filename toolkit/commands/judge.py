"""slmboard judge: add judgments to a run (never regenerates)."""
from __future__ import annotations

import sys


def judge_options(a) -> dict:
    """Judge factory options from the command line (only those the chosen judge understands)."""
    from ..errors import BadOption

    name = a.judge.partition(":")[0]
    opts: dict = {}
    if name in ("openai", "guard"):
        opts.update(
            base_url=a.base_url, api_key_env=a.api_key_env, concurrency=a.concurrency, timeout=a.timeout,
            requests_per_minute=a.rpm, tokens_per_minute=a.tpm, batch_api=a.batch,
            cache=False if a.no_cache else (a.cache or True),
        )
        if a.max_tokens is not None:
            opts["max_tokens"] = a.max_tokens
        if a.judge_extra_body is not None:
            opts["extra_body"] = parse_extra_body(a.judge_extra_body)
        if a.max_attempts is not None:
            from ..judging.retry import RetryPolicy

            opts["retry"] = RetryPolicy(max_attempts=a.max_attempts)
        if name == "guard":
            opts["style"] = a.guard_style
        elif a.air_templates:
            opts["air_templates"] = a.air_templates
    elif name == "mdjudge":
        opts.update(device=a.device, dtype=a.dtype)
    elif name == "learned":
        opts.update(device=a.device)
    elif a.base_url or a.batch or a.judge_extra_body is not None:
        raise BadOption(f"--base-url/--batch/--judge-extra-body apply to openai:<model> and guard:<model> judges, not {a.judge!r}")
    return opts


def parse_extra_body(text: str) -> dict:
    """``--judge-extra-body``: a JSON object (checked further by the judge)."""
    import json

    from ..errors import BadOption

    try:
        value = json.loads(text)
    except ValueError as exc:
        raise BadOption(f"--judge-extra-body: not valid JSON ({exc}): {text[:80]!r}") from exc
    if not isinstance(value, dict):
        raise BadOption(f"--judge-extra-body: must be a JSON object such as '{{\"structured_outputs\": {{\"regex\": \"...\"}}}}', "
                        f"got {type(value).__name__}")
    return value


def run(a) -> int:
    from .. import api

    r = api.judge(a.run, judge=a.judge, suites=a.suites.split(",") if a.suites else None,
                  retry_errors=not a.keep_errors, **judge_options(a))
    counts = ", ".join(f"{k} {v}" for k, v in sorted(r.label_counts.items()) if k != "failed")
    pe, err = r.status_counts.get("parse_error", 0), r.status_counts.get("error", 0)
    print(f"judge {r.judge_id}: judged {r.n_new}, skipped {r.n_skipped} already judged ({counts or 'no scores'}); "
          f"failed {pe + err} (parse_error {pe}, error {err})")
    if r.n_retried_errors:
        print(f"  re-judged {r.n_retried_errors} item(s) whose earlier API call had failed")
    if r.judge_stats:
        s = r.judge_stats
        print(f"  requests {s.get('requests', 0)}, retries {s.get('retries', 0)}, cache hits {s.get('cache_hits', 0)}, "
              f"tokens {s.get('prompt_tokens', 0)}+{s.get('completion_tokens', 0)}")
    for reason, n in r.failure_reasons.most_common(5):
        print(f"  {n:>5} x {reason}")
    if err:
        print(f"{err} API failure(s) recorded as judge_status 'error'; re-run the same command to retry them", file=sys.stderr)
    return 0


def register(sub) -> None:
    p = sub.add_parser("judge", help="add judgments to a run (never regenerates)")
    p.add_argument("run", help="run folder")
    p.add_argument("--judge", default="heuristic",
                   help="heuristic (offline default, rules) | learned (offline, trained on human labels; README) | "
                        "openai:<model> | guard:<model> | mdjudge | mdjudge:<local model folder> | bbq")
    p.add_argument("--suites", default=None, help="only these suites (comma-separated)")
    api = p.add_argument_group("API judges (openai:<model>, guard:<model>)")
    api.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (default: OpenAI)")
    api.add_argument("--api-key-env", default="OPENAI_API_KEY", help="environment variable holding the API key (never stored)")
    api.add_argument("--concurrency", type=int, default=8, help="requests in flight at once")
    api.add_argument("--rpm", type=float, default=None, help="request limit per minute")
    api.add_argument("--tpm", type=float, default=None, help="token limit per minute (prompt estimate + max tokens)")
    api.add_argument("--max-tokens", type=int, default=None, help="reply token cap (default 256; AIR-Bench 64; guards 16)")
    api.add_argument("--max-attempts", type=int, default=None, help="attempts per request incl. retries (default 6)")
    api.add_argument("--timeout", type=float, default=60.0, help="seconds per request")
    api.add_argument("--batch", action="store_true", help="use the OpenAI Batch API (resumes a pending batch after a restart)")
    api.add_argument("--cache", default=None, help="judgment cache file (default: $SLMBOARD_JUDGE_CACHE or ~/.cache/slmboard/judge-cache.sqlite)")
    api.add_argument("--no-cache", action="store_true", help="do not read or write the judgment cache")
    api.add_argument("--guard-style", default="llama-guard", choices=("llama-guard", "shieldgemma"))
    api.add_argument("--air-templates", default=None, help="AIR-Bench judge_prompts JSONL (per-category templates)")
    api.add_argument("--judge-extra-body", default=None, metavar="JSON",
                     help="extra request-body fields as a JSON object, e.g. vLLM structured outputs "
                          "'{\"structured_outputs\": {\"regex\": \"...\"}}' (recorded in judgments/<judge>/judge-config.json)")
    api.add_argument("--keep-errors", action="store_true", help="do not re-judge items whose earlier API call failed")
    p.add_argument("--device", default="cpu", help="mdjudge, learned: torch device")
    p.add_argument("--dtype", default="float32", help="mdjudge: float32 (exact probabilities) or bfloat16 (faster on CPU)")
    p.set_defaults(func=run)
