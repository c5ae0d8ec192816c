// AscendOptimizer simulator: SoC parameters and run-level state shared by runtime files.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ao::rt {

// SoC parameters, read from the manifest (the Python side loads socs/<name>.toml).
struct SocParams {
    std::string name = "Ascend910B2";
    std::map<std::string, double> values;  // every numeric parameter by key
    double Get(const std::string& key, double fallback) const {
        auto it = values.find(key);
        return it == values.end() ? fallback : it->second;
    }
};

const SocParams& Soc();
void SetSoc(const SocParams& soc);

// Per-core statistics produced by the timing model.
struct PipeStats {
    double busy_cycles = 0;
    uint64_t instrs = 0;
    uint64_t bytes = 0;  // bytes moved by the pipe's instructions (copies)
};
// One trace record: an instruction ('i') or a flag/queue synchronisation pair ('f').
struct TraceEvent {
    char kind = 'i';
    int8_t pipe = 0;          // 'i': pipe; 'f': source pipe
    int8_t dst = 0;           // 'f': destination pipe
    const char* name = "";
    double start = 0, end = 0;  // 'f': set cycle, wait cycle
};
struct InstrStats {
    std::string name;
    int pipe = 0;
    uint64_t count = 0;
    double cycles = 0;
};
struct CoreStats {
    double total_cycles = 0;
    PipeStats pipes[8];
    std::vector<InstrStats> instrs;
    uint64_t gm_bytes_in = 0, gm_bytes_out = 0;
    uint64_t vector_elems = 0, cube_fractals = 0;
    uint64_t l2_hit_bytes = 0, hbm_bytes = 0;
    uint64_t auto_syncs = 0;  // instructions ordered by the compiler's auto-sync (race.h)
    uint64_t auto_barriers = 0;  // PipeBarrier<PIPE_V> the compiler's auto-sync inserts (race.h)
    std::vector<TraceEvent> trace;
};

// Tracing (manifest line `trace <path>`): when on, timing models record TraceEvents; at most
// kTraceCap instruction records are kept over all cores, the rest are counted.
constexpr uint64_t kTraceCap = 500000;
void SetTraceEnabled(bool on);
bool TraceEnabled();
uint64_t TraceDropped();
void ResetTrace();  // nothing kept or counted: a new replay of the same launch (timer.cpp)

// Deterministic device-side address of a host GM pointer (allocations are laid out 2 MiB
// apart from a fixed base, as the device allocator aligns them; docs/sim-internals.md, "GM
// allocations"). gm_alloc.cpp, as the GM registry below.
uint64_t GmDeviceAddr(uint64_t host_addr);

// Failure reporting hook: the runner installs one that writes result.json.
using FailHook = void (*)(const char* kind, const char* message);
void SetFailHook(FailHook hook);

// One GM allocation and the three ends a kernel's access is judged against (docs/sim-internals.md,
// "GM allocations"): size <= padded <= block <= mapped.
struct GmAlloc {
    uint8_t* base;
    uint64_t dev;     // deterministic device address of base
    uint64_t size;    // requested bytes (the tensor)
    uint64_t padded;  // what aclrtMalloc documents for the request: size rounded up to 32 B, + 32 B
                      // (accessed silently)
    std::string name;
    uint64_t mapped = 0;  // bytes up to the end of the allocator page holding the padded end:
                          // a read up to here does not fault on the device (host memory backs it)
    uint64_t block = 0;   // the block the framework's caching allocator hands out for the request
                          // (padded rounded up to gm_alloc_block_bytes): a write up to here
                          // overwrites nothing but the allocation's own slack (GmWritePastEnd)
    bool owned = true;       // false: memory the runner did not allocate (not freed)
    bool read_only = false;  // the kernel binary's constant data: a write is out of bounds
    bool guardable = false;  // page-aligned memory of its own: protected while a kernel runs
    uint8_t* alias = nullptr;  // the same pages mapped again, where the APIs move data (GmData)
};

// Warning-level hazards recorded so far (Warn), as a JSON list of
// {"kind", "message", "count"} objects; "[]" when there are none.
std::string WarningsJson();
// Allocates GM the way the framework does: 64-byte aligned start, size rounded up to 32 B + 32 B
// (aclrtMalloc), in a block of whole gm_alloc_block_bytes (the caching allocators' 512 B).
uint8_t* AllocGm(uint64_t bytes, const std::string& name, uint8_t fill);
// GM the kernel binary brings (static `__gm__` data, placed in GM when the kernel is loaded):
// host memory of the runner's image, read-only here, never freed.
void RegisterImageGm(const void* base, uint64_t bytes, const std::string& name);
void FreeAllGm();
// GM protected from the kernel's raw loads and stores while it runs (gm_guard.cpp).
void ArmGmGuard();  // every allocation mapped twice so far (AddGmAlias) is protected
void DisarmGmGuard();
// An allocation mapped twice: the kernel's addresses and the APIs' (GmData), one set of pages.
void AddGmAlias(const void* kernel_view, const void* api_view, uint64_t bytes);
void ClearGmAliases();
// An on-chip space of `owner` (a core's state): the APIs' mapping, returned, and the kernel's
// (GetPhyAddr values; without access: a load or store through it is timed), in *kernel_view.
uint8_t* MapLocalSpace(const void* owner, int space, uint64_t bytes, uint8_t** kernel_view);
void UnmapLocalSpaces(const void* owner, uint8_t* const* api_views, uint64_t const* bytes, int count);
// The runner's state between two cases of a batch (main.cpp): GM freed, warnings and queue
// ids as a fresh process has them.
void ResetCaseState();

struct LaunchResult {
    std::vector<CoreStats> cores;
};
// Runs the kernel entry on block_dim emulated cores, deterministically.
LaunchResult LaunchKernel(uint32_t block_dim, uint64_t tiling_key, void (*entry)(uint8_t** args),
                          uint8_t** args, uint8_t* workspace);

}  // namespace ao::rt
