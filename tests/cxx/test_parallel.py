"""cxx.parallel: the independence verdict of counted loops, and the reason it gives."""

import pytest

from ascendopt.cxx.kpath import Program
from ascendopt.cxx.parallel_check import independent
from ascendopt.cxx.parse import of_type
from ascendopt.cxx.poly import Poly
from ascendopt.cxx.syntax import LOOPS, enclosing, function_of
from ascendopt.transforms.base import kernel_parsed

from ..refine.forms import kernel
from ..refine.test_rewrite_spread_cores import (INDUCTION_MUST_NOT, MUST_NOT, OFFSET, OFFSET_MEMBER,
                                                OFFSET_TILE_STEP, ROWS, SCALAR, TILE_HELPERS)


def verdicts(op):
    """(function, verdict) of every outermost for loop on the kernel's path."""
    prog = Program(kernel_parsed(op))
    out = []
    for c in prog.reach(prog.entries()):
        for n in of_type(c.p, "for_statement"):
            outer = enclosing(n, LOOPS)
            if function_of(n) == c.fn and not (outer is not None and function_of(outer) == c.fn):
                out.append((c.name, independent(prog, c, n)))
    return out


def test_poly_normal_form():
    i, n, j = Poly.sym("@i"), Poly.sym("n"), Poly.sym("j")
    assert (i + Poly.const(1)) * n - n == n * i
    assert (j + i * n).split("@i") == (n, j)
    assert (i * i).split("@i") is None


@pytest.mark.parametrize("body,stride", [(TILE_HELPERS, "m:len"), (SCALAR, "1"), (ROWS, "m:len")])
def test_independent(body, stride):
    [(name, v)] = verdicts(kernel(body))
    assert name == "Process" and v.ok and str(v.stride) == stride


REASONS = {
    "scatter by data index, row not scaled by the column count": "GM write index not affine",
    "accumulation across iterations": "sum carried across iterations",
    "reads the previous output": "yGm read at another iteration's index",
    "already split by block index": "already reads GetBlockIdx",
    "already split by the block_idx device variable": "already reads GetBlockIdx",
    "already split by get_block_idx()": "already reads GetBlockIdx",
    "already split by a macro": "already reads GetBlockIdx",
    "outside the loop GM handed to a function not in the kernel's files": "call ZeroFill not followed",
    "SyncAll": "kernel calls SyncAll",
    "copy longer than the stride": "write length not provably <= the stride",
    "GM written outside the loop": "GM written outside the loop",
    "prefetch: a queue filled before the loop": "inQ carried across iterations",
    "UB scratch accumulated across tiles": "acc carried across iterations",
}


@pytest.mark.parametrize("name", list(MUST_NOT))
def test_refusal_reason(name):
    [(_, v)] = verdicts(kernel(MUST_NOT[name]))
    assert not v.ok and REASONS[name] in v.reason


def test_tail_length_only_on_the_last_iteration():
    """``count = i + 1 == n ? tail : len`` copied at ``i * len``: only the last iteration may
    write more than the stride; ``i == 0 ? tail : len`` proves nothing."""
    body = """
    __aicore__ inline void Process() {
        for (uint32_t i = 0; i < tiles; i++) {
            uint32_t count = %s ? tail : len;
            AscendC::LocalTensor<float> y = outQ.AllocTensor<float>();
            AscendC::Duplicate(y, 0.0f, count);
            AscendC::DataCopy(yGm[i * len], y, count);
            outQ.FreeTensor(y);
        }
    }"""
    [(_, last)] = verdicts(kernel(body % "(i + 1 == tiles)"))
    [(_, first)] = verdicts(kernel(body % "(i == 0)"))
    assert last.ok and not first.ok


def test_tensors_viewing_one_gm_argument_are_one_tensor():
    """An in-place form: ``zGm`` and ``yGm`` view the same GM argument; reading ``zGm[i + 1]``
    reads what iteration ``i + 1`` writes through ``yGm``."""
    body = """
    __aicore__ inline void Init(GM_ADDR y) {
        yGm.SetGlobalBuffer((__gm__ float*)y, len);
        zGm.SetGlobalBuffer((__gm__ float*)y, len);
    }
    __aicore__ inline void Process() {
        for (uint32_t i = 0; i < tiles; i++) yGm.SetValue(i, zGm.GetValue(i + 1));
    }
    AscendC::GlobalTensor<float> zGm;"""
    [(_, v)] = verdicts(kernel(body))
    assert not v.ok and "read at another iteration's index" in v.reason
    [(_, v2)] = verdicts(kernel(body.replace("zGm.SetGlobalBuffer((__gm__ float*)y", "zGm.SetGlobalBuffer((__gm__ float*)z")
                                .replace("GM_ADDR y)", "GM_ADDR y, GM_ADDR z)")))
    assert v2.ok


POINTER_COPY = """
    __aicore__ inline void Copy(__gm__ float *x, __gm__ float *y) {
        for (uint32_t i = 0; i < len; ++i) {
            *(y + i) = *(x + i) * 2.0f;
        }
    }
    __aicore__ inline void Process() { Copy(xp, yp); }
    __gm__ float *xp;
    __gm__ float *yp;"""


def test_writes_through_gm_pointers():
    [(name, v)] = verdicts(kernel(POINTER_COPY))
    assert name == "Copy" and v.ok and str(v.stride) == "1"
    [(_, shifted)] = verdicts(kernel(POINTER_COPY.replace("*(x + i) * 2.0f", "*(y + i + 1)")))
    assert not shifted.ok and "read at another iteration's index" in shifted.reason
    [(_, gathered)] = verdicts(kernel(POINTER_COPY.replace("*(y + i) =", "y[static_cast<int32_t>(*(x + i))] =")))
    assert not gathered.ok
    [(_, after)] = verdicts(kernel(POINTER_COPY.replace("Copy(xp, yp); }", "Copy(xp, yp); xp[0] = yp[1]; }")))
    assert not after.ok and "outside the loop" in after.reason


def test_a_non_affine_use_of_the_loop_variable_is_not_an_invariant():
    """``i + i / 2`` is not ``c*i + b``: ``i / 2`` varies with ``i``, it is no invariant offset."""
    body = """
    __aicore__ inline void Process() {
        for (uint32_t i = 0; i < len; i++) yGm.SetValue(i + i / 2, xGm.GetValue(i));
    }"""
    [(_, v)] = verdicts(kernel(body))
    assert not v.ok and "not affine" in v.reason


def test_a_global_tensor_rebound_in_the_loop_is_refused():
    body = """
    __aicore__ inline void Process() {
        for (uint32_t i = 0; i < tiles; i++) {
            yGm.SetGlobalBuffer((__gm__ float*)base + i * 7, len);
            yGm.SetValue(i, 1.0f);
        }
    }
    GM_ADDR base;"""
    [(_, v)] = verdicts(kernel(body))
    assert not v.ok and "rebound" in v.reason


@pytest.mark.parametrize("body,name", [(OFFSET, "offset"), (OFFSET_MEMBER, "gmOff"), (OFFSET_TILE_STEP, "offset")])
def test_induction_variable_is_affine_in_the_loop_variable(body, name):
    """``v += len`` once per iteration: GM at ``v`` is ``v0 + i*len`` (stride len); with
    ``i += len`` the iteration count is ``i / len`` and ``v`` is ``v0 + i``."""
    [(_, v)] = verdicts(kernel(body))
    assert v.ok and [iv.name for iv in v.inductions] == [name]
    assert str(v.stride) == "m:len"


INDUCTION_REASONS = {
    "conditional update": "offset carried across iterations",
    "update by a value written in the loop": "offset carried across iterations",
    "updated twice": "offset carried across iterations",
    "read after the loop": "offset written in the loop and read after it",
    "reads the next iteration's output": "yGm read at another iteration's index",
    "16-bit offset (wraps)": "offset carried across iterations",
    "float accumulator": "t carried across iterations",
    "updated in a called method": "gmOff carried across iterations",
}


@pytest.mark.parametrize("name", list(INDUCTION_MUST_NOT))
def test_induction_refusal_reason(name):
    [(_, v)] = verdicts(kernel(INDUCTION_MUST_NOT[name]))
    assert not v.ok and INDUCTION_REASONS[name] in v.reason


def test_a_use_after_the_update_sees_the_next_value():
    """Before the update ``offset`` is ``offset0 + i*len``, after it ``offset0 + (i+1)*len``:
    writing ``yGm[offset]`` before and reading ``yGm[offset - len]`` after is one place; reading
    ``yGm[offset]`` after the update is the next iteration's place."""
    body = """
    __aicore__ inline void Process() {
        uint32_t offset = 0;
        for (uint32_t i = 0; i < len; i++) {
            yGm.SetValue(offset, xGm.GetValue(offset));
            offset += 1;
            xGm.SetValue(offset - 1, yGm.GetValue(%s));
        }
    }"""
    [(_, same)] = verdicts(kernel(body % "offset - 1"))
    [(_, nxt)] = verdicts(kernel(body % "offset"))
    assert same.ok and str(same.stride) == "1"
    assert not nxt.ok and "yGm read at another iteration's index" in nxt.reason


def test_an_offset_step_not_a_multiple_of_the_loop_step_is_refused():
    """With ``i += len`` and ``offset += 3``, ``offset0 + 3 * i / len`` is no polynomial."""
    [(_, v)] = verdicts(kernel(OFFSET_TILE_STEP.replace("offset += len;", "offset += 3;")))
    assert not v.ok and "offset carried across iterations" in v.reason


def test_counted_while_loop_is_opt_in():
    """``counted_loop`` reads a ``while`` loop only when asked (the other rewrites edit ``for``
    headers); the independence verdict of one, and why the refused forms are refused."""
    from ascendopt.cxx.affine import counted_loop

    from ..refine.test_rewrite_spread_cores import WHILE, WHILE_MUST_NOT

    def while_verdicts(op):
        prog = Program(kernel_parsed(op))
        return [(counted_loop(c.p, n), independent(prog, c, n)) for c in prog.reach(prog.entries())
                for n in of_type(c.p, "while_statement") if function_of(n) == c.fn]

    [(plain, v)] = while_verdicts(kernel(WHILE))
    assert plain is None and v.ok and str(v.stride) == "m:len"
    reasons = {name: while_verdicts(kernel(body))[0][1].reason for name, body in WHILE_MUST_NOT.items()}
    assert reasons == {"continue skips the update": "not a counted loop",
                       "update not the last statement": "not a counted loop",
                       "updated twice": "not a counted loop",
                       "start not set just before": "not a counted loop",
                       "read after the loop": "loop variable i read after the loop"}
