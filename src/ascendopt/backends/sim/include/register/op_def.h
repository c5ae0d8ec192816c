// AscendOptimizer simulator (host side): ops::OpDef and OP_ADD.
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

namespace ops {

enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };
enum class DependScope : uint32_t { ALL = 0, TILING = 1, INVALID_SCOPE };
enum class FollowType : uint32_t { ALL = 0, DTYPE = 1, FORMAT = 2, SHAPE = 3, INVALID_TYPE };
enum class AttrDataType { ATTR_DT_BOOL = 0, ATTR_DT_FLOAT, ATTR_DT_INT, ATTR_DT_STR, ATTR_DT_LIST_BOOL,
                          ATTR_DT_LIST_FLOAT, ATTR_DT_LIST_INT, ATTR_DT_LIST_LIST_INT, ATTR_DT_MAX };

class OpParamDef {
public:
    explicit OpParamDef(const char* name) : name_(name ? name : "") {}

    OpParamDef& ParamType(Option t) {
        type_ = t;
        return *this;
    }
    OpParamDef& DataType(std::vector<ge::DataType> types) {
        dtypes_ = std::move(types);
        return *this;
    }
    OpParamDef& DataTypeList(std::vector<ge::DataType> types) {
        dtypes_ = std::move(types);
        dtype_list_ = true;
        return *this;
    }
    OpParamDef& DataTypeForBinQuery(std::vector<ge::DataType>) { return *this; }
    OpParamDef& Format(std::vector<ge::Format> formats) {
        formats_ = std::move(formats);
        return *this;
    }
    OpParamDef& FormatList(std::vector<ge::Format> formats) {
        formats_ = std::move(formats);
        return *this;
    }
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
    template <typename... T>
    OpParamDef& InitValue(const T&...) {
        return *this;
    }
    OpParamDef& OutputShapeDependOnCompute() { return *this; }
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

private:
    std::string name_;
    Option type_ = REQUIRED;
    std::vector<ge::DataType> dtypes_;
    std::vector<ge::Format> formats_;
    bool dtype_list_ = false;
    bool value_depend_ = false;
    bool scalar_ = false;
};

class OpAttrDef {
public:
    explicit OpAttrDef(const char* name) : name_(name ? name : "") {}

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
    OpAttrDef& String(const char* v) {
        s_ = v ? v : "";
        return Kind("str");
    }
    OpAttrDef& ListInt() { return Kind("list_int"); }
    OpAttrDef& ListInt(std::vector<int64_t> v) {
        li_ = std::move(v);
        return Kind("list_int");
    }
    OpAttrDef& ListFloat() { return Kind("list_float"); }
    OpAttrDef& ListFloat(std::vector<float> v) {
        lf_ = std::move(v);
        return Kind("list_float");
    }
    OpAttrDef& ListBool() { return Kind("list_bool"); }
    OpAttrDef& ListBool(std::vector<bool> v) {
        lb_ = std::move(v);
        return Kind("list_bool");
    }
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
    OpAttrDef& Kind(const char* k) {
        kind_ = k;
        return *this;
    }
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
inline OpParamDef& FindOrAdd(std::deque<OpParamDef>& v, const char* name) {
    std::string n = name ? name : "";
    for (auto& p : v) {
        if (p.AoName() == n) return p;
    }
    v.emplace_back(name);
    return v.back();
}
}  // namespace ao_detail

class OpAICoreConfig {
public:
    OpAICoreConfig() = default;
    explicit OpAICoreConfig(const char*) {}
    OpParamDef& Input(const char* name) { return ao_detail::FindOrAdd(inputs_, name); }
    OpParamDef& Output(const char* name) { return ao_detail::FindOrAdd(outputs_, name); }
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
    OpAICoreDef& AddConfig(const char* soc) {
        socs_.push_back(soc ? soc : "");
        return *this;
    }
    OpAICoreDef& AddConfig(const char* soc, const OpAICoreConfig& cfg) {
        socs_.push_back(soc ? soc : "");
        configs_[soc ? soc : ""] = cfg;
        return *this;
    }
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
    explicit OpDef(const char* type) : type_(type ? type : "") {}
    virtual ~OpDef() = default;

    OpParamDef& Input(const char* name) { return ao_detail::FindOrAdd(inputs_, name); }
    OpParamDef& Output(const char* name) { return ao_detail::FindOrAdd(outputs_, name); }
    OpAttrDef& Attr(const char* name) {
        std::string n = name ? name : "";
        for (auto& a : attrs_) {
            if (a.AoName() == n) return a;
        }
        attrs_.emplace_back(name);
        return attrs_.back();
    }
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
inline std::vector<AoOpDefEntry>& AoOpDefRegistry() {
    static std::vector<AoOpDefEntry> v;
    return v;
}
struct AoOpDefRegistrar {
    AoOpDefRegistrar(const char* type, std::function<OpDef*(const char*)> make) {
        AoOpDefRegistry().push_back(AoOpDefEntry{type, std::move(make)});
    }
};

}  // namespace ops

// OP_ADD(ClassName): registers op type "ClassName"; the class is constructed on first use.
#define OP_ADD(opType, ...)                                                                  \
    static ::ops::AoOpDefRegistrar g_ao_op_add_##opType __attribute__((unused))(            \
        #opType, [](const char* ao_name) -> ::ops::OpDef* { return new opType(ao_name); })
