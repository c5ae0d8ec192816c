"""The NPU backend: build with the CANN toolchain, run on the device, time with ``msprof op``.

Same protocol as the simulator (:class:`~ascendopt.backends.base.Backend`): ``build`` ->
:mod:`.project`, ``run`` -> :mod:`.run` (one launch, no profiler: correctness), ``measure`` ->
:mod:`.profile` (warm-up and repeated launches under msprof: latency, noise and the msprof
CSVs), ``load_profile`` reads the kept msprof directory with the existing profile reader.

Device work is serialised (one lock per backend): msprof must not profile two tasks on one
device at once, and a timing taken while another case runs is not a measurement. Builds run
concurrently.

In ``simulator`` mode (:mod:`.simulator`) no device is used: the harness runs against the CANN
simulator's runtime for correctness, ``msprof op simulator`` times one launch. The model is
deterministic, so ``noise_pct`` is 0 and :attr:`concurrent_timing` is the protocol's default
(True: an overlapping run does not change a simulated timing); runs are not serialised. Candidate code (the host tiling in the installed package, the kernel) runs in the
harness process without the simulator's sandbox (which has no device access); the CLI asks for
``--unsafe-no-sandbox`` to say so.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import shutil
import tempfile
import threading
import uuid
from pathlib import Path
from typing import Any

import numpy as np

from ascendopt.backends.base import Backend, BuildResult, RunResult, Status
from ascendopt.backends.npu.detect import CannInfo, detect
from ascendopt.backends.npu.harness import Param, opdef_signature
from ascendopt.backends.npu.profile import DEFAULT_LAUNCHES, DEFAULT_WARMUP, MsprofSetup, measure_case
from ascendopt.backends.npu.project import NpuBuilder
from ascendopt.backends.npu.run import run_case
from ascendopt.backends.npu.simulator import resolve_mode, runtime_link_dir, simulator_env
from ascendopt.hw.soc import Soc, SocError, load_soc
from ascendopt.cases import Case
from ascendopt.operator import Operator, OperatorError

DEFAULT_TIMEOUT_S = 60.0


def device_soc(name: str) -> Soc:
    """The SoC's figures when we have a file for it (the profile summary's roofline uses
    them), else just its name."""
    try:
        return load_soc(name)
    except SocError:
        return Soc(name, name)


class NpuBackend(Backend):
    """Builds, runs and profiles operators on an Ascend device.

    Args:
        cann: The toolchain (default: :func:`~ascendopt.backends.npu.detect.detect`); must
            satisfy :meth:`~ascendopt.backends.npu.detect.CannInfo.require`.
        device: Device id the harness runs on.
        builder: Shared builder (its cache); a default one is made if omitted.
        warmup: ``msprof op --warm-up`` of each measurement.
        launches: Launches profiled per measurement (their median is the latency).
        profile_dir: Where measured runs' msprof directories are kept (default: a temporary
            directory removed at exit).
        mode: ``device``, ``simulator`` or ``auto`` (:func:`~.simulator.resolve_mode`).
        soc: The SoC to simulate when no device is listed (simulator mode; with a device, its SoC).

    Raises:
        CannUnavailable: Something the backend (in its mode) needs is missing (one line naming it).
        ValueError: An unknown mode or device.
    """

    name = "npu"

    def __init__(self, cann: CannInfo | None = None, device: int = 0, builder: NpuBuilder | None = None,
                 warmup: int = DEFAULT_WARMUP, launches: int = DEFAULT_LAUNCHES, profile_dir: Path | None = None,
                 mode: str = "device", soc: str = ""):
        self.cann = cann if cann is not None else detect()
        c = self.cann
        sim_soc = c.chips[device].soc if 0 <= device < len(c.chips) else (soc or c.soc)
        self.mode = resolve_mode(mode, c.home is not None, bool(c.chips), sim_soc in c.simulators)
        self.cann.require(self.mode, sim_soc)
        if self.mode == "device" and not 0 <= device < max(1, len(c.chips)):
            raise ValueError(f"no device {device}: npu-smi lists {len(c.chips)}")
        self.device = device
        self.soc: Soc = device_soc(sim_soc if self.mode == "simulator" else c.chips[device].soc)
        self.builder = builder or NpuBuilder(self.cann, self.soc.name)
        self.warmup, self.launches = warmup, max(1, launches)
        if profile_dir is None:
            profile_dir = Path(tempfile.mkdtemp(prefix="aonpu-profiles-"))
            atexit.register(shutil.rmtree, profile_dir, True)
        self.profile_dir = Path(profile_dir)
        self._device_lock = threading.Lock()
        self._params: dict[str, list[Param]] = {}
        self.env = dict(c.env)
        if self.mode == "simulator":
            lib = Path(c.simulators[self.soc.name])
            self.env = simulator_env(c.env, lib, runtime_link_dir(lib, self.builder.cache_dir))

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_device_lock", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._device_lock = threading.Lock()

    @property
    def toolchain_key(self) -> str:
        if self.mode == "simulator":  # simulated timings are not the device's: records keep them apart
            return hashlib.sha256(f"{self.builder.toolchain_key}\0simulator\0"
                                  f"{self.cann.simulators[self.soc.name]}".encode()).hexdigest()[:16]
        return self.builder.toolchain_key

    @property
    def concurrent_timing(self) -> bool:
        if self.mode == "simulator":
            return super().concurrent_timing  # a deterministic model: the protocol's default
        return False  # measured hardware: a benchmark run has the device to itself

    def _exclusive(self) -> Any:
        """The device lock (device mode); nothing to hold on the simulator."""
        return self._device_lock if self.mode == "device" else contextlib.nullcontext()

    def build(self, op: Operator, dtypes: dict[str, str]) -> BuildResult:
        return self.builder.build(op, dtypes)

    def _signature(self, op: Operator) -> list[Param]:
        if op.digest not in self._params:
            self._params[op.digest] = opdef_signature(op)
        return self._params[op.digest]

    def run(self, build: BuildResult, op: Operator, case: Case, inputs: dict[str, np.ndarray],
            timeout_s: float = DEFAULT_TIMEOUT_S) -> RunResult:
        if not build.ok:
            return RunResult(Status.RUNTIME_ERROR, "build", "no build to run")
        with self._exclusive():
            return run_case(build, self._signature(op), case, inputs, timeout_s, self.env, self.device)

    def measure(self, build: BuildResult, op: Operator, case: Case, inputs: dict[str, np.ndarray],
                timeout_s: float = DEFAULT_TIMEOUT_S) -> RunResult:
        if not build.ok:
            return RunResult(Status.RUNTIME_ERROR, "build", "no build to run")
        try:
            kernel = op.kernel_entry
        except OperatorError as e:
            return RunResult(Status.RUNTIME_ERROR, "structure", str(e))
        keep = self.profile_dir / uuid.uuid4().hex[:16]
        with self._exclusive():
            setup = MsprofSetup(self.env, self.cann.tools["msprof"], self.device, self.warmup, self.launches,
                                self.soc.name if self.mode == "simulator" else "")
            return measure_case(build, self._signature(op), case, inputs, timeout_s, kernel, keep, setup)

    def load_profile(self, run: RunResult, kernel_name: str, op_type: str | None = None) -> Any:
        from ascendopt.profile import Profile, ProfileError

        where = run.profile.get("msprof_dir")
        if not where:
            raise ProfileError("this run was not measured with msprof (no msprof_dir)")
        prof = Profile.load(where)
        prof.soc = prof.soc or self.soc.name
        prof.meta.setdefault("runs_us", run.profile.get("runs_us"))
        prof.meta.setdefault("noise_pct", run.profile.get("noise_pct"))
        return prof
