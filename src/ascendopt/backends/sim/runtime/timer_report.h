// AscendOptimizer simulator (timer): the timing result of a launch, as JSON fields and trace CSV.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "sim_config.h"

namespace ao::rt {

// ", \"task_duration_us\": ..., \"cores\": [...]": the launch's timing fields of the result.
std::string TimingFields(const std::vector<CoreStats>& cores, const SocParams& soc);
// The per-instruction trace CSV (docs/timing-model.md).
void WriteTrace(FILE* f, const std::vector<CoreStats>& cores);

}  // namespace ao::rt
