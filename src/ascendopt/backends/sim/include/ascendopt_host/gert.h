// AscendOptimizer simulator (host side): the gert runtime types seen by op_host code
// (Shape, StorageShape, Tensor, RuntimeAttrs, TilingContext, InferShapeContext, ...).
// The host runtime (runtime/host_rt.cpp) fills the contexts; op code only reads/writes them.
// Bodies that touch std containers/strings, and the special members of the classes holding
// them, are defined in runtime/host_rt.cpp (see register/op_def.h for why).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "graph/ge_error_codes.h"
#include "graph/types.h"
#include "platform/platform_infos_def.h"

namespace gert {

class Shape {
public:
    static constexpr size_t kMaxDimNum = 25;
    static constexpr int64_t kInvalidDimValue = std::numeric_limits<int64_t>::min();

    Shape() = default;
    Shape(std::initializer_list<int64_t> dims) {
        for (int64_t d : dims) AppendDim(d);
    }
    size_t GetDimNum() const { return dim_num_; }
    void SetDimNum(size_t n) { dim_num_ = n > kMaxDimNum ? kMaxDimNum : n; }
    int64_t GetDim(size_t idx) const { return idx < dim_num_ ? dims_[idx] : kInvalidDimValue; }
    void SetDim(size_t idx, int64_t v) {
        if (idx < kMaxDimNum) dims_[idx] = v;
    }
    Shape& AppendDim(int64_t v) {
        if (dim_num_ < kMaxDimNum) dims_[dim_num_++] = v;
        return *this;
    }
    int64_t GetShapeSize() const {
        int64_t n = 1;
        for (size_t i = 0; i < dim_num_; ++i) {
            if (dims_[i] < 0) return -1;
            n *= dims_[i];
        }
        return n;
    }
    bool IsScalar() const { return dim_num_ == 0; }
    void SetScalar() { dim_num_ = 0; }
    const int64_t& operator[](size_t idx) const { return dims_[idx < kMaxDimNum ? idx : kMaxDimNum - 1]; }
    int64_t& operator[](size_t idx) { return dims_[idx < kMaxDimNum ? idx : kMaxDimNum - 1]; }
    bool operator==(const Shape& o) const {
        if (dim_num_ != o.dim_num_) return false;
        for (size_t i = 0; i < dim_num_; ++i) {
            if (dims_[i] != o.dims_[i]) return false;
        }
        return true;
    }
    bool operator!=(const Shape& o) const { return !(*this == o); }

private:
    size_t dim_num_ = 0;
    int64_t dims_[kMaxDimNum] = {};
};

class StorageShape {
public:
    StorageShape() = default;
    StorageShape(std::initializer_list<int64_t> origin, std::initializer_list<int64_t> storage)
        : origin_(origin), storage_(storage) {}
    const Shape& GetOriginShape() const { return origin_; }
    const Shape& GetStorageShape() const { return storage_; }
    Shape& MutableOriginShape() { return origin_; }
    Shape& MutableStorageShape() { return storage_; }
    bool operator==(const StorageShape& o) const { return origin_ == o.origin_ && storage_ == o.storage_; }
    bool operator!=(const StorageShape& o) const { return !(*this == o); }

private:
    Shape origin_;
    Shape storage_;
};

class ExpandDimsType {
public:
    ExpandDimsType() = default;
    explicit ExpandDimsType(const char*) {}
    explicit ExpandDimsType(int64_t) {}
};

class StorageFormat {
public:
    StorageFormat() = default;
    StorageFormat(ge::Format origin, ge::Format storage) : origin_(origin), storage_(storage) {}
    ge::Format GetOriginFormat() const { return origin_; }
    ge::Format GetStorageFormat() const { return storage_; }
    void SetOriginFormat(ge::Format f) { origin_ = f; }
    void SetStorageFormat(ge::Format f) { storage_ = f; }
    ExpandDimsType GetExpandDimsType() const { return ExpandDimsType(); }
    bool operator==(const StorageFormat& o) const { return origin_ == o.origin_ && storage_ == o.storage_; }

private:
    ge::Format origin_ = ge::FORMAT_ND;
    ge::Format storage_ = ge::FORMAT_ND;
};

class CompileTimeTensorDesc {
public:
    ge::DataType GetDataType() const { return dtype_; }
    void SetDataType(ge::DataType dt) { dtype_ = dt; }
    const StorageFormat& GetFormat() const { return format_; }
    ge::Format GetOriginFormat() const { return format_.GetOriginFormat(); }
    ge::Format GetStorageFormat() const { return format_.GetStorageFormat(); }
    void SetOriginFormat(ge::Format f) { format_.SetOriginFormat(f); }
    void SetStorageFormat(ge::Format f) { format_.SetStorageFormat(f); }
    ExpandDimsType GetExpandDimsType() const { return ExpandDimsType(); }

private:
    ge::DataType dtype_ = ge::DT_UNDEFINED;
    StorageFormat format_;
};
using TensorDesc = CompileTimeTensorDesc;

enum TensorPlacement { kOnDeviceHbm, kOnHost, kFollowing, kOnDeviceP2p, kTensorPlacementEnd };

class Tensor {
public:
    Tensor() = default;
    int64_t GetShapeSize() const { return shape_.GetStorageShape().GetShapeSize(); }
    template <typename T>
    const T* GetData() const {
        return static_cast<const T*>(data_);
    }
    const void* GetAddr() const { return data_; }
    ge::DataType GetDataType() const { return desc_.GetDataType(); }
    void SetDataType(ge::DataType dt) { desc_.SetDataType(dt); }
    const Shape& GetStorageShape() const { return shape_.GetStorageShape(); }
    const Shape& GetOriginShape() const { return shape_.GetOriginShape(); }
    Shape& MutableStorageShape() { return shape_.MutableStorageShape(); }
    Shape& MutableOriginShape() { return shape_.MutableOriginShape(); }
    const StorageShape& GetShape() const { return shape_; }
    StorageShape& GetShape() { return shape_; }
    const StorageFormat& GetFormat() const { return desc_.GetFormat(); }
    ge::Format GetOriginFormat() const { return desc_.GetOriginFormat(); }
    ge::Format GetStorageFormat() const { return desc_.GetStorageFormat(); }
    size_t GetSize() const { return size_; }
    TensorPlacement GetPlacement() const { return kOnHost; }

    // Filled by the host runtime.
    StorageShape shape_;
    CompileTimeTensorDesc desc_;
    const void* data_ = nullptr;
    size_t size_ = 0;
};

class ContinuousVector {
public:
    size_t GetSize() const { return size_; }
    size_t GetCapacity() const { return size_; }
    const void* GetData() const { return data_; }
    void* MutableData() { return data_; }

    size_t size_ = 0;
    void* data_ = nullptr;
};

template <typename T>
class TypedContinuousVector : public ContinuousVector {
public:
    const T* GetData() const { return static_cast<const T*>(data_); }
    T* MutableData() { return static_cast<T*>(data_); }
};

class ContinuousVectorVector {
public:
    size_t GetSize() const { return 0; }
    const ContinuousVector* Get(size_t) const { return nullptr; }
};

// One attribute value; every scalar view is filled so mismatched getters still see a value.
struct AoAttrValue {
    std::string kind;  // int, float, bool, str, list_int, list_float, list_bool
    int64_t i = 0;
    int32_t i32 = 0;
    uint32_t u32 = 0;
    uint64_t u64 = 0;
    float f = 0;
    double d = 0;
    bool b = false;
    std::string s;
    std::vector<int64_t> li;
    std::vector<float> lf;
    std::unique_ptr<bool[]> lb;
    size_t lb_size = 0;
    TypedContinuousVector<int64_t> cv_i;
    TypedContinuousVector<float> cv_f;
    TypedContinuousVector<bool> cv_b;
};

class RuntimeAttrs {
public:
    RuntimeAttrs();
    RuntimeAttrs(const RuntimeAttrs&) = delete;
    RuntimeAttrs& operator=(const RuntimeAttrs&) = delete;
    ~RuntimeAttrs();

    template <typename T>
    const T* GetAttrPointer(size_t idx) const {
        const AoAttrValue* p = AoValue(idx);
        if (p == nullptr) return nullptr;
        const AoAttrValue& v = *p;
        if constexpr (std::is_same<T, int64_t>::value) return &v.i;
        else if constexpr (std::is_same<T, int32_t>::value) return &v.i32;
        else if constexpr (std::is_same<T, uint32_t>::value) return &v.u32;
        else if constexpr (std::is_same<T, uint64_t>::value) return &v.u64;
        else if constexpr (std::is_same<T, float>::value) return &v.f;
        else if constexpr (std::is_same<T, double>::value) return &v.d;
        else if constexpr (std::is_same<T, bool>::value) return &v.b;
        else if constexpr (std::is_same<T, char>::value) return AoStr(v);
        else if constexpr (std::is_same<T, TypedContinuousVector<int64_t>>::value) return &v.cv_i;
        else if constexpr (std::is_same<T, TypedContinuousVector<float>>::value) return &v.cv_f;
        else if constexpr (std::is_same<T, TypedContinuousVector<bool>>::value) return &v.cv_b;
        else if constexpr (std::is_same<T, ContinuousVector>::value) return AoListView(v);
        else return nullptr;
    }
    const int64_t* GetInt(size_t idx) const { return GetAttrPointer<int64_t>(idx); }
    const float* GetFloat(size_t idx) const { return GetAttrPointer<float>(idx); }
    const bool* GetBool(size_t idx) const { return GetAttrPointer<bool>(idx); }
    const char* GetStr(size_t idx) const { return GetAttrPointer<char>(idx); }
    const TypedContinuousVector<int64_t>* GetListInt(size_t idx) const {
        return GetAttrPointer<TypedContinuousVector<int64_t>>(idx);
    }
    const TypedContinuousVector<float>* GetListFloat(size_t idx) const {
        return GetAttrPointer<TypedContinuousVector<float>>(idx);
    }
    const TypedContinuousVector<bool>* GetListBool(size_t idx) const {
        return GetAttrPointer<TypedContinuousVector<bool>>(idx);
    }
    const ContinuousVectorVector* GetListListInt(size_t) const { return nullptr; }
    size_t GetAttrNum() const;

    // Host runtime: append a value (its views must already be filled; see AoFinalize).
    void AoAppend(std::unique_ptr<AoAttrValue> v);
    void AoClear();

private:
    const AoAttrValue* AoValue(size_t idx) const;  // nullptr when out of range
    static const char* AoStr(const AoAttrValue& v);
    static const ContinuousVector* AoListView(const AoAttrValue& v);  // by the value's list kind
    std::vector<std::unique_ptr<AoAttrValue>> vals_;
};

class TilingData {
public:
    static constexpr size_t kAoDefaultCapacity = 64 * 1024;
    TilingData();
    TilingData(const TilingData&);
    TilingData(TilingData&&) noexcept;
    TilingData& operator=(const TilingData&);
    TilingData& operator=(TilingData&&) noexcept;
    ~TilingData();

    size_t GetCapacity() const;
    size_t GetDataSize() const { return size_; }
    void SetDataSize(size_t size) { size_ = size; }
    void* GetData();
    const void* GetData() const;
    template <typename T>
    ge::graphStatus Append(const T& v) {
        static_assert(std::is_trivially_copyable<T>::value, "Append needs a trivially copyable type");
        if (size_ + sizeof(T) > GetCapacity()) return ge::GRAPH_FAILED;
        std::memcpy(static_cast<uint8_t*>(GetData()) + size_, &v, sizeof(T));
        size_ += sizeof(T);
        return ge::GRAPH_SUCCESS;
    }
    template <typename T>
    ge::graphStatus Append(const T* v, size_t n) {
        for (size_t i = 0; i < n; ++i) {
            if (Append(v[i]) != ge::GRAPH_SUCCESS) return ge::GRAPH_FAILED;
        }
        return ge::GRAPH_SUCCESS;
    }

private:
    std::vector<uint8_t> buf_;
    size_t size_ = 0;
};

class AnchorInstanceInfo {
public:
    AnchorInstanceInfo() = default;
    AnchorInstanceInfo(uint32_t start, uint32_t num) : start_(start), num_(num) {}
    size_t GetInstanceStart() const { return start_; }
    size_t GetInstanceNum() const { return num_; }  // the documented name
    size_t GetInstantiationNum() const { return num_; }
    void SetInstanceStart(uint32_t s) { start_ = s; }
    void SetInstantiationNum(uint32_t n) { num_ = n; }

private:
    uint32_t start_ = 0;
    uint32_t num_ = 0;
};

// Everything the host runtime knows about the node being tiled.
struct AoNodeData {
    std::string name;
    std::string type;
    std::vector<StorageShape> in_shapes;  // per present input instance
    std::vector<Tensor> in_tensors;
    std::vector<AnchorInstanceInfo> in_ir;  // per IR input
    std::vector<StorageShape> out_shapes;  // per output instance
    std::vector<CompileTimeTensorDesc> out_descs;
    std::vector<AnchorInstanceInfo> out_ir;
    RuntimeAttrs attrs;
};

class ComputeNodeInfo {
public:
    explicit ComputeNodeInfo(const AoNodeData* n) : n_(n) {}
    const char* GetNodeName() const;
    const char* GetNodeType() const;
    size_t GetIrInputsNum() const;
    size_t GetIrOutputsNum() const;
    size_t GetInputsNum() const;
    size_t GetOutputsNum() const;
    const RuntimeAttrs* GetAttrs() const { return &n_->attrs; }
    const CompileTimeTensorDesc* GetInputTdInfo(size_t i) const;
    const CompileTimeTensorDesc* GetOutputTdInfo(size_t i) const;
    const AnchorInstanceInfo* GetInputInstanceInfo(size_t ir) const;
    const AnchorInstanceInfo* GetOutputInstanceInfo(size_t ir) const;

private:
    const AoNodeData* n_;
};

// Common part of the contexts (CANN: ExtendedKernelContext).
class ExtendedKernelContext {
public:
    static constexpr size_t kAoNone = static_cast<size_t>(-1);

    explicit ExtendedKernelContext(AoNodeData* node) : node_(node), info_(node) {}

    const CompileTimeTensorDesc* GetInputDesc(size_t i) const;
    const CompileTimeTensorDesc* GetOutputDesc(size_t i) const;
    const CompileTimeTensorDesc* GetOptionalInputDesc(size_t ir) const { return GetInputDesc(InIdx(ir, 0)); }
    const CompileTimeTensorDesc* GetRequiredInputDesc(size_t ir) const { return GetInputDesc(InIdx(ir, 0)); }
    const CompileTimeTensorDesc* GetDynamicInputDesc(size_t ir, size_t rel) const {
        return GetInputDesc(InIdx(ir, rel));
    }
    const AnchorInstanceInfo* GetIrInputInstanceInfo(size_t ir) const;
    const AnchorInstanceInfo* GetIrOutputInstanceInfo(size_t ir) const;
    size_t GetComputeNodeInputNum() const;
    size_t GetComputeNodeOutputNum() const;
    const RuntimeAttrs* GetAttrs() const { return &node_->attrs; }
    const char* GetNodeType() const;
    const char* GetNodeName() const;
    const char* GetKernelName() const { return GetNodeName(); }
    const char* GetKernelType() const { return GetNodeType(); }
    const ComputeNodeInfo* GetComputeNodeInfo() const { return &info_; }

protected:
    // Instance index of the rel-th instance of IR input (output) ir, or kAoNone.
    size_t InIdx(size_t ir, size_t rel) const;
    size_t OutIdx(size_t ir, size_t rel) const;
    AoNodeData* node_;
    ComputeNodeInfo info_;
};

class TilingContext : public ExtendedKernelContext {
public:
    TilingContext(AoNodeData* node, fe::PlatFormInfos* platform, const void* compile_info);
    TilingContext(const TilingContext&);
    TilingContext(TilingContext&&) noexcept;
    TilingContext& operator=(const TilingContext&);
    TilingContext& operator=(TilingContext&&) noexcept;
    ~TilingContext();

    const StorageShape* GetInputShape(size_t i) const;
    const Tensor* GetInputTensor(size_t i) const;
    const StorageShape* GetOptionalInputShape(size_t ir) const { return GetInputShape(InIdx(ir, 0)); }
    const Tensor* GetOptionalInputTensor(size_t ir) const { return GetInputTensor(InIdx(ir, 0)); }
    const StorageShape* GetRequiredInputShape(size_t ir) const { return GetInputShape(InIdx(ir, 0)); }
    const Tensor* GetRequiredInputTensor(size_t ir) const { return GetInputTensor(InIdx(ir, 0)); }
    const StorageShape* GetDynamicInputShape(size_t ir, size_t rel) const { return GetInputShape(InIdx(ir, rel)); }
    const Tensor* GetDynamicInputTensor(size_t ir, size_t rel) const { return GetInputTensor(InIdx(ir, rel)); }
    const StorageShape* GetOutputShape(size_t i) const;

    ge::graphStatus SetTilingKey(uint64_t k) {
        tiling_key_ = k;
        return ge::GRAPH_SUCCESS;
    }
    uint64_t GetTilingKey() const { return tiling_key_; }
    ge::graphStatus SetBlockDim(uint32_t n) {
        block_dim_ = n;
        return ge::GRAPH_SUCCESS;
    }
    uint32_t GetBlockDim() const { return block_dim_; }
    ge::graphStatus SetAicpuBlockDim(uint32_t n) {
        aicpu_block_dim_ = n;
        return ge::GRAPH_SUCCESS;
    }
    uint32_t GetAicpuBlockDim() const { return aicpu_block_dim_; }
    ge::graphStatus SetTilingCond(int32_t c) {
        tiling_cond_ = c;
        return ge::GRAPH_SUCCESS;
    }
    int32_t GetTilingCond() const { return tiling_cond_; }
    ge::graphStatus SetNeedAtomic(bool a) {
        need_atomic_ = a;
        return ge::GRAPH_SUCCESS;
    }
    bool NeedAtomic() const { return need_atomic_; }
    ge::graphStatus SetScheduleMode(uint32_t m) {
        schedule_mode_ = m;
        return ge::GRAPH_SUCCESS;
    }
    uint32_t GetScheduleMode() const { return schedule_mode_; }
    ge::graphStatus SetLocalMemorySize(uint32_t s) {
        local_mem_ = s;
        return ge::GRAPH_SUCCESS;
    }
    uint32_t GetLocalMemorySize() const { return local_mem_; }
    int32_t GetDeterministic() const { return 0; }

    TilingData* GetRawTilingData() { return &raw_; }
    // Typed view of the raw tiling buffer (sets the data size to sizeof(T)).
    template <typename T>
    T* GetTilingData() {
        if (sizeof(T) > raw_.GetCapacity()) return nullptr;
        raw_.SetDataSize(sizeof(T));
        return static_cast<T*>(raw_.GetData());
    }
    size_t* GetWorkspaceSizes(size_t n);
    size_t GetWorkspaceNum() const { return workspace_num_; }
    fe::PlatFormInfos* GetPlatformInfo() const { return platform_; }
    template <typename T>
    const T* GetCompileInfo() const {
        return static_cast<const T*>(compile_info_);
    }
    const void* GetCompileInfo() const { return compile_info_; }

    // Host runtime accessors.
    const std::vector<size_t>& AoWorkspace() const { return workspace_; }

private:
    fe::PlatFormInfos* platform_;
    const void* compile_info_;
    TilingData raw_;
    uint64_t tiling_key_ = 0;
    uint32_t block_dim_ = 0;
    uint32_t aicpu_block_dim_ = 0;
    int32_t tiling_cond_ = 0;
    bool need_atomic_ = false;
    uint32_t schedule_mode_ = 0;
    uint32_t local_mem_ = 0;
    std::vector<size_t> workspace_;
    size_t workspace_num_ = 0;
};

class InferShapeContext : public ExtendedKernelContext {
public:
    InferShapeContext(AoNodeData* node, std::vector<Shape>* outputs) : ExtendedKernelContext(node), out_(outputs) {}

    const Shape* GetInputShape(size_t i) const;
    const Shape* GetOptionalInputShape(size_t ir) const { return GetInputShape(InIdx(ir, 0)); }
    const Shape* GetRequiredInputShape(size_t ir) const { return GetInputShape(InIdx(ir, 0)); }
    const Shape* GetDynamicInputShape(size_t ir, size_t rel) const { return GetInputShape(InIdx(ir, rel)); }
    const Tensor* GetInputTensor(size_t i) const;
    const Tensor* GetOptionalInputTensor(size_t ir) const { return GetInputTensor(InIdx(ir, 0)); }
    const Tensor* GetRequiredInputTensor(size_t ir) const { return GetInputTensor(InIdx(ir, 0)); }
    const Tensor* GetDynamicInputTensor(size_t ir, size_t rel) const { return GetInputTensor(InIdx(ir, rel)); }
    Shape* GetOutputShape(size_t i);
    Shape* GetDynamicOutputShape(size_t ir, size_t rel) { return GetOutputShape(OutIdx(ir, rel)); }

private:
    std::vector<Shape>* out_;
};

// A [min, max] pair (shape ranges of InferShapeRange).
template <typename T>
class Range {
public:
    Range() = default;
    Range(T* min, T* max) : min_(min), max_(max) {}
    explicit Range(T* same) : min_(same), max_(same) {}
    T* GetMin() { return min_; }
    const T* GetMin() const { return min_; }
    T* GetMax() { return max_; }
    const T* GetMax() const { return max_; }
    void SetMin(T* min) { min_ = min; }
    void SetMax(T* max) { max_ = max; }

private:
    T* min_ = nullptr;
    T* max_ = nullptr;
};

// Shape ranges per input and output instance; arrays owned by whoever runs the function.
class InferShapeRangeContext : public ExtendedKernelContext {
public:
    explicit InferShapeRangeContext(AoNodeData* node, const Range<Shape>* inputs = nullptr, size_t num_inputs = 0,
                                    Range<Shape>* outputs = nullptr, size_t num_outputs = 0)
        : ExtendedKernelContext(node), in_(inputs), n_in_(num_inputs), out_(outputs), n_out_(num_outputs) {}
    const Range<Shape>* GetInputShapeRange(size_t i) const { return i < n_in_ ? &in_[i] : nullptr; }
    const Range<Shape>* GetOptionalInputShapeRange(size_t ir) const { return GetInputShapeRange(InIdx(ir, 0)); }
    const Range<Shape>* GetDynamicInputShapeRange(size_t ir, size_t rel) const {
        return GetInputShapeRange(InIdx(ir, rel));
    }
    Range<Shape>* GetOutputShapeRange(size_t i) { return i < n_out_ ? &out_[i] : nullptr; }

private:
    const Range<Shape>* in_;
    size_t n_in_;
    Range<Shape>* out_;
    size_t n_out_;
};

class InferDataTypeContext : public ExtendedKernelContext {
public:
    InferDataTypeContext(AoNodeData* node, std::vector<ge::DataType>* outputs)
        : ExtendedKernelContext(node), out_(outputs) {}
    ge::DataType GetInputDataType(size_t i) const;
    ge::DataType GetOptionalInputDataType(size_t ir) const { return GetInputDataType(InIdx(ir, 0)); }
    ge::DataType GetRequiredInputDataType(size_t ir) const { return GetInputDataType(InIdx(ir, 0)); }
    ge::DataType GetDynamicInputDataType(size_t ir, size_t rel) const { return GetInputDataType(InIdx(ir, rel)); }
    ge::DataType GetOutputDataType(size_t i) const;
    ge::graphStatus SetOutputDataType(size_t i, ge::DataType dt);

private:
    std::vector<ge::DataType>* out_;
};

class TilingParseContext : public ExtendedKernelContext {
public:
    TilingParseContext(AoNodeData* node, fe::PlatFormInfos* platform, void* compile_info)
        : ExtendedKernelContext(node), platform_(platform), compile_info_(compile_info) {}
    fe::PlatFormInfos* GetPlatformInfo() const { return platform_; }
    const char* GetCompiledJson() const { return "{}"; }
    template <typename T>
    T* GetCompiledInfo() {
        return static_cast<T*>(compile_info_);
    }

private:
    fe::PlatFormInfos* platform_;
    void* compile_info_;
};

using KernelContext = ExtendedKernelContext;

}  // namespace gert
