"""Issue 18, item 3: a run's timing and races come only from the timer, never from anything the
kernel can write. Each test is a kernel that tries: it rewrites the runner's result file (at exit,
or before leaving early), writes into the timing stream, or drops a needed synchronisation and
then rewrites the result without the race. They reach the runner's pre-opened files the way a
hostile kernel would, through the runtime's own symbols (``sandbox_rt.h``)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ascendopt.backends.base import Status
from ascendopt.cases import load_op_cases, make_inputs
from ascendopt.evaluate.check import case_dtypes
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS

SCALE_COPY = "op_kernel/scale_copy.cpp"
LAB = "op_kernel/timing_lab.cpp"
ENTRY = "GET_TILING_DATA(tilingData, tiling);"
FORGED_US = 0.001
# File-scope helpers of the cheating kernels.
CHEATS = r"""
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cstdlib>
#include <cstring>
namespace ao::sandbox { extern int g_result_fd; extern int g_files; extern int g_file_fd[]; }
static void AoForge() {  // the runner's result, with made-up timing and no hazards
    static const char body[] = "{\"status\": \"ok\", \"block_dim\": 1, \"task_duration_us\": 0.001, "
        "\"max_core_cycles\": 1.0, \"task_cycles\": 1.0, \"cores\": [], \"warnings\": []}\n";
    int fd = ao::sandbox::g_result_fd;
    if (fd >= 0 && ftruncate(fd, 0) == 0) { ssize_t w = pwrite(fd, body, sizeof body - 1, 0); (void)w; }
}
static void AoOutputsOfSize(long n) {  // outputs of the right size (their contents do not matter here)
    for (int i = 1; i < ao::sandbox::g_files; ++i) { int r = ftruncate(ao::sandbox::g_file_fd[i], n); (void)r; }
}
static void AoIntoPipes(const void* data, size_t n) {  // into every pipe the runner may write
    struct stat st;
    for (int fd = 3; fd < 256; ++fd)
        if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode) && (fcntl(fd, F_GETFL) & O_ACCMODE) == O_WRONLY) {
            ssize_t w = write(fd, data, n); (void)w;
        }
}
static void AoGarbage() {
    unsigned char junk[4096];
    for (size_t i = 0; i < sizeof junk; ++i) junk[i] = (unsigned char)(i * 131 + 7);
    AoIntoPipes(junk, sizeof junk);
}
static void AoPlausiblePrefix() {  // a stream header and a launch record, then nothing
    const unsigned char head[] = {'A', 'O', 'T', 'S', 1, 0, 0, 0, 2, 1, 0, 0, 0, 1, 0, 0, 0};
    AoIntoPipes(head, sizeof head);
}
"""


def cheat(op: Operator, rel: str, code: str) -> Operator:
    text = op.files[rel]
    assert ENTRY in text, f"fixture changed: {ENTRY!r} not in {rel}"
    return op.with_file(rel, CHEATS + text.replace(ENTRY, ENTRY + "\n    " + code, 1), origin="test/cheat")


@pytest.fixture(scope="module")
def scale_copy():
    return Operator.load(FIXTURE_OPS / "scale_copy"), {c.name: c for c in load_op_cases(FIXTURE_OPS / "scale_copy")}


def run(backend, op, case):
    build = backend.build(op, case_dtypes(case))
    assert build.ok, build.error
    return backend.run(build, op, case, make_inputs(case, 0), timeout_s=60.0)


def out_bytes(case) -> int:
    [spec] = case.outputs
    return int(np.prod(spec.shape)) * np.dtype(spec.np_dtype).itemsize


def test_a_result_rewritten_at_exit_does_not_set_the_timing(backend, scale_copy):
    op, cases = scale_copy
    case = cases["many_cores"]
    honest = run(backend, op, case)
    rr = run(backend, cheat(op, SCALE_COPY, "if (GetBlockIdx() == 0) atexit(AoForge);"), case)
    assert rr.status == Status.OK, rr.message
    assert rr.task_duration_us == honest.task_duration_us != FORGED_US
    assert rr.profile["cores"] == honest.profile["cores"]


@pytest.mark.parametrize("how", ["forge", "garbage", "prefix"])
def test_a_kernel_that_leaves_early_with_a_forged_result_is_never_timed(backend, scale_copy, how):
    """The runner's result says ok (with made-up timing and outputs of the right size) and it
    exits at once: after nothing, after garbage into the timing stream, or after a plausible
    start of a stream."""
    op, cases = scale_copy
    case = cases["many_cores"]
    before = {"forge": "", "garbage": "AoGarbage(); ", "prefix": "AoPlausiblePrefix(); "}[how]
    rr = run(backend, cheat(op, SCALE_COPY, f"{before}AoForge(); AoOutputsOfSize({out_bytes(case)}); _exit(0);"),
             case)
    assert (rr.status, rr.error_kind) == (Status.RUNTIME_ERROR, "sandbox_violation"), (rr.status, rr.message)
    assert "timing stream" in rr.message and rr.task_duration_us != FORGED_US


def test_garbage_in_the_timing_stream_is_a_violation(backend, scale_copy):
    op, cases = scale_copy
    rr = run(backend, cheat(op, SCALE_COPY, "if (GetBlockIdx() == 1) AoGarbage();"), cases["many_cores"])
    assert (rr.status, rr.error_kind) == (Status.RUNTIME_ERROR, "sandbox_violation"), (rr.status, rr.message)
    assert rr.message.startswith("forged or malformed timing stream")


def test_a_dropped_synchronisation_is_reported_though_the_result_is_rewritten(backend):
    """The race comes from the timer: rewriting the runner's result without it changes nothing."""
    op = Operator.load(FIXTURE_OPS / "timing_lab")
    cases = {c.name: c for c in load_op_cases(FIXTURE_OPS / "timing_lab")}
    text = op.files[LAB]
    for macro, value in (("MODE", 1), ("SKIP_WAIT", 1)):
        text = re.sub(rf"#define {macro} .*", f"#define {macro} {value}", text, count=1)
    racy = cheat(op.with_file(LAB, text, origin="test/cheat"), LAB, "if (GetBlockIdx() == 0) atexit(AoForge);")
    rr = run(backend, racy, cases["t48x2"])
    assert rr.status == Status.OK, rr.message
    races = [w for w in rr.warnings if w["kind"] == "race"]
    assert races and "MTE2_V" in races[0]["message"], rr.warnings
    assert rr.task_duration_us != FORGED_US


def test_get_system_cycle_is_answered_by_the_timer(backend, scale_copy):
    op, cases = scale_copy
    code = ("int64_t aoT0 = AscendC::GetSystemCycle(); if (aoT0 < 0) abort();")
    end = "if (AscendC::GetSystemCycle() < aoT0) abort();"
    text = cheat(op, SCALE_COPY, code).files[SCALE_COPY]
    anchor = "op.Process();"
    assert anchor in text
    op2 = op.with_file(SCALE_COPY, text.replace(anchor, anchor + "\n    " + end, 1), origin="test/cheat")
    assert run(backend, op2, cases["many_cores"]).status == Status.OK
