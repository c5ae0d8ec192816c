// AscendOptimizer simulator (host side): ge::Operator, only named in CheckSupport /
// OpSelectFormat callbacks, which the simulator never calls (a launch does not consult them).
// An Operator built here is a bare node of a type: it has no inputs, outputs or attributes, so
// GetInputDescByName / GetOutputDescByName give an empty TensorDesc and GetAttr GRAPH_FAILED,
// as the graph API does for a name the node does not have.
#pragma once
#include "graph/ascend_string.h"
#include "graph/ge_error_codes.h"
#include "graph/tensor.h"
#include "graph/types.h"

namespace ge {
class Operator {
public:
    Operator() = default;
    explicit Operator(const char* type) : type_(type) {}
    graphStatus GetName(AscendString& name) const {
        name = type_;
        return GRAPH_SUCCESS;
    }
    graphStatus GetOpType(AscendString& type) const {
        type = type_;
        return GRAPH_SUCCESS;
    }
    TensorDesc GetInputDescByName(const char*) const { return TensorDesc(); }
    TensorDesc GetOutputDescByName(const char*) const { return TensorDesc(); }
    TensorDesc GetInputDesc(uint32_t) const { return TensorDesc(); }
    TensorDesc GetOutputDesc(uint32_t) const { return TensorDesc(); }
    size_t GetInputsSize() const { return 0; }
    size_t GetOutputsSize() const { return 0; }
    template <typename T>
    graphStatus GetAttr(const char*, T&) const {
        return GRAPH_FAILED;
    }

private:
    AscendString type_;
};
}  // namespace ge
