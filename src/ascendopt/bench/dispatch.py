"""Where pairs run: in the driver, on a local process pool, or as Ray tasks.

Each function takes the pair tasks and ``handle`` (the driver's writer for what workers send)
and yields :class:`~ascendopt.bench.pair.PairOutcome` as pairs finish. ``handle`` is only ever
called from the calling (driver) thread: workers put their records on a queue (a
multiprocessing manager queue, or a Ray queue actor) and the driver drains it while it waits,
so the driver is the single writer of the database.
"""

from __future__ import annotations

import multiprocessing
import os
import queue as _queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from ascendopt.bench.pair import PairOutcome, PairTask, run_pair

Handle = Callable[[tuple], None]
POLL_S = 0.2


def _drain(q: Any, handle: Handle, timeout: float, empty: tuple[type[BaseException], ...] = (_queue.Empty,)) -> None:
    """Hands every queued message to ``handle`` (waiting up to ``timeout`` for the first).
    ``empty``: what the queue raises when it has nothing (Ray's own ``Empty`` derives from the
    standard one only from Ray 2.4x on)."""
    try:
        msg = q.get(True, timeout) if timeout > 0 else q.get_nowait()
    except empty:
        return
    while True:
        handle(msg)
        try:
            msg = q.get_nowait()
        except empty:
            return


def run_inline(tasks: Sequence[PairTask], handle: Handle) -> Iterator[PairOutcome]:
    """In the driver process, one pair after another (records handled as they come)."""
    for t in tasks:
        yield run_pair(t, handle)


def _pool_entry(task: PairTask, q: Any) -> PairOutcome:
    return run_pair(task, q.put)


def _exit_with_driver(driver_pid: int, period_s: float = 1.0) -> None:
    """Pool worker initializer: the worker exits once the driver is gone. A driver killed with
    kill -9 (or a SIGTERM it does not handle) cannot shut its pool down, and the workers (children
    of the forkserver, not of the driver) would otherwise run their pairs to the end for nobody:
    whatever they compute is lost, the --resume that follows reruns the pair."""

    def watch() -> None:
        while True:
            time.sleep(period_s)
            try:
                os.kill(driver_pid, 0)
            except ProcessLookupError:
                os._exit(70)
            except PermissionError:  # alive, another user's (cannot happen for our own driver)
                pass

    threading.Thread(target=watch, name="ao-driver-watch", daemon=True).start()


def run_pool(tasks: Sequence[PairTask], handle: Handle, workers: int) -> Iterator[PairOutcome]:
    """On ``workers`` processes (forked from a clean forkserver, not from the driver)."""
    ctx = multiprocessing.get_context("forkserver")
    with ctx.Manager() as mgr:
        q = mgr.Queue()
        with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_exit_with_driver,
                                 initargs=(os.getpid(),)) as pool:
            futures = {pool.submit(_pool_entry, t, q): t for t in tasks}
            pending = set(futures)
            try:
                while pending:
                    _drain(q, handle, POLL_S)
                    for f in [f for f in pending if f.done()]:
                        pending.discard(f)
                        _drain(q, handle, 0)  # what the worker sent before it returned
                        try:
                            yield f.result()
                        except Exception as e:  # noqa: BLE001 - a dead worker fails its pair, not the run
                            yield PairOutcome(futures[f].key, error=f"worker failed: {type(e).__name__}: {e}")
            finally:
                for f in pending:
                    f.cancel()
                _drain(q, handle, 0)


def _ray_entry(task: PairTask, q: Any) -> PairOutcome:
    return run_pair(task, q.put)


def run_ray(tasks: Sequence[PairTask], handle: Handle, workers: int, address: str | None = None
            ) -> Iterator[PairOutcome]:
    """As Ray tasks (one CPU each) on the cluster at ``address``, or on a local Ray instance
    with ``workers`` CPUs started here (and stopped at the end)."""
    import ray
    from ray.util.queue import Empty as RayEmpty
    from ray.util.queue import Queue

    started = False
    if not ray.is_initialized():
        kw: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if address:
            ray.init(address=address, **kw)
        else:
            ray.init(num_cpus=workers, **kw)
        started = True
    try:
        q = Queue()
        empty = (_queue.Empty, RayEmpty)
        remote = ray.remote(num_cpus=1, max_retries=0)(_ray_entry)
        refs = {remote.remote(t, q): t for t in tasks}
        waiting = list(refs)
        while waiting:
            done, waiting = ray.wait(waiting, num_returns=1, timeout=POLL_S)
            _drain(q, handle, 0, empty)
            for r in done:
                _drain(q, handle, 0, empty)
                try:
                    yield ray.get(r)
                except Exception as e:  # noqa: BLE001 - a failed task fails its pair, not the run
                    yield PairOutcome(refs[r].key, error=f"ray task failed: {type(e).__name__}: {str(e)[-2000:]}")
        _drain(q, handle, 0, empty)
    finally:
        if started:
            ray.shutdown()
