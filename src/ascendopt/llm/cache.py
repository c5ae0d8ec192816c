"""Response cache for LLM requests, keyed by a hash of the request.

:class:`ResponseCache` is the interface; :class:`MemoryCache` (tests, one process) and
:class:`SQLiteCache` (table ``llm_cache`` in the record database file, beside the record
store's tables but not part of its schema) implement it.

Contract (both implementations):

* **Key** = :func:`request_key`: sha256 over the cache format version, model, messages,
  temperature and max_tokens (canonical JSON). The same request always maps to the same key;
  changing any of them, or :data:`CACHE_VERSION`, misses.
* **Value** = a JSON object (the completion text, model and token counts). :meth:`get`
  returns a copy; the first :meth:`put` of a key wins (later puts are ignored), so a cached
  answer never changes.
* **Thread-safe**; :class:`SQLiteCache` commits every put (durable once it returns).
"""

from __future__ import annotations

import abc
import copy
import hashlib
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

#: Version of the key derivation and of the stored value's format.
CACHE_VERSION = 1

_TABLE = """CREATE TABLE IF NOT EXISTS llm_cache (
    key TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    created REAL NOT NULL,
    model TEXT NOT NULL,
    response TEXT NOT NULL
)"""


def request_key(model: str, messages: list[dict[str, str]], temperature: float, max_tokens: int) -> str:
    """The cache key of a chat request (hex sha256)."""
    blob = json.dumps({"v": CACHE_VERSION, "model": model, "messages": messages,
                       "temperature": round(float(temperature), 6), "max_tokens": int(max_tokens)},
                      sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


class ResponseCache(abc.ABC):
    """Where LLM responses are kept (see the module docstring for the contract)."""

    @abc.abstractmethod
    def get(self, key: str) -> dict[str, Any] | None:
        """The stored value of ``key`` (a copy), or None."""

    @abc.abstractmethod
    def put(self, key: str, value: dict[str, Any]) -> None:
        """Stores ``value`` under ``key`` unless the key is already present."""

    def close(self) -> None:  # noqa: B027 - optional
        """Releases resources (idempotent)."""


class MemoryCache(ResponseCache):
    """In-process cache (a dict behind a lock)."""

    def __init__(self) -> None:
        self._d: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            v = self._d.get(key)
            return copy.deepcopy(v) if v is not None else None

    def put(self, key: str, value: dict[str, Any]) -> None:
        with self._lock:
            self._d.setdefault(key, copy.deepcopy(value))

    def __len__(self) -> int:
        return len(self._d)


class SQLiteCache(ResponseCache):
    """Cache in table ``llm_cache`` of a SQLite file (normally the record database).

    Opens its own connection and creates only its own table if missing; it never touches
    the record store's tables or its schema version. Entries of another :data:`CACHE_VERSION`
    are ignored.

    Args:
        path: The database file (created if missing), or ``":memory:"``.
    """

    def __init__(self, path: str | Path):
        self.path = str(path)
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = sqlite3.connect(self.path, check_same_thread=False, timeout=30.0)
        with self._db:
            self._db.execute(_TABLE)

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            assert self._db is not None, "cache is closed"
            row = self._db.execute("SELECT response FROM llm_cache WHERE key = ? AND version = ?",
                                   (key, CACHE_VERSION)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, value: dict[str, Any]) -> None:
        blob = json.dumps(value, ensure_ascii=False)
        with self._lock:
            assert self._db is not None, "cache is closed"
            with self._db:
                self._db.execute("INSERT OR IGNORE INTO llm_cache (key, version, created, model, response) "
                                 "VALUES (?, ?, ?, ?, ?)",
                                 (key, CACHE_VERSION, time.time(), str(value.get("model", "")), blob))

    def __len__(self) -> int:
        with self._lock:
            assert self._db is not None, "cache is closed"
            return self._db.execute("SELECT COUNT(*) FROM llm_cache WHERE version = ?", (CACHE_VERSION,)).fetchone()[0]

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
