// AscendOptimizer simulator: typed hazard names and the warning list (see diag.h).
#include "diag.h"

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <vector>

#include "ascendopt_kernel/runtime.h"
#include "sim_config.h"

namespace ao::rt {

const char* ErrorKindName(ErrorKind k) {
    switch (k) {
        case ErrorKind::UbOverflow: return "ub_overflow";
        case ErrorKind::Misaligned: return "misaligned";
        case ErrorKind::GmOutOfBounds: return "gm_out_of_bounds";
        case ErrorKind::LocalOutOfBounds: return "local_out_of_bounds";
        case ErrorKind::QueueMisuse: return "queue_misuse";
        case ErrorKind::Deadlock: return "deadlock";
        case ErrorKind::Race: return "race";
        case ErrorKind::AssertFailed: return "assert_failed";
        case ErrorKind::InvalidArgument: return "invalid_argument";
        case ErrorKind::Unsupported: return "unsupported";
        case ErrorKind::GmReadPastEnd: return "gm_read_past_end";
        case ErrorKind::LocalReadOutsideBuffer: return "local_read_outside_buffer";
        case ErrorKind::LocalWriteOutsideBuffer: return "local_write_outside_buffer";
        case ErrorKind::MaskOutOfRange: return "mask_out_of_range";
        case ErrorKind::GmWritePastEnd: return "gm_write_past_end";
        case ErrorKind::RawGmAccess: return "raw_gm_access";
        case ErrorKind::DataCacheStale: return "dcache_stale";
        case ErrorKind::DataCacheDirty: return "dcache_dirty";
        case ErrorKind::SamePipeRace: return "same_pipe_race";
    }
    return "unknown";
}

const char* SpaceName(Space s) {
    static const char* names[] = {"GM", "UB", "L1", "L0A", "L0B", "L0C", "BT", "FB"};
    return int(s) < int(Space::COUNT) ? names[int(s)] : "?";
}

const char* PipeName(Pipe p) {
    static const char* names[] = {"S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX", "ALL"};
    return int(p) < int(Pipe::COUNT) ? names[int(p)] : "?";
}

std::string JsonEscape(const std::string& s) {
    std::string o;
    for (char c : s) {
        if (c == '"' || c == '\\') {
            o += '\\';
            o += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char b[8];
            snprintf(b, sizeof b, "\\u%04x", c);
            o += b;
        } else {
            o += c;
        }
    }
    return o;
}

namespace {
struct WarningRec {
    std::string kind, key, message;
    uint64_t count = 0;
    uint64_t at = 0;  // stream position of the first occurrence
};
std::mutex g_warn_mu;
std::vector<WarningRec> g_warnings;
constexpr size_t kMaxWarnings = 32;  // distinct sites kept; later ones are only counted
std::map<std::string, uint64_t> g_warnings_dropped;  // by kind
}  // namespace

void Warn(ErrorKind kind, const char* key, const char* fmt, ...) {
    std::lock_guard<std::mutex> lk(g_warn_mu);
    const char* kname = ErrorKindName(kind);
    for (auto& w : g_warnings) {
        if (w.kind == kname && w.key == key) {
            w.count += 1;
            return;
        }
    }
    if (g_warnings.size() >= kMaxWarnings) {
        g_warnings_dropped[kname] += 1;
        return;
    }
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char full[2200];
    std::string label = CurrentCoreLabel();
    if (!label.empty()) snprintf(full, sizeof full, "%s: %s", label.c_str(), msg);
    else snprintf(full, sizeof full, "%s", msg);
    g_warnings.push_back({kname, key, full, 1, WarnPosition()});
    fprintf(stderr, "ascendopt-warning: %s: %s\n", kname, full);
}

void ResetWarnings() {
    std::lock_guard<std::mutex> lk(g_warn_mu);
    g_warnings.clear();
    g_warnings_dropped.clear();
}

std::string WarningsJson() {
    std::lock_guard<std::mutex> lk(g_warn_mu);
    std::string s = "[";
    for (size_t i = 0; i < g_warnings.size(); ++i) {
        const auto& w = g_warnings[i];
        s += (i ? ", " : "") + std::string("{\"kind\": \"") + JsonEscape(w.kind) + "\", \"message\": \"" +
             JsonEscape(w.message) + "\", \"count\": " + std::to_string(w.count) + ", \"at\": " +
             std::to_string(w.at) + "}";
    }
    for (const auto& [kind, n] : g_warnings_dropped)
        s += std::string(s.size() > 1 ? ", " : "") + "{\"kind\": \"" + JsonEscape(kind) + "\", \"message\": \"" +
             std::to_string(n) + " more occurrences at other sites (not itemised)\", \"count\": " +
             std::to_string(n) + ", \"at\": " + std::to_string(UINT64_MAX >> 12) + "}";
    return s + "]";
}

}  // namespace ao::rt
