// Unit driver for the emulated AscendC vector APIs.
//   vector_unit all OUTDIR      runs every case; writes OUTDIR/<case>.<tensor>.bin + OUTDIR/manifest.txt
//   vector_unit fail NAME       runs one case that must end with a simulator error (exit 3)
// Inputs are generated here deterministically and dumped next to the outputs; the pytest side
// (test_vector_api.py) recomputes every result with numpy from the dumped inputs.
#include <cstdio>
#include <cstring>
#include <string>

#include "ascendopt_kernel/testing.h"
#include "kernel_operator.h"

using namespace AscendC;

namespace {

std::string g_dir;
FILE* g_manifest = nullptr;
std::string g_case;

template <typename T>
const char* DName() {
    if constexpr (std::is_same_v<T, float>) return "f32";
    else if constexpr (std::is_same_v<T, half>) return "f16";
    else if constexpr (std::is_same_v<T, bfloat16_t>) return "bf16";
    else if constexpr (std::is_same_v<T, int8_t>) return "i8";
    else if constexpr (std::is_same_v<T, uint8_t>) return "u8";
    else if constexpr (std::is_same_v<T, int16_t>) return "i16";
    else if constexpr (std::is_same_v<T, uint16_t>) return "u16";
    else if constexpr (std::is_same_v<T, int32_t>) return "i32";
    else if constexpr (std::is_same_v<T, uint32_t>) return "u32";
    else if constexpr (std::is_same_v<T, int64_t>) return "i64";
    else return "raw";
}

template <typename T>
void Dump(const char* name, const LocalTensor<T>& t, uint32_t n) {
    std::string path = g_dir + "/" + g_case + "." + name + ".bin";
    FILE* f = std::fopen(path.c_str(), "wb");
    std::fwrite(t.Data(), sizeof(T), n, f);
    std::fclose(f);
    std::fprintf(g_manifest, "%s %s %s %u\n", g_case.c_str(), name, DName<T>(), n);
}

uint32_t g_seed = 12345;
uint32_t Rnd() {
    g_seed = g_seed * 1664525u + 1013904223u;
    return g_seed >> 8;
}
float RndF(float lo, float hi) { return lo + (hi - lo) * float(Rnd() & 0xffff) / 65535.0f; }

template <typename T>
void Fill(const LocalTensor<T>& t, uint32_t n, float lo, float hi) {
    for (uint32_t i = 0; i < n; ++i) {
        float v = RndF(lo, hi);
        if constexpr (std::is_integral_v<T>) t.Data()[i] = T(int64_t(__builtin_floorf(v)));
        else t.Data()[i] = T(v);
    }
}
template <typename T>
void FillConst(const LocalTensor<T>& t, uint32_t n, T v) {
    for (uint32_t i = 0; i < n; ++i) t.Data()[i] = v;
}

// Per-case UB allocator: one TPipe, one TBuf per tensor (exact bounds per tensor).
struct Ctx {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bufs[12];
    int nb = 0;
    template <typename T>
    LocalTensor<T> Alloc(uint32_t n) {
        TBuf<TPosition::VECCALC>& b = bufs[nb++];
        pipe.InitBuffer(b, n * sizeof(T));
        return b.Get<T>(n);
    }
};

#define CASE(name) g_case = name

// ---------------------------------------------------------------------------------- binary
template <typename T>
void BinaryCount(const char* op, float lo, float hi, uint32_t n) {
    Ctx c;
    auto a = c.Alloc<T>(n), b = c.Alloc<T>(n), d = c.Alloc<T>(n + 64);
    Fill(a, n, lo, hi);
    Fill(b, n, lo, hi);
    FillConst(d, n + 64, T(7));
    std::string s = op;
    if (s == "Add") Add(d, a, b, n);
    else if (s == "Sub") Sub(d, a, b, n);
    else if (s == "Mul") Mul(d, a, b, n);
    else if (s == "Div") Div(d, a, b, n);
    else if (s == "Max") Max(d, a, b, n);
    else if (s == "Min") Min(d, a, b, n);
    else if (s == "And") And(d, a, b, n);
    else if (s == "Or") Or(d, a, b, n);
    Dump("a", a, n);
    Dump("b", b, n);
    Dump("d", d, n + 64);
}

template <typename T>
void BinaryMaskCont() {
    // mask 40 (f32) / 100 (f16), 3 repeats, dst block stride 2, src0 rep stride 16.
    Ctx c;
    const uint32_t N = 4096 / sizeof(T);
    auto a = c.Alloc<T>(N), b = c.Alloc<T>(N), d = c.Alloc<T>(N);
    Fill(a, N, -10, 10);
    Fill(b, N, -10, 10);
    FillConst(d, N, T(-1));
    uint64_t mask = sizeof(T) == 4 ? 40 : 100;
    Add(d, a, b, mask, 3, BinaryRepeatParams(2, 1, 1, 16, 16, 8));
    Dump("a", a, N);
    Dump("b", b, N);
    Dump("d", d, N);
}

template <typename T>
void BinaryMaskBits() {
    Ctx c;
    const uint32_t N = 2048 / sizeof(T);
    auto a = c.Alloc<T>(N), b = c.Alloc<T>(N), d = c.Alloc<T>(N);
    Fill(a, N, -4, 4);
    Fill(b, N, -4, 4);
    FillConst(d, N, T(5));
    if constexpr (sizeof(T) == 4) {
        uint64_t m[1] = {0xF0F0F0F00000FFFFull};  // 32-bit data: only mask[0] exists
        Mul(d, a, b, m, 2, BinaryRepeatParams(1, 1, 2, 8, 8, 16));
    } else {
        uint64_t m[2] = {0x5555555555555555ull, 0xFF000000000000F1ull};
        Mul(d, a, b, m, 2, BinaryRepeatParams(1, 1, 2, 8, 8, 16));
    }
    Dump("a", a, N);
    Dump("b", b, N);
    Dump("d", d, N);
}

void MaskStateCases() {
    {
        CASE("setmask_false");
        Ctx c;
        auto a = c.Alloc<float>(256), b = c.Alloc<float>(256), d = c.Alloc<float>(256);
        Fill(a, 256, -3, 3);
        Fill(b, 256, -3, 3);
        FillConst(d, 256, 9.0f);
        SetVectorMask<float>(0, 0x00FF00FF00FF00FFull);
        Sub<float, false>(d, a, b, MASK_PLACEHOLDER, 2, BinaryRepeatParams());
        ResetMask();
        Dump("a", a, 256);
        Dump("b", b, 256);
        Dump("d", d, 256);
    }
    {
        CASE("counter_mode");
        Ctx c;
        auto a = c.Alloc<float>(256), b = c.Alloc<float>(256), d = c.Alloc<float>(256);
        Fill(a, 256, -3, 3);
        Fill(b, 256, -3, 3);
        FillConst(d, 256, 9.0f);
        SetMaskCount();
        SetVectorMask<float, MaskMode::COUNTER>(0, 150);
        Add<float, false>(d, a, b, MASK_PLACEHOLDER, 1, BinaryRepeatParams());
        SetMaskNorm();
        ResetMask();
        Dump("a", a, 256);
        Dump("b", b, 256);
        Dump("d", d, 256);
    }
    {
        // A count-form call leaves the mask register in normal mode with all bits set.
        CASE("count_resets_mask");
        Ctx c;
        auto a = c.Alloc<float>(128), b = c.Alloc<float>(128), d = c.Alloc<float>(128);
        Fill(a, 128, -3, 3);
        Fill(b, 128, -3, 3);
        FillConst(d, 128, 9.0f);
        SetVectorMask<float>(0, 0xF);
        Add(d, a, b, 8);
        Mul<float, false>(d, a, b, MASK_PLACEHOLDER, 2, BinaryRepeatParams());
        Dump("a", a, 128);
        Dump("b", b, 128);
        Dump("d", d, 128);
    }
    {
        // isSetMask=true writes the mask register; a later isSetMask=false call reuses it.
        CASE("setmask_persists");
        Ctx c;
        auto a = c.Alloc<half>(256), b = c.Alloc<half>(256), d = c.Alloc<half>(256);
        Fill(a, 256, -3, 3);
        Fill(b, 256, -3, 3);
        FillConst(d, 256, half(9.0f));
        Max(d, a, b, 70, 1, BinaryRepeatParams());
        Min<half, false>(d[128], a[128], b[128], MASK_PLACEHOLDER, 1, BinaryRepeatParams());
        ResetMask();
        Dump("a", a, 256);
        Dump("b", b, 256);
        Dump("d", d, 256);
    }
}

// ---------------------------------------------------------------------------------- unary
template <typename T>
void UnaryCount(const char* op, float lo, float hi, uint32_t n) {
    Ctx c;
    auto a = c.Alloc<T>(n), d = c.Alloc<T>(n + 32);
    Fill(a, n, lo, hi);
    FillConst(d, n + 32, T(3));
    std::string s = op;
    if (s == "Abs") Abs(d, a, n);
    else if (s == "Exp") Exp(d, a, n);
    else if (s == "Ln") Ln(d, a, n);
    else if (s == "Sqrt") Sqrt(d, a, n);
    else if (s == "Rsqrt") Rsqrt(d, a, n);
    else if (s == "Reciprocal") Reciprocal(d, a, n);
    else if (s == "Relu") Relu(d, a, n);
    else if (s == "Not") Not(d, a, n);
    else if (s == "Tanh") Tanh(d, a, n);
    else if (s == "Sigmoid") Sigmoid(d, a, n);
    else if (s == "Sin") Sin(d, a, n);
    else if (s == "Cos") Cos(d, a, n);
    else if (s == "Floor") Floor(d, a, n);
    else if (s == "Ceil") Ceil(d, a, n);
    else if (s == "Round") Round(d, a, n);
    else if (s == "Trunc") Trunc(d, a, n);
    else if (s == "Erf") Erf(d, a, n);
    else if (s == "TanhTmp") {
        auto tmp = c.Alloc<uint8_t>(1024);
        Tanh(d, a, tmp, n);
    } else if (s == "ExpTaylor") {
        auto tmp = c.Alloc<uint8_t>(1024);
        Exp<T, 15, false>(d, a, tmp, n);
    }
    Dump("a", a, n);
    Dump("d", d, n + 32);
}

template <typename T>
void UnaryMask() {
    Ctx c;
    const uint32_t N = 4096 / sizeof(T);
    auto a = c.Alloc<T>(N), d = c.Alloc<T>(N);
    Fill(a, N, -2, 2);
    FillConst(d, N, T(0.5f));
    Exp(d, a, 30, 2, UnaryRepeatParams(1, 2, 8, 16));
    uint64_t m[2] = {0x8000000000000001ull, 0x3ull};
    Abs(d[1024 / sizeof(T)], a, m, 2, UnaryRepeatParams(2, 1, 16, 8));
    Dump("a", a, N);
    Dump("d", d, N);
}

// ---------------------------------------------------------------------------------- scalar
template <typename T>
void ScalarCount(const char* op, float lo, float hi, float sc, uint32_t n) {
    Ctx c;
    auto a = c.Alloc<T>(n), d = c.Alloc<T>(n + 32);
    Fill(a, n, lo, hi);
    FillConst(d, n + 32, T(3));
    std::string s = op;
    if (s == "Adds") Adds(d, a, sc, n);
    else if (s == "Muls") Muls(d, a, T(sc), n);
    else if (s == "Maxs") Maxs(d, a, sc, n);
    else if (s == "Mins") Mins<T, T>(d, a, sc, n);
    else if (s == "LeakyRelu") LeakyRelu(d, a, sc, n);
    else if (s == "ShiftLeft") ShiftLeft(d, a, T(sc), n);
    else if (s == "ShiftRight") ShiftRight(d, a, T(sc), n);
    Dump("a", a, n);
    Dump("d", d, n + 32);
}

void ScalarMaskCases() {
    {
        CASE("adds_mask_f32");
        Ctx c;
        auto a = c.Alloc<float>(512), d = c.Alloc<float>(512);
        Fill(a, 512, -5, 5);
        FillConst(d, 512, -7.0f);
        Adds(d, a, 2.5f, 48, 3, UnaryRepeatParams(1, 1, 8, 8));
        uint64_t m[1] = {0xAAAAAAAAAAAAAAAAull};
        Muls(d[256], a[256], -2.0f, m, 2, UnaryRepeatParams(1, 2, 8, 8));
        Dump("a", a, 512);
        Dump("d", d, 512);
    }
    {
        CASE("shiftright_round_i32");
        Ctx c;
        auto a = c.Alloc<int32_t>(128), d = c.Alloc<int32_t>(128);
        Fill(a, 128, -100000, 100000);
        FillConst(d, 128, int32_t(0));
        ShiftRight(d, a, int32_t(3), 64, 2, UnaryRepeatParams(), true);
        Dump("a", a, 128);
        Dump("d", d, 128);
    }
}

// ---------------------------------------------------------------------------------- duplicate / axpy
void DupAxpyCases() {
    {
        CASE("duplicate");
        Ctx c;
        auto d = c.Alloc<half>(1024);
        auto e = c.Alloc<float>(512);
        FillConst(d, 1024, half(1.0f));
        FillConst(e, 512, 1.0f);
        Duplicate(d, 2.5f, 333);
        Duplicate<half>(d[512], half(-3.0f), 20, 2, 2, 16);
        uint64_t m[1] = {0xF0F0ull};
        Duplicate(e, 4, m, 3, 1, 8);
        Dump("d", d, 1024);
        Dump("e", e, 512);
    }
    {
        CASE("axpy");
        Ctx c;
        auto a = c.Alloc<float>(300), d = c.Alloc<float>(300);
        auto ah = c.Alloc<half>(300), dh = c.Alloc<half>(300);
        auto dm = c.Alloc<float>(300), d0 = c.Alloc<float>(300);
        auto dh0 = c.Alloc<half>(300);
        Fill(a, 300, -2, 2);
        Fill(d, 300, -2, 2);
        Fill(ah, 300, -2, 2);
        Fill(dh, 300, -2, 2);
        Fill(dm, 300, -2, 2);
        for (int i = 0; i < 300; ++i) { d0.Data()[i] = d.Data()[i]; dh0.Data()[i] = dh.Data()[i]; }
        Dump("d0", d0, 300);
        Dump("dh0", dh0, 300);
        Dump("dm0", dm, 300);
        Axpy(d, a, 1.5f, 300);
        Axpy(dh, ah, half(-0.75f), 300);
        Axpy(dm, ah, half(0.5f), 200);  // float dst, half src
        Dump("a", a, 300);
        Dump("ah", ah, 300);
        Dump("d", d, 300);
        Dump("dh", dh, 300);
        Dump("dm", dm, 300);
    }
}

// ---------------------------------------------------------------------------------- fused multiply-add
void FusedMulAddCases() {
    CASE("fma");
    Ctx c;
    const uint32_t n = 300;
    auto a = c.Alloc<float>(n), b = c.Alloc<float>(n), d = c.Alloc<float>(n), e = c.Alloc<float>(n);
    auto ah = c.Alloc<half>(n), bh = c.Alloc<half>(n), dh = c.Alloc<half>(n), eh = c.Alloc<half>(n);
    auto dm = c.Alloc<float>(n), dk = c.Alloc<float>(n);
    Fill(a, n, -2, 2);
    Fill(b, n, -2, 2);
    Fill(d, n, -2, 2);
    Fill(ah, n, -2, 2);
    Fill(bh, n, -2, 2);
    Fill(dh, n, -2, 2);
    Fill(dm, n, -2, 2);
    Fill(dk, n, -2, 2);
    for (uint32_t i = 0; i < n; ++i) {
        e.Data()[i] = d.Data()[i];
        eh.Data()[i] = dh.Data()[i];
    }
    Dump("a", a, n); Dump("b", b, n); Dump("ah", ah, n); Dump("bh", bh, n);
    Dump("d0", d, n); Dump("dh0", dh, n); Dump("dm0", dm, n); Dump("dk0", dk, n);
    FusedMulAdd(d, a, b, n);                     // d = a * d + b
    FusedMulAdd(dh, ah, bh, 250);                // first 250 only
    MulAddDst(e, a, b, n);                       // e = a * b + e
    MulAddDst(eh, ah, bh, n);
    MulAddDst(dm, ah, bh, 200);                  // float dst, half sources
    MulAddDst(dk, a, b, uint64_t(40), 2, BinaryRepeatParams());  // continuous mask: 40 of 64 per repeat, 2 repeats
    Dump("d", d, n); Dump("dh", dh, n); Dump("e", e, n); Dump("eh", eh, n); Dump("dm", dm, n); Dump("dk", dk, n);
}

// ---------------------------------------------------------------------------------- cast
const float kSpecialF32[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 3.49999f, 65504.0f,
                             65519.0f, 65520.0f, 70000.0f, -70000.0f, 1e-8f, -1e-8f, 5.96e-8f, 2.98e-8f, 6.1e-5f,
                             1e30f, -1e30f, 3e9f, -3e9f, 2147483520.0f, 40000.0f, -40000.0f, 255.5f, 256.0f,
                             -129.0f, 127.5f, 1.00048828125f, 1.0009765625f, 1.00146484375f, 3.4e38f, 1e-40f,
                             -1e-40f, 1.17549435e-38f};

template <typename D, typename S>
void CastCase(const char* name, RoundMode m, float lo, float hi, bool specials) {
    CASE(name);
    Ctx c;
    const uint32_t n = 200;
    auto a = c.Alloc<S>(n);
    auto d = c.Alloc<D>(n + 32);
    Fill(a, n, lo, hi);
    if (specials) {
        uint32_t k = 0;
        for (float v : kSpecialF32) a.Data()[k++] = S(v);
        if constexpr (!std::is_integral_v<S>) {
            a.Data()[k++] = S(__builtin_nanf(""));
            a.Data()[k++] = S(__builtin_inff());
            a.Data()[k++] = S(-__builtin_inff());
        }
    }
    FillConst(d, n + 32, D(0));
    Cast(d, a, m, n);
    Dump("a", a, n);
    Dump("d", d, n + 32);
}

void CastCases() {
    const RoundMode modes[] = {RoundMode::CAST_NONE, RoundMode::CAST_RINT, RoundMode::CAST_FLOOR,
                               RoundMode::CAST_CEIL, RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC};
    const char* mn[] = {"none", "rint", "floor", "ceil", "round", "trunc"};
    for (int k = 0; k < 6; ++k) {
        std::string s;
        s = std::string("cast_f32_f16_") + mn[k]; CastCase<half, float>(s.c_str(), modes[k], -70000, 70000, true);
        s = std::string("cast_f32_i32_") + mn[k]; CastCase<int32_t, float>(s.c_str(), modes[k], -1000, 1000, true);
        s = std::string("cast_f32_i16_") + mn[k]; CastCase<int16_t, float>(s.c_str(), modes[k], -40000, 40000, true);
        s = std::string("cast_f32_bf16_") + mn[k]; CastCase<bfloat16_t, float>(s.c_str(), modes[k], -1000, 1000, true);
        s = std::string("cast_f32_f32_") + mn[k]; CastCase<float, float>(s.c_str(), modes[k], -100, 100, true);
        s = std::string("cast_f16_i32_") + mn[k]; CastCase<int32_t, half>(s.c_str(), modes[k], -1000, 1000, true);
        s = std::string("cast_f16_i8_") + mn[k]; CastCase<int8_t, half>(s.c_str(), modes[k], -300, 300, true);
        s = std::string("cast_f16_u8_") + mn[k]; CastCase<uint8_t, half>(s.c_str(), modes[k], -10, 300, true);
        s = std::string("cast_i32_f32_") + mn[k]; CastCase<float, int32_t>(s.c_str(), modes[k], -3e9f, 3e9f, false);
        s = std::string("cast_i32_f16_") + mn[k]; CastCase<half, int32_t>(s.c_str(), modes[k], -70000, 70000, false);
        s = std::string("cast_f32_i64_") + mn[k]; CastCase<int64_t, float>(s.c_str(), modes[k], -1e12f, 1e12f, true);
    }
    CastCase<half, float>("cast_f32_f16_odd", RoundMode::CAST_ODD, -70000, 70000, true);
    CastCase<float, half>("cast_f16_f32_none", RoundMode::CAST_NONE, -1000, 1000, true);
    CastCase<float, bfloat16_t>("cast_bf16_f32_none", RoundMode::CAST_NONE, -1000, 1000, true);
    CastCase<int16_t, int32_t>("cast_i32_i16_none", RoundMode::CAST_NONE, -70000, 70000, false);
    CastCase<int64_t, int32_t>("cast_i32_i64_none", RoundMode::CAST_NONE, -3e9f, 3e9f, false);
    CastCase<int32_t, int64_t>("cast_i64_i32_none", RoundMode::CAST_NONE, -3e9f, 3e9f, false);
    CastCase<half, int16_t>("cast_i16_f16_none", RoundMode::CAST_NONE, -30000, 30000, false);
    CastCase<float, int16_t>("cast_i16_f32_none", RoundMode::CAST_NONE, -30000, 30000, false);
    CastCase<half, int8_t>("cast_i8_f16_none", RoundMode::CAST_NONE, -128, 127, false);
    CastCase<half, uint8_t>("cast_u8_f16_none", RoundMode::CAST_NONE, 0, 255, false);
    {
        CASE("cast_mask_f32_f16");
        Ctx c;
        auto a = c.Alloc<float>(256);
        auto d = c.Alloc<half>(256);
        auto b = c.Alloc<half>(256);
        auto e = c.Alloc<float>(256);
        Fill(a, 256, -100, 100);
        Fill(b, 256, -100, 100);
        FillConst(d, 256, half(0));
        FillConst(e, 256, 0.0f);
        Cast(d, a, RoundMode::CAST_TRUNC, 50, 2, UnaryRepeatParams(1, 1, 4, 8));  // dense dst
        Cast(e, b, RoundMode::CAST_NONE, 64, 2, UnaryRepeatParams(1, 1, 8, 4));   // dense src
        Dump("a", a, 256);
        Dump("b", b, 256);
        Dump("d", d, 256);
        Dump("e", e, 256);
    }
}

// ---------------------------------------------------------------------------------- compare / select
template <typename T>
void CompareCase(const char* name, CMPMODE m) {
    CASE(name);
    Ctx c;
    const uint32_t n = 512;
    auto a = c.Alloc<T>(n), b = c.Alloc<T>(n);
    auto d = c.Alloc<uint8_t>(n / 8 + 32);
    auto e = c.Alloc<uint8_t>(n / 8 + 32);
    Fill(a, n, -3, 3);
    Fill(b, n, -3, 3);
    for (uint32_t i = 0; i < n; i += 7) b.Data()[i] = a.Data()[i];  // equal pairs
    a.Data()[3] = T(__builtin_nanf(""));
    FillConst(d, n / 8 + 32, uint8_t(0xAA));
    FillConst(e, n / 8 + 32, uint8_t(0xAA));
    Compare(d, a, b, m, n);
    CompareScalar(e, a, T(0.5f), m, n);
    Dump("a", a, n);
    Dump("b", b, n);
    Dump("d", d, n / 8 + 32);
    Dump("e", e, n / 8 + 32);
}

void SelectCases() {
    {
        CASE("select_count");
        Ctx c;
        const uint32_t n = 384;
        auto a = c.Alloc<float>(n), b = c.Alloc<float>(n);
        auto sel = c.Alloc<uint8_t>(64);
        auto d0 = c.Alloc<float>(n), d1 = c.Alloc<float>(n), d2 = c.Alloc<float>(n);
        Fill(a, n, -3, 3);
        Fill(b, n, -3, 3);
        for (int i = 0; i < 64; ++i) sel.Data()[i] = uint8_t(Rnd());
        Select(d0, sel, a, b, SELMODE::VSEL_CMPMASK_SPR, n);
        Select(d1, sel, a, 42.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, n);
        Select(d2, sel, a, b, SELMODE::VSEL_TENSOR_TENSOR_MODE, n);
        Dump("a", a, n);
        Dump("b", b, n);
        Dump("sel", sel, 64);
        Dump("d0", d0, n);
        Dump("d1", d1, n);
        Dump("d2", d2, n);
    }
    {
        CASE("select_mask_f16");
        Ctx c;
        auto a = c.Alloc<half>(512), b = c.Alloc<half>(512);
        auto sel = c.Alloc<uint8_t>(64);
        auto d = c.Alloc<half>(512);
        Fill(a, 512, -3, 3);
        Fill(b, 512, -3, 3);
        for (int i = 0; i < 64; ++i) sel.Data()[i] = uint8_t(Rnd());
        FillConst(d, 512, half(100.0f));
        Select(d, sel, a, b, SELMODE::VSEL_TENSOR_TENSOR_MODE, 100, 2, BinaryRepeatParams(1, 1, 1, 8, 8, 8));
        uint64_t m[2] = {0xFFFF0000FFFF0000ull, 0x1ull};
        Select(d[256], sel, a[256], half(-1.0f), SELMODE::VSEL_TENSOR_SCALAR_MODE, m, 2,
               BinaryRepeatParams(1, 1, 1, 8, 8, 8));
        Dump("a", a, 512);
        Dump("b", b, 512);
        Dump("sel", sel, 64);
        Dump("d", d, 512);
    }
    {
        // Compare into CMPMASK, read it back, Select with it (mode 0, register form).
        CASE("cmpmask_reg");
        Ctx c;
        auto a = c.Alloc<float>(128), b = c.Alloc<float>(128), d = c.Alloc<float>(128);
        auto r = c.Alloc<uint8_t>(32);
        Fill(a, 128, -3, 3);
        Fill(b, 128, -3, 3);
        FillConst(d, 128, 0.0f);
        FillConst(r, 32, uint8_t(0));
        Compare(a, b, CMPMODE::GT, 64, BinaryRepeatParams());
        GetCmpMask(r);
        SetVectorMask<float>(0, ~0ull);
        Select<float, SELMODE::VSEL_CMPMASK_SPR>(d, a, b, 2, BinaryRepeatParams());
        ResetMask();
        Dump("a", a, 128);
        Dump("b", b, 128);
        Dump("r", r, 32);
        Dump("d", d, 128);
    }
    {
        CASE("compare_mask");
        Ctx c;
        auto a = c.Alloc<half>(512), b = c.Alloc<half>(512);
        auto d = c.Alloc<uint8_t>(64);
        Fill(a, 512, -3, 3);
        Fill(b, 512, -3, 3);
        FillConst(d, 64, uint8_t(0xAA));
        Compare(d, a, b, CMPMODE::LE, 100, 2, BinaryRepeatParams(1, 1, 1, 8, 8, 16));
        Dump("a", a, 512);
        Dump("b", b, 512);
        Dump("d", d, 64);
    }
    {
        // Count forms: whole 256-byte repeats only (100 floats: the first 64; 200 halves: 128).
        CASE("compare_count_repeats");
        Ctx c;
        auto a = c.Alloc<float>(256), b = c.Alloc<float>(256);
        auto h = c.Alloc<half>(256);
        auto d = c.Alloc<uint8_t>(32), e = c.Alloc<uint8_t>(32);
        Fill(a, 256, -3, 3);
        Fill(b, 256, -3, 3);
        Fill(h, 256, -3, 3);
        FillConst(d, 32, uint8_t(0xAA));
        FillConst(e, 32, uint8_t(0xAA));
        Compare(d, a, b, CMPMODE::LT, 100);
        CompareScalar(e, h, half(0.5f), CMPMODE::LT, 200);
        Dump("a", a, 256);
        Dump("b", b, 256);
        Dump("h", h, 256);
        Dump("d", d, 32);
        Dump("e", e, 32);
    }
}

// ---------------------------------------------------------------------------------- reductions
template <typename T>
void ReduceCase(const char* name, uint32_t n, float lo, float hi) {
    CASE(name);
    Ctx c;
    auto a = c.Alloc<T>(n), w = c.Alloc<T>(n), ds = c.Alloc<T>(16), dmax = c.Alloc<T>(16), dmin = c.Alloc<T>(16),
         dmx0 = c.Alloc<T>(16);
    Fill(a, n, lo, hi);
    FillConst(ds, 16, T(0));
    FillConst(dmax, 16, T(0));
    FillConst(dmin, 16, T(0));
    FillConst(dmx0, 16, T(0));
    ReduceSum(ds, a, w, n);
    ReduceMax(dmax, a, w, n, true);
    ReduceMin(dmin, a, w, n, true);
    ReduceMax(dmx0, a, w, n);
    Dump("a", a, n);
    Dump("sum", ds, 16);
    Dump("max", dmax, 16);
    Dump("min", dmin, 16);
    Dump("max0", dmx0, 16);
}

void ReduceL0Case() {
    CASE("reduce_l0");
    Ctx c;
    auto a = c.Alloc<float>(1024), w = c.Alloc<float>(256), ds = c.Alloc<float>(8), dm = c.Alloc<float>(8);
    Fill(a, 1024, -5, 5);
    FillConst(ds, 8, 0.0f);
    FillConst(dm, 8, 0.0f);
    ReduceSum(ds, a, w, 48, 4, 16);
    uint64_t m[1] = {0xFFFF0000FFFF0000ull};
    ReduceMax(dm, a, w, m, 3, 8, true);
    Dump("a", a, 1024);
    Dump("sum", ds, 8);
    Dump("max", dm, 8);
}

template <typename T>
void WholeReduceCase(const char* name) {
    CASE(name);
    Ctx c;
    const uint32_t N = 4096 / sizeof(T);
    auto a = c.Alloc<T>(N), s = c.Alloc<T>(64), mx = c.Alloc<T>(64), mn = c.Alloc<T>(64), mi = c.Alloc<T>(64),
         mo = c.Alloc<T>(64), mk = c.Alloc<T>(64);
    Fill(a, N, -5, 5);
    for (auto* t : {&s, &mx, &mn, &mi, &mo, &mk}) FillConst(*t, 64, T(0));
    uint64_t mask = sizeof(T) == 4 ? 50 : 120;
    WholeReduceSum(s, a, mask, 4, 2, 1, 8);
    WholeReduceMax(mx, a, mask, 4, 1, 2, 16);
    WholeReduceMin(mn, a, mask, 4, 1, 1, 8, ReduceOrder::ORDER_INDEX_VALUE);
    WholeReduceMax(mo, a, mask, 4, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
    WholeReduceMin(mi, a, mask, 4, 1, 1, 8, ReduceOrder::ORDER_ONLY_INDEX);
    uint64_t bits[2] = {0x00000000FFFFFFF0ull, 0x00000000000000FFull};
    WholeReduceSum(mk, a, bits, 3, 1, 1, 8);
    Dump("a", a, N);
    Dump("sum", s, 64);
    Dump("max", mx, 64);
    Dump("min", mn, 64);
    Dump("maxv", mo, 64);
    Dump("mini", mi, 64);
    Dump("sumbits", mk, 64);
}

template <typename T>
void BlockReduceCase(const char* name) {
    CASE(name);
    Ctx c;
    const uint32_t N = 4096 / sizeof(T);
    auto a = c.Alloc<T>(N), s = c.Alloc<T>(256), mx = c.Alloc<T>(256), mn = c.Alloc<T>(256), pr = c.Alloc<T>(512);
    Fill(a, N, -5, 5);
    for (auto* t : {&s, &mx, &mn}) FillConst(*t, 256, T(0));
    FillConst(pr, 512, T(0));
    uint64_t mask = sizeof(T) == 4 ? 60 : 110;
    BlockReduceSum(s, a, 3, mask, 1, 1, 8);
    BlockReduceMax(mx, a, 3, mask, 2, 1, 8);
    BlockReduceMin(mn, a, 2, mask, 1, 2, 16);
    PairReduceSum(pr, a, 3, mask, 1, 1, 8);
    Dump("a", a, N);
    Dump("sum", s, 256);
    Dump("max", mx, 256);
    Dump("min", mn, 256);
    Dump("pair", pr, 512);
}

void BrcbGatherCases() {
    {
        CASE("brcb");
        Ctx c;
        auto a = c.Alloc<float>(64), d = c.Alloc<float>(1024);
        auto ah = c.Alloc<half>(64), dh = c.Alloc<half>(1024);
        Fill(a, 64, -5, 5);
        Fill(ah, 64, -5, 5);
        FillConst(d, 1024, 0.0f);
        FillConst(dh, 1024, half(0));
        Brcb(d, a, 2, BrcbRepeatParams(1, 8));
        Brcb(dh, ah, 2, BrcbRepeatParams(2, 16));
        Dump("a", a, 64);
        Dump("ah", ah, 64);
        Dump("d", d, 1024);
        Dump("dh", dh, 1024);
    }
    {
        CASE("gather");
        Ctx c;
        auto a = c.Alloc<float>(256), d = c.Alloc<float>(256), e = c.Alloc<float>(256);
        auto off = c.Alloc<uint32_t>(256);
        Fill(a, 256, -5, 5);
        for (int i = 0; i < 256; ++i) off.Data()[i] = (Rnd() % 200) * 4;
        FillConst(d, 256, 0.0f);
        FillConst(e, 256, 0.0f);
        Gather(d, a, off, 32, 150);
        Gather(e, a, off, 0, 20, 2, 16);
        Dump("a", a, 256);
        Dump("off", off, 256);
        Dump("d", d, 256);
        Dump("e", e, 256);
    }
}

void PowerCases() {
    CASE("power");
    Ctx c;
    auto a = c.Alloc<float>(128), b = c.Alloc<float>(128), d0 = c.Alloc<float>(128), d1 = c.Alloc<float>(128),
         d2 = c.Alloc<float>(128);
    auto ia = c.Alloc<int32_t>(64), ib = c.Alloc<int32_t>(64), id = c.Alloc<int32_t>(64);
    auto tmp = c.Alloc<uint8_t>(256);
    Fill(a, 128, 0.1f, 4);
    Fill(b, 128, -3, 3);
    Fill(ia, 64, -5, 5);
    Fill(ib, 64, 0, 6);
    Power(d0, a, b, tmp, 128);
    Power(d1, a, 1.7f, 128);
    Power(d2, 2.0f, b);
    Power(id, ia, ib, 64);
    Dump("a", a, 128);
    Dump("b", b, 128);
    Dump("d0", d0, 128);
    Dump("d1", d1, 128);
    Dump("d2", d2, 128);
    Dump("ia", ia, 64);
    Dump("ib", ib, 64);
    Dump("id", id, 64);
}

// ---------------------------------------------------------------------------------- all
void RunAll(void*) {
    const char* fops[] = {"Add", "Sub", "Mul", "Div", "Max", "Min"};
    for (const char* op : fops) {
        CASE(std::string("bin_") + op + "_f32"); BinaryCount<float>(op, -100, 100, 1000);
        CASE(std::string("bin_") + op + "_f16"); BinaryCount<half>(op, -100, 100, 1000);
    }
    const char* iops[] = {"Add", "Sub", "Mul", "Max", "Min"};
    for (const char* op : iops) {
        CASE(std::string("bin_") + op + "_i16"); BinaryCount<int16_t>(op, -30000, 30000, 300);
        CASE(std::string("bin_") + op + "_i32"); BinaryCount<int32_t>(op, -2e9f, 2e9f, 300);
    }
    CASE("bin_And_i16"); BinaryCount<int16_t>("And", -30000, 30000, 300);
    CASE("bin_Or_u16"); BinaryCount<uint16_t>("Or", 0, 65535, 300);
    CASE("binmask_cont_f32"); BinaryMaskCont<float>();
    CASE("binmask_cont_f16"); BinaryMaskCont<half>();
    CASE("binmask_bits_f32"); BinaryMaskBits<float>();
    CASE("binmask_bits_f16"); BinaryMaskBits<half>();
    MaskStateCases();

    struct U { const char* op; float lo, hi; };
    const U uops[] = {{"Abs", -10, 10}, {"Exp", -10, 10}, {"Ln", 0.001f, 100}, {"Sqrt", 0, 100},
                      {"Rsqrt", 0.01f, 100}, {"Reciprocal", -10, 10}, {"Relu", -10, 10}, {"Tanh", -5, 5},
                      {"Sigmoid", -8, 8}, {"Sin", -7, 7}, {"Cos", -7, 7}, {"Floor", -10, 10}, {"Ceil", -10, 10},
                      {"Round", -10, 10}, {"Trunc", -10, 10}, {"Erf", -3, 3}, {"TanhTmp", -5, 5},
                      {"ExpTaylor", -5, 5}};
    for (const U& u : uops) {
        CASE(std::string("un_") + u.op + "_f32"); UnaryCount<float>(u.op, u.lo, u.hi, 777);
        CASE(std::string("un_") + u.op + "_f16"); UnaryCount<half>(u.op, u.lo, u.hi, 777);
    }
    CASE("un_Not_i16"); UnaryCount<int16_t>("Not", -30000, 30000, 300);
    CASE("un_Abs_i32"); UnaryCount<int32_t>("Abs", -1e9f, 1e9f, 300);
    CASE("unmask_f32"); UnaryMask<float>();
    CASE("unmask_f16"); UnaryMask<half>();

    struct S { const char* op; float lo, hi, sc; };
    const S sops[] = {{"Adds", -10, 10, 2.5f}, {"Muls", -10, 10, -1.25f}, {"Maxs", -10, 10, 0.5f},
                      {"Mins", -10, 10, 0.5f}, {"LeakyRelu", -10, 10, 0.1f}};
    for (const S& s : sops) {
        CASE(std::string("sc_") + s.op + "_f32"); ScalarCount<float>(s.op, s.lo, s.hi, s.sc, 500);
        CASE(std::string("sc_") + s.op + "_f16"); ScalarCount<half>(s.op, s.lo, s.hi, s.sc, 500);
    }
    CASE("sc_Adds_i32"); ScalarCount<int32_t>("Adds", -2e9f, 2e9f, 1e9f, 300);
    CASE("sc_ShiftLeft_i32"); ScalarCount<int32_t>("ShiftLeft", -1e9f, 1e9f, 3, 300);
    CASE("sc_ShiftRight_i32"); ScalarCount<int32_t>("ShiftRight", -1e9f, 1e9f, 5, 300);
    CASE("sc_ShiftLeft_u16"); ScalarCount<uint16_t>("ShiftLeft", 0, 65535, 4, 300);
    CASE("sc_ShiftRight_i16"); ScalarCount<int16_t>("ShiftRight", -30000, 30000, 2, 300);
    CASE("sc_ShiftRight_u16"); ScalarCount<uint16_t>("ShiftRight", 0, 65535, 2, 300);
    ScalarMaskCases();
    DupAxpyCases();
    FusedMulAddCases();
    CastCases();
    const CMPMODE cm[] = {CMPMODE::LT, CMPMODE::GT, CMPMODE::EQ, CMPMODE::LE, CMPMODE::GE, CMPMODE::NE};
    const char* cn[] = {"lt", "gt", "eq", "le", "ge", "ne"};
    for (int k = 0; k < 6; ++k) {
        CompareCase<float>((std::string("cmp_f32_") + cn[k]).c_str(), cm[k]);
        CompareCase<half>((std::string("cmp_f16_") + cn[k]).c_str(), cm[k]);
    }
    SelectCases();
    ReduceCase<float>("reduce_f32_1000", 1000, -10, 10);
    ReduceCase<float>("reduce_f32_20000", 20000, -10, 10);
    ReduceCase<half>("reduce_f16_3000", 3000, -2, 2);
    ReduceCase<half>("reduce_f16_100", 100, -2, 2);
    ReduceL0Case();
    WholeReduceCase<float>("whole_f32");
    WholeReduceCase<half>("whole_f16");
    BlockReduceCase<float>("block_f32");
    BlockReduceCase<half>("block_f16");
    BrcbGatherCases();
    PowerCases();
}

// ---------------------------------------------------------------------------------- failures
void RunFail(void* arg) {
    std::string name = static_cast<const char*>(arg);
    Ctx c;
    auto a = c.Alloc<float>(256), b = c.Alloc<float>(256), d = c.Alloc<float>(256);
    if (name == "repeat_too_large") {
        Add(d, a, b, 64, 300, BinaryRepeatParams());
    } else if (name == "out_of_bounds") {
        Add(d, a, b, 300);
    } else if (name == "stride_out_of_bounds") {  // the second repeat writes past d
        Add(d, a, b, 64, 2, BinaryRepeatParams(1, 1, 1, 32, 8, 8));
    } else if (name == "stride_read_outside") {  // the second repeat reads past b: a warning
        Add(d, a, b, 64, 2, BinaryRepeatParams(1, 1, 1, 8, 8, 32));
    } else if (name == "mask_too_large") {
        Add(d, a, b, 65, 1, BinaryRepeatParams());
    } else if (name == "bf16_add") {
        auto x = c.Alloc<bfloat16_t>(256);
        Add(x, x, x, 16);
    } else if (name == "cast_odd_bad_pair") {
        auto x = c.Alloc<int32_t>(256);
        Cast(x, a, RoundMode::CAST_ODD, 16);
    } else if (name == "gather_oob") {
        auto off = c.Alloc<uint32_t>(64);
        for (int i = 0; i < 64; ++i) off.Data()[i] = 4096;
        Gather(d, a, off, 0, 64);
    } else if (name == "negative_count") {
        Add(d, a, b, -5);
    }
    std::fprintf(stderr, "case %s did not fail\n", name.c_str());
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s all OUTDIR | fail NAME\n", argv[0]);
        return 2;
    }
    std::string mode = argv[1];
    if (mode == "all") {
        g_dir = argv[2];
        g_manifest = std::fopen((g_dir + "/manifest.txt").c_str(), "w");
        ao::rt::RunOnOneCore(RunAll, nullptr);
        std::fclose(g_manifest);
        return 0;
    }
    if (mode == "fail") {
        ao::rt::RunOnOneCore(RunFail, argv[2]);
        return 0;
    }
    return 2;
}
