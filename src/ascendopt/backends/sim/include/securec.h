// AscendOptimizer simulator (host side): the bounds-checked C string/memory functions of the
// toolkit's securec library that operator code calls (memcpy_s, memset_s, snprintf_s, ...).
// Each checks its destination size the way the library does and returns a non-zero errno_t
// (EINVAL for null pointers, ERANGE when the destination is too small) instead of writing
// past it; on an overlapping or oversized copy the destination is cleared, as the library does.
#pragma once
#include <cerrno>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstring>

#ifndef EOK
#define EOK 0
#endif
typedef int errno_t;
#ifndef SECUREC_MEM_MAX_LEN
#define SECUREC_MEM_MAX_LEN 0x7fffffffUL
#endif
#ifndef SECUREC_STRING_MAX_LEN
#define SECUREC_STRING_MAX_LEN 0x7fffffffUL
#endif

inline errno_t memset_s(void* dest, size_t destMax, int c, size_t count) {
    if (dest == nullptr || destMax > SECUREC_MEM_MAX_LEN) return EINVAL;
    if (count > destMax) {
        std::memset(dest, c, destMax);
        return ERANGE;
    }
    std::memset(dest, c, count);
    return EOK;
}

inline errno_t memcpy_s(void* dest, size_t destMax, const void* src, size_t count) {
    if (dest == nullptr || destMax > SECUREC_MEM_MAX_LEN) return EINVAL;
    if (src == nullptr) {
        std::memset(dest, 0, destMax);
        return EINVAL;
    }
    if (count > destMax) {
        std::memset(dest, 0, destMax);
        return ERANGE;
    }
    const char* s = static_cast<const char*>(src);
    char* d = static_cast<char*>(dest);
    if (count > 0 && ((d <= s && s < d + count) || (s <= d && d < s + count))) {
        std::memset(dest, 0, destMax);
        return ERANGE;  // overlapping: memmove_s is the call for that
    }
    std::memcpy(dest, src, count);
    return EOK;
}

inline errno_t memmove_s(void* dest, size_t destMax, const void* src, size_t count) {
    if (dest == nullptr || destMax > SECUREC_MEM_MAX_LEN) return EINVAL;
    if (src == nullptr) {
        std::memset(dest, 0, destMax);
        return EINVAL;
    }
    if (count > destMax) {
        std::memset(dest, 0, destMax);
        return ERANGE;
    }
    std::memmove(dest, src, count);
    return EOK;
}

inline errno_t strncpy_s(char* dest, size_t destMax, const char* src, size_t count) {
    if (dest == nullptr || destMax == 0 || destMax > SECUREC_STRING_MAX_LEN) return EINVAL;
    if (src == nullptr) {
        dest[0] = '\0';
        return EINVAL;
    }
    size_t n = 0;
    while (n < count && src[n] != '\0') ++n;
    if (n >= destMax) {
        dest[0] = '\0';
        return ERANGE;
    }
    std::memcpy(dest, src, n);
    dest[n] = '\0';
    return EOK;
}

inline errno_t strcpy_s(char* dest, size_t destMax, const char* src) {
    return strncpy_s(dest, destMax, src, src ? std::strlen(src) : 0);
}

inline errno_t strcat_s(char* dest, size_t destMax, const char* src) {
    if (dest == nullptr || destMax == 0 || destMax > SECUREC_STRING_MAX_LEN) return EINVAL;
    size_t used = strnlen(dest, destMax);
    if (used == destMax) return EINVAL;  // destination not terminated within its size
    return strcpy_s(dest + used, destMax - used, src);
}

// Writes at most min(count, destMax - 1) characters and a terminator; -1 when the output was
// cut (or an argument is invalid), else the number of characters written.
inline int vsnprintf_s(char* dest, size_t destMax, size_t count, const char* format, va_list ap) {
    if (dest == nullptr || format == nullptr || destMax == 0 || destMax > SECUREC_STRING_MAX_LEN) return -1;
    size_t limit = count < destMax - 1 ? count : destMax - 1;
    int n = std::vsnprintf(dest, limit + 1, format, ap);
    if (n < 0) {
        dest[0] = '\0';
        return -1;
    }
    return static_cast<size_t>(n) > limit ? -1 : n;
}

inline int snprintf_s(char* dest, size_t destMax, size_t count, const char* format, ...)
    __attribute__((format(printf, 4, 5)));
inline int snprintf_s(char* dest, size_t destMax, size_t count, const char* format, ...) {
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf_s(dest, destMax, count, format, ap);
    va_end(ap);
    return n;
}

inline int vsprintf_s(char* dest, size_t destMax, const char* format, va_list ap) {
    if (dest == nullptr || format == nullptr || destMax == 0 || destMax > SECUREC_STRING_MAX_LEN) return -1;
    int n = std::vsnprintf(dest, destMax, format, ap);
    if (n < 0 || static_cast<size_t>(n) >= destMax) {
        dest[0] = '\0';
        return -1;
    }
    return n;
}

inline int sprintf_s(char* dest, size_t destMax, const char* format, ...) __attribute__((format(printf, 3, 4)));
inline int sprintf_s(char* dest, size_t destMax, const char* format, ...) {
    va_list ap;
    va_start(ap, format);
    int n = vsprintf_s(dest, destMax, format, ap);
    va_end(ap);
    return n;
}
