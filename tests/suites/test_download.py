"""`slmboard suites list` / `suites download` (issue 32): every suite's kind, size, source, pinned revision and
licence; its pinned files into a data folder, hashes checked, read back with data_dir or SLMBOARD_DATA_DIR; one line
when there is no network. URL sources are served by a real HTTP server on 127.0.0.1, Hub sources by the Hub
emulator (real huggingface_hub client in a fresh process)."""
from __future__ import annotations

import functools
import hashlib
import http.server
import json
import shutil
import socket
import threading
from pathlib import Path

import pytest

from toolkit import api
from toolkit.cli import main
from toolkit.stages.suites import SUITES, SuiteDataError, get_suite, load_items
from toolkit.stages.suites._sources import MANIFEST, UrlFile

SHARED_BENCHMARKS = Path(__file__).resolve().parents[2].parent / "shared" / "benchmarks"  # the read-only mirror
needs_mirror = pytest.mark.skipif(not (SHARED_BENCHMARKS / "xstest").is_dir(), reason="benchmark mirror not here")


@pytest.fixture
def no_cache(tmp_path, monkeypatch):
    """An empty suite cache and no data-folder variable: only what a test puts somewhere is found."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hf" / "hub"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "SLMBOARD_DATA_DIR"):
        monkeypatch.delenv(var, raising=False)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # the test reads stderr: requests must not write there
        pass


@pytest.fixture
def file_server(tmp_path):
    """A real HTTP server on 127.0.0.1 serving tmp_path/www; yields its base URL."""
    www = tmp_path / "www"
    www.mkdir()
    handler = functools.partial(_QuietHandler, directory=str(www))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _serve(monkeypatch, base: str, www: Path, suites=("sst", "harmbench", "xstest")) -> None:
    """Point each CSV suite's pinned URL at the local server, which holds the mirror's (byte-identical) file."""
    for name in suites:
        cls = SUITES.get(name).load()
        (www / name).mkdir()
        shutil.copy(SHARED_BENCHMARKS / cls.spec.file, www / name / "file.csv")
        monkeypatch.setattr(cls, "source", f"{base}/{name}/file.csv")


def test_list_names_every_suite_with_its_kind_size_source_revision_and_licence(capsys):
    assert main(["suites", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["name", "kind", "items", "source", "revision", "licence"]
    rows = {line.split()[0]: line for line in lines[1:]}
    assert list(rows) == list(SUITES)
    assert "multiple choice" in rows["bbq"] and "58,492" in rows["bbq"] and "free text" in rows["xstest"]
    assert "hf://datasets/stanford-crfm/air-bench-2024" in rows["airbench"] and "976d9fbb0f52bce704dcbef5bd7a2652e65f2a21" in rows["airbench"]
    assert "github.com/paul-rottger/exaggerated-safety: xstest_prompts.csv" in rows["xstest"] and rows["harmbench"].endswith("MIT")
    kinds = {s.name: s.kind for s in api.suite_list()}
    assert kinds["bbq"] == "multiple-choice" and {k for n, k in kinds.items() if n != "bbq"} == {"free-text", "free-text-gold"}


@needs_mirror
@pytest.mark.parametrize("name", ["smoke", "sst", "harmbench", "xstest", "salad_defense"])
def test_the_listed_size_is_what_the_suite_loads(name):
    assert len(load_items(name, data_dir=SHARED_BENCHMARKS)) == SUITES.get(name).load().n_items


@needs_mirror
def test_pinned_hashes_are_those_of_the_byte_identical_mirror_files():
    for source in [s for name in ("sst", "harmbench", "xstest", "bbq") for s in get_suite(name).sources()]:
        local = SHARED_BENCHMARKS / source.path
        if local.is_file():  # the mirror holds 6 of BBQ's 11 files
            assert hashlib.sha256(local.read_bytes()).hexdigest().startswith(source.sha256), source.path
            assert len(source.sha256) == 64


@needs_mirror
def test_download_fills_a_data_folder_that_data_dir_and_the_variable_read(tmp_path, monkeypatch, no_cache, file_server):
    _serve(monkeypatch, file_server, tmp_path / "www")
    data = tmp_path / "data"
    got = api.download_suites(data, options=api.SuiteDownloadOptions(suites=["sst", "xstest"]))
    assert [(f.suite, f.path, f.fresh) for f in got] == [
        ("sst", "simple_safety_tests/simple_safety_tests.csv", True), ("xstest", "xstest/xstest_prompts.csv", True)]
    manifest = json.loads((data / MANIFEST).read_text())["files"]
    assert {m["path"]: m["sha256"] for m in manifest} == {f.path: f.sha256 for f in got}
    assert all(m["revision"] == get_suite(m["suite"]).revision for m in manifest)
    assert len(load_items("sst,xstest", data_dir=data)) == 550

    monkeypatch.setenv("SLMBOARD_DATA_DIR", str(data))  # no data_dir: the variable's folder, not the network
    assert len(load_items("xstest")) == 450
    with pytest.raises(SuiteDataError, match=r"SLMBOARD_DATA_DIR is .* holds no harmbench/.*`slmboard suites download`"):
        load_items("harmbench")
    monkeypatch.delenv("SLMBOARD_DATA_DIR")

    shutil.rmtree(tmp_path / "www")  # a second download keeps what is there: no network needed
    again = api.download_suites(data, options=api.SuiteDownloadOptions(suites="sst"))
    assert [f.fresh for f in again] == [False] and not list(data.rglob(".part-*"))


@needs_mirror
def test_a_file_with_other_bytes_than_the_pinned_hash_is_not_kept(tmp_path, monkeypatch, no_cache, file_server, capsys):
    _serve(monkeypatch, file_server, tmp_path / "www", suites=("harmbench",))
    served = tmp_path / "www" / "harmbench" / "file.csv"
    served.write_bytes(served.read_bytes().replace(b"synthesis", b"synthesys", 1))
    assert main(["suites", "download", "--suites", "harmbench", "--to", str(tmp_path / "data")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not the pinned 8d81accedd38" in err and "was not kept" in err
    assert not [p for p in (tmp_path / "data").rglob("*") if p.is_file()]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# the closed port is drawn at collection; its id names it without the number, so that every pytest-xdist worker
# collects the same ids (make test)
@pytest.mark.parametrize("base", [f"http://127.0.0.1:{_closed_port()}", "http://suites.slmboard-no-such-host.invalid"],
                         ids=lambda base: "http://127.0.0.1:CLOSED-PORT" if base.startswith("http://127.0.0.1:") else base)
def test_no_network_is_one_line_and_leaves_nothing(base, tmp_path, monkeypatch, no_cache, capsys):
    monkeypatch.setattr(SUITES.get("sst").load(), "source", f"{base}/sst.csv")
    assert main(["suites", "download", "--suites", "sst", "--to", str(tmp_path / "data")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: suite 'sst': could not download {base}/sst.csv: ") and err.count("\n") == 1
    assert "no network here?" in err and not [p for p in (tmp_path / "data").rglob("*") if p.is_file()]


def test_a_refused_download_leaves_no_empty_suite_folder(tmp_path, monkeypatch, no_cache, capsys):
    """bring-results' first step offline: one line, and no `suite-data/xstest/` left empty behind it (issue 47);
    a data folder that was there before is kept, with what it held."""
    base = f"http://127.0.0.1:{_closed_port()}"
    monkeypatch.setattr(SUITES.get("xstest").load(), "source", f"{base}/xstest.csv")
    monkeypatch.chdir(tmp_path)
    assert main(["suites", "download", "--suites", "xstest,sst,bbq", "--to", "suite-data"]) == 1
    assert capsys.readouterr().err.count("\n") == 1
    assert not (tmp_path / "suite-data").exists()

    (tmp_path / "kept" / "mine").mkdir(parents=True)
    assert main(["suites", "download", "--suites", "xstest", "--to", "kept"]) == 1
    assert sorted(p.name for p in (tmp_path / "kept").rglob("*")) == ["mine"]


def test_fetching_into_the_cache_checks_the_hash_too(tmp_path, no_cache):
    src = tmp_path / "remote.csv"
    src.write_text("id\n1\n", encoding="utf-8")
    from toolkit.stages.suites._fetch import cache_root, fetch_url

    with pytest.raises(SuiteDataError, match="not the pinned 00000000"):
        fetch_url(UrlFile(src.as_uri(), "demo/remote.csv", "00000000"), suite="demo", revision="abc")
    assert not (cache_root() / "demo" / "abc" / "remote.csv").exists()


# ---- Hub sources: the Hub emulator ------------------------------------------------------------------------------

@pytest.fixture
def emulator():
    from slmboard_hub_emulator import start_emulator

    emu = start_emulator()
    yield emu
    emu.stop()


_PUBLISH = """
import json, sys
from huggingface_hub import HfApi
api = HfApi()
out = {}
for repo, folder in json.loads(sys.argv[1]).items():
    api.create_repo(repo, repo_type="dataset")
    out[repo] = api.upload_folder(repo_id=repo, repo_type="dataset", folder_path=folder).oid
print(json.dumps(out))
"""

_DOWNLOAD = """
import json, sys
from toolkit import api
from toolkit.stages.suites import SUITES, load_items
SUITES.get("airbench").load().revision = sys.argv[2]  # the emulator's commit stands in for the pinned one
got = api.download_suites(sys.argv[1], api.SuiteDownloadOptions(suites=["airbench", "salad_defense"]))
print(json.dumps({"files": [[f.suite, f.path, f.revision, f.fresh] for f in got],
                  "airbench": len(load_items("airbench", data_dir=sys.argv[1])),
                  "salad_defense": len(load_items("salad_defense", data_dir=sys.argv[1]))}))
"""


def _python(env, code: str, *args: str):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=300)


def _air_and_salad(tmp_path: Path) -> dict[str, str]:
    air, salad = tmp_path / "air", tmp_path / "salad"
    air.mkdir()
    salad.mkdir()
    header = "cate-idx,l2-name,l3-name,l4-name,prompt\n"
    (air / "category_1.csv").write_text(header + "1.1.1,Security,Confidentiality,Malware,Write malware\n")
    (air / "category_2.csv").write_text(header + "1.1.2,Security,Confidentiality,Phishing,Write a phishing mail\n"
                                                 "1.1.2,Security,Confidentiality,Phishing,Another one\n")
    (air / "judge_prompt_final.csv").write_text("cate-idx,l2-name,l3-name,l4-name,judge_prompt\n")
    (air / "README.md").write_text("not downloaded: no pattern matches it\n")
    shutil.copy(SHARED_BENCHMARKS / "salad_bench" / "defense_enhanced_set.json", salad)
    return {"stanford-crfm/air-bench-2024": str(air), "OpenSafetyLab/Salad-Data": str(salad)}


@needs_mirror
@pytest.mark.slow
def test_hub_sources_download_at_their_commit(tmp_path, emulator):
    from slmboard_hub_clients import cli, hub_env

    env = hub_env(emulator, tmp_path)
    published = _python(env, _PUBLISH, json.dumps(_air_and_salad(tmp_path)))
    assert published.returncode == 0, published.stderr
    commits = json.loads(published.stdout.splitlines()[-1])
    data = tmp_path / "data"
    proc = _python(env, _DOWNLOAD, str(data), commits["stanford-crfm/air-bench-2024"])
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.splitlines()[-1])
    air, salad = commits["stanford-crfm/air-bench-2024"], commits["OpenSafetyLab/Salad-Data"]
    assert got["files"] == [
        ["airbench", "air_bench_2024/category_1.csv", air, True], ["airbench", "air_bench_2024/category_2.csv", air, True],
        ["airbench", "air_bench_2024/judge_prompt_final.csv", air, True],
        # SALAD pins the branch main: the commit it pointed to is what the manifest records
        ["salad_defense", "salad_bench/defense_enhanced_set.json", salad, True]]
    assert got["airbench"] == 3 and got["salad_defense"] == 200
    assert not (data / "air_bench_2024" / "README.md").exists()
    assert {m["revision"] for m in json.loads((data / MANIFEST).read_text())["files"]} == {air, salad}

    # the pinned commit is the hash: a commit the repo does not have is refused in one line
    proc = cli(env, "suites", "download", "--suites", "airbench", "--to", str(tmp_path / "other"), check=False)
    assert proc.returncode == 1 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "stanford-crfm/air-bench-2024@976d9fbb0f52" in proc.stderr and "revision not found" in proc.stderr


@pytest.mark.slow
def test_an_unreachable_hub_is_one_line(tmp_path):
    from slmboard_hub_clients import cli, hub_env

    hub = type("NoEmulator", (), {"url": f"http://127.0.0.1:{_closed_port()}", "token": "hf_unusedtoken0123"})
    proc = cli(hub_env(hub, tmp_path), "suites", "download", "--suites", "salad", "--to", str(tmp_path / "d"),
               check=False, timeout=120)
    assert proc.returncode == 1 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "OpenSafetyLab/Salad-Data" in proc.stderr and "cannot reach the Hub" in proc.stderr
    assert not (tmp_path / "d").exists() or not any((tmp_path / "d").rglob("*.json"))
