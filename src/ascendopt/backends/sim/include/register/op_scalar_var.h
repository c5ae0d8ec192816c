// AscendOptimizer simulator (host side): ops::ScalarType / ScalarNum / ScalarVar, the typed
// initial value an OpDef output can declare with OpParamDef::InitValue (documented: the output's
// GM is set to that value, or zeroed, before the kernel runs; used with SetNeedAtomic(true)).
// The OpDef records them; the runner does not pre-fill outputs yet (see InitValue in op_def.h).
#pragma once
#include <cstdint>

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

}  // namespace ops
