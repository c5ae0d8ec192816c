"""Executors run evaluations somewhere and hand the results back to the driver.

* :class:`InlineExecutor` — in the calling process, one at a time (debugging, tiny runs).
* :class:`LocalExecutor` — a process pool, one worker per core by default.
* :class:`RayExecutor` — Ray tasks (optional extra ``ray``); workers may be NPU hosts, each
  task then requests ``resources={"NPU": 1}``.

All give the same results for the same tasks. Workers never touch the record store: they
return :class:`~ascendopt.evaluate.evaluator.Evaluation` objects and only the driver writes
(SQLite does not tolerate parallel writers). Candidate code always runs in bounded child
processes of the worker (see the backend), so a worker survives a looping, crashing or
memory-hungry candidate; a worker that dies anyway is replaced, the tasks that were in
flight are retried one at a time, and the one whose worker dies alone
is reported as ``runtime_error`` (``worker_crashed``).
"""

from __future__ import annotations

import abc
import copy
import multiprocessing
import os
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from typing import Any, Iterator, Sequence

from ascendopt.backends.base import Status
from ascendopt.cases import Case
from ascendopt.evaluate.evaluator import Evaluation, Evaluator
from ascendopt.operator import Operator


@dataclass(frozen=True)
class EvalTask:
    """One candidate to evaluate (``seed``/``config_key`` precomputed by the driver; ``bar_us``:
    time it first, verify it fully only below that latency, :meth:`Evaluator.evaluate`)."""

    op: Operator
    cases: tuple[Case, ...]
    seed: int
    config_key: str
    bar_us: float | None = None


def _evaluate(evaluator: Evaluator, task: EvalTask) -> Evaluation:
    """``evaluator.evaluate`` of one task (its bar only when it has one)."""
    bar = {} if task.bar_us is None else {"bar_us": task.bar_us}
    return evaluator.evaluate(task.op, task.cases, task.seed, task.config_key, **bar)


def _crashed(task: EvalTask, evaluator: Evaluator, why: str) -> Evaluation:
    op = task.op
    return Evaluation(Status.RUNTIME_ERROR.value, error=f"the evaluation worker died: {why}",
                      error_kind="worker_crashed", seed=task.seed, backend=evaluator.backend_name,
                      soc=evaluator.soc_name, op_name=op.name, digest=op.digest, parent=op.parent,
                      origin=op.origin, config_key=task.config_key)


class Executor(abc.ABC):
    """Runs evaluation tasks and yields ``(index, Evaluation)`` as each one finishes."""

    @abc.abstractmethod
    def run(self, evaluator: Evaluator, tasks: Sequence[EvalTask]) -> Iterator[tuple[int, Evaluation]]: ...

    def close(self) -> None:  # noqa: B027 - optional
        """Releases workers."""

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class InlineExecutor(Executor):
    """Evaluates in the calling process, in order."""

    def run(self, evaluator: Evaluator, tasks: Sequence[EvalTask]) -> Iterator[tuple[int, Evaluation]]:
        for i, t in enumerate(tasks):
            yield i, _evaluate(evaluator, t)


# -------------------------------------------------------------------------------- local
_WORKER_EVALUATOR: Evaluator | None = None


def _init_worker(evaluator: Evaluator) -> None:
    global _WORKER_EVALUATOR
    _WORKER_EVALUATOR = evaluator


def _work(task: EvalTask) -> Evaluation:
    assert _WORKER_EVALUATOR is not None
    return _evaluate(_WORKER_EVALUATOR, task)


class LocalExecutor(Executor):
    """A pool of worker processes on this machine.

    Args:
        workers: Processes (default: one per core).
        start_method: multiprocessing start method; ``forkserver`` (default) forks workers
            from a clean server process, never from the (threaded) driver.
        jobs_per_worker: Threads inside each evaluation (default 1: the pool is the parallelism).
    """

    def __init__(self, workers: int | None = None, start_method: str = "forkserver", jobs_per_worker: int = 1):
        self.workers = workers or os.cpu_count() or 1
        self.start_method = start_method
        self.jobs_per_worker = jobs_per_worker
        self._pool: ProcessPoolExecutor | None = None
        self._pool_for: int | None = None

    def _get_pool(self, evaluator: Evaluator) -> ProcessPoolExecutor:
        if self._pool is None or self._pool_for != id(evaluator):
            self.close()
            ev = evaluator
            if self.jobs_per_worker and evaluator.config.jobs != self.jobs_per_worker:
                ev = copy.copy(evaluator)  # same class and identity; only the thread count differs
                ev.config = replace(evaluator.config, jobs=self.jobs_per_worker)
            self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context(self.start_method),
                                             initializer=_init_worker, initargs=(ev,))
            self._pool_for = id(evaluator)
        return self._pool

    def run(self, evaluator: Evaluator, tasks: Sequence[EvalTask]) -> Iterator[tuple[int, Evaluation]]:
        pending = set(range(len(tasks)))
        suspects: set[int] = set()  # in flight when a worker died: retried one at a time
        while pending:
            pool = self._get_pool(evaluator)
            batch = sorted(pending - suspects) if len(suspects) < len(pending) else []
            if not batch:  # only suspects left: isolate one, so a death is attributed right
                batch = [min(suspects)]
            futures = {pool.submit(_work, tasks[i]): i for i in batch}
            not_done = set(futures)
            broken: list[int] = []
            while not_done:
                done, not_done = wait(not_done, return_when=FIRST_COMPLETED)
                for f in done:
                    i = futures[f]
                    try:
                        ev = f.result()
                    except BrokenProcessPool:
                        broken.append(i)
                        continue
                    pending.discard(i)
                    suspects.discard(i)
                    yield i, ev
            if broken:  # a worker died: recycle the pool
                self.close()
                if len(batch) == 1:
                    i = batch[0]
                    pending.discard(i)
                    suspects.discard(i)
                    yield i, _crashed(tasks[i], evaluator, "process pool worker terminated abruptly")
                else:
                    suspects.update(broken)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
            self._pool_for = None


# ---------------------------------------------------------------------------------- ray
def _ray_evaluate(evaluator: Evaluator, task: EvalTask) -> Evaluation:
    return _evaluate(evaluator, task)


class RayExecutor(Executor):
    """Ray tasks, on a local Ray instance or a cluster (``pip install 'ascendopt[ray]'``).

    Args:
        address: Cluster address (None: connect to/start a local instance).
        npus_per_task: When > 0, each task requests ``resources={"NPU": npus_per_task}``
            (NPU hosts advertise ``--resources='{"NPU": <devices>}'``).
        num_cpus: CPUs per task.
        init_kwargs: Extra ``ray.init`` arguments when this executor starts Ray.
    """

    def __init__(self, address: str | None = None, npus_per_task: float = 0, num_cpus: float = 1,
                 init_kwargs: dict[str, Any] | None = None):
        try:
            import ray  # noqa: F401 - lazy, optional
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise RuntimeError("the Ray executor needs Ray: pip install 'ascendopt[ray]'") from e
        self.address = address
        self.npus_per_task = npus_per_task
        self.num_cpus = num_cpus
        self.init_kwargs = dict(init_kwargs or {})
        self._started = False
        self._remote = None
        self._evaluator_ref: tuple[int, Any] | None = None

    def _ray(self):
        import ray

        if not ray.is_initialized():
            kw = {"include_dashboard": False, "log_to_driver": False, **self.init_kwargs}
            ray.init(address=self.address, **kw)
            self._started = True
        if self._remote is None:
            opts: dict[str, Any] = {"num_cpus": self.num_cpus, "max_retries": 1}
            if self.npus_per_task:
                opts["resources"] = {"NPU": self.npus_per_task}
            self._remote = ray.remote(_ray_evaluate).options(**opts)
        return ray

    def run(self, evaluator: Evaluator, tasks: Sequence[EvalTask]) -> Iterator[tuple[int, Evaluation]]:
        ray = self._ray()
        if self._evaluator_ref is None or self._evaluator_ref[0] != id(evaluator):
            self._evaluator_ref = (id(evaluator), ray.put(evaluator))
        refs = {self._remote.remote(self._evaluator_ref[1], t): i for i, t in enumerate(tasks)}
        waiting = list(refs)
        while waiting:
            done, waiting = ray.wait(waiting, num_returns=1)
            for r in done:
                i = refs[r]
                try:
                    yield i, ray.get(r)
                except (ray.exceptions.RayTaskError, ray.exceptions.WorkerCrashedError,
                        ray.exceptions.RayActorError) as e:
                    yield i, _crashed(tasks[i], evaluator, f"{type(e).__name__}: {str(e)[-2000:]}")

    def close(self) -> None:
        if self._started:
            import ray

            ray.shutdown()
            self._started = False
        self._remote = None
        self._evaluator_ref = None
