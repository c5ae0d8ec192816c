"""Tests of the host-side emulation (OpDef registry, gert contexts, tiling runs).

Builds, once per session, two test executables from tests/sim/host/test_host_rt.cpp + the host
runtime + one op_host fixture each (scale_shift: OpDef-style SetTiling/SetInferShape with
TilingData classes; row_sum: IMPL_OP_OPTILING/IMPL_OP_INFERSHAPE from separate files, dynamic
inputs, TilingParse compile info). scale_shift also links its tiling header compiled in
kernel mode (-DASCENDOPT_KERNEL_SIDE) to compare layouts and decode the saved bytes.
All compiles use -Wall -Wextra -Werror.
"""
from __future__ import annotations

import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SIM = HERE.parents[2] / "src" / "ascendopt" / "backends" / "sim"
INCLUDE = SIM / "include"
RUNTIME = SIM / "runtime"
FIX = HERE / "fixtures"
FLAGS = ["g++", "-std=c++17", "-O0", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}", f"-I{RUNTIME}"]

SCALE_SHIFT_TESTS = [
    "registry", "basic_tiling", "saved_bytes_equal_host_struct", "attrs_given", "attr_kind_conversion",
    "optional_bias_present", "optional_input_omitted", "platform_310p", "error_missing_required_attr",
    "error_unknown_attr", "error_missing_required_input", "error_unknown_input", "error_value_missing",
    "error_graph_failed", "error_no_block_dim", "error_save_capacity", "error_exception", "error_sigfpe",
    "error_sigsegv", "error_data_size_over_capacity", "infershape_untouched", "kernel_side_layout",
]
ROW_SUM_TESTS = ["registry", "dynamic_inputs_and_tiling_parse", "dynamic_list_given_as_single_tensor",
                 "dynamic_zero_instances"]

# Headers a kernel translation unit must never see (real kernels define sqrt/abs/exp/...).
FORBIDDEN_IN_KERNEL = ["cmath", "math.h", "cstdlib", "stdlib.h", "algorithm", "random"]


def _run(cmd: list[str]) -> None:
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, " ".join(cmd) + "\n" + res.stderr[-6000:]


@pytest.fixture(scope="session")
def host_bins(tmp_path_factory) -> dict[str, Path]:
    if shutil.which("g++") is None:
        pytest.skip("g++ not available")
    out = tmp_path_factory.mktemp("host_rt")
    kl = out / "kernel_layout.o"
    bins = {"scale_shift": out / "test_scale_shift", "row_sum": out / "test_row_sum"}
    host_rt = str(RUNTIME / "host_rt.cpp")
    test_src = str(HERE / "test_host_rt.cpp")
    rt = out / "host_rt.o"
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(_run, [
            [*FLAGS, "-c", host_rt, "-o", str(rt)],
            [*FLAGS, "-DASCENDOPT_KERNEL_SIDE", f"-I{FIX / 'scale_shift'}", "-c",
             str(FIX / "scale_shift" / "kernel_layout.cpp"), "-o", str(kl)],
        ]))
    cmds = [
        [*FLAGS, f"-I{FIX / 'scale_shift'}", test_src, str(FIX / "scale_shift" / "op_host" / "scale_shift.cpp"),
         str(rt), str(kl), "-o", str(bins["scale_shift"])],
        [*FLAGS, "-DAO_FIXTURE_ROW_SUM", f"-I{FIX / 'row_sum'}", test_src,
         *map(str, sorted((FIX / "row_sum" / "op_host").glob("*.cpp"))), str(rt), "-o", str(bins["row_sum"])],
    ]
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(_run, cmds))
    return bins


def _run_case(binary: Path, name: str) -> None:
    res = subprocess.run([str(binary), name], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0 and f"PASS {name}" in res.stdout, res.stdout + res.stderr


@pytest.mark.parametrize("name", SCALE_SHIFT_TESTS)
def test_scale_shift(host_bins, name):
    _run_case(host_bins["scale_shift"], name)


@pytest.mark.parametrize("name", ROW_SUM_TESTS)
def test_row_sum(host_bins, name):
    _run_case(host_bins["row_sum"], name)


@pytest.mark.parametrize("fixture,expected", [("scale_shift", SCALE_SHIFT_TESTS), ("row_sum", ROW_SUM_TESTS)])
def test_every_cpp_case_is_listed(host_bins, fixture, expected):
    res = subprocess.run([str(host_bins[fixture]), "--list"], capture_output=True, text=True, timeout=60)
    assert res.stdout.split() == expected


def test_kernel_mode_header_includes_nothing_forbidden():
    if shutil.which("g++") is None:
        pytest.skip("g++ not available")
    src = '#include "register/tilingdata_base.h"\n#include "op_host/scale_shift_tiling.h"\n'
    res = subprocess.run(["g++", "-std=c++17", "-E", "-H", "-DASCENDOPT_KERNEL_SIDE", f"-I{INCLUDE}",
                          f"-I{FIX / 'scale_shift'}", "-x", "c++", "-", "-o", "/dev/null"],
                         input=src, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    included = [line.lstrip(". ").strip() for line in res.stderr.splitlines() if line.startswith(".")]
    names = {Path(p).name for p in included}
    assert not names & set(FORBIDDEN_IN_KERNEL), sorted(names)
