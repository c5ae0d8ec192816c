// AscendOptimizer simulator (host side): operator logging macros. Errors and warnings go to
// stderr; debug/info logs are dropped.
#pragma once
#include <cstdio>
#include <string>

namespace ao_log {
inline const char* Name(const char* s) { return s ? s : ""; }
inline const char* Name(const std::string& s) { return s.c_str(); }
template <typename T>
inline const char* Name(const T* ctx) {
    return ctx ? ctx->GetNodeName() : "";
}
}  // namespace ao_log

#define AO_LOG_PRINT(lvl, name, ...)                                              \
    do {                                                                          \
        std::fprintf(stderr, "[%s][%s] ", lvl, ::ao_log::Name(name));             \
        std::fprintf(stderr, __VA_ARGS__);                                        \
        std::fputc('\n', stderr);                                                 \
    } while (0)

#define OPS_LOG_D(name, ...) do { } while (0)
#define OPS_LOG_I(name, ...) do { } while (0)
#define OPS_LOG_W(name, ...) AO_LOG_PRINT("W", name, __VA_ARGS__)
#define OPS_LOG_E(name, ...) AO_LOG_PRINT("E", name, __VA_ARGS__)
#define OPS_LOG_EVENT(name, ...) do { } while (0)
#define OP_LOGD(name, ...) do { } while (0)
#define OP_LOGI(name, ...) do { } while (0)
#define OP_LOGW(name, ...) AO_LOG_PRINT("W", name, __VA_ARGS__)
#define OP_LOGE(name, ...) AO_LOG_PRINT("E", name, __VA_ARGS__)
#define OP_EVENT(name, ...) do { } while (0)
#define OP_LOGE_WITHOUT_REPORT(name, ...) AO_LOG_PRINT("E", name, __VA_ARGS__)
#define VECTOR_INNER_ERR_REPORT_TILIING(name, ...) AO_LOG_PRINT("E", name, __VA_ARGS__)
#define VECTOR_INNER_ERR_REPORT_TILING(name, ...) AO_LOG_PRINT("E", name, __VA_ARGS__)
#define OPS_REPORT_VECTOR_INNER_ERR(name, ...) AO_LOG_PRINT("E", name, __VA_ARGS__)
#define OPS_REPORT_CUBE_INNER_ERR(name, ...) AO_LOG_PRINT("E", name, __VA_ARGS__)
#define CUBE_INNER_ERR_REPORT(name, ...) AO_LOG_PRINT("E", name, __VA_ARGS__)

// No do/while: real code uses it both with and without a trailing semicolon.
#define OPS_LOG_E_IF_NULL(ctx, ptr, action)                                  \
    if ((ptr) == nullptr) {                                                  \
        AO_LOG_PRINT("E", ctx, "%s is nullptr", #ptr);                       \
        action;                                                              \
    }
#define OPS_CHECK_NULL_WITH_CONTEXT(ctx, ptr) OPS_LOG_E_IF_NULL(ctx, ptr, return ge::GRAPH_FAILED)
#define OPS_CHECK_NULL_WITH_CONTEXT_RET(ctx, ptr, ret) OPS_LOG_E_IF_NULL(ctx, ptr, return ret)
#define OP_CHECK_NULL_WITH_CONTEXT(ctx, ptr) OPS_LOG_E_IF_NULL(ctx, ptr, return ge::GRAPH_FAILED)
#define OPS_LOG_E_IF(cond, ctx, ret, ...)                                    \
    do {                                                                     \
        if (cond) {                                                          \
            AO_LOG_PRINT("E", ctx, __VA_ARGS__);                             \
            return ret;                                                      \
        }                                                                    \
    } while (0)
#define OPS_ERR_IF(cond, log_func, expr) \
    do {                                 \
        if (cond) {                      \
            log_func;                    \
            expr;                        \
        }                                \
    } while (0)
#define OP_TILING_CHECK(cond, log_func, expr) OPS_ERR_IF(cond, log_func, expr)
#define OP_CHECK_IF(cond, log_func, expr) OPS_ERR_IF(cond, log_func, expr)
#define OP_CHECK(cond, log_func, expr) OPS_ERR_IF(cond, log_func, expr)
