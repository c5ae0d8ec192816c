"""An operator that includes files of a sibling operator directory by a relative path
(cann-ops: ``#include "../../mat_mul_v3/op_host/mat_mul_v3_tiling.h"``) builds as in its
repository: the quoted include resolves where the operator sits, on the host and kernel side,
and the operator's identity covers the sibling files. The fixture is our scale_copy with its
tiling header and kernel body moved to a sibling directory ``cat/base_op``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import CheckConfig, check_operator
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS


@pytest.fixture(scope="module")
def sibling_op(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("repo") / "src"
    (src / "common" / "inc").mkdir(parents=True)
    op = src / "cat" / "scale_copy"
    shutil.copytree(FIXTURE_OPS / "scale_copy", op)
    base = src / "cat" / "base_op"
    (base / "op_host").mkdir(parents=True)
    (base / "op_kernel").mkdir(parents=True)
    (base / "op_host" / "scale_copy_tiling.h").write_text((op / "op_host" / "scale_copy_tiling.h").read_text())
    (op / "op_host" / "scale_copy_tiling.h").write_text(
        '#pragma once\n#include "../../base_op/op_host/scale_copy_tiling.h"\n')
    text = (op / "op_kernel" / "scale_copy.cpp").read_text()
    head, entry = text.split('extern "C"', 1)
    (base / "op_kernel" / "scale_body.h").write_text("#pragma once\n" + head)
    (op / "op_kernel" / "scale_copy.cpp").write_text(
        '#include "kernel_operator.h"\n#include "../../base_op/op_kernel/scale_body.h"\n\nextern "C"' + entry)
    return op


def test_sibling_files_are_external_files_of_the_operator(sibling_op):
    op = Operator.load(sibling_op)
    assert sorted(p.name for p in op.external_files()) == ["scale_body.h", "scale_copy_tiling.h"]
    assert op.tiling_struct == "ScaleCopyTilingData"


def test_builds_and_passes_its_cases(backend, sibling_op):
    op = Operator.load(sibling_op)
    cases = load_op_cases(sibling_op)
    results = check_operator(backend, op, cases, cfg=CheckConfig(timeout_s=60.0))
    assert [r.status for r in results] == ["ok"] * len(cases), [r.message[:2000] for r in results]


def test_an_edit_to_the_sibling_reaches_the_build(backend, sibling_op, tmp_path):
    work = tmp_path / "src"
    shutil.copytree(sibling_op.parent.parent, work)
    op_dir = work / "cat" / "scale_copy"
    a = Operator.load(op_dir)
    digest_a = a.digest  # (computed lazily: take it before the edit)
    body = work / "cat" / "base_op" / "op_kernel" / "scale_body.h"
    # the kernel body now scales by 3: the operator's own sources are the same, its build is not
    body.write_text(body.read_text().replace("2.0f", "3.0f"))
    b = Operator.load(op_dir)
    assert a.files == b.files and digest_a != b.digest
    ra = backend.build(a, {"x": "float32", "y": "float32"})
    rb = backend.build(b, {"x": "float32", "y": "float32"})
    assert ra.ok and rb.ok and ra.key != rb.key
    results = check_operator(backend, b, load_op_cases(op_dir), cfg=CheckConfig(timeout_s=60.0))
    assert all(r.status == "wrong_result" for r in results), [r.status for r in results]
