"""Helpers every ``ascendopt`` command uses: consoles, usage errors, loading an operator and
its cases, making the backend. Command modules import from here, never from each other."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.text import Text

from ascendopt.cases import CaseError, load_op_cases
from ascendopt.operator import Operator, OperatorError

console = Console()
err_console = Console(stderr=True)

STATUS_STYLE = {"ok": "green", "wrong_result": "red", "compile_error": "red", "runtime_error": "red",
                 "tiling_error": "red", "timeout": "yellow", "case_error": "yellow"}


def fail(msg: str, code: int = 2) -> None:
    """Prints ``msg`` as an error (whole: paths are not wrapped or cropped, brackets are not
    markup) and exits with ``code``."""
    err_console.print(Text.assemble(("error:", "red"), " ", msg), soft_wrap=True)
    raise typer.Exit(code)


def load(op_dir: Path, cases_files: list[Path], golden: Optional[str], names: list[str]):
    try:
        op = Operator.load(op_dir)
        cases = load_op_cases(op_dir, cases_files, golden)
    except (OperatorError, CaseError) as e:
        fail(str(e))
    if not cases:
        fail(f"{op_dir}: no cases (expected tests/st/*.json or --cases FILE.json)")
    if names:
        known = {c.name for c in cases}
        bad = [n for n in names if n not in known]
        if bad:
            fail(f"unknown case(s) {', '.join(bad)}; available: {', '.join(sorted(known))}")
        cases = [c for c in cases if c.name in names]
    return op, cases


def backend(soc: str, noise_pct: float = 0.0, noise_seed: int = 0, unsafe_no_sandbox: bool = False,
            name: str = "sim", npu_mode: str = "device"):
    """The ``--backend`` (``sim``: the simulator, under the sandbox policy, exits when there is
    no sandbox and ``--unsafe-no-sandbox`` was not given; the backend holds the policy: worker
    processes (``--workers``) it is shipped to apply the same one. ``npu``: :func:`npu_backend`,
    in ``npu_mode``; ``soc`` is what the CANN simulator simulates when no device is listed)."""
    if name == "npu":
        if noise_pct:
            fail("--noise-pct injects noise into the simulator; the npu backend measures its own")
        return npu_backend(unsafe_no_sandbox, npu_mode, soc)
    if npu_mode != "device":
        fail("--npu-mode is for --backend npu")
    from ascendopt.session import RunSpec, make_backend

    with usage():  # the one place a simulator is built (no sandbox, a bad SoC: a usage error)
        return make_backend(RunSpec("run", soc=soc, seed=noise_seed, noise_pct=noise_pct,
                                    unsafe_no_sandbox=unsafe_no_sandbox))


def require_npu(unsafe_no_sandbox: bool, npu_mode: str = "device", soc: str = ""):
    """Exits (2) at once, with one line naming what is missing, unless this machine has the CANN
    toolkit, the tools and a device (``npu_mode`` ``simulator``: the CANN simulator of the
    device's SoC, else of ``soc``; ``auto``: the simulator when no device is listed); returns
    ``(what was detected, the mode, the SoC)``. Candidates then run outside the sandbox, which
    the user must accept with ``--unsafe-no-sandbox``."""
    from ascendopt.backends.npu.detect import CannUnavailable, detect
    from ascendopt.backends.npu.simulator import resolve_mode

    cann = detect()
    target = cann.soc or soc
    mode = resolve_mode(npu_mode, cann.home is not None, bool(cann.chips), target in cann.simulators)
    try:
        cann.require(mode, target)
    except CannUnavailable as e:
        fail(f"{e} (see `ascendopt doctor`)")
    if not unsafe_no_sandbox:
        fail("--backend npu runs candidate code (host tiling, kernels) on the device outside the sandbox, "
             "which has no device access; pass --unsafe-no-sandbox to accept that")
    return cann, mode, cann.soc if mode == "device" else target


def npu_backend(unsafe_no_sandbox: bool, npu_mode: str = "device", soc: str = ""):
    """The NPU backend (:func:`require_npu` first)."""
    from ascendopt.backends.npu.backend import NpuBackend

    cann, mode, target = require_npu(unsafe_no_sandbox, npu_mode, soc)
    try:
        return NpuBackend(cann, mode=mode, soc=target)
    except ValueError as e:
        fail(str(e))


def load_targets(op_dirs: list[Path] | None, suite: Optional[str], src: Optional[Path],
                 only: Optional[str] = None):
    """The operators a command works on: ``op_dirs``, or every operator of ``--suite``
    (``own``, a shipped suite name, a manifest or a directory; ``--src`` for suites kept
    elsewhere; ``only``: just the suite operator of that name or directory), each as
    ``(Operator, cases, benchmark case names)`` (names empty: the caller's default). Every
    usage error (exit 2) is said before anything runs."""
    from ascendopt.suites import SuiteError, load_suite

    if bool(op_dirs) == bool(suite):
        fail("give operator directories or --suite (not both)")
    if not suite:
        return [(*load(d, [], None, []), ()) for d in op_dirs]
    try:
        s = load_suite(suite, src)
    except SuiteError as e:
        fail(str(e))
    ops = [o for o in s.ops if only is None or only in (o.name, o.dir.name, str(o.dir))]
    if not ops:
        fail(f"suite {s.name} has no operator {only!r}; it has: {', '.join(o.dir.name for o in s.ops)}")
    out = []
    for sop in ops:
        try:
            op = Operator.load(sop.dir)
            cases = sop.load_cases()
        except (OperatorError, CaseError) as e:
            fail(f"suite {s.name}: {e}")
        if not cases:
            fail(f"suite {s.name}: {sop.dir}: no cases")
        out.append((op, cases, tuple(sop.benchmark)))
    return out


def open_store(db: Path):
    """The record store at ``db``; a file that cannot be used is a usage error (exit 2)."""
    from ascendopt.evaluate.store import SQLiteStore, StoreError

    try:
        return SQLiteStore(db)
    except (StoreError, OSError) as e:
        fail(f"cannot open record store: {e}" if str(db) in str(e) else f"cannot open record store {db}: {e}")


@contextmanager
def usage() -> Iterator[None]:
    """A :class:`~ascendopt.session.SessionError` inside is a usage error (exit 2)."""
    from ascendopt.session import SessionError

    try:
        yield
    except SessionError as e:
        fail(str(e))


def validated(spec: Any) -> Any:
    """The :class:`~ascendopt.session.RunSpec`, validated (a bad one: usage error)."""
    with usage():
        return spec.validate()


def open_session(spec: Any, device: Any = None) -> Any:
    """The run's :class:`~ascendopt.session.Session`, its backend ``device`` or made with the
    CLI's checks (:func:`backend`: the sandbox, on ``npu`` the toolkit and the user's consent)."""
    from ascendopt.session import Session

    if device is None:
        device = backend(spec.soc, spec.noise_pct, spec.seeds.noise, spec.unsafe_no_sandbox, spec.backend,
                         spec.npu_mode)
    return Session(spec, _backend=device)
