"""Matmul with int8 inputs, an int32 bias and a per-channel dequantisation vector
(SetQuantVector: one uint64 scale per output column, float32 bits in the low word) into fp16:
the bias and the scales are vectors, stored contiguously in L1 (N elements, not a 16-row NZ
tile), and Fixpipe scales column n by scale[n]. The MatmulApi fixture's operator rewritten to
those types (quant_batch_matmul_v3's fp16 path), against numpy: the 64-column case has more
columns than one 32-byte block of scales holds (4), and blocks of 64 x 64 split N over cores."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import check_operator
from ascendopt.operator import Operator

from ...conftest import FIXTURE_OPS

HOST = "op_host/matmul_api.cpp"
KERNEL = "op_kernel/matmul_api.cpp"

HOST_EDITS = [
    ("SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16)",
     "SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_INT8)"),
    ("matmul_tiling::DataType::DT_FLOAT16,\n                *transB)", "matmul_tiling::DataType::DT_INT8,\n                *transB)"),
    ("SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT)",
     "SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16)"),
    ("SetBiasType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT)",
     "SetBiasType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_INT32)"),
    ('this->Input("a").ParamType(REQUIRED).DataType({ge::DT_FLOAT16})',
     'this->Input("a").ParamType(REQUIRED).DataType({ge::DT_INT8})'),
    ('this->Input("b").ParamType(REQUIRED).DataType({ge::DT_FLOAT16})',
     'this->Input("b").ParamType(REQUIRED).DataType({ge::DT_INT8})'),
    ('this->Input("bias").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});',
     'this->Input("bias").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});\n'
     '        this->Input("scale").ParamType(REQUIRED).DataType({ge::DT_UINT64}).Format({ge::FORMAT_ND});'),
    ('this->Output("c").ParamType(REQUIRED).DataType({ge::DT_FLOAT})',
     'this->Output("c").ParamType(REQUIRED).DataType({ge::DT_FLOAT16})'),
]
KERNEL_EDITS = [
    ("GM_ADDR bias, GM_ADDR c, const MatmulApiTilingData& td)",
     "GM_ADDR bias, GM_ADDR scale, GM_ADDR c, const MatmulApiTilingData& td)"),
    ("MatmulType<TPosition::GM, CubeFormat::ND, half>;", "MatmulType<TPosition::GM, CubeFormat::ND, int8_t>;"),
    ("MatmulType<TPosition::GM, CubeFormat::ND, half, TRANS_B>;", "MatmulType<TPosition::GM, CubeFormat::ND, int8_t, TRANS_B>;"),
    ("using CT = matmul::MatmulType<TPosition::GM, CubeFormat::ND, float>;",
     "using CT = matmul::MatmulType<TPosition::GM, CubeFormat::ND, half>;"),
    ("using BiasT = matmul::MatmulType<TPosition::GM, CubeFormat::ND, float>;",
     "using BiasT = matmul::MatmulType<TPosition::GM, CubeFormat::ND, int32_t>;"),
    ("GlobalTensor<half> aGm, bGm;\n    GlobalTensor<float> biasGm, cGm;",
     "GlobalTensor<int8_t> aGm, bGm;\n    GlobalTensor<int32_t> biasGm;\n    GlobalTensor<half> cGm;\n"
     "    GlobalTensor<uint64_t> scaleGm;\n    scaleGm.SetGlobalBuffer((__gm__ uint64_t*)scale);"),
    ("aGm.SetGlobalBuffer((__gm__ half*)a);", "aGm.SetGlobalBuffer((__gm__ int8_t*)a);"),
    ("bGm.SetGlobalBuffer((__gm__ half*)b);", "bGm.SetGlobalBuffer((__gm__ int8_t*)b);"),
    ("biasGm.SetGlobalBuffer((__gm__ float*)bias);", "biasGm.SetGlobalBuffer((__gm__ int32_t*)bias);"),
    ("cGm.SetGlobalBuffer((__gm__ float*)c);", "cGm.SetGlobalBuffer((__gm__ half*)c);"),
    ("if (t.isBias) mm.SetBias(biasGm[n0]);", "if (t.isBias) mm.SetBias(biasGm[n0]);\n    mm.SetQuantVector(scaleGm[n0]);"),
    ("GlobalTensor<float> out = cGm", "GlobalTensor<half> out = cGm"),
    ("GM_ADDR bias, GM_ADDR c, GM_ADDR workspace,", "GM_ADDR bias, GM_ADDR scale, GM_ADDR c, GM_ADDR workspace,"),
    ("RunMatmul<true>(a, b, bias, c, td);", "RunMatmul<true>(a, b, bias, scale, c, td);"),
    ("RunMatmul<false>(a, b, bias, c, td);", "RunMatmul<false>(a, b, bias, scale, c, td);"),
]

GOLDEN = '''import numpy as np


def _value(t):
    return np.asarray(t["value"] if isinstance(t, dict) else t)


def calc_expect_func(a, b, bias, scale, c, with_bias=False, trans_b=False, mode=0):
    acc = _value(a).astype(np.int64) @ _value(b).astype(np.int64)
    if with_bias:
        acc = acc + _value(bias).astype(np.int64)[None, :]
    bits = (_value(scale).astype(np.uint64) & np.uint64(0xFFFFE000)).astype(np.uint32)
    return [(acc.astype(np.float64) * bits.view(np.float32)[None, :]).astype(np.float16)]
'''


def _case(name: str, m: int, k: int, n: int, scales: list[int]) -> dict:
    def t(nm, dtype, shape, rng):
        return {"name": nm, "format": ["ND"], "type": [dtype], "shape": shape, "data_distribute": ["uniform"],
                "value_range": [rng]}
    return {"case_name": name, "op": "MatmulApi", "calc_expect_func_file": "test_matmul_api.py:calc_expect_func",
            "input_desc": [t("a", "int8", [m, k], [-8.0, 8.0]), t("b", "int8", [k, n], [-8.0, 8.0]),
                           t("bias", "int32", [n], [-100.0, 100.0]),
                           {"name": "scale", "format": ["ND"], "type": ["uint64"], "shape": [n], "value": scales}],
            "output_desc": [{"name": "c", "format": ["ND"], "type": ["float16"], "shape": [m, n]}],
            "attr": [{"name": "with_bias", "type": "bool", "value": True},
                     {"name": "trans_b", "type": "bool", "value": False}, {"name": "mode", "type": "int", "value": 0}]}


@pytest.fixture(scope="module")
def quant_op(tmp_path_factory):
    d = tmp_path_factory.mktemp("mmq") / "matmul_api"
    shutil.copytree(FIXTURE_OPS / "matmul_api", d)
    for rel, edits in ((HOST, HOST_EDITS), (KERNEL, KERNEL_EDITS)):
        text = (d / rel).read_text()
        for old, new in edits:
            assert old in text, old
            text = text.replace(old, new)
        (d / rel).write_text(text)
    (d / "tests/st/test_matmul_api.py").write_text(GOLDEN)
    # distinct scales per column: 2^-e for e = 4..11, as float32 bits (exact in 10 mantissa bits)
    scale = [int(np.float32(2.0 ** -(4 + j % 8)).view(np.uint32)) for j in range(200)]
    cases = [_case("q_33x45x100", 33, 45, 100, scale[:100]), _case("q_64x64x200", 64, 64, 200, scale[:200])]
    (d / "tests/st/MatmulApi_case.json").write_text(json.dumps(cases))
    return d


def test_per_channel_scales_and_int32_bias_match_numpy(backend, quant_op):
    op = Operator.load(quant_op)
    results = check_operator(backend, op, load_op_cases(quant_op))
    assert len(results) == 2
    for r in results:
        assert r.status == "ok", (r.name, r.message[-3000:])
