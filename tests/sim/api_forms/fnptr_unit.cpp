// Vector APIs taken as function pointers of their documented signatures (the way generic kernels
// pass `Div` or `Adds` as a template argument), and calls with wider repeat counts.
//   fnptr_unit        prints "<row> v0 v1 ..." lines
//   fnptr_unit fail NAME  runs one case that must end with a simulator error (exit 3)
#include <cstdio>
#include <string>

#include "ascendopt_kernel/testing.h"
#include "kernel_operator.h"

using namespace AscendC;

namespace {

template <typename T>
using BinMaskOp = void(const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<T>&, uint64_t, const uint8_t,
                       const BinaryRepeatParams&);
template <typename T>
using BinBitsOp = void(const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<T>&, uint64_t[], const uint8_t,
                       const BinaryRepeatParams&);
template <typename T>
using BinCountOp = void(const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<T>&, const int32_t&);
template <typename T>
using UnMaskOp = void(const LocalTensor<T>&, const LocalTensor<T>&, uint64_t, const uint8_t, const UnaryRepeatParams&);
template <typename T>
using UnCountOp = void(const LocalTensor<T>&, const LocalTensor<T>&, const int32_t&);
template <typename T>
using ScMaskOp = void(const LocalTensor<T>&, const LocalTensor<T>&, const T&, uint64_t, const uint8_t,
                      const UnaryRepeatParams&);
template <typename T>
using ScCountOp = void(const LocalTensor<T>&, const LocalTensor<T>&, const T&, const int32_t&);

// A generic kernel step parameterised by the API (as foreach kernels are).
template <typename T, BinMaskOp<T>* op>
struct BinStep {
    static void Run(const LocalTensor<T>& d, const LocalTensor<T>& a, const LocalTensor<T>& b, uint8_t reps) {
        op(d, a, b, 256 / sizeof(T), reps, {1, 1, 1, 8, 8, 8});
    }
};

template <typename T>
void Row(const char* name, const LocalTensor<T>& t, uint32_t n) {
    std::printf("%s", name);
    for (uint32_t i = 0; i < n; ++i) std::printf(" %.9g", double(t.Data()[i]));
    std::printf("\n");
}

struct Ctx {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bufs[16];
    int nb = 0;
    template <typename T>
    LocalTensor<T> Alloc(uint32_t n) {
        pipe.InitBuffer(bufs[nb], n * sizeof(T));
        return bufs[nb++].Get<T>(n);
    }
};

constexpr uint32_t N = 128;  // two repeats of float

void RunAll(void*) {
    Ctx c;
    auto a = c.Alloc<float>(N), b = c.Alloc<float>(N), d = c.Alloc<float>(N);
    for (uint32_t i = 0; i < N; ++i) { a.Data()[i] = float(i) + 1.0f; b.Data()[i] = float(i % 7) + 2.0f; }
    Row("a", a, N);
    Row("b", b, N);

    BinStep<float, Div>::Run(d, a, b, 2);
    Row("div_ptr", d, N);
    BinStep<float, Sub>::Run(d, a, b, 2);
    Row("sub_ptr", d, N);

    BinCountOp<float>* mul = Mul;
    mul(d, a, b, int32_t(N));
    Row("mul_count_ptr", d, N);

    BinBitsOp<float>* add = Add;
    uint64_t bits[2] = {0x5555555555555555ull, 0};  // even lanes of each repeat
    for (uint32_t i = 0; i < N; ++i) d.Data()[i] = -1.0f;
    add(d, a, b, bits, 2, {1, 1, 1, 8, 8, 8});
    Row("add_bits_ptr", d, N);

    UnMaskOp<float>* ex = Exp;
    ex(d, b, 64, 2, {1, 1, 8, 8});
    Row("exp_ptr", d, N);
    UnCountOp<float>* rec = Reciprocal;
    rec(d, b, int32_t(N));
    Row("rec_count_ptr", d, N);

    ScMaskOp<float>* adds = Adds;
    adds(d, a, 0.5f, 64, 2, {1, 1, 8, 8});
    Row("adds_ptr", d, N);
    ScCountOp<float>* muls = Muls;
    muls(d, a, 3.0f, int32_t(N));
    Row("muls_count_ptr", d, N);

    // Direct calls with int / uint32_t repeat counts and a const bit mask still resolve.
    const uint64_t cbits[2] = {0xffffffffull, 0};  // first 32 lanes
    for (uint32_t i = 0; i < N; ++i) d.Data()[i] = -1.0f;
    int reps = 2;
    Max(d, a, b, cbits, reps, {1, 1, 1, 8, 8, 8});
    Row("max_const_bits", d, N);
    Adds<float, true>(d, a, 1.0f, 64, uint32_t(2), {1, 1, 8, 8});
    Row("adds_u32", d, N);
}

void RunFail(void* arg) {
    std::string name = static_cast<const char*>(arg);
    Ctx c;
    auto a = c.Alloc<float>(N), d = c.Alloc<float>(N);
    if (name == "repeat_over_255") {
        int reps = 300;  // an int count is not wrapped to uint8: the simulator reports it
        Sub(d, a, a, 64, reps, {1, 1, 1, 0, 0, 0});
    }
    std::fprintf(stderr, "case %s did not fail\n", name.c_str());
}

}  // namespace

int main(int argc, char** argv) {
    if (argc >= 3 && std::string(argv[1]) == "fail") {
        ao::rt::RunOnOneCore(RunFail, argv[2]);
        return 0;
    }
    ao::rt::RunOnOneCore(RunAll, nullptr);
    return 0;
}
