// AscendOptimizer simulator: interface between the runner (main.cpp) and the host-side
// emulation (host_rt.cpp): the registered OpDef and one tiling run.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ao::host {

struct PlatformConfig {
    std::string soc_name;
    std::string soc_version;  // family name used by GetSocVersion, e.g. "Ascend910B"
    uint32_t aiv_cores = 0, aic_cores = 0;
    uint64_t ub_bytes = 0, l1_bytes = 0, l0a_bytes = 0, l0b_bytes = 0, l0c_bytes = 0, l2_bytes = 0, hbm_bytes = 0,
             lib_api_workspace_bytes = 0;
    // cube capabilities as the platform info lists them (AICoreSpec, AICoreintrinsicDtypeMap)
    int64_t cube_freq_mhz = 0;
    uint64_t bt_bytes = 0;
    bool load3d_constraints = false;
    std::vector<std::pair<std::string, std::string>> intrinsics;  // "Intrinsic_x" -> "true" / a dtype list
};

struct TensorArg {
    std::string name;  // IR name; repeated consecutively for the instances of a dynamic input
    int dtype = 0;     // ge::DataType value
    int format = 2;    // ge::Format value (FORMAT_ND)
    std::vector<int64_t> shape;
    const void* data = nullptr;  // host copy of the input bytes, for GetInputTensor
    bool present = true;         // false: an absent optional input
    bool dynamic = false;        // one tensor of a list (an OpDef DYNAMIC parameter's instance)
    bool ref = false;            // runner only: an output that is an input updated in place
};

struct AttrArg {
    std::string name;
    std::string kind;  // "int","float","bool","str","list_int","list_float","list_bool" (list_bool values in li)
    int64_t i = 0;
    double f = 0;
    bool b = false;
    std::string s;
    std::vector<int64_t> li;
    std::vector<double> lf;
};

struct OpSignature {
    std::string op_type;
    struct Param {
        std::string name;
        int param_type;  // 0 required, 1 optional, 2 dynamic
        std::vector<int> dtypes;
        bool value_depend;
        bool scalar;
        // Outputs: OpParamDef::InitValue, the element the framework fills the output's GM with
        // before the launch; one for every dtype/format combination or one per combination.
        struct Fill {
            uint32_t width;  // bytes
            uint64_t bits;   // little-endian pattern
        };
        std::vector<Fill> init;
        bool shape_depend;  // OutputShapeDependOnCompute: the kernel reports the output's shape
    };
    std::vector<Param> inputs, outputs;
    struct Attr {
        std::string name;
        std::string kind;
        bool required;
        AttrArg default_value;
    };
    std::vector<Attr> attrs;
    bool has_tiling;
    bool has_infer_shape;
};

struct TilingResult {
    bool ok = false;
    std::string error;
    uint32_t block_dim = 0;
    uint64_t tiling_key = 0;
    std::vector<uint8_t> tiling_data;
    std::vector<int64_t> workspace_sizes;
    uint32_t schedule_mode = 0;
    std::vector<std::vector<int64_t>> inferred_output_shapes;  // empty inner vector = not inferred
    // Set when InferShape failed: the run goes on with the case's output shapes (every case
    // gives them), as an aclnn launch does (the caller allocates the outputs; a level-0 op runs
    // InferShape only when it asks for it with INFER_SHAPE). Why it failed, for the report.
    std::string infer_shape_note;
    // Per IR input (output) parameter, in OpDef order: the indices of its present tensors in
    // the runner's inputs (outputs); a DYNAMIC parameter's list in list order.
    std::vector<std::vector<size_t>> input_params, output_params;
};

// Exactly one op must be registered (OP_ADD); otherwise nullptr and *error says why.
const OpSignature* GetRegisteredOp(std::string* error);

// Runs InferShape (if registered) and the tiling function of the registered op.
// Never throws; crashes (SIGSEGV/SIGFPE/...) inside op code are reported as errors.
TilingResult RunTiling(const PlatformConfig&, const std::vector<TensorArg>& inputs,
                       const std::vector<TensorArg>& outputs, const std::vector<AttrArg>& attrs);

// Between two cases of a batch: no tiling-data binding (SetDataPtr) is left, nor its bytes.
void ResetCaseState();

}  // namespace ao::host
