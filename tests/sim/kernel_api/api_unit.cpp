// Unit driver for the emulated toolkit internals and intrinsics kernels call directly
// (intrinsics.h, init.h, copy.h, gather_mask.h, ...).
//   api_unit            runs every case, prints "<row> v0 v1 ..." lines (inputs and outputs)
//   api_unit fail NAME  runs one case that must end with a simulator error (exit 3)
// The pytest side (test_kernel_api.py) recomputes the outputs with numpy from the printed inputs.
#include <cstdio>
#include <string>
#include <vector>

#include "ascendopt_kernel/testing.h"
#include "kernel_operator.h"
#include "impl/dav_c220/kernel_operator_reg_others_impl.h"
#include "kernel_utils.h"
#include "kernel_type.h"
#include "kernel_log.h"

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

struct Ctx {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bufs[48];
    int nb = 0;
    template <typename T>
    LocalTensor<T> Alloc(uint32_t n) {
        TBuf<TPosition::VECCALC>& b = bufs[nb++];
        pipe.InitBuffer(b, n * sizeof(T));
        return b.Get<T>(n);
    }
};

template <typename T>
void Iota(const LocalTensor<T>& t, uint32_t n, int start = 0) {
    for (uint32_t i = 0; i < n; ++i) t.Data()[i] = T(float(start + int(i)));
}
template <typename T>
void Fill(const LocalTensor<T>& t, uint32_t n, T v) {
    for (uint32_t i = 0; i < n; ++i) t.Data()[i] = v;
}

// A kernel's own single-type AlignUp (as cann-ops glu kernels define it) must win over the
// toolkit's mixed-type one without ambiguity.
template <typename T>
__aicore__ inline T AlignUp(T num, T rnd) { return rnd == 0 ? 0 : (num + rnd - 1) / rnd * rnd + 1000; }

void Scalars() {
    uint32_t a = 33;
    Scalar("own_alignup", AlignUp<uint32_t>(a, 16U));            // the kernel's own: 48 + 1000
    Scalar("mixed_alignup", AscendC::AlignUp(int64_t(33), 16U));  // 48
    Scalar("divceil", DivCeil(uint64_t(65), 8));                  // 9
    Scalar("block_bytes", GetDataBlockSizeInBytes());             // 32
    Scalar("c0_count", AscendCUtils::GetC0Count(2));              // 16
    Scalar("same_type", IsSameType<float, float>::value + 2 * IsSameType<float, half>::value);  // 1
    Scalar("min_max", min(3, 7) * 10 + max(3, 7));                // 37
    Scalar("sqrt", sqrt(2.0f));
    int64_t bi = block_idx;
    Scalar("block_idx", double(bi + 10 * get_block_num() + 100 * int64_t(block_num)));  // 0 + 10 + 100
    Scalar("likely", likely(a > 3) ? 1 : 0);
    Scalar("bitcode", double(GetScalarBitcodeValue(half(1.0f))));  // 0x3c00
}

void AccVal(Ctx& c) {
    // AscendCUtils::SetMask then ReduceSum (count form); GetAccVal returns the fp32 bits of the sum.
    auto x = c.Alloc<float>(256), w = c.Alloc<float>(256), d = c.Alloc<float>(8);
    for (int i = 0; i < 200; ++i) x.Data()[i] = float(i % 7) * 0.25f - 0.5f;
    AscendCUtils::SetMask<float>(64);
    ReduceSum(d, x, w, 200);
    set_flag(PIPE_V, PIPE_S, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_S, EVENT_ID0);
    uint64_t acc = GetAccVal();
    float v;
    std::memcpy(&v, &acc, 4);
    Row("acc_x", x, 200);
    Scalar("acc_val", v);
    Scalar("acc_dst", d.GetValue(0));
}

void Init() {
    static std::vector<float> gm(100, -1.0f);
    static std::vector<half> gmh(48, half(-1.0f));
    ao::rt::RegisterGm(gm.data(), gm.size() * 4, "init_f32");
    ao::rt::RegisterGm(gmh.data(), gmh.size() * 2, "init_f16");
    GlobalTensor<float> g;
    g.SetGlobalBuffer(gm.data(), 100);
    InitGlobalMemory(g, 70, 2.5f);
    GlobalTensor<float> g2 = g[80];
    InitOutput<float>(g2, 10, 0);
    GlobalTensor<half> h;
    h.SetGlobalBuffer(gmh.data(), 48);
    InitGlobalMemory(h, 33, half(3.0f));
    Row("init_f32", gm.data(), 100);
    Row("init_f16", gmh.data(), 48);
}

void CopyCases(Ctx& c) {
    auto s = c.Alloc<float>(512), d = c.Alloc<float>(512);
    Iota(s, 512);
    Fill(d, 512, -1.0f);
    // mask 40, 3 repeats, dst block stride 2 (dst repeat 16), src repeat stride 8.
    Copy(d, s, 40, 3, {2, 1, 16, 8});
    Row("copy_cont", d, 512);
    auto sh = c.Alloc<int16_t>(512), dh = c.Alloc<int16_t>(512);
    Iota(sh, 512);
    Fill(dh, 512, int16_t(-1));
    uint64_t bits[2] = {0xF0F0F0F0F0F0F0F0ull, 0x0000000000000003ull};
    Copy(dh, sh, bits, 2, {1, 2, 8, 16});
    Row("copy_bits", dh, 512);
    // Counter mode: the mask is the element count of each repeat.
    Fill(d, 512, -1.0f);
    SetMaskCount();
    SetVectorMask<float, MaskMode::COUNTER>(0, 20);
    Copy<float, false>(d, s, MASK_PLACEHOLDER, 3, {1, 1, 8, 8});
    SetMaskNorm();
    ResetMask();
    Row("copy_counter", d, 512);
}

void GatherMaskCases(Ctx& c) {
    auto s = c.Alloc<float>(512), d = c.Alloc<float>(512);
    Iota(s, 512);
    uint64_t cnt = 0;
    Fill(d, 512, -1.0f);
    GatherMask(d, s, uint8_t(2), false, 0, {1, 3, 8, 0}, cnt);  // odd elements of 3 x 64
    Row("gm_odd", d, 512);
    Scalar("gm_odd_cnt", double(cnt));
    Fill(d, 512, -1.0f);
    GatherMask(d, s, uint8_t(5), true, 40, {1, 2, 16, 0}, cnt);  // 3rd of every four, 40 per repeat
    Row("gm_third", d, 512);
    Scalar("gm_third_cnt", double(cnt));
    Scalar("gm_remain", double(GetGatherMaskRemainCount()));
    // User pattern, half data: repeat r's pattern starts r * 1 block (256 bits) further.
    auto sh = c.Alloc<half>(512), dh = c.Alloc<half>(512);
    auto pat = c.Alloc<uint16_t>(64);
    Iota(sh, 512);
    Fill(dh, 512, half(-1.0f));
    for (int i = 0; i < 64; ++i) pat.Data()[i] = uint16_t(0x9A5Cu * uint32_t(i + 1) + 0x1234u);
    GatherMask(dh, sh, pat, false, 0, {1, 2, 8, 1}, cnt);
    Row("gm_user_pat", pat, 64);
    Row("gm_user", dh, 512);
    Scalar("gm_user_cnt", double(cnt));
    Fill(dh, 512, half(-1.0f));
    GatherMask(dh, sh, pat, true, 50, {1, 2, 4, 0}, cnt);  // counter: 50 per repeat, pattern restarts
    Row("gm_user_counter", dh, 512);
    Scalar("gm_user_counter_cnt", double(cnt));
}

// A kernel's own single-type CeilDiv wins over the toolkit's mixed-type one.
template <typename T>
__aicore__ inline T CeilDiv(T x, T y) { return (x + y - 1) / y + 500; }

void MiscCases(Ctx& c) {
    uint32_t rw = 70, rf = 8;
    Scalar("own_ceildiv", CeilDiv(rw, rf));              // 9 + 500
    Scalar("mixed_ceildiv", AscendC::CeilDiv(int64_t(70), 8U));  // 9
    // RepeatReduceSum with the mask set outside (isSetMask = false), dstRepStride 1.
    auto x = c.Alloc<float>(256), d = c.Alloc<float>(16);
    for (int i = 0; i < 256; ++i) x.Data()[i] = float((i * 37) % 11) - 5.0f;
    Fill(d, 16, -1.0f);
    AscendCUtils::SetMask<float>(48);
    RepeatReduceSum<float, false>(d, x, 4, MASK_PLACEHOLDER, 0, 1, 1, 8);
    ResetMask();
    Row("rrs_x", x, 256);
    Row("rrs", d, 16);
    auto xh = c.Alloc<half>(256), dh = c.Alloc<half>(16);
    for (int i = 0; i < 256; ++i) xh.Data()[i] = half(float(i % 9) * 0.5f);
    Fill(dh, 16, half(-1.0f));
    RepeatReduceSum<half>(dh, xh, 2, 100, 0, 1, 2, 8);
    Row("rrs_xh", xh, 256);
    Row("rrs_h", dh, 16);
    // CreateVecIndex.
    auto vi = c.Alloc<int32_t>(64);
    auto vf = c.Alloc<float>(64);
    Fill(vi, 64, -1);
    Fill(vf, 64, -1.0f);
    CreateVecIndex(vi, int32_t(5), 50);
    CreateVecIndex(vf, 0.5f, 40);
    Row("vec_index_i32", vi, 64);
    Row("vec_index_f32", vf, 64);
    // BroadCast: {3,1} -> {3,16} (axis 1), {1,16} -> {4,16} in place (axis 0), {1} -> {24}.
    auto bs = c.Alloc<float>(16), bd = c.Alloc<float>(64);
    for (int i = 0; i < 16; ++i) bs.Data()[i] = float(i) + 0.25f;
    uint32_t dst2[2] = {3, 16}, src2[2] = {3, 1};
    BroadCast<float, 2, 1>(bd, bs, dst2, src2);
    Row("bc_axis1", bd, 48);
    auto bi = c.Alloc<half>(64);
    for (int i = 0; i < 64; ++i) bi.Data()[i] = half(i < 16 ? float(i) : -1.0f);
    uint32_t dst0[2] = {4, 16}, src0[2] = {1, 16};
    BroadCast<half, 2, 0>(bi, bi, dst0, src0);
    Row("bc_axis0_inplace", bi, 64);
    uint32_t dst1[1] = {24}, src1[1] = {1};
    Broadcast<float, 1, 0>(bd, bs[8], dst1, src1);  // the API's current name
    Row("bc_dim1", bd, 24);
    // SetDeqScale scales int32 -> half casts.
    auto ci = c.Alloc<int32_t>(16);
    auto ch = c.Alloc<half>(16);
    for (int i = 0; i < 16; ++i) ci.Data()[i] = i * 300 - 2000;
    SetDeqScale(half(0.5f));
    Cast(ch, ci, RoundMode::CAST_NONE, 16);
    SetDeqScale(half(1.0f));
    Row("deq_in", ci, 16);
    Row("deq_half", ch, 16);
    // get_max_min_cnt after ReduceMax: value bits low, index high.
    auto mx = c.Alloc<float>(64), mw = c.Alloc<float>(64), md = c.Alloc<float>(8);
    for (int i = 0; i < 64; ++i) mx.Data()[i] = float((i * 13) % 64);
    ReduceMax(md, mx, mw, 64, true);
    uint64_t reg = get_max_min_cnt();
    float mv;
    uint32_t lo = uint32_t(reg);
    std::memcpy(&mv, &lo, 4);
    Scalar("maxmin_value", mv);
    Scalar("maxmin_index", double(reg >> 32));
}

void RunAll(void*) {
    Ctx c;
    Scalars();
    AccVal(c);
    Init();
    CopyCases(c);
    GatherMaskCases(c);
    MiscCases(c);
}

void RunFail(void* arg) {
    std::string name = static_cast<const char*>(arg);
    Ctx c;
    auto a = c.Alloc<float>(256), b = c.Alloc<float>(256);
    uint64_t cnt = 0;
    if (name == "set_flag_bad_event") {
        set_flag(PIPE_V, PIPE_S, 9);
    } else if (name == "copy_misaligned") {
        Copy(b, a[3], 8, 1, {1, 1, 8, 8});
    } else if (name == "copy_out_of_bounds") {
        Copy(b, a, 64, 5, {1, 1, 8, 8});
    } else if (name == "gather_mask_bad_pattern") {
        GatherMask(b, a, uint8_t(9), false, 0, {1, 1, 8, 0}, cnt);
    } else if (name == "gather_mask_out_of_bounds") {
        GatherMask(b, a, uint8_t(7), false, 0, {1, 5, 8, 0}, cnt);
    } else if (name == "broadcast_bad_shape") {
        uint32_t dst2[2] = {4, 16}, src2[2] = {2, 16};
        BroadCast<float, 2, 0>(b, a, dst2, src2);
    } else if (name == "broadcast_out_of_bounds") {
        uint32_t dst2[2] = {32, 16}, src2[2] = {32, 1};
        BroadCast<float, 2, 1>(b, a, dst2, src2);
    } else if (name == "init_gm_out_of_bounds") {
        static std::vector<float> gm(16);
        ao::rt::RegisterGm(gm.data(), gm.size() * 4, "small");
        GlobalTensor<float> g;
        g.SetGlobalBuffer(gm.data(), 16);
        InitGlobalMemory(g, 4096, 1.0f);
    }
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
