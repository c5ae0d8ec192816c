"""Static `__gm__` data compiled into a kernel (runtime/image_gm.h): the gm_table fixture adds a
`static const __gm__ float` table, read through a GlobalTensor by DataCopy, to its input; the
device loads the kernel binary into GM, so the read is accepted and a write into it is not."""

from __future__ import annotations

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import CheckConfig, check_operator
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS

KERNEL = "op_kernel/gm_table.cpp"


def run(backend, op):
    [case] = load_op_cases(FIXTURE_OPS / "gm_table")
    [res] = check_operator(backend, op, [case], cfg=CheckConfig(timeout_s=60.0))
    return res


def test_a_static_gm_table_is_read_as_gm(backend):
    res = run(backend, Operator.load(FIXTURE_OPS / "gm_table"))
    assert res.status == "ok", f"{res.status} ({res.error_kind}): {res.message[:2000]}"
    assert res.max_abs_err == 0 and not res.warnings


def test_writing_into_the_kernel_binary_is_out_of_bounds(backend):
    base = Operator.load(FIXTURE_OPS / "gm_table")
    text = base.files[KERNEL]
    old = "        DataCopy(yGm[r * 64], xl, 64);\n"
    assert old in text
    op = base.with_file(KERNEL, text.replace(old, old + "        DataCopy(tGm, xl, 64);\n"), origin="test")
    res = run(backend, op)
    assert (res.status, res.error_kind) == ("runtime_error", "gm_out_of_bounds"), res.message
    assert "the kernel binary's constant data' (read-only)" in res.message
