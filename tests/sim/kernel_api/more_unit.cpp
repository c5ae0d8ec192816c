// Unit driver for queue forms, data re-layout, sort and select APIs (tensor.h queues,
// transdata.h, sort.h, select_bytes.h, ...), in the pattern of api_unit.cpp:
//   more_unit            runs every case, prints "<row> v0 v1 ..." lines (inputs and outputs)
//   more_unit fail NAME  runs one case that must end with a simulator error (exit 3)
//   more_unit race NAME  runs one case whose hazards (ascendopt-warning lines) the test reads
// The pytest side recomputes the outputs with numpy from the printed inputs.
#include <cstdio>
#include <string>
#include <vector>

#include "ascendopt_kernel/testing.h"
#include "kernel_operator.h"

using namespace AscendC;

namespace {

template <typename T>
void Row(const char* name, const T* v, uint32_t n) {
    std::printf("%s", name);
    for (uint32_t i = 0; i < n; ++i) std::printf(" %.9g", double(v[i]));
    std::printf("\n");
}
template <typename T>
void Row(const char* name, const LocalTensor<T>& t, uint32_t n) { Row(name, t.Data(), n); }
void Scalar(const char* name, double v) { std::printf("%s %.9g\n", name, v); }

template <typename T>
GlobalTensor<T> Gm(std::vector<T>& v, const char* name) {
    ao::rt::RegisterGm(v.data(), v.size() * sizeof(T), name);
    GlobalTensor<T> g;
    g.SetGlobalBuffer(v.data(), v.size());
    return g;
}

// ------------------------------------------------------------------------------------ queues
constexpr TQueConfig MakeConf(uint32_t num) {
    TQueConfig c{};
    c.bufferNumber = num;
    return c;
}
constexpr TQueConfig kConf = MakeConf(1);

// GM -> VECIN and VECOUT -> GM bound queues (buffers in UB), a VECIN <-> VECOUT queue reused
// from copy-in to copy-out with the positional EnQue/DeQue, a TQueConfig queue, untyped DeQue.
void Queues() {
    static std::vector<float> in(256), out(256, -1.0f), out2(256, -1.0f);
    for (int i = 0; i < 256; ++i) in[i] = float(i) * 0.5f - 7.0f;
    GlobalTensor<float> gin = Gm(in, "q_in"), gout = Gm(out, "q_out"), gout2 = Gm(out2, "q_out2");
    TPipe pipe;
    TQueBind<TPosition::GM, TPosition::VECIN, 1> qin;
    TQueBind<TPosition::VECOUT, TPosition::GM, 1> qout;
    TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> qbind;
    TQue<TPosition::VECIN, 1, &kConf> qconf;
    pipe.InitBuffer(qin, 2, 64 * sizeof(float));
    pipe.InitBuffer(qout, 2, 64 * sizeof(float));
    pipe.InitBuffer(qbind, 2, 128 * sizeof(float));
    pipe.InitBuffer(qconf, 1, 64 * sizeof(float));
    for (int t = 0; t < 4; ++t) {  // y = 3x + 1 in tiles of 64, double-buffered
        LocalTensor<float> x = qin.AllocTensor<float>();
        DataCopy(x, gin[t * 64], 64);
        qin.EnQue(x);
        x = qin.DeQue<float>();
        LocalTensor<float> y = qout.AllocTensor<float>();
        Muls(y, x, 3.0f, 64);
        Adds(y, y, 1.0f, 64);
        qout.EnQue(y);
        qin.FreeTensor(x);
        y = qout.DeQue<float>();
        DataCopy(gout[t * 64], y, 64);
        qout.FreeTensor(y);
    }
    for (int t = 0; t < 2; ++t) {  // y = -2x in place in one bound buffer
        LocalTensor<float> b = qbind.AllocTensor<float>();
        DataCopy(b, gin[t * 128], 128);
        qbind.EnQue<TPosition::GM, TPosition::VECIN, float>(b);
        b = qbind.DeQue<TPosition::GM, TPosition::VECIN, float>();
        Muls(b, b, -2.0f, 128);
        qbind.EnQue<TPosition::VECOUT, TPosition::GM, float>(b);
        b = qbind.DeQue<TPosition::VECOUT, TPosition::GM, float>();
        DataCopy(gout2[t * 128], b, 128);
        qbind.FreeTensor(b);
    }
    LocalTensor<float> c;
    qconf.AllocTensor(c);  // in-place forms
    DataCopy(c, gin[64], 64);
    qconf.EnQue(c);
    TBufHandle h = qconf.DeQue();  // untyped: waits, returns the buffer
    Scalar("q_handle_is_buffer", h == reinterpret_cast<TBufHandle>(c.Data()) ? 1 : 0);
    Scalar("q_handle_first", double(reinterpret_cast<float*>(h)[0]));
    qconf.FreeTensor(c);
    Scalar("q_bind_pos", double(int(qin.AllocTensor<float>().GetPosition())));
    Scalar("q_vecin_pos", double(int(TPosition::VECIN)));
    Row("q_in", in.data(), 256);
    Row("q_out", out.data(), 256);
    Row("q_out2", out2.data(), 256);
}


// ------------------------------------------------------------------------------ TransDataTo5HD
struct Ctx {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bufs[32];
    int nb = 0;
    template <typename T>
    LocalTensor<T> Alloc(uint32_t n) {
        TBuf<TPosition::VECCALC>& b = bufs[nb++];
        pipe.InitBuffer(b, n * sizeof(T));
        return b.Get<T>(n);
    }
};

template <typename T>
void Fill(const LocalTensor<T>& t, uint32_t n, T v) {
    for (uint32_t i = 0; i < n; ++i) t.Data()[i] = v;
}

void TransData(Ctx& c) {
    // b16: a 16 x 16 half matrix transposed (address lists, one repeat, strides 0).
    auto h = c.Alloc<half>(512), ht = c.Alloc<half>(512);
    for (int i = 0; i < 512; ++i) h.Data()[i] = half(float((i * 7) % 97) - 40.0f);
    Fill(ht, 512, half(-1.0f));
    uint64_t d[16], s[16];
    for (int i = 0; i < 16; ++i) {
        s[i] = h[16 * i].GetPhyAddr();
        d[i] = ht[16 * i].GetPhyAddr();
    }
    TransDataTo5HD<half>(d, s, {false, false, 1, 0, 0});
    Row("td_h_in", h, 256);
    Row("td_h_t", ht, 256);
    // repeatTimes 1 with a source stride of 1 block starts one block further (rows of 32 halves).
    for (int i = 0; i < 16; ++i) s[i] = h[32 * i].GetPhyAddr();
    Fill(ht, 512, half(-1.0f));
    TransDataTo5HD<half>(d, s, {false, false, 1, 0, 1});
    Row("td_h_in32", h, 512);
    Row("td_h_shift", ht, 256);
    // b32 NCHW (C 16, HW 16) -> HWC0 with two repeats (LocalTensor lists).
    auto f = c.Alloc<float>(256), ft = c.Alloc<float>(256);
    for (int i = 0; i < 256; ++i) f.Data()[i] = float(i) * 0.25f - 3.0f;
    Fill(ft, 256, -1.0f);
    LocalTensor<float> fd[16], fs[16];
    for (int i = 0; i < 16; ++i) {
        fs[i] = f[16 * i];
        fd[i] = ft[8 * i];
    }
    TransDataTo5HD<float>(fd, fs, {false, false, 2, 16, 1});
    Row("td_f_in", f, 256);
    Row("td_f_out", ft, 256);
    // b8: a 32 x 32 byte matrix in four calls (halves of sources and destinations), uint64_t
    // address tensors for the last call.
    auto b = c.Alloc<uint8_t>(1024), bt = c.Alloc<uint8_t>(1024);
    for (int i = 0; i < 1024; ++i) b.Data()[i] = uint8_t((i * 37 + 11) % 251);
    Fill(bt, 1024, uint8_t(255));
    for (int i = 0; i < 16; ++i) {
        s[i] = b[32 * i].GetPhyAddr();
        d[i] = bt[32 * i].GetPhyAddr();
    }
    TransDataTo5HD<uint8_t>(d, s, {false, false, 1, 0, 0});  // rows 0-15, cols 0-15
    for (int i = 0; i < 16; ++i) d[i] += 32 * 16;
    TransDataTo5HD<uint8_t>(d, s, {false, true, 1, 0, 0});   // rows 0-15, cols 16-31
    for (int i = 0; i < 16; ++i) s[i] += 32 * 16;
    TransDataTo5HD<uint8_t>(d, s, {true, true, 1, 0, 0});    // rows 16-31, cols 16-31
    auto dl = c.Alloc<uint64_t>(16), sl = c.Alloc<uint64_t>(16);
    for (int i = 0; i < 16; ++i) {
        dl.Data()[i] = d[i] - 32 * 16;
        sl.Data()[i] = s[i];
    }
    TransDataTo5HD<uint8_t>(dl, sl, {true, false, 1, 0, 0});  // rows 16-31, cols 0-15
    Row("td_b_in", b, 1024);
    Row("td_b_t", bt, 1024);
    // TransDataTo5HDImpl with __ubuf__ pointer lists: the b16 transpose again.
    __ubuf__ half* pd[16];
    __ubuf__ half* ps[16];
    for (int i = 0; i < 16; ++i) {
        ps[i] = (__ubuf__ half*)h[16 * i].GetPhyAddr();
        pd[i] = (__ubuf__ half*)ht[16 * i].GetPhyAddr();
    }
    Fill(ht, 512, half(-1.0f));
    TransDataTo5HDImpl(pd, ps, TransDataTo5HDParams{false, false, 1, 0, 0});
    Row("td_impl_t", ht, 256);
}

// A kernel's own two-type CeilDiv (as cann-ops pad kernels define it) wins over the toolkit's.
template <typename T1, typename T2>
__aicore__ inline T1 CeilDiv(T1 a, T2 b) { return b <= 0 ? 0 : (a + b - 1) / b + 700; }

void Scalars() {
    uint32_t w = 70;
    int64_t f = 8;
    Scalar("own_ceildiv2", CeilDiv(w, f));                 // 9 + 700
    Scalar("own_ceildiv2_same", CeilDiv(w, uint32_t(8)));  // 9 + 700
    Scalar("toolkit_ceildiv", AscendC::CeilDiv(w, f));     // 9
}

void RunAll(void*) {
    Scalars();
    Queues();
    Ctx c;
    TransData(c);
}

void RunFail(void* arg) {
    std::string name = static_cast<const char*>(arg);
    TPipe pipe;
    if (name == "bind_gm_ub_overflow") {
        TQueBind<TPosition::GM, TPosition::VECIN, 1> q;  // UB is 192 KiB: two 100 KiB buffers do not fit
        pipe.InitBuffer(q, 2, 100 * 1024);
    } else if (name == "positional_mismatch") {
        TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> q;
        pipe.InitBuffer(q, 1, 256);
        LocalTensor<float> b = q.AllocTensor<float>();
        q.EnQue<TPosition::GM, TPosition::VECIN, float>(b);
        b = q.DeQue<TPosition::VECOUT, TPosition::GM, float>();
    } else if (name == "positional_plain_mismatch") {
        TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> q;
        pipe.InitBuffer(q, 1, 256);
        LocalTensor<float> b = q.AllocTensor<float>();
        q.EnQue<TPosition::GM, TPosition::VECIN, float>(b);
        b = q.DeQue<float>();  // waits MTE2 -> MTE3, the EnQue set MTE2 -> V
    } else if (name == "positional_not_ub") {
        TQueBind<TPosition::GM, TPosition::A1, 1> q;
        pipe.InitBuffer(q, 1, 512);
        LocalTensor<half> b = q.AllocTensor<half>();
        q.EnQue<TPosition::GM, TPosition::VECIN, half>(b);
    } else if (name == "transdata_misaligned" || name == "transdata_out_of_bounds") {
        TBuf<TPosition::VECCALC> a, b;
        pipe.InitBuffer(a, 512 * 2);
        pipe.InitBuffer(b, 512 * 2);
        LocalTensor<half> x = a.Get<half>(), y = b.Get<half>();
        LocalTensor<half> ld[16], ls[16];
        for (int i = 0; i < 16; ++i) {
            ls[i] = x[16 * i + (name == "transdata_misaligned" && i == 3 ? 8 : 0)];
            ld[i] = y[16 * i];
        }
        TransDataTo5HD<half>(ld, ls, {false, false, 3, 16, 1});  // 3 repeats x 16 blocks past y
    } else if (name == "untyped_dequeue_empty") {
        TQue<TPosition::VECIN, 1> q;
        pipe.InitBuffer(q, 1, 256);
        q.DeQue();
    }
    std::fprintf(stderr, "case %s did not fail\n", name.c_str());
}

// Cases the race checker judges: "bind_skip_out_dequeue" computes in a bound buffer and copies it
// out without the VECOUT -> GM EnQue/DeQue (V write, MTE3 read unordered: a race).
void RunRace(void* arg) {
    std::string name = static_cast<const char*>(arg);
    static std::vector<float> in(128, 1.0f), out(128);
    GlobalTensor<float> gin = Gm(in, "r_in"), gout = Gm(out, "r_out");
    TPipe pipe;
    TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> q;
    pipe.InitBuffer(q, 1, 128 * sizeof(float));
    LocalTensor<float> b = q.AllocTensor<float>();
    DataCopy(b, gin, 128);
    q.EnQue<TPosition::GM, TPosition::VECIN, float>(b);
    b = q.DeQue<TPosition::GM, TPosition::VECIN, float>();
    Muls(b, b, 2.0f, 128);
    if (name != "bind_skip_out_dequeue") {
        q.EnQue<TPosition::VECOUT, TPosition::GM, float>(b);
        b = q.DeQue<TPosition::VECOUT, TPosition::GM, float>();
    }
    DataCopy(gout, b, 128);
    q.FreeTensor(b);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 3 && std::string(argv[1]) == "fail") {
        ao::rt::RunOnOneCore(RunFail, argv[2]);
        return 0;
    }
    if (argc == 3 && std::string(argv[1]) == "race") {
        ao::rt::RunOnOneCore(RunRace, argv[2]);
        return 0;
    }
    ao::rt::RunOnOneCore(RunAll, nullptr);
    return 0;
}
