"""The layering: the folder tree is the layers (issue 33); no import cycles; a typed API."""
from __future__ import annotations

import ast
import inspect
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, name: str) -> set[str]:
    """Every toolkit/schemas module ``path`` imports, at any depth of the file (lazy imports count)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
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
#: packages and modules) import each other without a circle.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("records", ("schemas",)),
    ("core", ("toolkit", "toolkit.core")),  # ``toolkit`` itself: its __init__, the version
    ("data", ("toolkit.data",)),
    ("stages", ("toolkit.stages",)),
    ("outputs", ("toolkit.outputs", "space")),
    ("workflows", ("toolkit.workflows",)),
    ("face", ("toolkit.api", "toolkit.cli", "toolkit.commands")),
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


def unit_of(module: str) -> str:
    """A module's unit inside its layer: the first folder or module below the layer's folder."""
    for _, prefixes in LAYERS:
        for prefix in sorted(prefixes, key=len, reverse=True):
            if prefix != "toolkit" and (module == prefix or module.startswith(prefix + ".")):
                rest = module[len(prefix) + 1:].split(".")[0] if module != prefix else ""
                return f"{prefix}.{rest}" if rest else prefix
    return module


def full_import_graph() -> dict[str, set[str]]:
    """Module -> modules of ours it imports (a package's __init__ counts: importing a package's face imports it)."""
    files = {_module_name(p): p for d in ("toolkit", "schemas", "space") for p in (ROOT / d).rglob("*.py")}
    return {name: {t for t in _imports(path, name) if t in files and t != name} for name, path in files.items()}


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


def test_every_module_lies_in_a_layer():
    for module in full_import_graph():
        layer_of(module)


def test_imports_follow_the_layers():
    found = layer_violations(full_import_graph())
    assert not found, "imports against the layers (module -> imported): " + ", ".join(f"{a} -> {b}" for a, b in sorted(found))


def test_no_circle_between_the_units_of_a_layer():
    assert unit_cycles(full_import_graph()) == []


def test_the_rule_finds_a_planted_wrong_way_import():
    graph = full_import_graph()
    graph["toolkit.stages.generation.runner"] = graph["toolkit.stages.generation.runner"] | {"toolkit.outputs.publishing.submit"}
    graph["toolkit.commands.rank"] = graph["toolkit.commands.rank"] | {"toolkit.data.scoring.leaderboard"}
    graph["toolkit.core.errors"] = graph["toolkit.core.errors"] | {"toolkit.api"}
    assert layer_violations(graph) == {("toolkit.stages.generation.runner", "toolkit.outputs.publishing.submit"),
                                       ("toolkit.commands.rank", "toolkit.data.scoring.leaderboard"),
                                       ("toolkit.core.errors", "toolkit.api")}


def test_the_rule_finds_a_planted_circle_inside_a_layer():
    graph = full_import_graph()
    graph["toolkit.stages.suites.base"] = graph.get("toolkit.stages.suites.base", set()) | {"toolkit.stages.importing.base"}
    assert unit_cycles(full_import_graph()) == []
    assert any({"toolkit.stages.importing", "toolkit.stages.suites"} <= set(c) for c in unit_cycles(graph))


def test_few_loose_modules_at_the_top():
    loose = sorted(p.name for p in (ROOT / "toolkit").glob("*.py"))
    assert len(loose) <= 5, loose


def test_a_planted_import_in_a_file_is_found(tmp_path):
    """The parser sees lazy imports inside functions too."""
    planted = tmp_path / "m.py"
    planted.write_text("def f():\n    from ..judging import make_judge\n    return make_judge\n")
    assert "toolkit.stages.judging" in _imports(planted, "toolkit.stages.generation.m")


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
