"""The driver survives candidates that loop, crash, exhaust memory or write garbage, at build
time and at run time: all candidate code runs in bounded child processes."""

from __future__ import annotations

import os
import subprocess
import time

from ascendopt.sandbox.cputime import WALL_SLACK
from ascendopt.backends.sim.backend import SimBackend
from ascendopt.backends.sim.build import SimBuilder
from ascendopt.evaluate.evaluator import EvalConfig, Evaluator

from .conftest import ANCHOR, KERNEL, edit

# 2^30 preprocessor tokens: the compiler grows without bound (memory and time).
_MACRO_BOMB = "\n".join(["#define AO_B0 1+1"] + [f"#define AO_B{i} AO_B{i - 1}+AO_B{i - 1}" for i in range(1, 31)]
                        + ["static int ao_bomb = AO_B30;", ""])


def _bomb(base, tag: str):
    return base.with_file(KERNEL, _MACRO_BOMB + f"// {tag}\n" + base.files[KERNEL], origin="test/bomb")


def _cc1plus_running(marker: str) -> bool:
    out = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    return any("cc1plus" in ln and marker in ln for ln in out.splitlines())


def test_looping_kernel_times_out_and_is_killed(backend, base, cases):
    op = edit(base, KERNEL, ANCHOR, "volatile int spin = 1; while (spin) {}\n        " + ANCHOR)
    # Built first: the run's timeout is what is measured, not the build (on a loaded machine the
    # build alone can take longer than the bound below).
    build = backend.build(op, {"x": "float", "y": "float"})
    assert build.ok, build.error
    t0 = time.monotonic()
    ev = Evaluator(backend, EvalConfig(run_timeout_s=1.0, jobs=2)).evaluate(op, cases)
    # the limit counts the runner's CPU seconds: on a loaded machine its wall time stretches, up
    # to the WALL_SLACK backstop
    assert ev.status == "timeout" and time.monotonic() - t0 < WALL_SLACK * 1.0 + 10
    runner = str(build.artifact)
    out = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert runner not in out  # no runner of this candidate left behind


def test_crashing_kernel_is_a_typed_runtime_error(evaluator, base, cases):
    op = edit(base, KERNEL, ANCHOR, "if (GetBlockIdx() == 1) { *(volatile int*)nullptr = 1; }\n        " + ANCHOR)
    ev = evaluator.evaluate(op, cases)
    assert ev.status == "runtime_error" and ev.error_kind == "segfault"


def test_memory_hungry_kernel_hits_the_limit(backend, base, cases):
    small = SimBackend(builder=backend.builder, memory_bytes=1 << 30)
    op = edit(base, KERNEL, ANCHOR,
              "for (int k = 0; k < 64; k++) { volatile char* p = new char[256u << 20]; p[0] = 1; }\n        " + ANCHOR)
    ev = Evaluator(small, EvalConfig(jobs=2)).evaluate(op, cases)
    assert ev.status == "runtime_error", ev.error
    assert ev.error_kind in ("abort", "bad_alloc", "segfault", "killed"), ev.error_kind


def test_garbage_writer_is_a_wrong_result(evaluator, base, cases):
    junk = 'for (int k = 0; k < 2000; k++) { __builtin_printf("\\x01\\xff{\\"status\\": \\"ok\\"\\x80"); }\n        '
    op = edit(edit(base, KERNEL, ANCHOR, junk + ANCHOR), KERNEL, "2.0f, n);", "-7.0f, n);")
    ev = evaluator.evaluate(op, cases)
    assert ev.status == "wrong_result", ev.error


def test_compiler_memory_is_bounded(backend, base, cases, sim_cache):
    builder = SimBuilder(cache_dir=sim_cache, memory_bytes=1 << 30, timeout_s=60.0)
    ev = Evaluator(SimBackend(builder=builder), EvalConfig(jobs=1)).evaluate(_bomb(base, "mem"), cases)
    assert ev.status == "compile_error"
    assert "memory" in ev.error.lower(), ev.error[-500:]


def test_compiler_timeout_kills_the_compiler(backend, base, cases, sim_cache):
    builder = SimBuilder(cache_dir=sim_cache, memory_bytes=8 << 30, timeout_s=1.0)
    op = _bomb(base, f"time-{os.getpid()}")
    t0 = time.monotonic()
    ev = Evaluator(SimBackend(builder=builder), EvalConfig(jobs=1)).evaluate(op, cases)
    assert ev.status == "timeout" and ev.error_kind == "build_timeout", ev.error
    assert time.monotonic() - t0 < 10
    time.sleep(0.2)
    assert not _cc1plus_running(op.digest[:24])  # the whole process group is gone
    # a timeout is not cached: a patient builder tries again (and fails for real)
    assert not builder.build(op, {"x": "float", "y": "float"}).cached
