// AscendOptimizer simulator: L2 cache hints of GlobalTensor (SetL2CacheHint).
//
// AscendC documents CacheMode {CACHE_MODE_DISABLE = 0, CACHE_MODE_NORMAL = 1} for Atlas A2/A3
// (SetL2CacheHint API page, atlasascendc_api_07_00033); the kernel headers also name
// CACHE_MODE_LAST = 2 and CACHE_MODE_PERSISTENT = 4, which only the Ascend 950 address scheme
// distinguishes: on A2 (arch 2201) only DISABLE changes the access (the address is moved into
// an uncached alias), every other mode is an ordinary cached access. CacheRwMode is a reserved
// template parameter of SetL2CacheHint. How the shared L2 model treats each mode: see
// docs/timing-model.md ("L2").
#pragma once
#include <cstdint>

namespace AscendC {

enum class CacheMode : uint8_t {
    CACHE_MODE_DISABLE = 0,
    CACHE_MODE_NORMAL = 1,
    CACHE_MODE_LAST = 2,
    CACHE_MODE_PERSISTENT = 4,
};

enum class CacheRwMode : uint8_t { READ = 1, WRITE = 2, RW = 3 };

}  // namespace AscendC

namespace ao::k {
// The timing model's view of a GM access: 0 = through L2 (allocating), 1 = around L2.
inline uint8_t L2Policy(AscendC::CacheMode m) { return m == AscendC::CacheMode::CACHE_MODE_DISABLE ? 1 : 0; }
}  // namespace ao::k
