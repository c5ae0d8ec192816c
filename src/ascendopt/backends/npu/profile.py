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

On the CANN simulator (:mod:`.simulator`) the session is ``msprof op simulator
--soc-version=<SoC> --output=<dir> --kernel-name=<kernel entry> --launch-count=1 <harness>
<manifest>``: one launch (the model is deterministic; the simulator has no warm-up), whose
directory holds ``simulator/trace.json`` and the per-core ``*_instr_exe.csv`` instead of the
CSVs; the same reader takes them (the latency is the trace's span, :meth:`Profile.load`).
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass
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
    """The directories holding one launch's profile under an msprof ``--output`` directory, in
    launch order (``OPPROF_*/`` itself, or ``OPPROF_*/<OpName>/<i>/``): its CSVs, or on the
    simulator its ``simulator/`` tree (the all-core ``trace.json``)."""
    found = {p.parent for p in out.rglob("OpBasicInfo*.csv")}
    found |= {p.parent.parent for p in out.rglob("trace.json") if p.parent.name == "simulator"}

    def order(p: Path) -> tuple:
        return tuple(int(x) if x.isdigit() else 0 for x in p.relative_to(out).parts) + (str(p),)

    return sorted(found, key=order)


def msprof_command(msprof: str, out: Path, kernel_name: str, launches: int, warmup: int,
                   simulator_soc: str = "") -> list[str]:
    """The ``msprof op`` (or, with ``simulator_soc``, ``msprof op simulator``) options before the
    application (module docstring)."""
    if simulator_soc:
        return [msprof, "op", "simulator", f"--soc-version={simulator_soc}", f"--output={out}",
                f"--kernel-name={kernel_name}", f"--launch-count={launches}"]
    return [msprof, "op", f"--output={out}", f"--kernel-name={kernel_name}", f"--launch-count={launches}",
            f"--warm-up={warmup}"]


@dataclass(frozen=True)
class MsprofSetup:
    """How ``msprof`` profiles a case.

    Attributes:
        cann_env: the CANN environment (with ``simulator_soc``: the simulator's runtime).
        msprof: the ``msprof`` executable.
        device: the device the runs use.
        warmup, launches: launches before the measured ones, and launches measured.
        simulator_soc: on the CANN simulator of that SoC (one launch, no warm-up, noise 0).
    """

    cann_env: dict[str, str]
    msprof: str
    device: int = 0
    warmup: int = DEFAULT_WARMUP
    launches: int = DEFAULT_LAUNCHES
    simulator_soc: str = ""


def measure_case(build: BuildResult, params: Sequence[Param], case: Case, inputs: dict[str, np.ndarray],
                 timeout_s: float, kernel_name: str, keep_dir: Path, setup: MsprofSetup) -> RunResult:
    """Profiles ``setup.launches`` launches of one case; the profile of the last one is kept
    under ``keep_dir`` (named in ``profile["msprof_dir"]``). Never raises for a bad candidate."""
    cann_env, msprof, device = setup.cann_env, setup.msprof, setup.device
    warmup, launches, simulator_soc = setup.warmup, setup.launches, setup.simulator_soc
    if simulator_soc:
        warmup, launches = 0, 1
    t0 = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="aonpuprof-"))
    try:
        manifest = write_manifest(work, params, case, inputs,
                                  [f"device {device}", f"repeat {launches}", f"timeout_ms {int(timeout_s * 1000)}"])
        out = work / "msprof"
        out.mkdir()
        cmd = [*msprof_command(msprof, out, kernel_name, launches, warmup, simulator_soc),
               str(build.artifact), str(manifest)]
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
            what = "no simulator trace.json with instructions" if simulator_soc else \
                "no OpBasicInfo with a task duration"
            return RunResult(Status.RUNTIME_ERROR, "msprof", f"{' '.join(cmd[:3 if simulator_soc else 2])} wrote "
                                                             f"{what} under {out}\n{tail}".strip(), seconds=res.seconds)
        last_dir, last = loaded[-1]
        keep_dir.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(last_dir, keep_dir, dirs_exist_ok=True)
        mean = statistics.fmean(durations)
        res.task_duration_us = statistics.median(durations)
        res.block_dim = last.basic.block_dim
        noise = 0.0 if simulator_soc or len(durations) < 2 else statistics.stdev(durations) / mean * 100.0
        res.profile.update({"msprof_dir": str(keep_dir), "runs_us": durations, "warmup": warmup, "noise_pct": noise,
                            "timing": f"simulator:{simulator_soc}" if simulator_soc else "device"})
        return res
    finally:
        shutil.rmtree(work, ignore_errors=True)
