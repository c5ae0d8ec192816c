"""spread_cores on column loops (``X*n + ii`` accesses, cxx.parallel_minor): scatters whose
rows come from data split their columns over the cores (tests/refine)."""

import pytest

from ascendopt.transforms import REWRITES

from .forms import kernel
from .test_rewrite_spread_cores import SCALAR_ABS, single_core_abs

#: scatter_sub's unaligned form: the row comes from an index tensor, read-modify-write of var.
SCATTER = """
    __aicore__ inline void Process() {
        for (int32_t i = 0; i < tiles; i++) {
            for (int32_t ii = 0; ii < len; ii++) {
                int32_t idx = static_cast<int32_t>(xGm.GetValue(i));
                float v = yGm.GetValue(idx * len + ii);
                yGm.SetValue(idx * len + ii, v - xGm.GetValue(i * len + ii));
            }
        }
    }"""
#: the row is a template type (scatter_sub's ``TYPE_INDICES indice``): asserted integral.
TEMPLATE_ROW = """
    __aicore__ inline void Process() {
        for (uint32_t i = 0; i < tiles; i++) {
            for (uint32_t j = 0; j < len; j++) {
                IDX r = xGm.GetValue(i);
                yGm.SetValue(r * len + j, 1.0f);
            }
        }
    }"""
MUST_NOT = {
    "carried across columns": """
    __aicore__ inline void Process() {
        for (int32_t i = 0; i < tiles; i++) {
            float s = 0;
            for (int32_t ii = 0; ii < len; ii++) {
                s += xGm.GetValue(ii);
                yGm.SetValue(static_cast<int32_t>(xGm.GetValue(i)) * len + ii, s);
            }
        }
    }""",
    "column scaled": """
    __aicore__ inline void Process() {
        for (int32_t i = 0; i < tiles; i++)
            for (int32_t ii = 0; ii < len; ii++)
                yGm.SetValue(static_cast<int32_t>(xGm.GetValue(i)) * len + 2 * ii, 1.0f);
    }""",
    "row scaled by another count": """
    __aicore__ inline void Process() {
        for (int32_t i = 0; i < tiles; i++)
            for (int32_t ii = 0; ii < len; ii++)
                yGm.SetValue(static_cast<int32_t>(xGm.GetValue(i)) * tail + ii, 1.0f);
    }""",
    "column count varies by row": """
    __aicore__ inline void Process() {
        for (int32_t i = 0; i < tiles; i++) {
            int32_t m = static_cast<int32_t>(xGm.GetValue(i));
            for (int32_t ii = 0; ii < m; ii++)
                yGm.SetValue(static_cast<int32_t>(xGm.GetValue(i)) * m + ii, 1.0f);
        }
    }""",
    "float row": """
    __aicore__ inline void Process() {
        for (int32_t i = 0; i < tiles; i++)
            for (int32_t ii = 0; ii < len; ii++) {
                float r = xGm.GetValue(i);
                yGm.SetValue(r * len + ii, 1.0f);
            }
    }""",
    "row through a float parameter": """
    __aicore__ inline void Put(float r, int32_t ii) { yGm.SetValue(r * len + ii, 1.0f); }
    __aicore__ inline void Process() {
        for (int32_t i = 0; i < tiles; i++)
            for (int32_t ii = 0; ii < len; ii++)
                Put(static_cast<int32_t>(xGm.GetValue(i)), ii);
    }""",
    "written tensor read at another column": """
    __aicore__ inline void Process() {
        for (int32_t i = 0; i < tiles; i++)
            for (int32_t ii = 0; ii < len; ii++) {
                int32_t r = static_cast<int32_t>(xGm.GetValue(i));
                yGm.SetValue(r * len + ii, yGm.GetValue(r * len));
            }
    }""",
    "rest of the outer loop writes GM": """
    __aicore__ inline void Process() {
        for (int32_t i = 0; i < tiles; i++) {
            yGm.SetValue(i, 0.0f);
            for (int32_t ii = 0; ii < len; ii++)
                yGm.SetValue(static_cast<int32_t>(xGm.GetValue(i)) * len + ii, 1.0f);
        }
    }""",
    "column result used by the rest of the outer loop": """
    __aicore__ inline void Process() {
        float last = 0;
        for (int32_t i = 0; i < tiles; i++) {
            for (int32_t ii = 0; ii < len; ii++) {
                last = xGm.GetValue(i * len + ii);
                yGm.SetValue(static_cast<int32_t>(xGm.GetValue(i)) * len + ii, last);
            }
            xGm.SetValue(0, last);
        }
    }""",
    "copy in the column loop": """
    __aicore__ inline void Process() {
        for (int32_t i = 0; i < tiles; i++)
            for (int32_t ii = 0; ii < len; ii++) {
                AscendC::LocalTensor<float> t = tmpBuf.Get<float>();
                AscendC::DataCopy(yGm[static_cast<int32_t>(xGm.GetValue(i)) * len + ii], t, 8);
            }
    }""",
}


def _sites(op):
    return REWRITES.get("spread_cores").find(op)


@pytest.mark.parametrize("body,head", [(SCATTER, ""), (TEMPLATE_ROW, "using IDX = int32_t;\n")],
                         ids=["scatter", "template-row"])
def test_column_loop_applies(body, head):
    op = kernel(body, head)
    [site] = _sites(op)
    var = "ii" if body is SCATTER else "j"
    assert site.label == f"split columns over {var} in Process over GetBlockNum() cores (host launch unchanged)"
    out = REWRITES.get("spread_cores").apply(op, site).files[op.kernel_file]
    assert "aoEnd % 64 == 0 ? static_cast<int64_t>(AscendC::GetBlockNum()) : 1" in out
    assert ("static_assert(std::is_integral<IDX>::value" in out) == (body is TEMPLATE_ROW)


@pytest.mark.parametrize("name", list(MUST_NOT))
def test_column_loop_refused(name):
    assert _sites(kernel(MUST_NOT[name])) == []


# ----------------------------------------------------------------------------- end to end
ROWS_ABS = """#include "kernel_operator.h"
template <typename T> class KernelAbsRows {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t n)
    {
        cols = n % 1024 == 0 ? 1024 : n;
        rows = n / cols;
        xGm.SetGlobalBuffer((__gm__ T*)x, n);
        yGm.SetGlobalBuffer((__gm__ T*)y, n);
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < rows; i++) {
            for (uint32_t j = 0; j < cols; j++) {
                T first = xGm.GetValue(i * cols);
                int32_t r = first != first ? 0 : static_cast<int32_t>(i);
                T v = xGm.GetValue(i * cols + j);
                yGm.SetValue(r * cols + j, v < 0 ? -v : v);
            }
        }
    }
private:
    AscendC::GlobalTensor<T> xGm, yGm;
    uint32_t rows = 0, cols = 0;
};
""" + SCALAR_ABS[SCALAR_ABS.index("\nextern"):].replace("KernelAbsScalar", "KernelAbsRows")


def test_scatter_rows_split_by_columns_correct_and_faster(check):
    """A single-core row loop whose destination row is read from data (a NaN test: the outer
    loop is refused, two rows may meet) splits its 1024 columns in 16 shares of 64: correct on
    an 8 x 1024 case (spread) and on the 1000-element case (1000 % 64 != 0: core 0 runs all)."""
    from dataclasses import replace

    from ascendopt.cases import load_op_cases

    slow = single_core_abs(ROWS_ABS)
    rw = REWRITES.get("spread_cores")
    [site] = rw.find(slow)
    assert site.label.startswith("split columns over j in Process")
    fast = rw.apply(slow, site)
    [small] = [c for c in load_op_cases(slow.root) if c.name.endswith("_float") and c.inputs[0].size == 1000]
    wide = replace(small, name="rows_8x1024_float", inputs=[replace(small.inputs[0], shape=(8, 1024))],
                   outputs=[replace(small.outputs[0], shape=(8, 1024))])
    before, after = check(slow, [small, wide]), check(fast, [small, wide])
    assert all(r.status == "ok" for r in before + after), [r.message for r in before + after]
    assert after[-1].block_dim == 48 and after[-1].task_duration_us < before[-1].task_duration_us / 4
