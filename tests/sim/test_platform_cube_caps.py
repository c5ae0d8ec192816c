"""The platform info a tiling function reads lists the SoC's cube capabilities from its SoC
file: AICoreintrinsicDtypeMap has Intrinsic_fix_pipe_l0c2out / Intrinsic_data_move_out2l1_nd2nz
and a bf16 Intrinsic_data_move_l12bt on Atlas A2 (910B) and not the 310P's l0c2ub / l12ub moves,
the reverse on 310P; AICoreSpec has bt_size, cube_freq and load3d_constraints. cann-ops' cube
tiling library chooses its paths by them (without them mat_mul_v3 took the 310P path and refused
unaligned n). The fixture's tiling fails unless it sees the expected set."""

from __future__ import annotations

import shutil

import pytest

from ascendopt.backends.sim.backend import SimBackend
from ascendopt.backends.sim.build import SimBuilder
from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import CheckConfig, check_operator
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS

CHECK = r"""
static bool AoCaps(gert::TilingContext* context, bool a2) {
    fe::PlatFormInfos* pi = context->GetPlatformInfo();
    std::string v;
    auto has = [&](const char* key) { v.clear(); return pi->GetPlatformRes("AICoreintrinsicDtypeMap", key, v) && !v.empty(); };
    bool ok = has("Intrinsic_fix_pipe_l0c2out") == a2 && has("Intrinsic_data_move_out2l1_nd2nz") == a2 &&
              has("Intrinsic_data_move_l0c2ub") == !a2 && has("Intrinsic_data_move_l12ub") == !a2;
    ok = ok && (has("Intrinsic_data_move_l12bt") && v.find("bf16") != std::string::npos) == a2;
    std::string bt, freq, load3d;
    ok = ok && pi->GetPlatformRes("AICoreSpec", "bt_size", bt) && std::atoi(bt.c_str()) > 0;
    ok = ok && pi->GetPlatformRes("AICoreSpec", "cube_freq", freq) && std::atoi(freq.c_str()) > 1000;
    ok = ok && pi->GetPlatformRes("AICoreSpec", "load3d_constraints", load3d) && load3d == (a2 ? "0" : "1");
    return ok;
}
"""


@pytest.mark.parametrize("soc, a2", [("Ascend910B2", True), ("Ascend310P3", False)])
def test_tiling_sees_the_socs_cube_capabilities(sim_cache, tmp_path, soc, a2):
    op_dir = tmp_path / "scale_copy"
    shutil.copytree(FIXTURE_OPS / "scale_copy", op_dir)
    host = op_dir / "op_host/scale_copy.cpp"
    text = host.read_text().replace("namespace optiling {\n", "#include <cstdlib>\n#include <string>\nnamespace optiling {\n" + CHECK, 1)
    anchor = "    ScaleCopyTilingData tiling;\n"
    assert anchor in text
    text = text.replace(anchor, anchor + f"    if (!AoCaps(context, {str(a2).lower()})) return ge::GRAPH_FAILED;\n", 1)
    host.write_text(text)
    backend = SimBackend(soc=soc, builder=SimBuilder(cache_dir=sim_cache))
    cases = load_op_cases(op_dir)
    results = check_operator(backend, Operator.load(op_dir), cases, cfg=CheckConfig(timeout_s=60.0))
    assert [r.status for r in results] == ["ok"] * len(cases), [r.message[:1500] for r in results]
