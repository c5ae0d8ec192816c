"""The strict unified-diff applier and the answer parser."""

from __future__ import annotations

import difflib

import pytest

from ascendopt.llm.answer import AnswerError, family_of, parse_answer
from ascendopt.llm.patch import PatchError, apply_diff, check_path

K = "op_kernel/k.cpp"
SRC = "".join(f"line {i}\n" for i in range(1, 21))
FILES = {K: SRC, "op_host/k.cpp": "host\n"}


def udiff(old: str, new: str, path: str = K, n: int = 3) -> str:
    return "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), f"a/{path}", f"b/{path}", n=n))


def test_good_diff():
    new = SRC.replace("line 5\n", "line five\n").replace("line 15\n", "line 15\nadded\n")
    out = apply_diff(FILES, udiff(SRC, new))
    assert out[K] == new and out["op_host/k.cpp"] == "host\n"
    assert FILES[K] == SRC  # input untouched


def test_wrong_line_numbers_and_counts_still_apply_when_context_matches():
    d = f"--- a/{K}\n+++ b/{K}\n@@ -1,2 +1,2 @@\n line 9\n-line 10\n+line ten\n line 11\n"
    assert apply_diff(FILES, d)[K] == SRC.replace("line 10\n", "line ten\n")


def test_blank_context_line_without_space_and_trailing_whitespace():
    src = "a\n\nb  \nc\n"
    d = f"--- a/{K}\n+++ b/{K}\n@@ -1,4 +1,4 @@\n a\n\n b\n-c\n+C\n\n"
    assert apply_diff({K: src}, d)[K] == "a\n\nb  \nC\n"


def test_context_mismatch():
    d = f"--- a/{K}\n+++ b/{K}\n@@ -4,3 +4,3 @@\n line 4\n-line 5 (not in the file)\n+x\n line 6\n"
    with pytest.raises(PatchError, match="does not match"):
        apply_diff(FILES, d)


def test_hunks_apply_in_order_without_overlap():
    d = (f"--- a/{K}\n+++ b/{K}\n@@ -10,1 +10,1 @@\n-line 10\n+X\n"
         f"@@ -5,1 +5,1 @@\n-line 5\n+Y\n")
    with pytest.raises(PatchError, match="hunk 2"):
        apply_diff(FILES, d)


@pytest.mark.parametrize("path", ["tests/st/test_k.py", "../op_kernel/k.cpp", "/etc/passwd", "op_kernel/../x.cpp",
                                  "setup.cpp", "op_kernel/notes.txt"])
def test_path_outside_op_kernel_op_host_rejected(path):
    d = f"--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-a\n+b\n"
    with pytest.raises(PatchError):
        apply_diff({path: "a\n", **FILES}, d)
    with pytest.raises(PatchError):
        check_path(path)


def test_new_file_delete_rename():
    d = "--- /dev/null\n+++ b/op_kernel/helper.h\n@@ -0,0 +1,2 @@\n+#pragma once\n+int x;\n"
    assert apply_diff(FILES, d)["op_kernel/helper.h"] == "#pragma once\nint x;\n"
    with pytest.raises(PatchError, match="exists"):
        apply_diff({**FILES, "op_kernel/helper.h": ""}, d)
    with pytest.raises(PatchError, match="delet"):
        apply_diff(FILES, f"--- a/{K}\n+++ /dev/null\n@@ -1 +0,0 @@\n-line 1\n")
    with pytest.raises(PatchError, match="renam"):
        apply_diff(FILES, f"--- a/{K}\n+++ b/op_kernel/other.cpp\n@@ -1 +1 @@\n-line 1\n+x\n")


def test_malformed_diffs():
    with pytest.raises(PatchError, match="unified diff"):
        apply_diff(FILES, "just some words\n")
    with pytest.raises(PatchError, match="not a unified diff"):
        apply_diff(FILES, "\n\n")
    with pytest.raises(PatchError, match="not part of a unified diff"):
        apply_diff(FILES, f"--- a/{K}\n+++ b/{K}\n@@ -1 +1 @@\n-line 1\n+x\nstray prose\n")
    with pytest.raises(PatchError, match="no such file"):
        apply_diff(FILES, "--- a/op_kernel/nope.cpp\n+++ b/op_kernel/nope.cpp\n@@ -1 +1 @@\n-a\n+b\n")
    with pytest.raises(PatchError, match="changes nothing"):
        apply_diff(FILES, f"--- a/{K}\n+++ b/{K}\n@@ -1 +1 @@\n-line 1\n+line 1\n")


def test_git_preamble_and_two_files():
    d = ("diff --git a/op_kernel/k.cpp b/op_kernel/k.cpp\nindex 1..2 100644\n" + udiff(SRC, SRC.replace("line 1\n", "L1\n"))
         + "diff --git a/op_host/k.cpp b/op_host/k.cpp\n" + udiff("host\n", "HOST\n", "op_host/k.cpp"))
    out = apply_diff(FILES, d)
    assert out[K].startswith("L1\n") and out["op_host/k.cpp"] == "HOST\n"


# ------------------------------------------------------------------------------ answers
def test_parse_whole_file():
    a = parse_answer("family: vectorization -- use Abs on the whole tile\n\n```cpp op_kernel/k.cpp\nint main() {}\n```\n")
    assert (a.kind, a.path, a.family) == ("file", K, "vectorization")
    assert a.summary == "use Abs on the whole tile" and a.body == "int main() {}\n"
    assert a.apply(FILES)[K] == "int main() {}\n"


def test_parse_diff_answer():
    d = udiff(SRC, SRC.replace("line 3\n", "LINE 3\n"))
    a = parse_answer(f"Double buffer: pipeline_overlap\n```diff\n{d}```\n")
    assert a.kind == "diff" and a.family == "pipeline_overlap"
    assert "LINE 3" in a.apply(FILES)[K]


@pytest.mark.parametrize("text,reason", [
    ("I think you should double buffer.", "no fenced code block"),
    ("x\n```cpp op_kernel/k.cpp\na\n```\n```diff\nb\n```\n", "2 code blocks"),
    ("x\n```cpp op_kernel/k.cpp\nint a;\n", "never closed"),
    ("x\n```cpp\nint a;\n```\n", "names no file path"),
    ("x\n```cpp tests/st/x.cpp\nint a;\n```\n", "outside"),
    ("x\n```cpp op_kernel/k.cpp\n```\n", "empty"),
])
def test_malformed_answers(text, reason):
    with pytest.raises(AnswerError, match=reason):
        parse_answer(text)


def test_answer_that_changes_nothing_or_does_not_apply():
    with pytest.raises(AnswerError, match="identical"):
        parse_answer(f"x\n```cpp {K}\n{SRC}```\n").apply(FILES)
    with pytest.raises(AnswerError, match="does not apply"):
        parse_answer(f"x\n```diff\n--- a/{K}\n+++ b/{K}\n@@ -1 +1 @@\n-nope\n+x\n```\n").apply(FILES)


def test_family_of():
    assert family_of("family: tail_handling") == "tail_handling"
    assert family_of("Use DataCopyPad (tail_handling), then sync_elimination") == "tail_handling"
    assert family_of("make it faster") == "other"
    assert family_of("multi_core_x") == "other"
