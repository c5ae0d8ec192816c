"""Acos, Asin, Atan, Cosh, Sinh, Tan, Erfc (ascendopt_kernel/vector_math_ext.h, the lib/math
APIs cann-ops' foreach kernels instantiate): our scale_copy fixture kernel made to compute
y = acos(x) + 2 asin(x) + 3 atan(x) + 5 cosh(x) + 7 sinh(x) + 11 tan(x) + 13 erfc(x) with
each API once (all seven forms of call), checked against numpy/math on the outputs."""

from __future__ import annotations

import math

import numpy as np

from ascendopt.cases import load_op_cases
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS

COMPUTE = """
        LocalTensor<float> xLocal = inQueue.DeQue<float>();
        LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
        LocalTensor<float> t = tmpBuf.Get<float>();
        LocalTensor<uint8_t> scratch = scratchBuf.Get<uint8_t>();
        Acos<float, false>(yLocal, xLocal, n);
        Asin<float, false>(t, xLocal, scratch, n);
        Axpy(yLocal, t, 2.0f, n);
        Atan(t, xLocal, n);
        Axpy(yLocal, t, 3.0f, n);
        Cosh<float>(t, xLocal, n);
        Axpy(yLocal, t, 5.0f, n);
        Sinh(t, xLocal, scratch, n);
        Axpy(yLocal, t, 7.0f, n);
        Tan(t, xLocal, n);
        Axpy(yLocal, t, 11.0f, n);
        Erfc(t, xLocal, n);
        Axpy(yLocal, t, 13.0f, n);
        outQueue.EnQue(yLocal);
        inQueue.FreeTensor(xLocal);
"""


def test_math_ext_apis_compute_their_functions(backend):
    base = Operator.load(FIXTURE_OPS / "scale_copy")
    text = base.files["op_kernel/scale_copy.cpp"]
    start = text.index("        LocalTensor<float> xLocal = inQueue.DeQue<float>();")
    end = text.index("        inQueue.FreeTensor(xLocal);\n", start) + len("        inQueue.FreeTensor(xLocal);\n")
    text = text[:start] + COMPUTE + text[end:]
    text = text.replace("pipe.InitBuffer(outQueue, BUFFER_NUM, tileLength * sizeof(float));",
                        "pipe.InitBuffer(outQueue, BUFFER_NUM, tileLength * sizeof(float));\n"
                        "        pipe.InitBuffer(tmpBuf, tileLength * sizeof(float));\n"
                        "        pipe.InitBuffer(scratchBuf, 256);")
    text = text.replace("    TPipe pipe;", "    TPipe pipe;\n    TBuf<TPosition::VECCALC> tmpBuf, scratchBuf;")
    op = base.with_file("op_kernel/scale_copy.cpp", text, origin="test/math_ext")
    case = {c.name: c for c in load_op_cases(FIXTURE_OPS / "scale_copy")}["small_tail"]
    x = np.random.default_rng(3).uniform(-0.9, 0.9, size=case.inputs[0].shape).astype(np.float32)
    build = backend.build(op, {"x": "float32", "y": "float32"})
    assert build.ok, build.error[:3000]
    res = backend.run(build, op, case, {"x": x})
    assert res.status == "ok", res.message[:2000]
    xd = x.astype(np.float64)
    erfc = np.vectorize(math.erfc)(xd)
    want = (np.arccos(xd) + 2 * np.arcsin(xd) + 3 * np.arctan(xd) + 5 * np.cosh(xd) + 7 * np.sinh(xd)
            + 11 * np.tan(xd) + 13 * erfc)
    np.testing.assert_allclose(res.outputs["y"].astype(np.float64), want, rtol=1e-5, atol=1e-4)
