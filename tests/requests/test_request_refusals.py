"""Each request a board's policy does not take is refused in one line, and nothing is written."""
from __future__ import annotations

import pytest

from slmboard_hub_clients import client, hub_env
from slmboard_requests_hub import RECIPE, make_board

pytestmark = pytest.mark.slow

REFUSALS = """
    import json
    from huggingface_hub import HfApi
    from toolkit import api
    from toolkit.core.errors import SlmboardError

    hub = HfApi()
    def heads():
        return [hub.dataset_info(d).sha for d in ("org/strict", "org/strict-requests")]

    out = {{}}
    api.request_evaluation("org/tiny", to="org/strict")  # the one accepted: the rate is now used up
    for name, model in {cases!r}:
        before = heads()
        try:
            api.request_evaluation(model, to="org/strict")
            out[name] = None
        except SlmboardError as exc:
            out[name] = {{"type": type(exc).__name__, "message": str(exc), "written": heads() != before}}
    print(json.dumps(out))
"""

CASES = [("missing", "org/nope"), ("gated", "org/gated"), ("private", "org/private-tiny"),
         ("no template", "org/no-template"), ("remote code", "org/remote-code"), ("duplicate", "org/tiny"),
         ("bad id", "../etc/passwd"), ("markup", "org/<script>"), ("unknown revision", "org/tiny@nope"),
         ("rate", "org/tiny-b")]


def test_each_refused_request_is_one_line_and_writes_nothing(hub, tmp_path):
    emu, _ = hub
    env = hub_env(emu, tmp_path)
    make_board(env, "org/strict", {**RECIPE, "requests": {"per_user_per_day": 1}})
    make_board(env, "org/strict-big", {**RECIPE, "requests": {"max_params": 100_000}})
    got = client(env, REFUSALS.format(cases=CASES))
    expected = {"missing": "not found", "gated": "gated", "private": "private", "no template": "no chat template",
                "remote code": "needs its own code (auto_map in config.json)", "duplicate": "already requested",
                "bad id": "not a Hub model id", "markup": "not a Hub model id", "unknown revision": "revision",
                "rate": "filed 1 request in the last 24 hours"}
    for name, needle in expected.items():
        refused = got[name]
        assert refused is not None, f"{name}: accepted"
        assert needle in refused["message"] and "\n" not in refused["message"], (name, refused)
        assert not refused["written"], name
    assert got["rate"]["type"] == got["remote code"]["type"] == "RequestRefused"

    big = client(env, """
        import json
        from toolkit import api
        try:
            api.request_evaluation("org/tiny", to="org/strict-big")
        except Exception as exc:
            print(json.dumps({"message": str(exc)}))
    """)
    assert "parameters; this board takes at most 100,000" in big["message"], big


def test_a_user_who_may_not_write_files_a_pull_request_that_a_worker_claims(hub, tmp_path):
    """The filer's token may not write to the requests dataset (HTTP 403): the request is opened as a pull
    request, listed and counted as a request, and a worker's claim adopts it onto the main branch."""
    emu, _ = hub
    env = hub_env(emu, tmp_path)
    make_board(env, "org/proposals", RECIPE)
    got = client(env, f"""
        import json, urllib.request
        from toolkit import api
        from toolkit.core.errors import RequestRefused
        from toolkit.workflows.requests import RequestsStore, WorkerOptions, read_board
        from toolkit.workflows.requests.worker import claim
        rule = {{"status": 403, "path_prefix": "/api/datasets/org/proposals-requests/commit", "method": "POST", "times": 1}}
        urllib.request.urlopen(urllib.request.Request({emu.url!r} + "/_emulator/fail", json.dumps(rule).encode(),
                                                      {{"Content-Type": "application/json"}})).read()
        filed = api.request_evaluation("org/tiny-b", to="org/proposals")
        try:
            api.request_evaluation("org/tiny-b", to="org/proposals")
            again = None
        except RequestRefused as exc:
            again = str(exc)
        listed = [r.model_dump(mode="json") for r in api.list_requests("org/proposals")]
        side = read_board("org/proposals")
        store = RequestsStore(side.requests_dataset)
        claimed, reclaimed = claim(store, side, WorkerOptions(name="w1"))
        on_main = store.snapshot(with_pull_requests=False).requests[claimed.path].model_dump(mode="json")
        from huggingface_hub import HfApi
        pr = HfApi().get_discussion_details("org/proposals-requests", 1, repo_type="dataset")
        comments = [e.content for e in pr.events if e.type == "comment"]
        after = [r.model_dump(mode="json") for r in api.list_requests("org/proposals")]
        print(json.dumps({{"pr": filed.pull_request_url, "again": again, "listed": listed, "on_main": on_main,
                          "pr_status": pr.status, "comments": comments, "after": after}}))
    """)
    assert got["pr"] and got["pr"].endswith("/discussions/1")
    assert "already requested (pull request #1), pending" in got["again"]
    (listed,) = got["listed"]
    assert listed["status"] == "pending" and listed["pull_request"] == 1 and listed["model"] == "org/tiny-b"
    on_main = got["on_main"]
    assert on_main["status"] == "running" and on_main["worker"] == "w1" and on_main["pull_request"] == 1
    assert "claimed by w1 from pull request #1" in on_main["log"][-1]
    # the adopted pull request is closed, saying where the request went; the queue lists it once
    assert got["pr_status"] == "closed" and any("Adopted onto the main branch" in c for c in got["comments"]), got
    assert [(r["model"], r["status"]) for r in got["after"]] == [("org/tiny-b", "running")]


def test_claims_of_one_request_at_once_land_once(hub, tmp_path):
    """Four workers claim at the same moment (threads, a slow commit widening the race): one claim lands, the
    others are refused by the Hub (the commit names the parent it read), read again and find nothing to do."""
    emu, _ = hub
    env = hub_env(emu, tmp_path)
    make_board(env, "org/race", RECIPE)
    got = client(env, """
        import json, threading
        from toolkit import api
        from toolkit.workflows.requests import RequestsStore, WorkerOptions, read_board
        from toolkit.workflows.requests.worker import claim
        api.request_evaluation("org/tiny", to="org/race")
        side = read_board("org/race")
        barrier, results = threading.Barrier(4), {}
        def go(name):
            store = RequestsStore(side.requests_dataset)
            barrier.wait()
            got = claim(store, side, WorkerOptions(name=name))
            results[name] = got[0].worker if got else None
        threads = [threading.Thread(target=go, args=(f"w{i}",)) for i in range(4)]
        [t.start() for t in threads]
        [t.join() for t in threads]
        (request,) = api.list_requests("org/race")
        print(json.dumps({"results": results, "worker": request.worker, "attempts": request.attempts}))
    """)
    winners = [name for name, won in got["results"].items() if won]
    assert len(winners) == 1 and got["worker"] == winners[0] and got["attempts"] == 1, got


def test_a_board_that_names_licences_takes_only_models_whose_card_declares_one(hub, tmp_path):
    """requests.licenses in board.yaml: the model card's `license` must be one of them; a card that declares
    another, or no card, is refused in one line and nothing is written."""
    emu, home = hub
    env = hub_env(emu, tmp_path)
    make_board(env, "org/licensed", {**RECIPE, "requests": {"licenses": ["apache-2.0", "mit"]}})
    got = client(env, f"""
        import json, shutil
        from pathlib import Path
        from huggingface_hub import HfApi
        from toolkit import api
        from toolkit.core.errors import RequestRefused
        hub = HfApi()
        for repo, licence in (("org/apache-tiny", "apache-2.0"), ("org/other-tiny", "other")):
            folder = Path({str(tmp_path)!r}) / repo.replace("/", "__")
            shutil.copytree({str(home / "base")!r}, folder)
            (folder / "README.md").write_text(f"---\\nlicense: {{licence}}\\n---\\n# tiny\\n")
            hub.create_repo(repo, repo_type="model")
            hub.upload_folder(repo_id=repo, repo_type="model", folder_path=str(folder))
        out = {{}}
        for model in ("org/other-tiny", "org/tiny", "org/apache-tiny"):
            before = hub.dataset_info("org/licensed-requests").sha
            try:
                api.request_evaluation(model, to="org/licensed")
                out[model] = {{"accepted": True}}
            except RequestRefused as exc:
                out[model] = {{"message": str(exc), "written": hub.dataset_info("org/licensed-requests").sha != before}}
        print(json.dumps(out))
    """)
    assert got["org/apache-tiny"] == {"accepted": True}
    for model, licence in (("org/other-tiny", "other"), ("org/tiny", "not declared")):
        refused = got[model]
        assert f"licence {licence}; this board takes apache-2.0, mit" in refused["message"], refused
        assert "\n" not in refused["message"] and not refused["written"], refused


def test_a_failed_request_filed_again_keeps_why_it_failed(hub, tmp_path):
    """A request whose evaluation failed may be filed again; the new request (pending) keeps the failed one's
    log and attempts (the file is the same path, so writing it afresh would erase why it failed)."""
    emu, _ = hub
    env = hub_env(emu, tmp_path)
    make_board(env, "org/retry", RECIPE)
    got = client(env, """
        import json
        from toolkit import api
        from toolkit.workflows.requests import RequestsStore, read_board
        filed = api.request_evaluation("org/tiny", to="org/retry")
        store = RequestsStore(read_board("org/retry").requests_dataset)
        snap = store.snapshot()
        (request,) = snap.requests.values()
        failed = request.noted("failed: out of memory", status="failed", reason="out of memory", attempts=2)
        store.write([failed], snap.head, "as a worker closes a failed request")
        again = api.request_evaluation("org/tiny", to="org/retry")
        (now,) = api.list_requests("org/retry")
        print(json.dumps(now.model_dump(mode="json")))
    """)
    assert got["status"] == "pending" and got["attempts"] == 2, got
    events = [line.split(" ", 1)[1] for line in got["log"]]  # each line: "<UTC time> <event>"
    assert events == ["filed by emulator-user", "failed: out of memory", "filed by emulator-user"], got["log"]
