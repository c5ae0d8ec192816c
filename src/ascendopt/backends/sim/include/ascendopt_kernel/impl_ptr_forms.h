// AscendOptimizer simulator: the A2 (dav_c220) library's pointer-level implementation functions
// that some kernels call directly on __ubuf__ / __gm__ pointers instead of tensors:
// DuplicateImpl (count form), DataCopyGM2UBImpl / DataCopyUB2GMImpl (DataCopyParams) and
// DataCopyPadGm2UBImpl / DataCopyPadUB2GMImpl (DataCopyParams or DataCopyExtParams). Each is the
// body of the public API of the same name without "Impl" and runs as that API on a view of the
// pointers (a __ubuf__ pointer's value is a UB byte address, formed from GetPhyAddr()), so checks,
// cost and the race model are the API's. Clean-room implementation.
#pragma once
#include "ascendopt_kernel/cce_vector.h"
#include "ascendopt_kernel/datacopy.h"

namespace ao::k {
// A GlobalTensor<T> at a raw GM address (no declared size: the GM allocation bounds apply).
template <typename T>
inline AscendC::GlobalTensor<T> GmAt(const void* p) {
    AscendC::GlobalTensor<T> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(const_cast<void*>(p)));
    return g;
}
}  // namespace ao::k

namespace AscendC {

template <typename T>
__aicore__ inline void DuplicateImpl(__ubuf__ T* dst, const T& scalarValue, const int32_t& count) {
    Duplicate(ao::k::UbView<T>(dst, "DuplicateImpl"), scalarValue, count);
}

template <typename T>
__aicore__ inline void DataCopyGM2UBImpl(__ubuf__ T* dst, __gm__ T* src, const DataCopyParams& intriParams) {
    DataCopy(ao::k::UbView<T>(dst, "DataCopyGM2UBImpl"), ao::k::GmAt<T>(src), intriParams);
}

template <typename T>
__aicore__ inline void DataCopyUB2GMImpl(__gm__ T* dst, __ubuf__ T* src, const DataCopyParams& intriParams) {
    DataCopy(ao::k::GmAt<T>(dst), ao::k::UbView<T>(src, "DataCopyUB2GMImpl"), intriParams);
}

template <typename T>
__aicore__ inline void DataCopyPadGm2UBImpl(__ubuf__ T* dst, __gm__ T* src, const DataCopyParams& intriParams,
                                            const DataCopyPadParams& padParams) {
    DataCopyPad(ao::k::UbView<T>(dst, "DataCopyPadGm2UBImpl"), ao::k::GmAt<T>(src), intriParams, padParams);
}

template <typename T>
__aicore__ inline void DataCopyPadGm2UBImpl(__ubuf__ T* dst, __gm__ T* src, const DataCopyExtParams& intriParams,
                                            const DataCopyPadExtParams<T>& padParams) {
    DataCopyPad(ao::k::UbView<T>(dst, "DataCopyPadGm2UBImpl"), ao::k::GmAt<T>(src), intriParams, padParams);
}

template <typename T>
__aicore__ inline void DataCopyPadUB2GMImpl(__gm__ T* dst, __ubuf__ T* src, const DataCopyParams& intriParams) {
    DataCopyPad(ao::k::GmAt<T>(dst), ao::k::UbView<T>(src, "DataCopyPadUB2GMImpl"), intriParams);
}

template <typename T>
__aicore__ inline void DataCopyPadUB2GMImpl(__gm__ T* dst, __ubuf__ T* src, const DataCopyExtParams& intriParams) {
    DataCopyPad(ao::k::GmAt<T>(dst), ao::k::UbView<T>(src, "DataCopyPadUB2GMImpl"), intriParams);
}

}  // namespace AscendC
