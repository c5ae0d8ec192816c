// AscendOptimizer simulator (host side): the toolkit's error-message reporting macros. The
// message is already logged by the caller's log macro; reporting it to the graph engine's
// error manager has no counterpart here, so the report is checked for its format and dropped.
#pragma once
#include <cstdio>

namespace ao_errmsg {
inline void Report(const char* /*code*/, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
inline void Report(const char*, const char*, ...) {}
}  // namespace ao_errmsg

#define REPORT_INNER_ERR_MSG(error_code, fmt, ...) ::ao_errmsg::Report((error_code), fmt, ##__VA_ARGS__)
#define REPORT_INNER_ERROR(error_code, fmt, ...) ::ao_errmsg::Report((error_code), fmt, ##__VA_ARGS__)
#define REPORT_CALL_ERROR(error_code, fmt, ...) ::ao_errmsg::Report((error_code), fmt, ##__VA_ARGS__)
