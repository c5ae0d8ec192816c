"""Golden functions run in a child process, with a timeout.

A golden is the user's code (``calc_expect_func``): it may hang, crash the interpreter or
import heavy modules. :class:`GoldenWorker` runs it in one long-lived child process
(``python -m ascendopt.cases.golden_worker``, spawned, not forked from the threaded driver,
and without re-importing the caller's ``__main__`` as multiprocessing's spawn would: scripts
without a main guard stay safe) that imports each golden file once
and keeps it (so modules do not pile up in the driver's ``sys.modules``, and re-imports cost
nothing). A call that does not finish within ``timeout_s`` kills the child (the work stops,
not just the waiting) and raises :class:`~ascendopt.dtypes.CaseError`; the next call starts a
fresh child. Calls are serialised (numerical libraries misbehave when entered from several
threads, and one child holds one golden at a time).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import traceback
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from ascendopt.cases.spec import Case
from ascendopt.dtypes import CaseError

DEFAULT_GOLDEN_TIMEOUT_S = 120.0
START_TIMEOUT_S = 120.0


def _serve(recv: Connection, conn: Connection) -> None:  # pragma: no cover - runs in the child
    from ascendopt.cases.golden import load_golden, run_golden

    loaded: dict[str, Any] = {}
    conn.send(("ready", None))  # the call timeout starts after the interpreter is up
    while True:
        try:
            msg = recv.recv()
        except EOFError:
            return
        spec, case, inputs = msg
        try:
            if spec not in loaded:
                loaded[spec] = load_golden(spec)
            conn.send(("ok", run_golden(loaded[spec], case, inputs)))
        except CaseError as e:
            conn.send(("case_error", str(e)))
        except BaseException as e:  # noqa: BLE001 - reported to the driver, the child goes on
            conn.send(("case_error", f"golden failed: {traceback.format_exception_only(type(e), e)[-1].strip()}"))


class GoldenWorker:
    """Computes expected outputs in a child process (see the module docstring)."""

    def __init__(self, timeout_s: float = DEFAULT_GOLDEN_TIMEOUT_S):
        self.timeout_s = timeout_s
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._conn: Connection | None = None
        self._send: Connection | None = None

    def _start(self) -> None:
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        try:
            self._proc = subprocess.Popen([sys.executable, "-m", "ascendopt.cases.golden_worker", str(to_child_r),
                                           str(from_child_w)], pass_fds=(to_child_r, from_child_w),
                                          stdin=subprocess.DEVNULL, start_new_session=True)
        finally:
            os.close(to_child_r)
            os.close(from_child_w)
        self._send = Connection(to_child_w, readable=False)
        self._conn = Connection(from_child_r, writable=False)
        if not self._conn.poll(START_TIMEOUT_S) or self._conn.recv()[0] != "ready":
            self._kill()
            raise CaseError(f"the golden worker process did not start within {START_TIMEOUT_S:g} s")

    def _alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def _kill(self) -> None:
        if self._proc is not None:
            if self._proc.poll() is None:
                self._proc.kill()
            self._proc.wait(5)
        for c in (self._send, self._conn):
            if c is not None:
                c.close()
        self._proc = self._conn = self._send = None

    def run(self, spec: str, case: Case, inputs: dict[str, np.ndarray], timeout_s: float | None = None
            ) -> list[np.ndarray]:
        """``run_golden(load_golden(spec), case, inputs)`` in the child.

        Raises:
            CaseError: The golden failed, did not finish in time, or killed its process.
        """
        limit = self.timeout_s if timeout_s is None else timeout_s
        with self._lock:
            try:
                if not self._alive():
                    self._kill()
                    self._start()
                self._send.send((spec, case, inputs))
                if not self._conn.poll(limit):
                    self._kill()
                    raise CaseError(f"case {case.name!r}: golden {spec} did not finish within {limit:g} s "
                                    "(its process was killed)")
                kind, value = self._conn.recv()
            except (EOFError, OSError, BrokenPipeError):
                code = self._proc.poll() if self._proc is not None else None
                self._kill()
                raise CaseError(f"case {case.name!r}: golden {spec} killed its process (exit code {code})") from None
        if kind != "ok":
            raise CaseError(value)
        return value

    def close(self) -> None:
        with self._lock:
            self._kill()

    def __getstate__(self) -> dict[str, Any]:
        return {"timeout_s": self.timeout_s}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["timeout_s"])


_WORKER: GoldenWorker | None = None
_WORKER_LOCK = threading.Lock()


def golden_worker() -> GoldenWorker:
    """This process's golden worker (started on first use)."""
    global _WORKER
    with _WORKER_LOCK:
        if _WORKER is None:
            _WORKER = GoldenWorker()
        return _WORKER


if __name__ == "__main__":  # pragma: no cover - the child process
    _serve(Connection(int(sys.argv[1]), writable=False), Connection(int(sys.argv[2]), readable=False))
