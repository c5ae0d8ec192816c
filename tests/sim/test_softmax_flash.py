"""SoftmaxFlashV2 (softmax_flash.h) with its kernel-side tiling functions and ShapeInfo: two
passes over the column halves of each row (no update, then update with the first pass's max and
sum) give the whole row's statistics; the SoftmaxFlashRows fixture against numpy."""

from __future__ import annotations

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import check_operator
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS


def test_two_flash_passes_match_numpy(backend):
    op = Operator.load(FIXTURE_OPS / "softmax_flash_rows")
    res = check_operator(backend, op, load_op_cases(FIXTURE_OPS / "softmax_flash_rows"))
    assert res and all(r.status == "ok" for r in res), [(r.name, r.status, r.message[:2000]) for r in res]
