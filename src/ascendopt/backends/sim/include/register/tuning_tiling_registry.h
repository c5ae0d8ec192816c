// AscendOptimizer simulator (host side): the AOE tuning-tiling declarations
// (register/tuning_tiling_registry.h of the toolkit). Written from how operator tiling libraries
// use them (cann-ops common/op_host/op_tiling): a tuning tiling is a plain struct of named
// fields derived from a polymorphic base, handled through `TuningTilingDefPtr` (a shared_ptr
// to the base, cast back with static/dynamic_pointer_cast); DECLARE_SCHEMA names its fields
// for serialisation; REGISTER_TUNING_TILING_CLASS maps an operator type to a factory of its
// tuning tiling class. The simulator has no AOE knowledge bank: nothing ever produces a tuned
// tiling, so operators fall back to computing their tiling, which is what they do on a device
// without a bank. The registry is kept (queried by type name) so registrations are real code.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <type_traits>

namespace tuningtiling {

class TuningTilingDef {
public:
    virtual ~TuningTilingDef() = default;
};
using TuningTilingDefPtr = std::shared_ptr<TuningTilingDef>;

// Operator type -> factory of its tuning tiling class.
class TuningTilingClassRegistry {
public:
    using Factory = std::function<TuningTilingDefPtr()>;
    static TuningTilingClassRegistry& Instance() {
        static TuningTilingClassRegistry registry;
        return registry;
    }
    void Add(const std::string& opType, Factory factory) { factories_[opType] = std::move(factory); }
    // A new default tuning tiling of `opType`'s class; nullptr when none is registered.
    TuningTilingDefPtr Create(const std::string& opType) const {
        auto it = factories_.find(opType);
        return it == factories_.end() ? nullptr : it->second();
    }

private:
    std::map<std::string, Factory> factories_;
};

struct TuningTilingClassRegistrar {
    TuningTilingClassRegistrar(const char* opType, TuningTilingClassRegistry::Factory factory) {
        TuningTilingClassRegistry::Instance().Add(opType, std::move(factory));
    }
};

namespace schema_detail {
template <typename... M>
constexpr bool AllMembers(M...) {
    return (std::is_member_object_pointer<M>::value && ...);
}
}  // namespace schema_detail

}  // namespace tuningtiling

// Fields default to zero (a tuning tiling the bank did not fill is all zeros).
#define BEGIN_TUNING_TILING_DEF(class_name) \
    class class_name : public ::tuningtiling::TuningTilingDef { \
    public:
#define TUNING_TILING_DATA_FIELD_DEF(data_type, field_name) data_type field_name{}
#define END_TUNING_TILING_DEF };

// The schema names the class's fields; here it checks that each one is a data member of it.
#define FIELD(class_name, field_name) &class_name::field_name
#define DECLARE_SCHEMA(class_name, ...)                                                          \
    static_assert(std::is_base_of<::tuningtiling::TuningTilingDef, class_name>::value &&         \
                      ::tuningtiling::schema_detail::AllMembers(__VA_ARGS__),                    \
                  "DECLARE_SCHEMA: " #class_name " must be a tuning tiling and name its fields")

#define AO_TUNING_CAT2(a, b) a##b
#define AO_TUNING_CAT(a, b) AO_TUNING_CAT2(a, b)
#define REGISTER_TUNING_TILING_CLASS(op_type, class_name)                                            \
    static ::tuningtiling::TuningTilingClassRegistrar AO_TUNING_CAT(g_ao_tuning_reg_##op_type, __LINE__)( \
        #op_type, [] { return ::tuningtiling::TuningTilingDefPtr(std::make_shared<class_name>()); })
