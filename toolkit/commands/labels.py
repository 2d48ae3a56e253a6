"""slmboard labels: people label the board's own answers (the policy, an offline round, progress, the people judge)."""
from __future__ import annotations

import argparse
from functools import partial

from toolkit import api
from . import add_token_argument, services_of
from .options import OptionFlags


def _alpha(value) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def run(a: argparse.Namespace, flags: OptionFlags, policy: OptionFlags) -> int:
    o = api.LabelsOptions(**flags.given(a))
    fields, services = policy.given(a), services_of(a)
    if fields and not o.init:
        raise api.BadOption(f"{', '.join(policy.flags[n].flag for n in fields)}: the policy is set with --init")
    if o.init:
        r = api.labels_init(a.board, fields, services)
        print(f"labels dataset: {r.labels_dataset}" + (" (created)" if r.created else " (kept as it is)"))
        print(f"labelling policy of {r.board}: " + ("unchanged" if r.revision is None else f"commit {r.revision[:12]}")
              + f"; {r.policy.votes} votes per answer, {r.policy.sample} answers per suite and model, labellers: "
              + ("any signed-in user" if r.policy.any_signed_in else ", ".join(r.policy.labellers) or "none yet"))
    elif o.export:
        n = api.labels_export(a.board, o.export, services)
        print(f"wrote {n} answer(s) that need votes to {o.export}: fill labeller and label (one row per labeller), "
              f"then `slmboard labels {a.board} --from {o.export}`")
    elif o.from_csv:
        r = api.labels_from_csv(a.board, o.from_csv, services)
        print(f"stored {r.n_labels} label(s) of {', '.join(r.labellers)} in {r.labels_dataset} (commit {r.revision[:12]})")
    elif o.publish:
        r = api.labels_publish(a.board, o, services)
        items = ", ".join(f"{suite} {n}" for suite, n in sorted(r.n_items.items()))
        print(f"published {r.judge_id} on {r.board} (commit {r.revision[:12]}): {items} answer(s); people's agreement "
              f"(Krippendorff's alpha, ordinal): {_alpha(r.alpha)}" + (f"; left out: {', '.join(r.excluded)}"
                                                                       if r.excluded else ""))
    else:
        p = api.labels_progress(a.board, services)
        print(f"labels of {p.board} in {p.labels_dataset}")
        for suite, (sampled, ready, labels) in p.suites.items():
            print(f"  {suite}: {ready} of {sampled} sampled answers have enough votes ({labels} labels)")
        print(f"people's agreement (Krippendorff's alpha, ordinal): {_alpha(p.alpha)}")
        for who, (n, without) in p.labellers.items():
            print(f"  {who}: {n} label(s); alpha of the others without them: {_alpha(without)}")
    return 0


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("board", help="the board: ORG/NAME or hf://datasets/ORG/NAME (Hub), or its folder")
    flags = OptionFlags(p).add_model(api.LabelsOptions, "labels")
    policy = OptionFlags(p, dest_prefix="policy_").add_model(api.LabelPolicy, "policy",
                                                             title="the labelling policy (with --init; board.yaml labels:)")
    add_token_argument(p)
    p.set_defaults(func=partial(run, flags=flags, policy=policy))
