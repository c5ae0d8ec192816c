// Unit-test driver for the emulated cube path (ascendopt_kernel/cube.h).
// Usage: cube_unit COMMAND DIR key=value...   reads DIR/in*.bin, writes DIR/out.bin.
// Every command runs on one emulated core (ao::rt::RunOnOneCore); Python compares with numpy.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "ascendopt_kernel/testing.h"

using namespace AscendC;

namespace {

std::map<std::string, std::string> g_args;
std::string g_dir;

long Arg(const char* key, long fallback) {
    auto it = g_args.find(key);
    return it == g_args.end() ? fallback : std::strtol(it->second.c_str(), nullptr, 0);
}
double ArgF(const char* key, double fallback) {
    auto it = g_args.find(key);
    return it == g_args.end() ? fallback : std::strtod(it->second.c_str(), nullptr);
}
std::string ArgS(const char* key, const char* fallback) {
    auto it = g_args.find(key);
    return it == g_args.end() ? fallback : it->second;
}
std::vector<uint8_t> ReadIn(int i) {
    std::ifstream f(g_dir + "/in" + std::to_string(i) + ".bin", std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}
void WriteOut(const void* p, uint64_t n) {
    std::ofstream f(g_dir + "/out.bin", std::ios::binary);
    f.write(static_cast<const char*>(p), std::streamsize(n));
}
// GM buffer registered with the runtime.
uint8_t* Gm(uint64_t bytes, const char* name, const std::vector<uint8_t>* init = nullptr, uint8_t fill = 0) {
    uint8_t* p = static_cast<uint8_t*>(aligned_alloc(64, (bytes + 63) / 64 * 64 + 64));
    std::memset(p, fill, bytes);
    if (init != nullptr) std::memcpy(p, init->data(), init->size() < bytes ? init->size() : bytes);
    ao::rt::RegisterGm(p, bytes, name);
    return p;
}

template <TPosition P, typename T>
LocalTensor<T> Buf(TPipe& pipe, TBuf<P>& b, uint64_t bytes, const std::vector<uint8_t>* init, uint8_t fill) {
    pipe.InitBuffer(b, uint32_t(bytes));
    LocalTensor<T> t = b.template Get<T>();
    std::memset(t.Data(), fill, bytes);
    if (init != nullptr) std::memcpy(t.Data(), init->data(), init->size() < bytes ? init->size() : bytes);
    return t;
}

// ------------------------------------------------------------------------------ nd2nz
template <typename T>
void Nd2Nz(void*) {
    TPipe pipe;
    Nd2NzParams p(uint16_t(Arg("ndNum", 1)), uint16_t(Arg("nValue", 0)), uint16_t(Arg("dValue", 0)),
                  uint16_t(Arg("srcNdMatrixStride", 0)), uint16_t(Arg("srcDValue", 0)),
                  uint16_t(Arg("dstNzC0Stride", 0)), uint16_t(Arg("dstNzNStride", 1)),
                  uint16_t(Arg("dstNzMatrixStride", 0)));
    uint64_t dstBytes = uint64_t(Arg("dst_bytes", 0));
    uint64_t dstOff = uint64_t(Arg("dst_off", 0));
    auto in = ReadIn(0);
    TBuf<TPosition::A1> l1;
    LocalTensor<T> dst = Buf<TPosition::A1, T>(pipe, l1, dstBytes, nullptr, 0xAB);
    if (Arg("from_ub", 0)) {
        TBuf<TPosition::VECCALC> ub;
        LocalTensor<T> src = Buf<TPosition::VECCALC, T>(pipe, ub, (in.size() + 31) / 32 * 32, &in, 0);
        DataCopy(dst[uint32_t(dstOff)], src, p);
    } else {
        GlobalTensor<T> g;
        g.SetGlobalBuffer(reinterpret_cast<T*>(Gm(in.size(), "src", &in)));
        DataCopy(dst[uint32_t(dstOff)], g[uint64_t(Arg("src_off", 0))], p);
    }
    WriteOut(dst.Data(), dstBytes);
}

// ------------------------------------------------------------------------------ load2d / transpose
template <typename T>
void Load2d(void*) {
    TPipe pipe;
    auto in = ReadIn(0);
    uint64_t dstBytes = uint64_t(Arg("dst_bytes", 0));
    TBuf<TPosition::A1> l1;
    LocalTensor<T> src = Buf<TPosition::A1, T>(pipe, l1, (in.size() + 31) / 32 * 32, &in, 0);
    TBuf<TPosition::A2> l0a;
    TBuf<TPosition::B2> l0b;
    LocalTensor<T> dst = ArgS("dst", "a2") == "a2" ? Buf<TPosition::A2, T>(pipe, l0a, dstBytes, nullptr, 0xAB)
                                                    : Buf<TPosition::B2, T>(pipe, l0b, dstBytes, nullptr, 0xAB);
    LocalTensor<T> d = dst[uint32_t(Arg("dst_off", 0))];
    LocalTensor<T> s = src[uint32_t(Arg("src_off", 0))];
    if (Arg("load3d", 0)) {
        LoadData3DParamsV2<T> p;
        p.l1H = uint16_t(Arg("l1H", 0));
        p.l1W = uint16_t(Arg("l1W", 1));
        p.channelSize = uint16_t(Arg("channelSize", 0));
        p.kExtension = uint16_t(Arg("kExtension", 0));
        p.mExtension = uint16_t(Arg("mExtension", 0));
        p.kStartPt = uint16_t(Arg("kStartPt", 0));
        p.mStartPt = uint16_t(Arg("mStartPt", 0));
        p.filterW = uint8_t(Arg("filterW", 1));
        LoadData(d, s, p);
    } else if (Arg("trans2d", 0)) {
        LoadData2dTransposeParams p(uint16_t(Arg("startIndex", 0)), uint8_t(Arg("repeatTimes", 1)),
                                    uint16_t(Arg("srcStride", 0)), uint16_t(Arg("dstGap", 0)),
                                    uint16_t(Arg("dstFracGap", 0)));
        LoadDataWithTranspose(d, s, p);
    } else if (Arg("from_gm", 0)) {
        GlobalTensor<T> g;
        g.SetGlobalBuffer(reinterpret_cast<T*>(Gm(in.size(), "src", &in)));
        LoadData2DParams p(uint16_t(Arg("startIndex", 0)), uint8_t(Arg("repeatTimes", 1)), uint16_t(Arg("srcStride", 0)),
                           0, uint16_t(Arg("dstGap", 0)), Arg("ifTranspose", 0) != 0, 0);
        LoadData(d, g, p);
    } else {
        LoadData2DParams p(uint16_t(Arg("startIndex", 0)), uint8_t(Arg("repeatTimes", 1)), uint16_t(Arg("srcStride", 0)),
                           0, uint16_t(Arg("dstGap", 0)), Arg("ifTranspose", 0) != 0, 0);
        LoadData(d, s, p);
    }
    WriteOut(dst.Data(), dstBytes);
}

// ------------------------------------------------------------------------------ mmad
template <typename U, typename C>
void MmadRun(void*) {
    TPipe pipe;
    auto a = ReadIn(0), b = ReadIn(1), c = ReadIn(2);
    uint64_t cBytes = uint64_t(Arg("c_bytes", 0));
    TBuf<TPosition::A2> l0a;
    TBuf<TPosition::B2> l0b;
    TBuf<TPosition::CO1> l0c;
    LocalTensor<U> ta = Buf<TPosition::A2, U>(pipe, l0a, (a.size() + 511) / 512 * 512, &a, 0);
    LocalTensor<U> tb = Buf<TPosition::B2, U>(pipe, l0b, (b.size() + 511) / 512 * 512, &b, 0);
    LocalTensor<C> tc = Buf<TPosition::CO1, C>(pipe, l0c, cBytes, &c, 0);
    MmadParams p;
    p.m = uint16_t(Arg("m", 0));
    p.n = uint16_t(Arg("n", 0));
    p.k = uint16_t(Arg("k", 0));
    p.cmatrixInitVal = Arg("init", 1) != 0;
    if (Arg("bias", 0)) {
        auto bias = ReadIn(3);
        TBuf<TPosition::C2> bt;
        LocalTensor<C> tbias = Buf<TPosition::C2, C>(pipe, bt, (bias.size() + 63) / 64 * 64, &bias, 0);
        Mmad(tc, ta, tb, tbias, p);
    } else {
        Mmad(tc, ta, tb, p);
    }
    WriteOut(tc.Data(), cBytes);
}

// ------------------------------------------------------------------------------ fixpipe
QuantMode_t Quant(const std::string& q) {
    if (q == "f16") return QuantMode_t::F322F16;
    if (q == "bf16") return QuantMode_t::F322BF16;
    if (q == "deqf16") return QuantMode_t::DEQF16;
    if (q == "req8") return QuantMode_t::REQ8;
    return QuantMode_t::NoQuant;
}

template <typename D, typename S>
void FixRun(void*) {
    TPipe pipe;
    auto c = ReadIn(0);
    TBuf<TPosition::CO1> l0c;
    LocalTensor<S> tc = Buf<TPosition::CO1, S>(pipe, l0c, (c.size() + 1023) / 1024 * 1024, &c, 0);
    FixpipeParamsV220 p(uint16_t(Arg("nSize", 0)), uint16_t(Arg("mSize", 0)), uint16_t(Arg("srcStride", 0)),
                        uint32_t(Arg("dstStride", 0)), Arg("relu", 0) != 0);
    p.quantPre = Quant(ArgS("quant", "none"));
    float scale = float(ArgF("scale", 1.0));
    uint32_t bits;
    std::memcpy(&bits, &scale, 4);
    p.deqScalar = bits;
    p.ndNum = uint16_t(Arg("ndNum", 1));
    p.srcNdStride = uint16_t(Arg("srcNdStride", 0));
    p.dstNdStride = uint16_t(Arg("dstNdStride", 0));
    uint64_t gmBytes = uint64_t(Arg("gm_elems", 0)) * sizeof(D);
    uint8_t* gm = Gm(gmBytes, "dst", nullptr, 0xCD);
    GlobalTensor<D> g;
    g.SetGlobalBuffer(reinterpret_cast<D*>(gm));
    if (Arg("to_l1", 0)) {
        TBuf<TPosition::A1> l1;
        LocalTensor<D> t1 = Buf<TPosition::A1, D>(pipe, l1, (gmBytes + 31) / 32 * 32, nullptr, 0xCD);
        Fixpipe(t1, tc, p);
        WriteOut(t1.Data(), gmBytes);
        return;
    }
    if (Arg("nz", 0)) Fixpipe<D, S, CFG_NZ>(g[uint64_t(Arg("dst_off", 0))], tc, p);
    else Fixpipe(g[uint64_t(Arg("dst_off", 0))], tc, p);
    WriteOut(gm, gmBytes);
}

// ------------------------------------------------------------------------------ whole pipeline
// C[M,N] = A[M,K] x B[K,N] (half inputs, ND in GM) through Nd2Nz -> LoadData -> Mmad (K chunks,
// accumulate) -> Fixpipe (F322F16 or float), with queues ordering the pipes.
template <typename D>
void Pipeline(void*) {
    TPipe pipe;
    const uint32_t M = uint32_t(Arg("M", 0)), N = uint32_t(Arg("N", 0)), K = uint32_t(Arg("K", 0));
    const uint32_t baseK = uint32_t(Arg("baseK", 64));
    const bool trans2 = Arg("trans2d", 0) != 0;
    auto a = ReadIn(0), b = ReadIn(1);
    GlobalTensor<half> ga, gb;
    GlobalTensor<D> gc;
    ga.SetGlobalBuffer(reinterpret_cast<half*>(Gm(a.size(), "a", &a)));
    gb.SetGlobalBuffer(reinterpret_cast<half*>(Gm(b.size(), "b", &b)));
    gc.SetGlobalBuffer(reinterpret_cast<D*>(Gm(uint64_t(M) * N * sizeof(D), "c", nullptr, 0xCD)));
    const uint32_t mA = (M + 15) / 16 * 16, nA = (N + 15) / 16 * 16, kA = (baseK + 15) / 16 * 16;
    TQue<TPosition::A1, 1> qa1;
    TQue<TPosition::B1, 1> qb1;
    TQue<TPosition::A2, 1> qa2;
    TQue<TPosition::B2, 1> qb2;
    TQue<TPosition::CO1, 1> qc;
    pipe.InitBuffer(qa1, 2, mA * kA * 2);
    pipe.InitBuffer(qb1, 2, kA * nA * 2);
    pipe.InitBuffer(qa2, 2, mA * kA * 2);
    pipe.InitBuffer(qb2, 2, kA * nA * 2);
    pipe.InitBuffer(qc, 1, mA * nA * 4);
    LocalTensor<float> c = qc.AllocTensor<float>();
    for (uint32_t k0 = 0; k0 < K; k0 += baseK) {
        uint32_t ck = K - k0 < baseK ? K - k0 : baseK;
        uint32_t kB = (ck + 15) / 16, ckA = kB * 16;
        LocalTensor<half> a1 = qa1.AllocTensor<half>();
        LocalTensor<half> b1 = qb1.AllocTensor<half>();
        DataCopy(a1, ga[k0], Nd2NzParams(1, uint16_t(M), uint16_t(ck), 0, uint16_t(K), uint16_t(mA), 1, 0));
        DataCopy(b1, gb[uint64_t(k0) * N], Nd2NzParams(1, uint16_t(ck), uint16_t(N), 0, uint16_t(N), uint16_t(ckA), 1, 0));
        qa1.EnQue(a1);
        qb1.EnQue(b1);
        a1 = qa1.DeQue<half>();
        b1 = qb1.DeQue<half>();
        LocalTensor<half> a2 = qa2.AllocTensor<half>();
        LocalTensor<half> b2 = qb2.AllocTensor<half>();
        const uint32_t mB = mA / 16, nB = nA / 16;
        for (uint32_t kb = 0; kb < kB; ++kb)  // A: per K block, the M column of fractals
            LoadData(a2[kb * 256], a1[kb * mA * 16], LoadData2DParams(0, uint8_t(mB), 1, 0, uint16_t(kB - 1), false, 0));
        if (trans2) {  // B: per K block, transposed square blocks
            for (uint32_t kb = 0; kb < kB; ++kb)
                LoadDataWithTranspose(b2[kb * nB * 256], b1[kb * 256],
                                      LoadData2dTransposeParams(0, uint8_t(nB), uint16_t(kB), 0, 0));
        } else {
            for (uint32_t kb = 0; kb < kB; ++kb)
                LoadData(b2[kb * nB * 256], b1[kb * 256], LoadData2DParams(0, uint8_t(nB), uint16_t(kB), 0, 0, true, 0));
        }
        qa1.FreeTensor(a1);
        qb1.FreeTensor(b1);
        qa2.EnQue(a2);
        qb2.EnQue(b2);
        a2 = qa2.DeQue<half>();
        b2 = qb2.DeQue<half>();
        Mmad(c, a2, b2, MmadParams(uint16_t(M), uint16_t(N), uint16_t(ck), 0, false, k0 == 0));
        qa2.FreeTensor(a2);
        qb2.FreeTensor(b2);
    }
    qc.EnQue(c);
    c = qc.DeQue<float>();
    FixpipeParamsV220 fp(uint16_t(N), uint16_t(M), uint16_t(mA), N, false);
    fp.quantPre = std::is_same_v<D, half> ? QuantMode_t::F322F16 : QuantMode_t::NoQuant;
    Fixpipe(gc, c, fp);
    qc.FreeTensor(c);
    WriteOut(gc.GetPhyAddr(), uint64_t(M) * N * sizeof(D));
}

template <template <typename> class F>
void (*ByType())(void*) {
    std::string t = ArgS("t", "f16");
    if (t == "f16") return &F<half>::Run;
    if (t == "bf16") return &F<bfloat16_t>::Run;
    if (t == "f32") return &F<float>::Run;
    if (t == "i8") return &F<int8_t>::Run;
    if (t == "i32") return &F<int32_t>::Run;
    std::fprintf(stderr, "unknown type %s\n", t.c_str());
    std::exit(2);
}
template <typename T> struct Nd2NzF { static void Run(void* a) { Nd2Nz<T>(a); } };
template <typename T> struct Load2dF { static void Run(void* a) { Load2d<T>(a); } };

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: cube_unit COMMAND DIR key=value...\n");
        return 2;
    }
    std::string cmd = argv[1];
    g_dir = argv[2];
    for (int i = 3; i < argc; ++i) {
        std::string kv = argv[i];
        auto eq = kv.find('=');
        if (eq != std::string::npos) g_args[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    void (*fn)(void*) = nullptr;
    std::string t = ArgS("t", "f16");
    if (cmd == "nd2nz") fn = ByType<Nd2NzF>();
    else if (cmd == "load2d") fn = ByType<Load2dF>();
    else if (cmd == "mmad") {
        if (t == "f16") fn = &MmadRun<half, float>;
        else if (t == "bf16") fn = &MmadRun<bfloat16_t, float>;
        else if (t == "f32") fn = &MmadRun<float, float>;
        else if (t == "i8") fn = &MmadRun<int8_t, int32_t>;
        else if (t == "u8i32") fn = &MmadRun<uint8_t, int32_t>;  // unsupported combination
    } else if (cmd == "fixpipe") {
        std::string d = ArgS("dst", "f32"), s = ArgS("src", "f32");
        if (s == "f32" && d == "f32") fn = &FixRun<float, float>;
        else if (s == "f32" && d == "f16") fn = &FixRun<half, float>;
        else if (s == "f32" && d == "bf16") fn = &FixRun<bfloat16_t, float>;
        else if (s == "i32" && d == "i32") fn = &FixRun<int32_t, int32_t>;
        else if (s == "i32" && d == "f16") fn = &FixRun<half, int32_t>;
        else if (s == "i32" && d == "i8") fn = &FixRun<int8_t, int32_t>;
    } else if (cmd == "pipeline") {
        fn = ArgS("out", "f32") == "f16" ? &Pipeline<half> : &Pipeline<float>;
    }
    if (fn == nullptr) {
        std::fprintf(stderr, "unknown command/type combination\n");
        return 2;
    }
    ao::rt::RunOnOneCore(fn, nullptr);
    return 0;
}
