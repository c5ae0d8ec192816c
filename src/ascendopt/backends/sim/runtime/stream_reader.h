// AscendOptimizer simulator: the timer's reader of the timing stream (stream.h describes the
// protocol; timer.cpp replays it). The event pipe, or an in-memory copy of a launch's stream for a
// second replay (docs/timing-model.md, "Bandwidth share"), and the exceptions a replay ends with.
#pragma once
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "stream.h"

namespace ao::rt::replay {

struct Malformed {
    std::string what;
};
struct Incomplete {
    std::string what;
};
struct EndOfBatch {};  // a batch's stream ended where the next case's would begin

[[noreturn]] inline void Bad(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
inline void Bad(const char* fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    throw Malformed{msg};
}

// The event pipe, read in kBufBytes chunks; or a recorded stream (`mem`), for a second replay.
class Reader {
public:
    explicit Reader(int fd) : fd_(fd) {}
    explicit Reader(const std::vector<uint8_t>* mem) : mem_(mem) {}
    // Keep a copy of the stream from the next byte on in `tape`, at most `cap` bytes (past that
    // the tape is given up: cleared, and Taped() false). Whole chunks are copied as they are
    // read, so the tape may end with bytes of a batch's next case (a replay stops at kEnd).
    void Tape(std::vector<uint8_t>* tape, size_t cap) {
        tape_ = tape;
        tape_cap_ = cap;
        tape_->assign(buf_ + pos_, buf_ + len_);
    }
    void StopTape() {
        if (tape_ != nullptr) std::vector<uint8_t>().swap(*tape_);
        tape_ = nullptr;
    }
    bool Taped() const { return tape_ != nullptr; }
    // Reads n bytes; false at the end of the stream before the first of them (a record
    // boundary). The end inside the n bytes is a truncated record.
    bool Get(void* dst, size_t n) {
        auto* out = static_cast<uint8_t*>(dst);
        size_t got = 0;
        while (got < n) {
            if (pos_ == len_ && !Fill()) {
                if (got == 0) return false;
                Bad("truncated record at byte %" PRIu64, offset_);
            }
            size_t k = std::min(n - got, len_ - pos_);
            std::memcpy(out + got, buf_ + pos_, k);
            pos_ += k;
            got += k;
            offset_ += k;
        }
        return true;
    }
    void Need(void* dst, size_t n) {
        if (!Get(dst, n)) Bad("truncated record at byte %" PRIu64, offset_);
    }
    uint64_t Offset() const { return offset_; }

private:
    void Record(const uint8_t* p, size_t k) {
        if (tape_->size() + k > tape_cap_) return StopTape();
        tape_->insert(tape_->end(), p, p + k);
    }
    bool Fill() {
        if (!Read()) return false;
        if (tape_ != nullptr) Record(buf_, len_);
        return true;
    }
    bool Read() {
        if (mem_ != nullptr) {
            if (mem_pos_ >= mem_->size()) return false;
            len_ = std::min(sizeof buf_, mem_->size() - mem_pos_);
            std::memcpy(buf_, mem_->data() + mem_pos_, len_);
            mem_pos_ += len_;
            pos_ = 0;
            return true;
        }
        for (;;) {
            ssize_t r = read(fd_, buf_, sizeof buf_);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) return false;
            pos_ = 0;
            len_ = size_t(r);
            return true;
        }
    }
    int fd_ = -1;
    const std::vector<uint8_t>* mem_ = nullptr;
    size_t mem_pos_ = 0;
    std::vector<uint8_t>* tape_ = nullptr;
    size_t tape_cap_ = 0;
    size_t pos_ = 0, len_ = 0;
    uint64_t offset_ = 0;
    uint8_t buf_[ts::kBufBytes];
};

}  // namespace ao::rt::replay
