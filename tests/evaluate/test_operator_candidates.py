"""Candidates are immutable operators: from_files, pickling, diff against the parent."""

from __future__ import annotations

import pickle

import pytest

from ascendopt.operator import Operator, OperatorError

from .conftest import KERNEL, edit


def test_from_files_round_trip(base):
    op = Operator.from_files(base.name, dict(base.files), base.root)
    assert op.digest == base.digest and op.kernel_entry == base.kernel_entry
    with pytest.raises(OperatorError):
        Operator.from_files("x", {"elsewhere/a.cpp": ""})
    with pytest.raises(TypeError):
        op.files["op_kernel/new.cpp"] = ""  # read-only mapping


def test_pickle_keeps_identity(base):
    child = edit(base, KERNEL, "2.0f, n);", "3.0f, n);", origin="stage1/refine")
    clone = pickle.loads(pickle.dumps(child))
    assert (clone.digest, clone.parent, clone.origin, clone.name) == (child.digest, base.digest, "stage1/refine",
                                                                      "scale_copy")


def test_diff_against_parent(base):
    child = edit(base, KERNEL, "2.0f, n);", "3.0f, n);")
    d = child.diff(base)
    assert d.startswith(f"--- a/{KERNEL}\n+++ b/{KERNEL}\n")
    assert "-        Muls(yLocal, xLocal, 2.0f, n);\n+        Muls(yLocal, xLocal, 3.0f, n);\n" in d
    assert child.diff(dict(base.files)) == d
    assert base.diff(base) == ""
    added = base.with_file("op_kernel/extra.h", "int x;\n")
    assert "--- /dev/null\n+++ b/op_kernel/extra.h" in added.diff(base)
