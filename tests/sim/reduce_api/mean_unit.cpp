// Driver for the high-level Mean (mean.h) and the host tmp-size queries: rows printed as
// "<row> v0 v1 ..." lines, recomputed with numpy by test_mean.py. "fail NAME" runs a case that
// must fail with a typed error.
#include <cstdio>
#include <string>

#include "ascendopt_kernel/testing.h"
#include "kernel_operator.h"
#include "unit_rows.h"

using namespace AscendC;

namespace {

using unit::Ctx;
using unit::Fill;
using unit::Row;
using unit::Scalar;

void RunAll(void*) {
    Ctx c;
    // float rows [3, inner 136] with n = 130 (several repeats per row)
    auto f = c.Alloc<float>(3 * 136), fd = c.Alloc<float>(8), tmp = c.Alloc<float>(256);
    Fill(f, 3 * 136, 7, 0.01f);
    Mean(fd, f, tmp.ReinterpretCast<uint8_t>(), MeanParams{3, 136, 130});
    Row("mean_f_in", f, 3 * 136);
    Row("mean_f", fd, 3);
    // half rows [2, inner 48] with n = 45, summed in half and (accType float) in float
    auto h = c.Alloc<half>(2 * 48), hd = c.Alloc<half>(16), hw = c.Alloc<half>(16);
    Fill(h, 2 * 48, 11, 0.05f);
    Mean(hd, h, MeanParams{2, 48, 45});
    Mean<half, float>(hw, h, MeanParams{2, 48, 45});
    Row("mean_h_in", h, 2 * 48);
    Row("mean_h", hd, 2);
    Row("mean_h_acc_f", hw, 2);
}

void RunFail(void* arg) {
    std::string name = static_cast<const char*>(arg);
    Ctx c;
    auto f = c.Alloc<float>(64), fd = c.Alloc<float>(8);
    if (name == "mean_bad_n") Mean(fd, f, MeanParams{1, 16, 17});
    if (name == "mean_inner_misaligned") Mean(fd, f, MeanParams{1, 12, 10});
    if (name == "mean_out_of_bounds") Mean(fd, f, MeanParams{5, 16, 16});
    std::fprintf(stderr, "case %s did not fail\n", name.c_str());
}

}  // namespace

int main(int argc, char** argv) { return unit::Main(argc, argv, RunAll, RunFail); }
