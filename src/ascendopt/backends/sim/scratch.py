"""Reading what a run left in its scratch directory, which the candidate could write: regular
files only (never through a symlink, a FIFO or a device), bounded in size."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import IO


OUTPUT_TAIL_BYTES = 64 << 10


RESULT_MAX_BYTES = 256 << 20


def open_scratch(path: Path) -> IO[bytes]:
    """Opens a file of a run's scratch directory for reading, if it is a regular file: never
    through a symlink, nor a FIFO (which would block the driver) or device the candidate put
    there in its place. Raises OSError otherwise."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, f"{path.name} is not a regular file")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_scratch(path: Path, limit: int) -> bytes:
    """The contents of a scratch file (:func:`open_scratch`), at most `limit` bytes (more is
    an error, never read)."""
    with open_scratch(path) as f:
        if os.fstat(f.fileno()).st_size > limit:
            raise OSError(errno.EFBIG, f"{path.name} is larger than {limit} bytes")
        return f.read(limit + 1)


def tail(path: Path) -> str:
    try:
        with open_scratch(path) as f:
            f.seek(0, 2)
            f.seek(max(0, f.tell() - OUTPUT_TAIL_BYTES))
            return f.read().decode("utf-8", errors="replace")
    except OSError as e:
        return f"({path.name} unreadable: {e.strerror or e})"
