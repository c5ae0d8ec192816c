"""Toolkit internals and utilities kernels call directly (intrinsics.h, init.h, copy.h,
gather_mask.h) against numpy references of the documented semantics. One run of api_unit
prints every input and output row; failure cases must end with the typed simulator error."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ascendopt.backends.sim.build import INCLUDE_DIR, KERNEL_RUNTIME_SOURCES, RUNTIME_DIR

from .conftest import assert_fails

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def exe(tmp_path_factory) -> Path:
    if shutil.which("g++") is None:
        pytest.skip("g++ not available")
    out = tmp_path_factory.mktemp("api") / "api_unit"
    srcs = [str(HERE / "api_unit.cpp"), *(str(RUNTIME_DIR / s) for s in KERNEL_RUNTIME_SOURCES)]
    res = subprocess.run(["g++", "-std=c++17", "-O1", "-pthread", "-I", str(INCLUDE_DIR), "-I", str(RUNTIME_DIR),
                          *srcs, "-o", str(out)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-6000:]
    return out


@pytest.fixture(scope="module")
def rows(exe) -> dict[str, np.ndarray]:
    res = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-3000:]
    return {ln.split()[0]: np.array([float(v) for v in ln.split()[1:]]) for ln in res.stdout.splitlines()}


def scalar(rows, name):
    [v] = rows[name]
    return v


# ------------------------------------------------------------------------------ scalar helpers
def test_scalar_helpers(rows):
    assert scalar(rows, "own_alignup") == 1048  # a kernel's own AlignUp<T>(T, T) wins, no ambiguity
    assert scalar(rows, "mixed_alignup") == 48
    assert scalar(rows, "divceil") == 9
    assert scalar(rows, "block_bytes") == 32
    assert scalar(rows, "c0_count") == 16
    assert scalar(rows, "same_type") == 1
    assert scalar(rows, "min_max") == 37
    assert np.float32(scalar(rows, "sqrt")) == np.sqrt(np.float32(2))
    assert scalar(rows, "block_idx") == 110  # block 0 of 1: block_idx + 10 * get_block_num() + 100 * block_num
    assert scalar(rows, "likely") == 1
    assert scalar(rows, "bitcode") == 0x3C00


def test_get_acc_val_reads_the_last_reduce_sum(rows):
    x = rows["acc_x"].astype(np.float32)
    assert scalar(rows, "acc_val") == pytest.approx(float(x.sum(dtype=np.float64)), rel=1e-6)
    assert scalar(rows, "acc_val") == scalar(rows, "acc_dst")


# ------------------------------------------------------------------------------ init
def test_init_global_memory_and_init_output(rows):
    exp = np.full(100, -1.0)
    exp[:70] = 2.5
    exp[80:90] = 0.0
    np.testing.assert_array_equal(rows["init_f32"], exp)
    exph = np.full(48, -1.0)
    exph[:33] = 3.0
    np.testing.assert_array_equal(rows["init_f16"], exph)


# ------------------------------------------------------------------------------ Copy
def strided_idx(r, k, es, blk_stride, rep_stride):
    per_blk = 32 // es
    return r * rep_stride * per_blk + (k // per_blk) * blk_stride * per_blk + k % per_blk


def copy_ref(n, es, active, repeats, dst_blk, src_blk, dst_rep, src_rep):
    src = np.arange(n, dtype=np.float64)
    d = np.full(n, -1.0)
    for r in range(repeats):
        for k in range(256 // es):
            if active(k):
                d[strided_idx(r, k, es, dst_blk, dst_rep)] = src[strided_idx(r, k, es, src_blk, src_rep)]
    return d


def test_copy_continuous_mask_with_strides(rows):
    np.testing.assert_array_equal(rows["copy_cont"], copy_ref(512, 4, lambda k: k < 40, 3, 2, 1, 16, 8))


def test_copy_bit_mask_16_bit(rows):
    words = [0xF0F0F0F0F0F0F0F0, 0x3]
    active = lambda k: (words[k // 64] >> (k % 64)) & 1
    np.testing.assert_array_equal(rows["copy_bits"], copy_ref(512, 2, active, 2, 1, 2, 8, 16))


def test_copy_counter_mode_counts_per_repeat(rows):
    np.testing.assert_array_equal(rows["copy_counter"], copy_ref(512, 4, lambda k: k < 20, 3, 1, 1, 8, 8))


# ------------------------------------------------------------------------------ GatherMask
def gather_ref(src, es, per, repeats, blk_stride, rep_stride, keep):
    out = [src[strided_idx(r, k, es, blk_stride, rep_stride)] for r in range(repeats) for k in range(per) if keep(r, k)]
    return np.array(out)


def check_gather(rows, name, src, es, per, repeats, blk, rep, keep):
    got, cnt = rows[name], scalar(rows, name + "_cnt")
    exp = gather_ref(src, es, per, repeats, blk, rep, keep)
    assert cnt == len(exp)
    np.testing.assert_array_equal(got[:len(exp)], exp)
    assert (got[len(exp):] == -1).all()


def test_gather_mask_builtin_patterns(rows):
    src = np.arange(512, dtype=np.float64)
    check_gather(rows, "gm_odd", src, 4, 64, 3, 1, 8, lambda r, k: k % 2 == 1)          # normal mode
    check_gather(rows, "gm_third", src, 4, 40, 2, 1, 16, lambda r, k: k % 4 == 2)       # counter: 40 per repeat
    assert scalar(rows, "gm_remain") == scalar(rows, "gm_third_cnt")


def test_gather_mask_user_pattern(rows):
    src = np.arange(512, dtype=np.float64)
    bits = np.unpackbits(rows["gm_user_pat"].astype(np.uint16).view(np.uint8), bitorder="little")
    # normal mode, 128 halves per repeat, the pattern of repeat r starts 1 block (256 bits) further
    check_gather(rows, "gm_user", src, 2, 128, 2, 1, 8, lambda r, k: bits[r * 256 + k])
    # counter mode, 50 elements per repeat, src1RepeatStride 0: every repeat reuses the first bits
    check_gather(rows, "gm_user_counter", src, 2, 50, 2, 1, 4, lambda r, k: bits[k])


# ------------------------------------------------------------------------------ misc vector APIs
def test_own_ceildiv_wins_and_mixed_types(rows):
    assert scalar(rows, "own_ceildiv") == 509
    assert scalar(rows, "mixed_ceildiv") == 9


def test_repeat_reduce_sum(rows):
    x = rows["rrs_x"].astype(np.float32)
    exp = np.full(16, -1.0)
    exp[:4] = [x[r * 64: r * 64 + 48].sum(dtype=np.float64) for r in range(4)]  # mask 48 from SetMask
    np.testing.assert_allclose(rows["rrs"], exp, rtol=1e-6)
    xh = rows["rrs_xh"].astype(np.float16)
    exph = np.full(16, -1.0)
    exph[0], exph[2] = xh[:100].astype(np.float64).sum(), xh[128:228].astype(np.float64).sum()  # dstRepStride 2
    np.testing.assert_allclose(rows["rrs_h"], exph, rtol=2e-3)


def test_create_vec_index(rows):
    np.testing.assert_array_equal(rows["vec_index_i32"], np.r_[np.arange(5, 55), np.full(14, -1)])
    np.testing.assert_array_equal(rows["vec_index_f32"], np.r_[np.arange(40) + 0.5, np.full(24, -1)])


def test_broadcast(rows):
    src = np.arange(16) + 0.25
    np.testing.assert_array_equal(rows["bc_axis1"], np.repeat(src[:3], 16))
    np.testing.assert_array_equal(rows["bc_axis0_inplace"], np.tile(np.arange(16.0), 4))
    np.testing.assert_array_equal(rows["bc_dim1"], np.full(24, src[8]))


def test_set_deq_scale_scales_int32_to_half_casts(rows):
    exp = (rows["deq_in"] * 0.5).astype(np.float16).astype(np.float64)
    np.testing.assert_array_equal(rows["deq_half"], exp)


def test_get_max_min_cnt(rows):
    x = (np.arange(64) * 13) % 64
    assert scalar(rows, "maxmin_value") == x.max()
    assert scalar(rows, "maxmin_index") == int(np.argmax(x))


# ------------------------------------------------------------------------------ failures
@pytest.mark.parametrize("case, kind", [
    ("set_flag_bad_event", "invalid_argument"),
    ("copy_misaligned", "misaligned"),
    ("copy_out_of_bounds", "local_write_outside_buffer"),
    ("gather_mask_bad_pattern", "invalid_argument"),
    ("gather_mask_out_of_bounds", "local_write_outside_buffer"),
    ("init_gm_out_of_bounds", "gm_out_of_bounds"),
    ("broadcast_bad_shape", "invalid_argument"),
    ("broadcast_out_of_bounds", "local_write_outside_buffer"),
])
def test_failures_are_typed(exe, case, kind):
    assert_fails(exe, case, kind)
