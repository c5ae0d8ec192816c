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
* Each evaluation is committed to the store as soon as it finishes, so an interrupted run
  (even ``kill -9``) resumes from the store: reopen the run with ``run_id`` and re-asked
  candidates come back as duplicates.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

from ascendopt.cases import Case
from ascendopt.evaluate.evaluator import Evaluation, Evaluator
from ascendopt.evaluate.executors import EvalTask, Executor, InlineExecutor
from ascendopt.evaluate.store import RecordStore, StoreError
from ascendopt.operator import Operator


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
    """

    def __init__(self, evaluator: Evaluator, store: RecordStore, budget: int | None = None,
                 executor: Executor | None = None, run_id: int | None = None, run_label: str = "",
                 run_config: dict[str, Any] | None = None):
        if budget is not None and budget < 0:
            raise ValueError("budget must be >= 0")
        self.evaluator = evaluator
        self.store = store
        self.budget = budget
        self.executor = executor or InlineExecutor()
        if run_id is not None:
            if store.get_run(run_id) is None:
                raise StoreError(f"no run {run_id} to resume")
            store.set_run_status(run_id, "running")
            self.run_id = run_id
        else:
            cfg = {"eval": evaluator.config.to_dict(), "budget": budget, "backend": evaluator.backend_name,
                   "soc": evaluator.soc_name, **(run_config or {})}
            self.run_id = store.create_run(run_label or "", cfg)

    # -------------------------------------------------------------------------- budget
    def report(self, op_name: str) -> BudgetReport:
        return BudgetReport(op_name, self.budget, self.store.count(self.run_id, op_name, charged=True),
                            self.store.count(self.run_id, op_name, charged=False))

    def remaining(self, op_name: str) -> int | None:
        return self.report(op_name).remaining

    # ------------------------------------------------------------------------ evaluate
    def evaluate(self, op: Operator, cases: Sequence[Case]) -> Evaluation:
        """Evaluates one candidate (or answers it from the records).

        Raises:
            BudgetExhausted: The candidate is new and the operator's budget is spent.
        """
        return self.evaluate_many([op], cases)[0]  # type: ignore[return-value]

    def evaluate_many(self, ops: Sequence[Operator], cases: Sequence[Case]) -> list[Evaluation]:
        """Evaluates candidates of operators sharing `cases`, in parallel on the executor.

        Returns results index-aligned with `ops`. Duplicates are answered first; new
        candidates are charged in order while the budget lasts.

        Raises:
            BudgetExhausted: Some new candidate did not fit the budget. Everything that did fit
                was evaluated and recorded; ``results`` holds them (None for the rest).
        """
        cases = tuple(cases)
        key = self.evaluator.config_key(cases)
        results: list[Evaluation | None] = [None] * len(ops)
        remaining: dict[str, int | None] = {}
        first_in_batch: dict[str, int] = {}
        tasks: list[EvalTask] = []
        task_index: list[int] = []
        followers: dict[int, list[int]] = {}
        short: tuple[str, int] | None = None
        for i, op in enumerate(ops):
            if op.digest in first_in_batch:  # asked twice in this batch: answer after the first
                followers.setdefault(first_in_batch[op.digest], []).append(i)
                continue
            known = self.store.find_evaluation(op.digest, key)
            if known is not None:
                results[i] = self._record_duplicate(op, known)
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
            self.store.put_sources(op.digest, op.files)
            tasks.append(EvalTask(op, cases, self.evaluator.seed_for(op), key))
            task_index.append(i)
        for j, ev in self.executor.run(self.evaluator, tasks):
            i = task_index[j]
            ev.duplicate = False
            self.store.add_evaluation(self.run_id, ev, charged=True)  # committed here
            results[i] = ev
            for k in followers.get(i, []):
                results[k] = self._record_duplicate(ops[k], ev)
        if short is not None:
            name, budget = short
            raise BudgetExhausted(name, budget, self.store.count(self.run_id, name), results)
        return results  # type: ignore[return-value]

    def _record_duplicate(self, op: Operator, known: Evaluation) -> Evaluation:
        dup = replace(known, duplicate=True, parent=op.parent, origin=op.origin, op_name=op.name)
        self.store.add_evaluation(self.run_id, dup, charged=False)
        return dup

    def finish(self, status: str = "finished") -> None:
        """Marks the run finished (or ``failed``)."""
        self.store.set_run_status(self.run_id, status)
