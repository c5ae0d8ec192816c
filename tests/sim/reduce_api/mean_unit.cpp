// Driver for the high-level Mean (mean.h) and the host tmp-size queries: rows printed as
// "<row> v0 v1 ..." lines, recomputed with numpy by test_mean.py. "fail NAME" runs a case that
// must fail with a typed error.
#include <cstdio>
#include <string>

#include "ascendopt_kernel/testing.h"
#include "kernel_operator.h"

using namespace AscendC;

namespace {

template <typename T>
void Row(const char* name, const LocalTensor<T>& t, uint32_t n) {
    std::printf("%s", name);
    for (uint32_t i = 0; i < n; ++i) std::printf(" %.9g", double(float(t.Data()[i])));
    std::printf("\n");
}

struct Ctx {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bufs[8];
    int nb = 0;
    template <typename T>
    LocalTensor<T> Alloc(uint32_t n) {
        TBuf<TPosition::VECCALC>& b = bufs[nb++];
        pipe.InitBuffer(b, n * sizeof(T));
        return b.Get<T>(n);
    }
};

template <typename T>
void Fill(const LocalTensor<T>& t, uint32_t n, uint32_t seed, float scale) {
    for (uint32_t i = 0; i < n; ++i) {
        seed = seed * 1664525u + 1013904223u;
        t.Data()[i] = T(float(int32_t(seed >> 20) % 200 - 100) * scale);
    }
}

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

int main(int argc, char** argv) {
    if (argc == 3 && std::string(argv[1]) == "fail") {
        ao::rt::RunOnOneCore(RunFail, argv[2]);
        return 0;
    }
    ao::rt::RunOnOneCore(RunAll, nullptr);
    return 0;
}
