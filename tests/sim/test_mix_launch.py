"""Mixed cube/vector launches (KERNEL_TYPE_MIX_AIC_1_2 and the high-level Matmul's default MIX
mode): a launch of blockDim AI cores starts blockDim AICs and 2 x blockDim AIVs; on the AIVs
GetBlockIdx() is in [0, 2 x blockDim), GetSubBlockIdx() in {0, 1}, GetTaskRation() is 2; mode-2
flags pass between an AIC and its AIVs, mode-1 flags between the two AIVs of an AI core, and
SyncAll<true> meets the AIVs only. Checked against numpy on the MixRoles and MatmulApi fixtures."""

from __future__ import annotations

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import check_operator
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS

KERNEL = "op_kernel/mix_roles.cpp"


def _variant(name: str, path: str, old: str, new: str) -> Operator:
    op = Operator.load(FIXTURE_OPS / name)
    text = op.files[path]
    assert old in text
    return op.with_file(path, text.replace(old, new, 1))


def _check(backend, op, name="mix_roles"):
    return check_operator(backend, op, load_op_cases(FIXTURE_OPS / name))


def test_aic_and_two_aivs_per_ai_core_match_numpy(backend):
    res = _check(backend, Operator.load(FIXTURE_OPS / "mix_roles"))
    assert len(res) == 2
    for r in res:
        assert r.status == "ok", r.message
        assert not r.warnings, r.warnings


def test_without_the_mode1_meeting_an_aiv_reads_its_sibling_row_too_early(backend):
    op = _variant("mix_roles", KERNEL, "CrossCoreSetFlag<1, PIPE_MTE3>(5);  // the two AIVs of this AI core meet\n"
                  "    CrossCoreWaitFlag(5);", "")
    assert any(r.status == "wrong_result" for r in _check(backend, op))


def test_syncall_of_every_core_waits_for_aics_that_already_returned(backend):
    # SyncAll<false> includes the AICs; here they finish before the AIVs reach it: the device hangs.
    op = _variant("mix_roles", KERNEL, "    SyncAll();", "    SyncAll<false>();")
    r = _check(backend, op)[0]
    assert r.status == "runtime_error" and r.error_kind == "deadlock", r.message


def test_an_aic_waiting_for_one_aiv_only_deadlocks(backend):
    # A mode-2 flag reaches the AIC only when both AIVs of its AI core set it.
    op = _variant("mix_roles", KERNEL, "    CrossCoreSetFlag<2, PIPE_MTE3>(4);  // to this AI core's AIC",
                  "    if (GetSubBlockIdx() == 0) CrossCoreSetFlag<2, PIPE_MTE3>(4);")
    r = _check(backend, op)[0]
    assert r.status == "runtime_error" and r.error_kind == "deadlock", r.message
    assert "AIC block 0 in CrossCoreWaitFlag(4)" in r.message


def test_matmul_objects_run_on_twice_as_many_aivs(backend):
    # blockDim = ceil(cores / 2): the default (MIX) Matmul still covers every block of C, the
    # AIVs split the work GetBlockIdx() by GetBlockIdx(); the AICs return from REGIST_MATMUL_OBJ.
    op = _variant("matmul_api", "op_host/matmul_api.cpp",
                  "context->SetBlockDim(tiling.cubeTiling.get_usedCoreNum());",
                  "context->SetBlockDim((tiling.cubeTiling.get_usedCoreNum() + 1) / 2);")
    res = _check(backend, op, "matmul_api")
    for r in res:
        assert r.status == "ok", (r.name, r.message)


def test_cube_only_matmul_runs_on_the_aics_alone(backend):
    # ASCENDC_CUBE_ONLY: blockDim AICs compute; half the blocks of C are then never written.
    op = _variant("matmul_api", "op_host/matmul_api.cpp",
                  "context->SetBlockDim(tiling.cubeTiling.get_usedCoreNum());",
                  "context->SetBlockDim((tiling.cubeTiling.get_usedCoreNum() + 1) / 2);")
    text = op.files["op_kernel/matmul_api.cpp"]
    op = op.with_file("op_kernel/matmul_api.cpp", "#define ASCENDC_CUBE_ONLY\n" + text)
    res = _check(backend, op, "matmul_api")
    multi = [r for r in res if r.block_dim and r.block_dim > 1]
    assert multi and all(r.status == "wrong_result" for r in multi), [(r.name, r.status) for r in res]
