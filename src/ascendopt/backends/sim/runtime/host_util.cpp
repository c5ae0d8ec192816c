// AscendOptimizer simulator (host side): out-of-line definitions of the toolkit's op-utility
// helpers (ascendopt_host/ops_string.h) and of ge::Tensor (graph/tensor.h).
#include "ascendopt_host/ops_string.h"

#include "graph/tensor.h"
#include "graph/utils/type_utils.h"

namespace ops {
namespace {
std::string Joined(const std::vector<int64_t>& v) {
    std::string r = "[";
    for (size_t i = 0; i < v.size(); ++i) r += (i ? ", " : "") + std::to_string(v[i]);
    return r + "]";
}
}  // namespace

std::string ToString(const ge::DataType& type) { return ge::TypeUtils::DataTypeToSerialString(type); }
std::string ToString(const ge::Format& format) { return ge::TypeUtils::FormatToSerialString(format); }
std::string ToString(const gert::Shape& shape) {
    std::vector<int64_t> dims;
    for (size_t i = 0; i < shape.GetDimNum(); ++i) dims.push_back(shape.GetDim(i));
    return Joined(dims);
}
std::string ToString(const gert::Shape* shape) { return shape == nullptr ? "nil" : ToString(*shape); }
std::string ToString(const std::vector<int64_t>& shape) { return Joined(shape); }
std::string ToString(const std::vector<gert::Shape>& shapes) {
    std::string r = "[";
    for (size_t i = 0; i < shapes.size(); ++i) r += (i ? ", " : "") + ToString(shapes[i]);
    return r + "]";
}
}  // namespace ops

namespace ge {
Tensor::Tensor() = default;
Tensor::Tensor(const TensorDesc& desc) : desc_(desc) {}
Tensor::Tensor(const TensorDesc& desc, const uint8_t* data, size_t size) : desc_(desc) { SetData(data, size); }
Tensor::Tensor(const Tensor&) = default;
Tensor& Tensor::operator=(const Tensor&) = default;
Tensor::~Tensor() = default;
const uint8_t* Tensor::GetData() const { return data_.empty() ? nullptr : data_.data(); }
uint8_t* Tensor::GetData() { return data_.empty() ? nullptr : data_.data(); }
size_t Tensor::GetSize() const { return data_.size(); }
graphStatus Tensor::SetData(const uint8_t* data, size_t size) {
    if (data == nullptr && size > 0) return GRAPH_FAILED;
    data_.assign(data, data + size);
    return GRAPH_SUCCESS;
}
}  // namespace ge
