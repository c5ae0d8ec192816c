// AscendOptimizer simulator: the interface between emulated AscendC APIs (headers) and the
// simulator runtime library (runtime/*.cpp, compiled once). Headers describe what each
// instruction does (pipe, class, sizes, memory ranges); the runtime executes the
// bookkeeping: per-core state, checks that fail the way the hardware does, the timing model.
#pragma once
#include "ascendopt_kernel/types.h"

namespace ao::rt {

// On-chip and off-chip memory spaces of one AI core.
enum class Space : uint8_t { GM = 0, UB, L1, L0A, L0B, L0C, BT, FB, COUNT };

// Pipes of an AI core (the asynchronous units the scalar unit issues to).
enum class Pipe : uint8_t { S = 0, V, M, MTE1, MTE2, MTE3, FIX, ALL, COUNT };

// Typed simulator hazards. Fail() ends the run with status `runtime_error` and this reason;
// Warn() records a hazard that working operators carry on the device (Race, GmReadPastEnd,
// GmWritePastEnd, Local*OutsideBuffer, MaskOutOfRange) and lets the run go on (the driver reports it per case;
// `--strict` and the candidate rules decide what it costs).
enum class ErrorKind : uint8_t {
    UbOverflow = 0,     // InitBuffer beyond the capacity of UB/L1/L0*
    Misaligned,         // address/length violates the 32-byte rules of the instruction
    GmOutOfBounds,      // GM write beyond the allocator's block, read beyond the mapped page
    LocalOutOfBounds,   // UB/L1/L0 address outside the memory (within it: the two warnings below)
    QueueMisuse,        // DeQue on an empty queue, Alloc with no free buffer, EnQue over depth
    Deadlock,           // cores can never meet (SyncAll mismatch), flag never set, ...
    Race,               // unsynchronised conflicting accesses from two pipes
    AssertFailed,       // ASSERT / trap in kernel code
    InvalidArgument,    // an API argument outside its documented range
    Unsupported,        // an API or dtype combination the emulation does not implement
    GmReadPastEnd,      // a GM read past the tensor's padded end, inside the mapped page (warning)
    LocalReadOutsideBuffer,   // a UB/L1/L0 read outside the tensor's buffer, inside the memory (warning)
    LocalWriteOutsideBuffer,  // a UB/L1/L0 write outside the tensor's buffer, inside the memory (warning)
    MaskOutOfRange,           // a continuous mask above the elements of one repeat (warning; SetMask
                              // fills the register, the instruction takes one repeat's worth)
    GmWritePastEnd,     // a GM write past the tensor's padded end, inside the allocator's block (warning)
    RawGmAccess,              // GM read or written through a raw pointer, outside the AscendC APIs
                              // (warning; timed as scalar GM accesses: gm_guard.cpp)
    DataCacheStale,           // a scalar GM read hit a data-cache line this core's DMA wrote after
                              // it was cached, with no DataCacheCleanAndInvalid between (warning:
                              // the device reads the old bytes)
    DataCacheDirty,           // a DMA touched GM bytes of a line this core's scalar unit wrote and
                              // did not clean (warning: the device's DMA reads the old bytes, or
                              // the line's later write-back overwrites what the DMA wrote)
    SamePipeRace,             // a V instruction reads or overwrites what an earlier V instruction wrote
                              // with no PipeBarrier<PIPE_V> (or other drain) between them (warning)
};
const char* ErrorKindName(ErrorKind k);

// Ends the simulation with a typed error. Never returns.
[[noreturn]] void Fail(ErrorKind kind, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// Records a warning-level hazard and returns. Occurrences with the same `kind` and `key` (a
// stable description of the site, without addresses) are counted under the first message.
void Warn(ErrorKind kind, const char* key, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

// A byte range in one memory space, read or written by an instruction.
struct Access {
    Space space = Space::UB;
    uint64_t begin = 0;   // byte offset in the space (GM: absolute address)
    uint64_t end = 0;     // exclusive
    bool write = false;
    // A strided footprint (stride 0: all of [begin, end)): only [begin + k * stride, + len) for
    // k = 0, 1, ... inside [begin, end) is touched, as by a vector instruction whose repeat
    // stride is wider than what one repeat touches (one column chunk of many rows). The race
    // check uses it (at most kMaxStridePieces pieces; more, or len >= stride: the whole range).
    uint32_t stride = 0, len = 0;
};
constexpr uint64_t kMaxStridePieces = 256;

// Instruction classes the timing model prices differently.
enum class OpClass : uint8_t {
    Scalar = 0,      // scalar arithmetic / control (rarely recorded)
    ScalarLocal,     // GetValue/SetValue on UB/L1
    ScalarGm,        // a scalar GM load or store (GetValue/SetValue on GM, ...): one GM access;
                     // repeats = 1: a reference handed out (GlobalTensor::operator()), its use
                     // unknown: the race check sees a write, the data cache a read
    CopyIn,          // GM -> UB/L1 (MTE2)
    CopyOut,         // UB/L1 -> GM (MTE3)
    CopyLocal,       // UB -> UB (V) or L1 -> L0 (MTE1)
    VecElementwise,  // add/mul/max/... one pass
    VecTranscend,    // exp/ln/sqrt/div/... dearer per repeat
    VecReduce,       // reductions
    VecCast,         // type conversions
    VecGather,       // gather/scatter style
    CubeMmad,        // Mmad
    CubeLoad,        // LoadData L1 -> L0A/L0B
    Fixpipe,         // L0C -> GM/L1
    Sync,            // barrier / flag bookkeeping (no cost)
    DataCacheMaint,  // DataCacheCleanAndInvalid on GM (S pipe): the access names the line's
                     // address; repeats = 1 for the whole data cache (ENTIRE_DATA_CACHE)
};

constexpr int kMaxAccess = 4;

// One issued instruction as the timing model sees it.
struct Instr {
    const char* name = "";     // AscendC API name, e.g. "Add", "DataCopy"
    Pipe pipe = Pipe::S;
    OpClass cls = OpClass::Scalar;
    uint32_t dtype_bytes = 0;  // element size of the computed type
    uint32_t repeats = 0;      // vector repeats (256 B each), or cube fractal count
    uint64_t elems = 0;        // elements processed
    uint64_t bytes = 0;        // bytes moved (copies)
    uint32_t bursts = 0;       // DMA bursts (blockCount)
    uint64_t burst_bytes = 0;  // bytes per burst
    uint64_t gm_addr = 0;      // GM start address of a copy (alignment effects)
    uint32_t ub_stride_conflicts = 0; // extra cycles hint: bank conflicts found by the API
    uint8_t l2_policy = 0;     // GM access: 0 through L2 (allocating), 1 around L2 (SetL2CacheHint DISABLE)
    int n_access = 0;
    Access access[kMaxAccess];
    void Add(const Access& a) { if (n_access < kMaxAccess) access[n_access++] = a; }
};

// Issues an instruction on the current core (timing model + race check).
void Issue(Instr& ins);

// Pipe-to-pipe ordering primitives. Queue operations and HardEvent flags map onto them.
void SyncSet(Pipe src, Pipe dst, uint64_t key);
void SyncWait(Pipe src, Pipe dst, uint64_t key);
void Barrier(Pipe p);

// The vector steps of one high-level library API (SoftMax, Mean, ReduceSum's stages, ...): the
// library separates its dependent steps with PipeBarrier<PIPE_V> itself, so an emulated API that
// issues several V instructions calls Next() before each: every step after the first starts
// once the earlier ones have completed (the vector pipeline's drain), and no step races another.
struct LibSteps {
    bool started = false;
    void Next() {
        if (started) Barrier(Pipe::V);
        started = true;
    }
};

// Vector mask state of the current core.
struct MaskState {
    uint64_t hi = ~0ull, lo = ~0ull;
    bool counter_mode = false;
};

// Per-core state visible to the headers.
struct Core {
    int32_t block_idx = 0;   // GetBlockIdx(): [0, blockDim) on AIC / unified, [0, ratio * blockDim) on AIV
    int32_t block_num = 1;   // GetBlockNum(): the launch's blockDim
    int8_t core_type = 0;    // core_role.h: 0 unified (both halves), 1 AIC, 2 AIV
    int32_t sub_block_idx = 0, sub_block_num = 1, task_ratio = 1;
    int32_t sim_idx = 0;     // index of this emulated core in the launch (all types)
    uint8_t* mem[int(Space::COUNT)] = {};   // each space's bytes, where the APIs read and write them
    uint8_t* kmem[int(Space::COUNT)] = {};  // the same bytes as the kernel's pointers reach them
                                            // (GetPhyAddr; without access: gm_guard.cpp)
    uint64_t cap[int(Space::COUNT)] = {};
    MaskState mask;
    int atomic_mode = 0;     // 0 none, 1 add, 2 max, 3 min
    int atomic_dtype = 0;    // ao::rt::DType of the atomic operation
    void* tpipe = nullptr;   // most recently constructed TPipe
    uint64_t tiling_key = 0;
    uint8_t* workspace = nullptr;
    void* model = nullptr;   // timing model state (runtime private)
    // Result register of the last ReduceMax/ReduceMin/WholeReduceMax/WholeReduceMin (value bits
    // in the instruction's dtype, and the index), read back by GetReduceMaxMinCount.
    uint32_t maxmin_value_bits = 0;
    uint32_t maxmin_index = 0;
};

extern thread_local Core* g_core;
inline Core& Cur() { return *g_core; }

// GM checks: the access [addr, addr+bytes) must lie in one allocation (with its padding).
// Past the padded end, a write that stays inside the allocator's block is a warning
// (GmWritePastEnd), a read that stays inside the mapped page is a warning (GmReadPastEnd);
// anything else outside is an error (sim_config.h GmAlloc).
void CheckGm(const void* addr, uint64_t bytes, const char* what, bool write = true);

// While a kernel runs, the GM it was given is mapped without access (gm_guard.cpp): a load or
// store through a raw pointer (`*p`, `p[i]`, memcpy on a `__gm__` pointer) faults, is recorded
// and timed as a scalar GM access, and goes on. The APIs reach the same bytes through a second
// mapping of each allocation: after CheckGm, they read and write GmData(p), never p itself.
const uint8_t* GmAlias(const void* p);
template <typename T>
inline T* GmData(T* p) {
    return reinterpret_cast<T*>(const_cast<uint8_t*>(GmAlias(p)));
}
// The same holds for the on-chip spaces: a LocalTensor's GetPhyAddr() is an address in the
// core's second mapping of the space (Core::kmem), and a load or store through it is timed as a
// scalar UB/L1 access (LocalTensor::GetValue/SetValue). The pointer-taking APIs map such values
// back to byte addresses (ao::k::LocalAddr).
// Issues the raw accesses recorded since the last call as scalar instructions of the running
// core (called at every API entry that times something, and when a core stops).
void FlushRawGm();
uint64_t SysWorkspaceSize();

// Cross-core barrier (SyncAll). Deterministic: cores run one at a time in a fixed order.
// aiv_only: the cores of the caller's type meet (SyncAll<true>); otherwise every core of the launch.
void SyncAllCores(bool aiv_only = true);

// Kernel printf goes to the runner's stderr, prefixed with the block index.
void Printf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// Element dtype codes used by atomics and casts.
enum class DType : uint8_t { F32 = 0, F16, BF16, I8, U8, I16, U16, I32, U32, I64, U64, BOOL, OTHER };
template <typename T> constexpr DType DTypeOf() {
    if constexpr (std::is_same_v<T, float>) return DType::F32;
    else if constexpr (std::is_same_v<T, half>) return DType::F16;
    else if constexpr (std::is_same_v<T, bfloat16_t>) return DType::BF16;
    else if constexpr (std::is_same_v<T, int8_t>) return DType::I8;
    else if constexpr (std::is_same_v<T, uint8_t>) return DType::U8;
    else if constexpr (std::is_same_v<T, bool>) return DType::BOOL;
    else if constexpr (std::is_same_v<T, int16_t>) return DType::I16;
    else if constexpr (std::is_same_v<T, uint16_t>) return DType::U16;
    else if constexpr (std::is_same_v<T, int32_t>) return DType::I32;
    else if constexpr (std::is_same_v<T, uint32_t>) return DType::U32;
    else if constexpr (std::is_same_v<T, int64_t>) return DType::I64;
    else if constexpr (std::is_same_v<T, uint64_t>) return DType::U64;
    else return DType::OTHER;
}

// Maps an AscendC position to the memory space it lives in.
constexpr Space SpaceOf(AscendC::TPosition p) {
    using AscendC::TPosition;
    switch (p) {
        case TPosition::GM: return Space::GM;
        case TPosition::A1: case TPosition::B1: case TPosition::C1: case TPosition::TSCM: return Space::L1;
        case TPosition::A2: return Space::L0A;
        case TPosition::B2: return Space::L0B;
        case TPosition::CO1: return Space::L0C;
        case TPosition::C2: return Space::BT;
        default: return Space::UB;  // VECIN, VECOUT, VECCALC, CO2, SPM
    }
}
const char* SpaceName(Space s);
const char* PipeName(Pipe p);

// Which pipe writes a position when a tensor is produced into it (EnQue side), and which pipe
// reads it when consumed (DeQue side).
constexpr Pipe ProducerOf(AscendC::TPosition p) {
    using AscendC::TPosition;
    switch (p) {
        case TPosition::VECIN: case TPosition::A1: case TPosition::B1: case TPosition::C1:
        case TPosition::TSCM: return Pipe::MTE2;
        case TPosition::A2: case TPosition::B2: case TPosition::C2: return Pipe::MTE1;
        case TPosition::CO1: return Pipe::M;
        case TPosition::CO2: return Pipe::FIX;
        default: return Pipe::V;  // VECOUT, VECCALC
    }
}
constexpr Pipe ConsumerOf(AscendC::TPosition p) {
    using AscendC::TPosition;
    switch (p) {
        case TPosition::VECIN: case TPosition::VECCALC: return Pipe::V;
        case TPosition::VECOUT: case TPosition::CO2: return Pipe::MTE3;
        case TPosition::A1: case TPosition::B1: case TPosition::C1: case TPosition::TSCM: return Pipe::MTE1;
        case TPosition::A2: case TPosition::B2: case TPosition::C2: return Pipe::M;
        case TPosition::CO1: return Pipe::FIX;
        default: return Pipe::V;
    }
}

constexpr Pipe FromPipeT(pipe_t p) {
    switch (p) {
        case PIPE_S: return Pipe::S;
        case PIPE_V: return Pipe::V;
        case PIPE_M: return Pipe::M;
        case PIPE_MTE1: return Pipe::MTE1;
        case PIPE_MTE2: return Pipe::MTE2;
        case PIPE_MTE3: return Pipe::MTE3;
        case PIPE_FIX: return Pipe::FIX;
        default: return Pipe::ALL;
    }
}

}  // namespace ao::rt
