// AscendOptimizer simulator (host side): ops::ScalarType / ScalarNum / ScalarVar, the typed
// initial value an OpDef output can declare with OpParamDef::InitValue (documented: the output's
// GM is set to that value, or zeroed, before the kernel runs; used with SetNeedAtomic(true)).
// The OpDef records them per output; the runner fills the output with AoScalarElement's bytes.
#pragma once
#include <cstdint>
#include <cstring>

namespace ops {

enum class ScalarType : uint32_t {
    UINT64 = 0,
    INT64 = 1,
    UINT32 = 2,
    INT32 = 3,
    UINT16 = 4,
    INT16 = 5,
    UINT8 = 6,
    INT8 = 7,
    FLOAT32 = 8,
    FLOAT16 = 9,
    INVALID_DTYPE = static_cast<uint32_t>(-1),
};

union ScalarNum {
    uint64_t value_u64;
    int64_t value_i64;
    float value_f32;
    ScalarNum() : value_u64(0) {}
    explicit ScalarNum(uint64_t v) : value_u64(v) {}
    explicit ScalarNum(int64_t v) : value_i64(v) {}
    explicit ScalarNum(float v) : value_f32(v) {}
};

// A typed scalar: FLOAT32/FLOAT16 keep the value as a float, integer types as an integer.
struct ScalarVar {
    ScalarType scalar_type = ScalarType::INVALID_DTYPE;
    ScalarNum scalar_num;
    ScalarVar() = default;
    ScalarVar(ScalarType type, uint64_t num)
        : scalar_type(type), scalar_num(IsFloat(type) ? ScalarNum(static_cast<float>(num)) : ScalarNum(num)) {}
    ScalarVar(ScalarType type, int64_t num)
        : scalar_type(type), scalar_num(IsFloat(type) ? ScalarNum(static_cast<float>(num)) : ScalarNum(num)) {}
    ScalarVar(ScalarType type, int num) : ScalarVar(type, static_cast<int64_t>(num)) {}
    ScalarVar(ScalarType type, unsigned int num) : ScalarVar(type, static_cast<uint64_t>(num)) {}
    ScalarVar(ScalarType type, float num)
        : scalar_type(type),
          scalar_num(IsFloat(type) ? ScalarNum(num) : ScalarNum(static_cast<int64_t>(num))) {}
    ScalarVar(ScalarType type, double num) : ScalarVar(type, static_cast<float>(num)) {}
    bool operator==(const ScalarVar& o) const {
        return scalar_type == o.scalar_type && scalar_num.value_u64 == o.scalar_num.value_u64;
    }
    static constexpr bool IsFloat(ScalarType t) { return t == ScalarType::FLOAT32 || t == ScalarType::FLOAT16; }
};

// The element a memset of `v` writes: its width in bytes (the ScalarType's) and its
// little-endian bit pattern (FLOAT16 rounded to nearest even). False for INVALID_DTYPE.
inline bool AoScalarElement(const ScalarVar& v, uint32_t* width, uint64_t* bits) {
    static const uint32_t kWidth[] = {8, 8, 4, 4, 2, 2, 1, 1, 4, 2};
    uint32_t t = static_cast<uint32_t>(v.scalar_type);
    if (t >= sizeof(kWidth) / sizeof(kWidth[0])) return false;
    *width = kWidth[t];
    if (v.scalar_type == ScalarType::FLOAT32) {
        uint32_t u;
        std::memcpy(&u, &v.scalar_num.value_f32, 4);
        *bits = u;
    } else if (v.scalar_type == ScalarType::FLOAT16) {
        uint32_t u;
        std::memcpy(&u, &v.scalar_num.value_f32, 4);
        uint32_t sign = (u >> 16) & 0x8000u, e = (u >> 23) & 0xffu, m = u & 0x7fffffu;
        uint32_t h;
        if (e == 0xff) {
            h = sign | 0x7c00u | (m ? 0x200u : 0u);  // inf, NaN
        } else {
            int32_t he = int32_t(e) - 127 + 15;
            if (he >= 31) {
                h = sign | 0x7c00u;  // overflow -> inf
            } else if (he <= 0) {  // subnormal half (or zero)
                if (he < -10) {
                    h = sign;
                } else {
                    uint32_t mm = m | 0x800000u;
                    uint32_t shift = uint32_t(14 - he);
                    uint32_t q = mm >> shift, rem = mm & ((1u << shift) - 1), half = 1u << (shift - 1);
                    if (rem > half || (rem == half && (q & 1u))) ++q;
                    h = sign | q;
                }
            } else {
                uint32_t q = (uint32_t(he) << 10) | (m >> 13), rem = m & 0x1fffu;
                if (rem > 0x1000u || (rem == 0x1000u && (q & 1u))) ++q;  // may carry into the exponent
                h = sign | q;
            }
        }
        *bits = h;
    } else {
        *bits = *width == 8 ? v.scalar_num.value_u64 : (v.scalar_num.value_u64 & ((uint64_t(1) << (*width * 8)) - 1));
    }
    return true;
}

}  // namespace ops
