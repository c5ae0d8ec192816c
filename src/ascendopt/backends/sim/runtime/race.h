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
//
// Compiler auto-sync (`--cce-auto-sync`, SetAutoSync): the device compiler inserts the
// set_flag/wait_flag pairs between the scalar pipe and the vector-side pipes V, MTE2 and MTE3
// (both directions) that the kernel's data dependencies need; the pairs among V, MTE2 and MTE3
// stay the TPipe queues' or the programmer's job, and nothing is inserted on the cube side
// (asc-devkit: docs/zh/api/SIMD-API/基础API/同步控制/核内同步/关键特性说明.md, table 1). Under it a
// conflict between such a pair that nothing orders is not a race: the tracker hands it back
// (Check's `sync`) and the caller orders the second access after the first as the inserted
// flag would (joins the first pipe's clock as it was at that access, waits for its completion).
// The model is a dynamic lower bound of the compiler's static insertion: it syncs exactly the
// conflicts that occur in this run, where the compiler syncs every dependency it cannot rule out.
//
// Same pipe (V only): instructions of one pipe run in order, but the next may start before the
// previous one's reads and writes are done; PipeBarrier<PIPE_X> makes the next wait until every
// earlier instruction of pipe X has completed (asc-devkit 核内同步能力概述.md, 单流水同步;
// PipeBarrier(ISASI).md: Add then Mul reading Add's output needs PipeBarrier<PIPE_V>). A V access
// that reads (write-read) or overwrites (write-write) bytes an earlier V instruction wrote is
// ordered iff that instruction is known complete at this one's issue (`self_done`: a
// PipeBarrier<PIPE_V>/PIPE_ALL since, or a flag chain whose set came after it); otherwise it is
// ErrorKind::SamePipeRace. Under auto-sync the compiler inserts the PipeBarrier<PIPE_V> itself
// (关键特性说明.md table 1: PIPE_V -> PIPE_V "编译器自动插入PipeBarrier"): the conflict is handed
// back (`sync.drain`) and the caller drains the pipe first. Read-then-write (write-after-read) is
// not a hazard here: in one in-order pipe a later instruction writes only after the earlier one
// has read its operands. MTE2/MTE3 same-pipe overlaps (docs: a manual PipeBarrier is needed when
// their addresses overlap) are not checked.
#pragma once
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

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

// True when the compiler's auto-sync orders an access on pipe `second` after a conflicting
// one on pipe `first` (see above): one of them is S, the other V, MTE2 or MTE3.
bool CompilerSyncs(int first, int second);

class RaceTracker {
public:
    // What the inserted synchronisation of the conflicts Check found under auto-sync asks of
    // the second instruction: the clock to join and the time the first access(es) completed.
    struct Sync {
        bool any = false;
        int pipe = -1;    // the pipe of the latest-completing first access (trace)
        double done = 0;  // when the last of them completed
        VClock vc;        // their pipes' clocks as they were at those accesses
        bool drain = false;  // same-pipe conflict under auto-sync: PipeBarrier<PIPE_V> first
    };
    // Auto-sync on this core (off: every unordered conflict is a race).
    void SetAutoSync(bool on) { auto_sync_ = on; }
    // Checks every access of `ins` (on `pipe`, pipe clock `vc`; `self_done`: the pipe's own
    // instructions up to this sequence are known complete) against earlier accesses. Calls
    // Warn(ErrorKind::Race / SamePipeRace, ...) on a race; a conflict the compiler's auto-sync
    // orders goes to `sync` instead.
    void Check(const Instr& ins, int pipe, const VClock& vc, uint32_t self_done, const Access* acc, int n,
               Sync& sync);
    // Records the accesses of `ins` (sequence `seq` on `pipe`, pipe clock `vc`, complete at
    // `done`), after Check and after the caller joined `sync`.
    void Record(const Instr& ins, int pipe, uint32_t seq, const VClock& vc, const Access* acc, int n, double done);

private:
    struct Rec {
        uint32_t seq = 0;
        const char* name = nullptr;
        uint64_t b = 0, e = 0;
        double done = 0;  // when the access completed (model cycles)
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
    // An unordered conflict with `first` (on `first_pipe`): joined into `sync` when auto-sync
    // orders the pair, else reported.
    void Conflict(const char* order, Space sp, const Rec& first, int first_pipe, const Instr& ins, int pipe,
                  const ao::rt::Access& a, Sync& sync);
    void SamePipe(const char* order, Space sp, const Rec& first, const Instr& ins, int pipe, const ao::rt::Access& a,
                  Sync& sync);
    Map spaces_[int(Space::COUNT)];
    bool auto_sync_ = false;
    // Under auto-sync: each pipe's clock from the sequence on at which it last changed other
    // than by the pipe's own count (one entry per wait, not per instruction), so that the
    // clock a pipe had at any of its accesses can be joined.
    std::vector<std::pair<uint32_t, VClock>> history_[kRacePipes];
};

}  // namespace ao::rt
