// AscendOptimizer simulator: values of knob slots (see include/ascendopt_host/knob_slot.h).
#include <cstdlib>
#include <string>
#include <vector>

namespace {

std::vector<long long> ParseSlots() {
    std::vector<long long> values;
    const char* env = std::getenv("AO_KNOB_SLOTS");
    if (env == nullptr) return values;
    std::string s(env);
    size_t pos = 0;
    while (pos <= s.size() && !s.empty()) {
        size_t comma = s.find(',', pos);
        std::string item = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        values.push_back(std::strtoll(item.c_str(), nullptr, 10));
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return values;
}

}  // namespace

extern "C" long long ao_knob_slot(int index, long long fallback) {
    static const std::vector<long long> values = ParseSlots();
    if (index < 0 || static_cast<size_t>(index) >= values.size()) return fallback;
    return values[static_cast<size_t>(index)];
}
