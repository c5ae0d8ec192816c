"""The precompiled kernel_operator.h: kernel compiles use it, and it changes no object and no
run; a directory of the compile that could shadow a header it read turns it off."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from ascendopt.backends.sim import build as sim_build
from ascendopt.backends.sim import kernel_pch
from ascendopt.backends.sim.backend import SimBackend
from ascendopt.backends.sim.build import INCLUDE_DIR, SimBuilder
from ascendopt.cases import load_op_cases, make_inputs
from ascendopt.evaluate.check import case_dtypes
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS


def _build(cache: Path, pch: bool, monkeypatch) -> tuple[SimBackend, object, list[list[str]], object, object]:
    cmds: list[list[str]] = []
    orig = SimBuilder._run_each

    def logged(self, jobs, sandbox=None):
        cmds.extend(list(map(str, j.cmd)) for j in jobs)
        return orig(self, jobs, sandbox)

    monkeypatch.setattr(SimBuilder, "_run_each", logged)
    op = Operator.load(FIXTURE_OPS / "scale_copy")
    case = load_op_cases(FIXTURE_OPS / "scale_copy")[0]
    builder = SimBuilder(cache_dir=cache)
    builder.kernel_pch = pch
    backend = SimBackend(builder=builder)
    b = backend.build(op, case_dtypes(case))
    assert b.ok, b.error
    return backend, b, [c for c in cmds if any(a.endswith("kernel_wrapper.cpp") for a in c)], op, case


def test_same_object_and_run_with_and_without_it(tmp_path, monkeypatch):
    be1, b1, [with_pch], op, case = _build(tmp_path / "a", True, monkeypatch)
    be0, b0, [without], _, _ = _build(tmp_path / "b", False, monkeypatch)
    assert op.tiling_struct  # the wrapper defines GET_TILING_DATA's type after the header
    pch_dirs = [with_pch[i + 1] for i, a in enumerate(with_pch) if a == "-I" and "/kpch/" in with_pch[i + 1]]
    assert len(pch_dirs) == 1 and not any("/kpch/" in a for a in without)
    # the compiler takes the .gch (-H marks a valid precompiled header with '!')
    wrapper = next(Path(a) for a in with_pch if a.endswith("kernel_wrapper.cpp"))
    kernel_dirs = list((tmp_path / "a" / "kernel").iterdir())
    assert len(kernel_dirs) == 1
    src = kernel_dirs[0] / "kernel_wrapper.cpp"
    cmd = [a if a != str(wrapper) else str(src) for a in with_pch]
    cmd[cmd.index("-o") + 1] = str(tmp_path / "again.o")
    shown = subprocess.run([*cmd, "-H"], capture_output=True, text=True, check=True).stderr
    assert shown.splitlines()[0].startswith("! ") and shown.splitlines()[0].endswith("kernel_operator.h.gch")
    # byte-identical objects, identical runs
    [k1] = (tmp_path / "a" / "kernel").glob("*/kernel.o")
    [k0] = (tmp_path / "b" / "kernel").glob("*/kernel.o")
    assert k1.read_bytes() == k0.read_bytes() == (tmp_path / "again.o").read_bytes()
    inputs = make_inputs(case, 3)
    r1, r0 = be1.run(b1, op, case, inputs), be0.run(b0, op, case, inputs)
    assert r1.status.value == r0.status.value == "ok", (r1.message, r0.message)
    assert r1.task_duration_us == r0.task_duration_us
    assert all(np.array_equal(r1.outputs[k], r0.outputs[k]) for k in r0.outputs)


def test_a_directory_that_could_shadow_a_header_it_read_turns_it_off(tmp_path):
    pch = tmp_path / "kpch"
    pch.mkdir()
    (pch / kernel_pch.DEPS).write_text("kernel_operator.h\nbits/c++config.h\ncstdint\n")
    mine = tmp_path / "op_kernel"
    (mine / "bits").mkdir(parents=True)
    (mine / "cstdint").mkdir()                                # a directory shadows no header
    flags = ["-I", str(mine), "-DDTYPE_X=float"]
    assert kernel_pch.pch_flags(pch, flags, INCLUDE_DIR) == ["-I", str(pch)]
    assert kernel_pch.pch_flags(pch, [*flags, "-I", str(INCLUDE_DIR)], INCLUDE_DIR) == ["-I", str(pch)]
    (mine / "bits" / "c++config.h").write_text("")          # the operator's own <bits/c++config.h>
    assert kernel_pch.pch_flags(pch, flags, INCLUDE_DIR) == []
    assert kernel_pch.pch_flags(pch, ["-iquote", str(mine)], INCLUDE_DIR) == []
    assert kernel_pch.pch_flags(None, [], INCLUDE_DIR) == []


def test_the_header_list_names_system_headers_by_their_include_name(tmp_path):
    builder = SimBuilder(cache_dir=tmp_path)
    flags = [*sim_build.BASE_FLAGS, *sim_build.USER_FLAGS, "-DASCENDOPT_KERNEL_SIDE=1"]
    d = kernel_pch.prelude_dir(builder, None, flags, INCLUDE_DIR)
    if d is None:
        pytest.skip("the precompiled header could not be built here")
    names = (d / kernel_pch.DEPS).read_text().split()
    assert "kernel_operator.h" in names and "cstdint" in names and not any(n.startswith("/") for n in names)
    assert (d / "kernel_operator.h").read_text().startswith("#include_next")
