"""The record store: every run, every evaluation, every candidate's sources.

:class:`RecordStore` is the interface; :class:`SQLiteStore` (default file ``./ascendopt.db``,
WAL journal, versioned schema with migrations) and :class:`MemoryStore` (tests, dry runs)
implement it. ``tests/evaluate/store_conformance.py`` runs the same tests against both.
"""

from __future__ import annotations

import abc
import functools
import json
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from ascendopt import dbfile
from ascendopt.dbfile import describe_error, file_problem
from ascendopt.evaluate.evaluator import Evaluation

DEFAULT_DB = Path("ascendopt.db")
SCHEMA_VERSION = 2


class StoreError(RuntimeError):
    """The store cannot be used (unknown run, newer schema than this code, a corrupt, foreign
    or locked file, ...)."""


@dataclass(frozen=True)
class RunRecord:
    """One optimization/evaluation run (``status``: ``running``, ``finished``, ``failed``)."""

    id: int
    created: float
    op: str
    config: dict[str, Any]
    status: str


@dataclass(frozen=True)
class EvalRecord:
    """One recorded evaluation. ``charged`` is False for a duplicate answered from the records."""

    id: int
    run_id: int
    created: float
    charged: bool
    evaluation: Evaluation = field(compare=False)


class RecordStore(abc.ABC):
    """Where runs, evaluations and candidate sources are kept.

    Contract (every implementation; checked by the conformance tests):

    * **Single writer.** Only the driver process writes; workers (process pool, Ray) return
      results to it. Other processes may open the same store to read.
    * **Thread-safe.** All methods may be called from several threads of the driver.
    * **Durable per evaluation.** :meth:`add_evaluation` returns only after the record is
      durable (a crash or ``kill -9`` after it returns loses nothing).
    * **Finished records are immutable.** Evaluations are never updated or deleted; sources
      are stored once per digest (later puts of the same digest are ignored); a run's
      ``config`` never changes, only its ``status``.
    * **Reads return copies.** Mutating a returned object does not change the store.
    """

    # --------------------------------------------------------------------------- runs
    @abc.abstractmethod
    def create_run(self, op: str, config: Mapping[str, Any]) -> int:
        """Starts a run and returns its id (ids increase)."""

    @abc.abstractmethod
    def set_run_status(self, run_id: int, status: str) -> None:
        """Marks a run ``running``/``finished``/``failed``. Raises StoreError for an unknown id."""

    @abc.abstractmethod
    def get_run(self, run_id: int) -> RunRecord | None: ...

    @abc.abstractmethod
    def list_runs(self) -> list[RunRecord]:
        """All runs, oldest first."""

    # ------------------------------------------------------------------------ sources
    @abc.abstractmethod
    def put_sources(self, digest: str, files: Mapping[str, str]) -> None:
        """Stores a candidate's files once (idempotent)."""

    @abc.abstractmethod
    def get_sources(self, digest: str) -> dict[str, str] | None: ...

    # -------------------------------------------------------------------- evaluations
    @abc.abstractmethod
    def add_evaluation(self, run_id: int, evaluation: Evaluation, charged: bool = True) -> int:
        """Appends an evaluation to a run, durably; returns the record id.

        Raises StoreError for an unknown run id.
        """

    @abc.abstractmethod
    def list_evaluations(self, run_id: int | None = None, op: str | None = None) -> list[EvalRecord]:
        """Evaluations (optionally of one run / operator), in insertion order."""

    @abc.abstractmethod
    def find_evaluation(self, digest: str, config_key: str) -> Evaluation | None:
        """The first charged evaluation of `digest` under `config_key` (any run), if any."""

    @abc.abstractmethod
    def find_by_launch(self, launch_key: str, config_key: str) -> Evaluation | None:
        """The first charged evaluation with `launch_key` under `config_key` (any run), if any."""

    @abc.abstractmethod
    def find_by_digest(self, digest_prefix: str) -> list[EvalRecord]:
        """Evaluations whose candidate digest starts with `digest_prefix`."""

    def count(self, run_id: int, op: str | None = None, charged: bool = True) -> int:
        """Charged (or, with ``charged=False``, duplicate) evaluations of a run / operator."""
        return sum(1 for r in self.list_evaluations(run_id, op) if r.charged == charged)

    def close(self) -> None:  # noqa: B027 - optional
        """Releases resources."""

    def __enter__(self) -> "RecordStore":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


# ------------------------------------------------------------------------------ memory
class MemoryStore(RecordStore):
    """A process-local store (nothing survives the process). For tests and dry runs."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[int, dict[str, Any]] = {}
        self._evals: list[tuple[int, int, float, bool, dict[str, Any]]] = []
        self._sources: dict[str, str] = {}

    def create_run(self, op: str, config: Mapping[str, Any]) -> int:
        with self._lock:
            rid = len(self._runs) + 1
            self._runs[rid] = {"created": time.time(), "op": op, "config": json.dumps(dict(config), default=str),
                               "status": "running"}
            return rid

    def set_run_status(self, run_id: int, status: str) -> None:
        with self._lock:
            if run_id not in self._runs:
                raise StoreError(f"no run {run_id}")
            self._runs[run_id]["status"] = status

    def get_run(self, run_id: int) -> RunRecord | None:
        with self._lock:
            r = self._runs.get(run_id)
            return None if r is None else RunRecord(run_id, r["created"], r["op"], json.loads(r["config"]), r["status"])

    def list_runs(self) -> list[RunRecord]:
        return [r for r in (self.get_run(i) for i in sorted(self._runs)) if r]

    def put_sources(self, digest: str, files: Mapping[str, str]) -> None:
        with self._lock:
            self._sources.setdefault(digest, json.dumps(dict(sorted(files.items()))))

    def get_sources(self, digest: str) -> dict[str, str] | None:
        with self._lock:
            s = self._sources.get(digest)
            return None if s is None else json.loads(s)

    def add_evaluation(self, run_id: int, evaluation: Evaluation, charged: bool = True) -> int:
        with self._lock:
            if run_id not in self._runs:
                raise StoreError(f"no run {run_id}")
            eid = len(self._evals) + 1
            self._evals.append((eid, run_id, time.time(), bool(charged),
                                json.loads(json.dumps(evaluation.to_dict(), default=str))))
            return eid

    def _records(self, pred: Callable[[tuple], bool]) -> list[EvalRecord]:
        with self._lock:
            rows = [e for e in self._evals if pred(e)]
        return [EvalRecord(e[0], e[1], e[2], e[3], Evaluation.from_dict(json.loads(json.dumps(e[4])))) for e in rows]

    def list_evaluations(self, run_id: int | None = None, op: str | None = None) -> list[EvalRecord]:
        return self._records(lambda e: (run_id is None or e[1] == run_id) and (op is None or e[4]["op_name"] == op))

    def find_evaluation(self, digest: str, config_key: str) -> Evaluation | None:
        recs = self._records(lambda e: e[3] and e[4]["digest"] == digest and e[4]["config_key"] == config_key)
        return recs[0].evaluation if recs else None

    def find_by_launch(self, launch_key: str, config_key: str) -> Evaluation | None:
        if not launch_key:
            return None
        recs = self._records(lambda e: e[3] and e[4].get("launch_key") == launch_key
                             and e[4]["config_key"] == config_key)
        return recs[0].evaluation if recs else None

    def find_by_digest(self, digest_prefix: str) -> list[EvalRecord]:
        return self._records(lambda e: e[4]["digest"].startswith(digest_prefix))

    def count(self, run_id: int, op: str | None = None, charged: bool = True) -> int:
        # without rebuilding every record (the budget asks after each evaluation)
        with self._lock:
            return sum(1 for e in self._evals
                       if e[1] == run_id and e[3] == bool(charged) and (op is None or e[4]["op_name"] == op))


# ------------------------------------------------------------------------------ sqlite
_SCHEMA_V1 = """
CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created REAL NOT NULL,
    op TEXT NOT NULL,
    config TEXT NOT NULL,
    status TEXT NOT NULL
);
CREATE TABLE sources (
    digest TEXT PRIMARY KEY,
    files TEXT NOT NULL
);
CREATE TABLE evaluations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    op TEXT NOT NULL,
    digest TEXT NOT NULL,
    parent TEXT,
    origin TEXT NOT NULL,
    status TEXT NOT NULL,
    error TEXT NOT NULL,
    error_kind TEXT NOT NULL,
    latency_us REAL,
    profile TEXT NOT NULL,
    seed INTEGER NOT NULL,
    timings TEXT NOT NULL,
    backend TEXT NOT NULL,
    soc TEXT NOT NULL,
    config_key TEXT NOT NULL,
    charged INTEGER NOT NULL,
    cases TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE INDEX evaluations_run ON evaluations(run_id, op);
CREATE INDEX evaluations_digest ON evaluations(digest, config_key);
"""

#: Migrations: ``MIGRATIONS[v]`` upgrades a database from schema version ``v`` to ``v + 1``
#: inside one transaction. Add an entry (and bump SCHEMA_VERSION) for every schema change;
#: keep an old database under tests/fixtures/records/ to test the upgrade.
def _v1_to_v2(db: sqlite3.Connection) -> None:
    """v2: launch keys (answers by equivalent device program) and what an answer was taken from."""
    db.execute("ALTER TABLE evaluations ADD COLUMN launch_key TEXT NOT NULL DEFAULT ''")
    db.execute("ALTER TABLE evaluations ADD COLUMN same_as TEXT NOT NULL DEFAULT ''")
    db.execute("CREATE INDEX evaluations_launch ON evaluations(launch_key, config_key)")


MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {1: _v1_to_v2}


def _guarded(method: Callable) -> Callable:
    """Turns an SQLite error in a store method into a StoreError naming the file and why."""

    @functools.wraps(method)
    def wrapper(self: "SQLiteStore", *args: Any, **kw: Any) -> Any:
        try:
            return method(self, *args, **kw)
        except sqlite3.Error as e:
            raise StoreError(f"{self.path}: {describe_error(e, self.timeout_s)}") from None

    return wrapper


class SQLiteStore(RecordStore):
    """SQLite record store (WAL journal; one connection guarded by a lock; commit per write).

    A file that is not an ascendopt record database (corrupt, truncated, another program's
    database), has a newer schema, or stays locked by another process for ``timeout_s`` is
    refused with a :class:`StoreError` naming the file and the reason, and left as it was.
    Opening read-write also waits for the write lock once, so a store another process keeps
    locked is reported at open rather than at the first write. An SQLite error in any later
    call is a StoreError too.

    Args:
        path: Database file (default ``./ascendopt.db``); ``":memory:"`` for a throwaway one.
        readonly: Open for reading only (e.g. ``ascendopt records`` while a run is going on).
        timeout_s: How long a statement waits for another process's lock (default
            :data:`ascendopt.dbfile.LOCK_TIMEOUT_S`).
    """

    def __init__(self, path: str | Path = DEFAULT_DB, readonly: bool = False, timeout_s: float | None = None):
        self.path = str(path)
        self.timeout_s = timeout_s = dbfile.LOCK_TIMEOUT_S if timeout_s is None else timeout_s
        self._lock = threading.RLock()
        if readonly and not Path(self.path).exists():
            raise StoreError(f"{self.path}: no such record database")
        problem = file_problem(self.path)
        if problem:
            raise StoreError(f"{self.path}: {problem}; left untouched")
        self._db: sqlite3.Connection | None = None
        try:
            if readonly:
                self._db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False,
                                           timeout=timeout_s)
            else:
                self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=timeout_s)
            self._check_ours()
            if not readonly:
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL" if self.path == ":memory:" else "PRAGMA synchronous=FULL")
                self._db.execute("BEGIN IMMEDIATE")  # waits for (and reports) another writer's lock
                self._db.rollback()
            self._db.execute("PRAGMA foreign_keys=ON")
            self.schema_version = self._migrate(readonly)
        except (sqlite3.Error, StoreError) as e:
            if self._db is not None:
                self._db.close()
            if isinstance(e, StoreError):
                raise
            raise StoreError(f"{self.path}: {describe_error(e, timeout_s)}; left untouched") from None

    def _check_ours(self) -> None:
        """Refuses a database that has tables but is not a record database (nothing is written).
        The LLM response cache's own table (:mod:`ascendopt.llm.cache`) may come first."""
        names = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")
                 if not r[0].startswith("sqlite_")}
        if names - {"llm_cache"} and "schema_version" not in names:
            raise StoreError(f"{self.path}: not an ascendopt record database (it has other tables); left untouched")
        row = self._db.execute("SELECT version FROM schema_version").fetchone() if "schema_version" in names else None
        if row is not None and isinstance(row[0], int) and row[0] > SCHEMA_VERSION:  # before any pragma writes
            raise StoreError(f"{self.path}: schema version {row[0]} is newer than this ascendopt "
                             f"({SCHEMA_VERSION}); upgrade ascendopt")

    def _migrate(self, readonly: bool) -> int:
        with self._lock:
            db = self._db
            has = db.execute("SELECT name FROM sqlite_master WHERE type='table' AND name='schema_version'").fetchone()
            if not has:
                if readonly:
                    raise StoreError(f"{self.path}: not an ascendopt record database")
                db.executescript("BEGIN;" + _SCHEMA_V1 + "CREATE TABLE schema_version (version INTEGER NOT NULL);"
                                 "INSERT INTO schema_version VALUES (1); COMMIT;")
            row = db.execute("SELECT version FROM schema_version").fetchone()
            if row is None or not isinstance(row[0], int):
                raise StoreError(f"{self.path}: corrupt record database (no schema version); left untouched")
            version = row[0]
            if version > SCHEMA_VERSION:
                raise StoreError(f"{self.path}: schema version {version} is newer than this ascendopt "
                                 f"({SCHEMA_VERSION}); upgrade ascendopt")
            while version < SCHEMA_VERSION:
                if readonly:
                    raise StoreError(f"{self.path}: schema version {version} needs migrating; open it read-write")
                step = MIGRATIONS.get(version)
                if step is None:
                    raise StoreError(f"{self.path}: no migration from schema version {version}")
                with db:
                    step(db)
                    db.execute("UPDATE schema_version SET version = ?", (version + 1,))
                version += 1
            return version

    @_guarded
    def close(self) -> None:
        with self._lock:
            self._db.close()

    # --------------------------------------------------------------------------- runs
    @_guarded
    def create_run(self, op: str, config: Mapping[str, Any]) -> int:
        with self._lock, self._db:
            cur = self._db.execute("INSERT INTO runs (created, op, config, status) VALUES (?, ?, ?, 'running')",
                                   (time.time(), op, json.dumps(dict(config), sort_keys=True, default=str)))
            return int(cur.lastrowid)

    @_guarded
    def set_run_status(self, run_id: int, status: str) -> None:
        with self._lock, self._db:
            cur = self._db.execute("UPDATE runs SET status = ? WHERE id = ?", (status, run_id))
            if cur.rowcount == 0:
                raise StoreError(f"no run {run_id}")

    def _run(self, row: tuple) -> RunRecord:
        return RunRecord(int(row[0]), float(row[1]), row[2], json.loads(row[3]), row[4])

    @_guarded
    def get_run(self, run_id: int) -> RunRecord | None:
        with self._lock:
            row = self._db.execute("SELECT id, created, op, config, status FROM runs WHERE id = ?",
                                   (run_id,)).fetchone()
        return None if row is None else self._run(row)

    @_guarded
    def list_runs(self) -> list[RunRecord]:
        with self._lock:
            rows = self._db.execute("SELECT id, created, op, config, status FROM runs ORDER BY id").fetchall()
        return [self._run(r) for r in rows]

    # ------------------------------------------------------------------------ sources
    @_guarded
    def put_sources(self, digest: str, files: Mapping[str, str]) -> None:
        with self._lock, self._db:
            self._db.execute("INSERT OR IGNORE INTO sources (digest, files) VALUES (?, ?)",
                             (digest, json.dumps(dict(sorted(files.items())))))

    @_guarded
    def get_sources(self, digest: str) -> dict[str, str] | None:
        with self._lock:
            row = self._db.execute("SELECT files FROM sources WHERE digest = ?", (digest,)).fetchone()
        return None if row is None else json.loads(row[0])

    # -------------------------------------------------------------------- evaluations
    _COLS = ("id, run_id, created, charged, op, digest, parent, origin, status, error, error_kind, latency_us, "
             "profile, seed, timings, backend, soc, config_key, cases, launch_key, same_as")

    @_guarded
    def add_evaluation(self, run_id: int, evaluation: Evaluation, charged: bool = True) -> int:
        e = evaluation
        cases = json.dumps({"cases": [c.to_dict() for c in e.cases],
                            "benchmark": [c.to_dict() for c in e.benchmark]}, default=str)
        with self._lock:
            if self._db.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone() is None:
                raise StoreError(f"no run {run_id}")
            with self._db:  # one transaction, committed before returning
                cur = self._db.execute(
                    "INSERT INTO evaluations (run_id, op, digest, parent, origin, status, error, error_kind, "
                    "latency_us, profile, seed, timings, backend, soc, config_key, charged, cases, created, "
                    "launch_key, same_as) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (run_id, e.op_name, e.digest, e.parent, e.origin, e.status, e.error, e.error_kind, e.latency_us,
                     json.dumps(e.profile, default=str), int(e.seed), json.dumps(e.timings), e.backend, e.soc,
                     e.config_key, int(bool(charged)), cases, time.time(), e.launch_key, e.same_as))
                return int(cur.lastrowid)

    def _record(self, row: tuple) -> EvalRecord:
        (eid, run_id, created, charged, op, digest, parent, origin, status, error, error_kind, latency_us,
         profile, seed, timings, backend, soc, config_key, cases, launch_key, same_as) = row
        cs = json.loads(cases)
        ev = Evaluation.from_dict(dict(
            status=status, error=error, error_kind=error_kind, latency_us=latency_us, cases=cs.get("cases", []),
            benchmark=cs.get("benchmark", []), profile=json.loads(profile), seed=seed, timings=json.loads(timings),
            backend=backend, soc=soc, op_name=op, digest=digest, parent=parent, origin=origin,
            config_key=config_key, duplicate=not charged, launch_key=launch_key, same_as=same_as))
        return EvalRecord(int(eid), int(run_id), float(created), bool(charged), ev)

    @_guarded
    def _select(self, where: str, args: tuple) -> list[EvalRecord]:
        with self._lock:
            rows = self._db.execute(f"SELECT {self._COLS} FROM evaluations {where} ORDER BY id", args).fetchall()
        return [self._record(r) for r in rows]

    def list_evaluations(self, run_id: int | None = None, op: str | None = None) -> list[EvalRecord]:
        conds, args = [], []
        if run_id is not None:
            conds.append("run_id = ?")
            args.append(run_id)
        if op is not None:
            conds.append("op = ?")
            args.append(op)
        return self._select(("WHERE " + " AND ".join(conds)) if conds else "", tuple(args))

    def find_evaluation(self, digest: str, config_key: str) -> Evaluation | None:
        recs = self._select("WHERE digest = ? AND config_key = ? AND charged = 1", (digest, config_key))
        return recs[0].evaluation if recs else None

    def find_by_launch(self, launch_key: str, config_key: str) -> Evaluation | None:
        if not launch_key:
            return None
        recs = self._select("WHERE launch_key = ? AND config_key = ? AND charged = 1", (launch_key, config_key))
        return recs[0].evaluation if recs else None

    def find_by_digest(self, digest_prefix: str) -> list[EvalRecord]:
        esc = digest_prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return self._select("WHERE digest LIKE ? ESCAPE '\\'", (esc + "%",))

    @_guarded
    def count(self, run_id: int, op: str | None = None, charged: bool = True) -> int:
        sql, args = "SELECT COUNT(*) FROM evaluations WHERE run_id = ? AND charged = ?", [run_id, int(charged)]
        if op is not None:
            sql += " AND op = ?"
            args.append(op)
        with self._lock:
            return int(self._db.execute(sql, tuple(args)).fetchone()[0])
