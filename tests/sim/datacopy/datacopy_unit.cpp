// Unit driver for DataCopy / DataCopyPad forms: prints "<case> <values...>" lines.
#include <cstdio>
#include <vector>

#include "ascendopt_kernel/testing.h"
#include "kernel_operator.h"

using namespace AscendC;

namespace {
std::vector<float> g_gm_in(512), g_gm_out(512);

void Print(const char* name, const float* p, int n) {
    std::printf("%s", name);
    for (int i = 0; i < n; ++i) std::printf(" %g", p[i]);
    std::printf("\n");
}

void Body(void*) {
    for (int i = 0; i < 512; ++i) g_gm_in[i] = float(i);
    for (auto& v : g_gm_out) v = -1.0f;
    GlobalTensor<float> in, out;
    in.SetGlobalBuffer(g_gm_in.data(), 512);
    out.SetGlobalBuffer(g_gm_out.data(), 512);
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, b;
    pipe.InitBuffer(a, 4096);
    pipe.InitBuffer(b, 4096);
    LocalTensor<float> ua = a.Get<float>(), ub = b.Get<float>();
    Duplicate(ua, -2.0f, 1024);
    Duplicate(ub, -2.0f, 1024);
    PipeBarrier<PIPE_ALL>();

    // 3 bursts of 2 blocks (16 floats); GM gap 1 block, UB gap 2 blocks.
    DataCopy(ua, in, DataCopyParams(3, 2, 1, 2));
    PipeBarrier<PIPE_ALL>();
    Print("gm2ub_params", ua.Data(), 96);

    // Back out: UB gap 2 blocks, GM gap 3 blocks.
    DataCopy(out, ua, DataCopyParams(3, 2, 2, 3));
    PipeBarrier<PIPE_ALL>();
    Print("ub2gm_params", g_gm_out.data(), 120);

    // DataCopyPad GM->UB: 3 bursts of 5 floats, GM gap 4 bytes, 1 left + 2 right pad elements of 9.
    Duplicate(ub, -2.0f, 1024);
    PipeBarrier<PIPE_ALL>();
    DataCopyPad(ub, in, DataCopyExtParams(3, 20, 4, 0, 0), DataCopyPadExtParams<float>(true, 1, 2, 9.0f));
    PipeBarrier<PIPE_ALL>();
    Print("gm2ub_pad", ub.Data(), 24);

    // DataCopyPad GM->UB rows short of 32 bytes get dummy elements up to the boundary: copies of the
    // row's first element without left/right padding, the padding value with it (isPad).
    Duplicate(ub, -2.0f, 1024);
    PipeBarrier<PIPE_ALL>();
    DataCopyPad(ub, in[3], DataCopyExtParams(2, 20, 0, 0, 0), DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
    DataCopyPad(ub[16], in[40], DataCopyExtParams(1, 20, 0, 0, 0), DataCopyPadExtParams<float>(true, 1, 0, 7.0f));
    PipeBarrier<PIPE_ALL>();
    Print("gm2ub_pad_dummy", ub.Data(), 32);

    // DataCopyPad UB->GM: 3 bursts of 5 floats from 32-byte aligned UB rows, GM gap 8 bytes.
    for (auto& v : g_gm_out) v = -1.0f;
    Duplicate(ua, 0.0f, 64);
    PipeBarrier<PIPE_ALL>();
    for (int i = 0; i < 24; ++i) ua.SetValue(i, float(100 + i));
    PipeBarrier<PIPE_ALL>();
    DataCopyPad(out, ua, DataCopyExtParams(3, 20, 0, 8, 0));
    PipeBarrier<PIPE_ALL>();
    Print("ub2gm_pad", g_gm_out.data(), 24);

    // UB -> UB count form.
    DataCopy(ub, ua, 16);
    PipeBarrier<PIPE_ALL>();
    Print("ub2ub", ub.Data(), 16);
}
}  // namespace

int main() {
    ao::rt::RegisterGm(g_gm_in.data(), g_gm_in.size() * 4, "in");
    ao::rt::RegisterGm(g_gm_out.data(), g_gm_out.size() * 4, "out");
    ao::rt::RunOnOneCore(Body, nullptr);
    return 0;
}
