// AscendOptimizer simulator: the compiler intrinsics and internal utilities kernels call
// directly (clean-room emulation):
//   likely / unlikely, get_max_min_cnt, pipe_barrier / set_flag / wait_flag (the same ordering primitives as
//   PipeBarrier<> and SetFlag/WaitFlag<HardEvent>), get_block_idx / get_block_num and the
//   block_idx / block_num device variables, AscendCUtils (mask helpers, C0 sizes), GetAccVal,
//   IsSameType, DivCeil / AlignUp over mixed integer types, GetDataBlockSizeInBytes, scalar
//   min / max / sqrt, GetScalarBitcodeValue, DataCacheCleanAndInvalid, SetDeqScale, ONE_BLK_*_NUM,
//   get_ctrl / set_ctrl / sbitset0 / sbitset1.
#pragma once
#include "ascendopt_kernel/vector_core.h"
#include "ascendopt_kernel/vector_reduce.h"
#include "ascendopt_kernel/vector_cast.h"

#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

namespace ao::k {

// The flag key of a (src pipe, dst pipe, event id) triple: the HardEvent flag between the two
// pipes when one exists, so set_flag(PIPE_MTE2, PIPE_V, id) and SetFlag<HardEvent::MTE2_V>(id)
// are the same flag (as on the device, where SetFlag is built on set_flag).
constexpr uint64_t PipeFlagKey(pipe_t src, pipe_t dst, int id) {
    for (int e = 0; e < int(AscendC::HardEvent::MAX); ++e)
        if (AscendC::EventSrc(AscendC::HardEvent(e)) == ao::rt::FromPipeT(src) &&
            AscendC::EventDst(AscendC::HardEvent(e)) == ao::rt::FromPipeT(dst))
            return AscendC::EventKey(AscendC::HardEvent(e), id);
    return (uint64_t(3) << 40) | (uint64_t(src) << 16) | (uint64_t(dst) << 8) | uint64_t(id & 0xff);
}

inline void CheckEventId(const char* what, int64_t id) {
    if (id < 0 || id > 7)
        ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: event id %lld is outside [0, 7]", what, (long long)id);
}

// A device variable read as a value (block_idx, block_num).
template <int64_t (*Get)()>
struct DeviceVar {
    constexpr DeviceVar() = default;
    operator int64_t() const { return Get(); }
};
inline int64_t BlockIdxNow() { return ao::rt::Cur().block_idx; }
inline int64_t BlockNumNow() { return ao::rt::Cur().block_num; }

}  // namespace ao::k

// ---- CCE intrinsics (global namespace, as the device compiler declares them) ----------------
__aicore__ inline void pipe_barrier(pipe_t pipe) { ao::rt::Barrier(ao::rt::FromPipeT(pipe)); }
__aicore__ inline void set_flag(pipe_t src, pipe_t dst, int64_t eventId) {
    ao::k::CheckEventId("set_flag", eventId);
    ao::rt::SyncSet(ao::rt::FromPipeT(src), ao::rt::FromPipeT(dst), ao::k::PipeFlagKey(src, dst, int(eventId)));
}
__aicore__ inline void wait_flag(pipe_t src, pipe_t dst, int64_t eventId) {
    ao::k::CheckEventId("wait_flag", eventId);
    ao::rt::SyncWait(ao::rt::FromPipeT(src), ao::rt::FromPipeT(dst), ao::k::PipeFlagKey(src, dst, int(eventId)));
}
// MAX_MIN_CNT register: value bits of the last ReduceMax/ReduceMin (low 32 bits) and its index
// (high 32 bits).
__aicore__ inline uint64_t get_max_min_cnt() {
    return (uint64_t(ao::rt::Cur().maxmin_index) << 32) | uint64_t(ao::rt::Cur().maxmin_value_bits);
}
// Vector mask mode: normal (bit masks) or counter (element counts), as SetMaskNorm / SetMaskCount.
__aicore__ inline void set_mask_norm() { AscendC::SetMaskNorm(); }
__aicore__ inline void set_mask_count() { AscendC::SetMaskCount(); }
// The CTRL register (asc_get_ctrl / asc_set_ctrl): kept per core, 0 at launch; its mode bits
// (saturation, data cache reads, ...) change nothing here. sbitset0 / sbitset1: x with bit idx cleared / set.
namespace ao::k {
inline thread_local uint64_t g_ctrl = 0;
}  // namespace ao::k
__aicore__ inline int64_t get_ctrl() { return int64_t(ao::k::g_ctrl); }
__aicore__ inline void set_ctrl(uint64_t config) { ao::k::g_ctrl = config; }
__aicore__ inline uint64_t sbitset0(uint64_t x, int64_t idx) { return x & ~(uint64_t(1) << (idx & 63)); }
__aicore__ inline uint64_t sbitset1(uint64_t x, int64_t idx) { return x | (uint64_t(1) << (idx & 63)); }
__aicore__ inline int64_t get_block_idx() { return ao::rt::Cur().block_idx; }
__aicore__ inline int64_t get_block_num() { return ao::rt::Cur().block_num; }
inline constexpr ao::k::DeviceVar<&ao::k::BlockIdxNow> block_idx{};
inline constexpr ao::k::DeviceVar<&ao::k::BlockNumNow> block_num{};

// Scalar helpers the device compiler provides for arithmetic types. Templates, so that a
// <cmath>/<math.h> the kernel includes itself keeps its own overloads (a non-template exact
// match is preferred, and no declaration conflicts).
template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
__aicore__ inline T min(T a, T b) { return b < a ? b : a; }
template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
__aicore__ inline T max(T a, T b) { return a < b ? b : a; }
template <typename T, typename = std::enable_if_t<std::is_floating_point_v<T>>>
__aicore__ inline T sqrt(T x) {
    if constexpr (std::is_same_v<T, float>) return __builtin_sqrtf(x);
    else return T(__builtin_sqrt(double(x)));
}

namespace AscendC {

// One data block (the unit of UB alignment and of DataCopy lengths), in bytes.
__aicore__ inline constexpr uint32_t GetDataBlockSizeInBytes() { return ONE_BLK_SIZE; }
constexpr uint32_t ONE_BLK_FLOAT_NUM = ONE_BLK_SIZE / sizeof(float);
constexpr uint32_t ONE_BLK_HALF_NUM = ONE_BLK_SIZE / sizeof(half);
constexpr uint32_t ONE_REPEAT_FLOAT_SIZE = ONE_REPEAT_BYTE_SIZE / sizeof(float);
constexpr uint32_t ONE_REPEAT_HALF_SIZE = ONE_REPEAT_BYTE_SIZE / sizeof(half);
constexpr uint32_t BRCB_BROADCAST_NUMBER = 8;  // elements one Brcb repeat broadcasts

// Integer helpers over mixed argument types (the result has the first argument's type). A kernel
// that defines its own single-type AlignUp/DivCeil template keeps it: that one is more specialized.
template <typename T, typename U>
__aicore__ inline constexpr T DivCeil(T a, U b) { return T((a + T(b) - 1) / T(b)); }
template <typename T, typename U>
__aicore__ inline constexpr T AlignUp(T a, U b) { return T((a + T(b) - 1) / T(b) * T(b)); }
template <typename T, typename U>
__aicore__ inline constexpr T AlignDown(T a, U b) { return T(a / T(b) * T(b)); }

template <typename T, typename U>
struct IsSameType { static constexpr bool value = false; };
template <typename T>
struct IsSameType<T, T> { static constexpr bool value = true; };
// Conditional<b, T1, T2>::type: T1 when b, else T2 (the AscendC type utility).
template <bool b, typename T1, typename T2>
struct Conditional { using type = T1; };
template <typename T1, typename T2>
struct Conditional<false, T1, T2> { using type = T2; };

// The bits of a scalar as an unsigned integer of the same size (padding values, duplicates).
template <typename T>
__aicore__ inline auto GetScalarBitcodeValue(T v) {
    if constexpr (sizeof(T) == 1) return ao::k::FromBits<uint8_t>(ao::k::BitsOf(v));
    else if constexpr (sizeof(T) == 2) return ao::k::FromBits<uint16_t>(ao::k::BitsOf(v));
    else if constexpr (sizeof(T) == 4) return ao::k::FromBits<uint32_t>(ao::k::BitsOf(v));
    else return ao::k::FromBits<uint64_t>(ao::k::BitsOf(v));
}

// Internal utility class of the toolkit: vector mask helpers and block geometry.
struct AscendCUtils {
    template <typename T>
    __aicore__ static inline void SetMask(int32_t len) { SetVectorMask<T>(len); }
    template <typename T>
    __aicore__ static inline void SetMask(uint64_t maskHigh, uint64_t maskLow) { SetVectorMask<T>(maskHigh, maskLow); }
    template <typename T>
    __aicore__ static inline void SetMaskCount() { AscendC::SetMaskCount(); }
    template <typename T>
    __aicore__ static inline void SetMaskNorm() { AscendC::SetMaskNorm(); }
    __aicore__ static inline void ResetMask() { AscendC::ResetMask(); }
    __aicore__ static inline constexpr uint32_t GetC0Size() { return ONE_BLK_SIZE; }
    __aicore__ static inline constexpr uint32_t GetC0Count(uint32_t typeSize) { return ONE_BLK_SIZE / typeSize; }
    __aicore__ static inline constexpr uint32_t GetBitSize(uint32_t byteSize) { return byteSize * 8; }
};

// The accumulator register: fp32 bits of the last ReduceSum result (read after a V_S flag).
__aicore__ inline uint64_t GetAccVal() { return ao::k::g_acc_val; }

// DEQSCALE register: the scale of int32 -> half Casts (the dequantization path).
__aicore__ inline void SetDeqScale(half scale) { ao::k::g_deq_scale = float(scale); }
// Scale/offset/sign form (int16 -> int8 requantization): recorded as the scale; the
// requantizing Cast forms are not emulated, so the offset and sign mode are not used.
__aicore__ inline void SetDeqScale(float scale, int16_t offset, bool signMode) {
    (void)offset;
    (void)signMode;
    ao::k::g_deq_scale = scale;
}

// Scalar data cache maintenance. Emulated memory is one copy, so results never depend on the
// cache; the timer keeps each core's data cache (runtime/dcache.h) for the costs and for the
// coherence warnings, and this instruction tells it which line (or the whole cache, repeats = 1)
// is written back and dropped. The GM forms (CACHELINE_ALL and CACHELINE_OUT act alike; UB and
// ATOMIC are reserved on Atlas A2) keep the cache coherent with GM. The LocalTensor form concerns
// scalar UB reads through the data cache, which only CTRL[49] turns on and the emulation never
// does: it costs the instruction and changes nothing.
enum class CacheLine : uint8_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint8_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
namespace detail {
__aicore__ inline void IssueDcci(const char* name, const void* gm, bool entire) {
    ao::rt::Instr ins;
    ins.name = name;
    ins.pipe = ao::rt::Pipe::S;
    ins.cls = ao::rt::OpClass::DataCacheMaint;
    ins.repeats = entire ? 1 : 0;
    if (gm != nullptr) {
        const uint64_t a = reinterpret_cast<uint64_t>(gm);
        ins.Add({ao::rt::Space::GM, a, a + 1, false});
    }
    ao::rt::Issue(ins);
}
}  // namespace detail
template <typename T, CacheLine entire = CacheLine::SINGLE_CACHE_LINE, DcciDst dst = DcciDst::CACHELINE_OUT>
__aicore__ inline void DataCacheCleanAndInvalid(const GlobalTensor<T>& t) {
    detail::IssueDcci("DataCacheCleanAndInvalid", entire == CacheLine::ENTIRE_DATA_CACHE ? nullptr : t.GetPhyAddr(),
                      entire == CacheLine::ENTIRE_DATA_CACHE);
}
template <typename T, CacheLine entire = CacheLine::SINGLE_CACHE_LINE, DcciDst dst = DcciDst::CACHELINE_OUT>
__aicore__ inline void DataCacheCleanAndInvalid(const LocalTensor<T>&) {
    detail::IssueDcci("DataCacheCleanAndInvalid", nullptr, false);
}

}  // namespace AscendC
