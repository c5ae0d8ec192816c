"""Backend protocol and the result types every backend returns."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol


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
            ``race`` and ``gm_read_past_end``): dicts with ``kind``, ``message`` and ``count``
            (occurrences at that site), also on a run that failed later.
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
    simulator) offer ``tiling(build, op, case, inputs, timeout_s) -> Launch``.

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


class Backend(Protocol):
    """Builds an operator for a dtype combination and runs one case with given inputs."""

    name: str

    def build(self, op: Any, dtypes: dict[str, str]) -> BuildResult: ...

    def run(self, build: BuildResult, op: Any, case: Any, inputs: dict[str, Any], timeout_s: float) -> RunResult: ...
