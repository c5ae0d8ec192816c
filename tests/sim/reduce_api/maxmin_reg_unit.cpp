// Driver for the max/min register of WholeReduceMax/WholeReduceMin (read by GetReduceMaxMinCount):
// printed as "<row> v0 v1 ..." lines; test_maxmin_reg.py checks them with numpy.
#include <cstdint>
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

void Reg(const char* name) {
    float val = 0, idx = 0;
    GetReduceMaxMinCount<float>(val, idx);
    uint32_t bits = 0;
    std::memcpy(&bits, &idx, 4);
    std::printf("%s %.9g %u\n", name, double(val), bits);
}

// Counter mode, the kernel's mask (isSetMask = false): all `n` elements in ceil(n / 64) repeats.
void Counter(Ctx& c, const char* xrow, const char* maxrow, const char* minrow, uint32_t n, uint32_t seed) {
    auto x = c.Alloc<float>(n), d = c.Alloc<float>(2 * ((n + 63) / 64) + 8);
    Fill(x, n, seed);
    Row(xrow, x, n);
    SetMaskCount();
    SetVectorMask<float, MaskMode::COUNTER>(0, n);
    WholeReduceMax<float, false>(d, x, MASK_PLACEHOLDER, 1, 1, 1, 8);
    SetMaskNorm();
    ResetMask();
    VS();
    Reg(maxrow);
    SetMaskCount();
    SetVectorMask<float, MaskMode::COUNTER>(0, n);
    WholeReduceMin<float, false>(d, x, MASK_PLACEHOLDER, 1, 1, 1, 8);
    SetMaskNorm();
    ResetMask();
    VS();
    Reg(minrow);
}

// Normal mode, 5 repeats of 64 lanes with the largest element in repeat 1 (not the last).
void Normal(Ctx& c) {
    auto x = c.Alloc<float>(320), d = c.Alloc<float>(16);
    Fill(x, 320, 5);
    x.Data()[64 + 17] = 9.0f;
    Row("nm_x", x, 320);
    WholeReduceMax<float>(d, x, 64, 5, 1, 1, 8);
    VS();
    Reg("nm_max");
}

}  // namespace

void RunAll(void*) {
    Ctx c;
    Counter(c, "ct_x", "ct_max", "ct_min", 1000, 3);
    Counter(c, "big_x", "big_max", "big_min", 20000, 9);  // 313 repeats
    Normal(c);
}

int main() {
    ao::rt::RunOnOneCore(RunAll, nullptr);
    return 0;
}
