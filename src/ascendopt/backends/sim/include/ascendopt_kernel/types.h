// AscendOptimizer simulator: basic AscendC kernel-side types (clean-room emulation).
// Only freestanding headers may be included here: the kernel translation unit must not
// see <cmath>/<cstdlib> declarations, because real operators define extern "C" kernels
// with names such as `sqrt` or `abs`.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#ifndef __aicore__
#define __aicore__
#endif
#ifndef __global__
#define __global__
#endif
#ifndef __gm__
#define __gm__
#endif
#ifndef __ubuf__
#define __ubuf__
#endif
#ifndef __cbuf__
#define __cbuf__
#endif
#ifndef __ca__
#define __ca__
#endif
#ifndef __cb__
#define __cb__
#endif
#ifndef __cc__
#define __cc__
#endif
#ifndef __fbuf__
#define __fbuf__
#endif
#ifndef __inline__
#define __inline__ inline
#endif

using GM_ADDR = uint8_t*;

// fp16: g++ 12 implements _Float16 arithmetic in software/F16C.
using half = _Float16;

// bfloat16: a struct holding the upper 16 bits of an fp32, round-to-nearest-even on
// conversion from float (NaN stays NaN).
struct bfloat16_t {
    uint16_t bits = 0;
    bfloat16_t() = default;
    static constexpr bfloat16_t FromBits(uint16_t b) { bfloat16_t r; r.bits = b; return r; }
    static uint16_t Round(float f) {
        uint32_t u;
        std::memcpy(&u, &f, 4);
        if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu)) return uint16_t((u >> 16) | 0x40);
        uint32_t lsb = (u >> 16) & 1u;
        u += 0x7fffu + lsb;
        return uint16_t(u >> 16);
    }
    bfloat16_t(float f) : bits(Round(f)) {}
    bfloat16_t(double f) : bits(Round(float(f))) {}
    bfloat16_t(half h) : bits(Round(float(h))) {}
    bfloat16_t(int v) : bits(Round(float(v))) {}
    bfloat16_t(int64_t v) : bits(Round(float(v))) {}
    bfloat16_t(uint32_t v) : bits(Round(float(v))) {}
    bfloat16_t(uint64_t v) : bits(Round(float(v))) {}
    operator float() const {
        uint32_t u = uint32_t(bits) << 16;
        float f;
        std::memcpy(&f, &u, 4);
        return f;
    }
    bfloat16_t& operator+=(bfloat16_t o) { *this = bfloat16_t(float(*this) + float(o)); return *this; }
    bfloat16_t& operator-=(bfloat16_t o) { *this = bfloat16_t(float(*this) - float(o)); return *this; }
    bfloat16_t& operator*=(bfloat16_t o) { *this = bfloat16_t(float(*this) * float(o)); return *this; }
    bfloat16_t& operator/=(bfloat16_t o) { *this = bfloat16_t(float(*this) / float(o)); return *this; }
    bfloat16_t operator-() const { return FromBits(uint16_t(bits ^ 0x8000u)); }
};
inline bfloat16_t operator+(bfloat16_t a, bfloat16_t b) { return bfloat16_t(float(a) + float(b)); }
inline bfloat16_t operator-(bfloat16_t a, bfloat16_t b) { return bfloat16_t(float(a) - float(b)); }
inline bfloat16_t operator*(bfloat16_t a, bfloat16_t b) { return bfloat16_t(float(a) * float(b)); }
inline bfloat16_t operator/(bfloat16_t a, bfloat16_t b) { return bfloat16_t(float(a) / float(b)); }
inline bool operator<(bfloat16_t a, bfloat16_t b) { return float(a) < float(b); }
inline bool operator>(bfloat16_t a, bfloat16_t b) { return float(a) > float(b); }
inline bool operator<=(bfloat16_t a, bfloat16_t b) { return float(a) <= float(b); }
inline bool operator>=(bfloat16_t a, bfloat16_t b) { return float(a) >= float(b); }
inline bool operator==(bfloat16_t a, bfloat16_t b) { return float(a) == float(b); }
inline bool operator!=(bfloat16_t a, bfloat16_t b) { return float(a) != float(b); }
static_assert(sizeof(bfloat16_t) == 2, "bfloat16_t must be 2 bytes");

using float16_t = half;
using float32_t = float;
using bfloat16 = bfloat16_t;

// int4b_t: the device compiler's signed 4-bit integer (two per byte in memory). Declared so
// that kernels naming it (IsSameType checks, int4 weight paths selected by dtype macros)
// compile; tensors of it are not emulated: an element is not addressable here.
struct int4b_t {
    uint8_t ao_packed = 0;  // two 4-bit values
};

// Pipes as the CCE compiler names them (global enum).
enum pipe_t : uint8_t {
    PIPE_S = 0,
    PIPE_V,
    PIPE_M,
    PIPE_MTE1,
    PIPE_MTE2,
    PIPE_MTE3,
    PIPE_ALL,
    PIPE_MTE4,
    PIPE_MTE5,
    PIPE_V2,
    PIPE_FIX,
};

enum event_t : uint8_t {
    EVENT_ID0 = 0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7,
};

namespace AscendC {

using ::half;
using ::bfloat16_t;
using ::int4b_t;

enum class TPosition : uint8_t {
    GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM = SPM, TSCM,
    C2PIPE2GM, C2PIPE2LOCAL, MAX,
};
using QuePosition = TPosition;

enum class HardEvent : uint8_t {
    MTE2_MTE1, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V, MTE3_MTE1,
    MTE1_MTE3, MTE1_V, MTE2_M, M_MTE2, V_MTE1, M_FIX, FIX_M, MTE3_MTE2, MTE2_MTE3, S_V, V_S, S_MTE2,
    MTE2_S, S_MTE3, MTE3_S, MTE2_FIX, FIX_MTE2, FIX_S, M_S, FIX_MTE3, MTE1_FIX, FIX_MTE1, FIX_FIX,
    MAX,
};

using TEventID = int8_t;

enum class RoundMode : uint8_t {
    CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD, CAST_HYBRID,
};

enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };
enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };
enum class ReduceOrder : uint8_t { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };

constexpr uint32_t ONE_BLK_SIZE = 32;          // bytes in one data block
constexpr uint32_t ONE_REPEAT_BYTE_SIZE = 256; // bytes processed by one vector repeat
constexpr uint32_t DEFAULT_BLK_NUM = 8;        // blocks per repeat
constexpr uint32_t MAX_REPEAT_TIMES = 255;
constexpr uint32_t DEFAULT_REPEAT_STRIDE = 8;
constexpr uint8_t ONE_FOURTH_DEFAULT_REPEAT_STRIDE = 2;  // a quarter of DEFAULT_REPEAT_STRIDE
constexpr uint32_t DEFAULT_BLK_STRIDE = 1;
constexpr uint32_t BLOCK_CUBE = 16;
constexpr uint32_t CUBE_MAX_SIZE = 256;

// Complex element types (DTYPE_X of complex64 / complex128 tensors): a real and an imaginary
// part, laid out as in GM.
struct complex64 { float real; float imag; };
struct complex128 { double real; double imag; };

}  // namespace AscendC
