// AscendOptimizer simulator (timer): the timing result of a launch (see timer_report.h).
#include "timer_report.h"

#include <cinttypes>

#include "diag.h"

namespace ao::rt {

namespace {
const char* kPipes[] = {"S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX", "ALL"};

std::string CoreStatsJson(const std::vector<CoreStats>& cores, double clock_ghz) {
    std::string s = "[";
    for (size_t c = 0; c < cores.size(); ++c) {
        const auto& cs = cores[c];
        char buf[512];
        snprintf(buf, sizeof buf, "{\"block\": %zu, \"cycles\": %.1f, \"time_us\": %.4f, \"gm_bytes_in\": %" PRIu64
                 ", \"gm_bytes_out\": %" PRIu64 ", \"vector_elems\": %" PRIu64 ", \"cube_fractals\": %" PRIu64
                 ", \"l2_hit_bytes\": %" PRIu64 ", \"hbm_bytes\": %" PRIu64,
                 c, cs.total_cycles, cs.total_cycles / (clock_ghz * 1e3), cs.gm_bytes_in, cs.gm_bytes_out,
                 cs.vector_elems, cs.cube_fractals, cs.l2_hit_bytes, cs.hbm_bytes);
        s += buf;
        if (cs.auto_syncs > 0)  // only then: other results keep their shape
            s += ", \"auto_syncs\": " + std::to_string(cs.auto_syncs);
        if (cs.auto_barriers > 0)
            s += ", \"auto_barriers\": " + std::to_string(cs.auto_barriers);
        s += ", \"pipes\": {";
        for (int p = 0; p < 7; ++p) {
            snprintf(buf, sizeof buf, "%s\"%s\": {\"busy_cycles\": %.1f, \"instrs\": %" PRIu64 ", \"bytes\": %" PRIu64 "}",
                     p ? ", " : "", kPipes[p], cs.pipes[p].busy_cycles, cs.pipes[p].instrs, cs.pipes[p].bytes);
            s += buf;
        }
        s += "}, \"instrs\": [";
        for (size_t i = 0; i < cs.instrs.size(); ++i) {
            const auto& in = cs.instrs[i];
            snprintf(buf, sizeof buf, "%s{\"name\": \"%s\", \"pipe\": \"%s\", \"count\": %" PRIu64 ", \"cycles\": %.1f}",
                     i ? ", " : "", JsonEscape(in.name).c_str(), kPipes[in.pipe & 7], in.count, in.cycles);
            s += buf;
        }
        s += "]}";
        if (c + 1 < cores.size()) s += ", ";
    }
    return s + "]";
}
}  // namespace

std::string TimingFields(const std::vector<CoreStats>& cores, const SocParams& soc) {
    double clock_ghz = soc.Get("clock_ghz", 1.85);
    double launch_us = soc.Get("launch_overhead_us", 3.0);
    double max_cycles = 0;
    for (const auto& c : cores) max_cycles = c.total_cycles > max_cycles ? c.total_cycles : max_cycles;
    // Task duration = launch overhead + the slowest physical core. With more blocks than
    // physical cores, blocks are dispatched in order to the earliest free core (waves).
    double task_cycles = max_cycles;
    size_t phys = size_t(soc.Get("aiv_cores", 48) < 1 ? 1 : soc.Get("aiv_cores", 48));
    if (cores.size() > phys) {
        std::vector<double> free_at(phys, 0.0);
        for (const auto& c : cores) {
            size_t best = 0;
            for (size_t k = 1; k < phys; ++k)
                if (free_at[k] < free_at[best]) best = k;
            free_at[best] += c.total_cycles;
        }
        task_cycles = 0;
        for (double f : free_at) task_cycles = f > task_cycles ? f : task_cycles;
    }
    double duration_us = launch_us + task_cycles / (clock_ghz * 1e3);
    uint64_t gm_total = 0, l2_hit = 0, hbm_total = 0;
    for (const auto& c : cores) {
        gm_total += c.gm_bytes_in + c.gm_bytes_out;
        l2_hit += c.l2_hit_bytes;
        hbm_total += c.hbm_bytes;
    }
    char buf[512];
    snprintf(buf, sizeof buf, ", \"task_duration_us\": %.4f, \"max_core_cycles\": %.1f, \"clock_ghz\": %.3f"
             ", \"launch_overhead_us\": %.3f, \"task_cycles\": %.1f, \"gm_bytes_total\": %" PRIu64
             ", \"l2_hit_bytes\": %" PRIu64 ", \"hbm_bytes_total\": %" PRIu64,
             duration_us, max_cycles, clock_ghz, launch_us, task_cycles, gm_total, l2_hit, hbm_total);
    return buf + std::string(", \"cores\": ") + CoreStatsJson(cores, clock_ghz);
}

void WriteTrace(FILE* f, const std::vector<CoreStats>& cores) {
    for (size_t b = 0; b < cores.size(); ++b) {
        for (const auto& ev : cores[b].trace) {
            if (ev.kind == 'i')
                fprintf(f, "i,%zu,%s,%s,%.1f,%.1f\n", b, kPipes[ev.pipe & 7], ev.name, ev.start, ev.end);
            else
                fprintf(f, "f,%zu,%s,%s,%.1f,%.1f\n", b, kPipes[ev.pipe & 7], kPipes[ev.dst & 7], ev.start, ev.end);
        }
    }
    if (TraceDropped() > 0) fprintf(f, "truncated,%" PRIu64 "\n", TraceDropped());
}

}  // namespace ao::rt
