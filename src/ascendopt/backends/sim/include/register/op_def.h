// AscendOptimizer simulator (host side): ops::OpDef and OP_ADD.
//
// Compile time: every op_host translation unit includes this header (precompiled), and g++
// instantiates the std templates used by any inline body it sees in every TU. So the bodies
// that touch std containers/strings/std::function, and the special members of the classes
// holding them, are defined once in runtime/host_rt.cpp; only trivial accessors and fluent
// no-op setters stay inline here.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ascendopt_host/gert.h"
#include "graph/types.h"
#include "register/op_impl_registry.h"
#include "register/op_scalar_var.h"

namespace ops {

enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };
enum class DependScope : uint32_t { ALL = 0, TILING = 1, INVALID_SCOPE };
enum class FollowType : uint32_t { ALL = 0, DTYPE = 1, FORMAT = 2, SHAPE = 3, INVALID_TYPE };
enum class AttrDataType { ATTR_DT_BOOL = 0, ATTR_DT_FLOAT, ATTR_DT_INT, ATTR_DT_STR, ATTR_DT_LIST_BOOL,
                          ATTR_DT_LIST_FLOAT, ATTR_DT_LIST_INT, ATTR_DT_LIST_LIST_INT, ATTR_DT_MAX };

class OpParamDef {
public:
    explicit OpParamDef(const char* name);
    OpParamDef(const OpParamDef&);
    OpParamDef(OpParamDef&&) noexcept;
    OpParamDef& operator=(const OpParamDef&);
    OpParamDef& operator=(OpParamDef&&) noexcept;
    ~OpParamDef();

    OpParamDef& ParamType(Option t) {
        type_ = t;
        return *this;
    }
    OpParamDef& DataType(std::vector<ge::DataType> types);
    OpParamDef& DataTypeList(std::vector<ge::DataType> types);
    OpParamDef& DataTypeForBinQuery(std::vector<ge::DataType>) { return *this; }
    OpParamDef& Format(std::vector<ge::Format> formats);
    OpParamDef& FormatList(std::vector<ge::Format> formats);
    OpParamDef& FormatForBinQuery(std::vector<ge::Format>) { return *this; }
    OpParamDef& UnknownShapeFormat(std::vector<ge::Format>) { return *this; }
    OpParamDef& ValueDepend(Option v) {
        value_depend_ = (v == REQUIRED || v == OPTIONAL);
        return *this;
    }
    OpParamDef& ValueDepend(Option v, DependScope) { return ValueDepend(v); }
    OpParamDef& IgnoreContiguous() { return *this; }
    OpParamDef& AutoContiguous() { return *this; }
    OpParamDef& Scalar() {
        scalar_ = true;
        return *this;
    }
    OpParamDef& ScalarList() {
        scalar_ = true;
        return *this;
    }
    OpParamDef& To(ge::DataType) { return *this; }
    OpParamDef& To(const char*) { return *this; }
    // The documented forms: 0 (zero the output before the kernel), one typed value, or one per
    // dtype/format combination (AoInitValues; the runner fills the output's GM with it).
    OpParamDef& InitValue(uint64_t value);
    OpParamDef& InitValue(const ScalarVar& value);
    OpParamDef& InitValue(const std::vector<ScalarVar>& values);
    // The kernel writes this output's real shape into the shape-out argument (AoShapeDepend).
    OpParamDef& OutputShapeDependOnCompute() {
        shape_depend_ = true;
        return *this;
    }
    OpParamDef& Follow(const char*) { return *this; }
    OpParamDef& Follow(const char*, FollowType) { return *this; }
    OpParamDef& Comment(const char*) { return *this; }
    OpParamDef& Version(uint32_t) { return *this; }
    OpParamDef& NoTailBlock() { return *this; }

    const std::string& AoName() const { return name_; }
    Option AoType() const { return type_; }
    const std::vector<ge::DataType>& AoDataTypes() const { return dtypes_; }
    const std::vector<ge::Format>& AoFormats() const { return formats_; }
    bool AoValueDepend() const { return value_depend_; }
    bool AoScalar() const { return scalar_; }
    bool AoInitValue() const { return !init_values_.empty(); }
    // One value (every combination) or one per dtype/format combination; empty: none.
    const std::vector<ScalarVar>& AoInitValues() const { return init_values_; }
    bool AoShapeDepend() const { return shape_depend_; }

private:
    std::string name_;
    Option type_ = REQUIRED;
    std::vector<ge::DataType> dtypes_;
    std::vector<ge::Format> formats_;
    bool dtype_list_ = false;
    bool value_depend_ = false;
    bool scalar_ = false;
    std::vector<ScalarVar> init_values_;
    bool shape_depend_ = false;
};

class OpAttrDef {
public:
    explicit OpAttrDef(const char* name);
    OpAttrDef(const OpAttrDef&);
    OpAttrDef(OpAttrDef&&) noexcept;
    OpAttrDef& operator=(const OpAttrDef&);
    OpAttrDef& operator=(OpAttrDef&&) noexcept;
    ~OpAttrDef();

    OpAttrDef& AttrType(Option t) {
        required_ = (t == REQUIRED);
        return *this;
    }
    OpAttrDef& Int() { return Kind("int"); }
    OpAttrDef& Int(int64_t v) {
        i_ = v;
        return Kind("int");
    }
    OpAttrDef& Float() { return Kind("float"); }
    OpAttrDef& Float(float v) {
        f_ = v;
        return Kind("float");
    }
    OpAttrDef& Bool() { return Kind("bool"); }
    OpAttrDef& Bool(bool v) {
        b_ = v;
        return Kind("bool");
    }
    OpAttrDef& String() { return Kind("str"); }
    OpAttrDef& String(const char* v);
    OpAttrDef& ListInt() { return Kind("list_int"); }
    OpAttrDef& ListInt(std::vector<int64_t> v);
    OpAttrDef& ListFloat() { return Kind("list_float"); }
    OpAttrDef& ListFloat(std::vector<float> v);
    OpAttrDef& ListBool() { return Kind("list_bool"); }
    OpAttrDef& ListBool(std::vector<bool> v);
    OpAttrDef& ListListInt() { return Kind("list_list_int"); }
    OpAttrDef& ListListInt(std::vector<std::vector<int64_t>>) { return Kind("list_list_int"); }
    OpAttrDef& Comment(const char*) { return *this; }
    OpAttrDef& Version(uint32_t) { return *this; }

    const std::string& AoName() const { return name_; }
    const std::string& AoKind() const { return kind_; }
    bool AoRequired() const { return required_; }
    int64_t AoInt() const { return i_; }
    float AoFloat() const { return f_; }
    bool AoBool() const { return b_; }
    const std::string& AoStr() const { return s_; }
    const std::vector<int64_t>& AoListInt() const { return li_; }
    const std::vector<float>& AoListFloat() const { return lf_; }
    const std::vector<bool>& AoListBool() const { return lb_; }

private:
    OpAttrDef& Kind(const char* k);
    std::string name_;
    std::string kind_ = "int";
    bool required_ = true;
    int64_t i_ = 0;
    float f_ = 0;
    bool b_ = false;
    std::string s_;
    std::vector<int64_t> li_;
    std::vector<float> lf_;
    std::vector<bool> lb_;
};

namespace ao_detail {
// The parameter named `name` (appended if absent).
OpParamDef& FindOrAdd(std::deque<OpParamDef>& v, const char* name);
}  // namespace ao_detail

class OpAICoreConfig {
public:
    OpAICoreConfig();
    explicit OpAICoreConfig(const char*);
    OpAICoreConfig(const OpAICoreConfig&);
    OpAICoreConfig(OpAICoreConfig&&);  // not noexcept: std::deque's move constructor allocates
    OpAICoreConfig& operator=(const OpAICoreConfig&);
    OpAICoreConfig& operator=(OpAICoreConfig&&) noexcept;
    ~OpAICoreConfig();

    OpParamDef& Input(const char* name);
    OpParamDef& Output(const char* name);
    OpAICoreConfig& DynamicCompileStaticFlag(bool) { return *this; }
    OpAICoreConfig& DynamicFormatFlag(bool) { return *this; }
    OpAICoreConfig& DynamicRankSupportFlag(bool) { return *this; }
    OpAICoreConfig& DynamicShapeSupportFlag(bool) { return *this; }
    OpAICoreConfig& NeedCheckSupportFlag(bool) { return *this; }
    OpAICoreConfig& PrecisionReduceFlag(bool) { return *this; }
    OpAICoreConfig& ExtendCfgInfo(const char*, const char*) { return *this; }
    const std::deque<OpParamDef>& AoInputs() const { return inputs_; }
    const std::deque<OpParamDef>& AoOutputs() const { return outputs_; }

private:
    std::deque<OpParamDef> inputs_;
    std::deque<OpParamDef> outputs_;
};

class OpAICoreDef {
public:
    OpAICoreDef();
    OpAICoreDef(const OpAICoreDef&);
    OpAICoreDef(OpAICoreDef&&) noexcept;
    OpAICoreDef& operator=(const OpAICoreDef&);
    OpAICoreDef& operator=(OpAICoreDef&&) noexcept;
    ~OpAICoreDef();

    OpAICoreDef& SetTiling(gert::TilingKernelFunc fn) {
        tiling_ = fn;
        return *this;
    }
    template <typename F>
    OpAICoreDef& SetCheckSupport(F) {
        return *this;
    }
    template <typename F>
    OpAICoreDef& SetOpSelectFormat(F) {
        return *this;
    }
    template <typename F>
    OpAICoreDef& SetOpSupportInfo(F) {
        return *this;
    }
    template <typename F>
    OpAICoreDef& SetOpSpecInfo(F) {
        return *this;
    }
    template <typename F>
    OpAICoreDef& SetParamGeneralize(F) {
        return *this;
    }
    OpAICoreDef& AddConfig(const char* soc);
    OpAICoreDef& AddConfig(const char* soc, const OpAICoreConfig& cfg);
    gert::TilingKernelFunc AoTiling() const { return tiling_; }
    const std::vector<std::string>& AoSocs() const { return socs_; }
    const std::map<std::string, OpAICoreConfig>& AoConfigs() const { return configs_; }

private:
    gert::TilingKernelFunc tiling_ = nullptr;
    std::vector<std::string> socs_;
    std::map<std::string, OpAICoreConfig> configs_;
};

class OpMC2Def {
public:
    OpMC2Def& HcclGroup(const char*) { return *this; }
    OpMC2Def& HcclGroup(std::vector<const char*>) { return *this; }
};

class OpDef {
public:
    explicit OpDef(const char* type);
    OpDef(const OpDef&);
    OpDef& operator=(const OpDef&);
    virtual ~OpDef();  // the key function: OpDef's vtable is emitted in host_rt.cpp only

    OpParamDef& Input(const char* name);
    OpParamDef& Output(const char* name);
    OpAttrDef& Attr(const char* name);
    OpDef& SetInferShape(gert::InferShapeKernelFunc fn) {
        infer_shape_ = fn;
        return *this;
    }
    OpDef& SetInferDataType(gert::InferDataTypeKernelFunc fn) {
        infer_datatype_ = fn;
        return *this;
    }
    template <typename F>
    OpDef& SetInferShapeRange(F) {
        return *this;
    }
    OpAICoreDef& AICore() { return aicore_; }
    OpMC2Def& MC2() { return mc2_; }
    OpDef& Comment(const char*) { return *this; }
    template <typename T>
    OpDef& Comment(T, const char*) {
        return *this;
    }
    OpDef& EnableFallBack() { return *this; }
    template <typename T>
    OpDef& FormatMatchMode(T) {
        return *this;
    }

    const std::string& AoType() const { return type_; }
    const std::deque<OpParamDef>& AoInputs() const { return inputs_; }
    const std::deque<OpParamDef>& AoOutputs() const { return outputs_; }
    const std::deque<OpAttrDef>& AoAttrs() const { return attrs_; }
    const OpAICoreDef& AoAICore() const { return aicore_; }
    gert::InferShapeKernelFunc AoInferShape() const { return infer_shape_; }
    gert::InferDataTypeKernelFunc AoInferDataType() const { return infer_datatype_; }

private:
    std::string type_;
    std::deque<OpParamDef> inputs_;
    std::deque<OpParamDef> outputs_;
    std::deque<OpAttrDef> attrs_;
    OpAICoreDef aicore_;
    OpMC2Def mc2_;
    gert::InferShapeKernelFunc infer_shape_ = nullptr;
    gert::InferDataTypeKernelFunc infer_datatype_ = nullptr;
};

struct AoOpDefEntry {
    std::string type;
    std::function<OpDef*(const char*)> make;
};
std::vector<AoOpDefEntry>& AoOpDefRegistry();
struct AoOpDefRegistrar {
    AoOpDefRegistrar(const char* type, std::function<OpDef*(const char*)> make);
    // What OP_ADD uses: a plain function pointer, so no std::function is instantiated in op code.
    AoOpDefRegistrar(const char* type, OpDef* (*make)(const char*));
};

}  // namespace ops

// OP_ADD(ClassName): registers op type "ClassName"; the class is constructed on first use.
#define OP_ADD(opType, ...)                                                                  \
    static ::ops::AoOpDefRegistrar g_ao_op_add_##opType __attribute__((unused))(            \
        #opType, +[](const char* ao_name) -> ::ops::OpDef* { return new opType(ao_name); })
