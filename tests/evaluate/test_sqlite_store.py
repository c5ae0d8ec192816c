"""SQLite specifics: WAL, durability across reopen, schema version and migrations."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from ascendopt.evaluate import store as store_mod
from ascendopt.evaluate.store import SQLiteStore, StoreError

from .test_store_conformance import make_eval


def test_wal_and_reopen(tmp_path):
    path = tmp_path / "r.db"
    s = SQLiteStore(path)
    assert s._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    run = s.create_run("a", {"x": 1})
    s.add_evaluation(run, make_eval("d1"))
    s.put_sources("d1", {"op_kernel/k.cpp": "x"})
    s.close()
    ro = SQLiteStore(path, readonly=True)
    assert ro.schema_version == store_mod.SCHEMA_VERSION
    assert ro.list_evaluations(run)[0].evaluation.digest == "d1"
    assert ro.get_sources("d1") == {"op_kernel/k.cpp": "x"}
    with pytest.raises(store_mod.StoreError, match="readonly"):  # SQLite's errors come back as StoreError
        ro.create_run("b", {})
    ro.close()


def test_readonly_refuses_missing_or_foreign_files(tmp_path):
    with pytest.raises(StoreError):
        SQLiteStore(tmp_path / "missing.db", readonly=True)
    sqlite3.connect(tmp_path / "other.db").execute("CREATE TABLE t (x)").connection.commit()
    with pytest.raises(StoreError, match="not an ascendopt"):
        SQLiteStore(tmp_path / "other.db", readonly=True)


def test_migration_hook_upgrades_old_files(tmp_path, monkeypatch):
    path = tmp_path / "old.db"
    s = SQLiteStore(path)
    s.add_evaluation(s.create_run("a", {}), make_eval("d1"))
    s.close()
    current = store_mod.SCHEMA_VERSION

    def add_note(db):
        db.execute("ALTER TABLE evaluations ADD COLUMN note TEXT NOT NULL DEFAULT ''")

    monkeypatch.setattr(store_mod, "SCHEMA_VERSION", current + 1)
    monkeypatch.setitem(store_mod.MIGRATIONS, current, add_note)
    s = SQLiteStore(path)
    assert s.schema_version == current + 1
    cols = [r[1] for r in s._db.execute("PRAGMA table_info(evaluations)")]
    assert "note" in cols
    assert s.list_evaluations()[0].evaluation.digest == "d1"  # old records survive
    s.close()


def test_a_schema_v1_database_is_upgraded(tmp_path):
    """tests/fixtures/records/schema_v1.db was written by the v1 store (before launch keys)."""
    path = tmp_path / "v1.db"
    shutil.copyfile(Path(__file__).parents[1] / "fixtures" / "records" / "schema_v1.db", path)
    with pytest.raises(StoreError, match="needs migrating"):
        SQLiteStore(path, readonly=True)
    s = SQLiteStore(path)
    assert s.schema_version == store_mod.SCHEMA_VERSION
    recs = s.list_evaluations()
    assert [(r.charged, r.evaluation.latency_us, r.evaluation.launch_key, r.evaluation.same_as) for r in recs] == [
        (True, 12.5, "", ""), (False, 12.5, "", "")]
    assert s.find_evaluation("d1", "k1").latency_us == 12.5
    assert s.find_by_launch("", "k1") is None  # records without a launch key never match
    run = s.create_run("b", {})
    s.add_evaluation(run, make_eval("d2", key="k1", launch_key="L1"))
    assert s.find_by_launch("L1", "k1").digest == "d2"
    s.close()


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "new.db"
    SQLiteStore(path).close()
    db = sqlite3.connect(path)
    db.execute("UPDATE schema_version SET version = 99")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="newer"):
        SQLiteStore(path)


def test_a_database_of_the_tool_before_issue_33_is_read(tmp_path):
    """tests/fixtures/records/tune_v_current.db: ``ascendopt tune ops/level1/abs_custom --budget 3``
    as the code stood before issue 33's refactoring wrote it (schema 2). The store reads it as
    it is, and a run goes on from its records (a re-asked candidate is a duplicate)."""
    path = tmp_path / "old.db"
    shutil.copyfile(Path(__file__).parents[1] / "fixtures" / "records" / "tune_v_current.db", path)
    s = SQLiteStore(path, readonly=True)
    [run] = s.list_runs()
    assert (run.op, run.config["command"], run.config["budget"], run.status) == ("abs_custom", "tune", 3, "finished")
    recs = s.list_evaluations(run.id)
    assert [(r.charged, r.evaluation.status) for r in recs] == [(True, "ok")] * 3
    first = recs[0].evaluation
    assert first.latency_us == 9.6198 and first.profile and first.cases
    assert s.find_evaluation(first.digest, first.config_key).latency_us == first.latency_us
    s.close()
