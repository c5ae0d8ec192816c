"""Hazard severities: races and GM reads a little past a tensor are warnings on the operator as
given (the run goes on, ``strict`` fails it); writes beyond the allocator's block and reads
beyond the mapped page are errors; a candidate (Stage I, Stage II, rewind) may not add a hazard its parent did not
have. Kernels: variants of the ``scale_copy`` fixture; the races are a scalar read right after
``DeQue``, so the kernels that carry one are built with ``--cce-auto-sync=off`` (the compiler's
automatic synchronisation, on by default, would order it)."""

from __future__ import annotations

import pytest

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.budget import BudgetedEvaluator
from ascendopt.evaluate.check import CheckConfig, check_operator
from ascendopt.evaluate.evaluator import EvalConfig, Evaluator
from ascendopt.evaluate.hazards import hazards, reject_new_hazards
from ascendopt.evaluate.store import MemoryStore
from ascendopt.operator import Operator
from ascendopt.refine.rewriter import Proposal
from ascendopt.refine.stage1 import StepConfig, StepServices, stage1_step
from ascendopt.evaluate.verdict import judge, noise_threshold
from ascendopt.tiling.search import tune
from ascendopt.tiling.space import KnobSpace
from ascendopt.tiling.strategies import make_strategy

from ..conftest import FIXTURE_OPS

K = "op_kernel/scale_copy.cpp"
DEQUE = "        LocalTensor<float> xLocal = inQueue.DeQue<float>();\n"
# A scalar read of the tile right after DeQue: DeQue orders MTE2 before V, not before the
# scalar unit, so without --cce-auto-sync this read races with the copy-in (as in some cann-ops
# kernels built with --cce-auto-sync=off).
PEEK = DEQUE + "        volatile float first = xLocal.GetValue(0);\n        (void)first;\n"
# The same read, made safe by an MTE2 -> S flag.
PEEK_SYNCED = DEQUE + ("        SetFlag<HardEvent::MTE2_S>(0);\n        WaitFlag<HardEvent::MTE2_S>(0);\n"
                       "        volatile float first = xLocal.GetValue(0);\n        (void)first;\n")
LAST_BLOCK = "        if (GetBlockIdx() + 1 == GetBlockNum()) {\n"


def variant(old: str, new: str, op: Operator | None = None) -> Operator:
    op = op or Operator.load(FIXTURE_OPS / "scale_copy")
    text = op.files[K]
    assert text.count(old) == 1, old
    return op.with_file(K, text.replace(old, new), origin="test/hazard")


def past_end(statement: str) -> Operator:
    """scale_copy whose last core runs ``statement`` (with ``count`` = its element count) at the
    end of Process."""
    old = "            CopyOut(i, n);\n        }\n"
    return variant(old, old + LAST_BLOCK + f"            {statement}\n        }}\n")


@pytest.fixture(scope="module")
def cases():
    return {c.name: c for c in load_op_cases(FIXTURE_OPS / "scale_copy")}


@pytest.fixture(scope="module")
def off(no_auto_sync):
    """scale_copy built with --cce-auto-sync=off."""
    return no_auto_sync(FIXTURE_OPS / "scale_copy")


def kinds(res) -> list[str]:
    return sorted({w["kind"] for w in res.warnings})


def test_a_racy_scalar_read_after_deque_passes_with_a_warning(backend, cases, off):
    [res] = check_operator(backend, variant(DEQUE, PEEK, off), [cases["small_tail"]])
    assert res.status == "ok" and kinds(res) == ["race"], (res.status, res.message)
    w = res.warnings[0]
    assert "GetValue" in w["message"] and "MTE2" in w["message"] and w["count"] >= 1
    [synced] = check_operator(backend, variant(DEQUE, PEEK_SYNCED, off), [cases["small_tail"]])
    assert synced.status == "ok" and synced.warnings == [], synced.warnings


def test_the_compilers_auto_sync_orders_the_scalar_read(backend, cases):
    # Built the standard way (no CMake option: the toolkit adds --cce-auto-sync), the compiler's
    # MTE2 -> S flag pair orders the read: no race.
    [res] = check_operator(backend, variant(DEQUE, PEEK), [cases["small_tail"]])
    assert res.status == "ok" and res.warnings == [], res.warnings


def test_strict_turns_the_race_into_an_error(backend, cases, off):
    [res] = check_operator(backend, variant(DEQUE, PEEK, off), [cases["small_tail"]], cfg=CheckConfig(strict=True))
    assert res.status == "runtime_error" and res.error_kind == "race" and "--strict" in res.message
    assert kinds(res) == ["race"]


def test_a_gm_read_past_the_padded_end_is_a_warning(backend, cases):
    op = past_end("volatile float v = xGm.GetValue(count + 100); (void)v;")
    [res] = check_operator(backend, op, [cases["small_tail"]])
    assert res.status == "ok" and kinds(res) == ["gm_read_past_end"], (res.message, res.warnings)
    assert "past the end of the tensor" in res.warnings[0]["message"]
    [res] = check_operator(backend, op, [cases["small_tail"]], cfg=CheckConfig(strict=True))
    assert res.status == "runtime_error" and res.error_kind == "gm_read_past_end"


def test_a_read_beyond_the_mapped_page_and_a_write_beyond_the_allocators_block_are_errors(backend, cases):
    far = past_end("volatile float v = xGm.GetValue(count + (4u << 20)); (void)v;")
    [res] = check_operator(backend, far, [cases["small_tail"]])
    assert res.status == "runtime_error" and res.error_kind == "gm_out_of_bounds", res.message
    # 4000-byte output: its 512-byte block ends at 4096, the write lands at 4400
    # (a write inside the block is a warning: tests/sim/test_gm_alloc.py)
    write = past_end("yGm.SetValue(count + 100, 0.0f);")
    [res] = check_operator(backend, write, [cases["small_tail"]])
    assert res.status == "runtime_error" and res.error_kind == "gm_out_of_bounds", res.message
    assert "write" in res.message


MULS = "        Muls(yLocal, xLocal, 2.0f, n);\n"


def test_ub_reads_and_writes_outside_the_buffer_are_warnings(backend, cases):
    # The tile's queue holds two buffers side by side: element tileLength + 8 of the first lies
    # in the second, inside UB. The device checks no tensor bounds, so the read runs.
    read = variant(MULS, MULS + "        volatile float v = xLocal.GetValue(tileLength + 8); (void)v;\n")
    [res] = check_operator(backend, read, [cases["small_tail"]])
    assert res.status == "ok" and kinds(res) == ["local_read_outside_buffer"], (res.message, res.warnings)
    assert "GetValue" in res.warnings[0]["message"]
    [res] = check_operator(backend, read, [cases["small_tail"]], cfg=CheckConfig(strict=True))
    assert res.status == "runtime_error" and res.error_kind == "local_read_outside_buffer"
    # the write lands in the queue's second buffer, which the next tile's copy-in overwrites:
    # the output is still right, as it would be on the device
    write = variant(MULS, MULS + "        xLocal.SetValue(tileLength + 8, 0.0f);\n")
    [res] = check_operator(backend, write, [cases["small_tail"]])
    assert res.status == "ok" and kinds(res) == ["local_write_outside_buffer"], (res.message, res.warnings)
    # past the end of UB it is the overflow
    far = variant(MULS, MULS + "        xLocal.SetValue(200000, 0.0f);\n")
    [res] = check_operator(backend, far, [cases["small_tail"]])
    assert res.status == "runtime_error" and res.error_kind == "ub_overflow", res.message


def _evaluator(backend, budget: int, label: str) -> BudgetedEvaluator:
    return BudgetedEvaluator(Evaluator(backend, EvalConfig(seed=0, jobs=1)), MemoryStore(), budget=budget,
                             run_label=label)


def test_rewind_and_stage1_reject_a_candidate_that_adds_a_race(backend, cases, off):
    beval = _evaluator(backend, 4, "hazard-stage1")
    cs = [cases["small_tail"]]
    parent = off
    racy = variant(DEQUE, PEEK, parent)
    pev, cev = beval.evaluate(parent, cs), beval.evaluate(racy, cs)
    assert pev.ok and cev.ok and hazards(pev) == set() and hazards(cev) == {"race"}
    noise = noise_threshold(pev)
    assert judge(pev, cev, noise).reason == "new_hazard"   # rewind: never a lesson

    class Fixed:
        name = "fixed"

        def propose(self, ctx, n):
            return [Proposal(racy, "test", "synchronisation", "peek after DeQue")]

        def repair(self, ctx, failed, evaluation):
            return None

    step = stage1_step(parent, pev, cs, StepServices(beval, Fixed()), StepConfig(k=0))
    assert step.accepted is None and [t.verdict.reason for t in step.tried] == ["new_hazard"]
    # The same race on the parent is not new: a child carrying it is judged on speed alone.
    assert judge(cev, cev, noise).reason != "new_hazard"


def test_reject_new_hazards_marks_the_evaluation_failed(backend, cases, off):
    beval = _evaluator(backend, 1, "hazard-reject")
    ev = beval.evaluate(variant(DEQUE, PEEK, off), [cases["small_tail"]])
    bad = reject_new_hazards(ev, set())
    assert bad.status == "runtime_error" and bad.error_kind == "race" and bad.latency_us is None
    assert "GetValue" in bad.error and ev.ok  # the record itself is unchanged
    assert reject_new_hazards(ev, {"race"}) is ev


def test_stage2_never_keeps_a_tiling_that_adds_a_race(backend, cases, off):
    # The kernel peeks unsynchronised only when the tile is not the original 1024 elements: every
    # other tiling the search tries is racy, and none of them may become the best.
    op = variant(DEQUE, DEQUE + "        if (tileLength != 1024) {\n"
                 "            volatile float first = xLocal.GetValue(0);\n            (void)first;\n        }\n", off)
    space = KnobSpace.from_operator(op)
    assert any(k.id.startswith("tileLength") for k in space.knobs)
    beval = _evaluator(backend, 5, "hazard-stage2")
    res = tune(op, [cases["many_cores"]], beval, space, make_strategy("random", space, seed=5), "random")
    rejected = [t for t in res.trials if t.error_kind == "race"]
    assert rejected and all(t.status == "runtime_error" and t.latency_us is None for t in rejected)
    assert "adds a race hazard" in rejected[0].error
    assert res.best_digest == op.digest, res.trials


def test_run_cli_shows_warnings_and_strict_fails(sim_cache, tmp_path, monkeypatch, off):
    import json

    from typer.testing import CliRunner

    from ascendopt.cli import app

    root = tmp_path / "cache"
    root.mkdir()
    (root / "sim").symlink_to(sim_cache, target_is_directory=True)  # reuse the session's builds
    monkeypatch.setenv("ASCENDOPT_CACHE", str(root))
    racy = tmp_path / "scale_copy"
    variant(DEQUE, PEEK, off).write_to(racy)  # with its CMakeLists.txt (=off)
    runner = CliRunner()
    res = runner.invoke(app, ["run", str(racy), "--case", "small_tail"])
    assert res.exit_code == 0, res.output
    assert "ok*" in res.output and "warning (race" in res.output and "1 with warnings" in res.output
    res = runner.invoke(app, ["run", str(racy), "--case", "small_tail", "--json"])
    doc = json.loads(res.stdout)
    assert res.exit_code == 0 and doc["warned"] == 1 and doc["cases"][0]["warnings"][0]["kind"] == "race"
    res = runner.invoke(app, ["run", str(racy), "--case", "small_tail", "--strict"])
    assert res.exit_code == 1 and "runtime_error (race)" in res.output, res.output
