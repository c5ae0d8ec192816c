// AscendOptimizer simulator: GlobalTensor, LocalTensor, TPipe, TQue, TQueBind, TBuf.
#pragma once
#include <cstdio>

#include "ascendopt_kernel/runtime.h"
#include "ascendopt_kernel/l2_cache.h"
#include "ascendopt_kernel/shape_info.h"

namespace AscendC {

template <typename T> class LocalTensor;

// ---------------------------------------------------------------------------------------------
// GlobalTensor: a typed view of device global memory.
template <typename T>
class GlobalTensor {
public:
    using PrimType = T;
    __aicore__ inline GlobalTensor() = default;
    __aicore__ inline void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize) {
        addr_ = buffer;
        size_ = bufferSize;
        l2_policy_ = 0;  // a new address is an ordinary (cached) one
    }
    __aicore__ inline void SetGlobalBuffer(__gm__ T* buffer) {
        addr_ = buffer;
        size_ = 0;
        l2_policy_ = 0;
    }
    __aicore__ inline GlobalTensor operator[](uint64_t offset) const {
        GlobalTensor r;
        r.addr_ = addr_ + offset;
        r.size_ = size_ > offset ? size_ - offset : 0;
        r.l2_policy_ = l2_policy_;  // the hint travels with the address (an uncached alias on A2)
        return r;
    }
    __aicore__ inline T GetValue(uint64_t offset) const {
        ScalarAccess(offset, false, "GlobalTensor::GetValue");
        return *ao::rt::GmData(addr_ + offset);
    }
    __aicore__ inline void SetValue(uint64_t offset, T value) {
        ScalarAccess(offset, true, "GlobalTensor::SetValue");
        *ao::rt::GmData(addr_ + offset) = value;
    }
    __aicore__ inline T& operator()(uint64_t offset) {
        ScalarAccess(offset, true, "GlobalTensor::operator()", true);
        return *ao::rt::GmData(addr_ + offset);
    }
    __aicore__ inline __gm__ T* GetPhyAddr() const { return addr_; }
    __aicore__ inline __gm__ T* GetPhyAddr(uint64_t offset) const { return addr_ + offset; }
    __aicore__ inline uint64_t GetSize() const { return size_; }
    template <AscendC::CacheRwMode rwMode = AscendC::CacheRwMode::RW>
    __aicore__ inline void SetL2CacheHint(CacheMode mode) { l2_policy_ = ao::k::L2Policy(mode); }
    // Emulation: how DMA through this tensor uses the shared L2 (l2_cache.h).
    __aicore__ inline uint8_t L2Policy() const { return l2_policy_; }

    __gm__ T* addr_ = nullptr;
    uint64_t size_ = 0;
    uint8_t l2_policy_ = 0;

private:
    // The checked, timed scalar GM access. reference: operator() (read or written by the caller;
    // see OpClass::ScalarGm).
    void ScalarAccess(uint64_t offset, bool write, const char* what, bool reference = false) const {
        ao::rt::CheckGm(addr_ + offset, sizeof(T), what, write);
        ao::rt::Instr ins;
        ins.name = write ? "GlobalTensor::SetValue" : "GlobalTensor::GetValue";
        ins.repeats = reference ? 1 : 0;
        ins.pipe = ao::rt::Pipe::S;
        ins.cls = ao::rt::OpClass::ScalarGm;
        ins.dtype_bytes = sizeof(T);
        ins.elems = 1;
        ins.bytes = sizeof(T);
        ins.gm_addr = reinterpret_cast<uint64_t>(addr_ + offset);
        ins.Add({ao::rt::Space::GM, ins.gm_addr, ins.gm_addr + sizeof(T), write});
        ao::rt::Issue(ins);
    }
};

// ---------------------------------------------------------------------------------------------
// LocalTensor: a typed view of a buffer in UB / L1 / L0A / L0B / L0C of the current core.
template <typename T>
class LocalTensor {
public:
    using PrimType = T;
    __aicore__ inline LocalTensor() = default;

    __aicore__ inline T GetValue(uint32_t index) const {
        ScalarAccess(index, false);
        return Data()[index];
    }
    template <typename U>
    __aicore__ inline void SetValue(uint32_t index, U value) const {
        ScalarAccess(index, true);
        Data()[index] = static_cast<T>(value);
    }
    __aicore__ inline T& operator()(uint32_t index) const {
        ScalarAccess(index, true);
        return Data()[index];
    }
    __aicore__ inline LocalTensor operator[](uint32_t offset) const {
        LocalTensor r = *this;
        r.off_ = off_ + uint64_t(offset) * sizeof(T);
        r.size_ = size_ > offset ? size_ - offset : 0;
        return r;
    }
    template <typename U>
    __aicore__ inline LocalTensor<U> ReinterpretCast() const {
        LocalTensor<U> r;
        r.base_ = base_;
        r.off_ = off_;
        r.size_ = uint32_t(uint64_t(size_) * sizeof(T) / sizeof(U));
        r.buf_begin_ = buf_begin_;
        r.buf_end_ = buf_end_;
        r.pos_ = pos_;
        r.que_ = que_;
        r.slot_ = slot_;
        r.tag_ = tag_;
        return r;
    }
    __aicore__ inline uint32_t GetSize() const { return size_; }
    __aicore__ inline void SetSize(uint32_t size) { size_ = size; }
    __aicore__ inline uint32_t GetLength() const { return size_ * uint32_t(sizeof(T)); }
    __aicore__ inline void SetBufferLen(uint32_t len) { size_ = len / uint32_t(sizeof(T)); }
    // The device returns the address of element 0 (offset) in the tensor's memory space, and
    // kernels dereference it as a __ubuf__ pointer for scalar reads and writes. Here it is the host
    // address of those bytes in the core's kernel-side mapping of the space (Core::kmem), so such
    // a dereference reads and writes the emulated memory and is timed as a scalar access
    // (gm_guard.cpp); the pointer-taking forms map it back to the space's byte address
    // (ao::k::LocalAddr).
    __aicore__ inline uint64_t GetPhyAddr() const { return GetPhyAddr(0); }
    __aicore__ inline uint64_t GetPhyAddr(uint32_t offset) const {
        const uint64_t a = off_ + uint64_t(offset) * sizeof(T);
        if (base_ == nullptr) return a;
        const uint8_t* k = ao::rt::Cur().kmem[int(Space())];
        const bool own = base_ == ao::rt::Cur().mem[int(Space())] && k != nullptr;
        return reinterpret_cast<uint64_t>(own ? k : base_) + a;
    }
    __aicore__ inline TPosition GetPosition() const { return pos_; }
    // `dst = src0 op src1` (the documented whole-tensor operator forms): the expression types of
    // tensor_expr.h carry an AoTensorExpr tag and run their API into the assigned tensor.
    template <class E, typename = typename E::AoTensorExpr>
    __aicore__ inline LocalTensor& operator=(const E& expr) {
        expr.EvalInto(*this);
        return *this;
    }
    __aicore__ inline void SetUserTag(int32_t tag) { tag_ = tag; }
    __aicore__ inline int32_t GetUserTag() const { return tag_; }
    __aicore__ inline void SetShapeInfo(const ShapeInfo& shapeInfo) { shapeInfo_ = shapeInfo; }
    __aicore__ inline ShapeInfo GetShapeInfo() const { return shapeInfo_; }

    // ---- emulation internals (used by the API implementations) ----
    __aicore__ inline T* Data() const { return reinterpret_cast<T*>(base_ + off_); }
    __aicore__ inline ao::rt::Space Space() const { return ao::rt::SpaceOf(pos_); }
    // Checks that `count` elements from element `first` lie in this tensor's buffer and
    // returns the access record for the timing model.
    ao::rt::Access Range(uint64_t first, uint64_t count, bool write, const char* what) const {
        uint64_t b = off_ + first * sizeof(T);
        uint64_t e = b + count * sizeof(T);
        CheckBytes(b, e, what, write);
        return {Space(), b, e, write};
    }
    // Same, for a byte range relative to the tensor start.
    ao::rt::Access RangeBytes(uint64_t first_byte, uint64_t nbytes, bool write, const char* what) const {
        uint64_t b = off_ + first_byte;
        uint64_t e = b + nbytes;
        CheckBytes(b, e, what, write);
        return {Space(), b, e, write};
    }
    // The device checks no tensor bounds: UB/L1/L0 are flat memories, and an access outside the
    // tensor's buffer (inside the memory) touches whatever lies there. Working operators carry
    // such accesses (a Cast that reads or writes whole repeats past a short tail, a temporary
    // sized for a narrower dtype whose neighbour is idle), so they are warnings, as a read past
    // a GM tensor's end is: the outputs decide whether the clobbered or foreign bytes mattered,
    // the race detector sees a neighbour in use, and a candidate may not add one. Past the
    // memory's capacity both are the overflow.
    void CheckBytes(uint64_t b, uint64_t e, const char* what, bool write = true) const {
        if (base_ == nullptr)
            ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: LocalTensor was never allocated", what);
        // InitBuffer places buffers past the end of the memory without complaint (TPipe::Take);
        // using their bytes is the overflow.
        const uint64_t cap = ao::rt::Cur().cap[int(Space())];
        if (e > cap)
            ao::rt::Fail(ao::rt::ErrorKind::UbOverflow,
                         "%s: access [%llu, %llu) of %s reaches past its capacity of %llu bytes: InitBuffer "
                         "placed this buffer at [%llu, %llu)", what, (unsigned long long)b, (unsigned long long)e,
                         ao::rt::SpaceName(Space()), (unsigned long long)cap, (unsigned long long)buf_begin_,
                         (unsigned long long)buf_end_);
        if (b >= buf_begin_ && e <= buf_end_) return;
        char key[160];
        snprintf(key, sizeof key, "%s|%s", what, ao::rt::SpaceName(Space()));
        ao::rt::Warn(write ? ao::rt::ErrorKind::LocalWriteOutsideBuffer : ao::rt::ErrorKind::LocalReadOutsideBuffer,
                     key,
                     "%s: %s of [%llu, %llu) of %s is outside its buffer [%llu, %llu); the device checks no "
                     "tensor bounds, so it %s whatever lies there", what, write ? "write" : "read",
                     (unsigned long long)b, (unsigned long long)e, ao::rt::SpaceName(Space()),
                     (unsigned long long)buf_begin_, (unsigned long long)buf_end_,
                     write ? "overwrites" : "reads");
    }

    uint8_t* base_ = nullptr;     // base of this core's memory space
    uint64_t off_ = 0;            // byte offset of element 0 in the space
    uint32_t size_ = 0;           // elements
    uint64_t buf_begin_ = 0;      // byte bounds of the owning buffer
    uint64_t buf_end_ = 0;
    TPosition pos_ = TPosition::VECCALC;
    void* que_ = nullptr;         // owning queue (TQueBase*), if allocated from one
    int16_t slot_ = -1;           // buffer index in that queue
    int32_t tag_ = 0;
    ShapeInfo shapeInfo_{};

private:
    void ScalarAccess(uint32_t index, bool write) const {
        const char* what = write ? "LocalTensor::SetValue" : "LocalTensor::GetValue";
        ao::rt::Instr ins;
        ins.name = what;
        ins.pipe = ao::rt::Pipe::S;
        ins.cls = ao::rt::OpClass::ScalarLocal;
        ins.dtype_bytes = sizeof(T);
        ins.elems = 1;
        ins.Add(Range(index, 1, write, what));
        ao::rt::Issue(ins);
    }
};

}  // namespace AscendC

namespace ao::k {
// The byte address in memory space `sp` of the current core that a pointer value a kernel formed
// from GetPhyAddr() stands for (a host address inside that space's memory); any other value is
// taken as the space's byte address already (addresses a kernel computes from constants).
inline uint64_t LocalAddr(uint64_t v, ao::rt::Space sp) {
    const uint64_t cap = ao::rt::Cur().cap[int(sp)];
    const uint8_t* views[2] = {ao::rt::Cur().kmem[int(sp)], ao::rt::Cur().mem[int(sp)]};
    for (const uint8_t* view : views) {
        const uint64_t base = reinterpret_cast<uint64_t>(view);
        if (base != 0 && v >= base && v - base <= cap) return v - base;
    }
    return v;
}
}  // namespace ao::k

namespace AscendC {

// ---------------------------------------------------------------------------------------------
// Queues and buffers.
class TPipe;

// The raw buffer handle some queue calls return (TBufHandle is uint8_t* on the device).
using TBufHandle = uint8_t*;

// TQueConfig: the const-pointer form of the queue's `mask` template parameter (TQue<pos, depth,
// &conf>). nd2nz/nz2nd are format conversions of A1/B1 and CO2 queues on other SoCs; bufferLen and
// bufferNumber only let the compiler place the buffers early (InitBuffer still allocates them);
// the rest is reserved.
struct TQueConfig {
    bool nd2nz = false;
    bool nz2nd = false;
    bool scmBlockGroup = false;
    uint32_t bufferLen = 0;
    uint32_t bufferNumber = 0;
    uint32_t consumerSize = 0;
    TPosition consumer[8] = {};
    bool enableStaticEvtId = false;
    bool enableLoopQueue = false;
};

// Where a queue's buffers live and which pipes its EnQue/DeQue pair, from its two positions.
// The toolkit's TQueBind table gives each bound path the TQue it equals: a path from or to GM is
// TQue<on-chip end> (GM->VECIN is TQue<VECIN>, VECOUT->GM is TQue<VECOUT>, GM->A1 is TQue<A1>),
// A1->A2 / B1->B2 / C1->C2 are TQue<A2/B2/C2>, CO1->CO2 is TQue<CO1>. Other on-chip pairs
// (VECIN->VECOUT: one UB buffer reused from copy-in to copy-out) keep their buffers at the
// source; the source position's writer produces and the destination position's reader consumes.
constexpr TPosition QueEquivalent(TPosition src, TPosition dst) {
    if (src == TPosition::GM) return dst;
    if (dst == TPosition::GM) return src;
    if ((src == TPosition::A1 && dst == TPosition::A2) || (src == TPosition::B1 && dst == TPosition::B2) ||
        (src == TPosition::C1 && dst == TPosition::C2))
        return dst;
    if (src == TPosition::CO1 && dst == TPosition::CO2) return src;
    return TPosition::MAX;  // no single-position equivalent
}
constexpr TPosition QueBufferPos(TPosition src, TPosition dst) {
    return QueEquivalent(src, dst) != TPosition::MAX ? QueEquivalent(src, dst) : src;
}
constexpr ao::rt::Pipe QueProducer(TPosition src, TPosition dst) {
    return ao::rt::ProducerOf(QueEquivalent(src, dst) != TPosition::MAX ? QueEquivalent(src, dst) : src);
}
constexpr ao::rt::Pipe QueConsumer(TPosition src, TPosition dst) {
    return ao::rt::ConsumerOf(QueEquivalent(src, dst) != TPosition::MAX ? QueEquivalent(src, dst) : dst);
}

// Buffer pool of one queue: `num` buffers of `len` bytes in the memory space of buf_pos_.
class TQueBase {
public:
    static constexpr int kMaxBuf = 16;
    TPosition src_pos_ = TPosition::VECIN;   // the queue's source position (template)
    TPosition dst_pos_ = TPosition::VECIN;   // its destination position
    TPosition buf_pos_ = TPosition::VECIN;   // where the buffers live (QueBufferPos)
    ao::rt::Pipe prod_ = ao::rt::Pipe::MTE2; // writes a buffer before EnQue (QueProducer)
    ao::rt::Pipe cons_ = ao::rt::Pipe::V;    // reads it after DeQue (QueConsumer)
    int depth_ = 1;
    int num_ = 0;
    uint32_t len_ = 0;
    uint64_t offs_[kMaxBuf] = {};
    uint8_t state_[kMaxBuf] = {};  // 0 free, 1 allocated, 2 enqueued, 3 dequeued
    bool freed_once_[kMaxBuf] = {};
    int fifo_[kMaxBuf] = {};
    // The pipes of each buffer's pending EnQue (the positional EnQue<src, dst> names its own).
    ao::rt::Pipe enq_prod_[kMaxBuf] = {};
    ao::rt::Pipe enq_cons_[kMaxBuf] = {};
    int head_ = 0, count_ = 0;
    int next_ = 0;
    uint32_t uid_ = 0;             // unique id for sync keys
    bool inited_ = false;

    uint64_t Key(int slot) const { return (uint64_t(1) << 40) | (uint64_t(uid_) << 8) | uint64_t(slot); }
    void Bind(TPosition src, TPosition dst, int depth) {
        src_pos_ = src;
        dst_pos_ = dst;
        buf_pos_ = QueBufferPos(src, dst);
        prod_ = QueProducer(src, dst);
        cons_ = QueConsumer(src, dst);
        depth_ = depth;
    }

    template <typename T>
    LocalTensor<T> Make(int slot) {
        LocalTensor<T> t;
        ao::rt::Space sp = ao::rt::SpaceOf(buf_pos_);
        t.base_ = ao::rt::Cur().mem[int(sp)];
        t.off_ = offs_[slot];
        t.size_ = len_ / uint32_t(sizeof(T));
        t.buf_begin_ = offs_[slot];
        t.buf_end_ = offs_[slot] + len_;
        t.pos_ = buf_pos_;
        t.que_ = this;
        t.slot_ = int16_t(slot);
        return t;
    }
    // The buffer a tensor is a view of: the one it was allocated from (views keep it), else the
    // one its address falls in (a zero-length buffer has no address of its own).
    template <typename T>
    int SlotOf(const LocalTensor<T>& t, const char* what) const {
        if (t.que_ == this && t.slot_ >= 0 && t.slot_ < num_) return t.slot_;
        return SlotOf(t.off_, what);
    }
    int SlotOf(uint64_t off, const char* what) const {
        for (int i = 0; i < num_; ++i)
            if (off >= offs_[i] && off < offs_[i] + len_) return i;
        ao::rt::Fail(ao::rt::ErrorKind::QueueMisuse, "%s: tensor does not belong to this queue", what);
    }
    void CheckInit(const char* what) const {
        if (!inited_)
            ao::rt::Fail(ao::rt::ErrorKind::QueueMisuse, "%s: queue used before TPipe::InitBuffer", what);
    }

    template <typename T>
    LocalTensor<T> AllocImpl() {
        CheckInit("AllocTensor");
        for (int k = 0; k < num_; ++k) {
            int s = (next_ + k) % num_;
            if (state_[s] == 0) {
                next_ = (s + 1) % num_;
                state_[s] = 1;
                // The producer may overwrite the buffer only after its last consumer released it.
                if (freed_once_[s]) ao::rt::SyncWait(cons_, prod_, Key(s));
                return Make<T>(s);
            }
        }
        ao::rt::Fail(ao::rt::ErrorKind::QueueMisuse,
                     "AllocTensor: all %d buffers of the queue are in use (missing FreeTensor?); "
                     "the hardware would block forever", num_);
    }
    // EnQue/DeQue with the pipes of the queue's own positions, or of the positions a positional
    // EnQue<srcUserPos, dstUserPos>/DeQue<...> names (GM <-> VECIN/VECOUT only, UB buffers).
    template <TPosition srcUser, TPosition dstUser>
    void CheckUserPositions(const char* what) const {
        constexpr bool ends_ok = (srcUser == TPosition::GM || srcUser == TPosition::VECIN ||
                                  srcUser == TPosition::VECOUT) &&
                                 (dstUser == TPosition::GM || dstUser == TPosition::VECIN ||
                                  dstUser == TPosition::VECOUT) &&
                                 srcUser != dstUser;
        if (!ends_ok || ao::rt::SpaceOf(buf_pos_) != ao::rt::Space::UB)
            ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument,
                         "%s<srcUserPos, dstUserPos>: only the paths GM -> VECIN/VECOUT -> GM of a queue whose "
                         "buffers are in UB can be named (positions %d -> %d)", what, int(srcUser), int(dstUser));
    }
    template <typename T>
    bool EnQueImpl(const LocalTensor<T>& t) { return EnQueImpl(t, prod_, cons_); }
    template <typename T>
    bool EnQueImpl(const LocalTensor<T>& t, ao::rt::Pipe prod, ao::rt::Pipe cons) {
        CheckInit("EnQue");
        int s = SlotOf(t, "EnQue");
        if (state_[s] != 1 && state_[s] != 3)
            ao::rt::Fail(ao::rt::ErrorKind::QueueMisuse, "EnQue: buffer %d was not allocated from this queue", s);
        if (count_ >= depth_ && depth_ > 0)
            ao::rt::Fail(ao::rt::ErrorKind::QueueMisuse,
                         "EnQue: queue already holds %d tensor(s), its depth is %d", count_, depth_);
        state_[s] = 2;
        fifo_[(head_ + count_) % kMaxBuf] = s;
        ++count_;
        enq_prod_[s] = prod;
        enq_cons_[s] = cons;
        ao::rt::SyncSet(prod, cons, Key(s));
        return true;
    }
    template <typename T>
    LocalTensor<T> DeQueImpl() { return Make<T>(DeQueSlot(prod_, cons_)); }
    int DeQueSlot(ao::rt::Pipe prod, ao::rt::Pipe cons) {
        CheckInit("DeQue");
        if (count_ == 0)
            ao::rt::Fail(ao::rt::ErrorKind::QueueMisuse,
                         "DeQue on an empty queue (no matching EnQue); the hardware would block forever");
        int s = fifo_[head_];
        // The consumer waits on the event of the pipe pair it names: an EnQue that set another
        // pair's event leaves that wait unanswered on the device.
        if (enq_prod_[s] != prod || enq_cons_[s] != cons)
            ao::rt::Fail(ao::rt::ErrorKind::QueueMisuse,
                         "DeQue waits for the %s -> %s event but the buffer was enqueued with the %s -> %s event "
                         "(EnQue and DeQue name different positions); the hardware would block forever",
                         ao::rt::PipeName(prod), ao::rt::PipeName(cons), ao::rt::PipeName(enq_prod_[s]),
                         ao::rt::PipeName(enq_cons_[s]));
        head_ = (head_ + 1) % kMaxBuf;
        --count_;
        state_[s] = 3;
        ao::rt::SyncWait(prod, cons, Key(s));
        return s;
    }
    template <typename T>
    void FreeImpl(const LocalTensor<T>& t) {
        CheckInit("FreeTensor");
        int s = SlotOf(t, "FreeTensor");
        if (state_[s] == 0)
            ao::rt::Fail(ao::rt::ErrorKind::QueueMisuse, "FreeTensor: buffer %d is already free", s);
        if (state_[s] == 2)
            ao::rt::Fail(ao::rt::ErrorKind::QueueMisuse, "FreeTensor: buffer %d is still enqueued", s);
        state_[s] = 0;
        freed_once_[s] = true;
        ao::rt::SyncSet(cons_, prod_, Key(s));
    }
};

uint32_t NextQueueUid();

// The calls TQue and TQueBind share (TQue<pos> is TQueBind<pos, pos> on the device).
class TQueCalls : public TQueBase {
public:
    template <typename T> __aicore__ inline LocalTensor<T> AllocTensor() { return AllocImpl<T>(); }
    template <typename T> __aicore__ inline void AllocTensor(LocalTensor<T>& t) { t = AllocImpl<T>(); }
    template <typename T> __aicore__ inline bool EnQue(const LocalTensor<T>& t) { return EnQueImpl(t); }
    template <TPosition srcUserPos, TPosition dstUserPos, typename T>
    __aicore__ inline bool EnQue(const LocalTensor<T>& t) {
        CheckUserPositions<srcUserPos, dstUserPos>("EnQue");
        return EnQueImpl(t, QueProducer(srcUserPos, dstUserPos), QueConsumer(srcUserPos, dstUserPos));
    }
    template <typename T> __aicore__ inline LocalTensor<T> DeQue() { return DeQueImpl<T>(); }
    template <typename T> __aicore__ inline void DeQue(LocalTensor<T>& t) { t = DeQueImpl<T>(); }
    template <TPosition srcUserPos, TPosition dstUserPos, typename T>
    __aicore__ inline LocalTensor<T> DeQue() {
        CheckUserPositions<srcUserPos, dstUserPos>("DeQue");
        return Make<T>(DeQueSlot(QueProducer(srcUserPos, dstUserPos), QueConsumer(srcUserPos, dstUserPos)));
    }
    // The untyped form returns the buffer's handle (kernels call it for the wait alone).
    __aicore__ inline TBufHandle DeQue() {
        int s = DeQueSlot(prod_, cons_);
        return ao::rt::Cur().mem[int(ao::rt::SpaceOf(buf_pos_))] + offs_[s];
    }
    template <typename T> __aicore__ inline void FreeTensor(LocalTensor<T>& t) { FreeImpl(t); }
    __aicore__ inline bool VacantInQue() const { return count_ < depth_; }
    __aicore__ inline bool HasTensorInQue() const { return count_ > 0; }
    __aicore__ inline int32_t GetTensorCountInQue() const { return count_; }
    __aicore__ inline bool HasIdleBuffer() const {
        for (int i = 0; i < num_; ++i) if (state_[i] == 0) return true;
        return false;
    }
    __aicore__ inline void FreeAllEvent() {}
};

template <TPosition src, TPosition dst, int32_t depth, auto mask = 0>
class TQueBind : public TQueCalls {
public:
    __aicore__ inline TQueBind() {
        this->Bind(src, dst, depth);
        this->uid_ = NextQueueUid();
    }
};

template <TPosition pos, int32_t depth = 1, auto mask = 0>
class TQue : public TQueCalls {
public:
    __aicore__ inline TQue() {
        this->Bind(pos, pos, depth);
        this->uid_ = NextQueueUid();
    }
};

// TBuf: one plain buffer for temporaries; no queue semantics.
template <TPosition pos = TPosition::VECCALC>
class TBuf {
public:
    __aicore__ inline TBuf() = default;
    template <typename T>
    __aicore__ inline LocalTensor<T> Get() const { return Get<T>(len_ / uint32_t(sizeof(T))); }
    template <typename T>
    __aicore__ inline LocalTensor<T> Get(uint32_t len) const {
        LocalTensor<T> t;
        t.pos_ = pos;
        // Without InitBuffer the device hands out a tensor over no buffer; a kernel may take one
        // on a path that never uses it. Here it is a tensor never allocated: any access fails.
        if (!inited_) return t;
        // A length past the buffer is not checked on the device either: the tensor's accesses
        // are (bounds of the buffer, not of the tensor).
        t.base_ = ao::rt::Cur().mem[int(ao::rt::SpaceOf(pos))];
        t.off_ = off_;
        t.size_ = len;
        t.buf_begin_ = off_;
        t.buf_end_ = off_ + len_;
        t.pos_ = pos;
        return t;
    }
    // TBuf is a depth-0 queue on the device, so the queue calls compile on it: AllocTensor is
    // Get, FreeTensor releases nothing (no queue, no synchronisation).
    template <typename T>
    __aicore__ inline LocalTensor<T> AllocTensor() const { return Get<T>(); }
    template <typename T>
    __aicore__ inline void FreeTensor(LocalTensor<T>&) const {}
    template <typename T>
    __aicore__ inline LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset) const {
        LocalTensor<T> t = Get<T>();
        t.off_ += bufOffset;
        t.size_ = size;
        return t;
    }
    uint64_t off_ = 0;
    uint32_t len_ = 0;
    bool inited_ = false;
};

// TPipe: allocates queue and buffer memory linearly in each memory space of the core.
class TPipe {
public:
    TPipe();
    ~TPipe();
    __aicore__ inline void Init() {}
    template <class Q>
    __aicore__ inline bool InitBuffer(Q& que, uint8_t num, uint32_t len) {
        static_assert(std::is_base_of_v<TQueBase, Q>, "InitBuffer(que, num, len) needs a TQue/TQueBind");
        if (num == 0 || num > TQueBase::kMaxBuf)
            ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "InitBuffer: buffer number %u not in [1, %d]",
                         unsigned(num), TQueBase::kMaxBuf);
        uint32_t alen = (len + 31u) / 32u * 32u;
        ao::rt::Space sp = ao::rt::SpaceOf(que.buf_pos_);
        que.num_ = num;
        que.len_ = alen;
        for (int i = 0; i < num; ++i) que.offs_[i] = Take(sp, alen, "InitBuffer(TQue)");
        que.inited_ = true;
        return true;
    }
    template <TPosition pos>
    __aicore__ inline bool InitBuffer(TBuf<pos>& buf, uint32_t len) {
        uint32_t alen = (len + 31u) / 32u * 32u;
        buf.off_ = Take(ao::rt::SpaceOf(pos), alen, "InitBuffer(TBuf)");
        buf.len_ = alen;
        buf.inited_ = true;
        return true;
    }
    __aicore__ inline void Reset() {
        for (auto& c : cursor_) c = 0;
        mm_share_open_ = false;
    }
    __aicore__ inline void Destroy() { Reset(); }
    template <HardEvent evt>
    __aicore__ inline TEventID AllocEventID() { return TEventID(next_event_[int(evt)]++ % 8); }
    template <HardEvent evt>
    __aicore__ inline void ReleaseEventID(TEventID) {}
    __aicore__ inline TEventID FetchEventID(HardEvent evt) { return TEventID(next_event_[int(evt)] % 8); }
    template <HardEvent evt>
    __aicore__ inline TEventID FetchEventID() { return FetchEventID(evt); }

    uint64_t Take(ao::rt::Space sp, uint32_t len, const char* what);
    uint64_t cursor_[int(ao::rt::Space::COUNT)] = {};
    uint32_t next_event_[int(HardEvent::MAX)] = {};
    // The L1 / L0C region every Matmul object of this pipe shares (ao::k::MmShareStart).
    uint64_t mm_share_begin_[int(ao::rt::Space::COUNT)] = {};
    uint64_t mm_share_end_[int(ao::rt::Space::COUNT)] = {};
    bool mm_share_open_ = false;
};

TPipe* GetTPipePtr();

}  // namespace AscendC
