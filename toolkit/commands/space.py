"""slmboard space deploy: create or update the leaderboard's Gradio Space on the Hub."""
from __future__ import annotations

import argparse

from . import add_token_argument, services_of


def run_deploy(a) -> int:
    from toolkit import api

    r = api.deploy_space(a.space, a.data, api.DeploySpaceOptions(private=a.private), services_of(a))
    if r.commit:
        print(f"committed {len(r.changed)} changed and {len(r.deleted)} removed file(s) to {r.space_id} ({r.commit[:12]})")
    else:
        print(f"{r.space_id} is up to date: no commit")
    if r.variable_set:
        print(f"set Space variable SLMBOARD_DATA={a.data}")
    if r.token_secret:
        # deploy has already stored the token as the secret: say so, never ask the user to do it again
        print(f"stored the deploying token as the Space secret HF_TOKEN: {a.data} is private or gated, and the Space "
              "reads it with that token (nothing more to do)")
    print(r.url)
    return 0


def register(p: argparse.ArgumentParser) -> None:
    ssub = p.add_subparsers(dest="space_command", required=True, metavar="ACTION", help="what to do with the Space")
    d = ssub.add_parser("deploy", help="create or update the Gradio Space (app files, SLMBOARD_DATA, HF_TOKEN secret when "
                                       "the dataset is gated/private); idempotent")
    d.add_argument("space", metavar="ORG/SPACE", help="the Space to create or update")
    d.add_argument("--data", required=True, metavar="ORG/DATASET", help="the Hub dataset the Space shows")
    d.add_argument("--private", action="store_true", help="make the Space private")
    add_token_argument(d)
    d.set_defaults(func=run_deploy)
