"""The driver is safe too (issue 18 item 4): a record store or experience bank that is locked,
corrupt, foreign or from a newer version is reported (one line, exit 2, no traceback) and left
byte for byte as it was; case files and suite manifests give a clear error naming the file and
the field for every malformed field."""

from __future__ import annotations

import copy
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ascendopt import dbfile
from ascendopt.bank.store import BankError, ExperienceBank
from ascendopt.cases import CaseError, load_case_file
from ascendopt.cli import app
from ascendopt.evaluate.store import SCHEMA_VERSION, SQLiteStore, StoreError
from ascendopt.suites import SuiteError, load_suite

from .conftest import FIXTURE_OPS

OP = FIXTURE_OPS / "scale_copy"
runner = CliRunner()


# ------------------------------------------------------------------------ bad files
def _store(path: Path) -> Path:
    with SQLiteStore(path) as s:
        run = s.create_run("x", {})
        for i in range(40):
            s.put_sources(f"d{i}", {"k.cpp": "x" * 3000})
        s.set_run_status(run, "finished")
    return path


def _bank(path: Path) -> Path:
    ExperienceBank(path).close()
    return path


def _random(path: Path) -> Path:
    path.write_bytes(os.urandom(16384))
    return path


def _truncated(path: Path, make) -> Path:
    good = make(path.with_name("good_" + path.name)).read_bytes()
    path.write_bytes(good[: len(good) // 2 + 100])
    return path


def _truncated_at_page(path: Path, make) -> Path:
    good = make(path.with_name("good_" + path.name)).read_bytes()
    path.write_bytes(good[: 4096 * 2])
    return path


def _foreign(path: Path) -> Path:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE mine (x)")
    db.commit()
    db.close()
    return path


def _newer_store(path: Path) -> Path:
    _store(path)
    db = sqlite3.connect(path)
    db.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    db.commit()
    db.execute("PRAGMA journal_mode=DELETE")  # a newer version may journal otherwise: opening must not switch it
    db.close()
    return path


def _newer_bank(path: Path) -> Path:
    _bank(path)
    db = sqlite3.connect(path)
    db.execute("UPDATE bank_schema SET version = 99")
    db.commit()
    db.close()
    return path


def _checkpointed(path: Path) -> bytes:
    """The file's bytes, with no -wal beside it (the tests compare the main file)."""
    assert not Path(str(path) + "-wal").exists() or Path(str(path) + "-wal").stat().st_size == 0
    return path.read_bytes()


STORE_FILES = {
    "random_bytes": (_random, "not an SQLite database"),
    "truncated": (lambda p: _truncated(p, _store), "truncated"),
    "truncated_at_a_page": (lambda p: _truncated_at_page(p, _store), "truncated"),
    "foreign_database": (_foreign, "not an ascendopt record database"),
    "newer_version": (_newer_store, "newer than this ascendopt"),
}
BANK_FILES = {
    "random_bytes": (_random, "not an SQLite database"),
    "truncated": (lambda p: _truncated(p, _bank), "truncated"),
    "foreign_database": (_foreign, "not an experience bank"),
    "newer_version": (_newer_bank, "newer than this ascendopt"),
}


@pytest.mark.parametrize("kind", STORE_FILES)
@pytest.mark.parametrize("readonly", [False, True])
def test_bad_record_store_is_refused_and_untouched(tmp_path, kind, readonly):
    make, why = STORE_FILES[kind]
    path = make(tmp_path / "r.db")
    before = _checkpointed(path)
    with pytest.raises(StoreError, match=why) as e:
        SQLiteStore(path, readonly=readonly)
    assert str(path) in str(e.value)
    assert path.read_bytes() == before


@pytest.mark.parametrize("kind", BANK_FILES)
@pytest.mark.parametrize("readonly", [False, True])
def test_bad_bank_is_refused_and_untouched(tmp_path, kind, readonly):
    make, why = BANK_FILES[kind]
    path = make(tmp_path / "b.db")
    before = _checkpointed(path)
    with pytest.raises(BankError, match=why) as e:
        ExperienceBank(path, readonly=readonly)
    assert str(path) in str(e.value)
    assert path.read_bytes() == before


def test_an_empty_file_is_a_new_store(tmp_path):
    (tmp_path / "r.db").write_bytes(b"")
    with SQLiteStore(tmp_path / "r.db") as s:
        assert s.list_runs() == []


class _Locker:
    """Another process holding the write lock of an SQLite file until stopped."""

    def __init__(self, path: Path):
        code = ("import sqlite3, sys, time\n"
                f"db = sqlite3.connect({str(path)!r}, isolation_level=None)\n"
                "db.execute('BEGIN IMMEDIATE')\n"
                "print('locked', flush=True)\n"
                "sys.stdin.read()\n")
        self.proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)
        assert self.proc.stdout.readline().strip() == "locked"

    def stop(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


@pytest.fixture
def short_lock_timeout(monkeypatch):
    monkeypatch.setattr(dbfile, "LOCK_TIMEOUT_S", 0.3)


@pytest.mark.parametrize("which", ["store", "bank"])
def test_locked_file_is_reported_at_open(tmp_path, short_lock_timeout, which):
    path = _store(tmp_path / "r.db") if which == "store" else _bank(tmp_path / "b.db")
    before = path.read_bytes()
    locker = _Locker(path)
    try:
        with pytest.raises(StoreError if which == "store" else BankError, match="locked by another process"):
            SQLiteStore(path) if which == "store" else ExperienceBank(path)
        # reading is not blocked by a writer (WAL store) and takes no lock
        if which == "store":
            with SQLiteStore(path, readonly=True) as s:
                assert len(s.list_runs()) == 1
    finally:
        locker.stop()
    assert path.read_bytes() == before


def test_a_store_locked_mid_run_raises_a_store_error(tmp_path, short_lock_timeout):
    store = SQLiteStore(_store(tmp_path / "r.db"))
    locker = _Locker(tmp_path / "r.db")
    try:
        with pytest.raises(StoreError, match="locked by another process"):
            store.create_run("y", {})
    finally:
        locker.stop()
        store.close()


# ------------------------------------------------------------------------------ CLI
def _one_line_exit(result, code: int = 2) -> str:
    assert result.exit_code == code, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    err = result.stderr.strip()
    assert "Traceback" not in result.output and "Traceback" not in err
    assert len(err.splitlines()) == 1, err
    return err


def _cli_commands(db: Path, bank: Path, out: Path) -> dict[str, list[str]]:
    return {
        "tune": ["tune", str(OP), "--budget", "1", "--db", str(db), "--out", str(out / "t")],
        "rewind": ["rewind", str(OP), "--budget", "1", "--db", str(db), "--bank", str(bank)],
        "optimize": ["optimize", str(OP), "--budget", "1", "--db", str(db), "--bank", str(bank),
                     "--out", str(out / "o")],
        "records": ["records", str(db)],
    }


@pytest.fixture
def no_llm(monkeypatch):
    for k in list(os.environ):
        if k.startswith(("ASCENDOPT_LLM", "OPENAI_")):
            monkeypatch.delenv(k)


@pytest.mark.parametrize("command", ["tune", "rewind", "optimize", "records"])
@pytest.mark.parametrize("kind", ["random_bytes", "truncated", "newer_version"])
def test_cli_refuses_a_bad_record_store(tmp_path, no_llm, command, kind):
    make, why = STORE_FILES[kind]
    db = make(tmp_path / "r.db")
    before = db.read_bytes()
    argv = _cli_commands(db, tmp_path / "b.db", tmp_path)[command]
    err = _one_line_exit(runner.invoke(app, argv))
    assert str(db) in err and why in err
    assert db.read_bytes() == before


@pytest.mark.parametrize("command", ["rewind", "optimize"])
@pytest.mark.parametrize("kind", ["random_bytes", "truncated", "newer_version"])
def test_cli_refuses_a_bad_bank(tmp_path, no_llm, command, kind):
    make, why = BANK_FILES[kind]
    bank = make(tmp_path / "b.db")
    before = bank.read_bytes()
    argv = _cli_commands(tmp_path / "r.db", bank, tmp_path)[command]
    err = _one_line_exit(runner.invoke(app, argv))
    assert str(bank) in err and why in err
    assert bank.read_bytes() == before


@pytest.mark.parametrize("command", ["tune", "rewind", "optimize"])
def test_cli_reports_a_locked_record_store(tmp_path, no_llm, short_lock_timeout, command):
    db = _store(tmp_path / "r.db")
    before = db.read_bytes()
    locker = _Locker(db)
    try:
        argv = _cli_commands(db, tmp_path / "b.db", tmp_path)[command]
        err = _one_line_exit(runner.invoke(app, argv))
    finally:
        locker.stop()
    assert str(db) in err and "locked by another process" in err
    assert db.read_bytes() == before


def test_cli_bank_list_refuses_a_corrupt_bank(tmp_path):
    bank = _random(tmp_path / "b.db")
    before = bank.read_bytes()
    err = _one_line_exit(runner.invoke(app, ["bank", "list", "--bank", str(bank)]))
    assert "not an SQLite database" in err
    assert bank.read_bytes() == before


# ------------------------------------------------------------------------ case files
GOOD_CASE = {
    "case_name": "c",
    "op": "ScaleCopy",
    "input_desc": [{"name": "x", "type": "float32", "format": "ND", "shape": [4, 8],
                    "data_distribute": "uniform", "value_range": [-1.0, 1.0]}],
    "output_desc": [{"name": "y", "type": "float32", "format": "ND", "shape": [4, 8]}],
    "attr": [{"name": "scale", "type": "float", "value": 2.0}],
    "calc_expect_func_file": "golden.py:calc_expect_func",
    "expect": "success",
}

_IN, _OUT, _ATTR = ("input_desc", 0), ("output_desc", 0), ("attr", 0)
_MISSING = object()

# (id, path to the field, malformed value or _MISSING, words the message must contain)
CASE_FIELDS = [
    ("op_missing", ("op",), _MISSING, "'op'"),
    ("op_not_string", ("op",), 5, "'op'"),
    ("case_name_not_string", ("case_name",), ["a"], "case_name"),
    ("expect_not_string", ("expect",), 1, "expect"),
    ("input_desc_not_list", ("input_desc",), {"name": "x"}, "input_desc"),
    ("output_desc_not_list", ("output_desc",), "y", "output_desc"),
    ("input_not_object", ("input_desc", 0), "x", "input"),
    ("input_name_not_string", (*_IN, "name"), 3, "'name'"),
    ("input_name_empty", (*_IN, "name"), "", "'name'"),
    ("input_shape_missing", (*_IN, "shape"), _MISSING, "'shape'"),
    ("input_shape_negative", (*_IN, "shape"), [4, -8], "shape"),
    ("input_shape_float", (*_IN, "shape"), [4, 8.0], "shape"),
    ("input_shape_string", (*_IN, "shape"), "4x8", "shape"),
    ("input_shape_bool", (*_IN, "shape"), [True, 8], "shape"),
    ("input_type_missing", (*_IN, "type"), _MISSING, "'type'"),
    ("input_type_unknown", (*_IN, "type"), "float33", "unknown dtype"),
    ("input_type_not_string", (*_IN, "type"), 32, "type"),
    ("input_type_empty_list", (*_IN, "type"), [], "type"),
    ("input_format_unknown", (*_IN, "format"), "NCHWX", "format"),
    ("input_format_not_string", (*_IN, "format"), 1, "format"),
    ("input_distribution_unknown", (*_IN, "data_distribute"), "gauss", "data_distribute"),
    ("input_distribution_not_string", (*_IN, "data_distribute"), 7, "data_distribute"),
    ("input_range_reversed", (*_IN, "value_range"), [1.0, -1.0], "value_range"),
    ("input_range_one_number", (*_IN, "value_range"), [1.0], "value_range"),
    ("input_range_string", (*_IN, "value_range"), "0..1", "value_range"),
    ("input_range_not_numbers", (*_IN, "value_range"), ["a", "b"], "value_range"),
    ("input_range_infinite", (*_IN, "value_range"), [0, float("inf")], "value_range"),
    ("input_range_bool", (*_IN, "value_range"), [False, True], "value_range"),
    ("input_value_ragged", (*_IN, "value"), [[1, 2], [3]], "value"),
    ("input_value_not_numbers", (*_IN, "value"), [["a", "b"]], "value"),
    ("input_value_object", (*_IN, "value"), {"a": 1}, "value"),
    ("variants_mismatched", (*_IN, "type"), ["float32", "float16"], "mismatched list lengths"),
    ("output_shape_negative", (*_OUT, "shape"), [-1], "shape"),
    ("output_type_unknown", (*_OUT, "type"), "complex256", "unknown dtype"),
    ("attr_not_list", ("attr",), "scale=2", "attr"),
    ("attr_type_not_string", (*_ATTR, "type"), 5, "attr 'scale'"),
    ("attr_entry_no_value", (*_ATTR, "value"), _MISSING, "'value'"),
    ("attr_entry_no_name", (*_ATTR, "name"), _MISSING, "'name'"),
    ("attr_type_unknown", (*_ATTR, "type"), "quaternion", "attr 'scale': unknown attr type"),
    ("attr_value_wrong_type", (*_ATTR, "value"), "two", "scale"),
    ("golden_not_string", ("calc_expect_func_file",), 3, "calc_expect_func_file"),
]


def _malformed(path: tuple, value) -> dict:
    case = copy.deepcopy(GOOD_CASE)
    if path == ("variants_mismatched",):
        return case
    node = case
    for key in path[:-1]:
        node = node[key]
    if value is _MISSING:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return case


def test_the_good_case_loads(tmp_path):
    f = tmp_path / "cases.json"
    f.write_text(json.dumps([GOOD_CASE]))
    (case,) = load_case_file(f)
    assert case.inputs[0].shape == (4, 8)


@pytest.mark.parametrize("label,path,value,words", CASE_FIELDS, ids=[c[0] for c in CASE_FIELDS])
def test_malformed_case_field_names_file_and_field(tmp_path, label, path, value, words):
    case = _malformed(path, value)
    if label == "variants_mismatched":  # two multi-entry lists of different lengths
        case["input_desc"][0]["shape"] = [[4, 8], [2, 2], [1, 1]]
    f = tmp_path / "cases.json"
    f.write_text(json.dumps([case]))
    with pytest.raises(CaseError) as e:
        load_case_file(f)
    msg = str(e.value)
    assert str(f) in msg, msg
    assert words in msg, msg
    assert "\n" not in msg


@pytest.mark.parametrize("text,words", [("", "invalid JSON"), ("{not json", "invalid JSON"),
                                        ("[1]", "must be an object"), ('"text"', "must be an object")])
def test_case_file_that_is_not_cases(tmp_path, text, words):
    f = tmp_path / "cases.json"
    f.write_text(text)
    with pytest.raises(CaseError, match=words) as e:
        load_case_file(f)
    assert str(f) in str(e.value)


# ---------------------------------------------------------------------- manifests
GOOD_OP = {"dir": "scale_copy", "level": 1, "golden": "g.py:f", "cases": ["c.json"], "own_cases": True,
           "benchmark": ["big"], "note": "n"}


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(v)


def _manifest(top: dict, ops: list[dict] | None) -> str:
    lines = [f"{k} = {_toml_value(v)}" for k, v in top.items()]
    for op in ops or []:
        lines.append("[[op]]")
        lines += [f"{k} = {_toml_value(v)}" for k, v in op.items()]
    return "\n".join(lines) + "\n"


# (id, top-level changes, op changes (None: no [[op]] tables), words the message must contain)
MANIFEST_FIELDS = [
    ("format_missing", {"format": _MISSING}, {}, "format"),
    ("format_newer", {"format": 2}, {}, "format 2"),
    ("format_string", {"format": "1"}, {}, "format"),
    ("format_bool", {"format": True}, {}, "format"),
    ("name_not_string", {"name": 3}, {}, "name"),
    ("description_not_string", {"description": ["a"]}, {}, "description"),
    ("op_not_tables", {"op": "scale_copy"}, None, "op must be"),
    ("no_ops", {}, None, "lists no operators"),
    ("dir_missing", {}, {"dir": _MISSING}, "dir"),
    ("dir_not_string", {}, {"dir": 3}, "dir"),
    ("dir_empty", {}, {"dir": ""}, "dir"),
    ("unknown_key", {}, {"levle": 1}, "levle"),
    ("level_too_high", {}, {"level": 4}, "level"),
    ("level_negative", {}, {"level": -1}, "level"),
    ("level_string", {}, {"level": "1"}, "level"),
    ("level_bool", {}, {"level": True}, "level"),
    ("golden_no_function", {}, {"golden": "g.py"}, "golden"),
    ("golden_not_string", {}, {"golden": 3}, "golden"),
    ("cases_string", {}, {"cases": "c.json"}, "cases"),
    ("cases_not_strings", {}, {"cases": [1]}, "cases"),
    ("own_cases_string", {}, {"own_cases": "no"}, "own_cases"),
    ("benchmark_string", {}, {"benchmark": "big"}, "benchmark"),
    ("benchmark_not_strings", {}, {"benchmark": [1, 2]}, "benchmark"),
    ("note_not_string", {}, {"note": 5}, "note"),
    ("dir_not_an_operator", {}, {"dir": "nope"}, "missing"),
]


def _apply(base: dict, changes: dict) -> dict:
    out = dict(base)
    for k, v in changes.items():
        if v is _MISSING:
            out.pop(k, None)
        else:
            out[k] = v
    return out


def test_the_good_manifest_loads(tmp_path):
    f = tmp_path / "suite.toml"
    f.write_text(_manifest({"format": 1, "name": "s"}, [GOOD_OP]))
    suite = load_suite(str(f), FIXTURE_OPS)
    assert [o.name for o in suite.ops] == ["scale_copy"] and suite.ops[0].level == 1


@pytest.mark.parametrize("label,top,op,words", MANIFEST_FIELDS, ids=[m[0] for m in MANIFEST_FIELDS])
def test_malformed_manifest_field_names_file_and_field(tmp_path, label, top, op, words):
    f = tmp_path / "suite.toml"
    f.write_text(_manifest(_apply({"format": 1, "name": "s"}, top), None if op is None else [_apply(GOOD_OP, op)]))
    with pytest.raises(SuiteError) as e:
        load_suite(str(f), FIXTURE_OPS)
    msg = str(e.value)
    assert words in msg, msg
    assert str(f) in msg or "suite 's'" in msg, msg


def test_unreadable_manifest(tmp_path):
    f = tmp_path / "suite.toml"
    f.write_text("format = = 1\n")
    with pytest.raises(SuiteError, match="not a readable TOML manifest") as e:
        load_suite(str(f), FIXTURE_OPS)
    assert str(f) in str(e.value)
