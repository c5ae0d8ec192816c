// AscendOptimizer simulator: the timing stream between the runner and the timer (issue 18).
//
// The runner links the candidate's code, so nothing in its memory can be trusted once the kernel
// ran. It therefore only emulates the kernel functionally and streams, over a pipe, every event
// the timing model consumes; the timer (timer.cpp, its own executable built from our sources
// only) replays them through TimingModel / L2Model / RaceTracker and is the only source of
// cycles, statistics, trace and races. The runner never sees a model time: where the scheduler
// combines times (a SyncAll leaves at the latest arrival, a cross-core flag is released by the
// last setter of a round) it holds the timer's *ids* of those times and streams how they combine
// (kMax); the one value that flows back is GetSystemCycle's answer (kQuery, reply pipe).
//
// Wire format: the header {kMagic, kVersion} (u32 each), then records: an opcode byte and a
// fixed payload (below), all little-endian and packed. Time ids: 0 is time 0; every kArrive,
// kCrossSet and kMax record defines the next id (1, 2, ...). Names (Instr::name, core labels)
// are sent once (kName, ids 0, 1, ... in order) and referred to by id. The stream ends with
// kEnd carrying the number of records before it; anything else is a forged or broken stream.
// A batch (one runner, several cases: main.cpp) sends one such stream per case that launches
// its kernel, back to back on the same pipe, each with a kCase record right after its header
// (the case's index in the batch, increasing); the timer replays each from a fresh state.
#pragma once
#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include "ascendopt_kernel/runtime.h"

namespace ao::ts {

constexpr uint32_t kMagic = 0x53544f41;  // "AOTS"
constexpr uint32_t kVersion = 3;  // 2: the issue record carries the L2 policy; 3: accesses their stride
constexpr size_t kBufBytes = 64 << 10;   // the runner writes whole buffers of whole records
constexpr uint32_t kMaxNameBytes = 4096;

enum Op : uint8_t {
    kName = 1,   // u32 id, u16 length, bytes
    kLaunch,     // LaunchRec
    kBegin,      // BeginRec: a core takes its first turn (and becomes the running core)
    kSwitch,     // u32 core: the running core changes
    kIssue,      // IssueRec, then n_access AccessRec
    kSyncSet,    // SyncRec
    kSyncWait,   // SyncRec
    kBarrier,    // u8 pipe
    kEndOfPipe,  // (no payload)
    kArrive,     // SyncAll: the running core arrives; defines a time id (its arrival)
    kLeave,      // u64 time id: the running core leaves the barrier at that time
    kCrossSet,   // u8 pipe, u64 key: defines a time id (when the set takes effect)
    kCrossWait,  // u8 pipe, u64 key, u64 time id: the wait is released at that time
    kMax,        // u64 a, u64 b: defines a time id, the later of the two
    kFinish,     // the running core finished
    kQuery,      // GetSystemCycle of the running core: the timer answers with an int64
    kEnd,        // u64 number of records before this one
    kCase,       // u32 index of the case in a batch (only right after the header, in a batch)
    kOpCount
};

#pragma pack(push, 1)
struct LaunchRec {
    uint32_t cores;      // emulated cores of the launch
    uint32_t l2_blocks;  // block count the shared L2 model is reset for
};
struct BeginRec {
    uint32_t core;       // index of the emulated core in the launch
    uint32_t model_num;  // core count its timing model is made for
    uint32_t label;      // name id of the core's label in messages ("block 3")
};
struct IssueRec {
    uint32_t name;  // name id
    uint8_t pipe, cls, n_access, l2_policy;
    uint32_t dtype_bytes, repeats, bursts, ub_stride_conflicts;
    uint64_t elems, bytes, burst_bytes, gm_addr;
};
struct AccessRec {
    uint8_t space, write;
    uint64_t begin, end;  // GM: device addresses
    uint32_t stride, len;  // strided footprint (Access::stride, Access::len)
};
struct SyncRec {
    uint8_t src, dst;
    uint64_t key;
};
#pragma pack(pop)

}  // namespace ao::ts

namespace ao::rt {

// The runner's side: encodes events into kBufBytes buffers written to the event pipe. Not
// thread-safe by design: the deterministic scheduler runs one core at a time, and the mutex
// handing the turn over orders the writes of successive cores.
class TimingStream {
public:
    bool On() const { return fd_ >= 0; }
    // Writes the header (and, in a batch, the case's index); every earlier case's state is dropped.
    void Open(int event_fd, int reply_fd, int case_index = -1);
    void Launch(uint32_t cores, uint32_t l2_blocks);
    void Begin(int core, uint32_t model_num, const char* label);  // g_core: that core's state
    void Issue(const Instr& ins);
    void Sync(uint8_t op, Pipe src, Pipe dst, uint64_t key);
    void Barrier(Pipe p);
    void Mark(uint8_t op);  // kEndOfPipe, kFinish
    double Arrive();                             // the arrival's time id
    void Leave(double time_id);
    double CrossSet(Pipe pipe, uint64_t key);    // the set's time id
    void CrossWait(Pipe pipe, uint64_t key, double time_id);
    double Max(double a, double b);              // id of the later of two times
    int64_t Query();                             // GetSystemCycle of the running core
    void End();                                  // the end record, and everything flushed
    void Drain() { Flush(); }                    // everything so far (the runner stops on an error)
    uint64_t Records() const { return records_; }

private:
    void Head(uint8_t op, size_t payload);  // a kSwitch first if another core runs now
    void Put(const void* p, size_t n) {
        __builtin_memcpy(buf_ + n_, p, n);
        n_ += n;
    }
    uint32_t NameId(const char* s);
    double NextTime() { return double(++times_); }
    void Flush();
    int fd_ = -1, reply_fd_ = -1;
    const Core* cur_core_ = nullptr;              // the core of the last core event
    std::unordered_map<const Core*, int> core_of_;  // index in the launch, by core state
    uint64_t records_ = 0, times_ = 0;
    uint32_t next_name_ = 0;
    size_t n_ = 0;
    std::unordered_map<const char*, uint32_t> names_;
    uint8_t buf_[ts::kBufBytes];
};

// The runner's stream (off unless main opened it: unit tests keep the in-process model).
TimingStream& Stream();

}  // namespace ao::rt
