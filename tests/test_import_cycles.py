"""No import cycles in ``src/ascendopt``: read from the sources (ast), not by importing.

* Module-level imports (``if TYPE_CHECKING:`` blocks excepted) form no cycle between modules,
  nor between the top-level packages (``ascendopt.refine`` <-> ``ascendopt.rewind`` was one).
* With the imports made inside functions too, the only cycles are the edges of
  :data:`ALLOWED_LOCAL`, each with its reason; an allowed edge that is gone must leave the list.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

#: Function-local imports that close a cycle, and why they are still there.
ALLOWED_LOCAL: dict[tuple[str, str], str] = {
    ("ascendopt.operator", "ascendopt.backends.sim.opdef_scan"):
        "Operator.load resolves an op type made by a macro once (operator.resolve_op_type), by the "
        "simulator's OpDef scan, which needs an Operator",
    ("ascendopt.cxx.gmptr", "ascendopt.cxx.parallel"): "cxx/parallel* belongs to issue 37's change",
    ("ascendopt.cxx.parallel", "ascendopt.cxx.gmptr"): "cxx/parallel* belongs to issue 37's change",
}


def _modules() -> dict[str, Path]:
    out = {}
    for p in (SRC / "ascendopt").rglob("*.py"):
        parts = list(p.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


MODULES = _modules()


def _resolve(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(mod: str, local: bool) -> set[str]:
    """The ascendopt modules ``mod`` imports at module level (``local``: inside functions)."""
    path = MODULES[mod]
    pkg = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST, in_function: bool) -> None:
        for ch in ast.iter_child_nodes(node):
            if isinstance(ch, ast.If) and "TYPE_CHECKING" in ast.unparse(ch.test):
                continue
            inner = in_function or isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(ch, ast.Import) and inner == local:
                found.update(filter(None, (_resolve(a.name) for a in ch.names)))
            elif isinstance(ch, ast.ImportFrom) and inner == local:
                base = ch.module or ""
                if ch.level:
                    up = pkg
                    for _ in range(ch.level - 1):
                        up = up.rpartition(".")[0]
                    base = up + ("." + base if base else "")
                for a in ch.names:
                    full = f"{base}.{a.name}"
                    target = full if full in MODULES else _resolve(base)
                    if target:
                        found.add(target)
            visit(ch, inner)

    visit(ast.parse(path.read_text()), False)
    return {m for m in found if m.startswith("ascendopt") and m != mod}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
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
    return out


def _packages(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    top = lambda m: ".".join(m.split(".")[:2])  # noqa: E731
    out: dict[str, set[str]] = {}
    for m, targets in graph.items():
        out.setdefault(top(m), set()).update(top(t) for t in targets if top(t) != top(m))
    return out


MODULE_LEVEL = {m: _imports(m, False) for m in MODULES}
LOCAL = {m: _imports(m, True) for m in MODULES}


def test_no_module_level_import_cycle():
    assert _cycles(MODULE_LEVEL) == []


def test_no_package_level_import_cycle():
    assert _cycles(_packages(MODULE_LEVEL)) == []


def test_function_local_imports_close_no_cycle_but_the_allowed_ones():
    graph = {m: MODULE_LEVEL[m] | {t for t in LOCAL[m] if (m, t) not in ALLOWED_LOCAL} for m in MODULES}
    assert _cycles(graph) == []


def test_every_allowed_local_import_still_exists():
    assert [e for e in ALLOWED_LOCAL if e[1] not in LOCAL.get(e[0], set())] == []


def test_the_walker_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
