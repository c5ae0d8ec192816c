// AscendOptimizer simulator runner: what the framework does to an operator's outputs around
// the launch, as the OpDef asks for it.
//  - OpParamDef::InitValue: before the kernel runs, the output's GM is zeroed or memset to a
//    typed value (one value, or one per dtype/format combination of the OpDef), so kernels that
//    only accumulate into it (atomic add) or write part of it see that value, not garbage.
//  - OpParamDef::OutputShapeDependOnCompute: the kernel gets one more GM argument after the
//    outputs, 9 uint64 per such output (the rank, then up to 8 dims), where it writes the shape
//    it produced; the runner checks it against the case's output shape.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "host_api.h"

namespace ao::rt {

// The index of the OpDef's dtype/format combination this launch uses: the first k for which
// every parameter that lists a k-th dtype has it on its first present tensor. `dtype_of(param,
// is_input)` gives that tensor's dtype or -1 (absent). 0 when none matches.
template <typename DtypeOf>
size_t DtypeCombination(const ao::host::OpSignature& sig, DtypeOf dtype_of) {
    size_t n = 0;
    for (const auto* ps : {&sig.inputs, &sig.outputs})
        for (const auto& p : *ps) n = p.dtypes.size() > n ? p.dtypes.size() : n;
    for (size_t k = 0; k < n; ++k) {
        bool ok = true;
        for (int in = 1; in >= 0 && ok; --in) {
            const auto& ps = in ? sig.inputs : sig.outputs;
            for (size_t j = 0; j < ps.size() && ok; ++j) {
                int dt = dtype_of(j, in == 1);
                if (dt >= 0 && k < ps[j].dtypes.size() && ps[j].dtypes[k] != dt) ok = false;
            }
        }
        if (ok) return k;
    }
    return 0;
}

// Fills `bytes` bytes at p with the InitValue element for combination k (nothing without one).
inline void FillInitValue(uint8_t* p, uint64_t bytes, const ao::host::OpSignature::Param& param, size_t k) {
    if (param.init.empty()) return;
    const auto& f = param.init[param.init.size() == 1 ? 0 : (k < param.init.size() ? k : 0)];
    if (f.bits == 0 || f.width == 0) {
        std::memset(p, 0, bytes);
        return;
    }
    uint8_t elem[8];
    for (uint32_t b = 0; b < f.width; ++b) elem[b] = uint8_t(f.bits >> (8 * b));
    for (uint64_t i = 0; i < bytes; ++i) p[i] = elem[i % f.width];
}

constexpr uint64_t kShapeSlots = 9;  // per output: rank, then up to 8 dims

// Checks the shapes the kernel wrote for the OutputShapeDependOnCompute outputs (in OpDef
// order, slot by slot) against the case's shapes. Returns "" or what does not match.
inline std::string CheckOutputShapes(const uint64_t* slots, const std::vector<std::string>& names,
                                     const std::vector<std::vector<int64_t>>& expected) {
    for (size_t j = 0; j < names.size(); ++j) {
        const uint64_t* s = slots + j * kShapeSlots;
        std::string got;
        if (s[0] > kShapeSlots - 1) {
            got = "rank " + std::to_string(s[0]);
        } else {
            std::vector<int64_t> dims(s + 1, s + 1 + s[0]);
            if (dims == expected[j]) continue;
            for (size_t d = 0; d < dims.size(); ++d) got += (d ? ", " : "") + std::to_string(dims[d]);
            got = "[" + got + "]";
        }
        std::string want;
        for (size_t d = 0; d < expected[j].size(); ++d) want += (d ? ", " : "") + std::to_string(expected[j][d]);
        return "the kernel reports output " + names[j] + " of shape " + got + " (OutputShapeDependOnCompute), the case "
               "expects [" + want + "]";
    }
    return "";
}

}  // namespace ao::rt
