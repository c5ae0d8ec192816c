// AscendOptimizer simulator: BEGIN_TILING_DATA_DEF & co.
//
// Host side (default): every tiling class is a standard-layout class whose data members are
// exactly the declared fields, in declaration order (no virtuals, no bases, no hidden data).
// SaveToBuffer copies sizeof(*this) bytes, so the bytes are those of the plain C struct.
// Layout as CANN's TilingDef lays out the bytes: a field at a multiple of its size, a struct field
// at a multiple of 8, the whole class padded to a multiple of 8 (alignas(8): its placeholders).
//
// Kernel side (-DASCENDOPT_KERNEL_SIDE): the same header yields a plain struct with the same
// name and members, so the kernel reads the bytes the host wrote. This mode includes nothing
// but <cstdint>/<cstddef> (kernel translation units must not see <cmath> & co.).
#pragma once
#include <cstddef>
#include <cstdint>

#ifdef ASCENDOPT_KERNEL_SIDE

namespace optiling {}

// The struct also has the host class's accessors (set_/get_, SaveToBuffer, GetDataSize):
// tiling headers are host code, and helpers defined inline there call them; the kernel build
// includes those headers for the structs (a device build never compiles them). Member
// functions leave the layout as it is.
#define BEGIN_TILING_DATA_DEF(class_name)                                                   \
    struct alignas(8) class_name {                                                           \
        bool SaveToBuffer(void* ao_buf, size_t ao_cap) const {                               \
            if (ao_buf == nullptr || sizeof(*this) > ao_cap) return false;                   \
            __builtin_memcpy(ao_buf, static_cast<const void*>(this), sizeof(*this));         \
            return true;                                                                     \
        }                                                                                    \
        size_t GetDataSize() const { return sizeof(*this); }                                 \
        void SetDataPtr(void*) {}                                                            \
        uint8_t* GetDataPtr() { return reinterpret_cast<uint8_t*>(this); }                  \
        void InitData() { __builtin_memset(static_cast<void*>(this), 0, sizeof(*this)); }
// Each field macro ends with a member function body: a following ';' (usual) is allowed, and
// headers that write the fields without one compile too.
#define TILING_DATA_FIELD_DEF(data_type, field_name)                 \
    data_type field_name;                                            \
    void set_##field_name(data_type ao_v) { field_name = ao_v; }     \
    data_type get_##field_name() const { return field_name; }
#define TILING_DATA_FIELD_DEF_ARR(arr_type, arr_size, field_name)                                   \
    arr_type field_name[arr_size];                                                                  \
    void set_##field_name(const arr_type* ao_p) {                                                   \
        if (ao_p == nullptr) return;                                                                \
        for (size_t ao_i = 0; ao_i < size_t(arr_size); ++ao_i) field_name[ao_i] = ao_p[ao_i];       \
    }                                                                                               \
    arr_type* get_##field_name() { return field_name; }                                             \
    const arr_type* get_##field_name() const { return field_name; }
#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name)                 \
    struct_type field_name;                                                   \
    void set_##field_name(const struct_type& ao_v) { field_name = ao_v; }     \
    struct_type& get_##field_name() { return field_name; }                    \
    const struct_type& get_##field_name() const { return field_name; }
#define END_TILING_DATA_DEF };
#define REGISTER_TILING_DATA_CLASS(op_type, class_name)

#else  // host side

#include <cstring>
#include <iostream>  // CANN's host headers bring it in; tiling code uses std::cout unasked
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "graph/types.h"

namespace ao_tiling {

// Shared state between the tiling classes and the host runtime: the first SaveToBuffer error
// of the current tiling run, and the size of the last successful save. The functions are
// defined in runtime/host_rt.cpp, so op code instantiates no std template for them.
struct SaveState {
    std::string error;
    const void* last_dst = nullptr;
    size_t last_size = 0;
};
SaveState& State();

// SetDataPtr(dst) on a tiling object: from then on its bytes are at dst, as CANN's TilingDef
// keeps its data there (set_ writes through). SyncData(addr) copies the bound object holding addr
// to its dst: after every set_ (also of a nested struct's field) and at GetDataSize. The host
// runtime clears the bindings before each tiling run (header-only: no std template instantiated).
struct Binding {
    const void* obj;
    size_t size;
    void* dst;
};
constexpr int kMaxBindings = 16;
inline Binding* Bindings(int** count = nullptr) {
    static Binding b[kMaxBindings];
    static int n = 0;
    if (count != nullptr) *count = &n;
    return b;
}
inline void BindData(const void* obj, size_t size, void* dst) {
    int* n = nullptr;
    Binding* b = Bindings(&n);
    int k = 0;
    for (int i = 0; i < *n; ++i)
        if (b[i].obj != obj) b[k++] = b[i];
    *n = k;
    if (dst != nullptr && dst != obj && *n < kMaxBindings) b[(*n)++] = Binding{obj, size, dst};
}
inline void ClearBindings() {  // the bindings' bytes too: a batch's next case finds none (main.cpp)
    int* n = nullptr;
    Binding* b = Bindings(&n);
    for (int i = 0; i < kMaxBindings; ++i) b[i] = Binding{nullptr, 0, nullptr};
    *n = 0;
}
inline void SyncData(const void* addr) {
    int* n = nullptr;
    Binding* b = Bindings(&n);
    const char* a = static_cast<const char*>(addr);
    for (int i = 0; i < *n; ++i) {
        const char* o = static_cast<const char*>(b[i].obj);
        if (a >= o && a < o + b[i].size) std::memcpy(b[i].dst, b[i].obj, b[i].size);
    }
}

// Copies n bytes of src to dst if cap allows; otherwise records the error and returns false.
bool SaveBytes(const void* src, size_t n, void* dst, size_t cap, const char* cls);

struct ClassInfo {
    std::string class_name;
    size_t size;
};
std::map<std::string, ClassInfo>& Classes();
struct ClassRegistrar {
    ClassRegistrar(const char* op_type, const char* class_name, size_t size);
};

}  // namespace ao_tiling

#define AO_TILING_CAT2(a, b) a##b
#define AO_TILING_CAT(a, b) AO_TILING_CAT2(a, b)

// The constructor zeroes the whole object (padding included) so saved bytes are deterministic.
#define BEGIN_TILING_DATA_DEF(class_name)                                                            \
    class alignas(8) class_name {                                                                    \
    public:                                                                                          \
        class_name() { std::memset(static_cast<void*>(this), 0, sizeof(*this)); }                    \
        explicit class_name(void* ao_p) : class_name() { if (ao_p != nullptr) SetDataPtr(ao_p); }   \
        bool SaveToBuffer(void* ao_buf, size_t ao_cap) const {                                       \
            return ::ao_tiling::SaveBytes(this, sizeof(*this), ao_buf, ao_cap, #class_name);         \
        }                                                                                            \
        size_t GetDataSize() const {                                                                 \
            ::ao_tiling::SyncData(this);                                                             \
            return sizeof(*this);                                                                    \
        }                                                                                            \
        void SetDataPtr(void* ao_p) { ::ao_tiling::BindData(this, sizeof(*this), ao_p); }            \
        uint8_t* GetDataPtr() { return reinterpret_cast<uint8_t*>(this); }                          \
        void InitData() { std::memset(static_cast<void*>(this), 0, sizeof(*this)); }                 \
        static const char* AoClassName() { return #class_name; }                                     \
        static void AoLayoutCheck() {                                                                \
            static_assert(std::is_standard_layout<class_name>::value,                                \
                          "tiling data class must be standard-layout");                             \
            static_assert(std::is_trivially_copyable<class_name>::value,                             \
                          "tiling data class must be trivially copyable");                          \
        }

// Each field macro ends with a member function body, so the ';' after it is optional.
#define TILING_DATA_FIELD_DEF(data_type, field_name)                        \
    public:                                                                 \
        data_type field_name;                                               \
        void set_##field_name(data_type ao_v) {                             \
            field_name = ao_v;                                              \
            ::ao_tiling::SyncData(this);                                    \
        }                                                                   \
        data_type get_##field_name() const { return field_name; }

#define TILING_DATA_FIELD_DEF_ARR(arr_type, arr_size, field_name)                       \
    public:                                                                             \
        arr_type field_name[arr_size];                                                  \
        void set_##field_name(const arr_type* ao_p) {                                   \
            if (ao_p == nullptr) return;                                                \
            for (size_t ao_i = 0; ao_i < size_t(arr_size); ++ao_i) field_name[ao_i] = ao_p[ao_i]; \
            ::ao_tiling::SyncData(this);                                                \
        }                                                                               \
        arr_type* get_##field_name() { return field_name; }                             \
        const arr_type* get_##field_name() const { return field_name; }

#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name)                        \
    public:                                                                          \
        struct_type field_name;                                                      \
        void set_##field_name(const struct_type& ao_v) {                             \
            field_name = ao_v;                                                       \
            ::ao_tiling::SyncData(this);                                             \
        }                                                                            \
        struct_type& get_##field_name() { return field_name; }                       \
        const struct_type& get_##field_name() const { return field_name; }

#define END_TILING_DATA_DEF };

#define REGISTER_TILING_DATA_CLASS(op_type, class_name)                                        \
    static ::ao_tiling::ClassRegistrar AO_TILING_CAT(g_ao_tiling_reg_##op_type##_, __COUNTER__) \
        __attribute__((unused)) (#op_type, #class_name, sizeof(class_name));

#endif  // ASCENDOPT_KERNEL_SIDE
