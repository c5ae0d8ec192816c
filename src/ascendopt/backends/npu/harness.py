"""The host harness that runs one operator on the device through its aclnn API.

A custom operator package built in the msOpGen layout installs a generated two-phase API
(``op_api/include/aclnn_<op_snake>.h``, ``op_api/lib/libcust_opapi.so``)::

    aclnnStatus aclnn<Op>GetWorkspaceSize(<inputs>, <attrs>, <outputs>, uint64_t *workspaceSize,
                                          aclOpExecutor **executor);
    aclnnStatus aclnn<Op>(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                          aclrtStream stream);

Inputs and outputs are ``const aclTensor *`` (``const aclTensorList *`` for a dynamic parameter,
nullptr for an absent optional one), in OpDef order; attributes follow the inputs as
``int64_t``, ``double``, ``bool``, ``char *``, ``const aclIntArray *``, ``aclFloatArray``,
``aclBoolArray``. (Generated headers of the CANN custom-operator flow; ACL runtime calls as
documented in the AscendCL API reference: ``aclInit``, ``aclrtSetDevice``, ``aclrtCreateStream``,
``aclrtMalloc``, ``aclrtMemcpy``, ``aclCreateTensor``, ``aclrtSynchronizeStreamWithTimeout``,
``aclGetRecentErrMsg``.)

The harness is generated per operator signature (not per case): it reads the same manifest
lines as the simulator's runner (``input``/``dyn_input``/``output``/``dyn_output``/
``ref_output``/``attr``/``result``), plus ``device N``, ``repeat N`` (launches, inputs uploaded
again before each, outputs of the last kept) and ``timeout_ms N``. It writes ``result.json``:
``{"status": "ok" | "tiling_error" | "runtime_error", "stage", "acl_error", "message",
"workspace_bytes", "launches"}`` and the outputs' bytes.

The parameter order comes from the OpDef source (:func:`opdef_signature`): ``this->Input("x")``,
``this->Output("y")`` and ``this->Attr("a")...Int(...)`` in the order written, or, for an OpDef
a macro makes, in the order of the preprocessed source (the simulator's OpDef scan).
"""

from __future__ import annotations

from pathlib import Path

from ascendopt.opdef_params import Param, literal_params
from ascendopt.operator import Operator, snake_case

__all__ = ["HARNESS_NAME", "Param", "aclnn_names", "harness_source", "opdef_signature", "write_harness"]

HARNESS_NAME = "ao_harness"


def opdef_signature(op: Operator, cxx: str = "g++") -> list[Param]:
    """The OpDef's parameters in declaration order: from the first op_host source (sorted)
    that declares them literally, else from the preprocessed sources (an OpDef a macro makes:
    :func:`ascendopt.backends.sim.opdef_scan.opdef_params`, compiled with `cxx`)."""
    for rel in sorted(op.host_files()):
        if rel.endswith((".cpp", ".cc", ".cxx")):
            params = literal_params(op.files[rel])
            if params:
                return params
    from ascendopt.backends.sim.opdef_scan import opdef_params

    return opdef_params(op, cxx)


def aclnn_names(op: Operator) -> tuple[str, str]:
    """(header file name, API name prefix) of the operator's generated aclnn API."""
    return f"aclnn_{snake_case(op.op_type)}.h", f"aclnn{op.op_type}"


def write_harness(dest: Path, op: Operator, params: list[Param]) -> Path:
    """Writes ``harness.cpp`` and ``CMakeLists.txt`` into ``dest`` (returns ``dest``)."""
    dest.mkdir(parents=True, exist_ok=True)
    header, api = aclnn_names(op)
    (dest / "harness.cpp").write_text(harness_source(header, api, params))
    (dest / "CMakeLists.txt").write_text(_CMAKE.replace("@NAME@", HARNESS_NAME))
    return dest


def harness_source(header: str, api: str, params: list[Param]) -> str:
    """The harness's C++ source for one signature."""
    setup, args = [], []
    for i, p in enumerate(p for p in params if p.role != "attr"):
        fn = "TensorList" if p.kind == "dynamic" else "Tensor"
        out = "true" if p.role == "output" else "false"
        setup.append(f'    auto a{i} = m.{fn}("{p.name}", {out});')
    n = 0
    order = [p for p in params if p.role == "input"] + [p for p in params if p.role == "attr"] + \
            [p for p in params if p.role == "output"]
    tensor_index = {id(p): i for i, p in enumerate(p for p in params if p.role != "attr")}
    for p in order:
        if p.role == "attr":
            setup.append(f'    auto t{n} = m.Attr_{p.kind}("{p.name}");')
            args.append(f"t{n}")
            n += 1
        else:
            args.append(f"a{tensor_index[id(p)]}")
    call = ", ".join([*args, "&wsSize", "&executor"])
    return (_PRELUDE.replace("@HEADER@", header)
            + "static int RunOnce(Manifest &m, uint64_t &wsSize) {\n"
            + "\n".join(setup) + "\n"
            + "    aclOpExecutor *executor = nullptr;\n"
            + f"    aclnnStatus st = {api}GetWorkspaceSize({call});\n"
            + "    if (st != 0) return m.Fail(\"tiling_error\", \"workspace\", (int)st);\n"
            + "    void *ws = nullptr;\n"
            + "    if (wsSize > 0 && aclrtMalloc(&ws, wsSize, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)\n"
            + "        return m.Fail(\"runtime_error\", \"workspace_alloc\", 0);\n"
            + f"    st = {api}(ws, wsSize, executor, m.stream);\n"
            + "    if (st != 0) { if (ws) aclrtFree(ws); return m.Fail(\"runtime_error\", \"launch\", (int)st); }\n"
            + "    aclError rc = aclrtSynchronizeStreamWithTimeout(m.stream, m.timeoutMs);\n"
            + "    if (ws) aclrtFree(ws);\n"
            + "    if (rc != ACL_SUCCESS) return m.Fail(\"runtime_error\", \"sync\", (int)rc);\n"
            + "    return 0;\n}\n\n" + _MAIN)


_CMAKE = """# Generated by ascendopt (npu backend): the host harness of one operator.
cmake_minimum_required(VERSION 3.16)
project(ao_harness CXX)
set(CMAKE_CXX_STANDARD 17)
add_executable(@NAME@ harness.cpp)
target_include_directories(@NAME@ PRIVATE ${ASCEND_HOME}/include ${ASCEND_HOME}/include/aclnn
                           ${VENDOR_DIR}/op_api/include)
target_link_directories(@NAME@ PRIVATE ${ASCEND_HOME}/lib64 ${VENDOR_DIR}/op_api/lib)
target_link_libraries(@NAME@ PRIVATE cust_opapi ascendcl nnopbase)
"""

_PRELUDE = r"""// Generated by ascendopt (npu backend): runs one operator through its aclnn API.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>
#include "acl/acl.h"
#include "@HEADER@"

struct TensorArg {
    std::string name, path;
    int dtype = 0, format = 2;
    std::vector<int64_t> dims;
    bool output = false;
    std::vector<char> host;
    void *dev = nullptr;
    aclTensor *tensor = nullptr;
};

static size_t DtypeBytes(int dtype) {
    switch (dtype) {
        case 0: case 3: case 8: return 4;          // float, int32, uint32
        case 1: case 6: case 7: case 27: return 2; // float16, int16, uint16, bfloat16
        case 9: case 10: case 11: return 8;        // int64, uint64, double
        default: return 1;                          // int8, uint8, bool
    }
}

static std::string Escape(const char *s) {
    std::string out;
    for (; s && *s; ++s) {
        if (*s == '"' || *s == '\\') out += '\\';
        if ((unsigned char)*s < 0x20) { out += ' '; continue; }
        out += *s;
    }
    return out;
}

struct Manifest {
    std::vector<TensorArg> tensors;
    std::map<std::string, std::vector<std::string>> attrs;
    std::string result;
    int device = 0, repeat = 1, timeoutMs = 60000, launches = 0;
    uint64_t workspace = 0;
    aclrtStream stream = nullptr;
    std::vector<std::vector<char>> strings;
    std::vector<std::unique_ptr<bool[]>> bools;
    std::vector<std::pair<std::string, std::string>> refs;  // in-place outputs: (input name, path)

    bool Load(const char *path) {
        std::ifstream f(path);
        std::string line;
        while (std::getline(f, line)) {
            std::istringstream is(line);
            std::string tag;
            is >> tag;
            if (tag == "device") is >> device;
            else if (tag == "repeat") is >> repeat;
            else if (tag == "timeout_ms") is >> timeoutMs;
            else if (tag == "result") is >> result;
            else if (tag == "attr") {
                std::string name, tok;
                is >> name;
                std::vector<std::string> v;
                while (is >> tok) v.push_back(tok);
                attrs[name] = v;
            } else if (tag.find("input") != std::string::npos || tag.find("output") != std::string::npos) {
                TensorArg t;
                int ndim = 0;
                is >> t.name >> t.dtype >> t.format >> ndim;
                for (int i = 0; i < ndim; ++i) { int64_t d; is >> d; t.dims.push_back(d); }
                is >> t.path;
                t.output = tag.find("output") != std::string::npos && tag != "ref_output";
                if (tag == "ref_output") { refs.push_back({t.name, t.path}); continue; }
                tensors.push_back(t);
            }
        }
        return !result.empty();
    }

    int Fail(const char *status, const char *stage, int code) {
        const char *msg = aclGetRecentErrMsg();
        std::ofstream o(result);
        o << "{\"status\": \"" << status << "\", \"stage\": \"" << stage << "\", \"acl_error\": " << code
          << ", \"message\": \"" << Escape(msg) << "\", \"launches\": " << launches << "}\n";
        return 1;
    }

    std::vector<TensorArg *> Named(const std::string &name, bool output) {
        std::vector<TensorArg *> out;
        for (auto &t : tensors) if (t.name == name && t.output == output) out.push_back(&t);
        if (out.empty() && output)  // an in-place output: the input of that name
            for (auto &t : tensors) if (t.name == name) out.push_back(&t);
        return out;
    }

    aclTensor *Tensor(const std::string &name, bool output) {
        auto v = Named(name, output);
        return v.empty() ? nullptr : v[0]->tensor;
    }

    aclTensorList *TensorList(const std::string &name, bool output) {
        std::vector<const aclTensor *> ts;
        for (auto *t : Named(name, output)) ts.push_back(t->tensor);
        return ts.empty() ? nullptr : aclCreateTensorList(ts.data(), ts.size());
    }

    const std::vector<std::string> &A(const std::string &name) {
        static const std::vector<std::string> none;
        auto it = attrs.find(name);
        return it == attrs.end() ? none : it->second;
    }
    // attr lines: "<kind> <value>" or "<list kind> <n> <values...>"; str values are hex.
    int64_t Attr_int(const std::string &n) { auto &v = A(n); return v.size() > 1 ? std::stoll(v[1]) : 0; }
    double Attr_float(const std::string &n) { auto &v = A(n); return v.size() > 1 ? std::stod(v[1]) : 0.0; }
    bool Attr_bool(const std::string &n) { auto &v = A(n); return v.size() > 1 && v[1] != "0"; }
    char *Attr_str(const std::string &n) {
        auto &v = A(n);
        std::vector<char> s;
        if (v.size() > 1 && v[1] != "-")
            for (size_t i = 0; i + 1 < v[1].size(); i += 2) s.push_back((char)std::stoi(v[1].substr(i, 2), nullptr, 16));
        s.push_back('\0');
        strings.push_back(s);
        return strings.back().data();
    }
    aclIntArray *Attr_list_int(const std::string &n) {
        auto &v = A(n);
        std::vector<int64_t> x;
        for (size_t i = 2; i < v.size(); ++i) x.push_back(std::stoll(v[i]));
        return aclCreateIntArray(x.data(), x.size());
    }
    aclFloatArray *Attr_list_float(const std::string &n) {
        auto &v = A(n);
        std::vector<float> x;
        for (size_t i = 2; i < v.size(); ++i) x.push_back(std::stof(v[i]));
        return aclCreateFloatArray(x.data(), x.size());
    }
    aclBoolArray *Attr_list_bool(const std::string &n) {
        auto &v = A(n);
        bools.emplace_back(new bool[v.size() > 2 ? v.size() - 2 : 1]);
        bool *x = bools.back().get();
        for (size_t i = 2; i < v.size(); ++i) x[i - 2] = v[i] != "0";
        return aclCreateBoolArray(x, v.size() > 2 ? v.size() - 2 : 0);
    }
};

static size_t Elements(const TensorArg &t) {
    size_t n = 1;
    for (auto d : t.dims) n *= (size_t)d;
    return n;
}

static bool Upload(Manifest &m) {
    for (auto &t : m.tensors) {
        size_t bytes = Elements(t) * DtypeBytes(t.dtype);
        if (!t.output && bytes &&
            aclrtMemcpy(t.dev, bytes, t.host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS) return false;
    }
    return true;
}

"""

_MAIN = r"""int main(int argc, char **argv) {
    Manifest m;
    if (argc < 2 || !m.Load(argv[1])) { std::fprintf(stderr, "usage: ao_harness MANIFEST\n"); return 2; }
    if (aclInit(nullptr) != ACL_SUCCESS) return m.Fail("runtime_error", "acl_init", 0);
    if (aclrtSetDevice(m.device) != ACL_SUCCESS) return m.Fail("runtime_error", "set_device", 0);
    if (aclrtCreateStream(&m.stream) != ACL_SUCCESS) return m.Fail("runtime_error", "stream", 0);
    for (auto &t : m.tensors) {
        size_t bytes = Elements(t) * DtypeBytes(t.dtype);
        t.host.resize(bytes);
        if (!t.output) {
            std::ifstream f(t.path, std::ios::binary);
            f.read(t.host.data(), (std::streamsize)bytes);
        }
        if (aclrtMalloc(&t.dev, bytes ? bytes : 32, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
            return m.Fail("runtime_error", "malloc", 0);
        std::vector<int64_t> strides(t.dims.size(), 1);
        for (int i = (int)t.dims.size() - 2; i >= 0; --i) strides[i] = t.dims[i + 1] * strides[i + 1];
        t.tensor = aclCreateTensor(t.dims.data(), t.dims.size(), (aclDataType)t.dtype, strides.data(), 0,
                                   (aclFormat)t.format, t.dims.data(), t.dims.size(), t.dev);
    }
    for (int r = 0; r < m.repeat; ++r) {
        if (!Upload(m)) return m.Fail("runtime_error", "upload", 0);
        uint64_t ws = 0;
        if (RunOnce(m, ws) != 0) return 1;
        m.workspace = ws;
        ++m.launches;
    }
    for (auto &t : m.tensors) {
        size_t bytes = t.host.size();
        if (bytes && aclrtMemcpy(t.host.data(), bytes, t.dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS)
            return m.Fail("runtime_error", "download", 0);
        if (t.output) std::ofstream(t.path, std::ios::binary).write(t.host.data(), (std::streamsize)bytes);
    }
    for (auto &ref : m.refs)
        for (auto &t : m.tensors)
            if (!t.output && t.name == ref.first)
                std::ofstream(ref.second, std::ios::binary).write(t.host.data(), (std::streamsize)t.host.size());
    std::ofstream o(m.result);
    o << "{\"status\": \"ok\", \"workspace_bytes\": " << m.workspace << ", \"launches\": " << m.launches << "}\n";
    o.close();
    for (auto &t : m.tensors) { aclDestroyTensor(t.tensor); aclrtFree(t.dev); }
    aclrtDestroyStream(m.stream);
    aclrtResetDevice(m.device);
    aclFinalize();
    return 0;
}
"""
