"""The experience bank: a versioned SQLite file of experiences, with dedup and lexical search.

Contract:

* One experience per dedup key (same family, same normalised diff,
  :meth:`~ascendopt.bank.experience.Experience.dedup_key`). Adding a near-identical
  experience again does not add a row: it raises the row's ``support`` (how many times the
  lesson was measured) and records the operator it was seen on; the first record's text and
  evidence stay (finished records are immutable).
* Every row is indexed for lexical search in an FTS5 table (BM25 ranking).
* The schema has a version and migrations (``MIGRATIONS[v]`` upgrades v -> v+1), like the
  record store; a newer file is refused with a clear error.
* Export/import is JSON (:data:`EXPORT_FORMAT`, versioned), portable between machines:
  ``export`` then ``import`` into an empty bank gives the same experiences.
* One connection guarded by a lock; each write commits. Only the driver process writes.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ascendopt import dbfile
from ascendopt.bank.experience import EXPERIENCE_VERSION, Experience, validate
from ascendopt.dbfile import describe_error, file_problem
from ascendopt.transforms.families import FAMILIES_VERSION


SCHEMA_VERSION = 2
EXPORT_FORMAT = "ascendopt-experience-bank"
EXPORT_VERSION = 2
DEFAULT_BANK_JSON = Path(__file__).resolve().parent / "default_bank.json"

_SCHEMA_V1 = """
CREATE TABLE experiences (
    id TEXT PRIMARY KEY,
    dedup_key TEXT NOT NULL UNIQUE,
    family TEXT NOT NULL,
    title TEXT NOT NULL,
    origin TEXT NOT NULL,
    speedup REAL NOT NULL,
    support INTEGER NOT NULL DEFAULT 1,
    seen_on TEXT NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX experiences_family ON experiences(family);
CREATE VIRTUAL TABLE experiences_fts USING fts5(id UNINDEXED, body);
"""

#: Version 2: what came of each proposal (``outcomes``), each experience's value per role
#: (``exp_values``) and the failure rules (``rules``); see :mod:`ascendopt.bank.outcomes` and
#: :mod:`ascendopt.bank.rules`.
_SCHEMA_V2 = """
CREATE TABLE IF NOT EXISTS outcomes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    role TEXT NOT NULL,
    op TEXT NOT NULL,
    digest TEXT NOT NULL,
    parent TEXT NOT NULL,
    rewrite TEXT NOT NULL,
    family TEXT NOT NULL,
    outcome TEXT NOT NULL,
    record TEXT NOT NULL,
    UNIQUE (role, op, digest, parent)
);
CREATE TABLE IF NOT EXISTS exp_values (
    exp_id TEXT NOT NULL,
    role TEXT NOT NULL,
    successes REAL NOT NULL DEFAULT 0,
    failures REAL NOT NULL DEFAULT 0,
    tries INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (exp_id, role)
);
CREATE TABLE IF NOT EXISTS rules (
    id TEXT PRIMARY KEY,
    record TEXT NOT NULL
);
"""


def _to_v2(db: sqlite3.Connection) -> None:
    for stmt in _SCHEMA_V2.split(";"):
        if stmt.strip():
            db.execute(stmt)


MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {1: _to_v2}


class BankError(RuntimeError):
    """A bank file or export that cannot be used (not a bank, newer version, bad record)."""


@dataclass(frozen=True)
class Entry:
    """A stored experience with its bank bookkeeping (``support``: times measured;
    ``seen_on``: operators it was measured on)."""

    experience: Experience
    support: int
    seen_on: tuple[str, ...]

    @property
    def id(self) -> str:
        return self.experience.id


def _guarded(method: Callable) -> Callable:
    """Turns an SQLite error in a bank method into a BankError naming the file and why."""

    @functools.wraps(method)
    def wrapper(self: "ExperienceBank", *args: Any, **kw: Any) -> Any:
        try:
            return method(self, *args, **kw)
        except sqlite3.Error as e:
            raise BankError(f"{self.path}: {describe_error(e, self.timeout_s)}") from None

    return wrapper


class ExperienceBank:
    """An experience bank in one SQLite file (``":memory:"`` for a throwaway one).

    A file that is not a bank (corrupt, truncated, another database), has a newer schema, or
    stays locked by another process for ``timeout_s`` is refused with a :class:`BankError`
    naming the file and the reason, and left as it was; opening read-write waits for the write
    lock once, so a locked bank is reported at open. An SQLite error in a later write is a
    BankError too.
    """

    def __init__(self, path: str | Path = ":memory:", readonly: bool = False, timeout_s: float | None = None):
        self.path = str(path)
        self.retrieval = "value"  # how Stage I ranks hits: "value" or "similarity" (bank.retrieve)
        self.timeout_s = timeout_s = dbfile.LOCK_TIMEOUT_S if timeout_s is None else timeout_s
        self._lock = threading.RLock()
        if readonly and not Path(self.path).exists():
            raise BankError(f"{self.path}: no such bank file")
        problem = file_problem(self.path)
        if problem:
            raise BankError(f"{self.path}: {problem}; left untouched")
        self._db: sqlite3.Connection | None = None
        try:
            if readonly:
                self._db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False,
                                           timeout=timeout_s)
            else:
                if self.path != ":memory:":
                    Path(self.path).parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=timeout_s)
                self._db.execute("BEGIN IMMEDIATE")  # waits for (and reports) another writer's lock
                self._db.rollback()
            self.schema_version = self._migrate(readonly)
        except (sqlite3.Error, BankError) as e:
            if self._db is not None:
                self._db.close()
            if isinstance(e, BankError):
                raise
            raise BankError(f"{self.path}: {describe_error(e, timeout_s)}; left untouched") from None

    def _migrate(self, readonly: bool) -> int:
        with self._lock:
            db = self._db
            has = db.execute("SELECT name FROM sqlite_master WHERE type='table' AND name='bank_schema'").fetchone()
            if not has:
                if readonly or db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                    raise BankError(f"{self.path}: not an experience bank")
                # a new bank is made at version 1 and migrated like an old one (one path to test)
                db.executescript("BEGIN;" + _SCHEMA_V1 + "CREATE TABLE bank_schema (version INTEGER NOT NULL);"
                                 "INSERT INTO bank_schema VALUES (1); COMMIT;")
            row = db.execute("SELECT version FROM bank_schema").fetchone()
            if row is None or not isinstance(row[0], int):
                raise BankError(f"{self.path}: corrupt bank (no schema version); left untouched")
            version = row[0]
            if version > SCHEMA_VERSION:
                raise BankError(f"{self.path}: bank schema version {version} is newer than this ascendopt "
                                f"({SCHEMA_VERSION}); upgrade ascendopt")
            while version < SCHEMA_VERSION:
                if readonly:  # readable as it is: what a newer version added reads as empty
                    return version
                if version not in MIGRATIONS:
                    raise BankError(f"{self.path}: no migration from bank schema version {version}")
                with db:
                    MIGRATIONS[version](db)
                    db.execute("UPDATE bank_schema SET version = ?", (version + 1,))
                version += 1
            return version

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @property
    def learns(self) -> bool:
        """Whether the file has the tables of outcomes, values and rules (schema 2 or later;
        an older bank opened read-only has not)."""
        return self.schema_version >= 2

    @_guarded
    def query(self, sql: str, args: tuple = ()) -> list[tuple]:
        """Rows of one read (for the bank's own modules: outcomes, rules, lineage)."""
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    @_guarded
    def write(self, statements: Iterable[tuple[str, tuple]]) -> list[int]:
        """Runs the statements in one transaction; returns each one's changed row count."""
        with self._lock, self._db:
            return [self._db.execute(sql, args).rowcount for sql, args in statements]

    def __enter__(self) -> "ExperienceBank":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------------ writes
    @_guarded
    def add(self, exp: Experience, seen_on: Iterable[str] = (), support: int = 1) -> tuple[str, bool]:
        """Adds an experience; returns ``(id, added)``: ``added`` is False when a near-identical
        one was there (its support grows instead)."""
        validate(exp.to_dict())
        key = exp.dedup_key()
        ops = sorted(set(seen_on) | ({exp.source["op"]} if exp.source.get("op") else set()))
        with self._lock, self._db:
            row = self._db.execute("SELECT id, support, seen_on FROM experiences WHERE dedup_key = ?", (key,)).fetchone()
            if row:
                merged = sorted(set(json.loads(row[2])) | set(ops))
                self._db.execute("UPDATE experiences SET support = ?, seen_on = ? WHERE id = ?",
                                 (row[1] + support, json.dumps(merged), row[0]))
                return row[0], False
            self._db.execute("INSERT INTO experiences (id, dedup_key, family, title, origin, speedup, support, seen_on,"
                             " record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                             (exp.id, key, exp.family, exp.title, exp.origin, exp.speedup, support, json.dumps(ops),
                              json.dumps(exp.to_dict(), sort_keys=True)))
            self._db.execute("INSERT INTO experiences_fts (id, body) VALUES (?, ?)", (exp.id, exp.search_text()))
            return exp.id, True

    # ------------------------------------------------------------------------- reads
    def _entry(self, row: tuple) -> Entry:
        return Entry(Experience.from_dict(json.loads(row[0])), int(row[1]), tuple(json.loads(row[2])))

    @_guarded
    def entries(self, family: str | None = None) -> list[Entry]:
        """Every experience (of one family), by family then descending speedup then id."""
        q = "SELECT record, support, seen_on FROM experiences"
        args: tuple = ()
        if family:
            q, args = q + " WHERE family = ?", (family,)
        with self._lock:
            rows = self._db.execute(q + " ORDER BY family, speedup DESC, id", args).fetchall()
        return [self._entry(r) for r in rows]

    @_guarded
    def get(self, exp_id: str) -> Entry | None:
        """By id or unique id prefix."""
        with self._lock:
            rows = self._db.execute("SELECT record, support, seen_on FROM experiences WHERE id LIKE ? ORDER BY id",
                                    (exp_id + "%",)).fetchall()
        return self._entry(rows[0]) if len(rows) == 1 else None

    @_guarded
    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM experiences").fetchone()[0])

    @_guarded
    def lexical(self, text: str, limit: int = 50) -> dict[str, float]:
        """BM25 relevance of each experience to the words of ``text`` (higher is better;
        experiences sharing no word are absent)."""
        words = sorted({w for w in "".join(c if c.isalnum() else " " for c in text.lower()).split() if len(w) > 1})
        if not words:
            return {}
        query = " OR ".join(f'"{w}"' for w in words)
        with self._lock:
            rows = self._db.execute("SELECT id, bm25(experiences_fts) FROM experiences_fts WHERE experiences_fts "
                                    "MATCH ? ORDER BY bm25(experiences_fts) LIMIT ?", (query, limit)).fetchall()
        return {r[0]: -float(r[1]) for r in rows}  # fts5's bm25 is lower-is-better

    @_guarded
    def families(self) -> dict[str, int]:
        with self._lock:
            return dict(self._db.execute("SELECT family, count(*) FROM experiences GROUP BY family ORDER BY family"))
