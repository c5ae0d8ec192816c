// AscendOptimizer simulator: the high-level Matmul API (kernel side) of an Atlas A2 AI core.
//
// Clean-room emulation written from the public AscendC documentation (Matmul kernel interface:
// MatmulType, Matmul/MatmulImpl, REGIST_MATMUL_OBJ, Init, SetTensorA/B, SetBias, SetOrgShape,
// SetSingleShape, SetTail, Iterate, GetTensorC, IterateAll, End, MatmulCallBackFunc).
//
// How it runs. One object computes C[singleM x singleN] = A[singleM x singleK] x B[singleK x
// singleN] (+ bias) block by block: a C block is baseM x baseN, its K loop walks baseK slices.
// Per C block the work is issued as cube-path instructions of the same kinds the hardware
// library issues, each through ao::rt::Issue, so the timing model charges the pipes and the
// race checker sees every on-chip access:
//   MTE2  GM -> L1 (A1/B1): the tile in the NZ layout of the data as stored ("CopyIn")
//   MTE1  L1 -> L0A/L0B: fractal layouts zZ / nZ that Mmad reads; bias L1 -> BT
//   M     Mmad (the public AscendC::Mmad, bias from the bias table on the first K slice)
//   FIX   L0C -> GM through the public AscendC::Fixpipe (ND or NZ, quantisation), or -> UB
// L1 holds `stepKa`/`stepKb` K slices per load (bounded by depthA1/depthB1), double-buffered
// when depth allows; L0A/L0B ping-pong when dbL0A/dbL0B = 2; L0C when dbL0C = 2. Buffers are
// allocated from the TPipe at Init with the sizes the tiling implies, so a tiling that does
// not fit fails as UbOverflow the way the hardware's allocation would. Pipes are ordered by
// flags private to the object (set after the producer, waited before the consumer, every
// flag waited once), so MTE2 / MTE1 / M / FIX overlap across slices and blocks.
// Synchronous entry points end with a full barrier: IterateAll and GetTensorC to UB return when
// the data are written, as the documented synchronous mode does.
//
// Not emulated (typed Unsupported errors): the user-managed CO1 form of Iterate, A/B already in
// L1 (TSCM/A1/B1 positions), OUTER_PRODUCT scheduling, a DataCopyOut callback, IterateBatch to UB.
#pragma once
#include "ascendopt_kernel/cube.h"
#include "ascendopt_kernel/matmul_config.h"
#include "ascendopt_kernel/matmul_static.h"
#include "ascendopt_kernel/sync.h"
#include "ascendopt_kernel/tcube_tiling.h"

namespace AscendC {

using ::BatchMode;
using ::CubeFormat;
using ::IterateOrder;
using ::LayoutMode;
using ::MatmulConfig;
using ::ScheduleType;

template <TPosition POSITION, CubeFormat FORMAT, typename TYPE, bool ISTRANS = false,
          LayoutMode LAYOUT = LayoutMode::NONE, bool IBSHARE = false, TPosition SRCPOS = TPosition::GM>
struct MatmulType {
    constexpr static TPosition pos = POSITION;
    constexpr static CubeFormat format = FORMAT;
    using T = TYPE;
    constexpr static bool isTrans = ISTRANS;
    constexpr static LayoutMode layout = LAYOUT;
    constexpr static bool ibShare = IBSHARE;
    constexpr static TPosition srcPos = SRCPOS;
};

// User copy callbacks (C out of CO1, A into A1, B into B1); nullptr keeps the default copy.
template <void (*DataCopyOut)(const __gm__ void* gm, const LocalTensor<int8_t>& co1Local,
                              const void* dataCopyOutParams, const uint64_t tilingPtr, const uint64_t dataPtr) = nullptr,
          void (*CopyA1)(const LocalTensor<int8_t>& aMatrix, const __gm__ void* gm, int row, int col, int useM,
                         int useK, const uint64_t tilingPtr, const uint64_t dataPtr) = nullptr,
          void (*CopyB1)(const LocalTensor<int8_t>& bMatrix, const __gm__ void* gm, int row, int col, int useK,
                         int useN, const uint64_t tilingPtr, const uint64_t dataPtr) = nullptr>
struct MatmulCallBackFunc {
    constexpr static auto DataCopyOutPtr = DataCopyOut;
    constexpr static auto CopyA1Ptr = CopyA1;
    constexpr static auto CopyB1Ptr = CopyB1;
};

// L0C element type of an input type.
template <typename T>
struct GetMmDstType { using Type = float; };
template <>
struct GetMmDstType<int8_t> { using Type = int32_t; };

// Bytes of one C0 block (a basic-API constant kernels that use Matmul size their copies by).
constexpr int32_t DEFAULT_C0_SIZE = 32;

struct MatmulPolicyDefault {};
template <class...>
struct MatmulPolicy {};

}  // namespace AscendC

namespace ao::k {

// Internal cube-path moves of the Matmul object (own layouts, same pipes and sizes as the
// hardware instructions they stand for).
template <typename T>
constexpr uint32_t MmC0() { return uint32_t(32 / sizeof(T)); }
constexpr uint32_t MmAlign(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }

// Where a matrix lives and how it is laid out: a GM or UB base pointer with ND row pitch `ld`
// (elements), or GM NZ with `ld` = padded row count of the whole stored matrix.
template <typename T>
struct MmSource {
    const T* ptr = nullptr;
    bool gm = true;
    bool nz = false;
    uint64_t ld = 0;
    LocalTensor<T> local;  // for a UB source
};

// NZ size (elements) of an R x C tile as stored: rows padded to 16, columns to C0.
template <typename T>
constexpr uint64_t MmNzElems(uint32_t rows, uint32_t cols) {
    return uint64_t(MmAlign(rows, 16)) * MmAlign(cols, MmC0<T>());
}

// Copies rows [r0, r0+R) x cols [c0, c0+C) of a stored matrix into `dst` (L1) as NZ with
// R padded to `rowAlign` rows (16: a matrix tile; 1: a vector, stored contiguously):
// element (r, c) at (c / C0) * Rp * C0 + r * C0 + c % C0; column padding inside the last C0
// block is zero.
template <typename T>
void MmCopyToL1(const LocalTensor<T>& dst, uint64_t dstOff, const MmSource<T>& s, uint64_t r0, uint64_t c0,
                uint32_t R, uint32_t C, uint32_t rowAlign = 16) {
    const char* what = "Matmul(CopyIn)";
    constexpr uint32_t k0 = MmC0<T>();
    const uint32_t Rp = MmAlign(R, rowAlign), Cp = MmAlign(C, k0);
    const uint64_t elems = uint64_t(Rp) * Cp;
    ao::rt::Instr ins;
    ins.name = "DataCopy";
    ins.dtype_bytes = sizeof(T);
    ins.elems = uint64_t(R) * C;
    ins.bytes = ins.elems * sizeof(T);
    ins.Add(dst.Range(dstOff, elems, true, what));
    const T* base;
    uint64_t first, last;  // element span of the source read
    if (!s.nz) {
        first = r0 * s.ld + c0;
        last = (r0 + R - 1) * s.ld + c0 + C;
        ins.bursts = R;
        ins.burst_bytes = uint64_t(C) * sizeof(T);
    } else {
        first = (c0 / k0) * s.ld * k0 + r0 * k0;
        last = ((c0 + C - 1) / k0) * s.ld * k0 + (r0 + R) * k0;
        ins.bursts = (C + k0 - 1) / k0;
        ins.burst_bytes = uint64_t(R) * 32;
    }
    if (s.gm) {
        base = s.ptr;
        ao::rt::CheckGm(base + first, (last - first) * sizeof(T), what, false);
        ins.pipe = ao::rt::Pipe::MTE2;
        ins.cls = ao::rt::OpClass::CopyIn;
        ins.gm_addr = reinterpret_cast<uint64_t>(base + first);
        ins.Add({ao::rt::Space::GM, ins.gm_addr, reinterpret_cast<uint64_t>(base + last), false});
    } else {
        base = s.local.Data();
        ins.pipe = LocalCopyPipe(ao::rt::Space::L1, s.local.Space());
        ins.cls = ao::rt::OpClass::CopyLocal;
        ins.Add(s.local.Range(first, last - first, false, what));
    }
    ao::rt::Issue(ins);
    if (s.gm) base = ao::rt::GmData(base);  // GM as the API reaches it (gm_guard.cpp)
    T* d = dst.Data() + dstOff;
    for (uint32_t cb = 0; cb < Cp / k0; ++cb) {
        for (uint32_t r = 0; r < R; ++r) {
            T* row = d + (uint64_t(cb) * Rp + r) * k0;
            for (uint32_t j = 0; j < k0; ++j) {
                uint32_t c = cb * k0 + j;
                if (c >= C) { row[j] = T(0); continue; }
                uint64_t gr = r0 + r, gc = c0 + c;
                row[j] = s.nz ? base[(gc / k0) * s.ld * k0 + gr * k0 + gc % k0] : base[gr * s.ld + gc];
            }
        }
    }
}

// L1 (NZ of the stored tile) -> L0A (zZ) or L0B (nZ). The stored tile is `rowsAreOuter`
// x inner: for A, outer = m and inner = k unless transposed; for B, outer = k and inner = n
// unless transposed. (outer, inner) of the logical operand: A(m, k), B(k, n).
template <typename T>
void MmLoadL0(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t srcOff, bool isA, bool trans,
              uint32_t rowsLogical, uint32_t colsLogical) {
    // rowsLogical x colsLogical: A -> m x k, B -> k x n.
    const char* what = "Matmul(LoadData)";
    constexpr uint32_t k0 = MmC0<T>();
    const uint32_t m = isA ? rowsLogical : 0, n = isA ? 0 : colsLogical;
    const uint32_t k = isA ? colsLogical : rowsLogical;
    const uint32_t kB = (k + k0 - 1) / k0;
    const uint32_t oB = isA ? (m + 15) / 16 : (n + 15) / 16;  // 16-row blocks of m (A) or n (B)
    const uint64_t frac = 16 * k0, total = uint64_t(oB) * kB * frac;
    // The stored tile: A: rows m, cols k (or rows k, cols m when trans); B: rows k, cols n
    // (or rows n, cols k when trans).
    uint32_t sRows, sCols;
    if (isA) { sRows = trans ? k : m; sCols = trans ? m : k; }
    else { sRows = trans ? n : k; sCols = trans ? k : n; }
    const uint32_t sRp = MmAlign(sRows, 16);
    ao::rt::Instr ins;
    ins.name = "LoadData";
    ins.pipe = ao::rt::Pipe::MTE1;
    ins.cls = ao::rt::OpClass::CubeLoad;
    ins.dtype_bytes = sizeof(T);
    ins.repeats = uint32_t(oB * kB);
    ins.elems = total;
    ins.bytes = total * sizeof(T);
    ins.bursts = ins.repeats;
    ins.burst_bytes = kFractalBytes;
    ins.Add(dst.Range(0, total, true, what));
    ins.Add(src.Range(srcOff, MmNzElems<T>(sRows, sCols), false, what));
    ao::rt::Issue(ins);
    const T* s = src.Data() + srcOff;
    T* d = dst.Data();
    auto at = [&](uint32_t r, uint32_t c) -> T {  // stored element (r, c)
        return s[(uint64_t(c) / k0) * sRp * k0 + uint64_t(r) * k0 + c % k0];
    };
    for (uint32_t ob = 0; ob < oB; ++ob)
        for (uint32_t kb = 0; kb < kB; ++kb)
            for (uint32_t i = 0; i < 16; ++i)
                for (uint32_t j = 0; j < k0; ++j) {
                    uint32_t o = ob * 16 + i, kk = kb * k0 + j;
                    T v = T(0);
                    if (isA) {
                        if (o < m && kk < k) v = trans ? at(kk, o) : at(o, kk);
                        d[(uint64_t(ob) * kB + kb) * frac + uint64_t(i) * k0 + j] = v;
                    } else {
                        if (o < n && kk < k) v = trans ? at(o, kk) : at(kk, o);
                        d[(uint64_t(kb) * oB + ob) * frac + uint64_t(i) * k0 + j] = v;
                    }
                }
}

// Slice [n0, n0 + N) of a GM/UB vector (the bias, the per-channel quantisation scales) -> L1
// (MTE2), contiguous as stored: N elements, the last 32-byte block zero-padded. Then the bias
// L1 -> bias table as float (MTE1), MmBiasToBt; Fixpipe reads the scales from L1 by channel.
template <typename B>
void MmVectorToL1(const LocalTensor<B>& l1, const MmSource<B>& s, uint64_t n0, uint32_t N) {
    MmSource<B> v = s;
    if (s.gm) v.ptr = s.ptr + n0;
    else v.local = s.local[uint32_t(n0)];
    v.nz = false;
    v.ld = N;
    MmCopyToL1<B>(l1, 0, v, 0, 0, 1, N, 1);
}
// L1 elements a vector of N elements occupies (MmVectorToL1).
template <typename B>
constexpr uint64_t MmVectorElems(uint32_t N) { return MmAlign(N, MmC0<B>()); }
template <typename B>
void MmBiasToBt(const LocalTensor<float>& bt, const LocalTensor<B>& l1, uint32_t N) {
    const char* what = "Matmul(bias)";
    ao::rt::Instr ins;
    ins.name = "DataCopy";
    ins.pipe = ao::rt::Pipe::MTE1;
    ins.cls = ao::rt::OpClass::CopyLocal;
    ins.dtype_bytes = sizeof(B);
    ins.elems = N;
    ins.bytes = uint64_t(N) * sizeof(float);
    ins.bursts = 1;
    ins.burst_bytes = ins.bytes;
    ins.Add(bt.Range(0, MmAlign(N, 16), true, what));
    ins.Add(l1.Range(0, MmVectorElems<B>(N), false, what));
    ao::rt::Issue(ins);
    for (uint32_t i = 0; i < MmAlign(N, 16); ++i) bt.Data()[i] = i < N ? float(l1.Data()[i]) : 0.0f;
}

// L0C (NZ, mB x nB fractals of 16 x 16) -> UB, ND with row pitch `ld`, converted to D.
template <typename D, typename C>
void MmCopyOutUb(const LocalTensor<D>& dst, uint64_t dstOff, uint64_t ld, const LocalTensor<C>& src, uint32_t m,
                 uint32_t n, QuantMode_t mode, uint64_t deq) {
    const char* what = "Matmul(GetTensorC->UB)";
    const uint32_t mB = (m + 15) / 16;
    ao::rt::Instr ins;
    ins.name = "Fixpipe";
    ins.pipe = ao::rt::Pipe::FIX;
    ins.cls = ao::rt::OpClass::Fixpipe;
    ins.dtype_bytes = sizeof(C);
    ins.elems = uint64_t(m) * n;
    ins.bytes = ins.elems * sizeof(D);
    ins.repeats = mB * ((n + 15) / 16);
    ins.bursts = m;
    ins.burst_bytes = uint64_t(n) * sizeof(D);
    ins.Add(src.Range(0, uint64_t(mB) * 16 * MmAlign(n, 16), false, what));
    ins.Add(dst.Range(dstOff, uint64_t(m - 1) * ld + n, true, what));
    ao::rt::Issue(ins);
    float scale = AoDeqScale(deq);
    const C* s = src.Data();
    D* d = dst.Data() + dstOff;
    for (uint32_t i = 0; i < m; ++i)
        for (uint32_t j = 0; j < n; ++j)
            d[uint64_t(i) * ld + j] =
                AoFixConvert<D, C>(s[(uint64_t(j / 16) * mB + i / 16) * 256 + (i % 16) * 16 + j % 16], false, mode,
                                   scale);
}

// Flags private to one Matmul object: every set is waited exactly once (Pending/Drain), so
// no token outlives the object's use and keys never collide with kernel flags.
struct MmFlags {
    uint32_t uid = 0;
    bool pending[64] = {};
    ao::rt::Pipe src[64] = {};
    ao::rt::Pipe dst[64] = {};
    uint64_t Key(int i) const { return (uint64_t(6) << 40) | (uint64_t(uid) << 8) | uint64_t(i); }
    void Set(ao::rt::Pipe s, ao::rt::Pipe d, int i) {
        if (pending[i]) Wait(i);
        ao::rt::SyncSet(s, d, Key(i));
        pending[i] = true;
        src[i] = s;
        dst[i] = d;
    }
    void Wait(int i) {
        if (!pending[i]) return;
        ao::rt::SyncWait(src[i], dst[i], Key(i));
        pending[i] = false;
    }
    void Pass(ao::rt::Pipe s, ao::rt::Pipe d, int i) {  // producer done -> consumer may start
        Set(s, d, i);
        Wait(i);
    }
    void Drain() {
        for (int i = 0; i < 64; ++i) Wait(i);
    }
};

template <typename T>
void MmAlignCursor(TPipe* pipe, ao::rt::Space sp, uint64_t align) {
    uint64_t cur = pipe->cursor_[int(sp)];
    uint64_t pad = (cur + align - 1) / align * align - cur;
    if (pad) pipe->Take(sp, uint32_t(pad), "Matmul::Init");
}

// Where Matmul::Init places an object's buffers on its pipe, as the library's Init does
// (InitShareBufStart before, InitShareBufEnd after): only one Matmul object of a pipe computes at a
// time (the AIC serves requests one by one), so L0A and L0B are the running object's alone (every
// Init starts them at 0) and L1 and L0C hold one region shared by all of the pipe's objects: the
// first Init opens it at the pipe's cursor, later ones start over at its beginning. After Init the
// cursor is past the largest object's buffers, so the kernel's own later buffers do not overlap.
inline void MmShareStart(TPipe* pipe) {
    pipe->cursor_[int(ao::rt::Space::L0A)] = 0;
    pipe->cursor_[int(ao::rt::Space::L0B)] = 0;
    for (ao::rt::Space sp : {ao::rt::Space::L1, ao::rt::Space::L0C}) {
        uint64_t& cur = pipe->cursor_[int(sp)];
        if (!pipe->mm_share_open_) pipe->mm_share_begin_[int(sp)] = pipe->mm_share_end_[int(sp)] = cur;
        cur = pipe->mm_share_begin_[int(sp)];
    }
    pipe->mm_share_open_ = true;
}
inline void MmShareEnd(TPipe* pipe) {
    for (ao::rt::Space sp : {ao::rt::Space::L1, ao::rt::Space::L0C}) {
        uint64_t& cur = pipe->cursor_[int(sp)];
        uint64_t& end = pipe->mm_share_end_[int(sp)];
        if (cur > end) end = cur;
        cur = end;
    }
}

// The kernel type a Matmul object implies; defined by lib/matmul_intf.h (after ASCENDC_CUBE_ONLY).
template <class T>
struct MmKernelType;

}  // namespace ao::k

namespace AscendC {

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const auto& MM_CFG = CFG_NORM,
          class MM_CB = MatmulCallBackFunc<nullptr, nullptr, nullptr>, class MATMUL_POLICY = MatmulPolicyDefault,
          typename = void>
class MatmulImpl {
public:
    using AType = A_TYPE;
    using BType = B_TYPE;
    using CType = C_TYPE;
    using BiasType = BIAS_TYPE;
    using SrcT = typename A_TYPE::T;
    using SrcAT = typename A_TYPE::T;
    using SrcBT = typename B_TYPE::T;
    using DstT = typename C_TYPE::T;
    using BiasT = typename BIAS_TYPE::T;
    using L0cT = typename GetMmDstType<SrcAT>::Type;
    using CallBack = MM_CB;

    // Holding a Matmul makes the kernel MIX 1:2 (cube-only with ASCENDC_CUBE_ONLY), whether or not
    // it goes through REGIST_MATMUL_OBJ: the compiler sees cube code (MmKernelType, matmul_intf.h).
    __aicore__ inline MatmulImpl() {
        (void)::ao::rt::KernelTypeDecl<0, ao::k::MmKernelType<A_TYPE>::value,
                                       ::ao::rt::KernelTypeSource::Inferred>::registered;
    }

    __aicore__ inline void Init(const TCubeTiling* __restrict cubeTiling, TPipe* tpipe = nullptr) {
        if (cubeTiling == nullptr) ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "Matmul::Init: tiling is null");
        tiling_ = *cubeTiling;
        if (tpipe != nullptr) pipe_ = tpipe;
        if (pipe_ == nullptr) pipe_ = GetTPipePtr();
        if (pipe_ == nullptr) ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "Matmul::Init: no TPipe");
        const TCubeTiling& t = tiling_;
        // A tiling without base sizes (an object registered for a path the launch does not take,
        // its tiling left zero by the host) sets up nothing; the object fails at its first use.
        noBase_ = t.baseM <= 0 || t.baseN <= 0 || t.baseK <= 0;
        if (noBase_) return;
        constexpr uint32_t k0 = ao::k::MmC0<SrcAT>();
        baseM_ = uint32_t(t.baseM);
        baseN_ = uint32_t(t.baseN);
        baseK_ = uint32_t(t.baseK);
        if (baseK_ % k0 != 0)
            ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "Matmul::Init: baseK %u is not a multiple of %u", baseK_, k0);
        // L1: K slices per load and the number of loads in flight, from depth and step.
        int stepKa = t.stepKa > 0 ? t.stepKa : 1, stepKb = t.stepKb > 0 ? t.stepKb : 1;
        int depthA = t.depthA1 > 0 ? t.depthA1 : 1, depthB = t.depthB1 > 0 ? t.depthB1 : 1;
        int stepM = t.stepM > 0 ? t.stepM : 1, stepN = t.stepN > 0 ? t.stepN : 1;
        int nA = depthA >= 2 * stepKa * stepM ? 2 : 1, nB = depthB >= 2 * stepKb * stepN ? 2 : 1;
        int kbA = depthA / nA < stepKa ? (depthA / nA > 0 ? depthA / nA : 1) : stepKa;
        int kbB = depthB / nB < stepKb ? (depthB / nB > 0 ? depthB / nB : 1) : stepKb;
        kbL1_ = uint32_t(kbA < kbB ? kbA : kbB);
        nL1_ = uint32_t(nA < nB ? nA : nB);
        tileA_ = ao::k::MmNzElems<SrcAT>(A_TYPE::isTrans ? baseK_ : baseM_, A_TYPE::isTrans ? baseM_ : baseK_);
        tileB_ = ao::k::MmNzElems<SrcBT>(B_TYPE::isTrans ? baseN_ : baseK_, B_TYPE::isTrans ? baseK_ : baseN_);
        // Allocation follows the tiling's depth (what the hardware library reserves).
        uint64_t a1 = uint64_t(depthA) * tileA_ * sizeof(SrcAT), b1 = uint64_t(depthB) * tileB_ * sizeof(SrcBT);
        if (a1 < uint64_t(nL1_) * kbL1_ * tileA_ * sizeof(SrcAT)) a1 = uint64_t(nL1_) * kbL1_ * tileA_ * sizeof(SrcAT);
        if (b1 < uint64_t(nL1_) * kbL1_ * tileB_ * sizeof(SrcBT)) b1 = uint64_t(nL1_) * kbL1_ * tileB_ * sizeof(SrcBT);
        ao::k::MmShareStart(pipe_);
        ao::k::MmAlignCursor<int>(pipe_, ao::rt::Space::L1, 512);
        pipe_->InitBuffer(a1Buf_, uint32_t(a1));
        pipe_->InitBuffer(b1Buf_, uint32_t(b1));
        nL0_ = (t.dbL0A == 2 && t.dbL0B == 2) ? 2u : 1u;
        uint64_t l0a = uint64_t(ao::k::MmAlign(baseM_, 16)) * baseK_ * sizeof(SrcAT);
        uint64_t l0b = uint64_t(ao::k::MmAlign(baseN_, 16)) * baseK_ * sizeof(SrcBT);
        l0aElems_ = l0a / sizeof(SrcAT);
        l0bElems_ = l0b / sizeof(SrcBT);
        ao::k::MmAlignCursor<int>(pipe_, ao::rt::Space::L0A, 512);
        pipe_->InitBuffer(a2Buf_, uint32_t(l0a * nL0_));
        ao::k::MmAlignCursor<int>(pipe_, ao::rt::Space::L0B, 512);
        pipe_->InitBuffer(b2Buf_, uint32_t(l0b * nL0_));
        nL0C_ = t.dbL0C == 2 ? 2u : 1u;
        l0cElems_ = uint64_t(ao::k::MmAlign(baseM_, 16)) * ao::k::MmAlign(baseN_, 16);
        ao::k::MmAlignCursor<int>(pipe_, ao::rt::Space::L0C, 1024);
        pipe_->InitBuffer(c1Buf_, uint32_t(l0cElems_ * sizeof(L0cT) * nL0C_));
        ao::k::MmShareEnd(pipe_);
        flags_.uid = NextQueueUid();
        ResetShape();
        inited_ = true;
    }

    __aicore__ inline void SetOrgShape(int orgM, int orgN, int orgK) { SetOrgShape(orgM, orgN, orgK, orgK, 0); }
    __aicore__ inline void SetOrgShape(int orgM, int orgN, int orgKa, int orgKb, int orgKc = 0) {
        orgM_ = orgM;
        orgN_ = orgN;
        orgKa_ = orgKa;
        orgKb_ = orgKb;
        orgKc_ = orgKc > 0 ? orgKc : orgN;
    }
    __aicore__ inline void SetSingleShape(int singleM, int singleN, int singleK) { SetTail(singleM, singleN, singleK); }
    __aicore__ inline void SetTail(int tailM = -1, int tailN = -1, int tailK = -1) {
        if (tailM > 0) singleM_ = tailM;
        if (tailN > 0) singleN_ = tailN;
        if (tailK > 0) singleK_ = tailK;
        iter_ = 0;
    }
    __aicore__ inline void SetTensorA(const GlobalTensor<SrcAT>& gm, bool isTransposeA = false) {
        a_ = ao::k::MmSource<SrcAT>{gm.GetPhyAddr(), true, A_TYPE::format == CubeFormat::NZ, 0, {}};
        transA_ = isTransposeA || A_TYPE::isTrans;
        iter_ = 0;
    }
    __aicore__ inline void SetTensorB(const GlobalTensor<SrcBT>& gm, bool isTransposeB = false) {
        b_ = ao::k::MmSource<SrcBT>{gm.GetPhyAddr(), true, B_TYPE::format == CubeFormat::NZ, 0, {}};
        transB_ = isTransposeB || B_TYPE::isTrans;
        iter_ = 0;
    }
    __aicore__ inline void SetTensorA(const LocalTensor<SrcAT>& leftMatrix, bool isTransposeA = false) {
        CheckLocalSource(leftMatrix, "SetTensorA");
        a_ = ao::k::MmSource<SrcAT>{nullptr, false, A_TYPE::format == CubeFormat::NZ, 0, leftMatrix};
        transA_ = isTransposeA || A_TYPE::isTrans;
        iter_ = 0;
    }
    __aicore__ inline void SetTensorB(const LocalTensor<SrcBT>& rightMatrix, bool isTransposeB = false) {
        CheckLocalSource(rightMatrix, "SetTensorB");
        b_ = ao::k::MmSource<SrcBT>{nullptr, false, B_TYPE::format == CubeFormat::NZ, 0, rightMatrix};
        transB_ = isTransposeB || B_TYPE::isTrans;
        iter_ = 0;
    }
    __aicore__ inline void SetTensorA(SrcAT) {
        ao::rt::Fail(ao::rt::ErrorKind::Unsupported, "Matmul::SetTensorA(scalar) is not emulated by the simulator");
    }
    __aicore__ inline void SetTensorB(SrcBT) {
        ao::rt::Fail(ao::rt::ErrorKind::Unsupported, "Matmul::SetTensorB(scalar) is not emulated by the simulator");
    }
    __aicore__ inline void SetBias(const GlobalTensor<BiasT>& biasGlobal) {
        bias_ = ao::k::MmSource<BiasT>{biasGlobal.GetPhyAddr(), true, false, 0, {}};
        hasBias_ = true;
        EnsureBiasBuffers();
    }
    __aicore__ inline void SetBias(const LocalTensor<BiasT>& inputBias) {
        CheckLocalSource(inputBias, "SetBias");
        bias_ = ao::k::MmSource<BiasT>{nullptr, false, false, 0, inputBias};
        hasBias_ = true;
        EnsureBiasBuffers();
    }
    __aicore__ inline void DisableBias() { hasBias_ = false; }
    __aicore__ inline void ClearBias() { hasBias_ = false; }
    __aicore__ inline void SetQuantScalar(const uint64_t quantScalar) {
        quantScalar_ = quantScalar;
        quantVector_ = false;
    }
    __aicore__ inline void SetQuantVector(const GlobalTensor<uint64_t>& quantTensor) {
        quantGm_ = quantTensor.GetPhyAddr();
        quantVector_ = true;
        if (!quantBufInited_) {
            pipe_->InitBuffer(quantL1_, uint32_t(ao::k::MmVectorElems<uint64_t>(baseN_) * sizeof(uint64_t)));
            quantBufInited_ = true;
        }
    }
    template <class T>
    __aicore__ inline void SetSelfDefineData(T dataPtr) { selfData_ = uint64_t(dataPtr); }
    __aicore__ inline void SetUserDefInfo(const uint64_t tilingPtr) { userTiling_ = tilingPtr; }
    __aicore__ inline void SetSubBlockIdx(uint8_t idx) { subBlockIdx_ = idx; }
    __aicore__ inline uint8_t GetSubBlockIdx() { return subBlockIdx_; }
    __aicore__ inline void SetHF32(bool = false, int32_t = 0) {}
    template <class T>
    __aicore__ inline void SetWorkspace(__gm__ const T* addr, int size) {
        ws_ = (__gm__ uint8_t*)addr;
        wsBytes_ = uint64_t(size > 0 ? size : 0);
    }
    template <class T>
    __aicore__ inline void SetWorkspace(GlobalTensor<T>& addr) {
        ws_ = (__gm__ uint8_t*)addr.GetPhyAddr();
        wsBytes_ = addr.GetSize() * sizeof(T);
    }
    __aicore__ inline void SetLocalWorkspace(const LocalTensor<uint8_t>&) {}
    __aicore__ inline void SetBatchNum(int32_t batchA, int32_t batchB) {
        batchA_ = batchA;
        batchB_ = batchB;
    }
    // IterateBatch to GM, NORMAL (BMNK) layout: max(batchA, batchB) matmuls of the single shape;
    // batch b reads A / B at (b * batchX / max) * matrixStrideX elements past the tensors set (0:
    // one stored matrix; the smaller batch is broadcast) and writes C at b * M * N (org shape).
    // The mixed-mode form passes batchA, batchB; the cube-only form (called on an AIC) passes
    // enPartialSum and enAtomic there and takes the batches from SetBatchNum. A bias is the same
    // for every batch. matrixStrideC is reserved (docs).
    template <bool sync = true, bool waitIterateBatch = false>
    __aicore__ inline void IterateBatch(const GlobalTensor<DstT>& gm, uint32_t batchA, uint32_t batchB, bool,
                                        uint32_t matrixStrideA = 0, uint32_t matrixStrideB = 0, uint32_t = 0,
                                        bool enPartialSum = false, uint8_t enAtomic = 0) {
        CheckReady("IterateBatch");
        if (ao::rt::Cur().core_type == ao::rt::kCoreAic) {  // cube-only form
            enPartialSum = batchA != 0;
            enAtomic = uint8_t(batchB);
            batchA = uint32_t(batchA_ > 0 ? batchA_ : 0);
            batchB = uint32_t(batchB_ > 0 ? batchB_ : 0);
        }
        uint32_t nb = batchA > batchB ? batchA : batchB;
        if (batchA == 0 || batchB == 0 || nb % batchA != 0 || nb % batchB != 0)
            ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "Matmul::IterateBatch: batchA %u and batchB %u must be "
                         "positive multiples of one another (SetBatchNum before the cube-only form)", batchA, batchB);
        if (!a_.gm || !b_.gm)
            ao::rt::Fail(ao::rt::ErrorKind::Unsupported, "Matmul::IterateBatch: only GM A / B are emulated");
        ao::k::MmSource<SrcAT> a0 = a_;
        ao::k::MmSource<SrcBT> b0 = b_;
        uint64_t sa = matrixStrideA ? matrixStrideA : StoredElems<SrcAT>(a0.nz, transA_, orgM_, orgKa_);
        uint64_t sb = matrixStrideB ? matrixStrideB : StoredElems<SrcBT>(b0.nz, !transB_, orgN_, orgKb_);
        for (uint32_t b = 0; b < nb; ++b) {
            a_.ptr = a0.ptr + uint64_t(b / (nb / batchA)) * sa;
            b_.ptr = b0.ptr + uint64_t(b / (nb / batchB)) * sb;
            iter_ = 0;
            while (Iterate(enPartialSum))
                CopyOutGm(gm.GetPhyAddr() + uint64_t(b) * orgM_ * orgKc_, curM_, curN_, enAtomic, false);
        }
        a_ = a0;
        b_ = b0;
        Finish();
    }
    __aicore__ inline void WaitIterateBatch() {}

    // Computes the next baseM x baseN block of C into L0C; false once every block is done.
    template <bool sync = true>
    __aicore__ inline bool Iterate(bool enPartialSum = false) {
        CheckReady("Iterate");
        if constexpr (ao::k::MmConfigOf(MM_CFG).scheduleType == ScheduleType::OUTER_PRODUCT)
            ao::rt::Fail(ao::rt::ErrorKind::Unsupported, "Matmul: ScheduleType::OUTER_PRODUCT is not emulated");
        uint32_t mIter = Ceil(uint32_t(singleM_), baseM_), nIter = Ceil(uint32_t(singleN_), baseN_);
        if (iter_ >= mIter * nIter) {
            iter_ = 0;
            flags_.Drain();
            return false;
        }
        BlockOf(iter_, curM_, curN_);
        ComputeBlock(curM_, curN_, enPartialSum);
        ++iter_;
        pending_ = true;
        return true;
    }
    template <bool sync = true, typename T>
    __aicore__ inline bool Iterate(bool, const LocalTensor<T>&) {
        ao::rt::Fail(ao::rt::ErrorKind::Unsupported,
                     "Matmul::Iterate with a user-managed CO1 tensor is not emulated by the simulator");
    }

    template <bool sync = true>
    __aicore__ inline void GetTensorC(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false) {
        CheckReady("GetTensorC");
        CopyOutGm(gm.GetPhyAddr(), curM_, curN_, enAtomic, enSequentialWrite);
    }
    template <bool sync = true>
    __aicore__ inline void GetTensorC(const LocalTensor<DstT>& co2Local, uint8_t enAtomic = 0,
                                      bool enSequentialWrite = false, uint32_t = 0, uint32_t = 0, uint32_t = 0,
                                      uint32_t = 0) {
        CheckReady("GetTensorC");
        (void)enSequentialWrite;
        if (enAtomic != 0)
            ao::rt::Fail(ao::rt::ErrorKind::Unsupported, "Matmul::GetTensorC: atomic output to UB is not emulated");
        uint32_t m = RowsOf(curM_), n = ColsOf(curN_);
        CopyOutUb(co2Local, 0, ao::k::MmAlign(n, ao::k::MmC0<DstT>()), m, n);
    }
    // The C block cached in the workspace (SetWorkspace): the block the last Iterate computed, or
    // the next one when that was fetched already (the asynchronous flow: one Iterate<false>, then
    // GetTensorC per block); written at the workspace's start as rows of the block's own width.
    template <bool sync = true>
    __aicore__ inline GlobalTensor<DstT> GetTensorC(uint8_t enAtomic = 0, bool = false) {
        CheckReady("GetTensorC");
        if (!pending_ && !Iterate()) ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "Matmul::GetTensorC: no block left");
        if (uint64_t(RowsOf(curM_)) * ColsOf(curN_) * sizeof(DstT) > wsBytes_)
            ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "Matmul::GetTensorC: the workspace (SetWorkspace, %llu "
                         "bytes) cannot hold a %u x %u C block", (unsigned long long)wsBytes_, RowsOf(curM_), ColsOf(curN_));
        CopyOutGm((__gm__ DstT*)ws_, curM_, curN_, enAtomic, true);
        // The block is returned ready: the library's caller waits for the cube's notification that
        // its Fixpipe wrote the workspace, so every later access of the caller comes after the write.
        flags_.Pass(ao::rt::Pipe::FIX, ao::rt::Pipe::S, 16);
        pending_ = false;
        GlobalTensor<DstT> out;
        out.SetGlobalBuffer((__gm__ DstT*)ws_, wsBytes_ / sizeof(DstT));
        return out;
    }
    template <bool sync = true>
    __aicore__ inline void GetTensorC(const GlobalTensor<DstT>& gm, const LocalTensor<DstT>& co2Local,
                                      uint8_t enAtomic = 0, bool enSequentialWrite = false) {
        GetTensorC<sync>(gm, enAtomic, enSequentialWrite);
        GetTensorC<sync>(co2Local, 0, enSequentialWrite);
    }

    // All blocks of C, written to GM (row pitch orgKc, default N) or UB (row pitch singleN
    // rounded up to 32 bytes); returns when the data are written.
    template <bool sync = true>
    __aicore__ inline void IterateAll(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false,
                                      bool waitIterateAll = false, bool fakeMsg = false) {
        (void)enSequentialWrite;
        (void)waitIterateAll;
        (void)fakeMsg;
        CheckReady("IterateAll");
        iter_ = 0;
        while (Iterate()) CopyOutGm(gm.GetPhyAddr(), curM_, curN_, enAtomic, false);
        Finish();
    }
    template <bool sync = true>
    __aicore__ inline void IterateAll(const LocalTensor<DstT>& ubCmatrix, uint8_t enAtomic = 0) {
        CheckReady("IterateAll");
        if (enAtomic != 0)
            ao::rt::Fail(ao::rt::ErrorKind::Unsupported, "Matmul::IterateAll: atomic output to UB is not emulated");
        iter_ = 0;
        uint64_t ld = ao::k::MmAlign(uint32_t(singleN_), ao::k::MmC0<DstT>());
        while (Iterate())
            CopyOutUb(ubCmatrix, uint64_t(curM_) * baseM_ * ld + uint64_t(curN_) * baseN_, ld, RowsOf(curM_),
                      ColsOf(curN_));
        Finish();
    }
    __aicore__ inline void WaitIterateAll() {}
    __aicore__ inline void WaitGetTensorC() {}

    template <bool isTurnOnDebug = true>
    __aicore__ inline MatrixOffset GetOffsetC() {
        MatrixOffset o{};
        o.row = int32_t(curM_ * baseM_);
        o.col = int32_t(curN_ * baseN_);
        o.height = int32_t(RowsOf(curM_));
        o.width = int32_t(ColsOf(curN_));
        o.offset = o.row * int32_t(orgKc_) + o.col;
        return o;
    }

    __aicore__ inline void End() {
        if (!inited_) return;
        Finish();
        iter_ = 0;
    }

    // REGIST_MATMUL_OBJ with an object but no tiling: the pipe is remembered for a later Init.
    __aicore__ inline void AoSetPipe(TPipe* p) { pipe_ = p; }
    // REGIST_MATMUL_OBJ with a null tiling: a full-constant MM_CFG (MatmulApiStaticTiling) is the
    // tiling; otherwise the pipe is remembered for a later Init.
    __aicore__ inline void AoInitNoTiling(TPipe* p) {
        pipe_ = p;
        TCubeTiling t{};
        if (ao::k::MmStaticTiling(MM_CFG, t)) Init(&t, p);
    }

private:
    // Elements of one stored matrix of `rows` x `cols` (transposed: stored cols x rows), NZ padded.
    template <typename T>
    static uint64_t StoredElems(bool nz, bool trans, int rows, int cols) {
        if (!nz) return uint64_t(rows) * uint64_t(cols);
        return trans ? ao::k::MmNzElems<T>(uint32_t(cols), uint32_t(rows)) : ao::k::MmNzElems<T>(uint32_t(rows), uint32_t(cols));
    }
    template <typename T>
    static void CheckLocalSource(const LocalTensor<T>& t, const char* what) {
        if (t.Space() != ao::rt::Space::UB)
            ao::rt::Fail(ao::rt::ErrorKind::Unsupported,
                         "Matmul::%s: a %s (L1/TSCM) operand is not emulated by the simulator; GM and UB are", what,
                         ao::rt::SpaceName(t.Space()));
    }
    static uint32_t Ceil(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
    void CheckReady(const char* what) const {
        if (noBase_)
            ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument,
                         "Matmul::%s: the tiling given to Init has baseM %d, baseN %d, baseK %d (must be > 0)", what,
                         tiling_.baseM, tiling_.baseN, tiling_.baseK);
        if (!inited_)
            ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "Matmul::%s before Init (REGIST_MATMUL_OBJ with a tiling)",
                         what);
    }
    void ResetShape() {
        orgM_ = tiling_.M;
        orgN_ = tiling_.N;
        orgKa_ = tiling_.Ka;
        orgKb_ = tiling_.Kb > 0 ? tiling_.Kb : tiling_.Ka;
        orgKc_ = tiling_.N;
        singleM_ = tiling_.singleCoreM;
        singleN_ = tiling_.singleCoreN;
        singleK_ = tiling_.singleCoreK;
        iter_ = 0;
    }
    void EnsureBiasBuffers() {
        if (biasInited_) return;
        if (pipe_ == nullptr) ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "Matmul::SetBias before Init");
        pipe_->InitBuffer(biasL1_, uint32_t(ao::k::MmVectorElems<BiasT>(baseN_) * sizeof(BiasT)));
        pipe_->cursor_[int(ao::rt::Space::BT)] = 0;  // the running object's alone, as L0A/L0B
        pipe_->InitBuffer(biasBt_, uint32_t(ao::k::MmAlign(baseN_, 16) * sizeof(float)));
        biasInited_ = true;
    }
    bool OrderN() const {
        constexpr MatmulConfig cfg = ao::k::MmConfigOf(MM_CFG);
        if constexpr (cfg.iterateOrder != IterateOrder::UNDEF) return cfg.iterateOrder == IterateOrder::ORDER_N;
        return tiling_.iterateOrder == 1;
    }
    void BlockOf(uint32_t idx, uint32_t& mi, uint32_t& ni) const {
        uint32_t mIter = Ceil(uint32_t(singleM_), baseM_), nIter = Ceil(uint32_t(singleN_), baseN_);
        if (!OrderN()) { mi = idx % mIter; ni = idx / mIter; }
        else { ni = idx % nIter; mi = idx / nIter; }
    }
    uint32_t RowsOf(uint32_t mi) const {
        uint32_t r = uint32_t(singleM_) - mi * baseM_;
        return r < baseM_ ? r : baseM_;
    }
    uint32_t ColsOf(uint32_t ni) const {
        uint32_t r = uint32_t(singleN_) - ni * baseN_;
        return r < baseN_ ? r : baseN_;
    }
    template <typename T>
    ao::k::MmSource<T> WithPitch(ao::k::MmSource<T> s, bool trans, int rowsIfNd, int colsIfNd) const {
        // ND: row pitch = stored columns; NZ: padded stored rows.
        if (!s.nz) s.ld = uint64_t(colsIfNd);
        else s.ld = ao::k::MmAlign(uint32_t(rowsIfNd), 16);
        (void)trans;
        return s;
    }

    void ComputeBlock(uint32_t mi, uint32_t ni, bool partial) {
        using P = ao::rt::Pipe;
        if (a_.ptr == nullptr && a_.gm) ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "Matmul: SetTensorA not called");
        if (b_.ptr == nullptr && b_.gm) ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "Matmul: SetTensorB not called");
        if constexpr (MM_CB::DataCopyOutPtr != nullptr)
            ao::rt::Fail(ao::rt::ErrorKind::Unsupported, "Matmul: a DataCopyOut callback is not emulated");
        const uint32_t m = RowsOf(mi), n = ColsOf(ni);
        const uint32_t K = uint32_t(singleK_);
        const uint32_t kTiles = Ceil(K, baseK_);
        // Stored shapes: A is [M, Ka] (or [Ka, M] transposed), B is [Kb, N] (or [N, Kb]).
        ao::k::MmSource<SrcAT> as = transA_ ? WithPitch(a_, true, orgKa_, orgM_) : WithPitch(a_, false, orgM_, orgKa_);
        ao::k::MmSource<SrcBT> bs = transB_ ? WithPitch(b_, true, orgN_, orgKb_) : WithPitch(b_, false, orgKb_, orgN_);
        LocalTensor<SrcAT> a1 = a1Buf_.template Get<SrcAT>();
        LocalTensor<SrcBT> b1 = b1Buf_.template Get<SrcBT>();
        LocalTensor<SrcAT> a2 = a2Buf_.template Get<SrcAT>();
        LocalTensor<SrcBT> b2 = b2Buf_.template Get<SrcBT>();
        LocalTensor<L0cT> c1 = c1Buf_.template Get<L0cT>()[uint32_t(cSlot_ * l0cElems_)];
        const uint64_t m0 = uint64_t(mi) * baseM_, n0 = uint64_t(ni) * baseN_;
        // Flag ids: 0-1 L1 full, 2-3 L1 free, 4-5 L0 full, 6-7 L0 free, 8-9 L0C ready, 10-11 L0C
        // free, 12 bias table free, 13-14 quant scale L1 free/full, 15 bias L1 free; 16 the C block
        // in the workspace written (GetTensorC()).
        flags_.Wait(10 + cSlot_);  // FIX done with this L0C buffer
        for (uint32_t kt0 = 0; kt0 < kTiles; kt0 += kbL1_) {
            const uint32_t s = l1Slot_;
            l1Slot_ = (l1Slot_ + 1) % nL1_;
            const uint32_t nk = kt0 + kbL1_ <= kTiles ? kbL1_ : kTiles - kt0;
            flags_.Wait(2 + s);  // MTE1 done reading this L1 buffer
            for (uint32_t j = 0; j < nk; ++j) {
                uint32_t kt = kt0 + j;
                uint32_t k = K - kt * baseK_ < baseK_ ? K - kt * baseK_ : baseK_;
                uint64_t k0 = uint64_t(kt) * baseK_;
                uint64_t offA = (uint64_t(s) * kbL1_ + j) * tileA_, offB = (uint64_t(s) * kbL1_ + j) * tileB_;
                if constexpr (MM_CB::CopyA1Ptr != nullptr) {
                    LocalTensor<int8_t> l = a1Buf_.template Get<int8_t>()[uint32_t(offA * sizeof(SrcAT))];
                    MM_CB::CopyA1Ptr(l, reinterpret_cast<const __gm__ void*>(a_.ptr), int(mi), int(kt), int(m), int(k),
                                     userTiling_, selfData_);
                } else if (transA_) {
                    ao::k::MmCopyToL1<SrcAT>(a1, offA, as, k0, m0, k, m);
                } else {
                    ao::k::MmCopyToL1<SrcAT>(a1, offA, as, m0, k0, m, k);
                }
                if constexpr (MM_CB::CopyB1Ptr != nullptr) {
                    LocalTensor<int8_t> l = b1Buf_.template Get<int8_t>()[uint32_t(offB * sizeof(SrcBT))];
                    MM_CB::CopyB1Ptr(l, reinterpret_cast<const __gm__ void*>(b_.ptr), int(kt), int(ni), int(k), int(n),
                                     userTiling_, selfData_);
                } else if (transB_) {
                    ao::k::MmCopyToL1<SrcBT>(b1, offB, bs, n0, k0, n, k);
                } else {
                    ao::k::MmCopyToL1<SrcBT>(b1, offB, bs, k0, n0, k, n);
                }
            }
            bool withBias = hasBias_ && kt0 == 0 && !partial;
            if (withBias) {
                flags_.Wait(15);  // MTE1 done reading the bias L1 buffer
                ao::k::MmVectorToL1<BiasT>(biasL1_.template Get<BiasT>(), bias_, n0, n);
            }
            flags_.Pass(P::MTE2, P::MTE1, 0 + s);
            if (withBias) {
                flags_.Wait(12);  // M done reading the bias table
                ao::k::MmBiasToBt<BiasT>(biasBt_.template Get<float>(), biasL1_.template Get<BiasT>(), n);
                flags_.Set(P::MTE1, P::MTE2, 15);
            }
            for (uint32_t j = 0; j < nk; ++j) {
                uint32_t kt = kt0 + j;
                uint32_t k = K - kt * baseK_ < baseK_ ? K - kt * baseK_ : baseK_;
                uint64_t offA = (uint64_t(s) * kbL1_ + j) * tileA_, offB = (uint64_t(s) * kbL1_ + j) * tileB_;
                const uint32_t q = l0Slot_;
                l0Slot_ = (l0Slot_ + 1) % nL0_;
                flags_.Wait(6 + q);  // M done reading this L0A/L0B buffer
                LocalTensor<SrcAT> aq = a2[uint32_t(q * l0aElems_)];
                LocalTensor<SrcBT> bq = b2[uint32_t(q * l0bElems_)];
                ao::k::MmLoadL0<SrcAT>(aq, a1, offA, true, transA_, m, k);
                ao::k::MmLoadL0<SrcBT>(bq, b1, offB, false, transB_, k, n);
                flags_.Pass(P::MTE1, P::M, 4 + q);
                MmadParams mp;
                mp.m = uint16_t(m);
                mp.n = uint16_t(n);
                mp.k = uint16_t(k);
                bool first = kt == 0 && !partial;
                mp.cmatrixInitVal = first;
                if (kt == 0 && withBias) {
                    mp.cmatrixSource = true;
                    mp.cmatrixInitVal = false;
                    Mmad(c1, aq, bq, biasBt_.template Get<float>(), mp);
                    flags_.Set(P::M, P::MTE1, 12);
                } else {
                    Mmad(c1, aq, bq, mp);
                }
                flags_.Set(P::M, P::MTE1, 6 + q);
            }
            flags_.Set(P::MTE1, P::MTE2, 2 + s);
        }
        flags_.Pass(P::M, P::FIX, 8 + cSlot_);
        outSlot_ = cSlot_;
        cSlot_ = (cSlot_ + 1) % nL0C_;
    }

    QuantMode_t QuantMode() const {
        if constexpr (std::is_same_v<L0cT, float>) {
            if constexpr (std::is_same_v<DstT, half>) return QuantMode_t::F322F16;
            else if constexpr (std::is_same_v<DstT, bfloat16_t>) return QuantMode_t::F322BF16;
            else if constexpr (std::is_same_v<DstT, int8_t> || std::is_same_v<DstT, uint8_t>)
                return quantVector_ ? QuantMode_t::VQF322B8_PRE : QuantMode_t::QF322B8_PRE;
            return QuantMode_t::NoQuant;
        } else {
            if constexpr (std::is_same_v<DstT, half>) return quantVector_ ? QuantMode_t::VDEQF16 : QuantMode_t::DEQF16;
            else if constexpr (std::is_same_v<DstT, int8_t> || std::is_same_v<DstT, uint8_t>)
                return quantVector_ ? QuantMode_t::VREQ8 : QuantMode_t::REQ8;
            return QuantMode_t::NoQuant;
        }
    }

    // Sequential write: the block alone, rows of its own width (a tail block's too), from `base`.
    void CopyOutGm(__gm__ DstT* base, uint32_t mi, uint32_t ni, uint8_t enAtomic, bool sequential) {
        using P = ao::rt::Pipe;
        const uint32_t m = RowsOf(mi), n = ColsOf(ni);
        LocalTensor<L0cT> c1 = c1Buf_.template Get<L0cT>()[uint32_t(outSlot_ * l0cElems_)];
        GlobalTensor<DstT> dst;
        FixpipeParamsV220 fp;
        fp.quantPre = QuantMode();
        fp.deqScalar = quantScalar_;
        fp.srcStride = uint16_t(ao::k::MmAlign(m, 16));
        bool nz = C_TYPE::format == CubeFormat::NZ;
        if (!nz) {
            uint64_t ld = sequential ? uint64_t(n) : uint64_t(orgKc_);
            dst.SetGlobalBuffer(base + (sequential ? 0 : uint64_t(mi) * baseM_ * ld + uint64_t(ni) * baseN_));
            fp.nSize = uint16_t(n);
            fp.mSize = uint16_t(m);
            fp.dstStride = uint32_t(ld);
        } else {
            uint64_t mp = sequential ? ao::k::MmAlign(baseM_, 16) : ao::k::MmAlign(uint32_t(orgM_), 16);
            dst.SetGlobalBuffer(base + (sequential ? 0 : uint64_t(ni) * baseN_ * mp + uint64_t(mi) * baseM_ * 16));
            fp.nSize = uint16_t(ao::k::MmAlign(n, 16));
            fp.mSize = uint16_t(ao::k::MmAlign(m, 16));
            fp.dstStride = uint32_t(mp * 16 * sizeof(DstT) / 32);
        }
        int savedMode = ao::rt::Cur().atomic_mode, savedType = ao::rt::Cur().atomic_dtype;
        if (enAtomic != 0) {
            ao::rt::Cur().atomic_mode = enAtomic;
            ao::rt::Cur().atomic_dtype = int(ao::rt::DTypeOf<DstT>());
        }
        if (quantVector_) {
            LocalTensor<uint64_t> q = quantL1_.template Get<uint64_t>();
            ao::k::MmSource<uint64_t> qs{quantGm_, true, false, 0, {}};
            flags_.Wait(13);
            ao::k::MmVectorToL1<uint64_t>(q, qs, uint64_t(ni) * baseN_, n);
            flags_.Pass(P::MTE2, P::FIX, 14);
            if (nz) Fixpipe<DstT, L0cT, CFG_NZ>(dst, c1, q, fp);
            else Fixpipe<DstT, L0cT, CFG_ROW_MAJOR>(dst, c1, q, fp);
            flags_.Set(P::FIX, P::MTE2, 13);
        } else {
            if (nz) Fixpipe<DstT, L0cT, CFG_NZ>(dst, c1, fp);
            else Fixpipe<DstT, L0cT, CFG_ROW_MAJOR>(dst, c1, fp);
        }
        ao::rt::Cur().atomic_mode = savedMode;
        ao::rt::Cur().atomic_dtype = savedType;
        flags_.Set(P::FIX, P::M, 10 + outSlot_);
    }

    void CopyOutUb(const LocalTensor<DstT>& ub, uint64_t off, uint64_t ld, uint32_t m, uint32_t n) {
        using P = ao::rt::Pipe;
        if (ub.Space() != ao::rt::Space::UB)
            ao::rt::Fail(ao::rt::ErrorKind::Unsupported, "Matmul: C output to %s is not emulated (GM and UB are)",
                         ao::rt::SpaceName(ub.Space()));
        // Synchronous: the kernel's earlier uses of the UB buffer end before, and its later
        // uses start after, the copy.
        ao::rt::Barrier(P::ALL);
        LocalTensor<L0cT> c1 = c1Buf_.template Get<L0cT>()[uint32_t(outSlot_ * l0cElems_)];
        ao::k::MmCopyOutUb<DstT, L0cT>(ub, off, ld, c1, m, n, QuantMode(), quantScalar_);
        flags_.Set(P::FIX, P::M, 10 + outSlot_);
        ao::rt::Barrier(P::ALL);
    }

    void Finish() {
        flags_.Drain();
        ao::rt::Barrier(ao::rt::Pipe::ALL);
    }

    TCubeTiling tiling_{};
    TPipe* pipe_ = nullptr;
    bool inited_ = false;
    bool noBase_ = false;  // Init was given a tiling without base sizes
    TBuf<TPosition::A1> a1Buf_;
    TBuf<TPosition::B1> b1Buf_;
    TBuf<TPosition::A2> a2Buf_;
    TBuf<TPosition::B2> b2Buf_;
    TBuf<TPosition::CO1> c1Buf_;
    TBuf<TPosition::A1> biasL1_;
    TBuf<TPosition::C2> biasBt_;
    TBuf<TPosition::A1> quantL1_;
    bool biasInited_ = false, quantBufInited_ = false;
    uint32_t baseM_ = 0, baseN_ = 0, baseK_ = 0;
    uint32_t kbL1_ = 1, nL1_ = 1, nL0_ = 1, nL0C_ = 1;
    uint64_t tileA_ = 0, tileB_ = 0, l0aElems_ = 0, l0bElems_ = 0, l0cElems_ = 0;
    uint32_t l1Slot_ = 0, l0Slot_ = 0, cSlot_ = 0, outSlot_ = 0;
    int orgM_ = 0, orgN_ = 0, orgKa_ = 0, orgKb_ = 0, orgKc_ = 0;
    int32_t batchA_ = 0, batchB_ = 0;  // SetBatchNum
    __gm__ uint8_t* ws_ = nullptr;      // SetWorkspace: where GetTensorC() caches a C block
    uint64_t wsBytes_ = 0;
    bool pending_ = false;              // Iterate computed a block no GetTensorC() fetched yet
    int singleM_ = 0, singleN_ = 0, singleK_ = 0;
    uint32_t iter_ = 0, curM_ = 0, curN_ = 0;
    ao::k::MmSource<SrcAT> a_;
    ao::k::MmSource<SrcBT> b_;
    ao::k::MmSource<BiasT> bias_;
    bool transA_ = false, transB_ = false, hasBias_ = false;
    uint64_t quantScalar_ = 0;
    const uint64_t* quantGm_ = nullptr;
    bool quantVector_ = false;
    uint64_t userTiling_ = 0, selfData_ = 0;
    uint8_t subBlockIdx_ = 0;
    ao::k::MmFlags flags_;
};

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const auto& MM_CFG = CFG_NORM,
          class MM_CB = MatmulCallBackFunc<nullptr, nullptr, nullptr>, class MATMUL_POLICY = MatmulPolicyDefault>
using Matmul = MatmulImpl<A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE, MM_CFG, MM_CB, MATMUL_POLICY>;

// REGIST_MATMUL_OBJ(pipe, workspace, obj1, tiling1, obj2, tiling2, ...): Init each object with
// its tiling (an object given without a tiling, or with a null one, only learns the pipe).
template <class T>
__aicore__ inline void AoRegistMatmul(TPipe* pipe, T& obj) {
    obj.AoSetPipe(pipe);
}
template <class T, class Tl, class... Rest>
__aicore__ inline void AoRegistMatmul(TPipe* pipe, T& obj, Tl* tiling, Rest&&... rest) {
    obj.AoSetPipe(pipe);
    obj.SetSubBlockIdx(0);
    if (tiling != nullptr) obj.Init(reinterpret_cast<const TCubeTiling*>(tiling), pipe);
    else obj.AoInitNoTiling(pipe);
    if constexpr (sizeof...(rest) > 0) AoRegistMatmul(pipe, rest...);
}
template <class T, class... Rest>
__aicore__ inline void AoRegistMatmul(TPipe* pipe, T& obj, std::nullptr_t, Rest&&... rest) {
    obj.SetSubBlockIdx(0);
    obj.AoInitNoTiling(pipe);
    if constexpr (sizeof...(rest) > 0) AoRegistMatmul(pipe, rest...);
}
template <class T, class U, class... Rest,
          typename std::enable_if<!std::is_pointer<std::decay_t<U>>::value, bool>::type = true>
__aicore__ inline void AoRegistMatmul(TPipe* pipe, T& obj, U& next, Rest&&... rest) {
    obj.AoSetPipe(pipe);
    AoRegistMatmul(pipe, next, rest...);
}

}  // namespace AscendC

namespace matmul = AscendC;

// A kernel with a Matmul object is MIX 1:2 unless ASCENDC_CUBE_ONLY is defined before
// lib/matmul_intf.h (which sets AO_MATMUL_KERNEL_TYPE). In a mixed launch the AIC only serves the
// AIVs' requests and leaves the enclosing function here, as the library's REGIST_MATMUL_OBJ does;
// the simulator computes each request on the AIV that makes it (core_role.h).
#ifndef AO_MATMUL_KERNEL_TYPE
#define AO_MATMUL_KERNEL_TYPE KERNEL_TYPE_MIX_AIC_1_2
#endif
#define REGIST_MATMUL_OBJ(tpipe, workspace, ...)                                                                   \
    (void)::ao::rt::KernelTypeDecl<0, int(AO_MATMUL_KERNEL_TYPE), ::ao::rt::KernelTypeSource::Inferred>::registered; \
    if (int(AO_MATMUL_KERNEL_TYPE) != int(KERNEL_TYPE_AIC_ONLY) && ::ao::rt::Cur().core_type == ::ao::rt::kCoreAic) \
        return;                                                                                                    \
    ::AscendC::AoRegistMatmul((tpipe), __VA_ARGS__)
#define REGIST_MATMUL_OBJ_STATIC REGIST_MATMUL_OBJ
#define REGIST_CUBE_OBJ REGIST_MATMUL_OBJ
