// AscendOptimizer simulator: the whole-tensor operator forms of the binary, logical and compare
// APIs (`dst = src0 * src1;`, `mask = src0 >= src1;`). Clean-room emulation of the documented
// semantics:
//   - `src0 op src1` builds an expression; assigning it to a LocalTensor runs the API's count
//     form (Add/Sub/Mul/Div/And/Or, or Compare with the matching CMPMODE) into that tensor, with
//     the API's own checks and cost;
//   - arithmetic and logical forms compute the destination's total length (as documented);
//   - compare forms write one bit per source element, so they compare src0's total length (the
//     destination is a byte mask of at least that many bits).
#pragma once
#include "ascendopt_kernel/vector_ops.h"
#include "ascendopt_kernel/vector_cmpsel.h"

namespace ao::k {

enum class TensorExprOp : uint8_t { Add, Sub, Mul, Div, And, Or, LT, GT, LE, GE, EQ, NE };

template <typename T, TensorExprOp OP>
struct TensorExpr {
    using AoTensorExpr = void;  // what LocalTensor::operator= recognises
    AscendC::LocalTensor<T> a, b;

    template <typename U>
    void EvalInto(const AscendC::LocalTensor<U>& dst) const {
        using namespace AscendC;
        constexpr bool cmp = OP >= TensorExprOp::LT;
        if constexpr (!cmp) {
            static_assert(std::is_same_v<T, U>, "dst = src0 op src1: dst must have the sources' type");
            const int32_t count = int32_t(dst.GetSize());
            if constexpr (OP == TensorExprOp::Add) Add(dst, a, b, count);
            if constexpr (OP == TensorExprOp::Sub) Sub(dst, a, b, count);
            if constexpr (OP == TensorExprOp::Mul) Mul(dst, a, b, count);
            if constexpr (OP == TensorExprOp::Div) Div(dst, a, b, count);
            if constexpr (OP == TensorExprOp::And) And(dst, a, b, count);
            if constexpr (OP == TensorExprOp::Or) Or(dst, a, b, count);
        } else {
            constexpr CMPMODE m = OP == TensorExprOp::LT   ? CMPMODE::LT
                                  : OP == TensorExprOp::GT ? CMPMODE::GT
                                  : OP == TensorExprOp::LE ? CMPMODE::LE
                                  : OP == TensorExprOp::GE ? CMPMODE::GE
                                  : OP == TensorExprOp::EQ ? CMPMODE::EQ
                                                           : CMPMODE::NE;
            Compare(dst, a, b, m, a.GetSize());
        }
    }
};

}  // namespace ao::k

namespace AscendC {

#define AO_TENSOR_OPERATOR(SYM, OP)                                                                          \
    template <typename T>                                                                                    \
    __aicore__ inline ao::k::TensorExpr<T, ao::k::TensorExprOp::OP> operator SYM(const LocalTensor<T>& src0, \
                                                                                 const LocalTensor<T>& src1) { \
        return {src0, src1};                                                                                 \
    }
AO_TENSOR_OPERATOR(+, Add)
AO_TENSOR_OPERATOR(-, Sub)
AO_TENSOR_OPERATOR(*, Mul)
AO_TENSOR_OPERATOR(/, Div)
AO_TENSOR_OPERATOR(&, And)
AO_TENSOR_OPERATOR(|, Or)
AO_TENSOR_OPERATOR(<, LT)
AO_TENSOR_OPERATOR(>, GT)
AO_TENSOR_OPERATOR(<=, LE)
AO_TENSOR_OPERATOR(>=, GE)
AO_TENSOR_OPERATOR(==, EQ)
AO_TENSOR_OPERATOR(!=, NE)
#undef AO_TENSOR_OPERATOR

}  // namespace AscendC
