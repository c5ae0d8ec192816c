// AscendOptimizer simulator: missing-synchronisation (race) detector of one AI core.
//
// Each pipe (S, V, M, MTE1, MTE2, MTE3, FIX) has a vector clock. An instruction on pipe P gets
// the next sequence number of P. SetFlag/EnQue/FreeTensor capture the source pipe's clock in a
// token; the matching WaitFlag/DeQue/AllocTensor merges it into the destination pipe's clock;
// PipeBarrier<PIPE_ALL> merges every clock into every other. An access by pipe Y to bytes
// whose last conflicting access came from pipe X != Y with sequence s is ordered iff
// clock[Y][X] >= s; otherwise it is a race, recorded as a warning (the run goes on).
//
// Bookkeeping per memory space is a coalesced interval map: each segment holds its last
// writer and the last reader of every pipe (sequence, API name, the range that access
// covered). A write that passes the check replaces the segment's history (every earlier reader
// is ordered before it, so later accesses ordered after the write are ordered after them too).
#pragma once
#include <cstdint>
#include <map>

#include "ascendopt_kernel/runtime.h"

namespace ao::rt {

constexpr int kRacePipes = 7;  // S V M MTE1 MTE2 MTE3 FIX (Pipe::ALL excluded)

struct VClock {
    uint32_t c[kRacePipes] = {};
    void Merge(const VClock& o) {
        for (int i = 0; i < kRacePipes; ++i)
            if (o.c[i] > c[i]) c[i] = o.c[i];
    }
};

class RaceTracker {
public:
    // Checks every access of `ins` (issued on `pipe` with sequence `seq`, pipe clock `vc`)
    // against earlier accesses and records it. Calls Warn(ErrorKind::Race, ...) on a race.
    void Access(const Instr& ins, int pipe, uint32_t seq, const VClock& vc, const Access* acc, int n);

private:
    struct Rec {
        uint32_t seq = 0;
        const char* name = nullptr;
        uint64_t b = 0, e = 0;
        bool operator==(const Rec& o) const { return seq == o.seq && name == o.name && b == o.b && e == o.e; }
    };
    struct Seg {
        uint64_t end = 0;
        int8_t wpipe = -1;
        uint8_t rmask = 0;
        Rec w;
        Rec r[kRacePipes];
        bool SameHistory(const Seg& o) const {
            if (wpipe != o.wpipe || rmask != o.rmask) return false;
            if (wpipe >= 0 && !(w == o.w)) return false;
            for (int i = 0; i < kRacePipes; ++i)
                if ((rmask >> i & 1) && !(r[i] == o.r[i])) return false;
            return true;
        }
    };
    using Map = std::map<uint64_t, Seg>;
    Map::iterator Cover(Map& m, uint64_t b, uint64_t e);  // segments exactly covering [b, e)
    void Coalesce(Map& m, uint64_t b, uint64_t e);
    void Report(const char* order, Space sp, const Rec& first, int first_pipe, const Instr& ins,
                             int pipe, uint64_t b, uint64_t e, bool write);
    Map spaces_[int(Space::COUNT)];
};

}  // namespace ao::rt
