"""Host API a CheckSupport callback and op log lines use: ge::Operator::GetInputDescByName /
GetOutputDescByName / GetAttr (a bare Operator has no inputs or attributes: an empty
TensorDesc, GRAPH_FAILED), ge::TensorDesc, ge::Tensor (a description and a copy of its bytes), gert::AnchorInstanceInfo::GetInstanceNum (the
documented name) and the toolkit's ops::ToString helpers, declared by the op itself as cann-ops
sources do and defined by runtime/host_util.cpp."""

from __future__ import annotations

from .program import run_program
from .test_host import FLAGS, RUNTIME

PROGRAM = r"""
#include <cstdio>
#include <string>
#include "register/op_def_registry.h"

namespace ops {
std::string ToString(const gert::Shape& shape);  // as the op declares it
}

namespace ge {
template <typename T>  // the form of cann-ops const-value readers
static void ReadConst(const Operator& op, const Tensor& t, std::vector<int64_t>& out) {
    const T* p = reinterpret_cast<const T*>(t.GetData());
    for (size_t i = 0; i < t.GetSize() / sizeof(T); ++i) out.push_back(int64_t(p[i]));
    AscendString name;
    (void)op.GetName(name);
}
}  // namespace ge

static int CheckOp(const ge::Operator& op) {
    ge::Shape x = op.GetInputDescByName("x").GetShape();
    int64_t seq_dim = 7;
    bool has_attr = op.GetAttr("seq_dim", seq_dim) == ge::GRAPH_SUCCESS;
    return int(x.GetDimNum()) * 100 + int(has_attr) * 10 + int(seq_dim == 7);
}

int main() {
    ge::Operator op("ReverseSequence");
    ge::TensorDesc d(ge::Shape({2, 3}), ge::FORMAT_ND, ge::DT_FLOAT16);
    gert::AnchorInstanceInfo list(1, 4);
    std::printf("%d %zu %d %zu %zu\n", CheckOp(op), d.GetShape().GetDimNum(), int(d.GetDataType() == ge::DT_FLOAT16),
                list.GetInstanceNum(), list.GetInstanceStart());
    gert::Shape s{2, 3, 4};
    std::vector<gert::Shape> two{gert::Shape{5}, gert::Shape{}};
    std::printf("%s|%s|%s|%s|%s|%s\n", ops::ToString(s).c_str(), ops::ToString(&s).c_str(),
                ops::ToString(std::vector<int64_t>{-1, 8}).c_str(), ops::ToString(two).c_str(),
                ops::ToString(ge::DT_BF16).c_str(), ops::ToString(ge::FORMAT_NCHW).c_str());
    const int32_t vals[3] = {4, -2, 9};
    ge::Tensor t(d, reinterpret_cast<const uint8_t*>(vals), sizeof vals);
    ge::Tensor copy = t;
    std::vector<int64_t> got;
    ge::ReadConst<int32_t>(op, copy, got);
    std::printf("%zu %lld %lld %lld %d\n", copy.GetSize(), (long long)got[0], (long long)got[1], (long long)got[2],
                int(ge::Tensor().GetData() == nullptr));
    return 0;
}
"""


def test_operator_descs_instance_num_and_to_string(tmp_path):
    out = run_program(tmp_path, PROGRAM, FLAGS, (RUNTIME / "host_rt.cpp", RUNTIME / "host_util.cpp")).splitlines()
    assert out[0].split() == ["1", "2", "1", "4", "1"]  # 0 dims, no attr, value untouched
    assert out[1] == "[2, 3, 4]|[2, 3, 4]|[-1, 8]|[[5], []]|DT_BF16|NCHW"
    assert out[2].split() == ["12", "4", "-2", "9", "1"]
