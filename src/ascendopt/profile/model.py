"""Profile data model: per-block pipe statistics, instructions, trace events, summary."""


from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

PIPES = ("S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX")
CUBE_PIPES = ("M", "MTE1", "FIX")
NA = "NA"
_NA_VALUES = {"", "NA", "N/A", "na", "n/a", "-", "None", "nan"}

# Our pipe -> (core prefixes it exists on, msprof metric name in PipeUtilization.csv).
_PIPE_METRIC = {
    "S": (("aic", "aiv"), "scalar"),
    "V": (("aiv",), "vec"),
    "M": (("aic",), "cube"),
    "MTE1": (("aic",), "mte1"),
    "MTE2": (("aic", "aiv"), "mte2"),
    "MTE3": (("aic", "aiv"), "mte3"),
    "FIX": (("aic",), "fixpipe"),
}
# Pipe names as the simulator's instr_exe.csv / trace viewer show them.
_PIPE_DISPLAY = {"S": "SCALAR", "V": "VEC", "M": "CUBE", "MTE1": "MTE1", "MTE2": "MTE2", "MTE3": "MTE3",
                 "FIX": "FIXP"}
_PIPE_ALIASES = {
    "S": "S", "SCALAR": "S", "PIPE_S": "S", "SU": "S",
    "V": "V", "VEC": "V", "VECTOR": "V", "PIPE_V": "V",
    "M": "M", "CUBE": "M", "MAC": "M", "PIPE_M": "M",
    "MTE1": "MTE1", "PIPE_MTE1": "MTE1",
    "MTE2": "MTE2", "PIPE_MTE2": "MTE2",
    "MTE3": "MTE3", "PIPE_MTE3": "MTE3",
    "FIX": "FIX", "FIXP": "FIX", "FIXPIPE": "FIX", "PIPE_FIX": "FIX",
}

# SoC parameters the summary uses, with defaults when the SoC file lacks them.
# hbm_bytes_per_cycle, clock_ghz, launch_overhead_us, aiv_cores, aic_cores exist in socs/*.toml;
# vec_bytes_per_cycle (256 B = one vector repeat per cycle per AIV core) and
# cube_flops_per_cycle (16x16x16 fp16 MACs = 8192 flops per cycle per AIC core) are new keys,
# used only by the roofline's fallback terms of a profile without per-pipe busy times.
SOC_DEFAULTS = {
    "clock_ghz": 1.8,
    "hbm_bytes_per_cycle": 880.0,
    "vec_bytes_per_cycle": 256.0,
    "cube_flops_per_cycle": 8192.0,
    "launch_overhead_us": 3.0,
    "aiv_cores": 48.0,
    "aic_cores": 24.0,
}
CUBE_FLOPS_PER_FRACTAL = 2 * 16 * 16 * 16
VEC_FALLBACK_ELEM_BYTES = 2  # vector_elems without bytes: assume 2-byte elements (keeps a lower bound)
HBM_BOUND_FRACTION = 0.8


class ProfileError(ValueError):
    """A profile directory or trace that cannot be read."""


# ----------------------------------------------------------------------------------------- model
@dataclass
class PipeStat:
    """One pipe of one core: busy cycles, instructions issued, bytes moved/processed (if known)."""

    busy_cycles: float = 0.0
    instrs: int | None = None
    bytes: float | None = None


@dataclass
class BlockProfile:
    """One row of PipeUtilization.csv: a (block_id, sub_block_id) core.

    Attributes:
        block_id: Logical block index (``GetBlockIdx``).
        sub_block: msprof's ``sub_block_id`` (``vector0``, ``vector1``, ``cube0``).
        core_type: ``aiv`` (AI Vector core) or ``aic`` (AI Cube core).
        cycles: Total cycles of the core (``ai*_total_cycles``).
        time_us: Execution time of the core (``ai*_time(us)``).
        pipes: Per-pipe statistics keyed by :data:`PIPES` names; absent pipes were not reported.
        gm_read_bytes / gm_write_bytes: GM traffic of the core (None when unknown).
        vec_fops / cube_fops: Arithmetic work (ArithmeticUtilization.csv), None when unknown.
        extra: Columns we do not model, kept verbatim from a loaded file.
    """

    block_id: int
    sub_block: str
    core_type: str
    cycles: float
    time_us: float
    pipes: dict[str, PipeStat] = field(default_factory=dict)
    gm_read_bytes: float | None = None
    gm_write_bytes: float | None = None
    vec_fops: float | None = None
    cube_fops: float | None = None
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def core_dir(self) -> str:
        """The simulator's per-core directory name (``core3.veccore0``, ``core3.cubecore0``)."""
        idx = re.sub(r"\D", "", self.sub_block) or "0"
        return f"core{self.block_id}.{'cubecore' if self.core_type == 'aic' else 'veccore'}{idx}"

    def ratio(self, pipe: str) -> float | None:
        p = self.pipes.get(pipe)
        if p is None or self.cycles <= 0:
            return None
        return p.busy_cycles / self.cycles


@dataclass
class InstrStat:
    """One row of a core's ``*_instr_exe.csv``: an instruction's calls and cycles on one core."""

    block_id: int
    sub_block: str
    name: str
    pipe: str
    count: int
    cycles: float
    running_time_us: float | None = None
    addr: str = ""
    detail: str = ""


@dataclass
class TraceSlice:
    """One instruction's execution interval on a pipe (cycles from kernel start). ``sub_block``:
    the core of the block (``vector1``, ``cube0``) when the trace names it (msprof op simulator's
    ``core<B>.veccore<M>`` processes), else empty."""

    block: int
    pipe: str
    name: str
    start_cycle: float
    end_cycle: float
    sub_block: str = ""


@dataclass
class TraceFlow:
    """One SetFlag/WaitFlag pair: set on ``src_pipe`` at ``set_cycle``, wait released at ``wait_cycle``."""

    block: int
    src_pipe: str
    dst_pipe: str
    set_cycle: float
    wait_cycle: float


@dataclass
class BasicInfo:
    """OpBasicInfo.csv (one row)."""

    op_name: str
    op_type: str  # msprof's Op Type: vector | cube | mix
    task_duration_us: float
    block_dim: int
    mix_block_dim: int | None = None
    device_id: int | None = None
    pid: int | None = None
    current_freq_mhz: float | None = None
    rated_freq_mhz: float | None = None
    extra: dict[str, str] = field(default_factory=dict)


@dataclass
class Work:
    """Totals the roofline needs (None when the source does not report them)."""

    gm_read_bytes: float | None = None
    gm_write_bytes: float | None = None
    gm_bytes_total: float | None = None
    hbm_bytes: float | None = None
    l2_hit_bytes: float | None = None
    vec_bytes: float | None = None
    vec_elems: float | None = None
    cube_flops: float | None = None

    @property
    def gm_bytes(self) -> float | None:
        if self.gm_bytes_total is not None:
            return self.gm_bytes_total
        if self.gm_read_bytes is None and self.gm_write_bytes is None:
            return None
        return (self.gm_read_bytes or 0.0) + (self.gm_write_bytes or 0.0)


@dataclass
class Summary:
    """What a profile says: duration, per-pipe ratios, the bound and the roofline.

    The roofline and the bound are defined in :mod:`ascendopt.profile.roofline`;
    ``roofline_terms_us`` holds every term by name (``HBM``, ``L2``, ``vector``, ``cube``,
    ``MTE1``, ``FIX``, ``scalar``), ``roofline_limiter`` names the largest (``HBM`` or ``L2`` for
    the memory term, ``launch`` when there is no work). ``split`` describes an uneven split of the GM traffic among the cores, when there is one
    (:func:`ascendopt.profile.core.work_split`): ``blocks``, ``unit_bytes``, ``units``.
    """

    op_name: str
    op_type: str
    soc: str
    task_duration_us: float
    kernel_time_us: float
    block_dim: int
    mix_block_dim: int | None
    rows: int
    slowest_block: int | None
    pipe_ratio_mean: dict[str, float]
    pipe_ratio_slowest: dict[str, float]
    bound: str
    bound_ratio: float
    hbm_time_us: float | None
    vec_time_us: float | None
    cube_time_us: float | None
    launch_overhead_us: float
    roofline_us: float
    roofline_limiter: str
    achieved_fraction: float | None
    gm_bytes: float | None
    hbm_bytes: float | None
    top_instructions: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)
    split: dict[str, int] | None = None
    l2_time_us: float | None = None
    scalar_time_us: float | None = None
    roofline_terms_us: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


