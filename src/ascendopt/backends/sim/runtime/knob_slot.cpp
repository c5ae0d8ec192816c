// AscendOptimizer simulator: values of knob slots (see include/ascendopt_host/knob_slot.h).
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace {

// AO_KNOB_SLOTS = "v0,v1,...": slot i's value at index i.
std::vector<long long> ParseSlots() {
    std::vector<long long> values;
    const char* env = std::getenv("AO_KNOB_SLOTS");
    std::istringstream in(env ? env : "");
    for (std::string item; std::getline(in, item, ',');) values.push_back(std::strtoll(item.c_str(), nullptr, 10));
    return values;
}

}  // namespace

extern "C" long long ao_knob_slot(int index, long long fallback) {
    static const std::vector<long long> values = ParseSlots();
    if (index < 0 || static_cast<size_t>(index) >= values.size()) return fallback;
    return values[static_cast<size_t>(index)];
}
