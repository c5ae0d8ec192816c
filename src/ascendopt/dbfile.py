"""Opening the SQLite files the tool keeps (record store, experience bank) without harming them.

A file that is not an SQLite database, is truncated, or stays locked by another process is
reported with a one-line reason naming the problem; it is never initialised over, repaired or
written. SQLite itself only notices a truncated file when a query reaches a missing page, and
a write that reaches only pages that exist goes through, so the file header is checked before
the file is opened (a read of 100 bytes).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

SQLITE_MAGIC = b"SQLite format 3\x00"
#: How long an open or a statement waits for another process's lock before giving up
#: (read when a store or bank is opened without an explicit ``timeout_s``).
LOCK_TIMEOUT_S = 30.0
_HEADER_BYTES = 100


def file_problem(path: str | Path) -> str:
    """What is wrong with ``path`` as an SQLite database, or "" when nothing visible is.

    A missing or empty file (a new database) and ``":memory:"`` are fine. The checks are the
    header's magic string and page size, and the file size against the header's page count
    (SQLite's "in-header database size", trusted only when its change counters agree). The
    size checks are skipped while a non-empty ``-wal`` file is beside it (the database is in
    use; SQLite's own errors then speak).
    """
    if str(path) == ":memory:":
        return ""
    p = Path(path)
    try:
        size = p.stat().st_size
    except FileNotFoundError:
        return ""
    except OSError as e:
        return f"cannot read it ({e.strerror or e})"
    if not p.is_file():
        return "not a regular file"
    if size == 0:
        return ""
    try:
        with p.open("rb") as f:
            head = f.read(_HEADER_BYTES)
    except OSError as e:
        return f"cannot read it ({e.strerror or e})"
    if len(head) < _HEADER_BYTES or not head.startswith(SQLITE_MAGIC):
        return "not an SQLite database (corrupt, or another kind of file)"
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512 or page_size & (page_size - 1):
        return f"corrupt SQLite header (page size {page_size})"
    if _wal_in_use(p):  # a checkpoint may be growing the file right now: SQLite judges the size
        return ""
    if size % page_size:
        return f"truncated or corrupt ({size} bytes is not a whole number of {page_size}-byte pages)"
    pages = int.from_bytes(head[28:32], "big")
    if pages and head[24:28] == head[92:96] and size < pages * page_size:
        return f"truncated ({size} bytes; its header says {pages * page_size})"
    return ""


def _wal_in_use(p: Path) -> bool:
    """A non-empty ``-wal`` file beside the database: another connection may be checkpointing
    (page 1, with the new page count, is written before the pages that grow the file)."""
    try:
        return p.with_name(p.name + "-wal").stat().st_size > 0
    except OSError:
        return False


def describe_error(e: sqlite3.Error, timeout_s: float) -> str:
    """A one-line reason for an SQLite error on one of our files (locked, corrupt, ...)."""
    text = str(e)
    low = text.lower()
    if "locked" in low or "busy" in low:
        return f"locked by another process (still locked after waiting {timeout_s:g} s)"
    if "not a database" in low or "malformed" in low or "corrupt" in low:
        return f"corrupt ({text})"
    return f"{type(e).__name__}: {text}"
