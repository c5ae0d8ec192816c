// AscendOptimizer simulator (host side): the toolkit's process log API as operator code
// reaches it (cann-ops' log/inner/dfx_base.h calls AlogCheckDebugLevel / AlogRecord).
// Error and warning records go to stderr; debug, info and event records are dropped.
#pragma once
#include <cstdarg>
#include <cstdint>
#include <cstdio>

// Log levels and record types.
#define DLOG_DEBUG 0
#define DLOG_INFO 1
#define DLOG_WARN 2
#define DLOG_ERROR 3
#define DLOG_NULL 4
#define DLOG_TRACE 5
#define DLOG_OPLOG 6
#define DLOG_EVENT 0x10
#define DLOG_TYPE_DEBUG 0
#define DLOG_TYPE_RUN 1
#ifndef MSG_LENGTH
#define MSG_LENGTH 1024
#endif

// Module ids operator code names (the toolkit declares them at global scope too).
enum AoLogModuleId : uint32_t { SLOG = 0, GE = 45, FE = 46, TBE = 47, OP = 51, AO_LOG_MODULE_END };

inline int32_t AlogCheckDebugLevel(uint32_t /*moduleId*/, int32_t level) {
    return (level == DLOG_ERROR || level == DLOG_WARN) ? 1 : 0;
}

inline int32_t AlogRecord(uint32_t /*moduleId*/, uint32_t /*logType*/, int32_t level, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));
inline int32_t AlogRecord(uint32_t, uint32_t, int32_t level, const char* fmt, ...) {
    if (level != DLOG_ERROR && level != DLOG_WARN) return 0;
    std::fputs(level == DLOG_ERROR ? "[E]" : "[W]", stderr);
    va_list ap;
    va_start(ap, fmt);
    std::vfprintf(stderr, fmt, ap);
    va_end(ap);
    std::fputc('\n', stderr);
    return 0;
}
