"""PopStackBuffer (stack_buffer.h): a tensor over the rest of UB after the pipe's allocations,
the pipe untouched; and the pointer-level *Impl functions (impl_ptr_forms.h) that kernels call on
__ubuf__ / __gm__ pointers, run as the public APIs: DuplicateImpl (count form),
DataCopyUB2GMImpl, DataCopyPadGm2UBImpl (padded rows), DataCopyPadUB2GMImpl. The driver also
checks the toolkit's element-size constants (B32_BYTE_SIZE, B32_DATA_NUM_PER_BLOCK, ...) at
compile time and DropOutShapeInfo's documented fields."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ..unit_build import unit_exe, unit_fails, unit_rows

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def exe(tmp_path_factory) -> Path:
    return unit_exe(HERE / "stack_impl_unit.cpp", tmp_path_factory.mktemp("stack_impl"))


@pytest.fixture(scope="module")
def rows(exe) -> dict[str, np.ndarray]:
    return unit_rows(exe)


def test_pop_stack_buffer_is_the_rest_of_ub(rows):
    ok, addr, size, ub = rows["pop"]
    assert ok == 1 and addr == 1024  # after the 1000-byte TBuf, rounded to 32 bytes
    assert size * 2 == ub - 1024  # int16 elements up to UB's end


def test_dropout_shape_info_starts_at_zero(rows):
    np.testing.assert_array_equal(rows["dropout_info"], [0, 0, 0])


def test_duplicate_impl_count_form(rows):
    np.testing.assert_array_equal(rows["dup"][:300], 7)
    np.testing.assert_array_equal(rows["dup"][300:], -1)


def test_copy_impl_forms(rows):
    want = np.zeros(330)
    want[:300] = 7
    want[300:320] = -1  # 20 blocks of 16 int16 = 320 elements, the rest of GM untouched
    np.testing.assert_array_equal(rows["ub2gm"], want)
    src = np.arange(24) + 0.5
    pad = np.full(32, 9.0)
    pad[0:10] = src[0:10]  # row 0: GM [0, 10)
    pad[16:26] = src[12:22]  # row 1: GM [12, 22) (srcStride 8 bytes), UB row 16 floats on
    np.testing.assert_array_equal(rows["pad"][np.r_[0:16, 16:32]], pad)


@pytest.mark.parametrize("name, kind", [("pop_full_ub", "ub_overflow"),
                                        ("pop_read_past_ub", "ub_overflow"),
                                        ("impl_outside_ub", "local_out_of_bounds")])
def test_failures(exe, name, kind):
    unit_fails(exe, name, kind)
