// AscendOptimizer simulator: cube path of an Atlas A2 (910B, __CCE_AICORE__ 220) AI core.
//
// Clean-room emulation written from the public AscendC API documentation:
//   DataCopy(..., Nd2NzParams)        GM/UB -> L1 (or UB) copy with ND -> NZ conversion
//   LoadData(..., LoadData2DParams)   L1 -> L0A/L0B fractal copy (optional 16x16 transpose), GM -> L1/L0
//   LoadDataWithTranspose(...)        L1 -> L0A/L0B square-block transpose (b8 / b16 / b32)
//   Mmad(..., MmadParams)             L0A x L0B -> L0C, with or without bias
//   Fixpipe(..., FixpipeParamsV220)   L0C -> GM (or L1), NZ -> ND conversion, quantisation, ReLU
//
// Data formats (element (r, c) of a matrix, C0 = 32 bytes / sizeof(T)):
//   L1 "NZ" (what Nd2Nz writes): fractals of 16 rows x C0 columns, row-major inside a fractal;
//       fractals of one column block are consecutive (column-major over fractals).
//   L0A "zZ": fractals 16 (m) x C0 (k), row-major inside, row-major over fractals:
//       A(m, k) at ((m/16) * kBlocks + k/C0) * 16*C0 + (m%16) * C0 + k%C0.
//   L0B "nZ": fractals C0 (k) x 16 (n), column-major inside, row-major over fractals:
//       B(k, n) at ((k/C0) * nBlocks + n/16) * 16*C0 + (n%16) * C0 + k%C0.
//   L0C "NZ": fractals 16 x 16, row-major inside, column-major over fractals:
//       C(m, n) at ((n/16) * mBlocks + m/16) * 256 + (m%16) * 16 + n%16.
// Header rules: no <cmath>/<cstdlib>; helpers are CamelCase in ao::k; every API issues an
// ao::rt::Instr (with bounds-checked ranges) before computing in program order.
#pragma once
#include "ascendopt_kernel/datacopy.h"

// Fixpipe quantisation modes (a global enum in AscendC as well).
enum class QuantMode_t : uint8_t {
    NoQuant = 0,
    F322F16,
    F322BF16,
    DEQF16,
    VDEQF16,
    QF322B8_PRE,
    VQF322B8_PRE,
    REQ8,
    VREQ8,
};

namespace AscendC {

using ::QuantMode_t;

// ---------------------------------------------------------------------------------------------
// Parameter structures (field names, types and constructor orders as documented).
struct Nd2NzParams {
    __aicore__ Nd2NzParams() = default;
    __aicore__ Nd2NzParams(uint16_t ndNumIn, uint16_t nValueIn, uint16_t dValueIn, uint16_t srcNdMatrixStrideIn,
                           uint16_t srcDValueIn, uint16_t dstNzC0StrideIn, uint16_t dstNzNStrideIn,
                           uint16_t dstNzMatrixStrideIn)
        : ndNum(ndNumIn), nValue(nValueIn), dValue(dValueIn), srcNdMatrixStride(srcNdMatrixStrideIn),
          srcDValue(srcDValueIn), dstNzC0Stride(dstNzC0StrideIn), dstNzNStride(dstNzNStrideIn),
          dstNzMatrixStride(dstNzMatrixStrideIn) {}
    uint16_t ndNum = 0;              // number of ND matrices
    uint16_t nValue = 0;             // rows of each ND matrix
    uint16_t dValue = 0;             // columns of each ND matrix (elements)
    uint16_t srcNdMatrixStride = 0;  // source distance between ND matrices (elements)
    uint16_t srcDValue = 0;          // source row pitch (elements)
    uint16_t dstNzC0Stride = 0;      // destination distance between column blocks (32 B units)
    uint16_t dstNzNStride = 0;       // destination distance between rows (32 B units)
    uint16_t dstNzMatrixStride = 0;  // destination distance between NZ matrices (elements)
};

struct LoadData2DParams {
    __aicore__ LoadData2DParams() {}
    __aicore__ LoadData2DParams(const uint16_t startIndexIn, const uint8_t repeatTimesIn, const uint16_t srcStrideIn,
                                const uint8_t sidIn, const uint16_t dstGapIn, const bool ifTransposeIn,
                                const uint8_t addrModeIn)
        : startIndex(startIndexIn), dstGap(dstGapIn), srcStride(srcStrideIn), ifTranspose(ifTransposeIn),
          repeatTimes(repeatTimesIn), sid(sidIn), addrMode(addrModeIn) {}
    uint16_t startIndex = 0;   // first source fractal (512 B units)
    uint16_t dstGap = 0;       // destination gap between fractals, end to start (512 B units)
    uint16_t srcStride = 0;    // source distance between fractals, start to start (512 B units)
    bool ifTranspose = false;  // transpose every 16x16 fractal (16-bit types, L1 -> L0 only)
    uint8_t repeatTimes = 0;   // fractals to move
    uint8_t sid = 0;
    uint8_t addrMode = 0;
};
using LoadData2dParams = LoadData2DParams;

struct LoadData2dTransposeParams {
    __aicore__ LoadData2dTransposeParams() {}
    __aicore__ LoadData2dTransposeParams(const uint16_t startIndexIn, const uint8_t repeatTimesIn,
                                         const uint16_t srcStrideIn, const uint16_t dstGapIn,
                                         const uint16_t dstFracGapIn, const uint8_t addrModeIn)
        : startIndex(startIndexIn), repeatTimes(repeatTimesIn), srcStride(srcStrideIn), dstGap(dstGapIn),
          dstFracGap(dstFracGapIn), addrMode(addrModeIn) {}
    __aicore__ LoadData2dTransposeParams(const uint16_t startIndexIn, const uint8_t repeatTimesIn,
                                         const uint16_t srcStrideIn, const uint16_t dstGapIn,
                                         const uint16_t dstFracGapIn)
        : startIndex(startIndexIn), repeatTimes(repeatTimesIn), srcStride(srcStrideIn), dstGap(dstGapIn),
          dstFracGap(dstFracGapIn) {}
    uint16_t startIndex = 0;  // first source square block
    uint8_t repeatTimes = 0;  // square blocks to transpose
    uint16_t srcStride = 0;   // source distance between square blocks (square-block units)
    uint16_t dstGap = 0;      // destination gap after the first fractal of an iteration (512 B units)
    uint16_t dstFracGap = 0;  // destination gap between the fractals of one iteration (512 B units)
    uint8_t addrMode = 0;
};

struct MmadParams {
    __aicore__ MmadParams() {}
    __aicore__ MmadParams(const uint16_t mIn, const uint16_t nIn, const uint16_t kIn, const bool isBiasIn,
                          const int32_t fmOffsetIn, const bool enSsparseIn, const bool enWinogradAIn,
                          const bool enWinogradBIn)
        : m(mIn), n(nIn), k(kIn), isBias(isBiasIn), fmOffset(fmOffsetIn), enSsparse(enSsparseIn),
          enWinogradA(enWinogradAIn), enWinogradB(enWinogradBIn) {}
    __aicore__ MmadParams(const uint16_t mIn, const uint16_t nIn, const uint16_t kIn, const uint8_t unitFlagIn,
                          const bool cmatrixSourceIn, const bool cmatrixInitValIn)
        : m(mIn), n(nIn), k(kIn), unitFlag(unitFlagIn), cmatrixSource(cmatrixSourceIn),
          cmatrixInitVal(cmatrixInitValIn) {}
    uint16_t m = 0;
    uint16_t n = 0;
    uint16_t k = 0;
    bool isBias = false;          // deprecated: true accumulates into C (C += A*B)
    int32_t fmOffset = 0;
    bool enSsparse = false;
    bool enWinogradA = false;
    bool enWinogradB = false;
    uint8_t unitFlag = 0;
    bool kDirectionAlign = false;
    bool cmatrixSource = false;   // initial C from the bias table (C2) instead of CO1
    bool cmatrixInitVal = true;   // true: C = A*B; false: C = initial C + A*B
};

template <typename T>
struct InitConstValueParams {
    __aicore__ InitConstValueParams() {}
    __aicore__ InitConstValueParams(const uint16_t repeatTimesIn, const uint16_t blockNumIn, const uint16_t dstGapIn,
                                    const T initValueIn)
        : repeatTimes(repeatTimesIn), blockNum(blockNumIn), dstGap(dstGapIn), initValue(initValueIn) {}
    __aicore__ InitConstValueParams(const uint16_t repeatTimesIn, const T initValueIn)
        : repeatTimes(repeatTimesIn), initValue(initValueIn) {}
    uint16_t repeatTimes = 0;
    uint16_t blockNum = 0;
    uint16_t dstGap = 0;
    T initValue = T(0);
};

// Load3Dv2 (img2col) parameters. Only the matmul use is emulated: 1x1 filter, stride 1,
// dilation 1, no padding, enTranspose = false (L1 NC1HWC0 / NZ -> L0A/L0B zZ).
template <typename T>
struct LoadData3DParamsV2 {
    __aicore__ LoadData3DParamsV2() {
        for (int i = 0; i < 4; ++i) padList[i] = 0;
    }
    uint8_t padList[4] = {0, 0, 0, 0};
    uint16_t l1H = 0;
    uint16_t l1W = 0;
    uint16_t channelSize = 0;
    uint16_t kExtension = 0;
    uint16_t mExtension = 0;
    uint16_t kStartPt = 0;
    uint16_t mStartPt = 0;
    uint8_t strideW = 1;
    uint8_t strideH = 1;
    uint8_t filterW = 1;
    uint8_t filterH = 1;
    uint8_t dilationFilterW = 1;
    uint8_t dilationFilterH = 1;
    bool enTranspose = false;
    bool enSmallK = false;
    T padValue = T(0);
    bool filterSizeW = false;
    bool filterSizeH = false;
    bool fMatrixCtrl = false;
};

enum class CO2Layout : uint8_t { NZ = 0, ROW_MAJOR, COLUMN_MAJOR };
struct FixpipeConfig {
    CO2Layout format;
};
inline constexpr FixpipeConfig CFG_NZ = {CO2Layout::NZ};
inline constexpr FixpipeConfig CFG_ROW_MAJOR = {CO2Layout::ROW_MAJOR};
inline constexpr FixpipeConfig CFG_COLUMN_MAJOR = {CO2Layout::COLUMN_MAJOR};

struct FixpipeParamsV220 {
    __aicore__ FixpipeParamsV220() {}
    __aicore__ FixpipeParamsV220(const uint16_t nSizeIn, const uint16_t mSizeIn, const uint16_t srcStrideIn,
                                 const uint32_t dstStrideIn, const bool reluEnIn)
        : nSize(nSizeIn), mSize(mSizeIn), srcStride(srcStrideIn), dstStride(dstStrideIn), reluEn(reluEnIn) {}
    __aicore__ FixpipeParamsV220(const uint16_t nSizeIn, const uint16_t mSizeIn, const uint16_t srcStrideIn,
                                 const uint32_t dstStrideIn, const bool reluEnIn, const QuantMode_t quantPreIn,
                                 const int64_t deqScalarIn, const uint16_t ndNumIn, const uint16_t srcNdStrideIn,
                                 const uint16_t dstNdStrideIn, const uint8_t unitFlagIn)
        : nSize(nSizeIn), mSize(mSizeIn), srcStride(srcStrideIn), dstStride(dstStrideIn), reluEn(reluEnIn),
          quantPre(quantPreIn), deqScalar(uint64_t(deqScalarIn)), ndNum(ndNumIn), srcNdStride(srcNdStrideIn),
          dstNdStride(dstNdStrideIn), unitFlag(unitFlagIn) {}
    uint16_t nSize = 0;        // N extent of the source NZ matrix (elements)
    uint16_t mSize = 0;        // M extent of the source NZ matrix (elements)
    uint16_t srcStride = 0;    // source distance between Z columns (units of 16 elements)
    uint32_t dstStride = 0;    // ND: destination row pitch (elements); NZ: between Z columns (32 B units)
    bool reluEn = false;
    QuantMode_t quantPre = QuantMode_t::NoQuant;
    uint64_t deqScalar = 0;    // scalar quantisation scale (fp32 bits in the low 32 bits)
    uint16_t ndNum = 1;        // number of NZ matrices
    uint16_t srcNdStride = 0;  // source distance between NZ matrices (1024 B units)
    uint16_t dstNdStride = 0;  // destination distance between ND matrices (elements)
    uint8_t unitFlag = 0;
    bool isChannelSplit = false;
};

}  // namespace AscendC

// ---------------------------------------------------------------------------------------------
// Implementation helpers.
namespace ao::k {

using namespace AscendC;

constexpr uint64_t kFractalBytes = 512;

template <typename T>
constexpr uint32_t CubeC0() { return uint32_t(32 / sizeof(T)); }

template <typename T>
inline void CheckLocalAlignedTo(const LocalTensor<T>& t, uint64_t align, const char* what, const char* role) {
    if (t.off_ % align != 0)
        ao::rt::Fail(ao::rt::ErrorKind::Misaligned, "%s: %s address %llu in %s is not %llu-byte aligned", what, role,
                     (unsigned long long)t.off_, ao::rt::SpaceName(t.Space()), (unsigned long long)align);
}

template <typename T>
inline void CheckSpace(const LocalTensor<T>& t, ao::rt::Space want, const char* what, const char* role) {
    if (t.Space() != want)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: %s must be in %s, got a tensor in %s", what, role,
                     ao::rt::SpaceName(want), ao::rt::SpaceName(t.Space()));
}

// ND -> NZ element movement from a host pointer `src` into `dst` (already checked).
template <typename T>
void Nd2NzMove(const LocalTensor<T>& dst, const T* src, const Nd2NzParams& p) {
    constexpr uint32_t c0 = CubeC0<T>();
    uint32_t dBlocks = (uint32_t(p.dValue) + c0 - 1) / c0;
    T* d = dst.Data();
    for (uint32_t i = 0; i < p.ndNum; ++i) {
        const T* sm = src + uint64_t(i) * p.srcNdMatrixStride;
        T* dm = d + uint64_t(i) * p.dstNzMatrixStride;
        for (uint32_t r = 0; r < p.nValue; ++r) {
            const T* srow = sm + uint64_t(r) * p.srcDValue;
            T* drow = dm + uint64_t(r) * p.dstNzNStride * c0;
            for (uint32_t c = 0; c < dBlocks; ++c) {
                T* blk = drow + uint64_t(c) * p.dstNzC0Stride * c0;
                uint32_t valid = p.dValue - c * c0;
                if (valid > c0) valid = c0;
                std::memcpy(blk, srow + uint64_t(c) * c0, uint64_t(valid) * sizeof(T));
                if (valid < c0) std::memset(static_cast<void*>(blk + valid), 0, uint64_t(c0 - valid) * sizeof(T));  // zero pad
            }
        }
    }
}

// Validates Nd2NzParams and returns the number of destination bytes touched and source elements spanned.
template <typename T>
bool Nd2NzExtent(const char* what, const Nd2NzParams& p, uint64_t& dstBytes, uint64_t& srcElems) {
    constexpr uint32_t c0 = CubeC0<T>();
    if (p.ndNum > 4095 || p.nValue > 16384)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: ndNum %u (max 4095) or nValue %u (max 16384) out of range",
                     what, unsigned(p.ndNum), unsigned(p.nValue));
    if (p.ndNum == 0 || p.nValue == 0 || p.dValue == 0) return false;
    uint32_t dBlocks = (uint32_t(p.dValue) + c0 - 1) / c0;
    if (p.nValue > 1 && p.srcDValue == 0)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: srcDValue must be in [1, 65535]", what);
    if (dBlocks > 1 && (p.dstNzC0Stride == 0 || p.dstNzC0Stride > 16384))
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: dstNzC0Stride %u not in [1, 16384]", what,
                     unsigned(p.dstNzC0Stride));
    if (p.nValue > 1 && (p.dstNzNStride == 0 || p.dstNzNStride > 16384))
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: dstNzNStride %u not in [1, 16384]", what,
                     unsigned(p.dstNzNStride));
    if (p.ndNum > 1 && p.dstNzMatrixStride == 0)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: dstNzMatrixStride must be in [1, 65535] when ndNum > 1",
                     what);
    uint64_t dEnd = uint64_t(p.ndNum - 1) * p.dstNzMatrixStride + uint64_t(p.nValue - 1) * p.dstNzNStride * c0 +
                    uint64_t(dBlocks - 1) * p.dstNzC0Stride * c0 + c0;
    dstBytes = dEnd * sizeof(T);
    srcElems = uint64_t(p.ndNum - 1) * p.srcNdMatrixStride + uint64_t(p.nValue - 1) * p.srcDValue + p.dValue;
    return true;
}

// Element conversion helpers for Fixpipe.
inline float AoDeqScale(uint64_t deq) {
    uint32_t bits = uint32_t(deq & 0xffffffffu) & ~uint32_t(0x1fff);  // the hardware keeps 10 mantissa bits
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

template <typename T>
inline T AoSaturateInt(float v) {
    float r = __builtin_nearbyintf(v);
    float lo = std::is_same_v<T, uint8_t> ? 0.0f : -128.0f;
    float hi = std::is_same_v<T, uint8_t> ? 255.0f : 127.0f;
    if (!(r == r)) r = 0.0f;
    if (r < lo) r = lo;
    if (r > hi) r = hi;
    return T(int(r));
}

// Converts one L0C element to the destination type under quantisation mode `mode`.
template <typename T, typename U>
inline T AoFixConvert(U v, bool relu, QuantMode_t mode, float scale) {
    if (relu && v <= U(0)) v = U(0);  // ReLU (-0 becomes +0)
    if constexpr (std::is_same_v<U, float>) {
        if (mode == QuantMode_t::F322F16) {
            if constexpr (std::is_same_v<T, half>) return T(v);
        } else if (mode == QuantMode_t::F322BF16) {
            if constexpr (std::is_same_v<T, bfloat16_t>) return bfloat16_t(v);
        } else if (mode == QuantMode_t::QF322B8_PRE || mode == QuantMode_t::VQF322B8_PRE) {
            if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>) return AoSaturateInt<T>(v * scale);
        } else if (mode == QuantMode_t::NoQuant) {
            if constexpr (std::is_same_v<T, float>) return v;
        }
    } else {
        if (mode == QuantMode_t::DEQF16 || mode == QuantMode_t::VDEQF16) {
            if constexpr (std::is_same_v<T, half>) return T(float(v) * scale);
        } else if (mode == QuantMode_t::REQ8 || mode == QuantMode_t::VREQ8) {
            if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>)
                return AoSaturateInt<T>(float(v) * scale);
        } else if (mode == QuantMode_t::NoQuant) {
            if constexpr (std::is_same_v<T, int32_t>) return v;
        }
    }
    return T();  // unreachable: AoFixCheckTypes rejects every other combination first
}

template <typename T, typename U>
inline void AoFixCheckTypes(const char* what, QuantMode_t mode, bool haveVectorScale) {
    bool ok = false;
    constexpr bool i8 = std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>;
    if constexpr (std::is_same_v<U, float>) {
        ok = (mode == QuantMode_t::NoQuant && std::is_same_v<T, float>) ||
             (mode == QuantMode_t::F322F16 && std::is_same_v<T, half>) ||
             (mode == QuantMode_t::F322BF16 && std::is_same_v<T, bfloat16_t>) ||
             (mode == QuantMode_t::QF322B8_PRE && i8) || (mode == QuantMode_t::VQF322B8_PRE && i8);
    } else if constexpr (std::is_same_v<U, int32_t>) {
        ok = (mode == QuantMode_t::NoQuant && std::is_same_v<T, int32_t>) ||
             (mode == QuantMode_t::DEQF16 && std::is_same_v<T, half>) ||
             (mode == QuantMode_t::VDEQF16 && std::is_same_v<T, half>) || (mode == QuantMode_t::REQ8 && i8) ||
             (mode == QuantMode_t::VREQ8 && i8);
    } else {
        ao::rt::Fail(ao::rt::ErrorKind::Unsupported, "%s: the L0C source must be float or int32_t", what);
    }
    if (!ok)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument,
                     "%s: quantPre mode %d cannot convert a %u-byte L0C element to a %u-byte destination element", what,
                     int(mode), unsigned(sizeof(U)), unsigned(sizeof(T)));
    bool vec = mode == QuantMode_t::VDEQF16 || mode == QuantMode_t::VQF322B8_PRE || mode == QuantMode_t::VREQ8;
    if (vec && !haveVectorScale)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument,
                     "%s: tensor quantisation (quantPre %d) needs the Fixpipe form with a cbufWorkspace tensor", what,
                     int(mode));
}

// Fixpipe geometry: returns false when there is nothing to do.
struct AoFixGeom {
    uint64_t srcEnd = 0;  // source elements touched (exclusive end)
    uint64_t dstEnd = 0;  // destination elements touched (exclusive end)
    uint32_t nd = 1;
    uint64_t srcNdElems = 0;
};

template <typename T, typename U>
bool AoFixGeometry(const char* what, const FixpipeParamsV220& p, CO2Layout fmt, AoFixGeom& g) {
    if (fmt == CO2Layout::COLUMN_MAJOR)
        ao::rt::Fail(ao::rt::ErrorKind::Unsupported, "%s: CFG_COLUMN_MAJOR is not available on Atlas A2 (220)", what);
    if (p.isChannelSplit)
        ao::rt::Fail(ao::rt::ErrorKind::Unsupported, "%s: isChannelSplit is not emulated", what);
    if (p.nSize == 0 || p.mSize == 0 || p.ndNum == 0) return false;
    if (p.nSize > 4095)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: nSize %u not in [1, 4095]", what, unsigned(p.nSize));
    if (fmt == CO2Layout::ROW_MAJOR) {
        if (p.mSize > 8192)
            ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: mSize %u not in [1, 8192] with NZ2ND", what,
                         unsigned(p.mSize));
        if (p.dstStride == 0)
            ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: dstStride (destination row length) must not be 0",
                         what);
        if (p.ndNum > 1 && (p.srcNdStride == 0 || p.dstNdStride == 0))
            ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument,
                         "%s: srcNdStride and dstNdStride must be >= 1 when ndNum > 1", what);
    } else {
        if (p.nSize % 16 != 0)
            ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument,
                         "%s: nSize %u must be a multiple of 16 without NZ2ND (CFG_NZ)", what, unsigned(p.nSize));
        if (p.dstStride == 0)
            ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: dstStride must not be 0", what);
    }
    uint32_t nd = fmt == CO2Layout::ROW_MAJOR ? p.ndNum : 1;
    uint32_t nB = (uint32_t(p.nSize) + 15) / 16;
    uint32_t lastW = (uint32_t(p.nSize) - 1) % 16 + 1;
    g.nd = nd;
    g.srcNdElems = uint64_t(p.srcNdStride) * 1024 / sizeof(U);
    g.srcEnd = uint64_t(nd - 1) * g.srcNdElems + uint64_t(nB - 1) * p.srcStride * 16 + uint64_t(p.mSize - 1) * 16 + lastW;
    if (fmt == CO2Layout::ROW_MAJOR)
        g.dstEnd = uint64_t(nd - 1) * p.dstNdStride + uint64_t(p.mSize - 1) * p.dstStride + p.nSize;
    else
        g.dstEnd = uint64_t(nB - 1) * p.dstStride * (32 / sizeof(T)) + uint64_t(p.mSize - 1) * 16 + 16;
    return true;
}

// Performs the conversion into a flat destination buffer `d` (host pointer), one row at a time
// through `store(dstPtr, rowBuf, bytes)`.
template <typename T, typename U, typename Store>
void AoFixMove(const LocalTensor<U>& src, T* d, const FixpipeParamsV220& p, CO2Layout fmt, const AoFixGeom& g,
               const uint64_t* vecScale, Store store) {
    const U* s = src.Data();
    float scale = AoDeqScale(p.deqScalar);
    T* row = new T[p.nSize];
    for (uint32_t i = 0; i < g.nd; ++i) {
        const U* sm = s + uint64_t(i) * g.srcNdElems;
        for (uint32_t m = 0; m < p.mSize; ++m) {
            for (uint32_t n = 0; n < p.nSize; ++n) {
                U v = sm[uint64_t(n / 16) * p.srcStride * 16 + uint64_t(m) * 16 + n % 16];
                float sc = vecScale != nullptr ? AoDeqScale(vecScale[n]) : scale;
                row[n] = AoFixConvert<T, U>(v, p.reluEn, p.quantPre, sc);
            }
            if (fmt == CO2Layout::ROW_MAJOR) {
                store(d + uint64_t(i) * p.dstNdStride + uint64_t(m) * p.dstStride, row, uint64_t(p.nSize) * sizeof(T));
            } else {
                for (uint32_t nb = 0; nb < p.nSize / 16u; ++nb)
                    store(d + uint64_t(nb) * p.dstStride * (32 / sizeof(T)) + uint64_t(m) * 16, row + nb * 16,
                          16 * sizeof(T));
            }
        }
    }
    delete[] row;
}

template <typename T, typename U, typename S, typename V>
void MmadImpl(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
              const LocalTensor<V>* bias, const MmadParams& p) {
    const char* what = "Mmad";
    static_assert(std::is_same_v<U, S>, "Mmad: the left and right matrices must have the same type");
    constexpr bool okTypes = (std::is_same_v<U, half> && std::is_same_v<T, float>) ||
                             (std::is_same_v<U, bfloat16_t> && std::is_same_v<T, float>) ||
                             (std::is_same_v<U, float> && std::is_same_v<T, float>) ||
                             (std::is_same_v<U, int8_t> && std::is_same_v<T, int32_t>);
    if constexpr (!okTypes) {
        ao::rt::Fail(ao::rt::ErrorKind::Unsupported,
                     "Mmad: dtype combination (%u-byte inputs -> %u-byte output) is not supported on Atlas A2 "
                     "(int8->int32, half->float, bfloat16->float, float->float)",
                     unsigned(sizeof(U)), unsigned(sizeof(T)));
    } else {
        CheckSpace(dst, ao::rt::Space::L0C, what, "dst (CO1)");
        CheckSpace(fm, ao::rt::Space::L0A, what, "fm (A2)");
        CheckSpace(filter, ao::rt::Space::L0B, what, "filter (B2)");
        CheckLocalAlignedTo(dst, 256 * sizeof(T), what, "dst");
        CheckLocalAlignedTo(fm, 512, what, "fm");
        CheckLocalAlignedTo(filter, 512, what, "filter");
        if (p.m > 4095 || p.n > 4095 || p.k > 4095)
            ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "Mmad: m %u, n %u, k %u must each be in [0, 4095]",
                         unsigned(p.m), unsigned(p.n), unsigned(p.k));
        if (p.m == 0 || p.n == 0 || p.k == 0) return;
        bool accumulate = !p.cmatrixInitVal || p.isBias;
        bool fromBiasTable = false;
        if (bias != nullptr) {
            if (bias->Space() == ao::rt::Space::BT) fromBiasTable = true;
            else if (bias->Space() != ao::rt::Space::L0C)
                ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "Mmad: bias must be in C2 (bias table) or CO1");
            CheckLocalAlignedTo(*bias, 128, what, "bias");
        } else if (accumulate && p.cmatrixSource) {
            ao::rt::Fail(ao::rt::ErrorKind::Unsupported,
                         "Mmad: cmatrixSource=true (initial C from C2) needs the Mmad form with a bias tensor");
        }
        constexpr uint32_t c0 = CubeC0<U>();
        constexpr uint32_t frac = 16 * c0;
        const uint32_t mB = (p.m + 15u) / 16u, nB = (p.n + 15u) / 16u, kB = (p.k + c0 - 1) / c0;
        ao::rt::Instr ins;
        ins.name = "Mmad";
        ins.pipe = ao::rt::Pipe::M;
        ins.cls = ao::rt::OpClass::CubeMmad;
        ins.dtype_bytes = sizeof(U);
        ins.repeats = mB * nB * kB;
        ins.elems = uint64_t(p.m) * p.n * p.k;
        uint64_t cBytes = uint64_t(mB) * nB * 256 * sizeof(T);
        ins.Add(dst.RangeBytes(0, cBytes, true, what));
        ins.Add(fm.RangeBytes(0, uint64_t(mB) * kB * kFractalBytes, false, what));
        ins.Add(filter.RangeBytes(0, uint64_t(kB) * nB * kFractalBytes, false, what));
        if (bias != nullptr) {
            if (fromBiasTable) ins.Add(bias->RangeBytes(0, uint64_t(p.n) * sizeof(V), false, what));
            else ins.Add(bias->RangeBytes(0, cBytes, false, what));
        }
        ao::rt::Issue(ins);

        // Widen the operands once (fractal layouts kept), then multiply fractal rows by columns.
        using Acc = std::conditional_t<std::is_same_v<T, int32_t>, int64_t, double>;
        using W = std::conditional_t<std::is_same_v<T, int32_t>, int32_t, float>;
        const uint64_t aN = uint64_t(mB) * kB * frac, bN = uint64_t(kB) * nB * frac;
        W* a = new W[aN];
        W* b = new W[bN];
        const U* fa = fm.Data();
        const S* fb = filter.Data();
        for (uint64_t i = 0; i < aN; ++i) a[i] = W(fa[i]);
        for (uint64_t i = 0; i < bN; ++i) b[i] = W(fb[i]);
        T* c = dst.Data();
        const V* bv = bias != nullptr ? bias->Data() : nullptr;
        for (uint32_t nb = 0; nb < nB; ++nb) {
            for (uint32_t mb = 0; mb < mB; ++mb) {
                T* cf = c + (uint64_t(nb) * mB + mb) * 256;
                for (uint32_t mi = 0; mi < 16; ++mi) {
                    for (uint32_t ni = 0; ni < 16; ++ni) {
                        uint64_t ci = uint64_t(mi) * 16 + ni;
                        T acc;
                        if (bias != nullptr) {
                            acc = fromBiasTable ? T(bv[uint64_t(nb) * 16 + ni])
                                                : T(bv[(uint64_t(nb) * mB + mb) * 256 + ci]);
                        } else {
                            acc = accumulate ? cf[ci] : T(0);
                        }
                        for (uint32_t kb = 0; kb < kB; ++kb) {
                            uint32_t kk = p.k - kb * c0;
                            if (kk > c0) kk = c0;
                            const W* ar = a + (uint64_t(mb) * kB + kb) * frac + uint64_t(mi) * c0;
                            const W* bc = b + (uint64_t(kb) * nB + nb) * frac + uint64_t(ni) * c0;
                            Acc s = 0;
                            for (uint32_t j = 0; j < kk; ++j) s += Acc(ar[j]) * Acc(bc[j]);
                            // one rounding to the accumulator type per K0 block of the cube unit
                            if constexpr (std::is_same_v<T, int32_t>) acc = T(uint32_t(int64_t(acc) + s));
                            else acc = T(Acc(acc) + s);
                        }
                        cf[ci] = acc;
                    }
                }
            }
        }
        delete[] a;
        delete[] b;
    }
}

}  // namespace ao::k

namespace AscendC {

// ---------------------------------------------------------------------------------------------
// DataCopy with ND -> NZ conversion.
template <typename T>
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const Nd2NzParams& p) {
    const char* what = "DataCopy(Nd2Nz)";
    ao::k::CheckLocalAligned(dst, what);
    uint64_t dstBytes = 0, srcElems = 0;
    if (!ao::k::Nd2NzExtent<T>(what, p, dstBytes, srcElems)) return;
    ao::rt::CheckGm(src.addr_, srcElems * sizeof(T), what, false);
    ao::rt::Instr ins;
    ins.name = "DataCopy";
    ins.pipe = ao::rt::Pipe::MTE2;
    ins.cls = ao::rt::OpClass::CopyIn;
    ins.dtype_bytes = sizeof(T);
    ins.elems = uint64_t(p.ndNum) * p.nValue * p.dValue;
    ins.bytes = ins.elems * sizeof(T);
    ins.bursts = uint32_t(p.ndNum) * p.nValue;
    ins.burst_bytes = uint64_t(p.dValue) * sizeof(T);
    ins.gm_addr = reinterpret_cast<uint64_t>(src.addr_);
    ins.l2_policy = src.L2Policy();
    ins.Add(dst.RangeBytes(0, dstBytes, true, what));
    ins.Add({ao::rt::Space::GM, ins.gm_addr, ins.gm_addr + srcElems * sizeof(T), false});
    ao::rt::Issue(ins);
    ao::k::Nd2NzMove(dst, ao::rt::GmData(src.addr_), p);
}

// UB -> L1 (TSCM) with ND -> NZ conversion.
template <typename T>
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const Nd2NzParams& p) {
    const char* what = "DataCopy(Nd2Nz, local)";
    ao::k::CheckLocalAligned(dst, what);
    ao::k::CheckLocalAligned(src, what);
    if (src.Space() != ao::rt::Space::UB || dst.Space() != ao::rt::Space::L1)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: only UB -> L1 (TSCM) is supported, got %s -> %s", what,
                     ao::rt::SpaceName(src.Space()), ao::rt::SpaceName(dst.Space()));
    uint64_t dstBytes = 0, srcElems = 0;
    if (!ao::k::Nd2NzExtent<T>(what, p, dstBytes, srcElems)) return;
    ao::rt::Instr ins;
    ins.name = "DataCopy";
    ins.pipe = ao::k::LocalCopyPipe(dst.Space(), src.Space());
    ins.cls = ao::rt::OpClass::CopyLocal;
    ins.dtype_bytes = sizeof(T);
    ins.elems = uint64_t(p.ndNum) * p.nValue * p.dValue;
    ins.bytes = ins.elems * sizeof(T);
    ins.bursts = uint32_t(p.ndNum) * p.nValue;
    ins.burst_bytes = uint64_t(p.dValue) * sizeof(T);
    ins.Add(dst.RangeBytes(0, dstBytes, true, what));
    ins.Add(src.Range(0, srcElems, false, what));
    ao::rt::Issue(ins);
    ao::k::Nd2NzMove(dst, src.Data(), p);
}

// ---------------------------------------------------------------------------------------------
// LoadData (2D): moves `repeatTimes` fractals of 512 B.
template <typename T>
__aicore__ inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2DParams& p) {
    const char* what = "LoadData(2D)";
    using ao::rt::Space;
    if (src.Space() != Space::L1 || (dst.Space() != Space::L0A && dst.Space() != Space::L0B))
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument,
                     "%s: supported local paths are A1 -> A2 and B1 -> B2 (L1 -> L0A/L0B), got %s -> %s", what,
                     ao::rt::SpaceName(src.Space()), ao::rt::SpaceName(dst.Space()));
    if (p.ifTranspose && sizeof(T) != 2)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument,
                     "%s: ifTranspose supports only 16-bit types (half/int16/uint16), got %u-byte elements "
                     "(use LoadDataWithTranspose)",
                     what, unsigned(sizeof(T)));
    ao::k::CheckLocalAlignedTo(dst, 512, what, "dst");
    ao::k::CheckLocalAlignedTo(src, 32, what, "src");
    if (p.repeatTimes == 0) return;
    const uint64_t fb = ao::k::kFractalBytes;
    uint64_t rep = p.repeatTimes;
    uint64_t srcBegin = uint64_t(p.startIndex) * fb;
    uint64_t srcEnd = (uint64_t(p.startIndex) + (rep - 1) * p.srcStride) * fb + fb;
    uint64_t dstEnd = (rep - 1) * (1 + uint64_t(p.dstGap)) * fb + fb;
    ao::rt::Instr ins;
    ins.name = "LoadData";
    ins.pipe = ao::rt::Pipe::MTE1;
    ins.cls = ao::rt::OpClass::CubeLoad;
    ins.dtype_bytes = sizeof(T);
    ins.repeats = uint32_t(rep);
    ins.elems = rep * fb / sizeof(T);
    ins.bytes = rep * fb;
    ins.bursts = uint32_t(rep);
    ins.burst_bytes = fb;
    ins.Add(dst.RangeBytes(0, dstEnd, true, what));
    ins.Add(src.RangeBytes(srcBegin, srcEnd - srcBegin, false, what));
    ao::rt::Issue(ins);
    uint8_t* d = reinterpret_cast<uint8_t*>(dst.Data());
    const uint8_t* s = reinterpret_cast<const uint8_t*>(src.Data());
    for (uint64_t i = 0; i < rep; ++i) {
        const uint8_t* sf = s + (uint64_t(p.startIndex) + i * p.srcStride) * fb;
        uint8_t* df = d + i * (1 + uint64_t(p.dstGap)) * fb;
        if (!p.ifTranspose) {
            std::memcpy(df, sf, fb);
        } else {
            const uint16_t* s16 = reinterpret_cast<const uint16_t*>(sf);
            uint16_t* d16 = reinterpret_cast<uint16_t*>(df);
            for (int r = 0; r < 16; ++r)
                for (int c = 0; c < 16; ++c) d16[c * 16 + r] = s16[r * 16 + c];
        }
    }
}

// LoadData (2D) from GM: GM -> A1/B1/A2/B2, fractal by fractal.
template <typename T>
__aicore__ inline void LoadData(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const LoadData2DParams& p) {
    const char* what = "LoadData(2D, GM)";
    using ao::rt::Space;
    if (dst.Space() != Space::L1 && dst.Space() != Space::L0A && dst.Space() != Space::L0B)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: destination must be A1/B1/A2/B2, got %s", what,
                     ao::rt::SpaceName(dst.Space()));
    if (p.ifTranspose)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: ifTranspose is only available on A1->A2 / B1->B2",
                     what);
    ao::k::CheckLocalAlignedTo(dst, dst.Space() == Space::L1 ? 32 : 512, what, "dst");
    if (p.repeatTimes == 0) return;
    const uint64_t fb = ao::k::kFractalBytes;
    uint64_t rep = p.repeatTimes;
    const uint8_t* g = reinterpret_cast<const uint8_t*>(src.addr_);
    uint64_t srcBegin = uint64_t(p.startIndex) * fb;
    uint64_t srcEnd = (uint64_t(p.startIndex) + (rep - 1) * p.srcStride) * fb + fb;
    ao::rt::CheckGm(g + srcBegin, srcEnd - srcBegin, what, false);
    uint64_t dstEnd = (rep - 1) * (1 + uint64_t(p.dstGap)) * fb + fb;
    ao::rt::Instr ins;
    ins.name = "LoadData";
    ins.pipe = ao::rt::Pipe::MTE2;
    ins.cls = ao::rt::OpClass::CopyIn;
    ins.dtype_bytes = sizeof(T);
    ins.repeats = uint32_t(rep);
    ins.elems = rep * fb / sizeof(T);
    ins.bytes = rep * fb;
    ins.bursts = uint32_t(rep);
    ins.burst_bytes = fb;
    ins.gm_addr = reinterpret_cast<uint64_t>(g + srcBegin);
    ins.l2_policy = src.L2Policy();
    ins.Add(dst.RangeBytes(0, dstEnd, true, what));
    ins.Add({Space::GM, ins.gm_addr, reinterpret_cast<uint64_t>(g + srcEnd), false});
    ao::rt::Issue(ins);
    uint8_t* d = reinterpret_cast<uint8_t*>(dst.Data());
    for (uint64_t i = 0; i < rep; ++i)
        std::memcpy(d + i * (1 + uint64_t(p.dstGap)) * fb, ao::rt::GmData(g) + (uint64_t(p.startIndex) + i * p.srcStride) * fb, fb);
}

// LoadData (3Dv2, img2col) restricted to the matmul form: source = C1 x (l1H*l1W) x C0 (the NZ
// layout of a [l1H*l1W, channelSize] matrix with dstNzC0Stride = l1H*l1W), destination zZ of the
// window rows [mStartPt, +mExtension) x channels [kStartPt, +kExtension).
template <typename T>
__aicore__ inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData3DParamsV2<T>& p) {
    const char* what = "LoadData(3Dv2)";
    using ao::rt::Space;
    if (src.Space() != Space::L1 || (dst.Space() != Space::L0A && dst.Space() != Space::L0B))
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: supported paths are A1 -> A2 and B1 -> B2, got %s -> %s",
                     what, ao::rt::SpaceName(src.Space()), ao::rt::SpaceName(dst.Space()));
    if (p.filterW != 1 || p.filterH != 1 || p.strideW != 1 || p.strideH != 1 || p.dilationFilterW != 1 ||
        p.dilationFilterH != 1 || p.padList[0] || p.padList[1] || p.padList[2] || p.padList[3] || p.enTranspose ||
        p.enSmallK)
        ao::rt::Fail(ao::rt::ErrorKind::Unsupported,
                     "%s: only the matmul form (1x1 filter, stride 1, dilation 1, no padding, no transpose) is "
                     "emulated",
                     what);
    constexpr uint32_t c0 = ao::k::CubeC0<T>();
    if (p.mExtension % 16 != 0 || p.kExtension % c0 != 0 || p.kStartPt % c0 != 0)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument,
                     "%s: mExtension %u must be a multiple of 16, kExtension %u and kStartPt %u multiples of %u", what,
                     unsigned(p.mExtension), unsigned(p.kExtension), unsigned(p.kStartPt), c0);
    ao::k::CheckLocalAlignedTo(dst, 512, what, "dst");
    ao::k::CheckLocalAligned(src, what);
    if (p.mExtension == 0 || p.kExtension == 0) return;
    uint64_t hw = uint64_t(p.l1H) * p.l1W;
    if (uint64_t(p.mStartPt) + p.mExtension > (hw + 15) / 16 * 16 || uint32_t(p.kStartPt) + p.kExtension >
                                                                            (uint32_t(p.channelSize) + c0 - 1) / c0 * c0)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument,
                     "%s: window [%u, +%u) x [%u, +%u) exceeds the source %llu positions x %u channels", what,
                     unsigned(p.mStartPt), unsigned(p.mExtension), unsigned(p.kStartPt), unsigned(p.kExtension),
                     (unsigned long long)hw, unsigned(p.channelSize));
    uint32_t kB = p.kExtension / c0, mB = p.mExtension / 16;
    uint64_t c1 = (uint64_t(p.kStartPt) + p.kExtension) / c0;
    uint64_t srcBegin = uint64_t(p.kStartPt / c0) * hw * c0 + uint64_t(p.mStartPt) * c0;
    uint64_t srcEnd = (c1 - 1) * hw * c0 + (uint64_t(p.mStartPt) + p.mExtension) * c0;
    ao::rt::Instr ins;
    ins.name = "LoadData";
    ins.pipe = ao::rt::Pipe::MTE1;
    ins.cls = ao::rt::OpClass::CubeLoad;
    ins.dtype_bytes = sizeof(T);
    ins.repeats = mB * kB;
    ins.elems = uint64_t(p.mExtension) * p.kExtension;
    ins.bytes = ins.elems * sizeof(T);
    ins.bursts = mB * kB;
    ins.burst_bytes = ao::k::kFractalBytes;
    ins.Add(dst.Range(0, ins.elems, true, what));
    ins.Add(src.Range(srcBegin, srcEnd - srcBegin, false, what));
    ao::rt::Issue(ins);
    const T* s = src.Data();
    T* d = dst.Data();
    for (uint32_t mb = 0; mb < mB; ++mb)
        for (uint32_t kb = 0; kb < kB; ++kb)
            for (uint32_t r = 0; r < 16; ++r)
                std::memcpy(d + (uint64_t(mb) * kB + kb) * 16 * c0 + uint64_t(r) * c0,
                            s + (uint64_t(p.kStartPt / c0) + kb) * hw * c0 + (uint64_t(p.mStartPt) + mb * 16 + r) * c0,
                            c0 * sizeof(T));
}

// LoadDataWithTranspose: transposes square blocks (b8: 32x32 from two stacked 16x32 fractals;
// b16: one 16x16 fractal; b32: 16x16 from two side-by-side 16x8 fractals) and splits the result
// back into fractals the same way.
template <typename T>
__aicore__ inline void LoadDataWithTranspose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                             const LoadData2dTransposeParams& p) {
    const char* what = "LoadDataWithTranspose";
    using ao::rt::Space;
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4, "LoadDataWithTranspose: b8/b16/b32 only");
    if (src.Space() != Space::L1 || (dst.Space() != Space::L0A && dst.Space() != Space::L0B))
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: supported paths are A1 -> A2 and B1 -> B2, got %s -> %s",
                     what, ao::rt::SpaceName(src.Space()), ao::rt::SpaceName(dst.Space()));
    ao::k::CheckLocalAlignedTo(dst, 512, what, "dst");
    ao::k::CheckLocalAlignedTo(src, 32, what, "src");
    if (p.repeatTimes == 0) return;
    constexpr uint32_t side = sizeof(T) == 1 ? 32 : 16;        // square side (elements)
    constexpr uint64_t sq = uint64_t(side) * side * sizeof(T);  // square bytes
    constexpr uint32_t nf = uint32_t(sq / ao::k::kFractalBytes);  // fractals per square
    const uint64_t fb = ao::k::kFractalBytes;
    uint64_t rep = p.repeatTimes;
    uint64_t srcBegin = uint64_t(p.startIndex) * sq;
    uint64_t srcEnd = (uint64_t(p.startIndex) + (rep - 1) * p.srcStride) * sq + sq;
    uint64_t iterPitch = (1 + uint64_t(p.dstGap)) * fb, fracPitch = (1 + uint64_t(p.dstFracGap)) * fb;
    uint64_t dstEnd = (rep - 1) * iterPitch + uint64_t(nf - 1) * fracPitch + fb;
    ao::rt::Instr ins;
    ins.name = "LoadDataWithTranspose";
    ins.pipe = ao::rt::Pipe::MTE1;
    ins.cls = ao::rt::OpClass::CubeLoad;
    ins.dtype_bytes = sizeof(T);
    ins.repeats = uint32_t(rep * nf);
    ins.elems = rep * sq / sizeof(T);
    ins.bytes = rep * sq;
    ins.bursts = uint32_t(rep);
    ins.burst_bytes = sq;
    ins.Add(dst.RangeBytes(0, dstEnd, true, what));
    ins.Add(src.RangeBytes(srcBegin, srcEnd - srcBegin, false, what));
    ao::rt::Issue(ins);
    const T* s = src.Data();
    T* d = dst.Data();
    constexpr uint32_t fcols = uint32_t(32 / sizeof(T));  // fractal columns (C0)
    for (uint64_t i = 0; i < rep; ++i) {
        const T* sb = s + (uint64_t(p.startIndex) + i * p.srcStride) * (sq / sizeof(T));
        T* db = d + i * iterPitch / sizeof(T);
        // S(r, c) of the square, T(r, c) = S(c, r) of the transposed square.
        for (uint32_t r = 0; r < side; ++r) {
            for (uint32_t c = 0; c < side; ++c) {
                T v;
                uint64_t dOff;
                if constexpr (sizeof(T) == 4) {
                    // square = fractals side by side: S(r, c) at (c / 8) * 128 + r * 8 + c % 8
                    v = sb[uint64_t(c / fcols) * 128 + uint64_t(r) * fcols + c % fcols];
                    // transposed element T(c, r) goes to fractal r / 8 at row c, column r % 8
                    dOff = uint64_t(r / fcols) * (fracPitch / sizeof(T)) + uint64_t(c) * fcols + r % fcols;
                } else {
                    // square = fractals stacked (b8) or a single fractal (b16): row-major side x side
                    v = sb[uint64_t(r) * side + c];
                    // T(c, r) goes to fractal c / 16 at row c % 16, column r
                    dOff = uint64_t(c / 16) * (fracPitch / sizeof(T)) + uint64_t(c % 16) * side + r;
                }
                db[dOff] = v;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Mmad: C (CO1) = [initial C +] A (A2) x B (B2).
template <typename T, typename U, typename S>
__aicore__ inline void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                            const MmadParams& mmadParams) {
    ao::k::MmadImpl<T, U, S, T>(dst, fm, filter, nullptr, mmadParams);
}

// Mmad with bias: bias in C2 (bias table, one value per column n) or CO1 (initial C, NZ).
template <typename T, typename U, typename S, typename V>
__aicore__ inline void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                            const LocalTensor<V>& bias, const MmadParams& mmadParams) {
    ao::k::MmadImpl<T, U, S, V>(dst, fm, filter, &bias, mmadParams);
}

// ---------------------------------------------------------------------------------------------
// Fixpipe: CO1 -> GM.
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
__aicore__ inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src,
                               const FixpipeParamsV220& intriParams) {
    const char* what = "Fixpipe";
    ao::k::CheckSpace(src, ao::rt::Space::L0C, what, "src (CO1)");
    ao::k::CheckLocalAlignedTo(src, 64, what, "src");
    ao::k::AoFixCheckTypes<T, U>(what, intriParams.quantPre, false);
    ao::k::AoFixGeom g;
    if (!ao::k::AoFixGeometry<T, U>(what, intriParams, config.format, g)) return;
    ao::rt::CheckGm(dst.addr_, g.dstEnd * sizeof(T), what);
    ao::rt::Instr ins;
    ins.name = "Fixpipe";
    ins.pipe = ao::rt::Pipe::FIX;
    ins.cls = ao::rt::OpClass::Fixpipe;
    ins.dtype_bytes = sizeof(U);
    ins.elems = uint64_t(g.nd) * intriParams.mSize * intriParams.nSize;
    ins.bytes = ins.elems * sizeof(T);
    ins.repeats = g.nd * ((intriParams.mSize + 15u) / 16u) * ((intriParams.nSize + 15u) / 16u);
    ins.bursts = g.nd * intriParams.mSize;
    ins.burst_bytes = uint64_t(intriParams.nSize) * sizeof(T);
    ins.gm_addr = reinterpret_cast<uint64_t>(dst.addr_);
    ins.l2_policy = dst.L2Policy();
    ins.Add(src.Range(0, g.srcEnd, false, what));
    ins.Add({ao::rt::Space::GM, ins.gm_addr, ins.gm_addr + g.dstEnd * sizeof(T), true});
    ao::rt::Issue(ins);
    ao::k::AoFixMove<T, U>(src, ao::rt::GmData(dst.addr_), intriParams, config.format, g, nullptr,
                           [](T* to, const T* from, uint64_t bytes) {
                               ao::k::StoreGm(reinterpret_cast<uint8_t*>(to), reinterpret_cast<const uint8_t*>(from),
                                              bytes);
                           });
}

// Fixpipe: CO1 -> GM with tensor quantisation (one uint64 scale per output column, in A1).
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR, typename S = uint64_t,
          typename std::enable_if<std::is_same<S, uint64_t>::value, bool>::type = true>
__aicore__ inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src,
                               const LocalTensor<S>& cbufWorkspace, const FixpipeParamsV220& intriParams) {
    const char* what = "Fixpipe(tensor quant)";
    ao::k::CheckSpace(src, ao::rt::Space::L0C, what, "src (CO1)");
    ao::k::CheckSpace(cbufWorkspace, ao::rt::Space::L1, what, "cbufWorkspace (A1)");
    ao::k::CheckLocalAlignedTo(src, 64, what, "src");
    ao::k::AoFixCheckTypes<T, U>(what, intriParams.quantPre, true);
    ao::k::AoFixGeom g;
    if (!ao::k::AoFixGeometry<T, U>(what, intriParams, config.format, g)) return;
    ao::rt::CheckGm(dst.addr_, g.dstEnd * sizeof(T), what);
    ao::rt::Instr ins;
    ins.name = "Fixpipe";
    ins.pipe = ao::rt::Pipe::FIX;
    ins.cls = ao::rt::OpClass::Fixpipe;
    ins.dtype_bytes = sizeof(U);
    ins.elems = uint64_t(g.nd) * intriParams.mSize * intriParams.nSize;
    ins.bytes = ins.elems * sizeof(T);
    ins.repeats = g.nd * ((intriParams.mSize + 15u) / 16u) * ((intriParams.nSize + 15u) / 16u);
    ins.bursts = g.nd * intriParams.mSize;
    ins.burst_bytes = uint64_t(intriParams.nSize) * sizeof(T);
    ins.gm_addr = reinterpret_cast<uint64_t>(dst.addr_);
    ins.l2_policy = dst.L2Policy();
    ins.Add(src.Range(0, g.srcEnd, false, what));
    ins.Add({ao::rt::Space::GM, ins.gm_addr, ins.gm_addr + g.dstEnd * sizeof(T), true});
    bool vec = intriParams.quantPre == QuantMode_t::VDEQF16 || intriParams.quantPre == QuantMode_t::VQF322B8_PRE ||
               intriParams.quantPre == QuantMode_t::VREQ8;
    if (vec) ins.Add(cbufWorkspace.Range(0, intriParams.nSize, false, what));
    ao::rt::Issue(ins);
    ao::k::AoFixMove<T, U>(src, ao::rt::GmData(dst.addr_), intriParams, config.format, g, vec ? cbufWorkspace.Data() : nullptr,
                           [](T* to, const T* from, uint64_t bytes) {
                               ao::k::StoreGm(reinterpret_cast<uint8_t*>(to), reinterpret_cast<const uint8_t*>(from),
                                              bytes);
                           });
}

// Fixpipe: CO1 -> L1 (A1/B1/C1).
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
__aicore__ inline void Fixpipe(const LocalTensor<T>& dst, const LocalTensor<U>& src,
                               const FixpipeParamsV220& intriParams) {
    const char* what = "Fixpipe(L1)";
    ao::k::CheckSpace(src, ao::rt::Space::L0C, what, "src (CO1)");
    ao::k::CheckSpace(dst, ao::rt::Space::L1, what, "dst");
    ao::k::CheckLocalAlignedTo(src, 64, what, "src");
    ao::k::CheckLocalAligned(dst, what);
    ao::k::AoFixCheckTypes<T, U>(what, intriParams.quantPre, false);
    ao::k::AoFixGeom g;
    if (!ao::k::AoFixGeometry<T, U>(what, intriParams, config.format, g)) return;
    ao::rt::Instr ins;
    ins.name = "Fixpipe";
    ins.pipe = ao::rt::Pipe::FIX;
    ins.cls = ao::rt::OpClass::Fixpipe;
    ins.dtype_bytes = sizeof(U);
    ins.elems = uint64_t(g.nd) * intriParams.mSize * intriParams.nSize;
    ins.bytes = ins.elems * sizeof(T);
    ins.repeats = g.nd * ((intriParams.mSize + 15u) / 16u) * ((intriParams.nSize + 15u) / 16u);
    ins.bursts = g.nd * intriParams.mSize;
    ins.burst_bytes = uint64_t(intriParams.nSize) * sizeof(T);
    ins.Add(src.Range(0, g.srcEnd, false, what));
    ins.Add(dst.Range(0, g.dstEnd, true, what));
    ao::rt::Issue(ins);
    ao::k::AoFixMove<T, U>(src, dst.Data(), intriParams, config.format, g, nullptr,
                           [](T* to, const T* from, uint64_t bytes) { std::memcpy(to, from, bytes); });
}

// ---------------------------------------------------------------------------------------------
// InitConstValue: fills L1 / L0A / L0B with a constant. Each repeat writes `blockNum` blocks of
// 512 B (L0A/L0B) or 32 B (L1), then skips `dstGap` blocks; the two-argument form fills
// `repeatTimes` blocks of 512 B.
template <typename T>
__aicore__ inline void InitConstValue(const LocalTensor<T>& dst, const InitConstValueParams<T>& p) {
    const char* what = "InitConstValue";
    using ao::rt::Space;
    if (dst.Space() != Space::L1 && dst.Space() != Space::L0A && dst.Space() != Space::L0B)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: destination must be A1/B1/A2/B2, got %s", what,
                     ao::rt::SpaceName(dst.Space()));
    ao::k::CheckLocalAligned(dst, what);
    uint64_t blk = dst.Space() == Space::L1 ? 32 : 512;
    uint64_t per = p.blockNum == 0 ? 1 : p.blockNum;
    if (p.blockNum == 0) blk = 512;
    if (p.repeatTimes == 0) return;
    uint64_t pitch = (per + p.dstGap) * blk;
    uint64_t end = uint64_t(p.repeatTimes - 1) * pitch + per * blk;
    ao::rt::Instr ins;
    ins.name = "InitConstValue";
    ins.pipe = ao::rt::Pipe::MTE2;
    ins.cls = ao::rt::OpClass::CopyLocal;
    ins.dtype_bytes = sizeof(T);
    ins.repeats = p.repeatTimes;
    ins.bytes = uint64_t(p.repeatTimes) * per * blk;
    ins.elems = ins.bytes / sizeof(T);
    ins.Add(dst.RangeBytes(0, end, true, what));
    ao::rt::Issue(ins);
    uint8_t* d = reinterpret_cast<uint8_t*>(dst.Data());
    for (uint64_t r = 0; r < p.repeatTimes; ++r) {
        T* b = reinterpret_cast<T*>(d + r * pitch);
        for (uint64_t i = 0; i < per * blk / sizeof(T); ++i) b[i] = p.initValue;
    }
}

// Mode switches that do not change the emulated results.
__aicore__ inline void SetHF32Mode(bool) {}
__aicore__ inline void SetHF32TransMode(bool) {}
__aicore__ inline void SetMMLayoutTransform(bool) {}

}  // namespace AscendC
