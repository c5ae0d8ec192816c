"""gert::Range and InferShapeRangeContext (shape ranges of an InferShapeRange function) and
ge::UNKNOWN_DIM: a range function of ours, written the way real ones are, run on a context
over ranges we give it; the output ranges it writes are checked."""

from __future__ import annotations

from .program import run_program
from .test_host import FLAGS, RUNTIME

PROGRAM = r"""
#include <cstdio>
#include <set>
#include "register/op_def_registry.h"
#include "exe_graph/runtime/infer_shape_range_context.h"
#include "exe_graph/runtime/range.h"

// y = concat(x0, x1) on axis 0: min/max of dim 0 add, other dims from x0; unknown max stays unknown.
static ge::graphStatus ConcatRange(gert::InferShapeRangeContext* context) {
    const gert::Range<gert::Shape>* a = context->GetInputShapeRange(0);
    const gert::Range<gert::Shape>* b = context->GetInputShapeRange(1);
    gert::Range<gert::Shape>* y = context->GetOutputShapeRange(0);
    if (a == nullptr || b == nullptr || y == nullptr || context->GetInputShapeRange(2) != nullptr) {
        return ge::GRAPH_FAILED;
    }
    *y->GetMin() = *a->GetMin();
    *y->GetMax() = *a->GetMax();
    y->GetMin()->SetDim(0, a->GetMin()->GetDim(0) + b->GetMin()->GetDim(0));
    int64_t amax = a->GetMax()->GetDim(0), bmax = b->GetMax()->GetDim(0);
    y->GetMax()->SetDim(0, (amax == ge::UNKNOWN_DIM || bmax == ge::UNKNOWN_DIM) ? ge::UNKNOWN_DIM : amax + bmax);
    return ge::GRAPH_SUCCESS;
}

int main() {
    gert::Shape amin{1, 8}, amax{4, 8}, bmin{2, 8}, bmax{ge::UNKNOWN_DIM, 8}, ymin, ymax;
    gert::Range<gert::Shape> in[2] = {gert::Range<gert::Shape>(&amin, &amax), gert::Range<gert::Shape>(&bmin, &bmax)};
    gert::Range<gert::Shape> out[1] = {gert::Range<gert::Shape>(&ymin, &ymax)};
    gert::AoNodeData node;
    gert::InferShapeRangeContext ctx(&node, in, 2, out, 1);
    int rc = ConcatRange(&ctx);
    std::printf("%d %zu %lld %lld %lld %lld %d\n", rc, ymin.GetDimNum(), (long long)ymin.GetDim(0),
                (long long)ymin.GetDim(1), (long long)ymax.GetDim(0), (long long)ymax.GetDim(1),
                int(ge::UNKNOWN_DIM_NUM));
    std::set<int> uses_set_through_the_headers{1};
    return int(uses_set_through_the_headers.size()) - 1;
}
"""


def test_infer_shape_range_context(tmp_path):
    out = run_program(tmp_path, PROGRAM, FLAGS, (RUNTIME / "host_rt.cpp",))
    assert out.split() == ["0", "2", "3", "8", "-1", "8", "-2"]
