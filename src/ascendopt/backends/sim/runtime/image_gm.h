// AscendOptimizer simulator runner: the kernel binary's static data as GM.
//
// On the device, a kernel's static `__gm__` data (e.g. `static const __gm__ int16_t table[] =
// {...}` used as a GlobalTensor's buffer) is part of the kernel binary, which is loaded into
// GM. Here `__gm__` is empty, so such an array is ordinary constant data of the runner's
// executable; its read-only load segments (executable or not) are registered as GM
// (RegisterImageGm) so DMA and scalar GM reads of it are accepted and timed as GM, while a
// write into it is out of bounds.
// Registered after the launch's own allocations, so their device addresses do not move.
#pragma once
#include <elf.h>
#include <link.h>

#include <cstdint>

#include "sim_config.h"

namespace ao::rt {

inline void RegisterImageConstants() {
    dl_iterate_phdr(
        [](struct dl_phdr_info* info, size_t, void*) -> int {
            if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') return 1;  // the executable comes first
            for (int i = 0; i < info->dlpi_phnum; ++i) {
                const ElfW(Phdr)& ph = info->dlpi_phdr[i];
                // Every read-only load segment: GNU ld gives .rodata one of its own, gold (the
                // runner's link when installed) puts it in the executable segment with .text.
                if (ph.p_type != PT_LOAD || (ph.p_flags & PF_W) != 0 || ph.p_memsz == 0) continue;
                RegisterImageGm(reinterpret_cast<const void*>(info->dlpi_addr + ph.p_vaddr), ph.p_memsz,
                                "the kernel binary's constant data");
            }
            return 1;
        },
        nullptr);
}

}  // namespace ao::rt
