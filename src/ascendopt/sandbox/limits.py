"""Resource limits for candidate processes (compilers, runner executables).

Limits are applied by exec'ing through util-linux ``prlimit`` rather than a ``preexec_fn``:
a ``preexec_fn`` forces a plain ``fork()`` in a threaded driver, which runs the
``pthread_atfork`` handlers of loaded libraries (OpenBLAS shuts its thread pool down there and
deadlocks if another thread is inside a BLAS call, e.g. a golden's matmul). Without a
``preexec_fn`` Python spawns with ``vfork``/``posix_spawn`` and no handlers run. ``prlimit``
execs the command in place, so pid, exit status and signals are the command's own.
"""

from __future__ import annotations

import resource
import shutil
from typing import Callable

_PRLIMIT = shutil.which("prlimit")


def limited(cmd: list[str], memory_bytes: int) -> tuple[list[str], Callable[[], None] | None]:
    """Returns ``(argv, preexec_fn)`` running `cmd` under RLIMIT_AS = `memory_bytes` and no core
    dumps; ``preexec_fn`` is only used when ``prlimit`` is not installed."""
    if _PRLIMIT:
        lim = [f"--as={int(memory_bytes)}"] if memory_bytes else []
        return [_PRLIMIT, *lim, "--core=0", "--", *cmd], None

    def preexec() -> None:
        if memory_bytes:
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return cmd, preexec
