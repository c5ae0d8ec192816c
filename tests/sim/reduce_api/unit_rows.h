// Shared by the unit drivers (reduce_api, kernel_api/stack_impl_unit.cpp): rows printed as "<name> v0 v1 ..."
// lines for the Python side to recompute with numpy, GM over host vectors, a bump allocator of UB
// buffers, and seeded fills.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "ascendopt_kernel/testing.h"
#include "kernel_operator.h"

namespace unit {
using namespace AscendC;

template <typename T>
void Row(const char* name, const T* v, uint32_t n) {
    std::printf("%s", name);
    for (uint32_t i = 0; i < n; ++i) std::printf(" %.9g", double(float(v[i])));
    std::printf("\n");
}
template <typename T>
void Row(const char* name, const LocalTensor<T>& t, uint32_t n) { Row(name, t.Data(), n); }
inline void Scalar(const char* name, double v) { std::printf("%s %.9g\n", name, v); }

// Scalar reads of vector results wait for the V pipe.
inline void VS() {
    SetFlag<HardEvent::V_S>(EVENT_ID0);
    WaitFlag<HardEvent::V_S>(EVENT_ID0);
}

// A GlobalTensor over a host vector registered as GM (so copies to and from it are checked).
template <typename T>
GlobalTensor<T> Gm(std::vector<T>& v, const char* name) {
    ao::rt::RegisterGm(v.data(), v.size() * sizeof(T), name);
    GlobalTensor<T> g;
    g.SetGlobalBuffer(v.data(), v.size());
    return g;
}

struct Ctx {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bufs[16];
    int nb = 0;
    template <typename T>
    LocalTensor<T> Alloc(uint32_t n) {
        TBuf<TPosition::VECCALC>& b = bufs[nb++];
        pipe.InitBuffer(b, n * sizeof(T));
        return b.Get<T>(n);
    }
};

// Values in [-100, 100) * scale from a linear congruential sequence (same seed, same data).
template <typename T>
void Fill(const LocalTensor<T>& t, uint32_t n, uint32_t seed, float scale = 0.01f) {
    for (uint32_t i = 0; i < n; ++i) {
        seed = seed * 1664525u + 1013904223u;
        t.Data()[i] = T(float(int32_t(seed >> 20) % 200 - 100) * scale);
    }
}
// A unit driver's main: `DRIVER` runs every row (all), `DRIVER fail NAME` runs one failing case.
inline int Main(int argc, char** argv, void (*all)(void*), void (*fail)(void*)) {
    if (argc == 3 && std::string(argv[1]) == "fail") {
        ao::rt::RunOnOneCore(fail, argv[2]);
        return 0;
    }
    ao::rt::RunOnOneCore(all, nullptr);
    return 0;
}
}  // namespace unit
