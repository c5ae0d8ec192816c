"""Conformance tests of the RecordStore contract, run against every implementation."""

from __future__ import annotations

import threading

import pytest

from ascendopt.evaluate.check import CaseResult
from ascendopt.evaluate.evaluator import Evaluation
from ascendopt.evaluate.store import MemoryStore, RecordStore, SQLiteStore, StoreError

IMPLEMENTATIONS = {
    "sqlite": lambda tmp_path: SQLiteStore(tmp_path / "records.db"),
    "memory": lambda tmp_path: MemoryStore(),
}


@pytest.fixture(params=sorted(IMPLEMENTATIONS))
def store(request, tmp_path) -> RecordStore:
    s = IMPLEMENTATIONS[request.param](tmp_path)
    yield s
    s.close()


def make_eval(digest: str = "d1", status: str = "ok", key: str = "k", op: str = "opx", **kw) -> Evaluation:
    return Evaluation(status, latency_us=1.5 if status == "ok" else None, seed=3, op_name=op, digest=digest,
                      parent=kw.pop("parent", None), origin=kw.pop("origin", "original"), config_key=key,
                      backend="sim", soc="Ascend910B2", timings={"build_s": 1.0, "total_s": 2.0},
                      profile={"c": {"task_duration_us": 1.5, "pipe_ratio_mean": {"V": 0.5}}},
                      cases=[CaseResult("c", status, max_abs_err=0.0, seed=3)], **kw)


def test_runs(store):
    a = store.create_run("opx", {"budget": 3, "nested": {"x": [1, 2]}})
    b = store.create_run("opy", {})
    assert b > a
    assert [r.id for r in store.list_runs()] == [a, b]
    r = store.get_run(a)
    assert (r.op, r.config, r.status) == ("opx", {"budget": 3, "nested": {"x": [1, 2]}}, "running")
    store.set_run_status(a, "finished")
    assert store.get_run(a).status == "finished"
    assert store.get_run(999) is None
    with pytest.raises(StoreError):
        store.set_run_status(999, "finished")


def test_evaluation_round_trip(store):
    run = store.create_run("opx", {})
    ev = make_eval(parent="p0", origin="stage2/evo", error="", error_kind="")
    eid = store.add_evaluation(run, ev)
    [rec] = store.list_evaluations(run)
    assert rec.id == eid and rec.run_id == run and rec.charged and rec.created > 0
    assert rec.evaluation == ev


def test_unknown_run_is_refused(store):
    with pytest.raises(StoreError):
        store.add_evaluation(12345, make_eval())


def test_filters_counts_and_order(store):
    r1, r2 = store.create_run("a", {}), store.create_run("b", {})
    store.add_evaluation(r1, make_eval("d1", op="a"))
    store.add_evaluation(r1, make_eval("d2", "timeout", op="a"))
    store.add_evaluation(r1, make_eval("d1", op="a", duplicate=True), charged=False)
    store.add_evaluation(r1, make_eval("d3", op="b"))
    store.add_evaluation(r2, make_eval("d4", op="a"))
    assert [r.evaluation.digest for r in store.list_evaluations(r1)] == ["d1", "d2", "d1", "d3"]
    assert [r.evaluation.digest for r in store.list_evaluations(r1, "a")] == ["d1", "d2", "d1"]
    assert [r.evaluation.digest for r in store.list_evaluations(op="a")] == ["d1", "d2", "d1", "d4"]
    assert store.count(r1, "a") == 2 and store.count(r1, "a", charged=False) == 1
    assert store.count(r1) == 3 and store.count(r2) == 1


def test_find_by_launch_needs_launch_key_and_config_key(store):
    run = store.create_run("opx", {})
    store.add_evaluation(run, make_eval("d1", key="k1", launch_key="L"), charged=False)
    assert store.find_by_launch("L", "k1") is None  # answers are not sources of truth
    store.add_evaluation(run, make_eval("d2", key="k1", launch_key="L"))
    store.add_evaluation(run, make_eval("d3", key="k1"))
    assert store.find_by_launch("L", "k1").digest == "d2"
    assert store.find_by_launch("L", "k2") is None
    assert store.find_by_launch("", "k1") is None  # no launch key: never equivalent
    store.add_evaluation(run, make_eval("d4", key="k1", launch_key="L", same_as="d2"), charged=False)
    rec = store.list_evaluations(run)[-1]
    assert (rec.charged, rec.evaluation.launch_key, rec.evaluation.same_as) == (False, "L", "d2")


def test_find_evaluation_needs_digest_and_key(store):
    run = store.create_run("a", {})
    store.add_evaluation(run, make_eval("d1", key="k1", duplicate=True), charged=False)
    assert store.find_evaluation("d1", "k1") is None  # duplicates are not sources of truth
    store.add_evaluation(run, make_eval("d1", "wrong_result", key="k1"))
    assert store.find_evaluation("d1", "k1").status == "wrong_result"
    assert store.find_evaluation("d1", "k2") is None
    assert store.find_evaluation("d9", "k1") is None
    assert [r.evaluation.digest for r in store.find_by_digest("d")] == ["d1", "d1"]
    assert store.find_by_digest("x") == []


def test_sources_stored_once(store):
    store.put_sources("d1", {"op_kernel/k.cpp": "int a;", "op_host/h.cpp": "int b;"})
    store.put_sources("d1", {"op_kernel/k.cpp": "changed"})
    assert store.get_sources("d1") == {"op_kernel/k.cpp": "int a;", "op_host/h.cpp": "int b;"}
    assert store.get_sources("nope") is None


def test_finished_records_are_immutable_copies(store):
    run = store.create_run("a", {})
    ev = make_eval()
    store.add_evaluation(run, ev)
    ev.status, ev.cases[0].status = "timeout", "timeout"  # caller mutates its object
    rec = store.list_evaluations(run)[0]
    assert rec.evaluation.status == "ok" and rec.evaluation.cases[0].status == "ok"
    rec.evaluation.profile["c"]["task_duration_us"] = 99.0  # and a read copy
    assert store.list_evaluations(run)[0].evaluation.profile["c"]["task_duration_us"] == 1.5


def test_thread_safe_writes(store):
    run = store.create_run("a", {})

    def writer(t: int) -> None:
        for i in range(20):
            store.add_evaluation(run, make_eval(f"t{t}-{i}"))
            store.put_sources(f"t{t}-{i}", {"op_kernel/k.cpp": str(i)})

    threads = [threading.Thread(target=writer, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    recs = store.list_evaluations(run)
    assert len(recs) == 80 and len({r.id for r in recs}) == 80
    assert store.count(run) == 80
