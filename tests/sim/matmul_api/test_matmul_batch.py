"""Matmul IterateBatch (NORMAL layout, GM in and out) against numpy: the cube-only form on an AIC
(SetBatchNum, then enPartialSum / enAtomic in the batch arguments' places, an explicit A stride)
and the mixed-mode form on the vector core (batch counts as arguments), each with equal and
broadcast batches; and the asynchronous flow on the vector core (Iterate<false>, then one
GetTensorC() per block, cached in the SetWorkspace workspace, placed by GetOffsetC)."""
from __future__ import annotations

from ...conftest import FIXTURE_OPS
from .fixture_cases import assert_cases_pass


def test_iterate_batch_matches_numpy(backend):
    assert_cases_pass(backend, FIXTURE_OPS / "matmul_batch")
