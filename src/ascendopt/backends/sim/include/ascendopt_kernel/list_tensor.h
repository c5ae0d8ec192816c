// AscendOptimizer simulator: ListTensorDesc and TensorDesc, the kernel's view of a tensor list:
// the GM argument an OpDef DYNAMIC parameter (and a kernel-launch TensorList) arrives as. The
// list's GM image (see runtime/tensor_list.h): word 0 the byte offset of the data-address array;
// per tensor one word dim (low 32 bits) | index (high 32 bits) and dim shape words; then one
// address per tensor. Reading the image is scalar GM reads: each is checked against the
// image's allocation and costs a scalar GM access in the timing model.
#pragma once
#include "ascendopt_kernel/runtime.h"
#include "ascendopt_kernel/tensor.h"

namespace AscendC {

class ListTensorDesc;

// One tensor of a list, filled by ListTensorDesc::GetDesc into the shape buffer the kernel
// gives with SetShapeAddr.
template <class T>
class TensorDesc {
public:
    __aicore__ inline TensorDesc() = default;
    __aicore__ inline ~TensorDesc() = default;
    __aicore__ inline void SetShapeAddr(uint64_t* shapePtr) { shape_ = shapePtr; }
    __aicore__ inline uint64_t GetDim() { return dim_; }
    __aicore__ inline uint64_t GetIndex() { return index_; }
    __aicore__ inline uint64_t GetShape(uint32_t offset) {
        if (shape_ == nullptr || offset >= dim_)
            ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument,
                         "TensorDesc::GetShape(%u): the tensor has %llu dims%s", offset, (unsigned long long)dim_,
                         shape_ == nullptr ? " and no shape buffer (SetShapeAddr, then ListTensorDesc::GetDesc)" : "");
        return shape_[offset];
    }
    __aicore__ inline T* GetDataPtr() { return data_; }
    __aicore__ inline GlobalTensor<T> GetDataObj() {
        uint64_t n = 1;
        for (uint64_t i = 0; i < dim_; ++i) n *= shape_[i];
        GlobalTensor<T> g;
        g.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(data_), n);
        return g;
    }

private:
    friend class ListTensorDesc;
    uint64_t* shape_ = nullptr;
    uint64_t dim_ = 0;
    uint64_t index_ = 0;
    T* data_ = nullptr;
};

class ListTensorDesc {
public:
    static constexpr uint32_t kNoCheck = 0xffffffffu;

    __aicore__ inline ListTensorDesc() = default;
    __aicore__ inline ListTensorDesc(__gm__ void* data, uint32_t length = kNoCheck, uint32_t shapeSize = kNoCheck) {
        Init(data, length, shapeSize);
    }
    // Parses the image at data. length (bytes of the image) and shapeSize (number of tensors)
    // are checked when given.
    __aicore__ inline void Init(__gm__ void* data, uint32_t length = kNoCheck, uint32_t shapeSize = kNoCheck) {
        if (data == nullptr)
            ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "ListTensorDesc::Init: the tensor list address is null");
        base_ = reinterpret_cast<__gm__ uint64_t*>(data);
        uint64_t ptr_offset = Word(0, "ListTensorDesc::Init");
        if (ptr_offset < sizeof(uint64_t) || ptr_offset % sizeof(uint64_t) != 0)
            ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument,
                         "ListTensorDesc::Init: data-address offset %llu is not a multiple of 8 bytes past the "
                         "header (not a tensor list)", (unsigned long long)ptr_offset);
        addr_word_ = ptr_offset / sizeof(uint64_t);
        count_ = 0;
        uint64_t w = 1;
        for (; w < addr_word_; ++count_) w += 1 + (Word(w, "ListTensorDesc::Init") & 0xffffffffu);
        if (w != addr_word_)
            ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument,
                         "ListTensorDesc::Init: the tensor descriptions overrun the data-address offset %llu "
                         "(not a tensor list)", (unsigned long long)ptr_offset);
        if (shapeSize != kNoCheck && shapeSize != count_)
            ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument,
                         "ListTensorDesc::Init: shapeSize %u, but the list holds %u tensors", shapeSize, count_);
        uint64_t bytes = (addr_word_ + count_) * sizeof(uint64_t);
        if (length != kNoCheck && bytes > length)
            ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument,
                         "ListTensorDesc::Init: the list takes %llu bytes, more than length %u",
                         (unsigned long long)bytes, length);
    }
    template <class T>
    __aicore__ inline void GetDesc(TensorDesc<T>& desc, uint32_t index) {
        CheckIndex(index, "ListTensorDesc::GetDesc");
        if (desc.shape_ == nullptr)
            ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument,
                         "ListTensorDesc::GetDesc: the TensorDesc has no shape buffer (call SetShapeAddr first)");
        uint64_t w = Walk(index, "ListTensorDesc::GetDesc");
        uint64_t head = Word(w, "ListTensorDesc::GetDesc");
        desc.dim_ = head & 0xffffffffu;
        desc.index_ = head >> 32;
        for (uint64_t i = 0; i < desc.dim_; ++i) desc.shape_[i] = Word(w + 1 + i, "ListTensorDesc::GetDesc");
        desc.data_ = reinterpret_cast<T*>(Word(addr_word_ + index, "ListTensorDesc::GetDesc"));
    }
    template <class T>
    __aicore__ inline T* GetDataPtr(uint32_t index) {
        CheckIndex(index, "ListTensorDesc::GetDataPtr");
        return reinterpret_cast<T*>(Word(addr_word_ + index, "ListTensorDesc::GetDataPtr"));
    }
    __aicore__ inline uint32_t GetSize() { return count_; }

private:
    // Word w of the image: a checked, timed scalar GM read.
    uint64_t Word(uint64_t w, const char* what) const {
        const __gm__ uint64_t* p = base_ + w;
        ao::rt::CheckGm(p, sizeof(uint64_t), what, false);
        ao::rt::Instr ins;
        ins.name = what;
        ins.pipe = ao::rt::Pipe::S;
        ins.cls = ao::rt::OpClass::ScalarGm;
        ins.dtype_bytes = sizeof(uint64_t);
        ins.elems = 1;
        ins.bytes = sizeof(uint64_t);
        ins.gm_addr = reinterpret_cast<uint64_t>(p);
        ins.Add({ao::rt::Space::GM, ins.gm_addr, ins.gm_addr + sizeof(uint64_t), false});
        ao::rt::Issue(ins);
        return *ao::rt::GmData(p);
    }
    // First word of the description of tensor index (reading the descriptions before it).
    uint64_t Walk(uint32_t index, const char* what) const {
        uint64_t w = 1;
        for (uint32_t i = 0; i < index; ++i) w += 1 + (Word(w, what) & 0xffffffffu);
        return w;
    }
    void CheckIndex(uint32_t index, const char* what) const {
        if (base_ == nullptr)
            ao::rt::Fail(ao::rt::ErrorKind::InvalidArgument, "%s: the ListTensorDesc was not initialised", what);
        if (index >= count_)
            ao::rt::Fail(ao::rt::ErrorKind::GmOutOfBounds,
                         "%s(%u): the tensor list holds %u tensors (the read would leave the list)", what, index,
                         count_);
    }

    __gm__ uint64_t* base_ = nullptr;
    uint64_t addr_word_ = 0;  // first word of the data-address array
    uint32_t count_ = 0;
};

}  // namespace AscendC
