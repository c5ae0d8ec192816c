"""MemoryStore.count answers without rebuilding every record: the budget asks it after each
evaluation, and rebuilding made a 230-evaluation run quadratic (seconds per call at a few
hundred records)."""

from __future__ import annotations

from ascendopt.evaluate import store as store_mod
from ascendopt.evaluate.evaluator import Evaluation
from ascendopt.evaluate.store import MemoryStore, RecordStore


def test_count_matches_the_records_without_rebuilding_them(monkeypatch):
    s = MemoryStore()
    a, b = s.create_run("x", {}), s.create_run("y", {})
    for i in range(12):
        s.add_evaluation(a if i % 4 else b, Evaluation("ok", op_name="x" if i % 3 else "y", digest=str(i)),
                         charged=i % 2 == 0)
    want = {(r, op, c): RecordStore.count(s, r, op, c) for r in (a, b) for op in (None, "x", "y") for c in (True, False)}

    def no_rebuild(*_a, **_kw):
        raise AssertionError("count rebuilt a record")

    monkeypatch.setattr(store_mod.Evaluation, "from_dict", classmethod(no_rebuild))
    assert {k: s.count(*k) for k in want} == want
    assert sum(want[(a, None, c)] + want[(b, None, c)] for c in (True, False)) == 12
