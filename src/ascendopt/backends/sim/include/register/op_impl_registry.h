// AscendOptimizer simulator (host side): IMPL_OP / IMPL_OP_OPTILING / IMPL_OP_INFERSHAPE.
#pragma once
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ascendopt_host/gert.h"
#include "graph/ge_error_codes.h"
#include "graph/types.h"

namespace gert {

using TilingKernelFunc = ge::graphStatus (*)(TilingContext*);
using InferShapeKernelFunc = ge::graphStatus (*)(InferShapeContext*);
using InferDataTypeKernelFunc = ge::graphStatus (*)(InferDataTypeContext*);
using InferShapeRangeKernelFunc = ge::graphStatus (*)(InferShapeRangeContext*);
using TilingParseFunc = ge::graphStatus (*)(TilingParseContext*);

struct AoImplEntry {
    TilingKernelFunc tiling = nullptr;
    TilingParseFunc tiling_parse = nullptr;
    std::function<std::shared_ptr<void>()> make_compile_info;
    InferShapeKernelFunc infer_shape = nullptr;
    InferDataTypeKernelFunc infer_datatype = nullptr;
    std::vector<int32_t> data_dependency;
};

std::map<std::string, AoImplEntry>& AoImplRegistry();

// Member bodies that touch the registry are in runtime/host_rt.cpp (see register/op_def.h).
class OpImplRegisterV2 {
public:
    using TilingKernelFunc = gert::TilingKernelFunc;
    using InferShapeKernelFunc = gert::InferShapeKernelFunc;
    using InferDataTypeKernelFunc = gert::InferDataTypeKernelFunc;

    explicit OpImplRegisterV2(const char* op_type);
    OpImplRegisterV2(const OpImplRegisterV2&);
    OpImplRegisterV2(OpImplRegisterV2&&) noexcept;
    OpImplRegisterV2& operator=(const OpImplRegisterV2&);
    OpImplRegisterV2& operator=(OpImplRegisterV2&&) noexcept;
    ~OpImplRegisterV2();

    OpImplRegisterV2& Tiling(TilingKernelFunc fn, size_t = 0);
    template <typename CompileInfoT>
    OpImplRegisterV2& TilingParse(TilingParseFunc fn) {
        return AoTilingParse(fn, &AoNewCompileInfo<CompileInfoT>, &AoDeleteCompileInfo<CompileInfoT>);
    }
    OpImplRegisterV2& InferShape(InferShapeKernelFunc fn);
    OpImplRegisterV2& InferDataType(InferDataTypeKernelFunc fn);
    template <typename F>
    OpImplRegisterV2& InferShapeRange(F) {
        return *this;
    }
    OpImplRegisterV2& InputsDataDependency(std::initializer_list<int32_t> idx);
    OpImplRegisterV2& TilingInputsDataDependency(std::initializer_list<int32_t> idx) {
        return InputsDataDependency(idx);
    }
    template <typename P>
    OpImplRegisterV2& TilingInputsDataDependency(std::initializer_list<int32_t> idx, P) {
        return InputsDataDependency(idx);
    }
    OpImplRegisterV2& OutputShapeDependOnCompute(std::initializer_list<int32_t>) { return *this; }
    OpImplRegisterV2& InferOutDataTypeSameWithFirstInput() { return *this; }
    OpImplRegisterV2& HostInputs(std::initializer_list<int32_t>) { return *this; }
    template <typename V>
    OpImplRegisterV2& PrivateAttr(const char*, V) {
        return *this;
    }
    OpImplRegisterV2& PrivateAttr(const char*) { return *this; }
    template <typename F>
    OpImplRegisterV2& GenSimplifiedKey(F) {
        return *this;
    }
    template <typename F>
    OpImplRegisterV2& OpExecuteFunc(F) {
        return *this;
    }
    template <typename F>
    OpImplRegisterV2& InferFormat(F) {
        return *this;
    }

private:
    template <typename T>
    static void* AoNewCompileInfo() {
        return new T();
    }
    template <typename T>
    static void AoDeleteCompileInfo(void* p) {
        delete static_cast<T*>(p);
    }
    // Registers `fn` and a compile-info factory: make() allocates one object, destroy() frees it.
    OpImplRegisterV2& AoTilingParse(TilingParseFunc fn, void* (*make)(), void (*destroy)(void*));
    AoImplEntry& Entry();
    std::string op_type_;
};

}  // namespace gert

#define AO_IMPL_CAT2(a, b) a##b
#define AO_IMPL_CAT(a, b) AO_IMPL_CAT2(a, b)
#define IMPL_OP(op_type)                                                                             \
    static ::gert::OpImplRegisterV2 AO_IMPL_CAT(g_ao_impl_op_, __COUNTER__) __attribute__((unused)) = \
        ::gert::OpImplRegisterV2(#op_type)
#define IMPL_OP_OPTILING(op_type) IMPL_OP(op_type)
#define IMPL_OP_INFERSHAPE(op_type) IMPL_OP(op_type)
#define IMPL_OP_DEFAULT() IMPL_OP(DefaultImpl)
