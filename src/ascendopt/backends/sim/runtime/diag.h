// AscendOptimizer simulator (runtime-private): names of typed hazards and the warning list, shared
// by the runner and the timer. Each program defines the two hooks below: the label of the core
// that is running (messages say "block 3: ..."), and the position in the timing stream, so that
// the driver can interleave the runner's warnings with the timer's races in the order they arose.
#pragma once
#include <cstdint>
#include <string>

namespace ao::rt {

std::string JsonEscape(const std::string& s);
// "block 3" for the running core, "" outside a core (defined by each program).
std::string CurrentCoreLabel();
// Records of the timing stream before the current event (defined by each program).
uint64_t WarnPosition();
// Forgets the warnings so far (a batch's next case starts with none).
void ResetWarnings();

}  // namespace ao::rt
