// AscendOptimizer simulator: host-side runtime. Instantiates the registered OpDef, builds the
// gert contexts from the runner's tensors/attrs/SoC configuration and runs InferShape and the
// tiling function, turning every failure (status, exception, crash) into an error message.
#include <csetjmp>
#include <csignal>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "host_api.h"
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

// Maps the runner's tensors to IR parameters; fills instance lists + IR instance info.
bool MapParams(const char* what, const std::vector<OpSignature::Param>& ir, const std::vector<TensorArg>& args,
               std::vector<const TensorArg*>* instances, std::vector<gert::AnchorInstanceInfo>* info,
               std::string* err) {
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
        if (named) {
            for (size_t j = 0; j < args.size(); ++j) {
                if (args[j].name == p.name) {
                    used[j] = true;
                    if (args[j].present) mine.push_back(&args[j]);
                }
            }
        } else if (k < args.size()) {
            used[k] = true;
            if (args[k].present) mine.push_back(&args[k]);
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
}

std::string StatusText(ge::graphStatus st) {
    return st == ge::GRAPH_FAILED ? std::string("GRAPH_FAILED") : "status " + std::to_string(st);
}

}  // namespace

const OpSignature* GetRegisteredOp(std::string* error) {
    if (!BuildRegistry(error)) return nullptr;
    return &Reg().sig;
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

    fe::PlatFormInfos platform;
    FillPlatform(pc, &platform);
    PlatformGuard guard(&platform);

    // Node: inputs, outputs, attrs.
    gert::AoNodeData node;
    node.name = sig->op_type;
    node.type = sig->op_type;
    std::vector<const TensorArg*> in_inst, out_inst;
    if (!MapParams("input", sig->inputs, inputs, &in_inst, &node.in_ir, &r.error)) return r;
    if (!MapParams("output", sig->outputs, outputs, &out_inst, &node.out_ir, &r.error)) return r;
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
        if (!Guarded("InferShape", [&] { st = infer(&ictx); }, &err)) {
            r.error = err;
            return r;
        }
        if (st != ge::GRAPH_SUCCESS) {
            r.error = "InferShape returned " + StatusText(st);
            return r;
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

// Explicit instantiations declared extern in ascendopt_host/extern_templates.h.
template class std::vector<ge::Format>;
template class std::vector<ge::DataType>;
template class std::vector<unsigned long>;
template class std::vector<long>;
template class std::vector<float>;
template class std::vector<std::string>;
template class std::vector<ops::AoOpDefEntry>;
template class std::map<std::string, ao_tiling::ClassInfo>;
template class std::map<std::string, ops::OpAICoreConfig>;
