// AscendOptimizer simulator (host side): ge::AscendString.
#pragma once
#include <string>

namespace ge {
class AscendString {
public:
    AscendString() = default;
    AscendString(const char* s) : s_(s ? s : "") {}  // NOLINT: implicit like CANN
    const char* GetString() const { return s_.c_str(); }
    size_t GetLength() const { return s_.size(); }
    bool operator<(const AscendString& o) const { return s_ < o.s_; }
    bool operator==(const AscendString& o) const { return s_ == o.s_; }
    bool operator!=(const AscendString& o) const { return s_ != o.s_; }

private:
    std::string s_;
};
}  // namespace ge
