// AscendOptimizer simulator: host-side runtime. Instantiates the registered OpDef, builds the
// gert contexts from the runner's tensors/attrs/SoC configuration and runs InferShape and the
// tiling function, turning every failure (status, exception, crash) into an error message.
// Also holds the out-of-line members of the host emulation headers (second half of the file).
#include <csetjmp>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "host_api.h"
#include "sim_config.h"
#include "graph/ascend_string.h"
#include "graph/types.h"
#include "graph/utils/type_utils.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace ao::host {
namespace {

struct RegistryState {
    bool built = false;
    std::string error;
    std::unique_ptr<ops::OpDef> def;
    OpSignature sig;
};

RegistryState& Reg() {
    static RegistryState s;
    return s;
}

const gert::AoImplEntry* FindImpl(const std::string& type) {
    auto& m = gert::AoImplRegistry();
    auto it = m.find(type);
    return it == m.end() ? nullptr : &it->second;
}

int ParamTypeCode(ops::Option o) {
    switch (o) {
        case ops::OPTIONAL: return 1;
        case ops::DYNAMIC: return 2;
        default: return 0;
    }
}

AttrArg DefaultOf(const ops::OpAttrDef& a) {
    AttrArg r;
    r.name = a.AoName();
    r.kind = a.AoKind();
    r.i = a.AoInt();
    r.f = a.AoFloat();
    r.b = a.AoBool();
    r.s = a.AoStr();
    r.li = a.AoListInt();
    for (float v : a.AoListFloat()) r.lf.push_back(v);
    if (r.kind == "list_bool") {
        for (bool v : a.AoListBool()) r.li.push_back(v ? 1 : 0);
    }
    return r;
}

// ---- crash guard: turns SIGSEGV/SIGFPE/... inside op code into an error -------------------
sigjmp_buf g_jmp;
volatile sig_atomic_t g_sig = 0;

void OnSignal(int sig) {
    g_sig = sig;
    siglongjmp(g_jmp, 1);
}

const char* SignalText(int sig) {
    switch (sig) {
        case SIGSEGV: return "SIGSEGV (invalid memory access, e.g. a null pointer from an absent input/attr)";
        case SIGFPE: return "SIGFPE (arithmetic error, e.g. integer division by zero)";
        case SIGBUS: return "SIGBUS (bus error)";
        case SIGILL: return "SIGILL (illegal instruction)";
        case SIGABRT: return "SIGABRT (abort)";
        default: return "signal";
    }
}

template <typename F>
bool Guarded(const char* what, F&& fn, std::string* err) {
    static const int kSigs[] = {SIGSEGV, SIGFPE, SIGBUS, SIGILL, SIGABRT};
    static std::vector<char> alt_stack(1 << 16);
    stack_t ss{}, old_ss{};
    ss.ss_sp = alt_stack.data();
    ss.ss_size = alt_stack.size();
    ss.ss_flags = 0;
    sigaltstack(&ss, &old_ss);
    struct sigaction sa {}, old[5];
    sa.sa_handler = OnSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_ONSTACK | SA_NODEFER;
    for (int i = 0; i < 5; ++i) sigaction(kSigs[i], &sa, &old[i]);
    bool ok = true;
    g_sig = 0;
    if (sigsetjmp(g_jmp, 1) == 0) {
        try {
            fn();
        } catch (const std::exception& e) {
            *err = std::string(what) + " threw an exception: " + e.what();
            ok = false;
        } catch (...) {
            *err = std::string(what) + " threw a non-standard exception";
            ok = false;
        }
    } else {
        *err = std::string(what) + " crashed: " + SignalText(g_sig);
        ok = false;
    }
    for (int i = 0; i < 5; ++i) sigaction(kSigs[i], &old[i], nullptr);
    sigaltstack(&old_ss, nullptr);
    return ok;
}

bool BuildRegistry(std::string* error) {
    RegistryState& s = Reg();
    if (s.built) {
        if (!s.def && error) *error = s.error;
        return s.def != nullptr;
    }
    s.built = true;
    auto& reg = ops::AoOpDefRegistry();
    if (reg.empty()) {
        s.error = "no operator is registered (the op_host source has no OP_ADD)";
    } else if (reg.size() > 1) {
        s.error = "exactly one operator must be registered, found " + std::to_string(reg.size()) + ":";
        for (auto& e : reg) s.error += " " + e.type;
    } else {
        std::string err;
        ops::OpDef* made = nullptr;
        if (!Guarded("the OpDef constructor", [&] { made = reg[0].make(reg[0].type.c_str()); }, &err)) {
            s.error = err;
        } else if (made == nullptr) {
            s.error = "OpDef factory returned null";
        } else {
            s.def.reset(made);
        }
    }
    if (!s.def) {
        if (error) *error = s.error;
        return false;
    }
    const ops::OpDef& d = *s.def;
    OpSignature& sig = s.sig;
    sig.op_type = d.AoType();
    const gert::AoImplEntry* impl = FindImpl(sig.op_type);
    auto params = [&](const std::deque<ops::OpParamDef>& ps, bool is_input) {
        std::vector<OpSignature::Param> out;
        for (size_t k = 0; k < ps.size(); ++k) {
            const auto& p = ps[k];
            OpSignature::Param q;
            q.name = p.AoName();
            q.param_type = ParamTypeCode(p.AoType());
            for (ge::DataType dt : p.AoDataTypes()) q.dtypes.push_back(static_cast<int>(dt));
            q.value_depend = p.AoValueDepend();
            if (is_input && impl != nullptr) {
                for (int32_t idx : impl->data_dependency) {
                    if (idx >= 0 && size_t(idx) == k) q.value_depend = true;
                }
            }
            q.scalar = p.AoScalar();
            for (const ops::ScalarVar& v : p.AoInitValues()) {
                OpSignature::Param::Fill f{0, 0};
                if (!ops::AoScalarElement(v, &f.width, &f.bits)) f = {1, 0};  // INVALID_DTYPE: zeroes
                q.init.push_back(f);
            }
            q.shape_depend = !is_input && p.AoShapeDepend();
            out.push_back(q);
        }
        return out;
    };
    sig.inputs = params(d.AoInputs(), true);
    sig.outputs = params(d.AoOutputs(), false);
    for (const auto& a : d.AoAttrs()) {
        OpSignature::Attr at;
        at.name = a.AoName();
        at.kind = a.AoKind();
        at.required = a.AoRequired();
        at.default_value = DefaultOf(a);
        sig.attrs.push_back(at);
    }
    sig.has_tiling = d.AoAICore().AoTiling() != nullptr || (impl != nullptr && impl->tiling != nullptr);
    sig.has_infer_shape = d.AoInferShape() != nullptr || (impl != nullptr && impl->infer_shape != nullptr);
    return true;
}

uint64_t NumElems(const std::vector<int64_t>& shape) {
    uint64_t n = 1;
    for (int64_t d : shape) n *= uint64_t(d < 0 ? 0 : d);
    return n;
}

gert::Shape ToShape(const std::vector<int64_t>& dims) {
    gert::Shape s;
    for (int64_t d : dims) s.AppendDim(d);
    return s;
}

// Maps the runner's tensors to IR parameters; fills instance lists + IR instance info and,
// per IR parameter, the indices of its tensors in args. A list (DYNAMIC parameter) must be
// given as a list and a single tensor as a single tensor: the kernel receives them differently.
bool MapParams(const char* what, const std::vector<OpSignature::Param>& ir, const std::vector<TensorArg>& args,
               std::vector<const TensorArg*>* instances, std::vector<gert::AnchorInstanceInfo>* info,
               std::vector<std::vector<size_t>>* groups, std::string* err) {
    bool named = false;
    for (const auto& a : args) {
        for (const auto& p : ir) {
            if (!a.name.empty() && a.name == p.name) named = true;
        }
    }
    std::vector<bool> used(args.size(), false);
    for (size_t k = 0; k < ir.size(); ++k) {
        const auto& p = ir[k];
        std::vector<const TensorArg*> mine;
        std::vector<size_t> idx;
        if (named) {
            for (size_t j = 0; j < args.size(); ++j) {
                if (args[j].name == p.name) {
                    used[j] = true;
                    if (args[j].present) mine.push_back(&args[j]), idx.push_back(j);
                }
            }
        } else if (k < args.size()) {
            used[k] = true;
            if (args[k].present) mine.push_back(&args[k]), idx.push_back(k);
        }
        for (const TensorArg* a : mine) {
            if (a->dynamic != (p.param_type == 2)) {
                *err = std::string(what) + " '" + p.name + "' is " +
                       (p.param_type == 2 ? "a dynamic (list) parameter in the OpDef, but the case gives a single "
                                            "tensor: give it as a list (\"dynamic\": true with one shape per tensor, "
                                            "or one \"dynamic_" + std::string(what) + "\" entry per tensor)"
                                          : "a single tensor in the OpDef (not ParamType(DYNAMIC)), but the case "
                                            "gives it as a list");
                return false;
            }
        }
        if (p.param_type == 0 && mine.size() != 1) {
            *err = std::string("required ") + what + " '" + p.name + "' " +
                   (mine.empty() ? "is missing" : "is given " + std::to_string(mine.size()) + " times");
            return false;
        }
        if (p.param_type == 1 && mine.size() > 1) {
            *err = std::string("optional ") + what + " '" + p.name + "' is given " + std::to_string(mine.size()) +
                   " times";
            return false;
        }
        info->emplace_back(uint32_t(instances->size()), uint32_t(mine.size()));
        instances->insert(instances->end(), mine.begin(), mine.end());
        groups->push_back(idx);
    }
    for (size_t j = 0; j < args.size(); ++j) {
        if (!used[j]) {
            *err = std::string("unknown ") + what + " '" + args[j].name + "' (the OpDef declares " +
                   std::to_string(ir.size()) + " " + what + "s)";
            return false;
        }
    }
    return true;
}

std::unique_ptr<gert::AoAttrValue> MakeAttr(const std::string& kind, const AttrArg& a) {
    auto v = std::make_unique<gert::AoAttrValue>();
    v->kind = kind;
    // Scalar views (converted when the runner's kind differs from the OpDef's).
    double num = 0;
    if (a.kind == "float") num = a.f;
    else if (a.kind == "bool") num = a.b ? 1 : 0;
    else num = double(a.i);
    int64_t inum = (a.kind == "float") ? int64_t(a.f) : (a.kind == "bool" ? (a.b ? 1 : 0) : a.i);
    v->i = inum;
    v->i32 = int32_t(inum);
    v->u32 = uint32_t(inum);
    v->u64 = uint64_t(inum);
    v->f = float(num);
    v->d = num;
    v->b = (a.kind == "bool") ? a.b : (num != 0);
    v->s = a.s;
    // List views.
    if (a.kind == "list_float") {
        for (double x : a.lf) {
            v->lf.push_back(float(x));
            v->li.push_back(int64_t(x));
        }
    } else {
        v->li = a.li;
        for (int64_t x : a.li) v->lf.push_back(float(x));
        if (a.li.empty()) {
            for (double x : a.lf) v->lf.push_back(float(x));
        }
    }
    size_t nb = (kind == "list_float" || a.kind == "list_float") ? v->lf.size() : v->li.size();
    v->lb.reset(new bool[nb > 0 ? nb : 1]());
    v->lb_size = nb;
    for (size_t k = 0; k < nb; ++k) v->lb[k] = (a.kind == "list_float") ? v->lf[k] != 0 : v->li[k] != 0;
    v->cv_i.size_ = v->li.size();
    v->cv_i.data_ = v->li.data();
    v->cv_f.size_ = v->lf.size();
    v->cv_f.data_ = v->lf.data();
    v->cv_b.size_ = v->lb_size;
    v->cv_b.data_ = v->lb.get();
    return v;
}

struct PlatformGuard {
    explicit PlatformGuard(fe::PlatFormInfos* p) { fe::AoCurrentPlatform() = p; }
    ~PlatformGuard() { fe::AoCurrentPlatform() = nullptr; }
};

void FillPlatform(const PlatformConfig& pc, fe::PlatFormInfos* pi) {
    pi->ao_soc_name = pc.soc_name;
    pi->ao_soc_version = pc.soc_version;
    pi->ao_aiv_cores = pc.aiv_cores;
    pi->ao_aic_cores = pc.aic_cores;
    pi->ao_ub_bytes = pc.ub_bytes;
    pi->ao_l1_bytes = pc.l1_bytes;
    pi->ao_l0a_bytes = pc.l0a_bytes;
    pi->ao_l0b_bytes = pc.l0b_bytes;
    pi->ao_l0c_bytes = pc.l0c_bytes;
    pi->ao_l2_bytes = pc.l2_bytes;
    pi->ao_hbm_bytes = pc.hbm_bytes;
    pi->ao_lib_api_workspace_bytes = pc.lib_api_workspace_bytes;
    pi->SetPlatformRes("version", "SoC_version", pc.soc_name);
    pi->SetPlatformRes("version", "Short_SoC_version", pc.soc_version);
    pi->SetPlatformRes("SoCInfo", "ai_core_cnt", std::to_string(pc.aic_cores));
    pi->SetPlatformRes("SoCInfo", "cube_core_cnt", std::to_string(pc.aic_cores));
    pi->SetPlatformRes("SoCInfo", "vector_core_cnt", std::to_string(pc.aiv_cores));
    pi->SetPlatformRes("SoCInfo", "l2_size", std::to_string(pc.l2_bytes));
    pi->SetPlatformRes("SoCInfo", "memory_size", std::to_string(pc.hbm_bytes));
    pi->SetPlatformRes("AICoreSpec", "ub_size", std::to_string(pc.ub_bytes));
    pi->SetPlatformRes("AICoreSpec", "l1_size", std::to_string(pc.l1_bytes));
    pi->SetPlatformRes("AICoreSpec", "l0_a_size", std::to_string(pc.l0a_bytes));
    pi->SetPlatformRes("AICoreSpec", "l0_b_size", std::to_string(pc.l0b_bytes));
    pi->SetPlatformRes("AICoreSpec", "l0_c_size", std::to_string(pc.l0c_bytes));
    // Cube capabilities as the platform info lists them, from the SoC file (cube tiling libraries
    // pick their code paths by them): an AICoreintrinsicDtypeMap entry exists only for an intrinsic
    // the SoC has; the L1 -> BiasTable move lists "bf16" where it takes a bfloat16 bias.
    pi->SetPlatformRes("AICoreSpec", "cube_freq", std::to_string(pc.cube_freq_mhz));
    pi->SetPlatformRes("AICoreSpec", "bt_size", std::to_string(pc.bt_bytes));
    pi->SetPlatformRes("AICoreSpec", "load3d_constraints", pc.load3d_constraints ? "1" : "0");
    for (const auto& [name, value] : pc.intrinsics) pi->SetPlatformRes("AICoreintrinsicDtypeMap", name, value);
}

std::string StatusText(ge::graphStatus st) {
    return st == ge::GRAPH_FAILED ? std::string("GRAPH_FAILED") : "status " + std::to_string(st);
}

}  // namespace

const OpSignature* GetRegisteredOp(std::string* error) {
    if (!BuildRegistry(error)) return nullptr;
    return &Reg().sig;
}

void ResetCaseState() {
    ao_tiling::ClearBindings();
    ao_tiling::State() = ao_tiling::SaveState();
}

TilingResult RunTiling(const PlatformConfig& pc, const std::vector<TensorArg>& inputs,
                       const std::vector<TensorArg>& outputs, const std::vector<AttrArg>& attrs) {
    TilingResult r;
    std::string err;
    const OpSignature* sig = GetRegisteredOp(&err);
    if (sig == nullptr) {
        r.error = err;
        return r;
    }
    const ops::OpDef& def = *Reg().def;
    const gert::AoImplEntry* impl = FindImpl(sig->op_type);
    ao_tiling::State() = ao_tiling::SaveState();
    ao_tiling::ClearBindings();  // no SetDataPtr binding outlives a run

    fe::PlatFormInfos platform;
    FillPlatform(pc, &platform);
    PlatformGuard guard(&platform);

    // Node: inputs, outputs, attrs.
    gert::AoNodeData node;
    node.name = sig->op_type;
    node.type = sig->op_type;
    std::vector<const TensorArg*> in_inst, out_inst;
    if (!MapParams("input", sig->inputs, inputs, &in_inst, &node.in_ir, &r.input_params, &r.error)) return r;
    if (!MapParams("output", sig->outputs, outputs, &out_inst, &node.out_ir, &r.output_params, &r.error)) return r;
    for (const TensorArg* t : in_inst) {
        gert::StorageShape ss;
        ss.MutableOriginShape() = ToShape(t->shape);
        ss.MutableStorageShape() = ToShape(t->shape);
        node.in_shapes.push_back(ss);
        gert::Tensor tensor;
        tensor.shape_ = ss;
        tensor.desc_.SetDataType(static_cast<ge::DataType>(t->dtype));
        tensor.desc_.SetOriginFormat(static_cast<ge::Format>(t->format));
        tensor.desc_.SetStorageFormat(static_cast<ge::Format>(t->format));
        tensor.data_ = t->data;
        int es = ge::GetSizeByDataType(static_cast<ge::DataType>(t->dtype));
        uint64_t n = NumElems(t->shape);
        tensor.size_ = es <= 0 ? 0
                               : (es >= ge::kDataTypeSizeBitOffset
                                      ? size_t((n * uint64_t(es - ge::kDataTypeSizeBitOffset) + 7) / 8)
                                      : size_t(n * uint64_t(es)));
        node.in_tensors.push_back(tensor);
    }
    for (const TensorArg* t : out_inst) {
        gert::StorageShape ss;
        ss.MutableOriginShape() = ToShape(t->shape);
        ss.MutableStorageShape() = ToShape(t->shape);
        node.out_shapes.push_back(ss);
        gert::CompileTimeTensorDesc d;
        d.SetDataType(static_cast<ge::DataType>(t->dtype));
        d.SetOriginFormat(static_cast<ge::Format>(t->format));
        d.SetStorageFormat(static_cast<ge::Format>(t->format));
        node.out_descs.push_back(d);
    }
    std::vector<bool> attr_used(attrs.size(), false);
    for (const auto& a : sig->attrs) {
        const AttrArg* given = nullptr;
        for (size_t j = 0; j < attrs.size(); ++j) {
            if (attrs[j].name == a.name) {
                given = &attrs[j];
                attr_used[j] = true;
            }
        }
        if (given == nullptr && a.required) {
            r.error = "required attribute '" + a.name + "' (" + a.kind + ") is not given";
            return r;
        }
        node.attrs.AoAppend(MakeAttr(a.kind, given ? *given : a.default_value));
    }
    for (size_t j = 0; j < attrs.size(); ++j) {
        if (!attr_used[j]) {
            r.error = "unknown attribute '" + attrs[j].name + "' (not declared by the OpDef)";
            return r;
        }
    }

    // InferShape.
    r.inferred_output_shapes.assign(out_inst.size(), {});
    gert::InferShapeKernelFunc infer =
        (impl != nullptr && impl->infer_shape != nullptr) ? impl->infer_shape : def.AoInferShape();
    if (infer != nullptr) {
        std::vector<gert::Shape> shapes(out_inst.size());
        gert::InferShapeContext ictx(&node, &shapes);
        ge::graphStatus st = ge::GRAPH_SUCCESS;
        bool ran = Guarded("InferShape", [&] { st = infer(&ictx); }, &err);
        if (!ran || st != ge::GRAPH_SUCCESS) {
            // The case gives every output's shape ([] a scalar's): the run does not need it.
            std::string why = ran ? "InferShape returned " + StatusText(st) : err;
            r.infer_shape_note = why + " (not needed: the case gives every output's shape)";
            shapes.assign(out_inst.size(), gert::Shape());
        }
        for (size_t i = 0; i < shapes.size(); ++i) {
            for (size_t d = 0; d < shapes[i].GetDimNum(); ++d) r.inferred_output_shapes[i].push_back(shapes[i].GetDim(d));
            if (out_inst[i]->shape.empty() && shapes[i].GetDimNum() > 0) {
                node.out_shapes[i].MutableOriginShape() = shapes[i];
                node.out_shapes[i].MutableStorageShape() = shapes[i];
            }
        }
    }

    // TilingParse (compile info), then tiling.
    std::shared_ptr<void> compile_info;
    if (impl != nullptr && impl->make_compile_info) {
        if (!Guarded("creating the compile-info object", [&] { compile_info = impl->make_compile_info(); }, &err)) {
            r.error = err;
            return r;
        }
        if (impl->tiling_parse != nullptr) {
            gert::TilingParseContext pctx(&node, &platform, compile_info.get());
            ge::graphStatus st = ge::GRAPH_SUCCESS;
            if (!Guarded("TilingParse", [&] { st = impl->tiling_parse(&pctx); }, &err)) {
                r.error = err;
                return r;
            }
            if (st != ge::GRAPH_SUCCESS) {
                r.error = "TilingParse returned " + StatusText(st);
                return r;
            }
        }
    }
    gert::TilingKernelFunc tiling =
        (impl != nullptr && impl->tiling != nullptr) ? impl->tiling : def.AoAICore().AoTiling();
    if (tiling == nullptr) {
        r.error = "no tiling function is registered (AICore().SetTiling or IMPL_OP_OPTILING)";
        return r;
    }
    auto ctx = std::make_unique<gert::TilingContext>(&node, &platform, compile_info.get());
    ge::graphStatus st = ge::GRAPH_SUCCESS;
    if (!Guarded("the tiling function", [&] { st = tiling(ctx.get()); }, &err)) {
        r.error = err;
        return r;
    }
    const std::string& save_err = ao_tiling::State().error;
    if (st != ge::GRAPH_SUCCESS) {
        r.error = "the tiling function returned " + StatusText(st);
        if (!save_err.empty()) r.error += "; " + save_err;
        return r;
    }
    if (!save_err.empty()) {
        r.error = save_err;
        return r;
    }
    gert::TilingData* raw = ctx->GetRawTilingData();
    size_t size = raw->GetDataSize();
    if (size == 0 && ao_tiling::State().last_dst == raw->GetData()) size = ao_tiling::State().last_size;
    if (size > raw->GetCapacity()) {
        r.error = "tiling data size " + std::to_string(size) + " exceeds the capacity of " +
                  std::to_string(raw->GetCapacity()) + " bytes";
        return r;
    }
    if (ctx->GetBlockDim() == 0) {
        r.error = "the tiling function never called SetBlockDim (block dim is 0)";
        return r;
    }
    const uint8_t* bytes = static_cast<const uint8_t*>(raw->GetData());
    r.tiling_data.assign(bytes, bytes + size);
    r.block_dim = ctx->GetBlockDim();
    r.tiling_key = ctx->GetTilingKey();
    r.schedule_mode = ctx->GetScheduleMode();
    for (size_t i = 0; i < ctx->GetWorkspaceNum(); ++i) r.workspace_sizes.push_back(int64_t(ctx->AoWorkspace()[i]));
    r.ok = true;
    return r;
}

}  // namespace ao::host

// ============================================================================================
// Out-of-line members of the host emulation headers (include/register, ascendopt_host, graph,
// platform, tiling/platform). They live here, compiled once into the runtime library, so that
// op_host translation units do not instantiate the std templates their bodies use.
// ============================================================================================

// ------------------------------------------------------------------ register/tilingdata_base.h
namespace ao_tiling {

SaveState& State() {
    static SaveState s;
    return s;
}

bool SaveBytes(const void* src, size_t n, void* dst, size_t cap, const char* cls) {
    SaveState& st = State();
    if (dst == nullptr || cap < n) {
        if (st.error.empty()) {
            st.error = std::string("SaveToBuffer(") + cls + "): tiling struct needs " + std::to_string(n) +
                       " bytes but the buffer " + (dst == nullptr ? "is null" : "holds " + std::to_string(cap));
        }
        return false;
    }
    std::memcpy(dst, src, n);
    st.last_dst = dst;
    st.last_size = n;
    return true;
}

std::map<std::string, ClassInfo>& Classes() {
    static std::map<std::string, ClassInfo> m;
    return m;
}

ClassRegistrar::ClassRegistrar(const char* op_type, const char* class_name, size_t size) {
    Classes()[op_type] = ClassInfo{class_name, size};
}

}  // namespace ao_tiling

// ----------------------------------------------------------------- register/op_impl_registry.h
namespace gert {

std::map<std::string, AoImplEntry>& AoImplRegistry() {
    static std::map<std::string, AoImplEntry> m;
    return m;
}

OpImplRegisterV2::OpImplRegisterV2(const char* op_type) : op_type_(op_type ? op_type : "") { Entry(); }
OpImplRegisterV2::OpImplRegisterV2(const OpImplRegisterV2&) = default;
OpImplRegisterV2::OpImplRegisterV2(OpImplRegisterV2&&) noexcept = default;
OpImplRegisterV2& OpImplRegisterV2::operator=(const OpImplRegisterV2&) = default;
OpImplRegisterV2& OpImplRegisterV2::operator=(OpImplRegisterV2&&) noexcept = default;
OpImplRegisterV2::~OpImplRegisterV2() = default;

AoImplEntry& OpImplRegisterV2::Entry() { return AoImplRegistry()[op_type_]; }

OpImplRegisterV2& OpImplRegisterV2::Tiling(TilingKernelFunc fn, size_t) {
    Entry().tiling = fn;
    return *this;
}

OpImplRegisterV2& OpImplRegisterV2::AoTilingParse(TilingParseFunc fn, void* (*make)(), void (*destroy)(void*)) {
    AoImplEntry& e = Entry();
    e.tiling_parse = fn;
    e.make_compile_info = [make, destroy]() { return std::shared_ptr<void>(make(), destroy); };
    return *this;
}

OpImplRegisterV2& OpImplRegisterV2::InferShape(InferShapeKernelFunc fn) {
    Entry().infer_shape = fn;
    return *this;
}

OpImplRegisterV2& OpImplRegisterV2::InferDataType(InferDataTypeKernelFunc fn) {
    Entry().infer_datatype = fn;
    return *this;
}

OpImplRegisterV2& OpImplRegisterV2::InputsDataDependency(std::initializer_list<int32_t> idx) {
    std::vector<int32_t>& dep = Entry().data_dependency;
    dep.insert(dep.end(), idx.begin(), idx.end());
    return *this;
}

// ---------------------------------------------------------------------- ascendopt_host/gert.h
RuntimeAttrs::RuntimeAttrs() = default;
RuntimeAttrs::~RuntimeAttrs() = default;

size_t RuntimeAttrs::GetAttrNum() const { return vals_.size(); }
void RuntimeAttrs::AoAppend(std::unique_ptr<AoAttrValue> v) { vals_.push_back(std::move(v)); }
void RuntimeAttrs::AoClear() { vals_.clear(); }

const AoAttrValue* RuntimeAttrs::AoValue(size_t idx) const {
    return idx < vals_.size() ? vals_[idx].get() : nullptr;
}

const char* RuntimeAttrs::AoStr(const AoAttrValue& v) { return v.s.c_str(); }

const ContinuousVector* RuntimeAttrs::AoListView(const AoAttrValue& v) {
    if (v.kind == "list_float") return &v.cv_f;
    if (v.kind == "list_bool") return &v.cv_b;
    return &v.cv_i;
}

TilingData::TilingData() : buf_(kAoDefaultCapacity, 0) {}
TilingData::TilingData(const TilingData&) = default;
TilingData::TilingData(TilingData&&) noexcept = default;
TilingData& TilingData::operator=(const TilingData&) = default;
TilingData& TilingData::operator=(TilingData&&) noexcept = default;
TilingData::~TilingData() = default;

size_t TilingData::GetCapacity() const { return buf_.size(); }
void* TilingData::GetData() { return buf_.data(); }
const void* TilingData::GetData() const { return buf_.data(); }

const char* ComputeNodeInfo::GetNodeName() const { return n_->name.c_str(); }
const char* ComputeNodeInfo::GetNodeType() const { return n_->type.c_str(); }
size_t ComputeNodeInfo::GetIrInputsNum() const { return n_->in_ir.size(); }
size_t ComputeNodeInfo::GetIrOutputsNum() const { return n_->out_ir.size(); }
size_t ComputeNodeInfo::GetInputsNum() const { return n_->in_tensors.size(); }
size_t ComputeNodeInfo::GetOutputsNum() const { return n_->out_descs.size(); }

const CompileTimeTensorDesc* ComputeNodeInfo::GetInputTdInfo(size_t i) const {
    return i < n_->in_tensors.size() ? &n_->in_tensors[i].desc_ : nullptr;
}

const CompileTimeTensorDesc* ComputeNodeInfo::GetOutputTdInfo(size_t i) const {
    return i < n_->out_descs.size() ? &n_->out_descs[i] : nullptr;
}

const AnchorInstanceInfo* ComputeNodeInfo::GetInputInstanceInfo(size_t ir) const {
    return ir < n_->in_ir.size() ? &n_->in_ir[ir] : nullptr;
}

const AnchorInstanceInfo* ComputeNodeInfo::GetOutputInstanceInfo(size_t ir) const {
    return ir < n_->out_ir.size() ? &n_->out_ir[ir] : nullptr;
}

const CompileTimeTensorDesc* ExtendedKernelContext::GetInputDesc(size_t i) const {
    return i < node_->in_tensors.size() ? &node_->in_tensors[i].desc_ : nullptr;
}

const CompileTimeTensorDesc* ExtendedKernelContext::GetOutputDesc(size_t i) const {
    return i < node_->out_descs.size() ? &node_->out_descs[i] : nullptr;
}

const AnchorInstanceInfo* ExtendedKernelContext::GetIrInputInstanceInfo(size_t ir) const {
    return ir < node_->in_ir.size() ? &node_->in_ir[ir] : nullptr;
}

const AnchorInstanceInfo* ExtendedKernelContext::GetIrOutputInstanceInfo(size_t ir) const {
    return ir < node_->out_ir.size() ? &node_->out_ir[ir] : nullptr;
}

size_t ExtendedKernelContext::GetComputeNodeInputNum() const { return node_->in_tensors.size(); }
size_t ExtendedKernelContext::GetComputeNodeOutputNum() const { return node_->out_descs.size(); }
const char* ExtendedKernelContext::GetNodeType() const { return node_->type.c_str(); }
const char* ExtendedKernelContext::GetNodeName() const { return node_->name.c_str(); }

size_t ExtendedKernelContext::InIdx(size_t ir, size_t rel) const {
    if (ir >= node_->in_ir.size()) return kAoNone;
    const AnchorInstanceInfo& a = node_->in_ir[ir];
    return rel < a.GetInstantiationNum() ? a.GetInstanceStart() + rel : kAoNone;
}

size_t ExtendedKernelContext::OutIdx(size_t ir, size_t rel) const {
    if (ir >= node_->out_ir.size()) return kAoNone;
    const AnchorInstanceInfo& a = node_->out_ir[ir];
    return rel < a.GetInstantiationNum() ? a.GetInstanceStart() + rel : kAoNone;
}

TilingContext::TilingContext(AoNodeData* node, fe::PlatFormInfos* platform, const void* compile_info)
    : ExtendedKernelContext(node), platform_(platform), compile_info_(compile_info) {}
TilingContext::TilingContext(const TilingContext&) = default;
TilingContext::TilingContext(TilingContext&&) noexcept = default;
TilingContext& TilingContext::operator=(const TilingContext&) = default;
TilingContext& TilingContext::operator=(TilingContext&&) noexcept = default;
TilingContext::~TilingContext() = default;

const StorageShape* TilingContext::GetInputShape(size_t i) const {
    return i < node_->in_shapes.size() ? &node_->in_shapes[i] : nullptr;
}

const Tensor* TilingContext::GetInputTensor(size_t i) const {
    return i < node_->in_tensors.size() ? &node_->in_tensors[i] : nullptr;
}

const StorageShape* TilingContext::GetOutputShape(size_t i) const {
    return i < node_->out_shapes.size() ? &node_->out_shapes[i] : nullptr;
}

size_t* TilingContext::GetWorkspaceSizes(size_t n) {
    workspace_.resize(n < 1 ? 1 : n, 0);
    workspace_num_ = n;
    return workspace_.data();
}

const Shape* InferShapeContext::GetInputShape(size_t i) const {
    return i < node_->in_shapes.size() ? &node_->in_shapes[i].GetOriginShape() : nullptr;
}

const Tensor* InferShapeContext::GetInputTensor(size_t i) const {
    return i < node_->in_tensors.size() ? &node_->in_tensors[i] : nullptr;
}

Shape* InferShapeContext::GetOutputShape(size_t i) { return i < out_->size() ? &(*out_)[i] : nullptr; }

ge::DataType InferDataTypeContext::GetInputDataType(size_t i) const {
    return i < node_->in_tensors.size() ? node_->in_tensors[i].GetDataType() : ge::DT_UNDEFINED;
}

ge::DataType InferDataTypeContext::GetOutputDataType(size_t i) const {
    return i < out_->size() ? (*out_)[i] : ge::DT_UNDEFINED;
}

ge::graphStatus InferDataTypeContext::SetOutputDataType(size_t i, ge::DataType dt) {
    if (i >= out_->size()) return ge::GRAPH_FAILED;
    (*out_)[i] = dt;
    return ge::GRAPH_SUCCESS;
}

}  // namespace gert

// ------------------------------------------------------------------------- register/op_def.h
namespace ops {

OpParamDef::OpParamDef(const char* name) : name_(name ? name : "") {}
OpParamDef::OpParamDef(const OpParamDef&) = default;
OpParamDef::OpParamDef(OpParamDef&&) noexcept = default;
OpParamDef& OpParamDef::operator=(const OpParamDef&) = default;
OpParamDef& OpParamDef::operator=(OpParamDef&&) noexcept = default;
OpParamDef::~OpParamDef() = default;

OpParamDef& OpParamDef::DataType(std::vector<ge::DataType> types) {
    dtypes_ = std::move(types);
    return *this;
}

OpParamDef& OpParamDef::InitValue(uint64_t) {  // documented: only 0 (zero the output)
    init_values_.assign(1, ScalarVar(ScalarType::UINT64, uint64_t(0)));
    return *this;
}
OpParamDef& OpParamDef::InitValue(const ScalarVar& value) {
    init_values_.assign(1, value);
    return *this;
}
OpParamDef& OpParamDef::InitValue(const std::vector<ScalarVar>& values) {
    init_values_ = values;
    return *this;
}
OpParamDef& OpParamDef::DataTypeList(std::vector<ge::DataType> types) {
    dtypes_ = std::move(types);
    dtype_list_ = true;
    return *this;
}

OpParamDef& OpParamDef::Format(std::vector<ge::Format> formats) {
    formats_ = std::move(formats);
    return *this;
}

OpParamDef& OpParamDef::FormatList(std::vector<ge::Format> formats) {
    formats_ = std::move(formats);
    return *this;
}

OpAttrDef::OpAttrDef(const char* name) : name_(name ? name : "") {}
OpAttrDef::OpAttrDef(const OpAttrDef&) = default;
OpAttrDef::OpAttrDef(OpAttrDef&&) noexcept = default;
OpAttrDef& OpAttrDef::operator=(const OpAttrDef&) = default;
OpAttrDef& OpAttrDef::operator=(OpAttrDef&&) noexcept = default;
OpAttrDef::~OpAttrDef() = default;

OpAttrDef& OpAttrDef::Kind(const char* k) {
    kind_ = k;
    return *this;
}

OpAttrDef& OpAttrDef::String(const char* v) {
    s_ = v ? v : "";
    return Kind("str");
}

OpAttrDef& OpAttrDef::ListInt(std::vector<int64_t> v) {
    li_ = std::move(v);
    return Kind("list_int");
}

OpAttrDef& OpAttrDef::ListFloat(std::vector<float> v) {
    lf_ = std::move(v);
    return Kind("list_float");
}

OpAttrDef& OpAttrDef::ListBool(std::vector<bool> v) {
    lb_ = std::move(v);
    return Kind("list_bool");
}

OpParamDef& ao_detail::FindOrAdd(std::deque<OpParamDef>& v, const char* name) {
    std::string n = name ? name : "";
    for (auto& p : v) {
        if (p.AoName() == n) return p;
    }
    v.emplace_back(name);
    return v.back();
}

OpAICoreConfig::OpAICoreConfig() = default;
OpAICoreConfig::OpAICoreConfig(const char*) {}
OpAICoreConfig::OpAICoreConfig(const OpAICoreConfig&) = default;
OpAICoreConfig::OpAICoreConfig(OpAICoreConfig&&) = default;
OpAICoreConfig& OpAICoreConfig::operator=(const OpAICoreConfig&) = default;
OpAICoreConfig& OpAICoreConfig::operator=(OpAICoreConfig&&) noexcept = default;
OpAICoreConfig::~OpAICoreConfig() = default;

OpParamDef& OpAICoreConfig::Input(const char* name) { return ao_detail::FindOrAdd(inputs_, name); }
OpParamDef& OpAICoreConfig::Output(const char* name) { return ao_detail::FindOrAdd(outputs_, name); }

OpAICoreDef::OpAICoreDef() = default;
OpAICoreDef::OpAICoreDef(const OpAICoreDef&) = default;
OpAICoreDef::OpAICoreDef(OpAICoreDef&&) noexcept = default;
OpAICoreDef& OpAICoreDef::operator=(const OpAICoreDef&) = default;
OpAICoreDef& OpAICoreDef::operator=(OpAICoreDef&&) noexcept = default;
OpAICoreDef::~OpAICoreDef() = default;

OpAICoreDef& OpAICoreDef::AddConfig(const char* soc) {
    socs_.push_back(soc ? soc : "");
    return *this;
}

OpAICoreDef& OpAICoreDef::AddConfig(const char* soc, const OpAICoreConfig& cfg) {
    socs_.push_back(soc ? soc : "");
    configs_[soc ? soc : ""] = cfg;
    return *this;
}

OpDef::OpDef(const char* type) : type_(type ? type : "") {}
OpDef::OpDef(const OpDef&) = default;
OpDef& OpDef::operator=(const OpDef&) = default;
OpDef::~OpDef() = default;

OpParamDef& OpDef::Input(const char* name) { return ao_detail::FindOrAdd(inputs_, name); }
OpParamDef& OpDef::Output(const char* name) { return ao_detail::FindOrAdd(outputs_, name); }

OpAttrDef& OpDef::Attr(const char* name) {
    std::string n = name ? name : "";
    for (auto& a : attrs_) {
        if (a.AoName() == n) return a;
    }
    attrs_.emplace_back(name);
    return attrs_.back();
}

std::vector<AoOpDefEntry>& AoOpDefRegistry() {
    static std::vector<AoOpDefEntry> v;
    return v;
}

AoOpDefRegistrar::AoOpDefRegistrar(const char* type, std::function<OpDef*(const char*)> make) {
    AoOpDefRegistry().push_back(AoOpDefEntry{type, std::move(make)});
}

AoOpDefRegistrar::AoOpDefRegistrar(const char* type, OpDef* (*make)(const char*))
    : AoOpDefRegistrar(type, std::function<OpDef*(const char*)>(make)) {}

}  // namespace ops

// -------------------------------------------------------------- platform/platform_infos_def.h
namespace fe {

PlatFormInfos::PlatFormInfos() = default;
PlatFormInfos::PlatFormInfos(const PlatFormInfos&) = default;
PlatFormInfos::PlatFormInfos(PlatFormInfos&&) noexcept = default;
PlatFormInfos& PlatFormInfos::operator=(const PlatFormInfos&) = default;
PlatFormInfos& PlatFormInfos::operator=(PlatFormInfos&&) noexcept = default;
PlatFormInfos::~PlatFormInfos() = default;

bool PlatFormInfos::GetPlatformRes(const std::string& label, const std::string& key, std::string& val) const {
    auto l = res_.find(label);
    if (l == res_.end()) return false;
    auto k = l->second.find(key);
    if (k == l->second.end()) return false;
    val = k->second;
    return true;
}

bool PlatFormInfos::GetPlatformRes(const std::string& label, std::map<std::string, std::string>& vals) const {
    auto l = res_.find(label);
    if (l == res_.end()) return false;
    vals = l->second;
    return true;
}

uint32_t PlatFormInfos::GetCoreNumByType(const std::string& type) const {
    return type == "AiCore" ? ao_aic_cores : ao_aiv_cores;
}

void PlatFormInfos::SetPlatformRes(const std::string& label, const std::string& key, const std::string& val) {
    res_[label][key] = val;
}

}  // namespace fe

// ------------------------------------------------------------ tiling/platform/platform_ascendc.h
namespace platform_ascendc {

SocVersion AoSocVersionFromName(const std::string& name) {
    std::string s;
    for (char c : name) s += (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
    auto starts = [&s](const char* p) { return s.rfind(p, 0) == 0; };
    if (starts("ascend910_93") || starts("ascend910_9")) return SocVersion::ASCEND910_93;
    if (starts("ascend910_55")) return SocVersion::ASCEND910_55;
    if (starts("ascend910b")) return SocVersion::ASCEND910B;
    if (starts("ascend910")) return SocVersion::ASCEND910;
    if (starts("ascend950")) return SocVersion::ASCEND950;
    if (starts("ascend310p")) return SocVersion::ASCEND310P;
    if (starts("ascend310b")) return SocVersion::ASCEND310B;
    if (starts("ascend310")) return SocVersion::ASCEND310;
    if (starts("ascend610lite")) return SocVersion::ASCEND610Lite;
    if (starts("ascend610")) return SocVersion::ASCEND610;
    return SocVersion::RESERVED_VERSION;
}

SocVersion PlatformAscendC::GetSocVersion() const {
    const fe::PlatFormInfos* p = Info();
    return AoSocVersionFromName(p->ao_soc_version.empty() ? p->ao_soc_name : p->ao_soc_version);
}

const fe::PlatFormInfos* PlatformAscendC::Info() const {
    if (platformInfo_ != nullptr) return platformInfo_;
    if (fe::AoCurrentPlatform() != nullptr) return fe::AoCurrentPlatform();
    static const fe::PlatFormInfos empty;
    return &empty;
}

}  // namespace platform_ascendc

// ----------------------------------------------------------------------------- graph/*.h
namespace ge {

Shape::Shape() = default;
Shape::Shape(const std::vector<int64_t>& dims) : dims_(dims) {}
Shape::Shape(const Shape&) = default;
Shape::Shape(Shape&&) noexcept = default;
Shape& Shape::operator=(const Shape&) = default;
Shape& Shape::operator=(Shape&&) noexcept = default;
Shape::~Shape() = default;

size_t Shape::GetDimNum() const { return dims_.size(); }
int64_t Shape::GetDim(size_t idx) const { return idx < dims_.size() ? dims_[idx] : 0; }

graphStatus Shape::SetDim(size_t idx, int64_t v) {
    if (idx >= dims_.size()) return GRAPH_FAILED;
    dims_[idx] = v;
    return GRAPH_SUCCESS;
}

std::vector<int64_t> Shape::GetDims() const { return dims_; }

int64_t Shape::GetShapeSize() const {
    if (dims_.empty()) return 0;
    int64_t n = 1;
    for (int64_t d : dims_) {
        if (d < 0) return -1;
        n *= d;
    }
    return n;
}

AscendString::AscendString() = default;
AscendString::AscendString(const char* s) : s_(s ? s : "") {}
AscendString::AscendString(const AscendString&) = default;
AscendString::AscendString(AscendString&&) noexcept = default;
AscendString& AscendString::operator=(const AscendString&) = default;
AscendString& AscendString::operator=(AscendString&&) noexcept = default;
AscendString::~AscendString() = default;

const char* AscendString::GetString() const { return s_.c_str(); }
size_t AscendString::GetLength() const { return s_.size(); }
bool AscendString::operator<(const AscendString& o) const { return s_ < o.s_; }
bool AscendString::operator==(const AscendString& o) const { return s_ == o.s_; }
bool AscendString::operator!=(const AscendString& o) const { return s_ != o.s_; }

namespace {

struct DtName {
    DataType dt;
    const char* name;
};
const DtName kDtNames[] = {
    {DT_FLOAT, "DT_FLOAT"},     {DT_FLOAT16, "DT_FLOAT16"},   {DT_INT8, "DT_INT8"},
    {DT_INT32, "DT_INT32"},     {DT_UINT8, "DT_UINT8"},       {DT_INT16, "DT_INT16"},
    {DT_UINT16, "DT_UINT16"},   {DT_UINT32, "DT_UINT32"},     {DT_INT64, "DT_INT64"},
    {DT_UINT64, "DT_UINT64"},   {DT_DOUBLE, "DT_DOUBLE"},     {DT_BOOL, "DT_BOOL"},
    {DT_STRING, "DT_STRING"},   {DT_COMPLEX64, "DT_COMPLEX64"}, {DT_COMPLEX128, "DT_COMPLEX128"},
    {DT_BF16, "DT_BF16"},       {DT_INT4, "DT_INT4"},         {DT_COMPLEX32, "DT_COMPLEX32"},
    {DT_HIFLOAT8, "DT_HIFLOAT8"}, {DT_FLOAT8_E5M2, "DT_FLOAT8_E5M2"},
    {DT_FLOAT8_E4M3FN, "DT_FLOAT8_E4M3FN"}, {DT_UNDEFINED, "DT_UNDEFINED"},
};

struct FmtName {
    Format f;
    const char* name;
};
const FmtName kFmtNames[] = {
    {FORMAT_NCHW, "NCHW"},           {FORMAT_NHWC, "NHWC"},         {FORMAT_ND, "ND"},
    {FORMAT_NC1HWC0, "NC1HWC0"},     {FORMAT_FRACTAL_Z, "FRACTAL_Z"}, {FORMAT_HWCN, "HWCN"},
    {FORMAT_NDHWC, "NDHWC"},         {FORMAT_FRACTAL_NZ, "FRACTAL_NZ"}, {FORMAT_NCDHW, "NCDHW"},
    {FORMAT_NDC1HWC0, "NDC1HWC0"},   {FORMAT_FRACTAL_Z_3D, "FRACTAL_Z_3D"}, {FORMAT_NC, "NC"},
    {FORMAT_NCL, "NCL"},
};

}  // namespace

std::string TypeUtils::DataTypeToSerialString(DataType dt) {
    for (const auto& e : kDtNames) {
        if (e.dt == dt) return e.name;
    }
    return "UNDEFINED";
}

DataType TypeUtils::SerialStringToDataType(const std::string& s) {
    for (const auto& e : kDtNames) {
        if (s == e.name) return e.dt;
    }
    return DT_UNDEFINED;
}

std::string TypeUtils::FormatToSerialString(Format f) {
    for (const auto& e : kFmtNames) {
        if (e.f == f) return e.name;
    }
    return "RESERVED";
}

Format TypeUtils::SerialStringToFormat(const std::string& s) {
    for (const auto& e : kFmtNames) {
        if (s == e.name) return e.f;
    }
    return FORMAT_RESERVED;
}

}  // namespace ge

// Explicit instantiations declared extern in ascendopt_host/extern_templates.h.
template class std::vector<ge::Format>;
template class std::vector<ge::DataType>;
template class std::vector<unsigned long>;
template class std::vector<long>;
template class std::vector<float>;
template class std::vector<std::string>;
