"""How large a GM allocation is (docs/sim-internals.md, "GM allocations"): aclrtMalloc reserves a
tensor of N bytes as N rounded up to 32 B plus 32 B; the caching allocators aclnn callers use
hand that out in whole 512-byte blocks. A write past the tensor inside its block is the warning
``gm_write_past_end`` (the result is the tensor's bytes only); a write beyond the block is
``gm_out_of_bounds``. Kernels: ``scale_copy`` whose last core copies its tail out with one
``DataCopy`` that ends ``END`` bytes into the output's allocation (as cann-ops kernels that copy a
ragged tail out in whole 512-byte units do)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import CheckConfig, check_operator
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS

K = "op_kernel/scale_copy.cpp"
PAD_COPY = "        DataCopyPad(yGm[i * tileLength], yLocal, params);\n"


def tail_write(end: str) -> Operator:
    """scale_copy whose last core writes its last tile with a DataCopy from the tile's start to
    byte ``end`` of the output (a C++ expression of ``total``, the output's element count)."""
    op = Operator.load(FIXTURE_OPS / "scale_copy")
    text = op.files[K]
    assert text.count(PAD_COPY) == 1
    new = ("        if (GetBlockIdx() + 1 == GetBlockNum() && i * tileLength + n == count) {\n"
           "            uint32_t total = start + count;\n"
           "            uint32_t endByte = " + end + ";\n"
           "            DataCopy(yGm[i * tileLength], yLocal, endByte / 4 - start - i * tileLength);\n"
           "        } else {\n" + PAD_COPY + "        }\n")
    text = text.replace(PAD_COPY, new)
    # the core's first element, kept for CopyOut
    text = text.replace("        this->count = total - start", "        this->start = start;\n"
                        "        this->count = total - start", 1)
    text = text.replace("    uint32_t count;\n", "    uint32_t count;\n    uint32_t start;\n", 1)
    return op.with_file(K, text, origin="test/gm_alloc")


# Ends of the write, in bytes from the output's start (total = its fp32 element count):
PADDED = "(total * 4 + 31) / 32 * 32 + 32"          # aclrtMalloc's rounding and padding
BLOCK = "(total * 4 + 32 + 511) / 512 * 512"        # the caching allocator's 512-byte block
TAIL_512 = "(total * 4 + 511) / 512 * 512"          # the tail rounded up to whole 512-byte units


def kinds(res) -> list[str]:
    return sorted({w["kind"] for w in res.warnings})


@pytest.fixture(scope="module")
def small_tail():
    return [c for c in load_op_cases(FIXTURE_OPS / "scale_copy") if c.name == "small_tail"]


def test_a_tail_write_rounded_up_to_512_bytes_is_a_warning_and_the_result_is_right(backend, small_tail):
    # 1000 floats = 4000 bytes: the write ends at 4096, 96 bytes past the tensor and 64 past
    # aclrtMalloc's padded end (4032), inside the 512-byte block (4096). Before the allocation
    # was modelled this was gm_out_of_bounds.
    [res] = check_operator(backend, tail_write(TAIL_512), small_tail)
    assert res.status == "ok" and kinds(res) == ["gm_write_past_end"], (res.status, res.message, res.warnings)
    msg = res.warnings[0]["message"]
    assert "output y" in msg and "96 bytes past the end" in msg and "4096-byte block" in msg, msg
    assert res.max_abs_err is not None and res.max_abs_err < 1e-6
    [res] = check_operator(backend, tail_write(TAIL_512), small_tail, cfg=CheckConfig(strict=True))
    assert res.status == "runtime_error" and res.error_kind == "gm_write_past_end", res.message


def test_the_outputs_compared_are_the_tensors_bytes_only(backend, small_tail):
    from ascendopt.cases import make_inputs
    from ascendopt.evaluate.check import case_dtypes

    op = tail_write(TAIL_512)
    [case] = small_tail
    build = backend.build(op, case_dtypes(case))
    assert build.ok, build.error
    ins = make_inputs(case, 0)
    rr = backend.run(build, op, case, ins)
    assert rr.status.value == "ok", rr.message
    assert rr.outputs["y"].shape == (1000,)
    assert (rr.outputs["y"] == 2 * ins["x"]).all()


def test_a_write_into_aclrtmallocs_padding_is_silent(backend, small_tail):
    [res] = check_operator(backend, tail_write(PADDED), small_tail)
    assert res.status == "ok" and res.warnings == [], (res.message, res.warnings)


def test_a_write_past_the_block_is_out_of_bounds(backend, small_tail):
    [res] = check_operator(backend, tail_write(BLOCK + " + 32"), small_tail)
    assert res.status == "runtime_error" and res.error_kind == "gm_out_of_bounds", res.message
    assert "write" in res.message and "4096 in the allocator's block" in res.message, res.message


# Law: for every tensor size, a write may reach the end of the 512-byte block the allocator
# gives N + 32 bytes, and not one 32-byte unit further; past aclrtMalloc's padded end it warns.
SIZES = [1, 8, 100, 120, 127, 1000, 1016, 1017, 1144]   # fp32 elements


def sized(case, n: int):
    return replace(case, name=f"n{n}", inputs=[replace(t, shape=(n,)) for t in case.inputs],
                   outputs=[replace(t, shape=(n,)) for t in case.outputs])


def test_law_a_write_may_reach_the_allocators_block_and_no_further(backend, small_tail):
    cases = [sized(small_tail[0], n) for n in SIZES]
    inside = check_operator(backend, tail_write(BLOCK), cases)
    beyond = check_operator(backend, tail_write(BLOCK + " + 32"), cases)
    for n, a, b in zip(SIZES, inside, beyond):
        padded = (n * 4 + 31) // 32 * 32 + 32
        block = (n * 4 + 32 + 511) // 512 * 512
        want = ["gm_write_past_end"] if block > padded else []
        assert a.status == "ok" and kinds(a) == want, (n, a.status, a.message, a.warnings)
        assert b.status == "runtime_error" and b.error_kind == "gm_out_of_bounds", (n, b.status, b.message)


def test_a_candidate_may_not_add_a_write_past_the_end(backend, small_tail):
    from ascendopt.evaluate.budget import BudgetedEvaluator
    from ascendopt.evaluate.evaluator import EvalConfig, Evaluator
    from ascendopt.evaluate.hazards import hazards, reject_new_hazards
    from ascendopt.evaluate.store import MemoryStore

    beval = BudgetedEvaluator(Evaluator(backend, EvalConfig(seed=0, jobs=1)), MemoryStore(), budget=2,
                              run_label="gm-alloc")
    pev = beval.evaluate(Operator.load(FIXTURE_OPS / "scale_copy"), small_tail)
    cev = beval.evaluate(tail_write(TAIL_512), small_tail)
    assert pev.ok and cev.ok and hazards(pev) == set() and hazards(cev) == {"gm_write_past_end"}
    bad = reject_new_hazards(cev, hazards(pev))
    assert bad.status == "runtime_error" and bad.error_kind == "gm_write_past_end"
    assert reject_new_hazards(cev, hazards(cev)) is cev   # the parent's own hazard is not new
