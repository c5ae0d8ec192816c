"""Backend protocol and the result types every backend returns."""

from __future__ import annotations

import abc
import enum
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    from ascendopt.hw.soc import Soc


class Status(str, enum.Enum):
    """Outcome of evaluating one candidate on one case. Never a magic number."""

    OK = "ok"
    COMPILE_ERROR = "compile_error"
    TILING_ERROR = "tiling_error"
    RUNTIME_ERROR = "runtime_error"
    WRONG_RESULT = "wrong_result"
    TIMEOUT = "timeout"


@dataclass(frozen=True)
class BuildResult:
    """An executable artifact, or the compiler's error text.

    Attributes:
        artifact: Path of the runner executable when the build succeeded.
        error: Compiler output (filtered to the operator's files) when it failed.
        key: Content hash of everything that went into the artifact.
        seconds: Wall time spent building (0 when served from the cache).
        cached: True when no compiler ran.
        timed_out: True when a compiler was killed at the build timeout (never cached).
        run_env: Environment variables every run of the artifact needs (e.g. knob slot
            values, :mod:`ascendopt.slots`).
    """

    artifact: Path | None
    error: str = ""
    key: str = ""
    seconds: float = 0.0
    cached: bool = False
    timed_out: bool = False
    run_env: tuple[tuple[str, str], ...] = ()

    @property
    def ok(self) -> bool:
        return self.artifact is not None


@dataclass
class RunResult:
    """Outputs and profile of one run, or a typed failure.

    Attributes:
        status: OK, TILING_ERROR, RUNTIME_ERROR or TIMEOUT (correctness is judged later).
        error_kind: The simulator's typed reason (``ub_overflow``, ``race``, ``segfault``, ...).
        message: Human-readable explanation.
        outputs: Output arrays by name (only when status is OK).
        block_dim: Cores the tiling asked for.
        tiling_key: Tiling key the host set.
        task_duration_us: Estimated (sim) or measured (npu) kernel duration.
        profile: Backend-specific profile summary (per-core, per-pipe data).
        seconds: Wall time of the run.
        warnings: Warning-level hazards the run carried and went on after (the simulator's
            ``evaluate.hazards.WARNING_KINDS``: ``race``, ``gm_read_past_end``, ...): dicts with
            ``kind``, ``message`` and ``count`` (occurrences at that site), also on a run that
            failed later.
    """

    status: Status
    error_kind: str = ""
    message: str = ""
    outputs: dict[str, Any] = field(default_factory=dict)
    block_dim: int = 0
    tiling_key: int = 0
    task_duration_us: float | None = None
    profile: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    warnings: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Launch:
    """What the host tiling asks the device for, for one case: everything a kernel launch
    depends on besides the kernel binary and the input data.

    Two candidates with the same kernel binary and the same launch on every case run the same
    program on the device, so one evaluation answers both (Stage II knobs often only move a
    tile size inside one alignment step). Backends that can run the tiling alone (the
    simulator) say so with ``Backend.supports_tiling`` and offer
    ``tiling(build, op, case, inputs, timeout_s) -> Launch``.

    Attributes:
        status: OK, or the failure the tiling ran into (TILING_ERROR, RUNTIME_ERROR, TIMEOUT).
        message: Why, when it failed.
        fields: The launch (block dim, tiling key, workspace, schedule mode, inferred output
            shapes, tiling data as hex), JSON-ready.
    """

    status: Status
    message: str = ""
    fields: tuple[tuple[str, Any], ...] = ()

    @property
    def ok(self) -> bool:
        return self.status == Status.OK


class Backend(abc.ABC):
    """What the evaluator, rewind and the agent may ask of a backend; nothing else is probed.

    An abstract base class rather than a ``typing.Protocol``: the optional parts (no SoC, no
    noise, no tiling-only run) and :meth:`identity` have one shared default here, so every
    backend (and every test double) answers them the same way and the evaluation config key
    means the same thing everywhere; and ``Evaluator`` can refuse a non-backend at
    construction (``isinstance``) instead of failing on a missing attribute mid-evaluation.

    Contract:
        * ``build`` and ``run`` never raise for a bad candidate: failures are a
          :class:`BuildResult` error or a :class:`RunResult` status.
        * ``build`` and ``run`` may be called from several threads at once.
        * :meth:`identity` is stable for the backend's lifetime that matters to records:
          everything that can change a result (backend, SoC and its parameters, toolchain,
          injected noise) and nothing else.

    Attributes:
        name: Backend name (``sim``, ``npu``); recorded in every evaluation.
        soc: The SoC's figures (:class:`~ascendopt.hw.soc.Soc`), or None when the
            backend does not model one.
        noise_pct: Standard deviation (percent) of the measurement noise the backend adds or
            has; 0 for an exact (deterministic) backend. Runs of a noisy backend are kept in
            order (their draws must not depend on thread timing).
        supports_tiling: True when :meth:`tiling` can run the host tiling alone.
    """

    name: str
    soc: "Soc | None" = None
    noise_pct: float = 0.0
    supports_tiling: bool = False

    @abc.abstractmethod
    def build(self, op: Any, dtypes: dict[str, str]) -> BuildResult:
        """Builds ``op`` for one dtype combination (input/output name -> dtype)."""

    @abc.abstractmethod
    def run(self, build: BuildResult, op: Any, case: Any, inputs: dict[str, Any], timeout_s: float) -> RunResult:
        """Runs one case with the given inputs; outputs come back by name."""

    def run_batch(self, build: BuildResult, op: Any, items: "Sequence[tuple[Any, dict[str, Any]]]",
                  timeout_s: float, stop_at_failure: bool = False) -> list[RunResult]:
        """Runs several ``(case, inputs)`` of one build: what :meth:`run` gives for each, in
        order (with ``stop_at_failure``, up to the first that failed). The default runs them one
        by one; a backend that can share one process among them (the simulator) overrides it,
        with the same results."""
        results: list[RunResult] = []
        for case, inputs in items:
            results.append(self.run(build, op, case, inputs, timeout_s))
            if stop_at_failure and results[-1].status != Status.OK:
                break
        return results

    def tiling(self, build: BuildResult, op: Any, case: Any, inputs: dict[str, Any], timeout_s: float) -> Launch:
        """Runs only the host tiling of one case and returns the launch it asks for.

        Raises:
            NotImplementedError: The backend cannot (``supports_tiling`` is False).
        """
        raise NotImplementedError(f"backend {self.name!r} cannot run the host tiling alone")

    def measure(self, build: BuildResult, op: Any, case: Any, inputs: dict[str, Any], timeout_s: float) -> RunResult:
        """A timed run of one case (a benchmark run): outputs, ``task_duration_us`` and the
        profile summary, like :meth:`run`. A backend whose ordinary runs are not timed (the NPU:
        correctness runs go without the profiler) profiles here; the default is :meth:`run`
        (the simulator times every run)."""
        return self.run(build, op, case, inputs, timeout_s)

    def load_profile(self, run: RunResult, kernel_name: str, op_type: str | None = None) -> Any:
        """The msprof-format :class:`~ascendopt.profile.Profile` of a measured run.

        The default builds it from the run's own profile summary (the simulator's per-core
        data); a backend that keeps msprof's output directory reads that instead.

        Raises:
            ascendopt.profile.ProfileError: The run carries no readable profile.
        """
        from ascendopt.profile import Profile

        return Profile.from_run(run, kernel_name, op_type, self.soc)

    @property
    def times_every_run(self) -> bool:
        """True when :meth:`run` is already a timed run (:meth:`measure` is :meth:`run`, as on
        the simulator): a checked run of a benchmark case then needs no second, measured run."""
        return type(self).measure is Backend.measure

    @property
    def concurrent_timing(self) -> bool:
        """True when a measured run may overlap other runs without changing its result: an
        exact model without noise draws. False for measured hardware (a benchmark run must
        have the device to itself) and for injected noise (draws must stay in order)."""
        return not self.noise_pct

    @property
    def toolchain_key(self) -> str:
        """Hash of the compiler and runtime identity; empty when the backend has none."""
        return ""

    def identity(self) -> dict[str, Any]:
        """What about the backend is part of every evaluation config key.

        ``backend`` (name), ``soc`` (name, empty without one), ``soc_params`` (hash of the
        SoC's figures, when it has any), ``toolchain`` (:attr:`toolchain_key`, when not empty)
        and ``noise_pct`` (when not 0). The keys and their values are pinned by a test: a
        change re-keys every record store.
        """
        soc = self.soc
        ident: dict[str, Any] = {"backend": self.name, "soc": soc.name if soc is not None else ""}
        if soc is not None and soc.params:
            ident["soc_params"] = hashlib.sha256(
                json.dumps(soc.params, sort_keys=True, default=str).encode()).hexdigest()[:16]
        if self.toolchain_key:
            ident["toolchain"] = self.toolchain_key
        if self.noise_pct:
            ident["noise_pct"] = self.noise_pct
        return ident
