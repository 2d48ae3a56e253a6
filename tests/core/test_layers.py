"""The layering: the folder tree is the layers (issue 33); no import cycles; a typed API."""
from __future__ import annotations

import ast
import functools
import inspect
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _parse(path: Path) -> ast.Module:
    """ast.parse, tried again on CPython 3.11's spurious "AST constructor recursion depth mismatch" (python/cpython
    #106905): the AST builder's depth counter is shared by threads, and a server thread another test of this worker
    left running can parse at the same moment. The error says nothing about the file."""
    source = path.read_text(encoding="utf-8")
    for attempt in range(5):
        try:
            return ast.parse(source, filename=str(path))
        except SystemError as e:
            if "recursion depth mismatch" not in str(e) or attempt == 4:
                raise
    raise AssertionError("unreachable")


def _imports(path: Path, name: str) -> set[str]:
    """Every module ``path`` imports, at any depth of the file: function-local and TYPE_CHECKING imports count, and so
    does an import_module call on a literal name."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(_parse(path)):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            target = (f"{base}.{node.module}" if node.module else base) if node.level else node.module
            # `from pkg import mod` names a module when mod is one; otherwise it imports from pkg itself.
            for alias in node.names:
                out.add(f"{target}.{alias.name}")
            out.add(target)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) in (
                "import_module", "__import__") and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            out.add(node.args[0].value)  # importlib.import_module("toolkit.api") is an import too
    return out


def import_graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for d in ("toolkit", "schemas") for p in (ROOT / d).rglob("*.py")}
    graph = {}
    for name, path in files.items():
        # A package's __init__ is "the package's face": edges into it are edges to the names it re-exports.
        graph[name] = {t for t in _imports(path, name) if t in files and t != name and not files[t].name == "__init__.py"}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iteration-free recursion is fine here)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles_between_modules():
    assert cycles(import_graph()) == []


def test_cycle_finder_finds_a_planted_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_generation_imports_no_judging_and_reading_no_publishing():
    graph = import_graph()
    gen = {m for m in graph if m.startswith("toolkit.stages.generation")}
    assert not {t for m in gen for t in graph[m] if t.startswith("toolkit.stages.judging")}
    for leaf in ("toolkit.data.validation", *(m for m in graph if m.startswith("toolkit.data.reading"))):
        assert not {t for t in graph[leaf] if t.startswith("toolkit.outputs.publishing")}, leaf
#: The layers, bottom to top (docs/ARCHITECTURE.md): the folder a module lives in is its layer. The rule, checked on
#: every run: a module imports only modules of its own layer or of a layer below; inside a layer, the units (its
#: packages and modules) import each other without a circle. The Space is a layer of its own, between the workflows
#: and the API: it never imports toolkit.api, the commands or the CLI; what starts it (space.launcher) is called from
#: above. toolkit.testing (what tests and benches share) sits on top: nothing of the product imports it.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("records", ("schemas",)),
    ("core", ("toolkit", "toolkit.core")),  # ``toolkit`` itself: its __init__, the version
    ("data", ("toolkit.data",)),
    ("stages", ("toolkit.stages",)),
    ("outputs", ("toolkit.outputs",)),
    ("workflows", ("toolkit.workflows",)),
    ("space", ("space",)),
    ("api", ("toolkit.api",)),
    ("commands", ("toolkit.cli", "toolkit.commands")),
    ("testing", ("toolkit.testing",)),
]
#: One rule inside the face: every command goes through the typed API (the one door), and prints tables the one way.
COMMANDS_MAY_IMPORT = ("toolkit", "toolkit.api", "toolkit.outputs.terminal")


def layer_of(module: str) -> int:
    """Index into LAYERS of the longest prefix that names ``module``'s folder."""
    best, found = -1, None
    for i, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, found = len(prefix), i
    if found is None:
        raise AssertionError(f"{module} lies in no layer: move it into one of {[p for _, ps in LAYERS for p in ps]}")
    return found


def part_of(module: str) -> str:
    """A module's top-level part, read from its folder alone: ``schemas``, ``space``, or ``toolkit/<first folder or
    module>`` (the CLI is one part with the commands; ``toolkit`` itself, the version, is the core's). Apart from
    LAYERS on purpose: two folders put in one layer (as the outputs and the Space once were) still are two parts
    here, so a cycle between them cannot hide, and a new folder is a part of its own."""
    head, *rest = module.split(".")
    if head != "toolkit":
        return head
    return "toolkit/" + {"cli": "commands"}.get(rest[0], rest[0]) if rest else "toolkit/core"


def unit_of(module: str) -> str:
    """A module's unit inside its layer: the first folder or module below the layer's folder."""
    for _, prefixes in LAYERS:
        for prefix in sorted(prefixes, key=len, reverse=True):
            if prefix != "toolkit" and (module == prefix or module.startswith(prefix + ".")):
                rest = module[len(prefix) + 1:].split(".")[0] if module != prefix else ""
                return f"{prefix}.{rest}" if rest else prefix
    return module


def full_import_graph() -> dict[str, set[str]]:
    """Module -> modules of ours it imports (a package's __init__ counts: importing a package's face imports it).
    A fresh copy each call: tests plant edges in theirs."""
    return {name: set(targets) for name, targets in _full_import_graph().items()}


@functools.lru_cache(maxsize=1)
def _full_import_graph() -> dict[str, frozenset[str]]:
    files = {_module_name(p): p for d in ("toolkit", "schemas", "space") for p in (ROOT / d).rglob("*.py")}
    return {name: frozenset(t for t in _imports(path, name) if t in files and t != name) for name, path in files.items()}


def layer_violations(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """(module, imported module) pairs that break the rule: an import up a layer, a command past the API."""
    out = set()
    for module, targets in graph.items():
        for target in targets:
            if layer_of(target) > layer_of(module):
                out.add((module, target))
            elif module.startswith("toolkit.commands.") and not target.startswith("toolkit.commands") \
                    and target not in COMMANDS_MAY_IMPORT:
                out.add((module, target))
    return out


def unit_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Circles between the units of one layer (e.g. stages.judging -> stages.generation -> stages.judging)."""
    units: dict[str, set[str]] = {}
    for module, targets in graph.items():
        u = unit_of(module)
        units.setdefault(u, set()).update(unit_of(t) for t in targets
                                           if layer_of(t) == layer_of(module) and unit_of(t) != u)
    return cycles(units)


def _shortest_cycle(graph: dict[str, set[str]], start: str, allowed: set[str]) -> list[str]:
    """The shortest path start -> ... -> start inside ``allowed`` (breadth first); [] when there is none."""
    paths, seen = [[start]], {start}
    while paths:
        path = paths.pop(0)
        for nxt in sorted(graph.get(path[-1], ())):
            if nxt == start:
                return path
            if nxt in allowed and nxt not in seen:
                seen.add(nxt)
                paths.append(path + [nxt])
    return []


def part_cycles(graph: dict[str, set[str]]) -> list[str]:
    """One line per cycle between top-level parts, naming the module imports that form it, e.g.
    "space -> toolkit/outputs (space.request_form imports toolkit.outputs.requests) -> space (toolkit.outputs.x
    imports space.app)": for every part caught in a cycle, the shortest cycle through it."""
    edges: dict[tuple[str, str], list[str]] = {}
    for module, targets in graph.items():
        for target in targets:
            a, b = part_of(module), part_of(target)
            if a != b:
                edges.setdefault((a, b), []).append(f"{module} imports {target}")
    parts: dict[str, set[str]] = {}
    for a, b in edges:
        parts.setdefault(a, set()).add(b)
    out: dict[frozenset, str] = {}
    for component in cycles(parts):
        for start in component:
            ring = _shortest_cycle(parts, start, set(component))
            key = frozenset(zip(ring, ring[1:] + ring[:1]))
            if ring and key not in out:
                i = ring.index(min(ring))  # one spelling per cycle, whichever part it was found from
                ring = ring[i:] + ring[:i]
                hops = []
                for a, b in zip(ring, ring[1:] + ring[:1]):
                    why = sorted(edges[a, b])
                    hops.append(f"{b} ({', '.join(why[:3])}{f' and {len(why) - 3} more' if len(why) > 3 else ''})")
                out[key] = f"{ring[0]} -> " + " -> ".join(hops)
    return sorted(out.values())


def test_every_module_lies_in_a_layer_and_a_part():
    for module in full_import_graph():
        layer_of(module)
        part_of(module)


def test_imports_follow_the_layers():
    found = layer_violations(full_import_graph())
    assert not found, "imports against the layers (module -> imported): " + ", ".join(f"{a} -> {b}" for a, b in sorted(found))


def test_no_circle_between_the_units_of_a_layer():
    assert unit_cycles(full_import_graph()) == []


def test_no_cycle_between_the_top_level_parts():
    found = part_cycles(full_import_graph())
    assert not found, "cycles between top-level folders: " + " | ".join(found)


def test_the_space_imports_only_what_lies_below_it():
    graph = full_import_graph()
    found = sorted(f"{m} imports {t}" for m, ts in graph.items() if m.split(".")[0] == "space" for t in ts
                   if t.startswith(("toolkit.api", "toolkit.commands", "toolkit.cli", "toolkit.testing")))
    assert not found, found
    below = {part_of(t) for m, ts in graph.items() if m.split(".")[0] == "space" for t in ts} - {"space"}
    assert below <= {"schemas", "toolkit/core", "toolkit/data", "toolkit/stages", "toolkit/outputs", "toolkit/workflows"}
    # and nothing below it starts it: the launcher is called from the API
    assert not [m for m, ts in graph.items() if layer_of(m) < layer_of("space") and any(t.startswith("space") for t in ts)]


def test_the_rule_finds_a_planted_wrong_way_import():
    graph = full_import_graph()
    graph["toolkit.stages.generation.runner"] = graph["toolkit.stages.generation.runner"] | {"toolkit.outputs.publishing.submit"}
    graph["toolkit.commands.rank"] = graph["toolkit.commands.rank"] | {"toolkit.data.scoring.leaderboard"}
    graph["toolkit.core.errors"] = graph["toolkit.core.errors"] | {"toolkit.api"}
    graph["space.data"] = graph["space.data"] | {"toolkit.api"}
    assert layer_violations(graph) == {("toolkit.stages.generation.runner", "toolkit.outputs.publishing.submit"),
                                       ("toolkit.commands.rank", "toolkit.data.scoring.leaderboard"),
                                       ("toolkit.core.errors", "toolkit.api"), ("space.data", "toolkit.api")}


def test_the_rule_finds_a_planted_circle_inside_a_layer():
    graph = full_import_graph()
    graph["toolkit.stages.suites.base"] = graph.get("toolkit.stages.suites.base", set()) | {"toolkit.stages.importing.base"}
    assert unit_cycles(full_import_graph()) == []
    assert any({"toolkit.stages.importing", "toolkit.stages.suites"} <= set(c) for c in unit_cycles(graph))


def test_a_planted_cycle_between_folders_is_found_and_named():
    """The cycle of issue 42: the outputs started the Space (space.app) while the Space's request form imported
    toolkit.outputs.requests. Found even were both folders one layer (part_of, not LAYERS, draws this graph)."""
    graph = full_import_graph()
    graph["toolkit.outputs.reviewing"] = graph["toolkit.outputs.reviewing"] | {"space.app"}
    found = part_cycles(graph)
    assert len(found) == 1 and found[0].startswith("space -> toolkit/outputs (") \
        and "space.request_form imports toolkit.outputs.requests" in found[0] \
        and found[0].endswith(" -> space (toolkit.outputs.reviewing imports space.app)"), found


def test_few_loose_modules_at_the_top():
    loose = sorted(p.name for p in (ROOT / "toolkit").glob("*.py"))
    assert len(loose) <= 5, loose


def test_a_planted_import_in_a_file_is_found(tmp_path):
    """The parser sees lazy imports inside functions, TYPE_CHECKING ones and literal import_module calls too."""
    planted = tmp_path / "m.py"
    planted.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import toolkit.api\n"
                       "def f():\n    from ..judging import make_judge\n    import importlib\n"
                       "    return make_judge, importlib.import_module('toolkit.cli')\n")
    found = _imports(planted, "toolkit.stages.generation.m")
    assert {"toolkit.stages.judging", "toolkit.api", "toolkit.cli"} <= found, found


def test_every_api_function_is_typed_and_exported():
    from toolkit import api

    assert "agreement" in api.__all__
    for name in api.__all__:
        obj = getattr(api, name)
        if not inspect.isfunction(obj):
            continue
        sig = inspect.signature(obj)
        assert sig.return_annotation is not inspect.Signature.empty, f"api.{name} declares no return type"
        untyped = [p.name for p in sig.parameters.values() if p.annotation is inspect.Parameter.empty]
        assert not untyped, f"api.{name}: untyped parameter(s) {untyped}"
    assert "globals()" not in inspect.getsource(api)


def test_validating_a_run_loads_no_publishing_module(tmp_path):
    from slmboard_testing import make_run

    run = make_run(tmp_path / "run")
    code = ("import sys; from toolkit import api; assert api.validate(sys.argv[1]).ok; "
            "print(sorted(m for m in sys.modules if m.startswith('toolkit.outputs.publishing')))")
    out = subprocess.run([sys.executable, "-c", code, str(run)], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


def test_a_command_loads_only_what_it_runs(tmp_path):
    """`slmboard validate` (and `--help`) build only their own parser: no stage package is imported for the
    flags of commands that are not run."""
    from slmboard_testing import make_run

    run = make_run(tmp_path / "run")
    code = ("import sys; from toolkit.cli import main; rc = main(['validate', sys.argv[1]]); "
            "print(rc, sorted(m for m in sys.modules if m.startswith(('toolkit.stages', 'toolkit.outputs', "
            "'toolkit.workflows', 'toolkit.commands.'))))")
    out = subprocess.run([sys.executable, "-c", code, str(run)], capture_output=True, text=True, cwd=ROOT, check=True)
    rc, loaded = out.stdout.strip().splitlines()[-1].split(" ", 1)
    assert rc == "0" and loaded == "['toolkit.commands.validate']", out.stdout  # no stage or output module
