"""Timed runs: the harness under ``msprof op``, its CSVs read by the existing profile reader.

One measurement is one ``msprof op`` session::

    msprof op --output=<dir> --kernel-name=<kernel entry> --launch-count=<L> --warm-up=<W> \\
        <harness> <manifest with "repeat L">

The harness launches the operator ``L`` times (inputs uploaded again before each); msprof warms
the device up ``W`` times (so the clock is raised before timing) and profiles the ``L`` launches.
msprof writes ``OPPROF_<timestamp>_<id>/`` under ``--output``: with one launch the CSVs
(``OpBasicInfo.csv``, ``PipeUtilization.csv``, ``Memory.csv``, ...) directly in it, with
several one ``<OpName>/<i>/`` directory per launch (msOpProf user guide, Ascend/msopprof
``docs/en/user_guide/msopprof_user_guide.md``: command reference and result layout). Each
launch's directory is read with :meth:`ascendopt.profile.Profile.load`; the run's task duration
is the median of the launches' ``Task Duration(us)``, and their spread is the measured noise
(``noise_pct`` = standard deviation / mean, in percent) that rewind's threshold builds on.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Sequence

import numpy as np

from ascendopt.backends.base import BuildResult, RunResult, Status
from ascendopt.backends.npu.harness import Param
from ascendopt.backends.npu.project import run_tool
from ascendopt.backends.npu.run import collect, harness_env, write_manifest
from ascendopt.cases import Case
from ascendopt.profile import Profile, ProfileError

DEFAULT_WARMUP = 5
DEFAULT_LAUNCHES = 5


def launch_dirs(out: Path) -> list[Path]:
    """The directories holding one launch's CSVs under an msprof ``--output`` directory, in
    launch order (``OPPROF_*/`` itself, or ``OPPROF_*/<OpName>/<i>/``)."""
    found = {p.parent for p in out.rglob("OpBasicInfo*.csv")}

    def order(p: Path) -> tuple:
        return tuple(int(x) if x.isdigit() else 0 for x in p.relative_to(out).parts) + (str(p),)

    return sorted(found, key=order)


def measure_case(build: BuildResult, params: Sequence[Param], case: Case, inputs: dict[str, np.ndarray],
                 timeout_s: float, cann_env: dict[str, str], msprof: str, kernel_name: str, keep_dir: Path,
                 device: int = 0, warmup: int = DEFAULT_WARMUP, launches: int = DEFAULT_LAUNCHES) -> RunResult:
    """Profiles ``launches`` launches of one case; the profile of the last one is kept under
    ``keep_dir`` (named in ``profile["msprof_dir"]``). Never raises for a bad candidate."""
    t0 = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="aonpuprof-"))
    try:
        manifest = write_manifest(work, params, case, inputs,
                                  [f"device {device}", f"repeat {launches}", f"timeout_ms {int(timeout_s * 1000)}"])
        out = work / "msprof"
        out.mkdir()
        cmd = [msprof, "op", f"--output={out}", f"--kernel-name={kernel_name}", f"--launch-count={launches}",
               f"--warm-up={warmup}", str(build.artifact), str(manifest)]
        # msprof replays each launch to collect its metric groups: allow well above one run.
        limit = timeout_s * (launches + warmup + 2) + 120.0
        code, text, timed_out = run_tool(cmd, work, harness_env(cann_env, build), limit)
        res = collect(work, case, code, text, timed_out, limit, time.perf_counter() - t0)
        if res.status != Status.OK:
            return res
        loaded: list[tuple[Path, Profile]] = []
        for d in launch_dirs(out):
            try:
                loaded.append((d, Profile.load(d)))
            except ProfileError:
                continue
        loaded = [(d, p) for d, p in loaded if p.basic.task_duration_us > 0]
        durations = [p.basic.task_duration_us for _, p in loaded]
        if not durations:
            tail = "\n".join(text.strip().splitlines()[-5:])
            return RunResult(Status.RUNTIME_ERROR, "msprof", f"msprof op wrote no OpBasicInfo with a task duration "
                                                             f"under {out}\n{tail}".strip(), seconds=res.seconds)
        last_dir, last = loaded[-1]
        keep_dir.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(last_dir, keep_dir, dirs_exist_ok=True)
        mean = statistics.fmean(durations)
        res.task_duration_us = statistics.median(durations)
        res.block_dim = last.basic.block_dim
        res.profile.update({"msprof_dir": str(keep_dir), "runs_us": durations, "warmup": warmup,
                            "noise_pct": (statistics.stdev(durations) / mean * 100.0) if len(durations) > 1 else 0.0})
        return res
    finally:
        shutil.rmtree(work, ignore_errors=True)
