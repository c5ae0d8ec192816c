"""A kernel file that carries the device toolchain's host-side launcher
(`kernel<<<blockDim, l2ctrl, stream>>>(args)`, as several cann-ops kernels do outside
__CCE_KT_TEST__) builds and runs: the build lowers the launch expression; its diagnostics keep
the kernel file's line numbers."""

from __future__ import annotations

from ascendopt.backends.sim.kernel_tu import lower_cce_launches as _lower_cce_launches
from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import check_operator
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS

KERNEL = "op_kernel/scale_copy.cpp"
LAUNCHER = """
#ifndef __CCE_KT_TEST__
void scale_copy_do(uint32_t blockDim, void* l2ctrl, void* stream, uint8_t* x, uint8_t* y, uint8_t* workspace,
                   uint8_t* tiling)
{
    scale_copy<<<blockDim, l2ctrl,
                 stream>>>(x, y, workspace, tiling);
}
#endif
"""


def test_lowering_keeps_lines():
    text = "a\nk<<<n, c,\n s>>>(x, y);\nb\n"
    assert _lower_cce_launches(text) == "a\n::ao::rt::CceLaunch(k, n, c, s)(\nx, y);\nb\n"
    assert _lower_cce_launches("x << 2 < y; v<a<b>>> w;") == "x << 2 < y; v<a<b>>> w;"


def test_kernel_with_launcher_builds_and_runs(backend):
    op = Operator.load(FIXTURE_OPS / "scale_copy")
    op = op.with_file(KERNEL, op.files[KERNEL] + LAUNCHER)
    results = check_operator(backend, op, load_op_cases(FIXTURE_OPS / "scale_copy"))
    assert results and all(r.status == "ok" for r in results), [r.message for r in results]


def test_errors_point_at_the_kernel_file_line(backend):
    op = Operator.load(FIXTURE_OPS / "scale_copy")
    broken = op.files[KERNEL] + LAUNCHER + "\nint broken = undeclared_name;\n"
    op = op.with_file(KERNEL, broken)
    line = broken.count("\n", 0, broken.index("int broken")) + 1
    [res] = check_operator(backend, op, load_op_cases(FIXTURE_OPS / "scale_copy"))[:1]
    assert res.status == "compile_error", res.message
    assert f"scale_copy.cpp:{line}:" in res.message, res.message
