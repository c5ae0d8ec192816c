// AscendOptimizer simulator: the runner executable.
//
//   runner --signature            print the registered OpDef as JSON
//   runner MANIFEST               run tiling + kernel for one case
//   runner --batch LIST           run several cases of one candidate, one after the other
//
// MANIFEST is a line-based text file written by the Python driver:
//   soc <name>
//   param <key> <number>                       SoC parameter (ub_bytes, aiv_cores, ...)
//   input  <name> <dtype> <format> <ndim> <dims...> <path|->
//   output <name> <dtype> <format> <ndim> <dims...> <path>
//   dyn_input / dyn_output  (same fields)      one tensor of a list (OpDef DYNAMIC parameter); a
//                                              list's lines are consecutive, in list order, and
//                                              the kernel gets the list's descriptor (tensor_list.h)
//   ref_output / dyn_ref_output  (same fields) an input the kernel updates in place (same name, and
//                                              list position): its final contents are this output
//   attr <name> int|float|bool <value>
//   attr <name> str <hex-bytes>
//   attr <name> list_int|list_float|list_bool <n> <values...>
//   result <path>                              where result.json goes
//   timing <event_fd> <reply_fd>               the pipes to the timer (stream.h): the runner streams
//                                              the kernel's timing events there and reports no timing
//                                              itself (cycles, statistics, trace and races are the timer's)
//   tiling_only                                optional: stop after the host tiling and report the launch
//                                              it asks for (block dim, tiling key, workspace, tiling data)
// Outputs are written as raw little-endian bytes to their paths.
//
// LIST (a batch) is a text file of lines
//   progress <fd>                              a byte is written there as each case starts
//   case <manifest> <stdout> <stderr>          one per case, in order: an ordinary MANIFEST (its
//                                              own result and output files; in a batch its timing
//                                              stream carries the case's index), and the files
//                                              the case's stdout and stderr go to
// Each case starts from the state a fresh runner has: GM, warnings, queue ids, the timing
// stream, the floating-point environment and rand()'s seed are reset (ResetCaseState), and the
// batch goes on only while the candidate's own writable globals (its .data and .bss, between
// the cand_mark objects the link puts around its objects) equal what they were before the first
// case and its heap has not grown: a case that failed, or that left state behind, ends the
// runner, and the driver starts a fresh one for the cases after it (backend.py).
#include <cfenv>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <malloc.h>
#include <fcntl.h>
#include <unistd.h>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "host_api.h"
#include "image_gm.h"
#include "output_prep.h"
#include "sandbox_rt.h"
#include "sim_config.h"
#include "stream.h"
#include "tensor_list.h"

extern "C" void ascendopt_kernel_launch(uint8_t** args);
extern "C" int ascendopt_kernel_arity();
// Around the candidate's objects in the link (cand_mark.cpp): its .data and .bss lie between.
extern "C" __attribute__((weak)) char ao_cand_data_begin[], ao_cand_data_end[], ao_cand_bss_begin[],
    ao_cand_bss_end[];

// The sandbox's limits, writable files and filter go in before any candidate code runs: this
// object is linked before the candidate's, so this entry precedes theirs (sandbox_rt.h).
__attribute__((section(".preinit_array"), used)) static void (*const kSandboxPreInit)(int, char**, char**) =
    &ao::sandbox::PreInit;

namespace {

struct Manifest {
    ao::rt::SocParams soc;
    std::vector<ao::host::TensorArg> inputs, outputs;
    std::vector<std::string> input_paths, output_paths;
    std::vector<ao::host::AttrArg> attrs;
    std::string result_path;
    int timing_fd = -1, reply_fd = -1;
    bool tiling_only = false;
};

std::string g_result_path;
int g_case_result_fd = -1;  // a batch's case: its result file (pre-opened in the sandbox)
std::string g_partial;  // JSON fields known so far (block_dim, tiling_key, ...)

std::string Escape(const std::string& s) {
    std::string o;
    for (char c : s) {
        switch (c) {
            case '"': o += "\\\""; break;
            case '\\': o += "\\\\"; break;
            case '\n': o += "\\n"; break;
            case '\t': o += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char b[8];
                    snprintf(b, sizeof b, "\\u%04x", c);
                    o += b;
                } else {
                    o += c;
                }
        }
    }
    return o;
}

void WriteResult(const std::string& body) {
    if (g_case_result_fd >= 0) {
        if (ftruncate(g_case_result_fd, 0) == 0) {
            ssize_t w = pwrite(g_case_result_fd, body.data(), body.size(), 0);
            (void)w;
        }
        return;
    }
    if (ao::sandbox::Rewrite(body)) return;
    FILE* f = fopen(g_result_path.c_str(), "w");
    if (f == nullptr) {
        fprintf(stderr, "ascendopt: cannot write %s\n", g_result_path.c_str());
        return;
    }
    fputs(body.c_str(), f);
    fclose(f);
}

void FailHook(const char* kind, const char* message) {
    std::string body = "{\"status\": \"runtime_error\", \"error_kind\": \"" + Escape(kind) +
                       "\", \"message\": \"" + Escape(message) + "\"" + g_partial +
                       ", \"warnings\": " + ao::rt::WarningsJson() + "}\n";
    WriteResult(body);
}

bool ReadFile(const std::string& path, std::vector<uint8_t>& out) {
    std::ifstream f(path, std::ios::binary | std::ios::ate);  // one read, not a byte at a time
    if (!f) return false;
    std::streamoff size = f.tellg();
    if (size < 0) return false;
    out.resize(size_t(size));
    f.seekg(0);
    return size == 0 || bool(f.read(reinterpret_cast<char*>(out.data()), size));
}

std::string FromHex(const std::string& h) {
    std::string s;
    for (size_t i = 0; i + 1 < h.size(); i += 2) s += char(std::stoi(h.substr(i, 2), nullptr, 16));
    return s;
}

std::string ToHex(const std::vector<uint8_t>& bytes) {
    static const char* digits = "0123456789abcdef";
    std::string h;
    h.reserve(bytes.size() * 2);
    for (uint8_t b : bytes) {
        h += digits[b >> 4];
        h += digits[b & 15];
    }
    return h;
}

std::string ShapesJson(const std::vector<std::vector<int64_t>>& shapes) {
    std::string out = "[";
    for (size_t i = 0; i < shapes.size(); ++i) {
        out += i ? ", [" : "[";
        for (size_t j = 0; j < shapes[i].size(); ++j) out += (j ? ", " : "") + std::to_string(shapes[i][j]);
        out += "]";
    }
    return out + "]";
}

bool ParseManifest(const char* path, Manifest& m, std::string& err) {
    std::ifstream f(path);
    if (!f) {
        err = std::string("cannot open manifest ") + path;
        return false;
    }
    std::string line;
    while (std::getline(f, line)) {
        std::istringstream in(line);
        std::string tag;
        if (!(in >> tag)) continue;
        if (tag == "soc") {
            in >> m.soc.name;
        } else if (tag == "param") {
            std::string k;
            double v;
            in >> k >> v;
            m.soc.values[k] = v;
        } else if (tag == "input" || tag == "output" || tag == "dyn_input" || tag == "dyn_output" ||
                   tag == "ref_output" || tag == "dyn_ref_output") {
            ao::host::TensorArg t;
            t.dynamic = tag[0] == 'd';
            if (t.dynamic) tag = tag.substr(4);
            t.ref = tag == "ref_output";
            if (t.ref) tag = "output";
            int nd = 0;
            in >> t.name >> t.dtype >> t.format >> nd;
            t.shape.resize(nd);
            for (int i = 0; i < nd; ++i) in >> t.shape[i];
            std::string p;
            in >> p;
            if (!in) {
                err = "bad manifest line: " + line;
                return false;
            }
            if (tag == "input") {
                t.present = p != "-";
                m.inputs.push_back(t);
                m.input_paths.push_back(p);
            } else {
                m.outputs.push_back(t);
                m.output_paths.push_back(p);
            }
        } else if (tag == "attr") {
            ao::host::AttrArg a;
            in >> a.name >> a.kind;
            if (a.kind == "int") in >> a.i;
            else if (a.kind == "float") in >> a.f;
            else if (a.kind == "bool") { int b; in >> b; a.b = b != 0; }
            else if (a.kind == "str") { std::string h; in >> h; a.s = h == "-" ? "" : FromHex(h); }
            else {
                size_t n = 0;
                in >> n;
                for (size_t i = 0; i < n; ++i) {
                    double v;
                    in >> v;
                    if (a.kind == "list_float") a.lf.push_back(v);
                    else a.li.push_back(int64_t(v));
                }
            }
            m.attrs.push_back(a);
        } else if (tag == "result") {
            in >> m.result_path;
        } else if (tag == "timing") {
            in >> m.timing_fd >> m.reply_fd;
        } else if (tag == "tiling_only") {
            m.tiling_only = true;
        }
    }
    if (m.result_path.empty()) {
        err = "manifest has no result path";
        return false;
    }
    return true;
}

int DtypeSize(int dt) {
    switch (dt) {
        case 0: case 3: case 8: return 4;          // float, int32, uint32
        case 1: case 6: case 7: case 27: return 2; // half, int16, uint16, bf16
        case 2: case 4: case 12: return 1;         // int8, uint8, bool
        case 9: case 10: case 11: case 16: return 8;
        case 17: return 16;
        case 33: return 4;
        default: return 0;
    }
}

// "x", or "x[2]" for the third tensor of the list x.
std::string TensorLabel(const std::vector<ao::host::TensorArg>& ts, size_t i) {
    if (!ts[i].dynamic) return ts[i].name;
    size_t k = 0;
    for (size_t j = 0; j < i; ++j) k += ts[j].dynamic && ts[j].name == ts[i].name;
    return ts[i].name + "[" + std::to_string(k) + "]";
}

uint64_t NumElems(const std::vector<int64_t>& shape) {
    uint64_t n = 1;
    for (int64_t d : shape) n *= uint64_t(d < 0 ? 0 : d);
    return n;
}

void PrintSignature() {
    std::string err;
    const ao::host::OpSignature* sig = ao::host::GetRegisteredOp(&err);
    if (sig == nullptr) {
        printf("{\"error\": \"%s\"}\n", Escape(err).c_str());
        return;
    }
    auto params = [](const std::vector<ao::host::OpSignature::Param>& ps) {
        std::string s = "[";
        for (size_t i = 0; i < ps.size(); ++i) {
            const auto& p = ps[i];
            s += "{\"name\": \"" + Escape(p.name) + "\", \"param_type\": " + std::to_string(p.param_type) +
                 ", \"value_depend\": " + (p.value_depend ? "true" : "false") +
                 ", \"scalar\": " + (p.scalar ? "true" : "false") + ", \"dtypes\": [";
            for (size_t j = 0; j < p.dtypes.size(); ++j) s += (j ? ", " : "") + std::to_string(p.dtypes[j]);
            s += "]}";
            if (i + 1 < ps.size()) s += ", ";
        }
        return s + "]";
    };
    std::string attrs = "[";
    for (size_t i = 0; i < sig->attrs.size(); ++i) {
        const auto& a = sig->attrs[i];
        attrs += "{\"name\": \"" + Escape(a.name) + "\", \"kind\": \"" + Escape(a.kind) +
                 "\", \"required\": " + (a.required ? "true" : "false") + "}";
        if (i + 1 < sig->attrs.size()) attrs += ", ";
    }
    attrs += "]";
    printf("{\"op_type\": \"%s\", \"inputs\": %s, \"outputs\": %s, \"attrs\": %s, \"kernel_arity\": %d}\n",
           Escape(sig->op_type).c_str(), params(sig->inputs).c_str(), params(sig->outputs).c_str(), attrs.c_str(),
           ascendopt_kernel_arity());
}

}  // namespace

// How a case ended: ok (a batch may go on), with its result written otherwise (the runner
// stops), or unable to run (exit code 2).
enum CaseEnd { kCaseOk = 0, kCaseStopped = 1, kCaseFatal = 2 };

// One case: tiling, kernel, outputs, result. `case_index` >= 0 in a batch.
int RunCase(const char* manifest, int case_index) {
    Manifest m;
    std::string err;
    if (!ParseManifest(manifest, m, err)) {
        fprintf(stderr, "ascendopt: %s\n", err.c_str());
        return kCaseFatal;
    }
    g_result_path = m.result_path;
    ao::rt::SetSoc(m.soc);
    ao::rt::SetFailHook(FailHook);

    // Host tiling.
    std::vector<std::vector<uint8_t>> input_bytes(m.inputs.size());
    for (size_t i = 0; i < m.inputs.size(); ++i) {
        if (!m.inputs[i].present) continue;
        if (!ReadFile(m.input_paths[i], input_bytes[i])) {
            fprintf(stderr, "ascendopt: cannot read input %s\n", m.input_paths[i].c_str());
            return kCaseFatal;
        }
        m.inputs[i].data = input_bytes[i].data();
    }
    // Sandbox: the files this run writes were opened before any candidate code ran (sandbox_rt.h).
    std::vector<int> out_fds(m.output_paths.size(), -1);
    g_case_result_fd = -1;
    if (case_index >= 0) {  // a batch: each case has its own result file
        g_case_result_fd = ao::sandbox::Active() ? ao::sandbox::WriteFd(g_result_path)
                                                 : open(g_result_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (g_case_result_fd < 0) {
            fprintf(stderr, "ascendopt: cannot write the result file %s\n", g_result_path.c_str());
            return kCaseFatal;
        }
    } else if (ao::sandbox::Active()) {
        if (ao::sandbox::g_result_fd < 0 || ao::sandbox::WriteFd(g_result_path) != ao::sandbox::g_result_fd) {
            fprintf(stderr, "ascendopt: sandbox: the result file %s is not the one the driver made writable\n",
                    g_result_path.c_str());
            return kCaseFatal;
        }
    }
    if (ao::sandbox::Active())
        for (size_t i = 0; i < m.output_paths.size(); ++i) out_fds[i] = ao::sandbox::WriteFd(m.output_paths[i]);
    ao::host::PlatformConfig pc;
    pc.soc_name = m.soc.name;
    pc.soc_version = m.soc.name.substr(0, 10);  // "Ascend910B", "Ascend310P"
    pc.aiv_cores = uint32_t(m.soc.Get("aiv_cores", 48));
    pc.aic_cores = uint32_t(m.soc.Get("aic_cores", 24));
    pc.ub_bytes = uint64_t(m.soc.Get("ub_bytes", 196608));
    pc.l1_bytes = uint64_t(m.soc.Get("l1_bytes", 524288));
    pc.l0a_bytes = uint64_t(m.soc.Get("l0a_bytes", 65536));
    pc.l0b_bytes = uint64_t(m.soc.Get("l0b_bytes", 65536));
    pc.l0c_bytes = uint64_t(m.soc.Get("l0c_bytes", 131072));
    pc.l2_bytes = uint64_t(m.soc.Get("l2_bytes", 201326592));
    pc.hbm_bytes = uint64_t(m.soc.Get("hbm_bytes", 68719476736.0));
    pc.lib_api_workspace_bytes = uint64_t(m.soc.Get("lib_api_workspace_bytes", 16777216));
    // the SoC file's cube capabilities (an intrinsic is listed only when the SoC has it)
    pc.cube_freq_mhz = int64_t(m.soc.Get("clock_ghz", 0) * 1000 + 0.5);
    pc.bt_bytes = uint64_t(m.soc.Get("bt_bytes", 0));
    pc.load3d_constraints = m.soc.Get("load3d_constraints", 0) != 0;
    for (const char* name : {"fix_pipe_l0c2out", "data_move_out2l1_nd2nz", "data_move_l12ub", "data_move_l0c2ub"}) {
        if (m.soc.Get(std::string("intrinsic_") + name, 0) != 0)
            pc.intrinsics.emplace_back(std::string("Intrinsic_") + name, "true");
    }
    if (m.soc.Get("intrinsic_data_move_l12bt_bf16", 0) != 0)
        pc.intrinsics.emplace_back("Intrinsic_data_move_l12bt", "bf16");
    std::vector<ao::host::TensorArg> op_outputs;  // the OpDef's outputs (not the inputs updated in place)
    std::vector<size_t> op_output_idx;
    for (size_t i = 0; i < m.outputs.size(); ++i) {
        if (!m.outputs[i].ref) op_outputs.push_back(m.outputs[i]), op_output_idx.push_back(i);
    }
    ao::host::TilingResult tr = ao::host::RunTiling(pc, m.inputs, op_outputs, m.attrs);
    if (!tr.ok) {
        std::string msg = tr.error;
        if (!tr.infer_shape_note.empty()) msg += "\n(before it, " + tr.infer_shape_note + ")";
        WriteResult("{\"status\": \"tiling_error\", \"message\": \"" + Escape(msg) + "\"}\n");
        return kCaseStopped;
    }
    std::string infer_note;  // InferShape failed, not needed (host_api.h)
    if (!tr.infer_shape_note.empty()) infer_note = ", \"infer_shape_note\": \"" + Escape(tr.infer_shape_note) + "\"";
    uint32_t max_cores = uint32_t(m.soc.Get("max_block_dim", 65535));
    if (tr.block_dim == 0 || tr.block_dim > max_cores) {
        WriteResult("{\"status\": \"tiling_error\", \"message\": \"SetBlockDim(" + std::to_string(tr.block_dim) +
                    ") is outside [1, " + std::to_string(max_cores) + "]\"}\n");
        return kCaseStopped;
    }
    uint64_t ws_total = 0;
    for (int64_t w : tr.workspace_sizes) ws_total += uint64_t(w < 0 ? 0 : w);
    {
        char buf[256];
        snprintf(buf, sizeof buf, ", \"block_dim\": %u, \"tiling_key\": %" PRIu64 ", \"workspace_bytes\": %" PRIu64
                 ", \"tiling_bytes\": %zu", tr.block_dim, tr.tiling_key, ws_total, tr.tiling_data.size());
        g_partial = buf + infer_note;
    }
    if (m.tiling_only) {  // everything the kernel launch depends on besides the binary and the inputs
        std::string ws = "[";
        for (size_t i = 0; i < tr.workspace_sizes.size(); ++i)
            ws += (i ? ", " : "") + std::to_string(tr.workspace_sizes[i]);
        WriteResult("{\"status\": \"tiling\"" + g_partial + ", \"schedule_mode\": " +
                    std::to_string(tr.schedule_mode) + ", \"workspace_sizes\": " + ws + "]" +
                    ", \"inferred_output_shapes\": " + ShapesJson(tr.inferred_output_shapes) +
                    ", \"tiling_data\": \"" + ToHex(tr.tiling_data) + "\"}\n");
        return kCaseStopped;
    }

    // GM: inputs, outputs (garbage-filled), workspace, tiling; one kernel argument per OpDef
    // parameter, a DYNAMIC one's tensors (each its own allocation) behind their list descriptor.
    std::vector<uint8_t*> in_gm(m.inputs.size(), nullptr), outs(m.outputs.size(), nullptr);
    for (size_t i = 0; i < m.inputs.size(); ++i) {
        if (!m.inputs[i].present) continue;
        in_gm[i] = ao::rt::AllocGm(input_bytes[i].size(), "input " + TensorLabel(m.inputs, i), 0x7f);
        std::memcpy(in_gm[i], input_bytes[i].data(), input_bytes[i].size());
    }
    std::vector<bool> in_place(m.inputs.size(), false);  // inputs the kernel may write: ref outputs
    const ao::host::OpSignature* sig = ao::host::GetRegisteredOp(&err);
    // An OpDef output named like an OpDef input is that input (a reference parameter: the
    // framework binds both to one tensor; the kernel gets it twice, the second as `<name>_ref`).
    auto declared_ref = [&](const std::string& name) {
        bool in = false, out = false;
        for (const auto& p : sig->inputs) in = in || p.name == name;
        for (const auto& p : sig->outputs) out = out || p.name == name;
        return in && out;
    };
    for (size_t i = 0; i < m.outputs.size(); ++i) {
        uint64_t bytes = NumElems(m.outputs[i].shape) * uint64_t(DtypeSize(m.outputs[i].dtype));
        if (!m.outputs[i].ref && !declared_ref(m.outputs[i].name)) {
            outs[i] = ao::rt::AllocGm(bytes, "output " + TensorLabel(m.outputs, i), 0x7f);
            continue;
        }
        std::string label = TensorLabel(m.outputs, i);
        for (size_t j = 0; j < m.inputs.size() && outs[i] == nullptr; ++j) {
            if (in_gm[j] != nullptr && TensorLabel(m.inputs, j) == label && input_bytes[j].size() == bytes) {
                outs[i] = in_gm[j];
                in_place[j] = true;
            }
        }
        if (outs[i] == nullptr) {
            WriteResult("{\"status\": \"runtime_error\", \"error_kind\": \"invalid_argument\", \"message\": "
                        "\"output " + Escape(label) + " names an input updated in place, but no input " +
                        Escape(label) + " of its size is given\"" + g_partial + "}\n");
            return kCaseStopped;
        }
    }
    std::vector<uint8_t*> op_outs;
    for (size_t i : op_output_idx) op_outs.push_back(outs[i]);
    // InitValue outputs start as the framework leaves them: zeroed or set to the typed value.
    size_t combo = ao::rt::DtypeCombination(*sig, [&](size_t j, bool in) -> int {
        const auto& groups = in ? tr.input_params : tr.output_params;
        if (j >= groups.size() || groups[j].empty()) return -1;
        return in ? m.inputs[groups[j][0]].dtype : op_outputs[groups[j][0]].dtype;
    });
    for (size_t j = 0; j < sig->outputs.size() && j < tr.output_params.size(); ++j)
        for (size_t k : tr.output_params[j])
            if (!declared_ref(sig->outputs[j].name))  // a reference output holds its input
                ao::rt::FillInitValue(op_outs[k], NumElems(op_outputs[k].shape) * uint64_t(DtypeSize(op_outputs[k].dtype)),
                                  sig->outputs[j], combo);
    std::vector<uint8_t*> args;
    std::vector<std::pair<uint8_t*, std::vector<uint64_t>>> lists;  // input descriptors, to check after
    auto add_params = [&](const std::vector<ao::host::OpSignature::Param>& ps,
                          const std::vector<std::vector<size_t>>& groups, const std::vector<ao::host::TensorArg>& ts,
                          const std::vector<uint8_t*>& gm, const char* what) {
        for (size_t k = 0; k < groups.size(); ++k) {
            if (k >= ps.size() || ps[k].param_type != 2) {
                args.push_back(groups[k].empty() ? nullptr : gm[groups[k][0]]);
                continue;
            }
            std::vector<ao::rt::ListEntry> entries;
            for (size_t j : groups[k]) entries.push_back({gm[j], ts[j].shape});
            std::vector<uint64_t> image = ao::rt::TensorListImage(entries);
            uint8_t* p = ao::rt::AllocGm(image.size() * sizeof(uint64_t),
                                         std::string(what) + " " + ps[k].name + " (tensor list)", 0);
            std::memcpy(p, image.data(), image.size() * sizeof(uint64_t));
            args.push_back(p);
            if (what[0] == 'i') lists.emplace_back(p, std::move(image));
        }
    };
    add_params(sig->inputs, tr.input_params, m.inputs, in_gm, "input");
    add_params(sig->outputs, tr.output_params, op_outputs, op_outs, "output");
    // OutputShapeDependOnCompute: one more argument, the shapes the kernel reports.
    std::vector<std::string> shape_names;
    std::vector<std::vector<int64_t>> shape_expected;
    for (size_t j = 0; j < sig->outputs.size() && j < tr.output_params.size(); ++j) {
        if (!sig->outputs[j].shape_depend || tr.output_params[j].empty()) continue;
        shape_names.push_back(sig->outputs[j].name);
        shape_expected.push_back(op_outputs[tr.output_params[j][0]].shape);
    }
    uint64_t* shape_slots = nullptr;
    if (!shape_names.empty()) {
        shape_slots = reinterpret_cast<uint64_t*>(ao::rt::AllocGm(
            shape_names.size() * ao::rt::kShapeSlots * sizeof(uint64_t), "output shapes", 0x7f));
        args.push_back(reinterpret_cast<uint8_t*>(shape_slots));
    }
    uint8_t* ws = ws_total ? ao::rt::AllocGm(ws_total, "workspace", 0x7f) : nullptr;
    args.push_back(ws);
    uint8_t* tiling = ao::rt::AllocGm(tr.tiling_data.size(), "tiling", 0);
    if (!tr.tiling_data.empty()) std::memcpy(tiling, tr.tiling_data.data(), tr.tiling_data.size());
    args.push_back(tiling);
    int arity = ascendopt_kernel_arity();
    if (arity != int(args.size())) {
        WriteResult("{\"status\": \"runtime_error\", \"error_kind\": \"invalid_argument\", \"message\": "
                    "\"kernel entry takes " + std::to_string(arity) + " arguments but the OpDef gives " +
                    std::to_string(args.size()) + " (inputs + outputs" +
                    (shape_slots ? " + output shapes" : "") + " + workspace + tiling)\"" + g_partial + "}\n");
        return kCaseStopped;
    }

    ao::rt::RegisterImageConstants();  // static __gm__ data of the kernel binary
    // Without a `timing` line the kernel runs against the in-process model and no timing is
    // reported: a run's timing comes only from the timer.
    if (m.timing_fd >= 0) ao::rt::Stream().Open(m.timing_fd, m.reply_fd, case_index);
    ao::rt::LaunchKernel(tr.block_dim, tr.tiling_key, ascendopt_kernel_launch, args.data(), ws);
    if (ao::rt::Stream().On()) ao::rt::Stream().End();
    for (size_t i = 0; i < m.inputs.size(); ++i) {  // inputs are read-only: a kernel writing one is caught
        if (in_gm[i] != nullptr && !in_place[i] &&
            std::memcmp(in_gm[i], input_bytes[i].data(), input_bytes[i].size()) != 0) {
            WriteResult("{\"status\": \"runtime_error\", \"error_kind\": \"input_modified\", \"message\": "
                        "\"the kernel wrote into input " + Escape(TensorLabel(m.inputs, i)) +
                        " (inputs are read-only unless the case names it as an output too)\"" + g_partial + "}\n");
            return kCaseStopped;
        }
    }
    if (shape_slots != nullptr) {
        std::string bad = ao::rt::CheckOutputShapes(shape_slots, shape_names, shape_expected);
        if (!bad.empty()) {
            WriteResult("{\"status\": \"runtime_error\", \"error_kind\": \"output_shape\", \"message\": \"" +
                        Escape(bad) + "\"" + g_partial + "}\n");
            return kCaseStopped;
        }
    }
    for (const auto& [p, image] : lists) {
        if (std::memcmp(p, image.data(), image.size() * sizeof(uint64_t)) != 0) {
            WriteResult("{\"status\": \"runtime_error\", \"error_kind\": \"input_modified\", \"message\": "
                        "\"the kernel wrote into an input tensor list's descriptor (inputs are read-only)\"" +
                        g_partial + "}\n");
            return kCaseStopped;
        }
    }

    for (size_t i = 0; i < m.outputs.size(); ++i) {
        uint64_t bytes = NumElems(m.outputs[i].shape) * uint64_t(DtypeSize(m.outputs[i].dtype));
        FILE* f = ao::sandbox::Reopen(out_fds[i], m.output_paths[i], "wb");
        if (f == nullptr || fwrite(outs[i], 1, bytes, f) != bytes) {
            fprintf(stderr, "ascendopt: cannot write output %s\n", m.output_paths[i].c_str());
            return kCaseFatal;
        }
        fclose(f);
    }
    std::string shapes = ShapesJson(tr.inferred_output_shapes);
    WriteResult("{\"status\": \"ok\"" + g_partial + ", \"inferred_output_shapes\": " + shapes +
                ", \"warnings\": " + ao::rt::WarningsJson() + "}\n");
    ao::rt::FreeAllGm();
    return kCaseOk;
}

namespace {

// The candidate's writable globals, as they are before the first case of a batch.
struct CandidateState {
    char *data_begin = ao_cand_data_begin, *data_end = ao_cand_data_end;
    char *bss_begin = ao_cand_bss_begin, *bss_end = ao_cand_bss_end;
    std::vector<char> data, bss;

    // False when the link has no markers, or not around the candidate's sections as expected.
    bool Known() const {
        return data_begin != nullptr && data_end != nullptr && bss_begin != nullptr && bss_end != nullptr &&
               data_begin < data_end && bss_begin < bss_end;
    }
    void Take() {
        data.assign(data_begin, data_end);
        bss.assign(bss_begin, bss_end);
    }
    bool Same() const {
        return std::memcmp(data.data(), data_begin, data.size()) == 0 &&
               std::memcmp(bss.data(), bss_begin, bss.size()) == 0;
    }
};

size_t HeapInUse() {
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

// A batch's case may leave this much more heap in use than the first one did before the runner
// stops (a leak that would grow towards the address-space limit over the batch).
constexpr size_t kHeapGrowthBytes = size_t(64) << 20;

void Redirect(int target, const std::string& path) {
    int fd = ao::sandbox::Active() ? ao::sandbox::WriteFd(path)
                                   : open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return;  // the case's output then goes where the runner's went
    dup2(fd, target);
    if (!ao::sandbox::Active()) close(fd);
}

int RunBatch(const char* list) {
    std::ifstream f(list);
    if (!f) {
        fprintf(stderr, "ascendopt: cannot open batch list %s\n", list);
        return 2;
    }
    int progress = -1;
    std::vector<std::vector<std::string>> cases;  // manifest, stdout, stderr
    std::string line;
    while (std::getline(f, line)) {
        std::istringstream in(line);
        std::string tag;
        if (!(in >> tag)) continue;
        if (tag == "progress") {
            in >> progress;
        } else if (tag == "case") {
            std::vector<std::string> c(3);
            if (!(in >> c[0] >> c[1] >> c[2])) {
                fprintf(stderr, "ascendopt: bad batch line: %s\n", line.c_str());
                return 2;
            }
            cases.push_back(c);
        }
    }
    CandidateState cand;
    if (cand.Known()) cand.Take();
    fenv_t fenv0;
    fegetenv(&fenv0);
    size_t heap0 = 0;
    for (size_t k = 0; k < cases.size(); ++k) {
        if (k > 0) {  // as a fresh runner: the runtime's state, the FP environment, rand()
            ao::rt::ResetCaseState();
            ao::host::ResetCaseState();
            g_partial.clear();
            fesetenv(&fenv0);
            srand(1);
        }
        if (progress >= 0) {
            const char c = 'c';
            ssize_t w = write(progress, &c, 1);
            (void)w;
        }
        fflush(stdout);
        fflush(stderr);
        Redirect(1, cases[k][1]);
        Redirect(2, cases[k][2]);
        int end = RunCase(cases[k][0].c_str(), int(k));
        fflush(stdout);
        fflush(stderr);
        if (g_case_result_fd >= 0 && !ao::sandbox::Active()) close(g_case_result_fd);
        g_case_result_fd = -1;
        if (end == kCaseFatal) return 2;
        if (end != kCaseOk) return 0;  // a failed case ends the runner
        ao::rt::ResetCaseState();
        ao::host::ResetCaseState();
        if (k == 0) heap0 = HeapInUse();
        // The candidate kept state (a static it wrote, a lazily built cache, a leak): the next
        // case would not run as in a fresh runner.
        if (!cand.Known() || !cand.Same() || HeapInUse() > heap0 + kHeapGrowthBytes) return 0;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (ao::sandbox::Requested() && !ao::sandbox::Active()) {  // e.g. a runner not linked main.o-first
        fprintf(stderr, "ascendopt: sandbox: the filter was not installed before the candidate's code\n");
        return 2;
    }
    if (argc == 2 && std::strcmp(argv[1], "--signature") == 0) {
        PrintSignature();
        return 0;
    }
    if (argc == 3 && std::strcmp(argv[1], "--batch") == 0) return RunBatch(argv[2]);
    if (argc != 2) {
        fprintf(stderr, "usage: %s MANIFEST | --batch LIST | --signature\n", argv[0]);
        return 2;
    }
    return RunCase(argv[1], -1) == kCaseFatal ? 2 : 0;
}
