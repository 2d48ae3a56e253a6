"""Layering rules of issue 15 §4: no import cycles, a typed API, leaf modules stay leaves."""
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
    gen = {m for m in graph if m.startswith("toolkit.generation")}
    assert not {t for m in gen for t in graph[m] if t.startswith("toolkit.judging")}
    for leaf in ("toolkit.validation", *(m for m in graph if m.startswith("toolkit.reading"))):
        assert not {t for t in graph[leaf] if t.startswith("toolkit.publishing")}, leaf


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
            "print(sorted(m for m in sys.modules if m.startswith('toolkit.publishing')))")
    out = subprocess.run([sys.executable, "-c", code, str(run)], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"
