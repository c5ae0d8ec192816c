// Tests of the host-side emulation (registry, contexts, tiling runs). Linked with one op_host
// fixture: scale_shift (default) or row_sum (-DAO_FIXTURE_ROW_SUM).
//   test_host_rt            run every test
//   test_host_rt NAME...    run the named tests
//   test_host_rt --list     print the test names
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "host_api.h"
#include "tiling/platform/platform_ascendc.h"

#ifndef AO_FIXTURE_ROW_SUM
#include "op_host/scale_shift_tiling.h"
extern "C" void ao_kernel_layout(size_t* out);
extern "C" int ao_kernel_decode(const void* bytes, size_t n, double* out);
#else
#include "op_host/row_sum_tiling.h"
#endif

using namespace ao::host;

namespace {

int g_failures = 0;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            std::printf("  CHECK failed at line %d: %s\n", __LINE__, #cond);        \
            ++g_failures;                                                            \
        }                                                                            \
    } while (0)
#define CHECK_EQ(a, b)                                                                              \
    do {                                                                                            \
        auto ao_a = (a);                                                                            \
        auto ao_b = (b);                                                                            \
        if (!(ao_a == ao_b)) {                                                                      \
            std::printf("  CHECK_EQ failed at line %d: %s == %s (%.17g vs %.17g)\n", __LINE__, #a, #b, \
                        double(ao_a), double(ao_b));                                                \
            ++g_failures;                                                                           \
        }                                                                                           \
    } while (0)
#define CHECK_HAS(str, sub)                                                                            \
    do {                                                                                               \
        std::string ao_s = (str);                                                                      \
        if (ao_s.find(sub) == std::string::npos) {                                                     \
            std::printf("  CHECK_HAS failed at line %d: '%s' lacks '%s'\n", __LINE__, ao_s.c_str(), sub); \
            ++g_failures;                                                                              \
        }                                                                                              \
    } while (0)

PlatformConfig Soc910B()
{
    PlatformConfig p;
    p.soc_name = "Ascend910B3";
    p.soc_version = "Ascend910B";
    p.aiv_cores = 40;
    p.aic_cores = 20;
    p.ub_bytes = 196608;
    p.l1_bytes = 524288;
    p.l0a_bytes = 65536;
    p.l0b_bytes = 65536;
    p.l0c_bytes = 131072;
    p.l2_bytes = 201326592;
    p.hbm_bytes = 68719476736ull;
    p.lib_api_workspace_bytes = 16 * 1024 * 1024;
    return p;
}

TensorArg T(const std::string& name, int dtype, std::vector<int64_t> shape, const void* data = nullptr)
{
    TensorArg t;
    t.name = name;
    t.dtype = dtype;
    t.format = 2;
    t.shape = std::move(shape);
    t.data = data;
    return t;
}

[[maybe_unused]] AttrArg AInt(const std::string& n, int64_t v)
{
    AttrArg a;
    a.name = n;
    a.kind = "int";
    a.i = v;
    return a;
}

struct Test {
    const char* name;
    std::function<void()> fn;
};

#ifndef AO_FIXTURE_ROW_SUM
// ---------------------------------------------------------------- scale_shift fixture
const float kScale = 2.5f;

struct Case {
    std::vector<TensorArg> in, out;
    std::vector<AttrArg> attrs;
};

Case Basic(int dtype = 1, bool bias = false)
{
    Case c;
    c.in.push_back(T("x", dtype, {4, 1000}));
    if (bias) c.in.push_back(T("bias", dtype, {4, 1000}));
    else {
        TensorArg b = T("bias", dtype, {});
        b.present = false;
        c.in.push_back(b);
    }
    c.in.push_back(T("scale", 0, {1}, &kScale));
    c.out.push_back(T("y", dtype, {4, 1000}));
    c.attrs.push_back(AInt("count", 7));
    return c;
}

TilingResult Run(const Case& c, const PlatformConfig& p = Soc910B()) { return RunTiling(p, c.in, c.out, c.attrs); }

std::vector<double> Decode(const TilingResult& r)
{
    std::vector<double> f(16, -12345);
    CHECK(ao_kernel_decode(r.tiling_data.data(), r.tiling_data.size(), f.data()) == 1);
    return f;
}

Case WithFault(int64_t fault)
{
    Case c = Basic();
    c.attrs.push_back(AInt("fault", fault));
    return c;
}

std::vector<Test> Tests()
{
    return {
        {"registry",
         [] {
             std::string err;
             const OpSignature* s = GetRegisteredOp(&err);
             CHECK(s != nullptr);
             if (s == nullptr) return;
             CHECK(s->op_type == "ScaleShift");
             CHECK_EQ(s->inputs.size(), size_t(3));
             CHECK_EQ(s->outputs.size(), size_t(1));
             CHECK(s->inputs[0].name == "x" && s->inputs[1].name == "bias" && s->inputs[2].name == "scale");
             CHECK_EQ(s->inputs[0].param_type, 0);
             CHECK_EQ(s->inputs[1].param_type, 1);
             CHECK_EQ(s->inputs[2].param_type, 0);
             CHECK(!s->inputs[0].value_depend && s->inputs[2].value_depend);
             CHECK(!s->inputs[0].scalar && s->inputs[2].scalar);
             CHECK((s->inputs[0].dtypes == std::vector<int>{1, 0, 27}));
             CHECK((s->outputs[0].dtypes == std::vector<int>{1, 0, 27}));
             CHECK_EQ(s->attrs.size(), size_t(6));
             const char* names[] = {"count", "alpha", "axes", "mode", "flag", "fault"};
             const char* kinds[] = {"int", "float", "list_int", "str", "bool", "int"};
             for (size_t i = 0; i < 6 && i < s->attrs.size(); ++i) {
                 CHECK(s->attrs[i].name == names[i]);
                 CHECK(s->attrs[i].kind == kinds[i]);
                 CHECK_EQ(s->attrs[i].required, i == 0);
             }
             CHECK_EQ(s->attrs[1].default_value.f, 0.5);
             CHECK((s->attrs[2].default_value.li == std::vector<int64_t>{1, 2}));
             CHECK(s->attrs[3].default_value.s == "fast");
             CHECK(s->attrs[4].default_value.b);
             CHECK(s->has_tiling && s->has_infer_shape);
         }},
        {"basic_tiling",
         [] {
             TilingResult r = Run(Basic());
             CHECK(r.ok);
             if (!r.ok) {
                 std::printf("  error: %s\n", r.error.c_str());
                 return;
             }
             CHECK_EQ(r.block_dim, 16u);  // ceil(4000 / 256) = 16 < 40 cores
             CHECK_EQ(r.tiling_key, uint64_t(10));
             CHECK_EQ(r.schedule_mode, 1u);
             CHECK_EQ(r.workspace_sizes.size(), size_t(2));
             CHECK_EQ(r.workspace_sizes[0], int64_t(16 * 1024 * 1024));
             CHECK_EQ(r.workspace_sizes[1], int64_t(16 * 32));
             CHECK_EQ(r.tiling_data.size(), sizeof(optiling::ScaleShiftTilingData));
             std::vector<double> f = Decode(r);
             CHECK_EQ(f[0], 4000.0);
             CHECK_EQ(f[1], 0.0);
             CHECK_EQ(f[2], 7.0);
             CHECK_EQ(f[3], 0.5);
             CHECK_EQ(f[4], 2.5);
             CHECK_EQ(f[5], 1.0);
             CHECK_EQ(f[6], 2.0);
             CHECK_EQ(f[7], -1.0);
             CHECK_EQ(f[8], 2.0);
             CHECK_EQ(f[9], 196608.0);
             CHECK_EQ(f[10], 40.0);
             CHECK_EQ(f[11], double(platform_ascendc::SocVersion::ASCEND910B));
             CHECK_EQ(f[12], 1.0);
             CHECK_EQ(f[13], 1.0);
             CHECK_EQ(f[14], double(4000 % 256));
             CHECK_EQ(f[15], double(4000 - 4000 % 256));
             CHECK_EQ(r.inferred_output_shapes.size(), size_t(1));
             CHECK((r.inferred_output_shapes[0] == std::vector<int64_t>{4, 1000}));
         }},
        {"saved_bytes_equal_host_struct",
         [] {
             TilingResult r = Run(Basic());
             CHECK(r.ok);
             optiling::ScaleShiftTilingData host;
             CHECK_EQ(r.tiling_data.size(), host.GetDataSize());
             if (r.tiling_data.size() != sizeof(host)) return;
             std::memcpy(static_cast<void*>(&host), r.tiling_data.data(), sizeof(host));
             CHECK_EQ(host.get_totalLength(), 4000u);
             CHECK_EQ(host.get_count(), int64_t(7));
             CHECK_EQ(host.get_axes()[1], 2);
             CHECK_EQ(host.tail.get_tailLen(), uint16_t(4000 % 256));
             // Padding is zeroed, so repeated runs give identical bytes.
             TilingResult r2 = Run(Basic());
             CHECK(r.tiling_data == r2.tiling_data);
         }},
        {"attrs_given",
         [] {
             Case c = Basic();
             AttrArg a;
             a.name = "alpha";
             a.kind = "float";
             a.f = -1.25;
             c.attrs.push_back(a);
             AttrArg ax;
             ax.name = "axes";
             ax.kind = "list_int";
             ax.li = {5, 6, 7, 8};
             c.attrs.push_back(ax);
             AttrArg m;
             m.name = "mode";
             m.kind = "str";
             m.s = "slow";
             c.attrs.push_back(m);
             AttrArg fl;
             fl.name = "flag";
             fl.kind = "bool";
             fl.b = false;
             c.attrs.push_back(fl);
             TilingResult r = Run(c);
             CHECK(r.ok);
             if (!r.ok) return;
             std::vector<double> f = Decode(r);
             CHECK_EQ(f[3], -1.25);
             CHECK_EQ(f[5], 5.0);
             CHECK_EQ(f[6], 6.0);
             CHECK_EQ(f[7], 7.0);
             CHECK_EQ(f[12], 0.0);
             CHECK_EQ(f[13], 0.0);
         }},
        {"attr_kind_conversion",
         [] {
             Case c = Basic();
             AttrArg a;  // the runner sends an int for a float attribute
             a.name = "alpha";
             a.kind = "int";
             a.i = 3;
             c.attrs.push_back(a);
             TilingResult r = Run(c);
             CHECK(r.ok);
             if (r.ok) CHECK_EQ(Decode(r)[3], 3.0);
         }},
        {"optional_bias_present",
         [] {
             TilingResult r = Run(Basic(0, true));
             CHECK(r.ok);
             if (!r.ok) return;
             CHECK_EQ(r.tiling_key, uint64_t(1));  // DT_FLOAT * 10 + bias
             std::vector<double> f = Decode(r);
             CHECK_EQ(f[1], 1.0);
             CHECK_EQ(f[8], 4.0);
             CHECK_EQ(f[4], 2.5);  // scale found by IR index after the optional input
         }},
        {"optional_input_omitted",
         [] {
             Case c = Basic();
             c.in.erase(c.in.begin() + 1);  // no "bias" entry at all
             TilingResult r = Run(c);
             CHECK(r.ok);
             if (r.ok) CHECK_EQ(Decode(r)[1], 0.0);
         }},
        {"platform_310p",
         [] {
             PlatformConfig p = Soc910B();
             p.soc_name = "Ascend310P3";
             p.soc_version = "Ascend310P";
             p.aiv_cores = 8;
             p.aic_cores = 8;
             p.ub_bytes = 262144;
             TilingResult r = Run(Basic(), p);
             CHECK(r.ok);
             if (!r.ok) return;
             CHECK_EQ(r.block_dim, 8u);
             std::vector<double> f = Decode(r);
             CHECK_EQ(f[9], 262144.0);
             CHECK_EQ(f[11], double(platform_ascendc::SocVersion::ASCEND310P));
             CHECK(platform_ascendc::AoSocVersionFromName("Ascend910_9391") ==
                   platform_ascendc::SocVersion::ASCEND910_93);
             CHECK(platform_ascendc::AoSocVersionFromName("Ascend910A") == platform_ascendc::SocVersion::ASCEND910);
             CHECK(platform_ascendc::AoSocVersionFromName("Ascend310B1") == platform_ascendc::SocVersion::ASCEND310B);
         }},
        {"error_missing_required_attr",
         [] {
             Case c = Basic();
             c.attrs.clear();
             TilingResult r = Run(c);
             CHECK(!r.ok);
             CHECK_HAS(r.error, "count");
         }},
        {"error_unknown_attr",
         [] {
             Case c = Basic();
             c.attrs.push_back(AInt("nonsense", 1));
             TilingResult r = Run(c);
             CHECK(!r.ok);
             CHECK_HAS(r.error, "nonsense");
         }},
        {"error_missing_required_input",
         [] {
             Case c = Basic();
             c.in.pop_back();  // no scale
             TilingResult r = Run(c);
             CHECK(!r.ok);
             CHECK_HAS(r.error, "scale");
         }},
        {"error_unknown_input",
         [] {
             Case c = Basic();
             c.in.push_back(T("extra", 1, {1}));
             TilingResult r = Run(c);
             CHECK(!r.ok);
             CHECK_HAS(r.error, "extra");
         }},
        {"error_value_missing",
         [] {
             Case c = Basic();
             c.in[2].data = nullptr;
             TilingResult r = Run(c);
             CHECK(!r.ok);
             CHECK_HAS(r.error, "GRAPH_FAILED");
         }},
        {"error_graph_failed",
         [] {
             TilingResult r = Run(WithFault(1));
             CHECK(!r.ok);
             CHECK_HAS(r.error, "GRAPH_FAILED");
         }},
        {"error_no_block_dim",
         [] {
             TilingResult r = Run(WithFault(2));
             CHECK(!r.ok);
             CHECK_HAS(r.error, "SetBlockDim");
         }},
        {"error_save_capacity",
         [] {
             TilingResult r = Run(WithFault(3));
             CHECK(!r.ok);
             CHECK_HAS(r.error, "SaveToBuffer(ScaleShiftTilingData)");
         }},
        {"error_exception",
         [] {
             TilingResult r = Run(WithFault(4));
             CHECK(!r.ok);
             CHECK_HAS(r.error, "boom");
         }},
        {"error_sigfpe",
         [] {
             TilingResult r = Run(WithFault(5));
             CHECK(!r.ok);
             CHECK_HAS(r.error, "SIGFPE");
             TilingResult again = Run(Basic());  // still usable afterwards
             CHECK(again.ok);
         }},
        {"error_sigsegv",
         [] {
             TilingResult r = Run(WithFault(6));
             CHECK(!r.ok);
             CHECK_HAS(r.error, "SIGSEGV");
             CHECK(Run(Basic()).ok);
         }},
        {"error_data_size_over_capacity",
         [] {
             TilingResult r = Run(WithFault(7));
             CHECK(!r.ok);
             CHECK_HAS(r.error, "capacity");
         }},
        {"infershape_untouched",
         [] {
             TilingResult r = Run(WithFault(8));
             CHECK(r.ok);
             CHECK_EQ(r.inferred_output_shapes.size(), size_t(1));
             if (!r.inferred_output_shapes.empty()) CHECK(r.inferred_output_shapes[0].empty());
         }},
        {"kernel_side_layout",
         [] {
             using HT = optiling::ScaleShiftTilingData;
             size_t k[16];
             ao_kernel_layout(k);
             size_t h[16] = {sizeof(HT),
                             offsetof(HT, totalLength),
                             offsetof(HT, hasBias),
                             offsetof(HT, count),
                             offsetof(HT, alpha),
                             offsetof(HT, scale),
                             offsetof(HT, axes),
                             offsetof(HT, typeBytes),
                             offsetof(HT, ubBytes),
                             offsetof(HT, coreNum),
                             offsetof(HT, socFamily),
                             offsetof(HT, flag),
                             offsetof(HT, modeFast),
                             offsetof(HT, tail),
                             offsetof(HT, tail) + offsetof(optiling::ScaleShiftTail, tailOffset),
                             sizeof(optiling::ScaleShiftTail)};
             for (int i = 0; i < 16; ++i) CHECK_EQ(k[i], h[i]);
             CHECK_EQ(sizeof(HT), size_t(80));
         }},
    };
}
#else
// ---------------------------------------------------------------- row_sum fixture
std::vector<Test> Tests()
{
    return {
        {"registry",
         [] {
             std::string err;
             const OpSignature* s = GetRegisteredOp(&err);
             CHECK(s != nullptr);
             if (s == nullptr) return;
             CHECK(s->op_type == "RowSum");
             CHECK_EQ(s->inputs.size(), size_t(1));
             CHECK_EQ(s->inputs[0].param_type, 2);
             CHECK(s->has_tiling);
             CHECK(s->has_infer_shape);
             CHECK_EQ(s->attrs.size(), size_t(1));
             CHECK(!s->attrs[0].required);
         }},
        {"dynamic_inputs_and_tiling_parse",
         [] {
             std::vector<TensorArg> in = {T("xs", 0, {6, 10}), T("xs", 0, {6, 20}), T("xs", 0, {6, 30})};
             for (TensorArg& a : in) a.dynamic = true;  // the tensors of the list xs
             std::vector<TensorArg> out = {T("y", 0, {})};
             AttrArg keep;
             keep.name = "keep";
             keep.kind = "bool";
             keep.b = true;
             TilingResult r = RunTiling(Soc910B(), in, out, {keep});
             CHECK(r.ok);
             if (!r.ok) {
                 std::printf("  error: %s\n", r.error.c_str());
                 return;
             }
             CHECK_EQ(r.tiling_data.size(), sizeof(RowSumTiling));
             RowSumTiling t;
             std::memcpy(&t, r.tiling_data.data(), sizeof(t));
             CHECK_EQ(t.numInputs, 3u);
             CHECK_EQ(t.rows, 6u);
             CHECK_EQ(t.cols[0], uint64_t(10));
             CHECK_EQ(t.cols[2], uint64_t(30));
             CHECK_EQ(t.cols[3], uint64_t(0));
             CHECK_EQ(t.coreNum, 40u);  // from TilingParse's compile info
             CHECK_EQ(t.keep, 1u);
             CHECK_EQ(r.block_dim, 6u);
             CHECK_EQ(r.tiling_key, uint64_t(3));
             CHECK((r.inferred_output_shapes.at(0) == std::vector<int64_t>{6, 1}));
             CHECK((r.input_params == std::vector<std::vector<size_t>>{{0, 1, 2}}));
             CHECK((r.output_params == std::vector<std::vector<size_t>>{{0}}));
         }},
        {"dynamic_list_given_as_single_tensor",
         [] {
             std::vector<TensorArg> in = {T("xs", 0, {6, 10})};
             TilingResult r = RunTiling(Soc910B(), in, {T("y", 0, {})}, {});
             CHECK(!r.ok);
             CHECK(r.error.find("dynamic (list) parameter") != std::string::npos);
             in[0].dynamic = true;
             std::vector<TensorArg> out = {T("y", 0, {})};
             out[0].dynamic = true;
             r = RunTiling(Soc910B(), in, out, {});
             CHECK(!r.ok);
             CHECK(r.error.find("output 'y' is a single tensor") != std::string::npos);
         }},
        {"dynamic_zero_instances",
         [] {
             std::vector<TensorArg> out = {T("y", 0, {3})};
             TilingResult r = RunTiling(Soc910B(), {}, out, {});
             CHECK(!r.ok);
         }},
    };
}
#endif

}  // namespace

int main(int argc, char** argv)
{
    std::vector<Test> tests = Tests();
    if (argc == 2 && std::strcmp(argv[1], "--list") == 0) {
        for (auto& t : tests) std::printf("%s\n", t.name);
        return 0;
    }
    int run = 0;
    for (auto& t : tests) {
        bool selected = argc < 2;
        for (int i = 1; i < argc; ++i) selected = selected || std::strcmp(argv[i], t.name) == 0;
        if (!selected) continue;
        int before = g_failures;
        t.fn();
        ++run;
        std::printf("%s %s\n", g_failures == before ? "PASS" : "FAIL", t.name);
    }
    if (run == 0) {
        std::printf("no test selected\n");
        return 2;
    }
    return g_failures == 0 ? 0 : 1;
}
