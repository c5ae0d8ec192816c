"""Operator collections: ``own`` (this project's ``ops/``), a suite manifest, or a directory.

A **suite manifest** (TOML, ``format = 1``) describes operators that live outside this
repository (e.g. a cann-ops checkout) and is resolved against ``--src PATH``::

    format = 1
    name = "cannops"
    description = "..."
    source = "where the operators come from (what --src points at)"

    [[op]]
    dir = "math/abs"                  # operator directory, relative to --src
    level = 1                         # 1-3
    golden = "goldens/math.py:abs_"   # FILE.py:FUNC, relative to the manifest
    cases = ["cases/abs.json"]        # our case files, relative to the manifest (optional)
    own_cases = true                  # also the operator's own tests/st/*.json (default true)
    benchmark = ["abs_bench_f32"]     # names of the (large) cases that are timed (optional)
    soc = "Ascend910B4"               # the SoC the operator is written for (optional; it wins
                                      # over --soc: e.g. tiling arrays sized for 40 vector cores)

``--suite`` takes ``own``, the name of a shipped suite (``suites/<name>/suite.toml``), a
manifest file, or a directory (every operator directory under it: one holding both
``op_host/`` and ``op_kernel/``, sorted).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

#: The project's own corpus (``ops/`` beside ``src/`` in a checkout).
OWN_OPS = Path(__file__).resolve().parents[2] / "ops"
#: Shipped suite manifests (``suites/<name>/suite.toml``).
SUITES_DIR = Path(__file__).resolve().parents[2] / "suites"
MANIFEST_NAME = "suite.toml"
FORMAT_VERSION = 1


class SuiteError(ValueError):
    """Unknown suite name, a malformed manifest, or a path with no operators."""


@dataclass(frozen=True)
class SuiteOp:
    """One operator of a suite.

    Attributes:
        dir: The operator directory (resolved).
        level: 1-3 (0 when the suite does not say).
        golden: ``/abs/FILE.py:FUNC`` overriding the case files' goldens (None: theirs).
        cases: Our case files (resolved paths).
        own_cases: Whether the operator's own ``tests/st/*.json`` are loaded too.
        benchmark: Names of the cases that are timed (empty: the evaluator's default).
        soc: The SoC the operator is written for (None: the caller's choice).
    """

    dir: Path
    level: int = 0
    golden: str | None = None
    cases: tuple[Path, ...] = ()
    own_cases: bool = True
    benchmark: tuple[str, ...] = ()
    soc: str | None = None

    @property
    def name(self) -> str:
        return self.dir.name

    def load_cases(self, names: list[str] | None = None):
        """The operator's cases as the suite defines them (``names``: only these).

        Raises:
            CaseError: A case file or the golden does not load, or an unknown name.
        """
        from ascendopt.cases import CaseError, load_op_cases

        cases = load_op_cases(self.dir, self.cases, self.golden, own=self.own_cases)
        if names:
            known = {c.name for c in cases}
            bad = [n for n in names if n not in known]
            if bad:
                raise CaseError(f"unknown case(s) {', '.join(bad)}; available: {', '.join(sorted(known))}")
            cases = [c for c in cases if c.name in names]
        return cases


@dataclass(frozen=True)
class Suite:
    """A resolved suite: its operators in manifest (or directory) order."""

    name: str
    ops: tuple[SuiteOp, ...] = field(default_factory=tuple)
    manifest: Path | None = None
    src: Path | None = None
    description: str = ""

    @property
    def dirs(self) -> list[Path]:
        return [o.dir for o in self.ops]


def is_operator_dir(path: Path) -> bool:
    return (path / "op_host").is_dir() and (path / "op_kernel").is_dir()


def operator_dirs(root: Path) -> list[Path]:
    """Every operator directory under ``root`` (``root`` itself when it is one)."""
    if is_operator_dir(root):
        return [root]
    return sorted(p.parent for p in root.rglob("op_kernel") if p.is_dir() and is_operator_dir(p.parent))


def shipped_suites() -> list[str]:
    """Names of the suites shipped under ``suites/``."""
    return sorted(p.parent.name for p in SUITES_DIR.glob(f"*/{MANIFEST_NAME}")) if SUITES_DIR.is_dir() else []


def _level_of(path: Path) -> int:
    for part in path.parts:
        if part.startswith("level") and part[5:].isdigit():
            return int(part[5:])
    return 0


def load_suite(name: str, src: str | Path | None = None) -> Suite:
    """Resolves ``--suite NAME|FILE|DIR`` (with ``--src PATH`` for manifests).

    Raises:
        SuiteError: Unknown name, malformed manifest, a missing ``--src`` or operator
            directory, or no operators found.
    """
    if name == "own":
        if not OWN_OPS.is_dir():
            raise SuiteError(f"suite 'own' needs the project's ops/ directory ({OWN_OPS} is missing: run from a checkout)")
        return Suite("own", tuple(SuiteOp(d, _level_of(d.relative_to(OWN_OPS))) for d in operator_dirs(OWN_OPS)))
    path = Path(name)
    if path.is_file():
        return _load_manifest(path, src)
    if path.is_dir() and (path / MANIFEST_NAME).is_file():
        return _load_manifest(path / MANIFEST_NAME, src)
    if (SUITES_DIR / name / MANIFEST_NAME).is_file() and "/" not in name:
        return _load_manifest(SUITES_DIR / name / MANIFEST_NAME, src)
    root = path if path.is_dir() else (Path(src) / name if src is not None else None)
    if root is not None and root.is_dir():  # a directory of operators (under --src when relative to it)
        dirs = operator_dirs(root)
        if not dirs:
            raise SuiteError(f"suite {name!r}: no operator directories (op_host/ + op_kernel/) under {root}")
        return Suite(path.name, tuple(SuiteOp(d, _level_of(d)) for d in dirs))
    shipped = ", ".join(shipped_suites()) or "none"
    raise SuiteError(f"unknown suite {name!r}: not 'own', a shipped suite ({shipped}), a manifest file or a directory")


def resolve_suite(name: str, src: str | Path | None = None) -> list[Path]:
    """The operator directories of suite ``name`` (see :func:`load_suite`)."""
    return load_suite(name, src).dirs


_OP_KEYS = {"dir", "level", "golden", "cases", "own_cases", "benchmark", "note", "soc"}


def _str_list(entry: dict, key: str, where: str) -> tuple[str, ...]:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise SuiteError(f"{where}: {key} must be a list of non-empty strings, got {value!r}")
    return tuple(value)


def _manifest_op(entry: object, where: str, base: Path, src: Path) -> SuiteOp:
    """One ``[[op]]`` entry; a SuiteError naming the manifest, the entry and the field."""
    if not isinstance(entry, dict) or not isinstance(entry.get("dir"), str) or not entry["dir"].strip():
        raise SuiteError(f"{where}: needs dir = \"...\" (relative to --src)")
    where = f"{where} ({entry['dir']})"
    unknown = set(entry) - _OP_KEYS
    if unknown:
        raise SuiteError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    level = entry.get("level", 0)
    if not isinstance(level, int) or isinstance(level, bool) or not 0 <= level <= 3:
        raise SuiteError(f"{where}: level must be 1, 2 or 3 (0: not given), got {level!r}")
    golden = entry.get("golden")
    if golden is not None:
        file, sep, func = golden.rpartition(":") if isinstance(golden, str) else ("", "", "")
        if not sep or not file or not func:
            raise SuiteError(f"{where}: golden must be FILE.py:FUNC, got {golden!r}")
        golden = f"{(base / file).resolve()}:{func}"
    own_cases = entry.get("own_cases", True)
    if not isinstance(own_cases, bool):
        raise SuiteError(f"{where}: own_cases must be true or false, got {own_cases!r}")
    if "note" in entry and not isinstance(entry["note"], str):
        raise SuiteError(f"{where}: note must be a string, got {entry['note']!r}")
    soc = entry.get("soc")
    if soc is not None:
        from ascendopt.hw.soc import available_socs

        if not isinstance(soc, str) or soc not in available_socs():
            raise SuiteError(f"{where}: soc must be one of {', '.join(available_socs())}, got {soc!r}")
    cases = tuple((base / c).resolve() for c in _str_list(entry, "cases", where))
    return SuiteOp(src / entry["dir"], level, golden, cases, own_cases, _str_list(entry, "benchmark", where), soc)


def _load_manifest(path: Path, src: str | Path | None) -> Suite:
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise SuiteError(f"{path}: not a readable TOML manifest: {e}") from None
    fmt = data.get("format")
    if fmt != FORMAT_VERSION or isinstance(fmt, bool):
        raise SuiteError(f"{path}: manifest format {fmt!r} is not supported (this version reads {FORMAT_VERSION})")
    for key in ("name", "description", "source"):
        if key in data and not isinstance(data[key], str):
            raise SuiteError(f"{path}: {key} must be a string, got {data[key]!r}")
    name = data.get("name") or path.parent.name
    entries = data.get("op", [])
    if not isinstance(entries, list):
        raise SuiteError(f"{path}: op must be an array of tables ([[op]] entries), got {entries!r}")
    if src is None:
        raise SuiteError(f"suite {name!r} lists operators kept elsewhere: give --src PATH "
                         f"({data.get('source', 'the directory its op dirs are relative to')})")
    src = Path(src)
    if not src.is_dir():
        raise SuiteError(f"--src {src}: not a directory")
    base = path.parent
    ops = [_manifest_op(entry, f"{path}: op #{i + 1}", base, src) for i, entry in enumerate(entries)]
    missing = [str(o.dir) for o in ops if not is_operator_dir(o.dir)]
    if missing:
        raise SuiteError(f"suite {name!r} with --src {src}: {len(missing)} operator director"
                         f"{'y is' if len(missing) == 1 else 'ies are'} missing, e.g. {missing[0]}")
    if not ops:
        raise SuiteError(f"{path}: the manifest lists no operators ([[op]] entries)")
    return Suite(name, tuple(ops), path, src, data.get("description", ""))
