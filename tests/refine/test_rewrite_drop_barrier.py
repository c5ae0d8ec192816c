from ascendopt.transforms import REWRITES

from .conftest import load

from ..rewind.conftest import OPS


MULS = "level1/muls_custom"


def slow_op():
    """muls_custom with a full barrier after each tile's compute inside the tile loop."""
    op = load(MULS)
    src = op.files[op.kernel_file]
    old = "            Compute(count);\n"
    assert src.count(old) == 1
    return op.with_file(op.kernel_file, src.replace(old, old + "            AscendC::PipeBarrier<PIPE_ALL>();\n"))


def scalar_op(op=None):
    """muls_custom (or `op`, a copy of it) whose compute is a scalar loop fenced by the barriers it
    needs."""
    op = op or load(MULS)
    src = op.files[op.kernel_file]
    old = "            AscendC::Muls(yLocal, xLocal, static_cast<TX>(value), count);\n"
    new = ("            AscendC::PipeBarrier<PIPE_ALL>();\n"
           "            for (uint32_t j = 0; j < count; ++j) {\n"
           "                yLocal.SetValue(j, xLocal.GetValue(j) * static_cast<TX>(value));\n"
           "            }\n"
           "            AscendC::PipeBarrier<PIPE_ALL>();\n")
    assert src.count(old) == 1
    return op.with_file(op.kernel_file, src.replace(old, new))


def test_drops_the_barrier_in_the_tile_loop(check):
    slow = slow_op()
    rw = REWRITES.get("drop_barrier")
    sites = rw.find(slow)
    assert [s.label for s in sites] == ["AscendC::PipeBarrier<PIPE_ALL>() in Process, loop for (i < tileNum)"]
    fast = rw.apply(slow, sites[0])
    assert fast.origin == "stage1/drop_barrier" and fast.parent == slow.digest
    assert fast.files[fast.kernel_file] == load(MULS).files[fast.kernel_file]
    assert all(r.status == "ok" for r in check(fast))


def test_loop_barriers_come_first_and_a_needed_barrier_is_caught_by_the_race_checker(check, no_auto_sync):
    # Built with --cce-auto-sync=off: the barrier orders the scalar loop after the copy-in
    # (MTE2 -> S) and before the copy-out (S -> MTE3), which the compiler's default
    # synchronisation would otherwise do.
    op = scalar_op(no_auto_sync(OPS / MULS))
    src = op.files[op.kernel_file]
    op = op.with_file(op.kernel_file, src.replace("            Compute(count);\n",
                                                  "            Compute(count);\n            AscendC::PipeBarrier<PIPE_V>();\n"))
    sites = REWRITES.get("drop_barrier").find(op)
    assert [s.detail for s in sites] == ["PIPE_V", "PIPE_ALL", "PIPE_ALL"]
    assert "in Compute" in sites[1].label and sites[1].line < sites[2].line
    unsafe = REWRITES.get("drop_barrier").apply(op, sites[1])
    results = check(unsafe)  # a race is a warning the candidate adds (rejected as a new hazard)
    assert any(w["kind"] == "race" for r in results for w in r.warnings)
    # the race is new: the operator as given has none (built =off, its unordered V->V writes are
    # same_pipe_race warnings, which both carry alike)
    assert not any(w["kind"] == "race" for r in check(op) for w in r.warnings)


def test_no_site_without_barriers():
    assert REWRITES.get("drop_barrier").find(load(MULS)) == []
