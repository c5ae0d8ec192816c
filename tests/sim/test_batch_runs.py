"""The cases of one candidate in one runner process (``SimBackend.run_batch``, issue 20 item 6):
the same results as one runner per case, a failing case reported as its own with the cases
after it in a fresh runner, and a candidate that keeps state between cases never sharing one."""

from __future__ import annotations

import dataclasses

import pytest

from ascendopt.backends.base import Backend
from ascendopt.backends.sim import batch
from ascendopt.backends.sim.backend import SimBackend
from ascendopt.sandbox import Sandbox
from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import case_dtypes, make_inputs
from ascendopt.evaluate.evaluator import EvalConfig, Evaluator
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS, ROOT

KERNEL = "op_kernel/scale_copy.cpp"
HOST = "op_host/scale_copy.cpp"


def same(r) -> dict:
    """Everything of a run result but its wall time, outputs as bytes."""
    d = dataclasses.asdict(r)
    d.pop("seconds")
    d["outputs"] = {k: (v.dtype.str, v.shape, v.tobytes()) for k, v in r.outputs.items()}
    return d


@pytest.fixture
def runners(monkeypatch):
    """Counts the runner processes run_batch starts."""
    started: list[int] = []
    once = batch.run_once

    def counted(backend, build, op, sig, items, timeout_s):
        started.append(len(items))
        return once(backend, build, op, sig, items, timeout_s)

    monkeypatch.setattr(batch, "run_once", counted)
    return started


@pytest.mark.parametrize("confined", [True, False], ids=["sandbox", "no-sandbox"])
def test_batch_is_bit_identical_to_one_runner_per_case(backend, runners, confined):
    be = backend if confined else SimBackend(builder=backend.builder, sandbox=Sandbox(enabled=False))
    op_dir = ROOT / "ops" / "level1" / "abs_custom"
    op, cases = Operator.load(op_dir), load_op_cases(op_dir)
    groups: dict[tuple, list] = {}
    for i, case in enumerate(cases):
        groups.setdefault(tuple(sorted(case_dtypes(case).items())), []).append((case, make_inputs(case, i)))
    for key, items in groups.items():
        build = be.build(op, dict(key))
        one = [be.run(build, op, case, inputs) for case, inputs in items]
        runners.clear()
        many = be.run_batch(build, op, items)
        assert runners == [len(items)]  # one runner for all of them
        assert [r.status.value for r in many] == ["ok"] * len(items)
        assert [same(r) for r in many] == [same(r) for r in one]


@pytest.fixture(scope="module")
def base() -> Operator:
    return Operator.load(FIXTURE_OPS / "scale_copy")


@pytest.fixture(scope="module")
def fixture_cases():
    cases = {c.name: c for c in load_op_cases(FIXTURE_OPS / "scale_copy")}
    return [(cases[n], make_inputs(cases[n], i)) for i, n in enumerate(["small_tail", "many_cores", "small_tail"])]


def edit(op: Operator, rel: str, old: str, new: str) -> Operator:
    text = op.files[rel]
    assert old in text, f"fixture changed: {old!r} not in {rel}"
    return op.with_file(rel, text.replace(old, new, 1), origin="test/batch")


BIG = "if (tilingData.totalLength > 5000) "  # only the middle case (many_cores) is that large


@pytest.mark.parametrize("where,old,new,status,kind", [
    (KERNEL, "KernelScaleCopy op;", BIG + "{ *(volatile int*)nullptr = 1; }\n    KernelScaleCopy op;",
     "runtime_error", "segfault"),
    (KERNEL, "KernelScaleCopy op;", BIG + "{ assert(false); }\n    KernelScaleCopy op;", "runtime_error",
     "assert_failed"),
    (KERNEL, "KernelScaleCopy op;", BIG + "{ for (;;) {} }\n    KernelScaleCopy op;", "timeout", "timeout"),
    (HOST, "return ge::GRAPH_SUCCESS;", "return total > 5000 ? ge::GRAPH_FAILED : ge::GRAPH_SUCCESS;",
     "tiling_error", "tiling"),
    (KERNEL, "KernelScaleCopy op;", BIG + "{ socket(2, 1, 0); }\n    KernelScaleCopy op;", "runtime_error",
     "sandbox_violation"),
], ids=["crash", "typed_error", "timeout", "tiling_error", "violation"])
def test_a_case_failing_mid_batch_is_its_own(backend, runners, base, fixture_cases, where, old, new, status, kind):
    if kind == "sandbox_violation":
        if not backend.sandbox.active:
            pytest.skip("no sandbox here")
        base = edit(base, KERNEL, '#include "kernel_operator.h"',
                    '#include "kernel_operator.h"\nextern "C" int socket(int, int, int);')
    op = edit(base, where, old, new)
    build = backend.build(op, case_dtypes(fixture_cases[0][0]))
    assert build.ok, build.error
    one = [backend.run(build, op, case, inputs, timeout_s=3.0) for case, inputs in fixture_cases]
    runners.clear()
    many = backend.run_batch(build, op, fixture_cases, timeout_s=3.0)
    assert [(r.status.value, r.error_kind) for r in many] == [("ok", ""), (status, kind), ("ok", "")]
    assert runners == [3, 1]  # the case after the failure ran in a fresh runner
    assert [same(r) for r in many] == [same(r) for r in one]


def test_a_candidate_keeping_state_gets_a_runner_per_case(backend, runners, base, fixture_cases):
    """A static the kernel writes would carry into the next case of a shared runner (here: the
    scale grows with every launch); the runner sees its globals change and stops after the case."""
    op = edit(base, KERNEL, "Muls(yLocal, xLocal, 2.0f, n);", "static int calls = 0;\n"
              "        Muls(yLocal, xLocal, 2.0f * ++calls, n);")
    items = [fixture_cases[0]] * 3
    build = backend.build(op, case_dtypes(items[0][0]))
    one = [backend.run(build, op, case, inputs) for case, inputs in items]
    runners.clear()
    many = backend.run_batch(build, op, items)
    assert runners == [3, 2, 1]
    assert [same(r) for r in many] == [same(r) for r in one]


class OneRunnerPerCase(SimBackend):
    """The simulator as it ran before batches: every case in its own runner."""

    run_batch = Backend.run_batch


def _evaluation(ev) -> dict:
    d = ev.to_dict()
    d.pop("timings", None)
    for c in (*d["cases"], *d["benchmark"]):
        c.pop("run_seconds", None)
        c.pop("build_seconds", None)
    return d


@pytest.mark.parametrize("fail_fast", [True, False])
def test_evaluations_are_the_same_with_batches(backend, base, fail_fast):
    """The evaluator's batches (per build, split across workers, stopping at the first failure
    when it fails fast) decide what one runner per case decided, failing candidate included."""
    cases = load_op_cases(FIXTURE_OPS / "scale_copy")
    cases = [*cases, *(dataclasses.replace(c, name=c.name + "_again") for c in cases)]
    per_case = OneRunnerPerCase(builder=backend.builder)
    bad = edit(base, KERNEL, "KernelScaleCopy op;", BIG + "{ assert(false); }\n    KernelScaleCopy op;")
    for op in (base, bad):
        cfg = EvalConfig(fail_fast=fail_fast, benchmark_cases=("many_cores",))
        got = Evaluator(backend, cfg).evaluate(op, cases)
        want = Evaluator(per_case, cfg).evaluate(op, cases)
        assert got.status == ("ok" if op is base else "runtime_error")
        assert _evaluation(got) == _evaluation(want)
