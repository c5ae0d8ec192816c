"""Pool workers exit when the driver is gone (a kill -9 left them running whole pairs for
nobody: seen after `pkill` of a `bench --workers 2`)."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from ascendopt.bench import dispatch


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


def test_a_pool_worker_exits_once_its_driver_is_gone():
    driver = subprocess.Popen(["sleep", "60"])  # stands in for the driver process
    ctx = multiprocessing.get_context("forkserver")
    pool = ProcessPoolExecutor(1, mp_context=ctx, initializer=dispatch._exit_with_driver,
                               initargs=(driver.pid, 0.1))
    try:
        worker = pool.submit(os.getpid).result(timeout=60)
        time.sleep(0.5)
        assert _alive(worker)  # the driver lives: so does the worker
        driver.kill()
        driver.wait()
        deadline = time.monotonic() + 10
        while _alive(worker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(worker)
    finally:
        driver.kill()
        pool.shutdown(wait=False, cancel_futures=True)
