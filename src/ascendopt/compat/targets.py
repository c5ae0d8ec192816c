"""What ``ascendopt compat`` runs: the operators under a directory or of a suite, each with
the golden and case files it is checked with."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Iterable

from ascendopt.suites import is_operator_dir, load_suite, operator_dirs


class TargetError(ValueError):
    """A user error found before anything runs: a bad directory, no operators, an unknown
    ``--only`` name, a goldens file that does not load."""


@dataclass(frozen=True)
class Target:
    """One operator to check.

    Attributes:
        dir: The operator directory (``op_host/`` + ``op_kernel/``).
        category: Its parent directory's name (``math``, ``activation``, ``level1``).
        golden: ``/abs/FILE.py:FUNC`` overriding its case files' goldens ("" : theirs).
        cases: Further case files (a suite's own).
        own_cases: Whether its ``tests/st/*.json`` are loaded.
        soc: The SoC it is checked on ("": the run's).
    """

    dir: Path
    category: str
    golden: str = ""
    cases: tuple[Path, ...] = ()
    own_cases: bool = True
    soc: str = ""

    @property
    def name(self) -> str:
        return self.dir.name

    def to_dict(self) -> dict:
        d = asdict(self)
        d.update(dir=str(self.dir), cases=[str(c) for c in self.cases])
        return d

    @staticmethod
    def from_dict(d: dict) -> "Target":
        return Target(Path(d["dir"]), d["category"], d.get("golden", ""), tuple(Path(c) for c in d.get("cases", ())),
                      d.get("own_cases", True), d.get("soc", ""))


def dir_targets(root: Path) -> list[Target]:
    """Every operator under ``root`` (a checkout, its ``src/``, a category directory or one
    operator directory).

    Raises:
        TargetError: ``root`` is not a directory or holds no operator.
    """
    if not root.is_dir():
        raise TargetError(f"{root}: not a directory")
    dirs = operator_dirs(root)
    if not dirs:
        raise TargetError(f"no operators under {root} (an operator is a directory holding op_host/ and op_kernel/)")
    return [Target(d, d.parent.name) for d in dirs]


def suite_targets(suite: str, src: Path | None) -> list[Target]:
    """The operators of ``--suite NAME|FILE`` resolved against ``--src``, with the suite's
    goldens and case files.

    Raises:
        TargetError: As :func:`ascendopt.suites.load_suite` (wrapped).
    """
    from ascendopt.suites import SuiteError

    try:
        s = load_suite(suite, src)
    except SuiteError as e:
        raise TargetError(str(e)) from None
    return [Target(o.dir, o.dir.parent.name, o.golden or "", tuple(o.cases), o.own_cases, o.soc or "")
            for o in s.ops]


def select(targets: list[Target], only: Iterable[str]) -> list[Target]:
    """The targets named in ``only`` (directory names); all of them when it is empty.

    Raises:
        TargetError: A name that is not among them.
    """
    names = [n for n in only if n]
    if not names:
        return targets
    known = {t.name for t in targets}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise TargetError(f"--only: no operator named {', '.join(unknown)} among the {len(targets)} found")
    return [t for t in targets if t.name in names]


def with_goldens(targets: list[Target], files: Iterable[Path]) -> list[Target]:
    """Gives each target without a golden of its own the function of ``files`` named like
    its directory or like its OpDef type in snake case (``abs`` also matches ``abs_``, the
    usual spelling of a name that shadows a Python builtin). An earlier file wins.

    Raises:
        TargetError: A file that is missing, does not import or defines no function.
    """
    from ascendopt.cases import CaseError
    from ascendopt.cases.golden import golden_functions

    table: dict[str, str] = {}
    for f in files:
        try:
            funcs = golden_functions(f)
        except CaseError as e:
            raise TargetError(f"--goldens: {e}") from None
        if not funcs:
            raise TargetError(f"--goldens: {f} defines no golden function")
        for name in funcs:
            table.setdefault(name, f"{Path(f).resolve()}:{name}")
    return [t if t.golden else replace(t, golden=_match(t.dir, table)) for t in targets]


def _match(op_dir: Path, table: dict[str, str]) -> str:
    """The golden named like the directory, else like the OpDef type in snake case ("")."""
    from ascendopt.operator import Operator, OperatorError, snake_case

    def look(name: str) -> str:
        return table.get(name) or table.get(name + "_", "")

    found = look(op_dir.name)
    if found or not is_operator_dir(op_dir):
        return found
    try:
        return look(snake_case(Operator.load(op_dir).op_type))
    except (OperatorError, OSError):
        return ""
