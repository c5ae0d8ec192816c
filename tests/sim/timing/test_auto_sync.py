"""The device compiler's automatic synchronisation (``--cce-auto-sync``: on unless the operator's
CMake files say ``--cce-auto-sync=off``, as the toolkit's compile has it): a conflict between the
scalar pipe and V/MTE2/MTE3 that nothing orders is synchronised, as the inserted flag pair would
(no race, and the scalar unit waits for the producer); the pairs the compiler leaves to the
queues (V->MTE3, ...) and the AIC cores of a mixed kernel keep their races; with ``=off`` they
are all races."""

from __future__ import annotations

import shutil

import pytest

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import check_operator
from ascendopt.operator import Operator
from ascendopt.oprepo import AUTO_SYNC_DEFAULT, cce_auto_sync, kernel_compile_options

from ...conftest import FIXTURE_OPS
from .common import load, run, variant

K = "op_kernel/timing_lab.cpp"
CMAKE_ON = """add_ops_compile_options(
        OP_NAME TimingLab
        OPTIONS --cce-auto-sync=on
                -Wno-deprecated-declarations
)
"""


@pytest.fixture(scope="module")
def lab():
    return load("timing_lab")


@pytest.fixture(scope="module")
def lab_auto(tmp_path_factory):
    """timing_lab in a directory whose CMakeLists.txt passes --cce-auto-sync=on."""
    d = tmp_path_factory.mktemp("auto") / "timing_lab"
    shutil.copytree(FIXTURE_OPS / "timing_lab", d)
    (d / "CMakeLists.txt").write_text(CMAKE_ON)
    op = Operator.load(d)
    assert op.auto_sync
    return op


def _races(rr) -> list[dict]:
    return [w for w in rr.warnings if w["kind"] == "race"]


def _cycles(rr) -> float:
    return max(c["cycles"] for c in rr.profile["cores"])


@pytest.mark.parametrize("text, sub, want", [
    (CMAKE_ON, "", True),
    ("add_ops_compile_options(OP_NAME X OPTIONS -I${OP_COMMON_DIR}/inc\n    --cce-auto-sync)\n", "", True),
    ("add_ops_compile_options(\n OP_NAME X\n OPTIONS --cce-auto-sync=off\n -Werror\n)\n", "", False),
    ("add_ops_compile_options(ALL OPTIONS --cce-auto-sync=on)\n", "op_kernel", True),
    ("# add_ops_compile_options(OP_NAME X OPTIONS --cce-auto-sync=off)\n", "", True),
    ("add_ops_compile_options(OP_NAME X OPTIONS -Wno-deprecated-declarations)\n", "", True),
    ("add_ops_compile_options(OP_NAME X OPTIONS --cce-auto-sync=on)\n"
     "add_ops_compile_options(OP_NAME X OPTIONS --cce-auto-sync=off)\n", "", False),
    ("add_ops_compile_options(OP_NAME X COMPUTE_UNIT --cce-auto-sync=off OPTIONS -g)\n", "", True),
    ("add_ops_compile_options(OP_NAME X OPTIONS --cce-auto-sync=off)\n"
     "add_ops_compile_options(OP_NAME X OPTIONS --cce-auto-sync)\n", "op_kernel", True),
])
def test_the_option_is_read_from_the_operators_cmake_files(tmp_path, text, sub, want):
    (tmp_path / sub).mkdir(exist_ok=True)
    (tmp_path / sub / "CMakeLists.txt").write_text(text)
    assert cce_auto_sync(tmp_path) is want, kernel_compile_options(tmp_path)
    assert cce_auto_sync(tmp_path / "elsewhere") is AUTO_SYNC_DEFAULT


def test_without_the_option_the_toolkit_adds_it(tmp_path):
    # asc-devkit compile_op.py: --cce-auto-sync is appended unless =off is among the options
    assert AUTO_SYNC_DEFAULT is True and cce_auto_sync(tmp_path) is True
    assert load("timing_lab")[0].auto_sync


def test_a_written_operator_keeps_its_compile_options(tmp_path, no_auto_sync):
    """Operator.write_to (Stage II's and optimize's best/) carries the CMake files along: the
    written operator builds with the same --cce-auto-sync as its source."""
    off = no_auto_sync(FIXTURE_OPS / "timing_lab")
    assert not Operator.load(off.write_to(tmp_path / "best")).auto_sync
    assert Operator.load(load("timing_lab")[0].write_to(tmp_path / "plain")).auto_sync


def test_scalar_read_after_vector_write_is_synchronised_under_auto_sync(backend, lab, lab_auto, no_auto_sync):
    default, cases = lab  # no CMake file: built the standard way, with the option
    off = no_auto_sync(FIXTURE_OPS / "timing_lab")
    case = cases["t48x2"]
    racy = run(backend, variant(off, K, MODE=1, PEEK=1, VS_FLAG=0), case)
    assert [w["message"] for w in _races(racy)] and "V_S" in _races(racy)[0]["message"]
    explicit = run(backend, variant(off, K, MODE=1, PEEK=1, VS_FLAG=1), case)
    assert not explicit.warnings

    dtypes = {"x": "float", "y": "float"}
    auto_build = backend.build(variant(lab_auto, K, MODE=1, PEEK=1, VS_FLAG=0), dtypes)
    assert auto_build.key != backend.build(variant(off, K, MODE=1, PEEK=1, VS_FLAG=0),
                                           dtypes).key  # the option keys the build
    assert auto_build.key == backend.build(variant(default, K, MODE=1, PEEK=1, VS_FLAG=0), dtypes).key
    auto = run(backend, variant(lab_auto, K, MODE=1, PEEK=1, VS_FLAG=0), case)
    assert not _races(auto), auto.warnings
    assert all(c.get("auto_syncs", 0) >= 1 for c in auto.profile["cores"])
    # The inserted V_S pair costs what the explicit one does: the scalar read waits for the
    # vector result (the racy run lets it go early).
    assert _cycles(auto) >= _cycles(explicit) - 1.0, (_cycles(auto), _cycles(explicit))
    assert _cycles(auto) > _cycles(racy)
    # Without a CMake option the kernel is the one built with it.
    plain = run(backend, variant(default, K, MODE=1, PEEK=1, VS_FLAG=0), case)
    assert not _races(plain) and _cycles(plain) == _cycles(auto), (plain.warnings, _cycles(plain), _cycles(auto))
    # A kernel whose flags are all in place gains or loses nothing from the option.
    same = run(backend, variant(lab_auto, K, MODE=1, PEEK=1, VS_FLAG=1), case)
    assert not same.warnings and _cycles(same) == pytest.approx(_cycles(explicit))


def test_vector_to_mte3_is_not_the_compilers_to_synchronise(backend, lab_auto):
    """V->MTE3 is the queues' (or the programmer's) job, not the compiler's: still a race."""
    rr = run(backend, variant(lab_auto, K, MODE=1, VM3_FLAG=0), load("timing_lab")[1]["t48x2"])
    races = _races(rr)
    assert races and "V_MTE3" in races[0]["message"], rr.warnings


MIX = "op_kernel/mix_roles.cpp"
AIC_COPY = """        msgGm.SetValue(g * 16, float(g + 1));
        TPipe l1pipe;
        TBuf<TPosition::A1> l1;
        l1pipe.InitBuffer(l1, 8 * sizeof(float));
        LocalTensor<float> l1Local = l1.Get<float>();
        DataCopy(l1Local, msgGm[g * 16], 8);  // MTE2 reads what the scalar unit wrote
"""
AIV_COPY = """    slotGm.SetValue(v * 16, float(v));
    TBuf<TPosition::VECCALC> back;
    pipe.InitBuffer(back, 8 * sizeof(float));
    LocalTensor<float> backLocal = back.Get<float>();
    DataCopy(backLocal, slotGm[v * 16], 8);  // MTE2 reads what the scalar unit wrote
"""


def test_the_cube_side_gets_no_compiler_sync(backend, tmp_path, no_auto_sync):
    """The same scalar-write / MTE2-read on the AICs and the AIVs of a mixed kernel (first case:
    3 AICs, 6 AIVs): with --cce-auto-sync=off all 9 race; with the option (given or by default)
    the AIVs' are synchronised and the AICs' stay races (the compiler inserts nothing on the
    cube side)."""
    d = tmp_path / "mix_roles"
    shutil.copytree(FIXTURE_OPS / "mix_roles", d)
    (d / "CMakeLists.txt").write_text(CMAKE_ON)
    with_option = Operator.load(d)
    without = no_auto_sync(FIXTURE_OPS / "mix_roles")
    default = Operator.load(FIXTURE_OPS / "mix_roles")
    text = without.files[MIX]
    for old, new in (("        msgGm.SetValue(g * 16, float(g + 1));\n", AIC_COPY),
                     ("    slotGm.SetValue(v * 16, float(v));\n", AIV_COPY)):
        assert old in text
        text = text.replace(old, new, 1)
    case = load_op_cases(d)[0]
    counts = []
    for op in (without, with_option, default):
        [res] = check_operator(backend, op.with_file(MIX, text), [case])
        races = [w for w in res.warnings if w["kind"] == "race"]
        assert res.status == "ok" and len(races) == 1 and "S_MTE2" in races[0]["message"], res.warnings
        counts.append(races[0]["count"])
    assert counts == [9, 3, 3]
