// AscendOptimizer simulator (host side): ge::TensorDesc, the graph-level description of one
// tensor (shape, data type, format) that ge::Operator hands out by input/output name, and
// ge::Tensor (a description and its bytes; graph-level helpers such as const-value readers).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "graph/ge_error_codes.h"
#include "graph/types.h"
#include "graph/ascend_string.h"

namespace ge {
class TensorDesc {
public:
    TensorDesc() = default;
    explicit TensorDesc(const Shape& shape, Format format = FORMAT_ND, DataType dt = DT_FLOAT)
        : shape_(shape), format_(format), origin_format_(format), dtype_(dt) {}
    Shape GetShape() const { return shape_; }
    void SetShape(const Shape& shape) { shape_ = shape; }
    Shape GetOriginShape() const { return shape_; }
    void SetOriginShape(const Shape& shape) { shape_ = shape; }
    DataType GetDataType() const { return dtype_; }
    void SetDataType(DataType dt) { dtype_ = dt; }
    Format GetFormat() const { return format_; }
    void SetFormat(Format f) { format_ = f; }
    Format GetOriginFormat() const { return origin_format_; }
    void SetOriginFormat(Format f) { origin_format_ = f; }

private:
    Shape shape_;
    Format format_ = FORMAT_ND;
    Format origin_format_ = FORMAT_ND;
    DataType dtype_ = DT_FLOAT;
};

// A graph-level tensor: a TensorDesc and a copy of its bytes (SetData copies). Members touching
// the byte vector are defined in runtime/host_util.cpp.
class Tensor {
public:
    Tensor();
    explicit Tensor(const TensorDesc& desc);
    Tensor(const TensorDesc& desc, const uint8_t* data, size_t size);
    Tensor(const Tensor&);
    Tensor& operator=(const Tensor&);
    ~Tensor();
    TensorDesc GetTensorDesc() const { return desc_; }
    graphStatus SetTensorDesc(const TensorDesc& desc) {
        desc_ = desc;
        return GRAPH_SUCCESS;
    }
    const uint8_t* GetData() const;
    uint8_t* GetData();
    size_t GetSize() const;
    graphStatus SetData(const uint8_t* data, size_t size);

private:
    TensorDesc desc_;
    std::vector<uint8_t> data_;
};
}  // namespace ge
