"""spread_cores with kernel variants: a branch of the entry exclusive with the split loop's
branch (tiling-only condition) runs on core 0 only (cxx.parallel_branch) (tests/refine)."""

import pytest

from ascendopt.transforms import REWRITES

from .test_rewrite_spread_cores import SCALAR_ABS, single_core_abs

#: Variant A (even sizes): an independent scalar loop; variant B (odd sizes): copy, then abs in
#: place -- each of its loops sees the other write GM, so B is not split.
_CLASS = SCALAR_ABS[SCALAR_ABS.index("template"):SCALAR_ABS.index("\nextern")]
_A_LOOP = """        for (uint32_t i = 0; i < len; i++) {
            T v = xGm.GetValue(i);
            yGm.SetValue(i, v < 0 ? -v : v);
        }
"""
_B_LOOPS = """        for (uint32_t i = 0; i < len; i++) {
            yGm.SetValue(i, xGm.GetValue(i));
        }
        for (uint32_t i = 0; i < len; i++) {
            T v = yGm.GetValue(i);
            yGm.SetValue(i, v < 0 ? -v : v);
        }
"""
assert _A_LOOP in _CLASS
TWO_PATHS = ("#include \"kernel_operator.h\"\n#define RUN(k) KernelA<DTYPE_X>().Process()\n"
             + _CLASS.replace("KernelAbsScalar", "KernelA") + "\n"
             + _CLASS.replace("KernelAbsScalar", "KernelB").replace(_A_LOOP, _B_LOOPS) + """
extern "C" __global__ __aicore__ void abs_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    if (td.lastCoreDataNum % 2 == 0) {
        KernelA<DTYPE_X> op;
        op.Init(x, y, td.lastCoreDataNum);
        op.Process();
    } else {
        KernelB<DTYPE_X> op;
        op.Init(x, y, td.lastCoreDataNum);
        op.Process();
    }
}
""")
IF = "    if (td.lastCoreDataNum % 2 == 0) {"
MUST_NOT = {
    "condition reads GM": (IF, "    if (*((__gm__ float *)x) > 0) {"),
    "no else: both variants may run": ("    } else {\n        KernelB", "    }\n    {\n        KernelB"),
    "both branches reach the loop": ("KernelB<DTYPE_X> op;", "KernelA<DTYPE_X> op;"),
    "condition reads a local": (IF, "    uint32_t k = td.lastCoreDataNum;\n    if (k % 2 == 0) {"),
    "other branch may run the loop's function (unresolved call)": (
        "KernelB<DTYPE_X> op;\n        op.Init(x, y, td.lastCoreDataNum);\n        op.Process();",
        "KernelB<DTYPE_X> op;\n        op.Init(x, y, td.lastCoreDataNum);\n        op.Process();\n        Unknown().Process();"),
    "other branch uses a macro naming the loop's function": (
        "KernelB<DTYPE_X> op;\n        op.Init(x, y, td.lastCoreDataNum);\n        op.Process();",
        "KernelB<DTYPE_X> op;\n        op.Init(x, y, td.lastCoreDataNum);\n        op.Process();\n        RUN(op);"),
}


def test_exclusive_branch_is_guarded():
    op = single_core_abs(TWO_PATHS)
    rw = REWRITES.get("spread_cores")
    [site] = rw.find(op)
    assert site.label == "split loop over i in Process over GetBlockNum() cores (host SetBlockDim(1) -> core count)"
    out = rw.apply(op, site).files[op.kernel_file]
    b = out.index("KernelB<DTYPE_X> op;")
    assert out.rindex("} else { if (AscendC::GetBlockIdx() == 0) { {", 0, b) > out.index("void abs_custom")


@pytest.mark.parametrize("name", list(MUST_NOT))
def test_no_site_without_an_exclusive_tiling_branch(name):
    old, new = MUST_NOT[name]
    assert old in TWO_PATHS
    assert REWRITES.get("spread_cores").find(single_core_abs(TWO_PATHS.replace(old, new))) == []


def test_guarded_variant_correct_split_variant_faster(check):
    """Even size (variant A, split over 48 cores) and odd size (variant B, core 0 only): both
    correct; A faster, B unchanged."""
    from ascendopt.cases import load_op_cases

    slow = single_core_abs(TWO_PATHS)
    fast = REWRITES.get("spread_cores").apply(slow, REWRITES.get("spread_cores").find(slow)[0])
    cases = [c for c in load_op_cases(slow.root) if c.name.endswith("_float") and c.inputs[0].size in (31, 1000)]
    assert [c.inputs[0].size for c in cases] == [31, 1000]
    before, after = check(slow, cases), check(fast, cases)
    assert all(r.status == "ok" for r in before + after), [r.message for r in before + after]
    assert after[0].task_duration_us == pytest.approx(before[0].task_duration_us, rel=0.05)
    assert after[1].block_dim == 48 and after[1].task_duration_us < before[1].task_duration_us / 2
