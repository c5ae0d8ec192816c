// Driver for the SliceInfo forms of DataCopy (slice_copy.h): prints "<row> v0 v1 ..." lines for
// test_slice_copy.py; "slice_copy_unit fail NAME" runs a case that must end with a simulator error.
#include <string>
#include <vector>

#include "ascendopt_kernel/testing.h"
#include "kernel_operator.h"
#include "../reduce_api/unit_rows.h"

using namespace AscendC;

namespace {

using unit::Gm;
using unit::Row;

template <HardEvent E>
void Wait() {
    SetFlag<E>(EVENT_ID0);
    WaitFlag<E>(EVENT_ID0);
}

void RunAll(void*) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 128 * sizeof(float));
    LocalTensor<float> ub = b.Get<float>();
    static std::vector<float> src(3 * 87), out(40, -1.0f);
    for (size_t i = 0; i < src.size(); ++i) src[i] = float(i);
    GlobalTensor<float> gsrc = Gm(src, "src"), gout = Gm(out, "out");
    Duplicate(ub, -2.0f, 128);
    Wait<HardEvent::V_MTE2>();
    // The documented 2-D example: rows 0 and 2 of a [3, 87] GM tensor, two segments of 3 blocks
    // (24 floats) per row from element 16, 7 elements apart, into a [2, 48] UB tensor.
    SliceInfo srcSlice[] = {{16, 70, 7, 3, 87}, {0, 2, 1, 1, 3}};
    SliceInfo dstSlice[] = {{0, 47, 0, 3, 48}, {0, 1, 0, 1, 2}};
    DataCopy(ub, gsrc, dstSlice, srcSlice, 2);
    Wait<HardEvent::MTE2_S>();
    Row("gm2ub", ub, 128);
    // UB -> GM, one dimension: 2 segments of 1 block from UB (16 floats, end 15) to GM segments 13
    // floats apart from element 3; the destination's endIndex (8) does not limit the copy.
    SliceInfo uSrc[] = {{0, 15, 0, 1, 16}};
    SliceInfo gDst[] = {{3, 8, 5, 1, 40}};
    Wait<HardEvent::MTE2_MTE3>();
    DataCopy(gout, ub, gDst, uSrc);
    PipeBarrier<PIPE_ALL>();
    Row("ub2gm", out.data(), 40);
}

void RunFail(void* arg) {
    std::string name = static_cast<const char*>(arg);
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 64 * sizeof(float));
    LocalTensor<float> ub = b.Get<float>();
    static std::vector<float> g(64, 0.0f);
    GlobalTensor<float> gt = Gm(g, "g");
    if (name == "gm_write_before_tensor") {
        SliceInfo uSrc[] = {{0, 7, 0, 1, 8}};
        SliceInfo gDst[] = {{0, 7, 0, 1, 8}};
        DataCopy(gt[8], ub, gDst, uSrc);  // fine
        PipeBarrier<PIPE_ALL>();
        GlobalTensor<float> before;
        before.SetGlobalBuffer(g.data() - 4);
        DataCopy(before, ub, gDst, uSrc);  // 4 floats before the tensor
    } else if (name == "ub_dst_misaligned") {
        SliceInfo gSrc[] = {{0, 7, 0, 1, 8}};
        SliceInfo uDst[] = {{3, 10, 0, 1, 16}};  // UB segment at element 3: not 32-byte aligned
        DataCopy(ub, gt, uDst, gSrc);
    }
    std::fprintf(stderr, "case %s did not fail\n", name.c_str());
}

}  // namespace

int main(int argc, char** argv) { return unit::Main(argc, argv, RunAll, RunFail); }
