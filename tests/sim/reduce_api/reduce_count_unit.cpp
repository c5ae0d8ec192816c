// Driver for the count form of ReduceSum (tensor's first n elements) on A2, printed as
// "<row> v0 v1 ..." lines; test_reduce_count.py recomputes the results with numpy.
#include <cstdio>
#include <cstring>

#include "ascendopt_kernel/testing.h"
#include "kernel_operator.h"
#include "unit_rows.h"

using namespace AscendC;

namespace {

using unit::Ctx;
using unit::Fill;
using unit::Row;
using unit::Scalar;
using unit::VS;

float Acc() {
    uint64_t acc = GetAccVal();
    float v;
    std::memcpy(&v, &acc, 4);
    return v;
}

// The work buffer aliases the source (as kernels pass it): only dst[0] may change.
void WorkUntouched(Ctx& c) {
    auto x = c.Alloc<float>(1024), keep = c.Alloc<float>(1024);
    Fill(x, 1024, 7);
    std::memcpy(keep.Data(), x.Data(), 1024 * 4);
    Row("wu_x", keep, 1024);
    ReduceSum(x[512], x, x, 300);  // dst inside src, work = src
    VS();
    Row("wu_after", x, 1024);
    Scalar("wu_acc", Acc());
}

// isSetMask = false: the mask the kernel set decides, count has no effect.
void MaskFromKernel(Ctx& c) {
    auto x = c.Alloc<float>(512), d = c.Alloc<float>(8);
    Fill(x, 512, 11);
    Row("mk_x", x, 512);
    SetMaskCount();
    SetVectorMask<float>(0, 200);
    ReduceSum<float, false>(d, x, x, 1);
    SetMaskNorm();
    ResetMask();
    VS();
    Scalar("mk_counter", d.GetValue(0));
    Scalar("mk_counter_acc", Acc());
    AscendCUtils::SetMask<float>(40);  // normal mode: one repeat of the first 40 lanes
    ReduceSum<float, false>(d, x, x, 1);
    ResetMask();
    VS();
    Scalar("mk_normal", d.GetValue(0));
    SetVectorMask<float>(FULL_MASK, FULL_MASK);  // normal mode, all 64 float lanes of one repeat
    ReduceSum<float, false>(d, x, x, 1);
    VS();
    Scalar("mk_full", d.GetValue(0));
    // The default form sets its own mask, whatever the kernel set, and leaves it normal/full.
    SetMaskCount();
    SetVectorMask<float>(0, 200);
    ReduceSum(d, x, x, 3);
    VS();
    Scalar("mk_default", d.GetValue(0));
    // The mask register is back in normal mode, all lanes: an Add that keeps the register's mask
    // adds one full repeat (64 floats), not the 200 the kernel's counter mode would give.
    Add<float, false>(x[256], x, x, MASK_PLACEHOLDER, 1, {1, 1, 1, 8, 8, 8});
    VS();
    Row("mk_add", x, 512);
}

// Half: repeat sums (binary tree within each repeat) added in order, rounded to half each time.
void HalfOrder(Ctx& c) {
    auto x = c.Alloc<half>(1024), d = c.Alloc<half>(16);
    for (uint32_t i = 0; i < 1000; ++i) x.Data()[i] = half(i < 128 ? 8.0f : 0.37f);
    Row("ho_x", x, 1000);
    ReduceSum(d, x, x, 1000);
    VS();
    Scalar("ho_sum", float(d.GetValue(0)));
}

}  // namespace

void RunAll(void*) {
    Ctx c;
    WorkUntouched(c);
    MaskFromKernel(c);
    HalfOrder(c);
}

int main() {
    ao::rt::RunOnOneCore(RunAll, nullptr);
    return 0;
}
