// AscendOptimizer simulator: the GM registry: allocations as the device side makes them, their
// deterministic device addresses, and the bounds check of every GM access (docs/sim-internals.md,
// "GM allocations").
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

#include "ascendopt_kernel/runtime.h"
#include "ascendopt_kernel/testing.h"
#include "sim_config.h"

namespace ao::rt {

namespace {
std::vector<GmAlloc> g_gm;
uint64_t g_next_dev = 0;
constexpr uint64_t kDevBase = uint64_t(1) << 32;
constexpr uint64_t kDevAlign = uint64_t(2) << 20;
// Allocations are laid out kDevAlign apart from a fixed base, with a free page between them.
uint64_t NextDev(uint64_t bytes) {
    uint64_t d = kDevBase + g_next_dev;
    g_next_dev += (bytes + kDevAlign - 1) / kDevAlign * kDevAlign + kDevAlign;
    return d;
}

// Memory the runner did not allocate: its bytes and nothing around them.
GmAlloc Foreign(const void* base, uint64_t bytes, const std::string& name) {
    GmAlloc a{static_cast<uint8_t*>(const_cast<void*>(base)), NextDev(bytes), bytes, bytes, name, bytes};
    a.block = bytes;
    return a;
}
}  // namespace

// Any byte of an allocation's mapped page has its device address (the L2 model's lines).
uint64_t GmDeviceAddr(uint64_t host_addr) {
    for (const auto& a : g_gm) {
        uint64_t b = reinterpret_cast<uint64_t>(a.base);
        if (host_addr >= b && host_addr < b + a.mapped) return a.dev + (host_addr - b);
    }
    return host_addr;  // unknown pointer: keep as is
}

// What an allocation is (docs/sim-internals.md, "GM allocations"): aclrtMalloc reserves the
// request rounded up to 32 B plus 32 B (`padded`); the caching allocators aclnn callers use
// (torch_npu, GE, MindSpore) hand out that in blocks of gm_alloc_block_bytes (`block`); the
// device allocator maps whole 2 MiB pages (`mapped`, kDevAlign).
uint8_t* AllocGm(uint64_t bytes, const std::string& name, uint8_t fill) {
    uint64_t padded = (bytes + 31) / 32 * 32 + 32;
    uint64_t unit = uint64_t(Soc().Get("gm_alloc_block_bytes", 512));
    uint64_t block = unit > 1 ? (padded + unit - 1) / unit * unit : padded;
    // The device allocator hands out whole pages (kDevAlign, see NextDev): the rest of the page
    // after the block is mapped, so a kernel reading a little past its tensor does not fault
    // there. Host memory backs that rest too (filled like the padding).
    uint64_t mapped = (block + kDevAlign - 1) / kDevAlign * kDevAlign;
    // Shared pages mapped twice: the kernel's addresses, which gm_guard.cpp protects while the
    // kernel runs, and the APIs' (mremap of a shared mapping with old size 0 maps it again).
    void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    void* alias = p == MAP_FAILED ? MAP_FAILED : mremap(p, 0, mapped, MREMAP_MAYMOVE);
    if (p == MAP_FAILED || alias == MAP_FAILED) {
        fprintf(stderr, "ascendopt: cannot allocate %llu bytes of GM for %s\n", (unsigned long long)padded,
                name.c_str());
        _exit(4);
    }
    std::memset(p, fill, mapped);
    GmAlloc a{static_cast<uint8_t*>(p), NextDev(padded), bytes, padded, name, mapped};
    a.block = block;
    a.guardable = true;
    a.alias = static_cast<uint8_t*>(alias);
    AddGmAlias(p, alias, mapped);
    g_gm.push_back(a);
    return static_cast<uint8_t*>(p);
}

void RegisterImageGm(const void* base, uint64_t bytes, const std::string& name) {
    GmAlloc a = Foreign(base, bytes, name);
    a.owned = false;
    a.read_only = true;
    g_gm.push_back(a);
}

void FreeAllGm() {
    for (auto& a : g_gm)
        if (a.owned) {
            munmap(a.base, a.mapped);
            if (a.alias != nullptr) munmap(a.alias, a.mapped);
        }
    ClearGmAliases();
    g_gm.clear();
    g_next_dev = 0;
}

void RegisterGm(const void* base, uint64_t bytes, const char* name) { g_gm.push_back(Foreign(base, bytes, name)); }

void CheckGm(const void* addr, uint64_t bytes, const char* what, bool write) {
    auto p = static_cast<const uint8_t*>(addr);
    for (const auto& a : g_gm) {
        if (p >= a.base && p < a.base + (write ? a.block : a.mapped)) {
            if (write && a.read_only)
                Fail(ErrorKind::GmOutOfBounds, "%s: GM write of %llu bytes into '%s' (read-only)", what,
                     (unsigned long long)bytes, a.name.c_str());
            if (p + bytes <= a.base + a.padded) return;
            unsigned long long past = (unsigned long long)(p + bytes - (a.base + a.size));
            char key[512];
            snprintf(key, sizeof key, "%s|%s", what, a.name.c_str());
            if (write && p + bytes <= a.base + a.block) {
                Warn(ErrorKind::GmWritePastEnd, key,
                     "%s: GM write of %llu bytes at offset %lld of '%s' ends %llu bytes past the end of the "
                     "tensor (%llu bytes requested, %llu with runtime padding), inside the %llu-byte block the "
                     "framework's caching allocator gives it: nothing else is overwritten there, but the bytes are "
                     "not the tensor's, and a caller that allocates the tensor otherwise (plain aclrtMalloc, a view "
                     "into a larger buffer) gets its neighbour overwritten",
                     what, (unsigned long long)bytes, (long long)(p - a.base), a.name.c_str(), past,
                     (unsigned long long)a.size, (unsigned long long)a.padded, (unsigned long long)a.block);
                return;
            }
            if (!write && p + bytes <= a.base + a.mapped) {
                Warn(ErrorKind::GmReadPastEnd, key,
                     "%s: GM read of %llu bytes at offset %lld of '%s' ends %llu bytes past the end of the "
                     "tensor (%llu bytes requested, %llu with runtime padding); the rest of the allocator page "
                     "is mapped, so the device does not fault, but the bytes read there are not the tensor's",
                     what, (unsigned long long)bytes, (long long)(p - a.base), a.name.c_str(), past,
                     (unsigned long long)a.size, (unsigned long long)a.padded);
                return;
            }
            Fail(ErrorKind::GmOutOfBounds,
                 "%s: GM %s of %llu bytes at offset %lld of '%s' ends %llu bytes past the end of the "
                 "allocation (%llu bytes requested, %llu usable with runtime padding, %llu in the allocator's "
                 "block%s)",
                 what, write ? "write" : "read", (unsigned long long)bytes, (long long)(p - a.base), a.name.c_str(),
                 past, (unsigned long long)a.size, (unsigned long long)a.padded, (unsigned long long)a.block,
                 write ? "" : "; the read also leaves the mapped allocator page, which faults on the device");
        }
    }
    // Not inside any allocation: report relative to the nearest one for a readable message.
    const GmAlloc* best = nullptr;
    long long best_d = 0;
    for (const auto& a : g_gm) {
        long long d = (long long)(p - a.base);
        if (best == nullptr || std::llabs(d) < std::llabs(best_d)) best = &a, best_d = d;
    }
    if (best != nullptr)
        Fail(ErrorKind::GmOutOfBounds, "%s: GM %s of %llu bytes at offset %lld of '%s' (size %llu) is out of bounds%s",
             what, write ? "write" : "read", (unsigned long long)bytes, best_d, best->name.c_str(),
             (unsigned long long)best->size,
             write ? " (outside the allocator's block)" : " (outside the allocation's mapped page)");
    Fail(ErrorKind::GmOutOfBounds, "%s: GM %s outside every allocation", what, write ? "write" : "read");
}

}  // namespace ao::rt
