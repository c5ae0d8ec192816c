"""The one place the evaluation budget is enforced, and the only writer of the record store.

A :class:`BudgetedEvaluator` wraps an :class:`~ascendopt.evaluate.evaluator.Evaluator`, an
:class:`~ascendopt.evaluate.executors.Executor` and a
:class:`~ascendopt.evaluate.store.RecordStore` for one run. Strategies ask it to evaluate
candidates; they never see the budget arithmetic or the store handle.

* Every attempt actually built or run is **charged** to its operator's budget: failures
  and timeouts included.
* A **duplicate** (same candidate digest and same evaluation config key, in any run of the
  store, or earlier in the same batch) is answered from the records and costs nothing; it is
  still recorded (``charged = 0``) so the history shows what was asked.
* So is an **equivalent** candidate: different sources, but the same kernel binaries and the
  same launch (block dim, tiling key, workspace, tiling data) on every case, found by running
  only its host tiling (:meth:`~ascendopt.evaluate.evaluator.Evaluator.launch_key`). It runs
  the same device program as the candidate that was evaluated, so that evaluation answers it
  (recorded with ``same_as``). A real tuner pays an NPU run only for a new device program;
  Stage II knobs often move a tile size within one alignment step. With ``lazy_probes``
  the same decisions are made probing only what still tells a candidate apart from the
  evaluated ones (:mod:`ascendopt.evaluate.launch`).
* Each evaluation is committed to the store as soon as it finishes, so an interrupted run
  (even ``kill -9``) resumes from the store: reopen the run with ``run_id`` and re-asked
  candidates come back as duplicates.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any, Sequence

from ascendopt.cases import Case
from ascendopt.evaluate.evaluator import Evaluation, Evaluator
from ascendopt.evaluate.executors import EvalTask, Executor, InlineExecutor
from ascendopt.evaluate.launch import LaunchIndex
from ascendopt.evaluate.store import RecordStore, StoreError
from ascendopt.operator import Operator


def answers(known: Evaluation | None, bar_us: float | None) -> bool:
    """Whether the record ``known`` may answer a caller with the bar ``bar_us``: a verified
    one always; an :data:`~ascendopt.evaluate.evaluation.UNVERIFIED` one only when its latency
    is above that bar too (to that caller too it could not matter)."""
    if known is None or not known.unverified:
        return True
    return bar_us is not None and known.latency_us is not None and known.latency_us > bar_us


class BudgetExhausted(RuntimeError):
    """An operator's evaluation budget is spent.

    Attributes:
        op_name: The operator.
        budget: Its budget.
        spent: Charged evaluations so far.
        results: For a batch, the results index-aligned with the request (None where a
            candidate was not evaluated for lack of budget).
    """

    def __init__(self, op_name: str, budget: int, spent: int, results: list[Evaluation | None] | None = None):
        super().__init__(f"evaluation budget of {op_name} exhausted ({spent}/{budget} spent)")
        self.op_name, self.budget, self.spent = op_name, budget, spent
        self.results = results or []


@dataclass(frozen=True)
class BudgetReport:
    """Budget accounting of one operator in one run."""

    op_name: str
    budget: int | None
    charged: int
    duplicates: int

    @property
    def remaining(self) -> int | None:
        return None if self.budget is None else max(0, self.budget - self.charged)


@dataclass(frozen=True)
class ReuseConfig:
    """Which candidates a :class:`BudgetedEvaluator` answers from the records.

    Attributes:
        equivalence: Answer candidates that launch the same device program as an evaluated
            one from the records (needs a backend that runs the tiling alone; off: only
            identical sources are answered).
        lazy_probes: Decide equivalence with a :class:`~ascendopt.evaluate.launch.LaunchIndex`
            (no tiling probe for a candidate whose binaries no evaluated one shares; then
            case by case, only while an evaluated one still agrees) instead of a full launch
            key per candidate: the same candidates are answered by the same evaluations, but
            a candidate not probed on every case is recorded without its launch key, so later
            runs on the same store cannot be answered by it. Only taken when the store holds
            no run but this one (on a shared store every candidate is fully probed).
        verify_lazily: Pass a caller's bar (Stage II's) to the evaluator: a candidate timed
            above it is recorded ``unverified`` without its other cases (docs/evaluation.md).
            Off by default: on ``benchmarks/bench_throughput.py``'s knob changes the tiling
            probes it needs cost more CPU than the case runs it saves (0.73 -> 0.86 s per
            evaluation, issue 35); off, every candidate is verified on every case.
    """

    equivalence: bool = True
    lazy_probes: bool = False
    verify_lazily: bool = False


class BudgetedEvaluator:
    """Evaluates candidates for one run under a per-operator budget and records everything.

    Args:
        evaluator: How to evaluate.
        store: The record store (only this object writes to it).
        budget: Charged evaluations allowed per operator (None: unlimited).
        executor: Where evaluations run (default: inline).
        run_id: Resume this run (its charged evaluations count against the budget);
            default: start a new run.
        run_label: The run's ``op`` column for a new run (default: first operator seen).
        run_config: Extra configuration recorded with a new run.
        reuse: Which candidates are answered from the records (:class:`ReuseConfig`).
    """

    def __init__(self, evaluator: Evaluator, store: RecordStore, budget: int | None = None,
                 executor: Executor | None = None, run_id: int | None = None, run_label: str = "",
                 run_config: dict[str, Any] | None = None, reuse: ReuseConfig = ReuseConfig()):
        equivalence, lazy_probes = reuse.equivalence, reuse.lazy_probes
        self.verify_lazily = reuse.verify_lazily
        if budget is not None and budget < 0:
            raise ValueError("budget must be >= 0")
        self.evaluator = evaluator
        self.store = store
        self.budget = budget
        self.executor = executor or InlineExecutor()
        self.equivalence = equivalence
        self._launch_keys: dict[tuple[str, str], str | None] = {}
        # a resumed run replays its loop: the candidates it had charged come back from the
        # records; the first answer to each counts as *replayed* (SubBudget charges its share
        # for it, so a replayed phase stops where the interrupted one stood)
        self._to_replay: set[tuple[str, str]] = set()
        self.replayed: dict[str, int] = {}
        if run_id is not None:
            if store.get_run(run_id) is None:
                raise StoreError(f"no run {run_id} to resume")
            store.set_run_status(run_id, "running")
            self.run_id = run_id
            self._to_replay = {(r.evaluation.op_name, r.evaluation.digest)
                               for r in store.list_evaluations(run_id) if r.charged}
        else:
            cfg = {"eval": evaluator.config.to_dict(), "budget": budget, "backend": evaluator.backend_name,
                   "soc": evaluator.soc_name, **(run_config or {})}
            self.run_id = store.create_run(run_label or "", cfg)
        self.lazy_probes = bool(lazy_probes and equivalence and evaluator.backend.supports_tiling
                                and all(r.id == self.run_id for r in store.list_runs()))
        self._indexes: dict[str, LaunchIndex] = {}

    # -------------------------------------------------------------------------- budget
    def report(self, op_name: str) -> BudgetReport:
        return BudgetReport(op_name, self.budget, self.store.count(self.run_id, op_name, charged=True),
                            self.store.count(self.run_id, op_name, charged=False))

    def remaining(self, op_name: str) -> int | None:
        return self.report(op_name).remaining

    # ------------------------------------------------------------------------ evaluate
    def evaluate(self, op: Operator, cases: Sequence[Case], bar_us: float | None = None) -> Evaluation:
        """Evaluates one candidate (or answers it from the records).

        Raises:
            BudgetExhausted: The candidate is new and the operator's budget is spent.
        """
        return self.evaluate_many([op], cases, bar_us)[0]  # type: ignore[return-value]

    def evaluate_many(self, ops: Sequence[Operator], cases: Sequence[Case],
                      bar_us: float | None = None) -> list[Evaluation]:
        """Evaluates candidates of operators sharing `cases`, in parallel on the executor.

        Returns results index-aligned with `ops`. Duplicates are answered first; new
        candidates are charged in order while the budget lasts. With ``bar_us`` a candidate
        timed above it need not be verified on every case (:meth:`Evaluator.evaluate`:
        :data:`~ascendopt.evaluate.evaluation.UNVERIFIED`); a record of such a candidate
        answers only a caller whose bar it is above too (:func:`answers`), any other caller
        has it evaluated again, verified (and charged). The bar is dropped unless
        ``ReuseConfig.verify_lazily``.

        Raises:
            BudgetExhausted: Some new candidate did not fit the budget. Everything that did fit
                was evaluated and recorded; ``results`` holds them (None for the rest).
        """
        bar_us = bar_us if self.verify_lazily else None
        cases = tuple(cases)
        key = self.evaluator.config_key(cases)
        results: list[Evaluation | None] = [None] * len(ops)
        remaining: dict[str, int | None] = {}
        first_in_batch: dict[str, int] = {}  # digest or launch key -> index of the first asker
        launch_of: dict[int, str] = {}
        tasks: list[EvalTask] = []
        task_index: list[int] = []
        followers: dict[int, list[int]] = {}
        short: tuple[str, int] | None = None
        index = self._index(cases, key)
        if index is None:
            self._prepare_launch_keys(ops, cases, key)
        else:
            self._prepare_families(ops, index, key)
        for i, op in enumerate(ops):
            if op.digest in first_in_batch:  # asked twice in this batch: answer after the first
                followers.setdefault(first_in_batch[op.digest], []).append(i)
                continue
            known = self.store.find_evaluation(op.digest, key)
            if known is not None and not answers(known, bar_us):
                known = self._verified(op.digest, key)
            if known is not None:
                results[i] = self._record_duplicate(op, known)
                if index is not None:
                    index.known(op, known)
                if (op.name, op.digest) in self._to_replay:
                    self._to_replay.discard((op.name, op.digest))
                    self.replayed[op.name] = self.replayed.get(op.name, 0) + 1
                continue
            launch = None
            if index is not None:
                member = index.match(op)
                if member is not None and member.batch_index is not None:
                    followers.setdefault(member.batch_index, []).append(i)
                    continue
                if member is not None and answers(member.evaluation, bar_us):
                    assert member.evaluation is not None
                    results[i] = self._record_duplicate(op, member.evaluation)
                    continue
            else:
                launch = self._launch_key(op, cases, key)
                if launch in first_in_batch:
                    followers.setdefault(first_in_batch[launch], []).append(i)
                    continue
                same = self.store.find_by_launch(launch, key) if launch else None
                if same is not None and answers(same, bar_us):
                    results[i] = self._record_duplicate(op, same)
                    continue
            if op.name not in remaining:
                remaining[op.name] = self.remaining(op.name)
            left = remaining[op.name]
            if left is not None and left <= 0:
                short = (op.name, self.budget or 0)
                continue
            if left is not None:
                remaining[op.name] = left - 1
            first_in_batch[op.digest] = i
            if launch:
                first_in_batch[launch] = i
                launch_of[i] = launch
            if index is not None:
                index.add(op, batch_index=i)
            self.store.put_sources(op.digest, op.files)
            tasks.append(EvalTask(op, cases, self.evaluator.seed_for(op), key, bar_us))
            task_index.append(i)
        try:
            for j, ev in self.executor.run(self.evaluator, tasks):
                i = task_index[j]
                ev.duplicate = False
                ev.launch_key = launch_of.get(i, "") if index is None else index.key(ops[i])
                if index is not None:  # a copy, as the store would return it
                    index.evaluated(ops[i], Evaluation.from_dict(json.loads(json.dumps(ev.to_dict(), default=str))))
                self.store.add_evaluation(self.run_id, ev, charged=True)  # committed here
                results[i] = ev
                for k in followers.get(i, []):
                    results[k] = self._record_duplicate(ops[k], ev)
        finally:
            if index is not None:
                index.drop_pending()
        if short is not None:
            name, budget = short
            raise BudgetExhausted(name, budget, self.store.count(self.run_id, name), results)
        return results  # type: ignore[return-value]

    def _verified(self, digest: str, key: str) -> Evaluation | None:
        """The first verified (not :data:`UNVERIFIED`) charged evaluation of ``digest``."""
        for r in self.store.find_by_digest(digest):
            e = r.evaluation
            if r.charged and e.digest == digest and e.config_key == key and not e.unverified:
                return e
        return None

    def _prepare_launch_keys(self, ops: Sequence[Operator], cases: tuple[Case, ...], key: str) -> None:
        """Launch keys of a batch's unknown candidates, concurrently (they may need builds)."""
        if not self.equivalence:
            return
        need = {op.digest: op for op in ops if (op.digest, key) not in self._launch_keys}
        need = {d: op for d, op in need.items() if self.store.find_evaluation(d, key) is None}
        if len(need) > 1:
            with ThreadPoolExecutor(max_workers=len(need), thread_name_prefix="ao-launch") as pool:
                list(pool.map(lambda op: self._launch_key(op, cases, key), need.values()))

    def _index(self, cases: tuple[Case, ...], key: str) -> LaunchIndex | None:
        if not self.lazy_probes:
            return None
        if key not in self._indexes:
            self._indexes[key] = LaunchIndex(self.evaluator, cases)
        return self._indexes[key]

    def _prepare_families(self, ops: Sequence[Operator], index: LaunchIndex, key: str) -> None:
        """The builds of a batch's unknown candidates, concurrently (what a launch needs first)."""
        need = {op.digest: op for op in ops if self.store.find_evaluation(op.digest, key) is None}
        if len(need) > 1:
            with ThreadPoolExecutor(max_workers=len(need), thread_name_prefix="ao-launch") as pool:
                list(pool.map(index.family, need.values()))

    def _launch_key(self, op: Operator, cases: tuple[Case, ...], key: str) -> str | None:
        if not self.equivalence:
            return None
        if (op.digest, key) not in self._launch_keys:
            self._launch_keys[(op.digest, key)] = self.evaluator.launch_key(op, cases)
        return self._launch_keys[(op.digest, key)]

    def _record_duplicate(self, op: Operator, known: Evaluation) -> Evaluation:
        """Records (uncharged) the answer to `op` taken from the evaluation `known` of the same
        candidate, or of one launching the same device program."""
        same_as = "" if known.digest == op.digest else known.digest
        if same_as:
            self.store.put_sources(op.digest, op.files)
        dup = replace(known, duplicate=True, parent=op.parent, origin=op.origin, op_name=op.name, digest=op.digest,
                      same_as=same_as)
        self.store.add_evaluation(self.run_id, dup, charged=False)
        return dup

    def finish(self, status: str = "finished") -> None:
        """Marks the run finished (or ``failed``)."""
        self.store.set_run_status(self.run_id, status)


class SubBudget:
    """A share of a :class:`BudgetedEvaluator`'s budget for one phase of a run (rewind, a
    Stage II round): the same interface, the same store and run, at most ``limit`` charged
    evaluations of ``op_name`` from now on (and never more than the parent has left).

    A batch is cut to what is left before it is sent; the cut part comes back as None with
    :class:`BudgetExhausted`, as from the parent.
    """

    def __init__(self, parent: BudgetedEvaluator, op_name: str, limit: int):
        self.parent, self.op_name, self.limit = parent, op_name, max(0, int(limit))
        self.evaluator, self.store, self.equivalence = parent.evaluator, parent.store, parent.equivalence
        self.run_id = parent.run_id
        self._start = parent.report(op_name).charged + parent.replayed.get(op_name, 0)
        self._dups_start = parent.report(op_name).duplicates

    @property
    def budget(self) -> int:
        return self.limit

    def spent(self) -> int:
        """Charged since this share began, counting the replay of a resumed run's charged
        candidates as they were charged then."""
        return self.parent.report(self.op_name).charged + self.parent.replayed.get(self.op_name, 0) - self._start

    def report(self, op_name: str) -> BudgetReport:
        rep = self.parent.report(op_name)
        return BudgetReport(op_name, self.limit, self.spent(), rep.duplicates - self._dups_start)

    def remaining(self, op_name: str) -> int:
        mine = max(0, self.limit - self.spent())
        theirs = self.parent.remaining(op_name)
        return mine if theirs is None else min(mine, theirs)

    def evaluate(self, op: Operator, cases: Sequence[Case], bar_us: float | None = None) -> Evaluation:
        return self.evaluate_many([op], cases, bar_us)[0]  # type: ignore[return-value]

    def evaluate_many(self, ops: Sequence[Operator], cases: Sequence[Case],
                      bar_us: float | None = None) -> list[Evaluation]:
        """Like :meth:`BudgetedEvaluator.evaluate_many`; candidates already in the records are
        answered even when this share is spent, new ones only while it lasts."""
        bar_us = bar_us if self.parent.verify_lazily else None
        left = self.remaining(self.op_name)
        key = self.evaluator.config_key(tuple(cases))
        send: list[int] = []
        for i, op in enumerate(ops):
            known = self.store.find_evaluation(op.digest, key)
            if known is not None and (answers(known, bar_us) or self.parent._verified(op.digest, key)):
                send.append(i)
            elif left > 0:
                send.append(i)
                left -= 1
        results: list[Evaluation | None] = [None] * len(ops)
        short = len(send) < len(ops)
        if send:
            try:
                got = list(self.parent.evaluate_many([ops[i] for i in send], cases, bar_us))
            except BudgetExhausted as e:
                got, short = list(e.results) + [None] * (len(send) - len(e.results)), True
            for i, ev in zip(send, got):
                results[i] = ev
        if short:
            raise BudgetExhausted(self.op_name, self.limit, self.spent(), results)
        return results  # type: ignore[return-value]
