"""The simulator toolchain's fixed parts: where the emulation sources are, the compile flags,
the content hashes that key the build cache, and one compiler job. Shared by the builder
(:mod:`.build`) and the modules that compile for it (:mod:`.kernel_pch`, :mod:`.opdef_scan`)."""

from __future__ import annotations

import hashlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

SIM_DIR = Path(__file__).resolve().parent
INCLUDE_DIR = SIM_DIR / "include"
RUNTIME_DIR = SIM_DIR / "runtime"
RUNTIME_SOURCES = ("kernel_rt.cpp", "gm_alloc.cpp", "gm_guard.cpp", "core_role.cpp", "diag.cpp", "stream_enc.cpp",
                   "timing.cpp", "vec_cost.cpp", "l2.cpp", "race.cpp", "dcache.cpp", "scalar_gm.cpp", "host_rt.cpp",
                   "host_util.cpp", "knob_slot.cpp", "main.cpp")
# The timer (runtime/timer.cpp): replays a runner's timing stream through the timing model. Its
# own executable, linked from these and the model's objects only, once per toolchain key (which
# covers every runtime source); the SoC's parameters reach it at run time, from the driver.
TIMER_SOURCES = ("timer.cpp", "timer_report.cpp")
TIMER_RUNTIME = ("timing.cpp", "vec_cost.cpp", "l2.cpp", "race.cpp", "diag.cpp", "dcache.cpp", "scalar_gm.cpp")
TIMER = "timer"
# The runner's main and the sandbox's pre-init function: linked as an object, first (not from
# the archive), so it precedes the candidate's initializers and a candidate `main` clashes.
RUNNER_MAIN = "main.cpp"
# Markers linked right before and right after the candidate's objects (runtime/cand_mark.cpp):
# a batch of cases in one runner checks the candidate's writable globals between them.
CAND_MARKS = ("cand_begin.o", "cand_end.o")
# The kernel-side runtime alone (no host emulation, no runner main): for C++ unit tests of APIs.
KERNEL_RUNTIME_SOURCES = tuple(s for s in RUNTIME_SOURCES
                               if s not in ("host_rt.cpp", "host_util.cpp", "knob_slot.cpp", "main.cpp"))
BASE_FLAGS = ("-std=c++17", "-fno-strict-aliasing", "-pthread")
RUNTIME_FLAGS = ("-O2", "-Wall", "-Wextra")
# Kernel code: it runs millions of emulated instructions (-O0 ran the cases 2-5x slower). Not
# -Og, although it halves the compile of template-heavy kernels and runs as fast: modelled time
# is not independent of the level. A kernel's __gm__ data (a static table) is laid out by the
# compiler, and the model's L2 sees its addresses: the tests/fixtures/ops/gm_table case "rows"
# read 3072 instead of 2048 HBM bytes at -Og (6.2718 -> 6.2891 us; timing_snapshot, issue 35).
USER_FLAGS = ("-O1", "-w")
HOST_FLAGS = ("-O0", "-w")  # tiling code runs once per case: compile time matters more
# The runner's link: gold when installed (about half the wall and a third of the CPU time of the
# default BFD linker here, twice per kernel change; it lays out sections in input order as BFD
# does, which the candidate markers and the sandbox's pre-init entry rely on).
LINK_FLAGS = ("-fuse-ld=gold",) if shutil.which("ld.gold") else ()
SLOTS_FAILED = "slots_failed"  # marker: this parameterized host source does not compile
BUILD_TIMEOUT_S = 300.0
BUILD_MEMORY_BYTES = 4 << 30
COMPILER_TIMEOUT = "compiler timed out"
# Host emulation headers every op_host source includes; precompiled once per toolchain and
# force-included (-include) into host compiles: they dominate host compile time (~60k lines).
HOST_PCH_HEADERS = ("register/tilingdata_base.h", "register/op_def_registry.h",
                    "tiling/platform/platform_ascendc.h", "graph/utils/type_utils.h")



def _hash(*parts: str | bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else p.encode())
        h.update(b"\0")
    return h.hexdigest()[:24]


def _tree_hash(*dirs: Path) -> str:
    h = hashlib.sha256()
    for d in dirs:
        for f in sorted(d.rglob("*")):
            if f.is_file() and f.suffix in (".h", ".hpp", ".cpp"):
                h.update(f.relative_to(d).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:24]


def _tree_state(*dirs: Path) -> tuple:
    """(path, mtime, size) of every emulation source, by path: cheap to take (one directory
    read per directory and one stat per source: the toolchain key takes it a score of times per
    evaluation, and pathlib's rglob + is_file + stat cost ~10 ms a time), changes when one is
    edited."""
    found = []
    stack = [str(d) for d in dirs]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for e in entries:
            if e.is_dir(follow_symlinks=False):  # as rglob: a symlinked directory is not entered
                stack.append(e.path)
            elif e.is_file() and e.name.endswith((".h", ".hpp", ".cpp")):
                st = e.stat()
                found.append((e.path, st.st_mtime_ns, st.st_size))
    return tuple(sorted(found))


def default_cache_dir() -> Path:
    return Path(os.environ.get("ASCENDOPT_CACHE", Path.home() / ".cache" / "ascendopt")) / "sim"


@dataclass
class _Job:
    cmd: list[str]
    out: Path
