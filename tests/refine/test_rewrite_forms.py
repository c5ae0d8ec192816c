"""Every Stage I rewrite on kernels written in the forms real operators use -- helper methods,
named constants, in-place chains, barriers between instructions, DataCopyParams/DataCopyPad,
macros -- where it must apply and where it must not (issue 31). A form a rewrite does not read
yet is an expected failure (strict: it turns into a pass, and then into a plain test, when the
rewrite learns the form)."""

import pytest

from .forms import S, kernel, sites


def _gap(reason):
    return pytest.mark.xfail(strict=True, reason=reason)


#: (form, rewrite, expected site labels); [] = must not apply
CASES = [
    # double_buffer: a literal one-buffer queue, also when a helper method initialises it
    ("DB_LITERAL_ONE", "double_buffer", ["inQ: 1 buffer -> 2"]),
    ("DB_HELPER_METHOD", "double_buffer", ["inQ: 1 buffer -> 2"]),
    # a named count is Stage II's knob; a TBuf has no buffer count
    ("DB_NAMED_CONSTANT", "double_buffer", []),
    pytest.param("DB_MACRO", "double_buffer", ["inQ: 1 buffer -> 2"],
                 marks=_gap("InitBuffer inside a macro the operator defines is not read (cxx.macros exists; "
                            "double_buffer does not use it yet)")),
    # drop_barrier: a full barrier in the tile loop; a barrier between two dependent vector
    # instructions is proposed too (validation, not the matcher, decides whether it is needed)
    ("BARRIER_IN_TILE_LOOP", "drop_barrier", ["AscendC::PipeBarrier<PIPE_ALL>() in Process, loop for (i < tiles)"]),
    ("BARRIER_BETWEEN_INSTRUCTIONS", "drop_barrier", ["AscendC::PipeBarrier<PIPE_V>() in Process"]),
    ("NO_BARRIER", "drop_barrier", []),
    # drop_event_wait: a set/wait pair in a loop; not one outside any loop
    ("EVENT_WAIT_IN_LOOP", "drop_event_wait", ["SetFlag/WaitFlag<MTE2_V>(e) in Process, loop for (i < tiles)"]),
    ("EVENT_WAIT_OUTSIDE_LOOP", "drop_event_wait", []),
    # vectorize_scalar_loop: an element loop in a helper method; not a strided or a carried one
    ("SCALAR_LOOP_HELPER", "vectorize_scalar_loop", ["Muls for len elements in Compute"]),
    ("SCALAR_LOOP_STRIDED", "vectorize_scalar_loop", []),
    ("SCALAR_LOOP_CARRIED", "vectorize_scalar_loop", []),
    pytest.param("SCALAR_LOOP_MACRO", "vectorize_scalar_loop", ["Muls for len elements in Process"],
                 marks=_gap("a loop written in a macro's body is not rewritten (cxx.macros finds it; "
                            "the rewrite would have to edit the macro)")),
    # fuse_mul_add: product into a dead temporary; an in-place scaling feeding an add
    ("MUL_ADD_TEMP", "fuse_mul_add",
     ["AscendC::Mul(t, a, b, len); AscendC::Add(b, t, b, len) -> MulAddDst(b, a, b, len) in Process"]),
    ("MUL_ADD_INPLACE_CHAIN", "fuse_mul_add",
     ["AscendC::Muls(a, a, 2.0f, len); AscendC::Add(b, a, b, len) -> Axpy(b, a, 2.0f, len) in Process"]),
    ("MUL_ADD_TEMP_REUSED", "fuse_mul_add", []),
    ("MUL_ADD_BARRIER_BETWEEN", "fuse_mul_add",
     ["AscendC::Mul(t, a, b, len); AscendC::Add(b, t, b, len) -> MulAddDst(b, a, b, len) in Process"]),
    # datacopypad_tail: an element loop GM -> UB; not a tail already moved by DataCopyPad
    ("TAIL_ELEMENT_LOOP", "datacopypad_tail", ["GM->UB x <- xGm: tail x float in Process"]),
    ("TAIL_DATACOPYPAD", "datacopypad_tail", []),
    # merge_copies: contiguous chunk copies; not strided DataCopyParams copies
    ("CHUNK_COPY_LOOP", "merge_copies", ["DataCopy(x, xGm, (len + CHUNK - 1) / CHUNK * CHUNK) in Process"]),
    ("STRIDED_COPY_PARAMS", "merge_copies", []),
    # drop_cast_roundtrip: half -> float -> half with nothing in between; not when the float is used
    ("CAST_ROUNDTRIP", "drop_cast_roundtrip", ["Cast h -> f -> h (line 12)"]),
    ("CAST_USED", "drop_cast_roundtrip", []),
    # hoist_invariant: a constant fill in the tile loop; not a loop-variant fill, not one the loop overwrites
    ("INVARIANT_FILL_IN_LOOP", "hoist_invariant",
     ["AscendC::Duplicate(ones, 1.0f, len) hoisted (in Process, loop for (i < tiles))"]),
    ("VARIANT_FILL_IN_LOOP", "hoist_invariant", []),
    ("INVARIANT_FILL_OVERWRITTEN", "hoist_invariant", []),
    # stage_scalar_gm: a GM element loop in a helper method; not one carried through GM
    ("STAGE_GM_LOOP_HELPER", "stage_scalar_gm", ["stage xGm, yGm through UB in Compute, loop for (i < len)"]),
    ("STAGE_GM_CARRIED", "stage_scalar_gm", []),
    # strength_reduce: a Div of a ones fill is a Reciprocal; not a Div of another constant
    ("RECIPROCAL_OF_ONES", "strength_reduce",
     ["AscendC::Div(y, ones, x, len) -> Reciprocal(y, x, len), fill dropped in Process"]),
    ("DIV_BY_FILL_OF_TWO", "strength_reduce", []),
    # dead_load: an int tile only used for x - x; not a float x * 0 (NaN for inf/NaN)
    ("ZERO_FROM_INT_TILE", "dead_load",
     ["AscendC::Sub(y, x, x, len) -> Duplicate(y, 0, len); 1 load(s) of x dropped in Process"]),
    ("ZERO_FROM_FLOAT_TILE", "dead_load", []),
    # drop_redundant_sync: MTE2->V after a VECIN DeQue in a method; not for a buffer load
    ("FLAG_AFTER_DEQUE", "drop_redundant_sync",
     ["SetFlag/WaitFlag<MTE2_V>(EVENT_ID0) implied by the VECIN queues in Compute"]),
    ("FLAG_FOR_BUFFER_LOAD", "drop_redundant_sync", []),
    # spread_cores: an element loop over GM with independent iterations; not a running sum
    ("SPREAD_SCALAR_GM_LOOP", "spread_cores",
     ["split loop over i in Process over GetBlockNum() cores (host launch unchanged)"]),
    ("SPREAD_SCALAR_GM_CARRIED", "spread_cores", []),
]


@pytest.mark.parametrize("form,rewrite,labels", CASES)
def test_rewrite_on_real_forms(form, rewrite, labels):
    got = sites(kernel(*S[form]))
    assert [s.label for s in got[rewrite]] == labels


def test_every_rewrite_has_a_must_apply_and_a_must_not_apply_form():
    from ascendopt.transforms import REWRITES

    plain = [c for c in CASES if isinstance(c, tuple)]
    for name in REWRITES.all():
        assert any(r == name and labels for _, r, labels in plain), name
        assert any(r == name and not labels for _, r, labels in plain), name


def test_other_rewrites_stay_quiet_on_each_form():
    """A form built for one rewrite gives the others no site, except where noted."""
    also = {("MUL_ADD_BARRIER_BETWEEN", "drop_barrier"), ("BARRIER_BETWEEN_INSTRUCTIONS", "drop_barrier"),
            # an element loop over GM is both independent (spread) and stageable (stage): the
            # composition the README's example takes
            ("STAGE_GM_LOOP_HELPER", "spread_cores"), ("SPREAD_SCALAR_GM_LOOP", "stage_scalar_gm")}
    for form in S:
        own = {c[1] if isinstance(c, tuple) else c.values[1] for c in CASES
               if (c[0] if isinstance(c, tuple) else c.values[0]) == form}
        for name, found in sites(kernel(*S[form])).items():
            if found and name not in own:
                assert (form, name) in also, f"{form}: {name} found {[s.label for s in found]}"
