"""An OpDef a macro makes (cann-ops' FOREACH_OPDEF style: the class, its parameters named by
stringified macro arguments and its OP_ADD come from a header's macro) gets its parameters,
their order and dtypes from the preprocessed source (the simulator's OpDef scan, through the
one parser in ascendopt.opdef_params), so the npu harness calls the aclnn API with the right
arguments. The fixture is our npu_scale with its OpDef made that way, with the attribute
declared between the input and the output and a dtype list held in a variable."""

from __future__ import annotations

import json
import shutil

import numpy as np

from ascendopt.backends.base import Status
from ascendopt.backends.npu.harness import opdef_signature
from ascendopt.cases import load_op_cases, make_inputs
from ascendopt.opdef_params import Param, literal_params
from ascendopt.operator import Operator
from tests.npu.conftest import NPU_SCALE

DEF_H = r"""#pragma once
#include "register/op_def_registry.h"
#define AO_TENSOR(KIND, NAME) this->KIND(#NAME).ParamType(REQUIRED).DataType(types).Format({ge::FORMAT_ND});
#define AO_SCALE_OPDEF(CLASS, ATTR, ...)                                  \
    class CLASS : public OpDef {                                          \
    public:                                                               \
        explicit CLASS(const char* name) : OpDef(name) {                  \
            std::vector<ge::DataType> types = {__VA_ARGS__};              \
            AO_TENSOR(Input, x)                                           \
            this->Attr(#ATTR).AttrType(OPTIONAL).Float(2.0);              \
            AO_TENSOR(Output, y)                                          \
            this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b"); \
        }                                                                 \
    };                                                                    \
    OP_ADD(CLASS);
"""


def _macro_op(tmp_path):
    op_dir = tmp_path / "npu_scale"
    shutil.copytree(NPU_SCALE, op_dir)
    src = op_dir / "op_host" / "npu_scale.cpp"
    text = src.read_text()
    start, end = text.index("namespace ops {"), text.index("}  // namespace ops")
    src.write_text('#include "npu_scale_def.h"\n' + text[:start] +
                   "namespace ops {\nAO_SCALE_OPDEF(NpuScale, alpha, ge::DT_FLOAT)\n" + text[end:])
    (op_dir / "op_host" / "npu_scale_def.h").write_text(DEF_H)
    return op_dir


def test_the_signature_of_a_macro_opdef_comes_from_the_preprocessed_source(tmp_path):
    op = Operator.load(_macro_op(tmp_path))
    assert not any(literal_params(op.files[k]) for k in op.host_files())  # nothing to read as written
    assert opdef_signature(op) == [Param("input", "x", "required", ("DT_FLOAT",)),
                                   Param("attr", "alpha", "float"),
                                   Param("output", "y", "required", ("DT_FLOAT",))]


def test_a_macro_opdef_builds_and_runs_through_the_harness(npu, tmp_path):
    op_dir = _macro_op(tmp_path)
    op = Operator.load(op_dir)
    b = npu.build(op, {"x": "float", "y": "float"})
    assert b.ok, b.error
    root = b.artifact.parents[2]
    proto = json.loads((root / "op.json").read_text())[0]
    assert proto["op"] == "NpuScale"
    assert [(d["name"], d["type"]) for d in proto["input_desc"]] == [("x", ["float"])]
    assert [(d["name"], d["type"]) for d in proto["output_desc"]] == [("y", ["float"])]
    assert proto["attr"] == [{"name": "alpha", "param_type": "optional", "type": "float"}]
    src = (root / "harness" / "harness.cpp").read_text()
    assert 'auto a0 = m.Tensor("x", false);' in src and 'auto a1 = m.Tensor("y", true);' in src
    assert 'auto t0 = m.Attr_float("alpha");' in src
    assert "aclnnNpuScaleGetWorkspaceSize(a0, t0, a1, &wsSize, &executor)" in src
    case = next(c for c in load_op_cases(op_dir) if c.name == "small")
    inputs = make_inputs(case, 1)
    r = npu.run(b, op, case, inputs, timeout_s=30)
    assert r.status == Status.OK, r.message
    np.testing.assert_allclose(r.outputs["y"], inputs["x"] * 3.0, rtol=1e-6)


def test_a_literal_opdef_is_read_as_written_and_a_macro_body_is_not():
    text = ('#define AO_P(N) this->Input(#N).ParamType(REQUIRED);\n'
            '#define AO_Q this->Input("q").ParamType(REQUIRED); \\\n    this->Output("r");\n'
            '// this->Input("commented")\n'
            'class A : public OpDef { A(const char* n) : OpDef(n) {\n'
            '  std::vector<ge::DataType> t = {ge::DT_FLOAT16, ge::DT_BF16};\n'
            '  this->Input("a").ParamType(DYNAMIC).DataType(t);\n'
            '  this->Attr("axes").AttrType(REQUIRED).ListInt();\n'
            '  this->Output("b").ParamType(OPTIONAL).DataType({ge::DT_INT32});\n} };\n')
    assert literal_params(text) == [Param("input", "a", "dynamic", ("DT_FLOAT16", "DT_BF16")),
                                    Param("attr", "axes", "list_int"),
                                    Param("output", "b", "optional", ("DT_INT32",))]
