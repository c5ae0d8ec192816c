"""One (operator, method, seed) run in a worker: what a worker does, and nothing it writes.

:func:`run_pair` loads the operator and its cases as its suite defines them (the case
files, golden override and benchmark case names the task carries, see :func:`suite_cases`),
makes a backend and an evaluator, and runs the method through a :class:`~ascendopt.evaluate.budget.BudgetedEvaluator`
over a :class:`StreamingStore`: an in-memory store that also *sends* every record it takes
(evaluations and candidate sources) to the driver through ``emit``. The driver alone writes the
benchmark database (STYLE.md item 6); the worker writes no file but its temporary profiles.

A pair that was cut short (the driver was killed) is rerun with its recorded evaluations
(``PairTask.prior``) preloaded as the run's charged history: re-asked candidates come back
free from them and count against the same budget once.
"""

from __future__ import annotations

import shutil
import tempfile
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ascendopt.evaluate.evaluator import Evaluation
from ascendopt.evaluate.store import MemoryStore

Emit = Callable[[tuple], None]


@dataclass(frozen=True)
class PairTask:
    """Everything a worker needs for one pair (picklable).

    Attributes:
        key: ``op|method|seed`` (how the driver routes what the worker sends).
        op_dir: The operator directory.
        method: Method name.
        seed: Method seed.
        budget: Charged evaluations allowed.
        soc: SoC to simulate.
        timeout_s: Seconds allowed per case run.
        options: Method options overriding its defaults.
        llm: LLM configuration file (None: offline rewriters unless the environment configures one).
        jobs: Threads inside one evaluation (0: one per core).
        prior: ``(charged, Evaluation)`` records of an earlier, unfinished attempt, in order.
        cache_dir: Simulator build cache (None: the default).
        unsafe_no_sandbox: Run candidate code unconfined when there is no sandbox.
        golden: ``/abs/FILE.py:FUNC`` overriding the case files' goldens (a suite manifest's
            ``golden``; None: theirs).
        case_files: Further case files (absolute paths: a manifest's ``cases``).
        own_cases: Whether the operator's own ``tests/st/*.json`` are loaded too.
        bench_cases: Names of the timed cases (a manifest's ``benchmark``; empty: the largest
            case of each dtype combination).
        backend: ``sim`` or ``npu`` (the device this process finds, its own build cache).
        npu_mode: With ``npu``: ``device`` or ``simulator`` (the CANN simulator of ``soc``).
        unseen_shapes: Unseen shapes the pair's best is checked on after the method (0: none;
            :mod:`ascendopt.evaluate.unseen_check`).
    """

    key: str
    op_dir: str
    method: str
    seed: int
    budget: int
    soc: str
    timeout_s: float = 60.0
    options: Mapping[str, Any] = field(default_factory=dict)
    llm: str | None = None
    jobs: int = 0
    prior: tuple[tuple[bool, Evaluation], ...] = ()
    cache_dir: str | None = None
    unsafe_no_sandbox: bool = False
    golden: str | None = None
    case_files: tuple[str, ...] = ()
    own_cases: bool = True
    bench_cases: tuple[str, ...] = ()
    backend: str = "sim"
    npu_mode: str = "device"
    unseen_shapes: int = 0

    def spec(self):
        """The :class:`~ascendopt.session.RunSpec` of this pair: the one ``optimize`` would run
        with (no record database: the worker's store is in memory; the shipped bank)."""
        from ascendopt.session import RunSpec

        return RunSpec(command="bench", backend=self.backend, soc=self.soc, seed=self.seed, budget=self.budget,
                       db=None, bank=None, llm=Path(self.llm) if self.llm else None, timeout_s=self.timeout_s,
                       npu_mode=self.npu_mode, unsafe_no_sandbox=self.unsafe_no_sandbox,
                       cache_dir=Path(self.cache_dir) if self.cache_dir else None, jobs=self.jobs)

    def suite_op(self):
        """The :class:`~ascendopt.suites.SuiteOp` these fields describe."""
        from ascendopt.suites import SuiteOp

        return SuiteOp(Path(self.op_dir), golden=self.golden, cases=tuple(Path(f) for f in self.case_files),
                       own_cases=self.own_cases, benchmark=tuple(self.bench_cases))


@dataclass
class PairOutcome:
    """What a worker returns: the method's result (None on a crash), its error text, the
    titles of the experiences the result names, the wall time, and the unseen-shape check of
    its best (:meth:`~ascendopt.evaluate.unseen_check.UnseenReport.to_dict`; empty: not run)."""

    key: str
    result: Any = None
    error: str = ""
    titles: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    unseen: dict[str, Any] = field(default_factory=dict)


class StreamingStore(MemoryStore):
    """A :class:`MemoryStore` that forwards every new evaluation and every new candidate's
    sources to ``emit`` as ``("eval", key, charged, Evaluation)`` / ``("src", key, digest,
    files)``. Records given to :meth:`preload` are kept but not forwarded (the driver has them)."""

    def __init__(self, key: str, emit: Emit):
        super().__init__()
        self.key, self.emit = key, emit
        self._seen_src: set[str] = set()

    def preload(self, run_id: int, prior: tuple[tuple[bool, Evaluation], ...]) -> None:
        for charged, ev in prior:
            super().add_evaluation(run_id, ev, charged)

    def add_evaluation(self, run_id: int, evaluation: Evaluation, charged: bool = True) -> int:
        eid = super().add_evaluation(run_id, evaluation, charged)
        self.emit(("eval", self.key, bool(charged), evaluation))
        return eid

    def put_sources(self, digest: str, files: Mapping[str, str]) -> None:
        super().put_sources(digest, files)
        if digest not in self._seen_src:
            self._seen_src.add(digest)
            self.emit(("src", self.key, digest, dict(files)))


def run_pair(task: PairTask, emit: Emit) -> PairOutcome:
    """Runs one pair; never raises (a crash becomes ``PairOutcome.error``)."""
    t0 = time.perf_counter()
    out = PairOutcome(task.key)
    profiles = Path(tempfile.mkdtemp(prefix="aobench-"))
    try:
        out.result, out.titles, out.unseen = _run(task, emit, profiles)
    except KeyboardInterrupt:
        out.error = "interrupted"
    except Exception:  # noqa: BLE001 - one broken pair must not end the benchmark
        out.error = traceback.format_exc(limit=20)
    finally:
        shutil.rmtree(profiles, ignore_errors=True)
    out.seconds = time.perf_counter() - t0
    return out


def suite_cases(sop) -> tuple[list, tuple[str, ...]]:
    """An operator's cases and the names of its timed cases, exactly as its suite defines them
    (``sop``: a :class:`~ascendopt.suites.SuiteOp`; its golden override, case files, own-cases
    setting and benchmark cases; default timed cases: the largest of each dtype combination).

    Raises:
        CaseError: A case file or the golden does not load, no cases, or an unknown
            benchmark case name.
    """
    from ascendopt.cases import CaseError
    from ascendopt.evaluate.evaluator import largest_per_dtype

    cases = sop.load_cases()
    if not cases:
        raise CaseError(f"{sop.dir}: no cases")
    known = {c.name for c in cases}
    bad = [n for n in sop.benchmark if n not in known]
    if bad:
        raise CaseError(f"{sop.dir}: unknown benchmark case(s) {', '.join(bad)}; available: "
                        f"{', '.join(sorted(known))}")
    return cases, tuple(sop.benchmark) or largest_per_dtype(cases)


def _run(task: PairTask, emit: Emit, profiles: Path) -> tuple[Any, dict[str, str], dict[str, Any]]:
    from ascendopt.bench.methods import MethodContext, get_method
    from ascendopt.operator import Operator
    from ascendopt.session import Session

    method = get_method(task.method)
    op = Operator.load(task.op_dir)
    cases, timed = suite_cases(task.suite_op())
    session = Session(task.spec())  # what optimize composes, with this worker's in-memory store
    evaluator = session.evaluator(timed, cases, str(profiles))
    store = StreamingStore(task.key, emit)
    run_id = None
    if task.prior:
        run_id = store.create_run(op.name, {"command": "bench", "resumed": True})
        store.preload(run_id, task.prior)
    beval = session.budgeted(evaluator, op.name, {"method": task.method, "seed": task.seed}, run_id=run_id,
                             store=store)
    bank = session.bank() if method.uses_bank else None
    try:
        ctx = MethodContext(op, cases, beval, session.rewriter(), bank, session.spec.seeds.strategy)
        res = method(ctx, **dict(task.options))
        unseen: dict[str, Any] = {}
        if task.unseen_shapes > 0:  # the best the trial credits (fastest correct charged) on unseen shapes
            from ascendopt.evaluate.unseen_check import adopt_optimize, check_run, RunRef

            rep = check_run(session.backend, RunRef(store, beval.run_id, charged_only=True), op, cases,
                            task.unseen_shapes, task.timeout_s)
            adopt_optimize(res, rep)
            unseen = rep.to_dict()
        titles: dict[str, str] = {}
        if bank is not None:
            wanted = {i for a in res.accepted for i in a.experiences}
            titles = {e.id: e.experience.title for e in bank.entries() if e.id in wanted}
        return res, titles, unseen
    finally:
        if bank is not None:
            bank.close()
