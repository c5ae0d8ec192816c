// AscendOptimizer simulator (host side): opaque ge::Operator (only named in CheckSupport /
// OpSelectFormat callbacks, which the simulator never calls).
#pragma once
#include "graph/ascend_string.h"
#include "graph/ge_error_codes.h"
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

private:
    AscendString type_;
};
}  // namespace ge
