// Driver for PopStackBuffer, the pointer-level *Impl functions (impl_ptr_forms.h) and the
// toolkit's element-size constants (utils_constants.h, checked at compile time):
//   stack_impl_unit            prints "<row> v0 v1 ..." lines for test_stack_impl.py
//   stack_impl_unit fail NAME  runs one case that must end with a simulator error (exit 3)
#include <cstdio>
#include <string>
#include <vector>

#include "ascendopt_kernel/testing.h"
#include "kernel_operator.h"
#include "lib/pad/kernel_operator_pad_intf.h"  // the toolkit lib/ header path builds
#include "../reduce_api/unit_rows.h"

using namespace AscendC;

namespace {

using unit::Gm;
using unit::Row;

// Unqualified, as kernels use them under `using namespace AscendC`.
static_assert(B32_DATA_NUM_PER_BLOCK * B32_BYTE_SIZE == ONE_BLK_SIZE, "B32 per block");
static_assert(B16_DATA_NUM_PER_BLOCK * B16_BYTE_SIZE == ONE_BLK_SIZE, "B16 per block");
static_assert(B32_DATA_NUM_PER_REPEAT * B32_BYTE_SIZE == ONE_REPEAT_BYTE_SIZE, "B32 per repeat");
static_assert(B16_DATA_NUM_PER_REPEAT * B16_BYTE_SIZE == ONE_REPEAT_BYTE_SIZE, "B16 per repeat");
static_assert(B8_BYTE_SIZE == 1 && B64_BYTE_SIZE == 8 && HALF_MASK_LEN * 2 == FULL_MASK_LEN, "sizes");
static_assert(MAX_REPEAT_FLOAT_SIZE == 64 * 255 && MAX_REPEAT_HALF_SIZE == 128 * 255, "max repeat sizes");
static_assert(sizeof(DropOutShapeInfo) == 3 * sizeof(uint32_t), "DropOutShapeInfo: three axis lengths");

template <HardEvent E>
void Wait() {
    SetFlag<E>(EVENT_ID0);
    WaitFlag<E>(EVENT_ID0);
}

void RunAll(void*) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> first;
    pipe.InitBuffer(first, 1000);  // 1024 bytes: the pipe's allocation end
    LocalTensor<int16_t> pop;
    bool ok = PopStackBuffer<int16_t, TPosition::LCM>(pop);
    double ub = double(ao::rt::Cur().cap[int(ao::rt::Space::UB)]);
    DropOutShapeInfo info;  // zero-initialised fields, as documented
    std::printf("dropout_info %u %u %u\n", info.firstAxis, info.srcLastAxis, info.maskLastAxis);
    const uint64_t popAddr = ao::k::LocalAddr(pop.GetPhyAddr(), ao::rt::Space::UB);  // its UB byte address
    std::printf("pop %d %llu %u %.0f\n", int(ok), (unsigned long long)popAddr, pop.GetSize(), ub);

    // DuplicateImpl on the popped space: 300 elements from its start, the rest untouched.
    Duplicate(pop, int16_t(-1), 512);
    PipeBarrier<PIPE_V>();
    DuplicateImpl<int16_t>((__ubuf__ int16_t*)pop.GetPhyAddr(), 7, 300);
    Wait<HardEvent::V_S>();
    Row("dup", pop.Data(), 320);

    // UB -> GM and GM -> UB through the pointer forms, whole blocks and padded rows.
    static std::vector<int16_t> out(512, 0);
    static std::vector<float> src(24), back(64, -5.0f);
    for (int i = 0; i < 24; ++i) src[i] = float(i) + 0.5f;
    GlobalTensor<int16_t> gout = Gm(out, "out");
    GlobalTensor<float> gsrc = Gm(src, "src"), gback = Gm(back, "back");
    Wait<HardEvent::V_MTE3>();
    DataCopyUB2GMImpl((__gm__ int16_t*)gout.GetPhyAddr(), (__ubuf__ int16_t*)pop.GetPhyAddr(), {1, 20, 0, 0});
    LocalTensor<float> f = first.Get<float>();
    Duplicate(f, -5.0f, 64);
    Wait<HardEvent::V_MTE2>();
    // 2 rows of 10 floats (40 bytes) from GM rows 12 floats apart, each UB row padded to 16 floats
    // with 6 right-padding elements of value 9.
    DataCopyPadGm2UBImpl((__ubuf__ float*)f.GetPhyAddr(), (__gm__ float*)gsrc.GetPhyAddr(),
                         DataCopyExtParams(2, 40, 8, 0, 0), DataCopyPadExtParams<float>(true, 0, 6, 9.0f));
    Wait<HardEvent::MTE2_MTE3>();
    DataCopyPadUB2GMImpl((__gm__ float*)gback.GetPhyAddr(), (__ubuf__ float*)f.GetPhyAddr(),
                         DataCopyExtParams(1, 32 * 4, 0, 0, 0));
    PipeBarrier<PIPE_ALL>();
    Row("ub2gm", out.data(), 330);
    Row("pad", back.data(), 32);
}

void RunFail(void* arg) {
    std::string name = static_cast<const char*>(arg);
    TPipe pipe;
    if (name == "pop_full_ub") {
        TBuf<TPosition::VECCALC> all;
        pipe.InitBuffer(all, uint32_t(ao::rt::Cur().cap[int(ao::rt::Space::UB)]));
        LocalTensor<float> pop;
        PopStackBuffer<float, TPosition::LCM>(pop);
    } else if (name == "pop_read_past_ub") {
        LocalTensor<float> pop;
        PopStackBuffer<float, TPosition::LCM>(pop);
        Adds(pop[pop.GetSize() - 32], pop[pop.GetSize() - 32], 1.0f, 64);  // runs past the end of UB
    } else if (name == "impl_outside_ub") {
        DuplicateImpl<float>((__ubuf__ float*)uint64_t(ao::rt::Cur().cap[int(ao::rt::Space::UB)]), 1.0f, 8);
    }
    std::fprintf(stderr, "case %s did not fail\n", name.c_str());
}

}  // namespace

int main(int argc, char** argv) { return unit::Main(argc, argv, RunAll, RunFail); }
