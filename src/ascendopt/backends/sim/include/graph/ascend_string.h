// AscendOptimizer simulator (host side): ge::AscendString. Members are defined in
// runtime/host_rt.cpp (op code then instantiates no std::string code).
#pragma once
#include <string>

namespace ge {
class AscendString {
public:
    AscendString();
    AscendString(const char* s);  // NOLINT: implicit like CANN
    AscendString(const AscendString&);
    AscendString(AscendString&&) noexcept;
    AscendString& operator=(const AscendString&);
    AscendString& operator=(AscendString&&) noexcept;
    ~AscendString();

    const char* GetString() const;
    size_t GetLength() const;
    bool operator<(const AscendString& o) const;
    bool operator==(const AscendString& o) const;
    bool operator!=(const AscendString& o) const;

private:
    std::string s_;
};
}  // namespace ge
