"""Every import the package and the suites' goldens make is declared in pyproject.toml (issue 36).

A module that imports an undeclared distribution works on a machine that happens to have it
and fails for the next user (scipy in the cann-ops goldens did). Two checks: every module
under ``src/ascendopt`` and ``suites/`` imports in a fresh interpreter of this environment, and
every top-level name any of them imports, at module level or inside a function, is the
standard library's, the package's own, or provided by a distribution that ``pyproject.toml``
declares (in the core dependencies or an extra); the tests' own imports too, but for their
helper modules (``tests``, benchmark scripts) and the fixtures, which stand in for user code.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [ROOT / "src" / "ascendopt", ROOT / "suites"]
TESTS = ROOT / "tests"
#: Modules the tests import from the repository itself (``sys.path`` additions).
LOCAL = {"tests", "ascendopt", "__future__"} | {p.stem for p in (ROOT / "benchmarks").glob("*.py")}

_IMPORT_ALL = r"""
import importlib, pkgutil, runpy, sys
import ascendopt
bad = []
for m in pkgutil.walk_packages(ascendopt.__path__, "ascendopt."):
    try:
        importlib.import_module(m.name)
    except Exception as e:
        bad.append(f"{m.name}: {type(e).__name__}: {e}")
for path in sys.argv[1:]:
    try:
        runpy.run_path(path)
    except Exception as e:
        bad.append(f"{path}: {type(e).__name__}: {e}")
print("\n".join(bad))
sys.exit(1 if bad else 0)
"""


def _py_files() -> list[Path]:
    return sorted(p for d in SOURCES for p in d.rglob("*.py"))


def _test_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if TESTS / "fixtures" not in p.parents)


def _norm(dist: str) -> str:
    return re.sub(r"[-_.]+", "-", dist).lower()


def _declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        reqs += extra
    return {_norm(re.match(r"[A-Za-z0-9_.\-]+", r).group(0)) for r in reqs}


def _imported_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_every_module_imports_in_a_fresh_interpreter():
    goldens = [str(p) for p in _py_files() if ROOT / "suites" in p.parents]
    r = subprocess.run([sys.executable, "-c", _IMPORT_ALL, *goldens], capture_output=True, text=True,
                       cwd=ROOT, timeout=600)
    assert r.returncode == 0, f"modules that do not import here:\n{r.stdout}{r.stderr}"


def test_every_imported_distribution_is_declared():
    provides = importlib.metadata.packages_distributions()
    declared = _declared()
    undeclared = []
    for path in _py_files() + _test_files():
        for name in sorted(_imported_names(path)):
            if name in sys.stdlib_module_names or name in LOCAL:
                continue
            dists = {_norm(d) for d in provides.get(name, [])}
            if not dists & declared:
                undeclared.append(f"{path.relative_to(ROOT)}: imports {name!r} "
                                  f"({', '.join(sorted(dists)) or 'no installed distribution provides it'})")
    assert not undeclared, "imports that pyproject.toml does not declare:\n" + "\n".join(undeclared)


def test_the_check_sees_an_undeclared_import(tmp_path):
    """The scan reads imports inside functions too (the goldens import scipy lazily)."""
    src = tmp_path / "m.py"
    src.write_text("def f():\n    from scipy.special import erf\n    import numpy.linalg\n")
    assert _imported_names(src) == {"scipy", "numpy"}
