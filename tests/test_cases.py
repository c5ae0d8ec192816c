"""Tests for ascendopt.dtypes and ascendopt.cases (msopst case handling)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from ascendopt import dtypes
from ascendopt.cases import (
    TOLERANCES,
    Case,
    CaseError,
    TensorSpec,
    compare,
    load_case_file,
    load_golden,
    load_op_cases,
    make_inputs,
    run_golden,
)

FIX = Path(__file__).parent / "fixtures" / "cases"
OP_DIR = FIX / "op_add"
GOLDENS = FIX / "goldens"


def write_cases(tmp_path: Path, cases: list[dict], name: str = "c.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(cases))
    return path


def simple_case(**overrides) -> dict:
    case = {
        "case_name": "Test_Op_001", "op": "Op",
        "input_desc": [{"name": "x", "format": ["ND"], "type": ["float16"], "shape": [4]}],
        "output_desc": [{"name": "y", "format": ["ND"], "type": ["float16"], "shape": [4]}],
    }
    case.update(overrides)
    return case


def make_case(dtype: str = "float32", shape=(64,), dist: str = "uniform",
              value_range=(-1.0, 1.0), n_inputs: int = 1) -> Case:
    ins = [TensorSpec(f"x{i}", dtype, tuple(shape), "ND", dist, value_range) for i in range(n_inputs)]
    return Case("c", "Op", ins, [TensorSpec("y", dtype, tuple(shape), "ND")], {}, {}, None, "mem")


# ----------------------------------------------------------------------------- dtypes

@pytest.mark.parametrize("name,np_type,code,cpp,size", [
    ("float16", np.float16, 1, "half", 2),
    ("float", np.float32, 0, "float", 4),
    ("float32", np.float32, 0, "float", 4),
    ("bfloat16", ml_dtypes.bfloat16, 27, "bfloat16_t", 2),
    ("int8", np.int8, 2, "int8_t", 1),
    ("uint8", np.uint8, 4, "uint8_t", 1),
    ("int16", np.int16, 6, "int16_t", 2),
    ("uint16", np.uint16, 7, "uint16_t", 2),
    ("int32", np.int32, 3, "int32_t", 4),
    ("uint32", np.uint32, 8, "uint32_t", 4),
    ("int64", np.int64, 9, "int64_t", 8),
    ("uint64", np.uint64, 10, "uint64_t", 8),
    ("bool", np.bool_, 12, "bool", 1),
    ("double", np.float64, 11, "double", 8),
])
def test_dtype_table(name, np_type, code, cpp, size):
    assert dtypes.np_dtype(name) == np.dtype(np_type)
    assert dtypes.ge_dtype_code(name) == code
    assert dtypes.cpp_type(name) == cpp
    assert dtypes.dtype_size(name) == size


def test_dtype_aliases_and_errors():
    assert dtypes.canonical_dtype("Float") == "float32"
    assert dtypes.canonical_dtype("ge::DT_BF16") == "bfloat16"
    assert dtypes.dtype_info("DT_FLOAT16").name == "float16"
    assert dtypes.dtype_info("bfloat16").is_float and dtypes.dtype_info("uint8").is_int
    with pytest.raises(CaseError, match="unknown dtype 'complex32'"):
        dtypes.np_dtype("complex32")
    assert issubclass(CaseError, ValueError)


def test_format_codes():
    assert [dtypes.format_code(f) for f in ("NCHW", "NHWC", "ND", "NC1HWC0", "FRACTAL_Z")] == [0, 1, 2, 3, 4]
    assert dtypes.format_code("FRACTAL_NZ") == 29
    assert dtypes.format_code("FORMAT_ND") == 2 and dtypes.format_code("nd") == 2
    with pytest.raises(CaseError, match="unknown format 'NDHWC'"):
        dtypes.format_code("NDHWC")


# -------------------------------------------------------------------------- expansion

def test_expansion_by_dtype_with_broadcasting():
    cases = load_case_file(OP_DIR / "tests" / "st" / "AddAlpha_case.json")
    first = [c for c in cases if c.name.startswith("Test_AddAlpha_001")]
    assert [c.name for c in first] == ["Test_AddAlpha_001_float16", "Test_AddAlpha_001_float",
                                       "Test_AddAlpha_001_bfloat16", "Test_AddAlpha_001_int32"]
    c = first[2]
    assert c.op == "AddAlpha" and [t.dtype for t in c.inputs + c.outputs] == ["bfloat16"] * 3
    assert c.inputs[0].shape == (4, 16) and c.inputs[0].format == "ND"
    assert c.inputs[1].distribution == "normal" and c.inputs[1].value_range == (-1.0, 1.0)
    assert c.attrs == {"alpha": 2.0} and isinstance(c.attrs["alpha"], float)
    assert c.golden == f"{(OP_DIR / 'tests' / 'st' / 'test_add_alpha.py').resolve()}:calc_expect_func"
    assert c.source == str((OP_DIR / "tests" / "st" / "AddAlpha_case.json").resolve())


def test_expansion_by_shape_uses_index_suffix_and_scalar_shapes():
    cases = load_case_file(OP_DIR / "tests" / "st" / "AddAlpha_case.json")
    second = [c for c in cases if c.name.startswith("Test_AddAlpha_002")]
    assert [c.name for c in second] == ["Test_AddAlpha_002_0", "Test_AddAlpha_002_1", "Test_AddAlpha_002_2"]
    assert [c.inputs[0].shape for c in second] == [(8,), (2, 3), ()]
    assert second[2].outputs[0].shape == ()
    assert second[0].st_mode == "ms_python_train"
    # golden without ":func" defaults to calc_expect_func
    assert second[0].golden.endswith("test_add_alpha.py:calc_expect_func")


def test_mismatched_list_lengths(tmp_path):
    with pytest.raises(CaseError, match=r"mismatched list lengths.*type: 2.*shape: 3"):
        load_case_file(FIX / "mismatched_case.json")


@pytest.mark.parametrize("shape,expected", [([], ()), (5, (5,)), ([[]], ()), ([0, 3], (0, 3))])
def test_shape_forms(tmp_path, shape, expected):
    desc = {"name": "x", "format": "ND", "type": "float", "shape": shape}
    path = write_cases(tmp_path, [simple_case(input_desc=[desc])])
    assert load_case_file(path)[0].inputs[0].shape == expected


@pytest.mark.parametrize("desc,match", [
    ({"name": "x", "type": "float", "shape": [-1]}, "invalid shape"),
    ({"name": "x", "type": "float", "shape": [2, True]}, "invalid shape"),
    ({"name": "x", "type": "floaty", "shape": [2]}, "unknown dtype"),
    ({"name": "x", "type": "float", "format": "XYZ", "shape": [2]}, "unknown format"),
    ({"name": "x", "type": "float", "shape": [2], "value_range": [[2, 1]]}, "low <= high"),
    ({"name": "x", "type": "float", "shape": [2], "data_distribute": "poisson"}, "data_distribute"),
    ({"name": "x", "type": "float"}, "missing 'shape'"),
])
def test_invalid_descs(tmp_path, desc, match):
    path = write_cases(tmp_path, [simple_case(input_desc=[desc])])
    with pytest.raises(CaseError, match=match):
        load_case_file(path)


def test_unique_names_across_duplicates(tmp_path):
    path = write_cases(tmp_path, [simple_case(), simple_case(), {**simple_case(), "case_name": ""}])
    names = [c.name for c in load_case_file(path)]
    assert names == ["Test_Op_001", "Test_Op_001_dup2", "Test_Op_003"]
    assert names == [c.name for c in load_case_file(path)]  # stable


def test_same_dtype_variants_fall_back_to_index(tmp_path):
    desc = {"name": "x", "type": ["float16", "float16"], "shape": [[2], [3]]}
    path = write_cases(tmp_path, [simple_case(input_desc=[desc])])
    assert [c.name for c in load_case_file(path)] == ["Test_Op_001_0", "Test_Op_001_1"]


def test_bad_files(tmp_path):
    with pytest.raises(CaseError, match="cannot read case file"):
        load_case_file(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text("[{")
    with pytest.raises(CaseError, match="invalid JSON"):
        load_case_file(bad)
    with pytest.raises(CaseError, match="'op'"):
        load_case_file(write_cases(tmp_path, [{"case_name": "x"}]))


def test_load_op_cases_with_extra_files_and_override(tmp_path):
    extra = write_cases(tmp_path, [simple_case(case_name="Test_AddAlpha_001_float16")])
    cases = load_op_cases(OP_DIR, extra_case_files=[extra],
                          golden_override=str(GOLDENS / "golden_ok.py:calc_expect_func"))
    names = [c.name for c in cases]
    assert len(names) == 8 and len(set(names)) == 8
    assert names[-1] == "Test_AddAlpha_001_float16_dup2"
    assert {c.golden for c in cases} == {f"{(GOLDENS / 'golden_ok.py').resolve()}:calc_expect_func"}
    assert load_op_cases(tmp_path) == []
    with pytest.raises(CaseError, match="not found"):
        load_op_cases(tmp_path / "missing")
    # a bad override is the user's mistake: said once, before any case runs
    with pytest.raises(CaseError, match="golden file not found"):
        load_op_cases(OP_DIR, golden_override=str(tmp_path / "nofile.py:f"))
    with pytest.raises(CaseError, match="no function 'nope'"):
        load_op_cases(OP_DIR, golden_override=str(GOLDENS / "golden_ok.py:nope"))


# ------------------------------------------------------------------------------ attrs

def test_attr_parsing():
    (case,) = load_case_file(FIX / "attrs_case.json")
    assert case.attrs == {
        "axis": -1, "eps": 1.0, "keep": True, "mode": "sum", "axes": [0, 1],
        "scales": [1.0, 2.5], "flags": [True, False], "pads": [[0, 1], [2, 3]],
        "dst_type": "float16", "inferred": [1, 2]}
    assert case.attr_types == {
        "axis": "int", "eps": "float", "keep": "bool", "mode": "str", "axes": "list_int",
        "scales": "list_float", "flags": "list_bool", "pads": "list_list_int",
        "dst_type": "data_type", "inferred": "list_int"}
    assert type(case.attrs["eps"]) is float and type(case.attrs["axes"][1]) is int
    assert case.expect == "failed" and case.extra == {"precision_tolerances": {"atol": 0.01}}
    assert case.inputs[0].format == "NCHW" and case.inputs[0].shape == (6,)


@pytest.mark.parametrize("attr,match", [
    ({"name": "a", "type": "int", "value": 1.5}, "not a valid int"),
    ({"name": "a", "type": "int", "value": True}, "not a valid int"),
    ({"name": "a", "type": "list_int", "value": 3}, "not a list"),
    ({"name": "a", "type": "tensor", "value": 3}, "unknown attr type"),
    ({"name": "a", "type": "bool", "value": "yes"}, "not a valid bool"),
    ({"type": "int", "value": 1}, "needs 'name'"),
    ({"name": "x", "type": "int", "value": 1}, "duplicate"),
])
def test_attr_errors(tmp_path, attr, match):
    path = write_cases(tmp_path, [simple_case(attr=[attr])])
    with pytest.raises(CaseError, match=match):
        load_case_file(path)


# --------------------------------------------------------------------------- inputs

def test_inputs_deterministic_and_seed_dependent():
    case = make_case(n_inputs=2)
    a, b, c = make_inputs(case, 7), make_inputs(case, 7), make_inputs(case, 8)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert not np.array_equal(a["x0"], c["x0"])
    assert not np.array_equal(a["x0"], a["x1"])


def test_inputs_do_not_touch_global_rng():
    np.random.seed(123)
    expected = np.random.random()
    np.random.seed(123)
    make_inputs(make_case(), 1)
    assert np.random.random() == expected


@pytest.mark.parametrize("dtype", ["float16", "float32", "bfloat16", "double"])
def test_uniform_floats(dtype):
    x = make_inputs(make_case(dtype, (2000,), "uniform", (0.1, 1.0)), 0)["x0"]
    assert x.dtype == dtypes.np_dtype(dtype) and x.shape == (2000,)
    xf = x.astype(np.float64)
    assert xf.min() >= 0.099 and xf.max() <= 1.001 and 0.5 < xf.mean() < 0.6


def test_normal_is_centred_and_clipped():
    x = make_inputs(make_case("float32", (20000,), "normal", (-3.0, 3.0)), 0)["x0"]
    assert x.min() >= -3 and x.max() <= 3
    assert abs(x.mean()) < 0.05 and 0.9 < x.std() < 1.1  # std = range / 6 = 1


@pytest.mark.parametrize("dist", ["uniform", "random", "randint", "normal"])
def test_int_inputs_inclusive_range(dist):
    x = make_inputs(make_case("int32", (5000,), dist, (-3, 3)), 0)["x0"]
    assert x.dtype == np.int32 and x.min() == -3 and x.max() == 3


def test_int_range_clipped_to_dtype_and_degenerate_range():
    x = make_inputs(make_case("uint8", (1000,), "uniform", (-100.0, 1000.0)), 0)["x0"]
    assert x.min() == 0 and x.max() == 255
    y = make_inputs(make_case("int32", (10,), "uniform", (0.1, 1.0)), 0)["x0"]
    assert (y == 1).all()


def test_bool_and_scalar_inputs():
    x = make_inputs(make_case("bool", (1000,), "uniform", (0.0, 1.0)), 0)["x0"]
    assert x.dtype == np.bool_ and x.any() and not x.all()
    s = make_inputs(make_case("float16", (), "uniform", (0.0, 1.0)), 0)["x0"]
    assert isinstance(s, np.ndarray) and s.shape == () and s.dtype == np.float16


def test_fixed_values(tmp_path):
    np.arange(4, dtype=np.float16).tofile(tmp_path / "x.bin")
    for value in ([[1, 2], [3, 4]], "x.bin"):
        desc = {"name": "x", "type": "float16", "shape": [2, 2], "value": value}
        (case,) = load_case_file(write_cases(tmp_path, [simple_case(input_desc=[desc])]))
        x = make_inputs(case, 0)["x"]
        assert x.shape == (2, 2) and x.dtype == np.float16
    # A .bin file carries no shape: its size must match. (A value list brings its own shape:
    # test_constant_input_value_sets_its_shape.)
    desc = {"name": "x", "type": "float16", "shape": [3], "value": "x.bin"}
    (case,) = load_case_file(write_cases(tmp_path, [simple_case(input_desc=[desc])]))
    with pytest.raises(CaseError, match="4 elements"):
        make_inputs(case, 0)


# --------------------------------------------------------------------------- golden

def add_alpha_cases() -> list[Case]:
    return load_case_file(OP_DIR / "tests" / "st" / "AddAlpha_case.json")


@pytest.mark.parametrize("index", range(7))
def test_golden_end_to_end(index):
    case = add_alpha_cases()[index]
    func = load_golden(case.golden)
    inputs = make_inputs(case, 42)
    (y,) = run_golden(func, case, inputs)
    spec = case.outputs[0]
    assert y.dtype == spec.np_dtype and y.shape == spec.shape
    ref = inputs["x1"].astype(np.float64) + case.attrs["alpha"] * inputs["x2"].astype(np.float64)
    assert compare(y, ref.astype(spec.np_dtype), spec.dtype).passed


def test_golden_import_is_isolated():
    before = list(sys.path)
    f1 = load_golden(f"{GOLDENS / 'golden_ok.py'}:calc_expect_func")
    f2 = load_golden(f"{GOLDENS / 'golden_ok.py'}:calc_expect_func")
    assert sys.path == before
    assert f1.__module__ != f2.__module__


def golden_case(shape=(2, 3)) -> Case:
    x = TensorSpec("x", "float32", shape, "ND")
    return Case("g", "Op", [x], [TensorSpec("y", "float16", shape, "ND")], {}, {}, None, "mem")


def test_run_golden_single_array_and_casting():
    case = golden_case()
    inputs = {"x": np.ones((2, 3), np.float32)}
    (y,) = run_golden(load_golden(f"{GOLDENS / 'golden_ok.py'}:calc_expect_func"), case, inputs)
    assert y.dtype == np.float16 and (y == 2).all()


def test_run_golden_binds_by_name_and_passes_attrs():
    case = golden_case()
    case.attrs = {"scale": 3.0}
    func = load_golden(f"{GOLDENS / 'golden_ok.py'}:by_name")
    (y,) = run_golden(func, case, {"x": np.ones((2, 3), np.float32)})
    assert (y == 3).all()  # x bound to the input, y to the output dict (no "value")


def test_run_golden_copies_inputs():
    inputs = {"x": np.ones((2, 3), np.float32)}
    run_golden(load_golden(f"{GOLDENS / 'golden_ok.py'}:mutates"), golden_case(), inputs)
    assert (inputs["x"] == 1).all()


def test_run_golden_reshapes_flat_result():
    def flat(x, y):
        return [x["value"].reshape(-1)]
    (y,) = run_golden(flat, golden_case(), {"x": np.ones((2, 3), np.float32)})
    assert y.shape == (2, 3)


@pytest.mark.parametrize("func,match", [
    ("wrong_count", "returned 2 arrays for 1 outputs"),
    ("wrong_size", "has 1 elements"),
    ("raises", "NameError: name 'undefined_name' is not defined"),
])
def test_run_golden_errors(func, match):
    f = load_golden(f"{GOLDENS / 'golden_ok.py'}:{func}")
    with pytest.raises(CaseError, match=match):
        run_golden(f, golden_case(), {"x": np.ones((2, 3), np.float32)})
    with pytest.raises(CaseError, match="inputs missing"):
        run_golden(f, golden_case(), {})


@pytest.mark.parametrize("spec,match", [
    ("golden_missing_dep.py:calc_expect_func", "No module named 'ascendopt_fixture_missing_dependency'"),
    ("golden_syntax_error.py:calc_expect_func", "SyntaxError"),
    ("golden_ok.py:nope", "no function 'nope'"),
    ("golden_ok.py:NOT_CALLABLE", "no function 'NOT_CALLABLE'"),
    ("missing.py:f", "golden file not found"),
])
def test_load_golden_errors(spec, match):
    before = list(sys.path)
    with pytest.raises(CaseError, match=match):
        load_golden(str(GOLDENS / spec))
    assert sys.path == before
    with pytest.raises(CaseError, match="file.py:function"):
        load_golden("no_colon")


# -------------------------------------------------------------------------- compare

def test_tolerance_table():
    assert TOLERANCES["float16"].rtol == TOLERANCES["float16"].max_mismatch_ratio == 1e-3
    assert TOLERANCES["float32"].rtol == 1e-4 and TOLERANCES["bfloat16"].rtol == 2 ** -7
    assert TOLERANCES["int32"].max_mismatch_ratio == 0 and TOLERANCES["bool"].atol == 0
    assert set(TOLERANCES) == set(dtypes.DTYPES)


def test_compare_exact_and_within_tolerance():
    e = np.linspace(-2, 2, 1000).astype(np.float32)
    r = compare(e.copy(), e, "float")
    assert r.passed and r.max_abs_err == 0 and r.mismatch_ratio == 0 and r.message.startswith("passed")
    r = compare(e * (1 + 5e-5), e, "float32")
    assert r.passed and 0 < r.max_rel_err <= 6e-5


def test_compare_tolerance_boundary():
    e = np.full(1000, 1.0)
    a = e.copy()
    a[0] = 1.0 + 2 ** -9  # exactly atol + rtol*|e| (dyadic, no rounding): passes
    assert compare(a, e, "float16", rtol=2 ** -10, atol=2 ** -10).mismatch_ratio == 0
    a[0] = 1.0 + 2 ** -9 + 2 ** -30
    assert compare(a, e, "float16", rtol=2 ** -10, atol=2 ** -10).mismatch_ratio == 1e-3
    a[0] = 1.0 + 1.9e-3  # default fp16 policy: bound is 1e-3 + 1e-3 * 1
    assert compare(a, e, "float16").mismatch_ratio == 0
    a[0] = 1.0 + 2.1e-3
    r = compare(a, e, "float16")
    assert r.mismatch_ratio == 1e-3 and r.passed  # 1 of 1000 allowed (<= 0.1 %)
    a[1] = 1.0 + 2.1e-3
    r = compare(a, e, "float16")
    assert not r.passed and r.mismatch_ratio == 2e-3 and "first mismatch at (0,)" in r.message


def test_compare_overrides():
    e = np.ones(10)
    a = e + 0.05
    assert not compare(a, e, "float32").passed
    assert compare(a, e, "float32", rtol=0, atol=0.06).passed
    assert compare(a, e, "float32", max_mismatch_ratio=1.0).passed


def test_compare_nan_inf():
    e = np.array([np.nan, np.inf, -np.inf, 1.0])
    assert compare(e.copy(), e, "float32").passed
    for bad in ([0.0, np.inf, -np.inf, 1.0], [np.nan, -np.inf, -np.inf, 1.0],
                [np.nan, np.inf, np.inf, 1.0], [np.nan, np.inf, -np.inf, np.nan]):
        r = compare(np.array(bad), e, "float32", max_mismatch_ratio=0)
        assert not r.passed and r.mismatch_ratio == 0.25 and r.max_abs_err == np.inf


def test_compare_bf16():
    e = np.linspace(0.5, 4, 512).astype(ml_dtypes.bfloat16)
    ulp_off = (e.view(np.uint16) + 1).view(ml_dtypes.bfloat16)  # next bf16 value up
    assert compare(ulp_off, e, "bfloat16").passed  # a 1-ULP difference is tolerated
    assert not compare(ulp_off, e, "float16").passed  # but fails the fp16 double-thousandth
    far = (e.astype(np.float32) * 1.02).astype(ml_dtypes.bfloat16)
    assert not compare(far, e, "bfloat16").passed


def test_compare_one_ulp_passes_for_every_float_dtype():
    for dtype, bits in (("float16", np.uint16), ("bfloat16", np.uint16), ("float32", np.uint32)):
        e = np.geomspace(1e-3, 1e3, 4096).astype(dtypes.np_dtype(dtype))
        up = (e.view(bits) + 1).view(e.dtype)
        assert compare(up, e, dtype, max_mismatch_ratio=0).passed, dtype


def test_compare_ints_and_bool_exact():
    e = np.array([1, 2, 3, 2 ** 62 + 1], dtype=np.int64)
    assert compare(e.copy(), e, "int64").passed
    a = e.copy()
    a[3] -= 1  # indistinguishable in float64, still caught
    r = compare(a, e, "int64")
    assert not r.passed and r.mismatch_ratio == 0.25
    b = np.array([True, False, True])
    assert compare(b, b.copy(), "bool").passed
    assert not compare(~b, b, "bool").passed
    assert not compare(np.array([0, 255], np.uint8), np.array([0, 254], np.uint8), "uint8").passed


def test_compare_shape_mismatch_and_empty():
    r = compare(np.zeros((2, 3)), np.zeros(6), "float16")
    assert not r.passed and "shape mismatch" in r.message
    assert compare(np.zeros((0, 3)), np.zeros((0, 3)), "float16").passed
    with pytest.raises(CaseError):
        compare(np.zeros(2), np.zeros(2), "complex32")


def test_compare_zero_expected_relative_error():
    r = compare(np.array([1e-4]), np.array([0.0]), "float16")
    assert r.passed and r.max_rel_err > 1e30


# ---------------------------------------------------------------- forms real case files use

@pytest.mark.parametrize("dist", ["uniform", "normal", "beta", "laplace", "triangular", "relu", "sigmoid",
                                  "softmax", "tanh"])
def test_every_msopst_distribution_stays_in_range(tmp_path, dist):
    desc = {"name": "x", "type": "float", "shape": [4, 64], "data_distribute": dist, "value_range": [-2, 3]}
    [case] = load_case_file(write_cases(tmp_path, [simple_case(input_desc=[desc])]))
    x = make_inputs(case, 0)["x"]
    assert x.shape == (4, 64) and x.dtype == np.float32
    assert x.min() >= -2 - 1e-6 and x.max() <= 3 + 1e-6
    if dist == "softmax":
        np.testing.assert_allclose(x.sum(axis=-1), 1.0, rtol=1e-5)
    if dist == "relu":
        assert x.min() == 0.0
    np.testing.assert_array_equal(x, make_inputs(case, 0)["x"])  # seeded


def test_complex_tensors_generate_and_compare(tmp_path):
    desc = {"name": "x", "type": ["complex64", "complex128"], "shape": [3, 2], "value_range": [-1, 1]}
    out = {"name": "y", "type": ["complex64", "complex128"], "shape": [3, 2]}
    cases = load_case_file(write_cases(tmp_path, [simple_case(input_desc=[desc], output_desc=[out])]))
    assert [c.inputs[0].dtype for c in cases] == ["complex64", "complex128"]
    x = make_inputs(cases[0], 1)["x"]
    assert x.dtype == np.complex64 and np.abs(x.imag).max() > 0
    assert compare(x, x.copy(), "complex64").passed
    assert not compare(x, x + 0.5j, "complex64").passed  # the imaginary part counts
    assert dtypes.ge_dtype_code("complex128") == 17 and dtypes.dtype_size("complex64") == 8


def test_output_may_share_an_input_name(tmp_path):
    """In-place (ref) operators name their output like the input it updates."""
    ins = [{"name": "var", "type": "float", "shape": [4]}, {"name": "idx", "type": "int32", "shape": [2]}]
    outs = [{"name": "var", "type": "float", "shape": [4]}]
    [case] = load_case_file(write_cases(tmp_path, [simple_case(input_desc=ins, output_desc=outs)]))
    assert [t.name for t in case.inputs] == ["var", "idx"] and [t.name for t in case.outputs] == ["var"]
    dup_inputs = [{"name": "a", "type": "float", "shape": [4]}, {"name": "a", "type": "float", "shape": [4]}]
    with pytest.raises(CaseError, match="duplicate"):
        load_case_file(write_cases(tmp_path, [simple_case(input_desc=dup_inputs)]))


def test_golden_binds_by_position_when_an_output_shares_an_input_name(tmp_path):
    (tmp_path / "g.py").write_text(
        "def calc_expect_func(var, idx, var_out):\n"
        "    assert 'value' in var and 'value' not in var_out\n"
        "    return [var['value'] * 2]\n")
    ins = [{"name": "var", "type": "float", "shape": [4]}, {"name": "idx", "type": "int32", "shape": [2]}]
    outs = [{"name": "var", "type": "float", "shape": [4]}]
    [case] = load_case_file(write_cases(tmp_path, [simple_case(input_desc=ins, output_desc=outs,
                                                                calc_expect_func_file="g.py:calc_expect_func")]))
    inputs = make_inputs(case, 0)
    [y] = run_golden(load_golden(case.golden), case, inputs)
    np.testing.assert_array_equal(y, inputs["var"] * 2)


def test_constant_input_value_sets_its_shape(tmp_path):
    """A `value` list is the data passed; when its size disagrees with `shape`, its own shape wins."""
    ins = [{"name": "dims", "type": "int64", "shape": [1], "value": [1, 2, 3, 4]},
           {"name": "v", "type": "float16", "shape": [1], "value": [[0.5]]}]
    [case] = load_case_file(write_cases(tmp_path, [simple_case(input_desc=ins)]))
    assert case.inputs[0].shape == (4,) and case.inputs[1].shape == (1,)
    data = make_inputs(case, 0)
    np.testing.assert_array_equal(data["dims"], np.array([1, 2, 3, 4], np.int64))
    assert data["v"].shape == (1,) and data["v"][0] == np.float16(0.5)


def test_undefined_type_leaves_an_optional_input_out(tmp_path):
    ins = [{"name": "x", "type": "float", "shape": [4]},
           {"name": "bias", "type": ["UNDEFINED"], "format": ["UNDEFINED"], "shape": []}]
    [case] = load_case_file(write_cases(tmp_path, [simple_case(input_desc=ins)]))
    assert [t.name for t in case.inputs] == ["x"]


def test_golden_without_a_parameter_for_an_attr(tmp_path):
    """msopst passes only the attributes a golden names; one it does not take is left out."""
    (tmp_path / "g.py").write_text("def calc_expect_func(x, y):\n    return [x['value'] + 1]\n")
    attr = [{"name": "reduction", "type": "str", "value": "mean"}]
    [case] = load_case_file(write_cases(tmp_path, [simple_case(attr=attr, calc_expect_func_file="g.py")]))
    inputs = make_inputs(case, 0)
    [y] = run_golden(load_golden(case.golden), case, inputs)
    np.testing.assert_array_equal(y, inputs["x"] + 1)
