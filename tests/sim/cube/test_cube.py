"""Unit tests of the emulated cube path (Nd2Nz, LoadData, Mmad, Fixpipe) against numpy.

The C++ driver cube_unit.cpp is compiled once per session together with the kernel runtime; each
test writes raw inputs, runs one command on one emulated core and compares the raw output with a
numpy re-implementation of the documented data formats.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ascendopt.backends.sim.build import KERNEL_RUNTIME_SOURCES

from ..unit_build import assert_hazard

HERE = Path(__file__).resolve().parent
SIM = HERE.parents[2] / "src" / "ascendopt" / "backends" / "sim"
INCLUDE = SIM / "include"
RUNTIME = SIM / "runtime"


@pytest.fixture(scope="session")
def cube_bin(tmp_path_factory) -> Path:
    if shutil.which("g++") is None:
        pytest.skip("g++ not available")
    if not (INCLUDE / "ascendopt_kernel" / "testing.h").exists():
        pytest.skip("runtime test helpers (ascendopt_kernel/testing.h) not available")
    out = tmp_path_factory.mktemp("cube_bin") / "cube_unit"
    sources = [HERE / "cube_unit.cpp", *(RUNTIME / s for s in KERNEL_RUNTIME_SOURCES)]
    cmd = ["g++", "-std=c++17", "-O1", f"-I{INCLUDE}", f"-I{RUNTIME}", *map(str, sources), "-lpthread", "-o", str(out)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-4000:]
    return out


class Runner:
    def __init__(self, exe: Path, tmp: Path):
        self.exe, self.tmp = exe, tmp

    def __call__(self, cmd: str, inputs: list[np.ndarray], expect_error: str | None = None, **kw) -> bytes:
        for i, arr in enumerate(inputs):
            (self.tmp / f"in{i}.bin").write_bytes(np.ascontiguousarray(arr).tobytes())
        args = [str(self.exe), cmd, str(self.tmp)] + [f"{k}={int(v) if isinstance(v, bool) else v}" for k, v in kw.items()]
        res = subprocess.run(args, capture_output=True, text=True, timeout=60)
        if expect_error is not None:
            assert_hazard(res, expect_error)
            return b""
        assert res.returncode == 0, res.stderr
        return (self.tmp / "out.bin").read_bytes()


@pytest.fixture
def run(cube_bin, tmp_path) -> Runner:
    return Runner(cube_bin, tmp_path)


rng = np.random.default_rng(1234)
DT = {"f16": np.float16, "f32": np.float32, "i8": np.int8, "bf16": np.uint16, "i32": np.int32}


# ------------------------------------------------------------------------------------------ numpy models
def c0_of(dtype) -> int:
    return 32 // np.dtype(dtype).itemsize


def nd2nz_ref(src: np.ndarray, dst: np.ndarray, p: dict) -> np.ndarray:
    """ND -> NZ as documented: row r, column block c of ND matrix i goes to
    i*dstNzMatrixStride + r*dstNzNStride*C0 + c*dstNzC0Stride*C0, zero-padded to C0."""
    c0 = c0_of(src.dtype)
    out = dst.copy()
    dblocks = -(-p["dValue"] // c0)
    for i in range(p["ndNum"]):
        for r in range(p["nValue"]):
            row = src[i * p["srcNdMatrixStride"] + r * p["srcDValue"]:][: p["dValue"]]
            padded = np.zeros(dblocks * c0, dtype=src.dtype)
            padded[: p["dValue"]] = row
            for c in range(dblocks):
                o = i * p["dstNzMatrixStride"] + r * p["dstNzNStride"] * c0 + c * p["dstNzC0Stride"] * c0
                out[o:o + c0] = padded[c * c0:(c + 1) * c0]
    return out


def nz_from_nd(mat: np.ndarray, rows_aligned: int) -> np.ndarray:
    """ND [R, D] -> L1 NZ with dstNzC0Stride = rows_aligned (padding rows zero)."""
    c0 = c0_of(mat.dtype)
    r, d = mat.shape
    dA = -(-d // c0) * c0
    padded = np.zeros((rows_aligned, dA), dtype=mat.dtype)
    padded[:r, :d] = mat
    return padded.reshape(rows_aligned, dA // c0, c0).transpose(1, 0, 2).reshape(-1)


def zz_from_nd(a: np.ndarray) -> np.ndarray:
    """A [m, k] -> L0A zZ: fractals 16 x C0, row-major inside and between fractals."""
    c0 = c0_of(a.dtype)
    m, k = a.shape
    mA, kA = -(-m // 16) * 16, -(-k // c0) * c0
    p = np.zeros((mA, kA), dtype=a.dtype)
    p[:m, :k] = a
    return p.reshape(mA // 16, 16, kA // c0, c0).transpose(0, 2, 1, 3).reshape(-1)


def nz_b_from_nd(b: np.ndarray) -> np.ndarray:
    """B [k, n] -> L0B nZ: fractals C0 (k) x 16 (n), column-major inside, row-major between fractals."""
    c0 = c0_of(b.dtype)
    k, n = b.shape
    kA, nA = -(-k // c0) * c0, -(-n // 16) * 16
    p = np.zeros((kA, nA), dtype=b.dtype)
    p[:k, :n] = b
    # fractal (kb, nb), inside element (ni, ki) row-major == column-major (ki, ni)
    return p.reshape(kA // c0, c0, nA // 16, 16).transpose(0, 2, 3, 1).reshape(-1)


def l0c_from_nd(c: np.ndarray) -> np.ndarray:
    m, n = c.shape
    mA, nA = -(-m // 16) * 16, -(-n // 16) * 16
    p = np.zeros((mA, nA), dtype=c.dtype)
    p[:m, :n] = c
    return p.reshape(mA // 16, 16, nA // 16, 16).transpose(2, 0, 1, 3).reshape(-1)


def nd_from_l0c(flat: np.ndarray, m: int, n: int) -> np.ndarray:
    mA, nA = -(-m // 16) * 16, -(-n // 16) * 16
    return flat[: mA * nA].reshape(nA // 16, mA // 16, 16, 16).transpose(1, 2, 0, 3).reshape(mA, nA)[:m, :n]


# ------------------------------------------------------------------------------------------ Nd2Nz
@pytest.mark.parametrize("t", ["f16", "f32", "i8"])
def test_nd2nz_single_matrix_with_padding(run, t):
    dt = DT[t]
    c0 = c0_of(dt)
    rows, cols, pitch = 20, 3 * c0 + 5, 4 * c0 + 3  # unaligned width and source pitch
    src = (rng.integers(-100, 100, size=rows * pitch)).astype(dt)
    p = dict(ndNum=1, nValue=rows, dValue=cols, srcNdMatrixStride=0, srcDValue=pitch, dstNzC0Stride=32,
             dstNzNStride=1, dstNzMatrixStride=0)
    dst_elems = 4 * 32 * c0
    out = np.frombuffer(run("nd2nz", [src], t=t, dst_bytes=dst_elems * np.dtype(dt).itemsize, **p), dtype=dt)
    init = np.frombuffer(bytes([0xAB]) * (dst_elems * np.dtype(dt).itemsize), dtype=dt)
    np.testing.assert_array_equal(out, nd2nz_ref(src, init, p))


def test_nd2nz_multi_matrix_strides_and_ub_source(run):
    dt = np.float16
    src = rng.standard_normal(3 * 200).astype(dt)
    p = dict(ndNum=3, nValue=5, dValue=24, srcNdMatrixStride=200, srcDValue=40, dstNzC0Stride=11,
             dstNzNStride=2, dstNzMatrixStride=400)
    nbytes = 1400 * 2
    init = np.frombuffer(bytes([0xAB]) * nbytes, dtype=dt)
    ref = nd2nz_ref(src, init, p)
    for from_ub in (0, 1):
        out = np.frombuffer(run("nd2nz", [src], t="f16", dst_bytes=nbytes, from_ub=from_ub, **p), dtype=dt)
        np.testing.assert_array_equal(out.view(np.uint16), ref.view(np.uint16))


def test_nd2nz_gm_out_of_bounds(run):
    src = np.zeros(64, dtype=np.float16)
    run("nd2nz", [src], expect_error="gm_out_of_bounds", t="f16", dst_bytes=4096, ndNum=1, nValue=16,
        dValue=16, srcDValue=16, dstNzC0Stride=16, dstNzNStride=1)


def test_nd2nz_local_out_of_bounds(run):
    src = np.zeros(16 * 64, dtype=np.float16)
    run("nd2nz", [src], expect_error="local_write_outside_buffer", t="f16", dst_bytes=1024, ndNum=1, nValue=16,
        dValue=64, srcDValue=64, dstNzC0Stride=16, dstNzNStride=1)


# ------------------------------------------------------------------------------------------ LoadData
def load2d_ref(src: bytes, dst_bytes: int, start, rep, src_stride, dst_gap, transpose, itemsize=2) -> bytes:
    out = bytearray([0xAB]) * dst_bytes
    for i in range(rep):
        frac = src[(start + i * src_stride) * 512:][:512]
        if transpose:
            frac = np.frombuffer(frac, dtype=np.uint16).reshape(16, 16).T.tobytes()
        o = i * (1 + dst_gap) * 512
        out[o:o + 512] = frac
    return bytes(out)


@pytest.mark.parametrize("dst,transpose", [("a2", False), ("b2", True), ("b2", False)])
def test_load2d_strided(run, dst, transpose):
    src = rng.integers(0, 65535, size=16 * 256, dtype=np.uint16).view(np.float16)
    kw = dict(startIndex=2, repeatTimes=4, srcStride=3, dstGap=1)
    out = run("load2d", [src], t="f16", dst=dst, dst_bytes=8 * 512, ifTranspose=transpose, **kw)
    assert out == load2d_ref(src.tobytes(), 8 * 512, 2, 4, 3, 1, transpose)


def test_load2d_from_gm(run):
    src = rng.integers(-128, 127, size=8 * 512, dtype=np.int8)
    out = run("load2d", [src], t="i8", dst="a2", dst_bytes=4 * 512, from_gm=1, startIndex=1, repeatTimes=2,
              srcStride=3, dstGap=1)
    assert out == load2d_ref(src.tobytes(), 4 * 512, 1, 2, 3, 1, False)


def test_load2d_errors(run):
    src = np.zeros(4 * 256, dtype=np.float16)
    run("load2d", [src], expect_error="misaligned", t="f16", dst="a2", dst_bytes=2048, dst_off=16, repeatTimes=1)
    run("load2d", [src], expect_error="local_write_outside_buffer", t="f16", dst="a2", dst_bytes=1024, repeatTimes=3,
        srcStride=1)
    run("load2d", [np.zeros(1024, dtype=np.float32)], expect_error="invalid_argument", t="f32", dst="b2",
        dst_bytes=2048, repeatTimes=1, ifTranspose=1)


@pytest.mark.parametrize("t", ["f16", "i8", "f32"])
def test_load_with_transpose(run, t):
    dt = DT[t]
    side = 32 if t == "i8" else 16
    sq = side * side  # elements per square block
    src = rng.integers(-100, 100, size=3 * sq).astype(dt)
    out = np.frombuffer(run("load2d", [src], t=t, dst="b2", dst_bytes=8 * 512, trans2d=1, startIndex=0,
                            repeatTimes=3, srcStride=1, dstGap=0 if t == "f16" else 1, dstFracGap=0), dtype=dt)
    fr = 512 // np.dtype(dt).itemsize
    for i in range(3):
        blk = src[i * sq:(i + 1) * sq]
        if t == "f32":  # two side-by-side 16x8 fractals
            s = np.concatenate([blk[:128].reshape(16, 8), blk[128:].reshape(16, 8)], axis=1)
            tr = s.T
            frs = [tr[:, :8].reshape(-1), tr[:, 8:].reshape(-1)]
        else:  # stacked fractals (i8) or a single fractal (f16), row-major square
            tr = blk.reshape(side, side).T
            frs = [tr[j * 16:(j + 1) * 16].reshape(-1) for j in range(side // 16)]
        pitch = 1 if t == "f16" else 2
        for j, f in enumerate(frs):
            o = (i * pitch + j) * fr
            np.testing.assert_array_equal(out[o:o + fr], f)


@pytest.mark.parametrize("t", ["f16", "f32", "i8"])
def test_load3dv2_matmul_form(run, t):
    dt = DT[t]
    c0 = c0_of(dt)
    m, k = 40, 3 * c0
    mA = 48
    a = rng.integers(-100, 100, size=(m, k)).astype(dt)
    l1 = nz_from_nd(a, mA)
    # window: rows 16..47, channels c0..3*c0 -> zZ of a[16:48, c0:3c0] (rows >= 40 are padding)
    out = np.frombuffer(run("load2d", [l1], t=t, dst="a2", dst_bytes=32 * 2 * c0 * np.dtype(dt).itemsize,
                            load3d=1, l1H=mA, l1W=1, channelSize=k, kExtension=2 * c0, mExtension=32, kStartPt=c0,
                            mStartPt=16), dtype=dt)
    padded = np.zeros((mA, k), dtype=dt)
    padded[:m] = a
    np.testing.assert_array_equal(out, zz_from_nd(padded[16:48, c0:3 * c0]))
    run("load2d", [l1], expect_error="unsupported", t=t, dst="a2", dst_bytes=4096, load3d=1, l1H=mA, l1W=1,
        channelSize=k, kExtension=c0, mExtension=16, filterW=3)


# ------------------------------------------------------------------------------------------ Mmad
def bf16_bits(x: np.ndarray) -> np.ndarray:
    u = x.astype(np.float32).view(np.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_value(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


@pytest.mark.parametrize("t", ["f16", "bf16", "f32", "i8"])
@pytest.mark.parametrize("m,n,k", [(16, 16, 32), (37, 50, 70)])
def test_mmad_init_and_accumulate(run, t, m, n, k):
    if t == "i8":
        a = rng.integers(-128, 128, size=(m, k)).astype(np.int8)
        b = rng.integers(-128, 128, size=(k, n)).astype(np.int8)
        av, bv = a.astype(np.int64), b.astype(np.int64)
        a_l0, b_l0 = zz_from_nd(a), nz_b_from_nd(b)
        cdt = np.int32
    elif t == "bf16":
        a = bf16_bits(rng.standard_normal((m, k)))
        b = bf16_bits(rng.standard_normal((k, n)))
        av, bv = bf16_value(a).astype(np.float64), bf16_value(b).astype(np.float64)
        # bf16 has C0 = 16 like f16: lay out the raw bits as 2-byte elements
        a_l0, b_l0 = zz_from_nd(a.view(np.float16)), nz_b_from_nd(b.view(np.float16))
        cdt = np.float32
    else:
        dt = DT[t]
        a = rng.standard_normal((m, k)).astype(dt)
        b = rng.standard_normal((k, n)).astype(dt)
        av, bv = a.astype(np.float64), b.astype(np.float64)
        a_l0, b_l0 = zz_from_nd(a), nz_b_from_nd(b)
        cdt = np.float32
    c0 = (rng.integers(-50, 50, size=(m, n)) if t == "i8" else rng.standard_normal((m, n))).astype(cdt)
    c_l0 = l0c_from_nd(c0)
    expect = av @ bv
    for init in (1, 0):
        out = np.frombuffer(run("mmad", [a_l0, b_l0, c_l0], t=t, m=m, n=n, k=k, init=init,
                                c_bytes=c_l0.nbytes), dtype=cdt)
        got = nd_from_l0c(out, m, n)
        want = expect if init else expect + c0.astype(np.float64 if cdt == np.float32 else np.int64)
        if cdt == np.int32:
            np.testing.assert_array_equal(got, want.astype(np.int32))
        else:
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


def test_mmad_bias_table(run):
    m, n, k = 20, 32, 16
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    bias = rng.standard_normal(n).astype(np.float32)
    c_l0 = np.zeros(2 * 2 * 256, dtype=np.float32)
    out = np.frombuffer(run("mmad", [zz_from_nd(a), nz_b_from_nd(b), c_l0, bias], t="f16", m=m, n=n, k=k, bias=1,
                            c_bytes=c_l0.nbytes), dtype=np.float32)
    want = a.astype(np.float64) @ b.astype(np.float64) + bias
    np.testing.assert_allclose(nd_from_l0c(out, m, n), want, rtol=1e-5, atol=1e-4)


def test_mmad_errors(run):
    z = np.zeros(2048, dtype=np.uint8)
    run("mmad", [z, z, z], expect_error="unsupported", t="u8i32", m=16, n=16, k=32, c_bytes=1024)
    run("mmad", [z, z, z], expect_error="local_write_outside_buffer", t="f16", m=32, n=32, k=32, c_bytes=1024)


# ------------------------------------------------------------------------------------------ Fixpipe
@pytest.mark.parametrize("quant,dst", [("none", "f32"), ("f16", "f16"), ("bf16", "bf16")])
def test_fixpipe_nz2nd(run, quant, dst):
    m, n, dst_stride = 37, 50, 64
    c = rng.standard_normal((m, n)).astype(np.float32) * 4
    c[0, :3] = [-1.5, 2.0, -0.0]
    l0c = l0c_from_nd(c)
    gm_elems = (m - 1) * dst_stride + n + 10
    raw = run("fixpipe", [l0c], src="f32", dst=dst, quant=quant, nSize=n, mSize=m, srcStride=48,
              dstStride=dst_stride, relu=1, gm_elems=gm_elems)
    relu = np.maximum(c, 0)
    if dst == "bf16":
        got = np.frombuffer(raw, dtype=np.uint16)
        want_rows = bf16_bits(relu)
        fill = np.uint16(0xCDCD)
    else:
        odt = np.float32 if dst == "f32" else np.float16
        got = np.frombuffer(raw, dtype=odt).view(np.uint32 if dst == "f32" else np.uint16)
        want_rows = relu.astype(odt).view(np.uint32 if dst == "f32" else np.uint16)
        fill = np.frombuffer(bytes([0xCD]) * np.dtype(odt).itemsize, dtype=got.dtype)[0]
    want = np.full(gm_elems, fill, dtype=got.dtype)
    for r in range(m):
        want[r * dst_stride:r * dst_stride + n] = want_rows[r]
    np.testing.assert_array_equal(got, want)


def test_fixpipe_ndnum_and_nz_and_l1(run):
    # two 16x32 NZ matrices 1024 B apart (srcNdStride=2 -> 2048 B) into ND matrices 600 elements apart
    m, n = 16, 32
    mats = [rng.standard_normal((m, n)).astype(np.float32) for _ in range(2)]
    l0c = np.concatenate([l0c_from_nd(x) for x in mats])
    raw = run("fixpipe", [l0c], src="f32", dst="f32", nSize=n, mSize=m, srcStride=16, dstStride=n, ndNum=2,
              srcNdStride=2, dstNdStride=600, gm_elems=1200)
    got = np.frombuffer(raw, dtype=np.float32)
    for i in range(2):
        np.testing.assert_array_equal(got[i * 600:i * 600 + m * n].reshape(m, n), mats[i])
    # CFG_NZ keeps fractals: Z columns 2 x 32 B apart for half
    c = rng.standard_normal((m, n)).astype(np.float32)
    raw = run("fixpipe", [l0c_from_nd(c)], src="f32", dst="f16", quant="f16", nSize=n, mSize=m, srcStride=16,
              dstStride=20, nz=1, gm_elems=2 * 320)
    got = np.frombuffer(raw, dtype=np.float16)
    for nb in range(2):
        blk = got[nb * 320:nb * 320 + 256].reshape(16, 16)
        np.testing.assert_array_equal(blk, c[:, nb * 16:(nb + 1) * 16].astype(np.float16))
    # CO1 -> L1
    raw = run("fixpipe", [l0c_from_nd(c)], src="f32", dst="f32", nSize=n, mSize=m, srcStride=16, dstStride=n,
              to_l1=1, gm_elems=m * n)
    np.testing.assert_array_equal(np.frombuffer(raw, dtype=np.float32).reshape(m, n), c)


def test_fixpipe_int32_quant(run):
    m, n = 16, 16
    c = rng.integers(-3000, 3000, size=(m, n)).astype(np.int32)
    raw = run("fixpipe", [l0c_from_nd(c)], src="i32", dst="f16", quant="deqf16", scale=0.125, nSize=n, mSize=m,
              srcStride=16, dstStride=n, gm_elems=m * n)
    np.testing.assert_array_equal(np.frombuffer(raw, dtype=np.float16).reshape(m, n), (c * 0.125).astype(np.float16))
    raw = run("fixpipe", [l0c_from_nd(c)], src="i32", dst="i8", quant="req8", scale=0.0625, nSize=n, mSize=m,
              srcStride=16, dstStride=n, gm_elems=m * n)
    want = np.clip(np.rint(c * 0.0625), -128, 127).astype(np.int8)
    np.testing.assert_array_equal(np.frombuffer(raw, dtype=np.int8).reshape(m, n), want)


def test_fixpipe_errors(run):
    c = np.zeros(1024, dtype=np.float32)
    run("fixpipe", [c], expect_error="invalid_argument", src="f32", dst="f16", quant="none", nSize=16, mSize=16,
        srcStride=16, dstStride=16, gm_elems=256)
    run("fixpipe", [c], expect_error="gm_out_of_bounds", src="f32", dst="f32", nSize=16, mSize=16, srcStride=16,
        dstStride=16, gm_elems=200)


# ------------------------------------------------------------------------------------------ pipeline
@pytest.mark.parametrize("M,N,K,baseK,out,trans2d", [(64, 64, 64, 64, "f32", 0), (37, 50, 70, 32, "f16", 0),
                                                      (48, 40, 96, 48, "f32", 1)])
def test_pipeline_matmul(run, M, N, K, baseK, out, trans2d):
    a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    raw = run("pipeline", [a, b], M=M, N=N, K=K, baseK=baseK, out=out, trans2d=trans2d)
    want = a.astype(np.float32) @ b.astype(np.float32)
    if out == "f16":
        got = np.frombuffer(raw, dtype=np.float16).reshape(M, N).astype(np.float32)
        np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3)
    else:
        np.testing.assert_allclose(np.frombuffer(raw, dtype=np.float32).reshape(M, N), want, rtol=1e-5, atol=1e-5)
