// Host side: the math library temporary-space queries (math_tmp_size.h) via tiling_api.h.
#include <cstdio>
#include <vector>

#include "tiling/tiling_api.h"

int main() {
    uint32_t mx = 0, mn = 0;
    ge::Shape s(std::vector<int64_t>{1024});
    AscendC::GetSigmoidMaxMinTmpSize(s, 2, false, mx, mn);
    std::printf("sigmoid_half %u %u\n", mx, mn);
    AscendC::GetSigmoidMaxMinTmpSize(s, 4, true, mx, mn);
    std::printf("sigmoid_float_reuse %u %u\n", mx, mn);
    AscendC::GetTanhMaxMinTmpSize(s, 4, false, mx, mn);
    std::printf("tanh_float %u %u\n", mx, mn);
    AscendC::GetMeanMaxMinTmpSize(45, 2, 4, false, mx, mn);
    std::printf("mean_half_f32 %u %u\n", mx, mn);
    return 0;
}
