"""Profile data model: what ``msprof op`` writes, written and read back.

One :class:`Profile` describes one kernel launch. It is built from a simulator run
(:meth:`Profile.from_run`), written in ``msprof op``'s file formats (:meth:`Profile.write`) and
read back from ours or from real ``msprof op`` / ``msprof op simulator`` output
(:meth:`Profile.load`), so the NPU backend can reuse the reader. :meth:`Profile.summary` derives
per-pipe ratios, the bound and a roofline lower bound from it.

Files (column names follow the msOpProf documentation, Ascend/msopprof
``docs/en/user_guide/msopprof_performance_data.md`` for the ``msprof op`` CSVs and
``docs/zh/user_guide/msopprof_simulator_performance_data.md`` for the ``simulator/`` tree)::

    OUT/
      OpBasicInfo.csv              Op Name, Op Type (vector|cube|mix), Task Duration(us), Block Dim,
                                   Mix Block Dim, Device Id, Pid, Current Freq, Rated Freq
      PipeUtilization.csv          one row per (block_id, sub_block_id): aic_*/aiv_* time(us),
                                   total_cycles and per-pipe time(us)/ratio
      Memory.csv                   per row: GM traffic (read/write_main_memory_datas(KB),
                                   GM_to_UB_datas(KB), ...), bandwidths, MTE instruction counts
      ArithmeticUtilization.csv    per row: aic_cube_fops, aiv_vec_fops, cube/vec ratios
      simulator/trace.json         Chrome trace (Perfetto / chrome://tracing): pid = block,
                                   tid = pipe, "X" slices per instruction, "s"/"f" flows per
                                   SetFlag/WaitFlag pair
      simulator/core<B>.veccore0/core<B>.veccore0_instr_exe.csv   (cubecore0 for cube work)
                                   instr, addr, pipe, call_count, cycles, running_time(us), detail
      ascendopt_profile.json       ours: SoC, case, operator and the work totals of the roofline

As real msprof does, every CSV line ends with a trailing comma and missing values are ``NA``.
Our simulator gives each block one core; a block that issues cube pipes (M, MTE1, FIX) is an AI
Cube core (``cube0``), otherwise an AI Vector core (``vector0``); a block doing both is written
as two rows (S/MTE2/MTE3 are attributed to the vector row).
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "BasicInfo",
    "BlockProfile",
    "InstrStat",
    "PIPES",
    "PipeStat",
    "Profile",
    "ProfileError",
    "Summary",
    "TraceFlow",
    "TraceSlice",
    "Work",
    "parse_trace_csv",
    "validate_chrome_trace",
]

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
# cube_flops_per_cycle (16x16x16 fp16 MACs = 8192 flops per cycle per AIC core) are new keys.
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
    """One instruction's execution interval on a pipe (cycles from kernel start)."""

    block: int
    pipe: str
    name: str
    start_cycle: float
    end_cycle: float


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
    """What a profile says: duration, per-pipe ratios, the bound and the roofline."""

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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# ----------------------------------------------------------------------------------------- profile
@dataclass
class Profile:
    """One kernel launch's profile, in msprof's terms."""

    basic: BasicInfo
    blocks: list[BlockProfile] = field(default_factory=list)
    instrs: list[InstrStat] = field(default_factory=list)
    trace: list[TraceSlice] = field(default_factory=list)
    flows: list[TraceFlow] = field(default_factory=list)
    trace_truncated: int = 0
    work: Work = field(default_factory=Work)
    soc: str = ""
    clock_ghz: float = SOC_DEFAULTS["clock_ghz"]
    meta: dict[str, Any] = field(default_factory=dict)

    # ------------------------------------------------------------------ from a simulator run
    @classmethod
    def from_run(cls, run: Any, op_name: str, op_type: str | None = None, soc: Any = None,
                 trace_path: str | Path | None = None) -> "Profile":
        """Builds a profile from a simulator :class:`~ascendopt.backends.base.RunResult`.

        Args:
            run: The RunResult (``profile`` holds the runner's ``cores`` etc.).
            op_name: OpBasicInfo ``Op Name`` (the kernel name).
            op_type: msprof ``Op Type`` (``vector``/``cube``/``mix``); derived from the pipes used
                when None or not one of those (then kept as ``meta["operator"]``).
            soc: SoC name or :class:`~ascendopt.backends.sim.soc.Soc` (for the clock).
            trace_path: Trace CSV written by the runner (default: ``run.profile["trace_path"]``).
        """
        prof = dict(getattr(run, "profile", None) or {})
        soc_name, params = _soc_params(soc)
        clock = float(prof.get("clock_ghz") or params.get("clock_ghz") or SOC_DEFAULTS["clock_ghz"])
        blocks: list[BlockProfile] = []
        instrs: list[InstrStat] = []
        work = Work()
        vec_bytes = vec_elems = cube_frac = l2_hit = hbm = None
        for core in prof.get("cores", []):
            b = int(core.get("block", len({x.block_id for x in blocks})))
            cycles = float(core.get("cycles", 0.0))
            time_us = float(core.get("time_us", cycles / (clock * 1e3) if clock else 0.0))
            pipes: dict[str, PipeStat] = {}
            for name, p in (core.get("pipes") or {}).items():
                key = _PIPE_ALIASES.get(str(name).upper())
                if key is None:
                    continue  # "ALL" and unknown pipes
                pb = p.get("bytes")
                pipes[key] = PipeStat(float(p.get("busy_cycles", 0.0)), int(p.get("instrs", 0) or 0),
                                      None if pb is None else float(pb))
            used = {k for k, p in pipes.items() if p.busy_cycles > 0 or (p.instrs or 0) > 0}
            is_cube = bool(used & set(CUBE_PIPES))
            is_vec = "V" in used or not is_cube
            ve, cf = core.get("vector_elems"), core.get("cube_fractals")
            if pipes.get("V") and pipes["V"].bytes is not None:
                vec_bytes = (vec_bytes or 0.0) + pipes["V"].bytes
            if ve is not None:
                vec_elems = (vec_elems or 0.0) + float(ve)
            if cf is not None:
                cube_frac = (cube_frac or 0.0) + float(cf)
            if core.get("l2_hit_bytes") is not None:
                l2_hit = (l2_hit or 0.0) + float(core["l2_hit_bytes"])
            if core.get("hbm_bytes") is not None:
                hbm = (hbm or 0.0) + float(core["hbm_bytes"])
            gm_in, gm_out = float(core.get("gm_bytes_in", 0)), float(core.get("gm_bytes_out", 0))
            rows = []
            if is_cube:
                cube_p = {k: v for k, v in pipes.items() if k in CUBE_PIPES or not is_vec}
                cube_p = {k: v for k, v in cube_p.items() if "aic" in _PIPE_METRIC[k][0]}
                rows.append(BlockProfile(b, "cube0", "aic", cycles, time_us, cube_p,
                                         None if is_vec else gm_in, None if is_vec else gm_out,
                                         cube_fops=None if cf is None else float(cf) * CUBE_FLOPS_PER_FRACTAL))
            if is_vec:
                vec_p = {k: v for k, v in pipes.items() if "aiv" in _PIPE_METRIC[k][0]}
                rows.append(BlockProfile(b, "vector0", "aiv", cycles, time_us, vec_p, gm_in, gm_out,
                                         vec_fops=None if ve is None else float(ve)))
            blocks.extend(rows)
            for ins in core.get("instrs", []):
                pipe = _PIPE_ALIASES.get(str(ins.get("pipe", "")).upper(), str(ins.get("pipe", "")))
                row = rows[0] if len(rows) == 1 or pipe in CUBE_PIPES else rows[-1]
                cyc = float(ins.get("cycles", 0.0))
                instrs.append(InstrStat(b, row.sub_block, str(ins.get("name", "?")), pipe,
                                        int(ins.get("count", 0)), cyc, cyc / (clock * 1e3) if clock else None))
        reads = [x.gm_read_bytes for x in blocks if x.gm_read_bytes is not None]
        writes = [x.gm_write_bytes for x in blocks if x.gm_write_bytes is not None]
        work.gm_read_bytes = sum(reads) if reads else None
        work.gm_write_bytes = sum(writes) if writes else None
        if prof.get("gm_bytes_total") is not None:
            work.gm_bytes_total = float(prof["gm_bytes_total"])
        if prof.get("hbm_bytes_total") is not None:
            work.hbm_bytes = float(prof["hbm_bytes_total"])
        elif hbm is not None:
            work.hbm_bytes = hbm
        work.l2_hit_bytes = float(prof["l2_hit_bytes"]) if prof.get("l2_hit_bytes") is not None else l2_hit
        work.vec_bytes = vec_bytes
        work.vec_elems = float(prof["vector_elems"]) if prof.get("vector_elems") is not None else vec_elems
        cf_total = float(prof["cube_fractals"]) if prof.get("cube_fractals") is not None else cube_frac
        work.cube_flops = None if cf_total is None else cf_total * CUBE_FLOPS_PER_FRACTAL

        kinds = {x.core_type for x in blocks}
        derived = "mix" if kinds == {"aic", "aiv"} else ("cube" if kinds == {"aic"} else "vector")
        meta: dict[str, Any] = {}
        if op_type and op_type.lower() in ("vector", "cube", "mix"):
            kind = op_type.lower()
        else:
            kind = derived
            if op_type:
                meta["operator"] = op_type
        block_dim = int(getattr(run, "block_dim", 0) or len({x.block_id for x in blocks}))
        mix = None
        if kind == "mix":
            mix = sum(x.core_type == "aiv" for x in blocks)
            block_dim = sum(x.core_type == "aic" for x in blocks) or block_dim
        freq = clock * 1e3
        duration = getattr(run, "task_duration_us", None)
        if prof.get("modeled_task_duration_us") is not None:
            meta["modeled_task_duration_us"] = float(prof["modeled_task_duration_us"])
        meta["tiling_key"] = int(getattr(run, "tiling_key", 0) or 0)
        basic = BasicInfo(op_name, kind, float(duration or 0.0), block_dim, mix, 0, None, freq, freq)
        profile = cls(basic, blocks, instrs, work=work, soc=soc_name, clock_ghz=clock, meta=meta)
        tp = trace_path or prof.get("trace_path")
        if tp and Path(tp).exists():
            profile.trace, profile.flows, profile.trace_truncated = parse_trace_csv(Path(tp).read_text())
        return profile

    # ------------------------------------------------------------------ writing
    def write(self, out_dir: str | Path) -> Path:
        """Writes the msprof-format files (see the module docstring) into ``out_dir``."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "OpBasicInfo.csv").write_text(self._basic_csv())
        (out / "PipeUtilization.csv").write_text(_csv(_PIPE_UTIL_COLUMNS, [self._pipe_row(b) for b in self.blocks]))
        (out / "Memory.csv").write_text(_csv(_MEMORY_COLUMNS, [self._memory_row(b) for b in self.blocks]))
        (out / "ArithmeticUtilization.csv").write_text(
            _csv(_ARITH_COLUMNS, [self._arith_row(b) for b in self.blocks]))
        sim = out / "simulator"
        sim.mkdir(exist_ok=True)
        by_core: dict[str, list[InstrStat]] = {}
        dirs = {(b.block_id, b.sub_block): b.core_dir for b in self.blocks}
        for ins in self.instrs:
            d = dirs.get((ins.block_id, ins.sub_block)) or _core_dir(ins.block_id, ins.sub_block)
            by_core.setdefault(d, []).append(ins)
        for d, rows in by_core.items():
            (sim / d).mkdir(exist_ok=True)
            rows = sorted(rows, key=lambda r: -r.cycles)
            (sim / d / f"{d}_instr_exe.csv").write_text(_csv(_INSTR_COLUMNS, [{
                "instr": r.name, "addr": r.addr or NA, "pipe": _PIPE_DISPLAY.get(r.pipe, r.pipe),
                "call_count": r.count, "cycles": _num(r.cycles),
                "running_time(us)": _num(r.running_time_us if r.running_time_us is not None
                                         else r.cycles / (self.clock_ghz * 1e3)),
                "detail": r.detail or NA} for r in rows]))
        (sim / "trace.json").write_text(json.dumps(self.chrome_trace(), separators=(",", ":")))
        meta = {"format": "ascendopt-profile/1", "soc": self.soc, "clock_ghz": self.clock_ghz,
                "trace_truncated": self.trace_truncated, "work": asdict(self.work), **self.meta}
        (out / "ascendopt_profile.json").write_text(json.dumps(meta, indent=2))
        return out

    def _basic_csv(self) -> str:
        b = self.basic
        row = {"Op Name": b.op_name, "Op Type": b.op_type, "Task Duration(us)": f"{b.task_duration_us:.6f}",
               "Block Dim": b.block_dim, "Mix Block Dim": NA if b.mix_block_dim is None else b.mix_block_dim,
               "Device Id": NA if b.device_id is None else b.device_id, "Pid": NA if b.pid is None else b.pid,
               "Current Freq": _num(b.current_freq_mhz, "{:.0f}"), "Rated Freq": _num(b.rated_freq_mhz, "{:.0f}")}
        return _csv(_BASIC_COLUMNS, [row])

    def _cycles_to_us(self, c: float) -> float:
        return c / (self.clock_ghz * 1e3) if self.clock_ghz else 0.0

    def _pipe_row(self, b: BlockProfile) -> dict[str, Any]:
        row: dict[str, Any] = {"block_id": b.block_id, "sub_block_id": b.sub_block,
                               f"{b.core_type}_time(us)": _num(b.time_us), f"{b.core_type}_total_cycles": _num(b.cycles, "{:.0f}")}
        for pipe, stat in b.pipes.items():
            cores, metric = _PIPE_METRIC[pipe]
            if b.core_type not in cores:
                continue
            row[f"{b.core_type}_{metric}_time(us)"] = _num(self._cycles_to_us(stat.busy_cycles))
            row[f"{b.core_type}_{metric}_ratio"] = _num(b.ratio(pipe))
        return row

    def _memory_row(self, b: BlockProfile) -> dict[str, Any]:
        t = b.core_type
        row: dict[str, Any] = {"block_id": b.block_id, "sub_block_id": b.sub_block,
                               f"{t}_time(us)": _num(b.time_us), f"{t}_total_cycles": _num(b.cycles, "{:.0f}")}
        rd, wr = b.gm_read_bytes, b.gm_write_bytes
        secs = b.time_us * 1e-6
        if rd is not None:
            row["read_main_memory_datas(KB)"] = _num(rd / 1024)
            row[f"{t}_main_mem_read_bw(GB/s)"] = _num(rd / secs / 1e9 if secs > 0 else 0.0)
            row["GM_to_UB_datas(KB)" if t == "aiv" else "GM_to_L1_datas(KB)"] = _num(rd / 1024)
            if t == "aiv":
                row["aiv_gm_to_ub_bw(GB/s)"] = row["aiv_main_mem_read_bw(GB/s)"]
        if wr is not None:
            row["write_main_memory_datas(KB)"] = _num(wr / 1024)
            row[f"{t}_main_mem_write_bw(GB/s)"] = _num(wr / secs / 1e9 if secs > 0 else 0.0)
            row["UB_to_GM_datas(KB)" if t == "aiv" else "L0C_to_GM_datas(KB)"] = _num(wr / 1024)
            if t == "aiv":
                row["aiv_ub_to_gm_bw(GB/s)"] = row["aiv_main_mem_write_bw(GB/s)"]
        for pipe in ("MTE1", "MTE2", "MTE3"):
            stat = b.pipes.get(pipe)
            if stat is None or t not in _PIPE_METRIC[pipe][0]:
                continue
            key = pipe.lower()
            if stat.instrs is not None:
                row[f"{t}_{key}_instructions"] = stat.instrs
            row[f"{t}_{key}_ratio"] = _num(b.ratio(pipe))
        return row

    def _arith_row(self, b: BlockProfile) -> dict[str, Any]:
        t = b.core_type
        row: dict[str, Any] = {"block_id": b.block_id, "sub_block_id": b.sub_block,
                               f"{t}_time(us)": _num(b.time_us), f"{t}_total_cycles": _num(b.cycles, "{:.0f}")}
        if t == "aic":
            row["aic_cube_ratio"] = _num(b.ratio("M"))
            row["aic_cube_fops"] = _num(b.cube_fops, "{:.0f}")
            if "M" in b.pipes and b.pipes["M"].instrs is not None:
                row["aic_cube_total_instr_number"] = b.pipes["M"].instrs
        else:
            row["aiv_vec_ratio"] = _num(b.ratio("V"))
            row["aiv_vec_fops"] = _num(b.vec_fops, "{:.0f}")
        return row

    # ------------------------------------------------------------------ Chrome trace
    def chrome_trace(self) -> dict[str, Any]:
        """The Chrome trace-event JSON of the instruction trace (pid = block, tid = pipe).

        Without a runner trace, one slice per core spanning its execution is written so the
        file still opens and shows the per-core load.
        """
        def us(c: float) -> float:  # rounded to 1 ps so adjacent slices share exact boundaries
            return round(self._cycles_to_us(c), 6)

        events: list[dict[str, Any]] = []
        tid_of = {p: i + 1 for i, p in enumerate(PIPES)}
        names = {}
        for b in self.blocks:
            names.setdefault(b.block_id, []).append(b.core_dir)
        blocks = sorted(set(names) | {s.block for s in self.trace} | {f.block for f in self.flows})
        meta: list[dict[str, Any]] = []
        for blk in blocks:
            label = "/".join(names.get(blk, [])) or f"core{blk}"
            meta.append({"ph": "M", "name": "process_name", "pid": blk, "tid": 0,
                         "args": {"name": f"block {blk} ({label})"}})
            meta.append({"ph": "M", "name": "process_sort_index", "pid": blk, "tid": 0, "args": {"sort_index": blk}})
            tids = {0: "CORE"} if not self.trace else {tid_of[p]: _PIPE_DISPLAY[p] for p in PIPES}
            for tid, tname in tids.items():
                meta.append({"ph": "M", "name": "thread_name", "pid": blk, "tid": tid, "args": {"name": tname}})
                meta.append({"ph": "M", "name": "thread_sort_index", "pid": blk, "tid": tid,
                             "args": {"sort_index": tid}})
        if self.trace:
            for s in self.trace:
                pipe = _PIPE_ALIASES.get(s.pipe.upper(), s.pipe)
                events.append({"ph": "X", "name": s.name, "cat": _PIPE_DISPLAY.get(pipe, pipe), "pid": s.block,
                               "tid": tid_of.get(pipe, 0), "ts": us(s.start_cycle),
                               "dur": max(0.0, round(us(s.end_cycle) - us(s.start_cycle), 6)),
                               "args": {"start_cycle": s.start_cycle, "end_cycle": s.end_cycle}})
        else:
            for b in self.blocks:
                events.append({"ph": "X", "name": f"{b.sub_block} kernel", "cat": b.core_type, "pid": b.block_id,
                               "tid": 0, "ts": 0.0, "dur": us(b.cycles),
                               "args": {"start_cycle": 0.0, "end_cycle": b.cycles}})
        for i, f in enumerate(self.flows, start=1):
            src = _PIPE_ALIASES.get(f.src_pipe.upper(), f.src_pipe)
            dst = _PIPE_ALIASES.get(f.dst_pipe.upper(), f.dst_pipe)
            name = f"{_PIPE_DISPLAY.get(src, src)}->{_PIPE_DISPLAY.get(dst, dst)}"
            # Zero-length slices give the flow arrows an enclosing slice on both ends.
            events.append({"ph": "X", "name": "SetFlag", "cat": "sync", "pid": f.block, "tid": tid_of.get(src, 0),
                           "ts": us(f.set_cycle), "dur": 0.0, "args": {"to": name, "cycle": f.set_cycle}})
            events.append({"ph": "X", "name": "WaitFlag", "cat": "sync", "pid": f.block, "tid": tid_of.get(dst, 0),
                           "ts": us(f.wait_cycle), "dur": 0.0, "args": {"from": name, "cycle": f.wait_cycle}})
            events.append({"ph": "s", "id": i, "name": name, "cat": "sync", "pid": f.block,
                           "tid": tid_of.get(src, 0), "ts": us(f.set_cycle),
                           "args": {"set_cycle": f.set_cycle, "wait_cycle": f.wait_cycle}})
            events.append({"ph": "f", "bp": "e", "id": i, "name": name, "cat": "sync", "pid": f.block,
                           "tid": tid_of.get(dst, 0), "ts": us(f.wait_cycle)})
        # Per thread: by time, enclosing (longer) slices before the ones they contain.
        order = {"X": 0, "s": 1, "f": 1}
        events.sort(key=lambda e: (e["pid"], e["tid"], e["ts"], order.get(e["ph"], 2), -e.get("dur", 0.0)))
        other = {"tool": "ascendopt", "soc": self.soc, "clock_ghz": self.clock_ghz, "op_name": self.basic.op_name,
                 "time_unit": "us", "trace_truncated": self.trace_truncated,
                 "instruction_trace": bool(self.trace)}
        return {"traceEvents": meta + events, "displayTimeUnit": "ns", "otherData": other}

    # ------------------------------------------------------------------ reading
    @classmethod
    def load(cls, path: str | Path) -> "Profile":
        """Reads a profile directory: ours, or ``msprof op`` / ``msprof op simulator`` output.

        Tolerates column order, extra columns, missing aic_/aiv_ groups, ``NA`` values, trailing
        commas and msprof's timestamp-suffixed file names (``PipeUtilization_2024...csv``). A
        directory holding one ``OPPROF_*`` folder is descended into.
        """
        root = Path(path)
        if not root.is_dir():
            raise ProfileError(f"{root}: not a directory")
        root = _descend_opprof(root)
        meta: dict[str, Any] = {}
        mfile = root / "ascendopt_profile.json"
        if mfile.exists():
            try:
                meta = json.loads(mfile.read_text())
            except json.JSONDecodeError as e:
                raise ProfileError(f"{mfile}: {e}") from None
        basic_rows = _read_csv(_find(root, "OpBasicInfo"))
        pipe_rows = _read_csv(_find(root, "PipeUtilization"))
        mem_rows = _read_csv(_find(root, "Memory"))
        arith_rows = _read_csv(_find(root, "ArithmeticUtilization"))
        instr_files = sorted(root.rglob("*_instr_exe*.csv"))
        trace_file = next((p for p in (root / "simulator" / "trace.json", root / "trace.json") if p.exists()), None)
        if not basic_rows and not pipe_rows and not instr_files and trace_file is None:
            raise ProfileError(f"{root}: no msprof profile files (OpBasicInfo.csv, PipeUtilization.csv, ...)")
        b0 = basic_rows[0] if basic_rows else {}
        freq = _float(_get(b0, "Current Freq")) or _float(_get(b0, "Rated Freq"))
        clock = float(meta.get("clock_ghz") or (freq / 1e3 if freq else SOC_DEFAULTS["clock_ghz"]))
        known = {k.lower() for k in _BASIC_COLUMNS}
        basic = BasicInfo(
            op_name=_get(b0, "Op Name") or meta.get("op_name", "") or "",
            op_type=(_get(b0, "Op Type") or "").lower(),
            task_duration_us=_float(_get(b0, "Task Duration(us)")) or 0.0,
            block_dim=_int(_get(b0, "Block Dim")) or 0,
            mix_block_dim=_int(_get(b0, "Mix Block Dim")),
            device_id=_int(_get(b0, "Device Id")),
            pid=_int(_get(b0, "Pid")),
            current_freq_mhz=_float(_get(b0, "Current Freq")),
            rated_freq_mhz=_float(_get(b0, "Rated Freq")),
            extra={k: v for k, v in b0.items() if k.lower() not in known})
        blocks = [_block_from_row(r, clock) for r in pipe_rows]
        index = {(b.block_id, b.sub_block): b for b in blocks}
        for r in mem_rows:
            b = _match_row(index, blocks, r, clock)
            rd = _float(_get(r, "read_main_memory_datas(KB)"))
            if rd is None:
                rd = _sum_opt(_float(_get(r, "GM_to_UB_datas(KB)")), _float(_get(r, "GM_to_L1_datas(KB)")))
            wr = _float(_get(r, "write_main_memory_datas(KB)"))
            if wr is None:
                wr = _sum_opt(_float(_get(r, "UB_to_GM_datas(KB)")), _float(_get(r, "L0C_to_GM_datas(KB)")),
                              _float(_get(r, "L1_to_GM_datas(KB)(estimate)")))
            b.gm_read_bytes = None if rd is None else rd * 1024
            b.gm_write_bytes = None if wr is None else wr * 1024
            for pipe in ("MTE1", "MTE2", "MTE3"):
                n = _int(_get(r, f"{b.core_type}_{pipe.lower()}_instructions"))
                if n is not None:
                    b.pipes.setdefault(pipe, PipeStat(0.0)).instrs = n
        for r in arith_rows:
            b = _match_row(index, blocks, r, clock)
            b.vec_fops = _float(_get(r, "aiv_vec_fops"))
            b.cube_fops = _float(_get(r, "aic_cube_fops"))
        instrs: list[InstrStat] = []
        for f in instr_files:
            m = re.match(r"core(\d+)\.(veccore|cubecore)(\d+)", f.parent.name) or \
                re.match(r"core(\d+)\.(veccore|cubecore)(\d+)", f.name)
            blk, kind, sub = (int(m.group(1)), m.group(2), m.group(3)) if m else (0, "veccore", "0")
            sub_block = f"{'cube' if kind == 'cubecore' else 'vector'}{sub}"
            for r in _read_csv(f):
                pipe_raw = _get(r, "pipe") or ""
                cyc = _float(_get(r, "cycles")) or 0.0
                instrs.append(InstrStat(blk, sub_block, _get(r, "instr") or "?",
                                        _PIPE_ALIASES.get(pipe_raw.upper(), pipe_raw),
                                        _int(_get(r, "call_count")) or 0, cyc, _float(_get(r, "running_time(us)")),
                                        _get(r, "addr") or "", _get(r, "detail") or ""))
        profile = cls(basic, blocks, instrs, soc=str(meta.get("soc", "")), clock_ghz=clock,
                      meta={k: v for k, v in meta.items()
                            if k not in ("format", "soc", "clock_ghz", "work", "trace_truncated")})
        profile.work = _work_from(meta.get("work"), blocks)
        if trace_file is not None:
            profile.trace, profile.flows, trunc = _read_chrome_trace(trace_file, clock)
            profile.trace_truncated = int(meta.get("trace_truncated", trunc) or 0)
        if not profile.blocks and profile.trace:
            profile.blocks = _blocks_from_trace(profile.trace, clock)
            profile.meta.setdefault("derived", "per-core rows derived from trace.json (no PipeUtilization.csv)")
            if not basic.task_duration_us:
                basic.task_duration_us = max(b.time_us for b in profile.blocks)
                basic.block_dim = basic.block_dim or len({b.block_id for b in profile.blocks})
        return profile

    # ------------------------------------------------------------------ analysis
    def summary(self, soc: Any = None, top: int = 10) -> Summary:
        """Per-pipe ratios, the bound and the roofline lower bound (see module docs).

        Ratios are busy cycles / total cycles per core row, averaged over the rows that report
        the pipe and taken on the slowest row. The kernel is HBM-bound when GM bytes / HBM
        bandwidth is at least 80 % of the kernel time (the slowest core's time, or the task
        duration when no per-core time is known); otherwise the busiest pipe of the slowest core
        bounds it. Roofline lower bound = max(GM bytes / HBM bandwidth, vector work / peak vector
        throughput of all AIV cores, cube flops / peak cube throughput of all AIC cores) + launch
        overhead; achieved fraction = lower bound / task duration.
        """
        soc_name, params = _soc_params(soc if soc is not None else (self.soc or None))
        p = {k: float(params.get(k, v)) for k, v in SOC_DEFAULTS.items()}
        if "cube_flops_per_cycle" not in params and params.get("cube_cycles_per_fractal"):
            p["cube_flops_per_cycle"] = CUBE_FLOPS_PER_FRACTAL / float(params["cube_cycles_per_fractal"])
        clock = p["clock_ghz"]
        notes: list[str] = []
        rows = [b for b in self.blocks if b.cycles > 0] or list(self.blocks)
        slowest = max(rows, key=lambda b: b.cycles) if rows else None
        mean: dict[str, float] = {}
        slow: dict[str, float] = {}
        for pipe in PIPES:
            vals = [r for r in (b.ratio(pipe) for b in rows) if r is not None]
            if vals:
                mean[pipe] = sum(vals) / len(vals)
            if slowest is not None and slowest.ratio(pipe) is not None:
                slow[pipe] = slowest.ratio(pipe)  # type: ignore[assignment]
        duration = self.basic.task_duration_us
        kernel_us = max((b.time_us for b in rows), default=0.0) or duration
        gm = self.work.gm_bytes
        hbm_bytes = self.work.hbm_bytes if self.work.hbm_bytes is not None else gm
        hbm_bw = p["hbm_bytes_per_cycle"] * clock * 1e9  # bytes/s
        hbm_us = hbm_bytes / hbm_bw * 1e6 if hbm_bytes is not None and hbm_bw > 0 else None
        vec_us = cube_us = None
        vec_peak = p["vec_bytes_per_cycle"] * p["aiv_cores"] * clock * 1e9
        if self.work.vec_bytes is not None and vec_peak > 0:
            vec_us = self.work.vec_bytes / vec_peak * 1e6
        elif self.work.vec_elems is not None and vec_peak > 0:
            vec_us = self.work.vec_elems * VEC_FALLBACK_ELEM_BYTES / vec_peak * 1e6
            notes.append(f"vector work from element counts, assuming {VEC_FALLBACK_ELEM_BYTES}-byte elements")
        else:
            fops = [b.vec_fops for b in self.blocks if b.vec_fops is not None]
            if fops and vec_peak > 0:
                vec_us = sum(fops) * VEC_FALLBACK_ELEM_BYTES / vec_peak * 1e6
        cube_peak = p["cube_flops_per_cycle"] * p["aic_cores"] * clock * 1e9
        cube_flops = self.work.cube_flops
        if cube_flops is None:
            fops = [b.cube_fops for b in self.blocks if b.cube_fops is not None]
            cube_flops = sum(fops) if fops else None
        if cube_flops is not None and cube_peak > 0:
            cube_us = cube_flops / cube_peak * 1e6
        if hbm_us is None:
            notes.append("no GM byte counts: HBM term of the roofline unknown")
        if vec_us is None and any(b.ratio("V") for b in rows):
            notes.append("no vector work counts: vector term of the roofline unknown")
        if cube_us is None and any(b.ratio("M") for b in rows):
            notes.append("no cube work counts: cube term of the roofline unknown")
        terms = {"HBM": hbm_us, "vector": vec_us, "cube": cube_us}
        limiter, work_us = max(((k, v) for k, v in terms.items() if v is not None), key=lambda kv: kv[1],
                               default=("launch", 0.0))
        launch = p["launch_overhead_us"]
        roof = work_us + launch
        achieved = roof / duration if duration > 0 else None
        if hbm_us is not None and kernel_us > 0 and hbm_us >= HBM_BOUND_FRACTION * kernel_us:
            bound, bound_ratio = "HBM", hbm_us / kernel_us
        elif slow:
            bound, bound_ratio = max(slow.items(), key=lambda kv: kv[1])
            if bound_ratio < 0.5:
                notes.append(f"no pipe is busy more than half of the slowest core's time "
                             f"(busiest {bound} {bound_ratio:.0%}): latency/synchronisation bound")
        else:
            bound, bound_ratio = "unknown", 0.0
        agg: dict[tuple[str, str], list[float]] = {}
        for ins in self.instrs:
            a = agg.setdefault((ins.name, ins.pipe), [0, 0.0])
            a[0] += ins.count
            a[1] += ins.cycles
        total_cyc = sum(a[1] for a in agg.values()) or 1.0
        top_rows = [{"name": n, "pipe": pp, "count": int(c), "cycles": cyc, "share": cyc / total_cyc}
                    for (n, pp), (c, cyc) in sorted(agg.items(), key=lambda kv: -kv[1][1])[:top]]
        if self.trace_truncated:
            notes.append(f"instruction trace truncated ({self.trace_truncated} records dropped)")
        return Summary(
            op_name=self.basic.op_name, op_type=self.basic.op_type, soc=soc_name or self.soc,
            task_duration_us=duration, kernel_time_us=kernel_us, block_dim=self.basic.block_dim,
            mix_block_dim=self.basic.mix_block_dim, rows=len(self.blocks),
            slowest_block=None if slowest is None else slowest.block_id,
            pipe_ratio_mean=mean, pipe_ratio_slowest=slow, bound=bound, bound_ratio=bound_ratio,
            hbm_time_us=hbm_us, vec_time_us=vec_us, cube_time_us=cube_us, launch_overhead_us=launch,
            roofline_us=roof, roofline_limiter=limiter, achieved_fraction=achieved, gm_bytes=gm,
            hbm_bytes=hbm_bytes,
            top_instructions=top_rows, notes=notes)


# ----------------------------------------------------------------------------------------- columns
# OpBasicInfo.csv, msopprof_performance_data.md "OpBasicInfo (Basic Operator Information)".
_BASIC_COLUMNS = ["Op Name", "Op Type", "Task Duration(us)", "Block Dim", "Mix Block Dim", "Device Id", "Pid",
                  "Current Freq", "Rated Freq"]
# PipeUtilization.csv, "PipeUtilization ..." table for Atlas A2/A3 (the subset we model; ai* = aic, aiv).
_PIPE_UTIL_COLUMNS = [
    "block_id", "sub_block_id", "aic_time(us)", "aic_total_cycles", "aiv_time(us)", "aiv_total_cycles",
    "aiv_vec_time(us)", "aiv_vec_ratio", "aic_cube_time(us)", "aic_cube_ratio",
    "aic_scalar_time(us)", "aiv_scalar_time(us)", "aic_scalar_ratio", "aiv_scalar_ratio",
    "aic_fixpipe_time(us)", "aic_fixpipe_ratio", "aic_mte1_time(us)", "aic_mte1_ratio",
    "aic_mte2_time(us)", "aiv_mte2_time(us)", "aic_mte2_ratio", "aiv_mte2_ratio",
    "aic_mte3_time(us)", "aiv_mte3_time(us)", "aic_mte3_ratio", "aiv_mte3_ratio",
]
# Memory.csv, "Memory (Memory Read/Write Bandwidth Rate)" table for Atlas A2/A3 (subset).
_MEMORY_COLUMNS = [
    "block_id", "sub_block_id", "aic_time(us)", "aic_total_cycles", "aiv_time(us)", "aiv_total_cycles",
    "aiv_ub_to_gm_bw(GB/s)", "aiv_gm_to_ub_bw(GB/s)", "aic_main_mem_read_bw(GB/s)", "aiv_main_mem_read_bw(GB/s)",
    "aic_main_mem_write_bw(GB/s)", "aiv_main_mem_write_bw(GB/s)", "aic_mte1_instructions", "aic_mte1_ratio",
    "aic_mte2_instructions", "aiv_mte2_instructions", "aic_mte2_ratio", "aiv_mte2_ratio",
    "aic_mte3_instructions", "aiv_mte3_instructions", "aic_mte3_ratio", "aiv_mte3_ratio",
    "read_main_memory_datas(KB)", "write_main_memory_datas(KB)", "GM_to_L1_datas(KB)", "L0C_to_GM_datas(KB)",
    "GM_to_UB_datas(KB)", "UB_to_GM_datas(KB)",
]
# ArithmeticUtilization.csv, "ArithmeticUtilization ..." table for Atlas A2/A3 (subset).
_ARITH_COLUMNS = [
    "block_id", "sub_block_id", "aic_time(us)", "aic_total_cycles", "aiv_time(us)", "aiv_total_cycles",
    "aic_cube_ratio", "aic_cube_fops", "aic_cube_total_instr_number", "aiv_vec_ratio", "aiv_vec_fops",
]
# core*_instr_exe.csv, msopprof_simulator_performance_data.md (代码指令信息文件).
_INSTR_COLUMNS = ["instr", "addr", "pipe", "call_count", "cycles", "running_time(us)", "detail"]


# ----------------------------------------------------------------------------------------- helpers
def _soc_params(soc: Any) -> tuple[str, dict[str, float]]:
    if soc is None:
        return "", {}
    if isinstance(soc, str):
        from ascendopt.backends.sim.soc import SocError, load_soc

        try:
            s = load_soc(soc)
        except SocError:
            return soc, {}
        return s.name, dict(s.params)
    return str(getattr(soc, "name", "")), dict(getattr(soc, "params", {}) or {})


def _num(v: float | None, fmt: str = "{:.6f}") -> str:
    if v is None:
        return NA
    return fmt.format(v)


def _csv(columns: list[str], rows: list[dict[str, Any]]) -> str:
    """msprof-style CSV: header and rows each end with a trailing comma; missing cells are NA."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([*columns, ""])
    for r in rows:
        w.writerow([*(r.get(c, NA) for c in columns), ""])
    return buf.getvalue()


def _read_csv(path: Path | None) -> list[dict[str, str]]:
    if path is None:
        return []
    text = path.read_text(encoding="utf-8-sig", errors="replace")
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return []
    header = [h.strip() for h in rows[0]]
    out = []
    for r in rows[1:]:
        if not any(c.strip() for c in r):
            continue
        out.append({h: c.strip() for h, c in zip(header, r) if h})
    return out


def _find(root: Path, stem: str) -> Path | None:
    """``STEM.csv`` or msprof's timestamped ``STEM_<digits>.csv`` in root (newest name wins)."""
    exact = root / f"{stem}.csv"
    if exact.exists():
        return exact
    pat = re.compile(rf"^{re.escape(stem)}_\d+\.csv$")
    cands = sorted(p for p in root.glob(f"{stem}_*.csv") if pat.match(p.name))
    return cands[-1] if cands else None


def _descend_opprof(root: Path) -> Path:
    if any(root.glob("*.csv")) or (root / "simulator").is_dir() or (root / "trace.json").exists():
        return root
    subs = [p for p in root.iterdir() if p.is_dir() and p.name.startswith("OPPROF_")]
    return subs[0] if len(subs) == 1 else root


def _norm(key: str) -> str:
    return re.sub(r"\s+", "", key).lower()


def _get(row: dict[str, str], key: str) -> str | None:
    """Case/space-insensitive column lookup; None for missing or NA cells."""
    v = row.get(key)
    if v is None:
        nk = _norm(key)
        for k, val in row.items():
            if _norm(k) == nk:
                v = val
                break
    if v is None or v.strip() in _NA_VALUES:
        return None
    return v.strip()


def _float(v: str | None) -> float | None:
    if v is None:
        return None
    try:
        return float(v.rstrip("%"))
    except ValueError:
        return None


def _int(v: str | None) -> int | None:
    f = _float(v)
    return None if f is None else round(f)


def _sum_opt(*vals: float | None) -> float | None:
    got = [v for v in vals if v is not None]
    return sum(got) if got else None


def _core_dir(block: int, sub_block: str) -> str:
    idx = re.sub(r"\D", "", sub_block) or "0"
    return f"core{block}.{'cubecore' if sub_block.startswith('cube') else 'veccore'}{idx}"


def _row_kind(r: dict[str, str]) -> tuple[str, str]:
    """(core_type, sub_block) of a per-block row; tolerant of numeric sub_block_id values."""
    sub = _get(r, "sub_block_id") or ""
    if sub.lower().startswith("cube"):
        return "aic", sub.lower()
    if sub.lower().startswith(("vector", "vec")):
        return "aiv", sub.lower()
    has_aic = _get(r, "aic_time(us)") is not None or _get(r, "aic_total_cycles") is not None
    has_aiv = _get(r, "aiv_time(us)") is not None or _get(r, "aiv_total_cycles") is not None
    kind = "aic" if has_aic and not has_aiv else "aiv"
    idx = sub if sub.isdigit() else "0"
    return kind, f"{'cube' if kind == 'aic' else 'vector'}{idx}"


def _block_from_row(r: dict[str, str], clock: float) -> BlockProfile:
    kind, sub = _row_kind(r)
    blk = _int(_get(r, "block_id")) or 0
    cycles = _float(_get(r, f"{kind}_total_cycles"))
    t = _float(_get(r, f"{kind}_time(us)"))
    if kind == "aic" and t is None:
        t = _float(_get(r, "aicore_time(us)"))
    if cycles is None and t is not None:
        cycles = t * clock * 1e3
    if t is None and cycles is not None:
        t = cycles / (clock * 1e3)
    cycles, t = cycles or 0.0, t or 0.0
    pipes: dict[str, PipeStat] = {}
    for pipe, (cores, metric) in _PIPE_METRIC.items():
        names = [metric] + (["mac"] if metric == "cube" else [])
        for m in names:
            ratio = _float(_get(r, f"{kind}_{m}_ratio"))
            ptime = _float(_get(r, f"{kind}_{m}_time(us)"))
            if ratio is not None and cycles > 0:
                pipes[pipe] = PipeStat(ratio * cycles)
                break
            if ptime is not None:
                pipes[pipe] = PipeStat(ptime * clock * 1e3)
                break
    known = {_norm(c) for c in _PIPE_UTIL_COLUMNS}
    extra = {k: v for k, v in r.items() if _norm(k) not in known and v not in _NA_VALUES}
    return BlockProfile(blk, sub, kind, cycles, t, pipes, extra=extra)


def _match_row(index: dict[tuple[int, str], BlockProfile], blocks: list[BlockProfile], r: dict[str, str],
               clock: float) -> BlockProfile:
    _, sub = _row_kind(r)
    key = (_int(_get(r, "block_id")) or 0, sub)
    b = index.get(key)
    if b is None:
        b = _block_from_row(r, clock)
        b.extra = {}
        blocks.append(b)
        index[key] = b
    return b


def _work_from(data: Any, blocks: list[BlockProfile]) -> Work:
    if isinstance(data, dict):
        names = set(Work.__dataclass_fields__)
        return Work(**{k: (None if v is None else float(v)) for k, v in data.items() if k in names})
    reads = [b.gm_read_bytes for b in blocks if b.gm_read_bytes is not None]
    writes = [b.gm_write_bytes for b in blocks if b.gm_write_bytes is not None]
    vf = [b.vec_fops for b in blocks if b.vec_fops is not None]
    cf = [b.cube_fops for b in blocks if b.cube_fops is not None]
    return Work(gm_read_bytes=sum(reads) if reads else None, gm_write_bytes=sum(writes) if writes else None,
                vec_elems=sum(vf) if vf else None, cube_flops=sum(cf) if cf else None)


def parse_trace_csv(text: str) -> tuple[list[TraceSlice], list[TraceFlow], int]:
    """Parses the runner's trace CSV.

    Lines: ``i,<block>,<pipe>,<name>,<start_cycle>,<end_cycle>`` per instruction,
    ``f,<block>,<src_pipe>,<dst_pipe>,<set_cycle>,<wait_cycle>`` per synchronisation and
    optionally ``truncated,<n>``. Names may contain commas; blank and ``#`` lines are skipped.
    """
    slices: list[TraceSlice] = []
    flows: list[TraceFlow] = []
    truncated = 0
    for lineno, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(",")
        try:
            if parts[0] == "i" and len(parts) >= 6:
                slices.append(TraceSlice(int(parts[1]), _PIPE_ALIASES.get(parts[2].upper(), parts[2]),
                                         ",".join(parts[3:-2]), float(parts[-2]), float(parts[-1])))
            elif parts[0] == "f" and len(parts) == 6:
                flows.append(TraceFlow(int(parts[1]), _PIPE_ALIASES.get(parts[2].upper(), parts[2]),
                                       _PIPE_ALIASES.get(parts[3].upper(), parts[3]), float(parts[4]),
                                       float(parts[5])))
            elif parts[0] == "truncated" and len(parts) == 2:
                truncated = int(parts[1])
            else:
                raise ValueError("unknown record")
        except ValueError:
            raise ProfileError(f"trace line {lineno}: cannot parse {line[:120]!r}") from None
    return slices, flows, truncated


def _read_chrome_trace(path: Path, clock: float) -> tuple[list[TraceSlice], list[TraceFlow], int]:
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise ProfileError(f"{path}: {e}") from None
    events = data.get("traceEvents", []) if isinstance(data, dict) else data
    other = data.get("otherData", {}) if isinstance(data, dict) else {}
    if isinstance(other, dict) and not other.get("instruction_trace", True):
        return [], [], int(other.get("trace_truncated", 0) or 0)
    tname: dict[tuple[Any, Any], str] = {}
    pname: dict[Any, str] = {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            tname[(e.get("pid"), e.get("tid"))] = str(e.get("args", {}).get("name", ""))
        elif e.get("ph") == "M" and e.get("name") == "process_name":
            pname[e.get("pid")] = str(e.get("args", {}).get("name", ""))
    cyc = clock * 1e3
    slices: list[TraceSlice] = []
    starts: dict[Any, dict[str, Any]] = {}
    ends: dict[Any, dict[str, Any]] = {}
    for e in events:
        ph = e.get("ph")
        if ph == "X" and e.get("cat") != "sync":
            pid = e.get("pid")
            blk = _block_of(pid, pname)
            pipe_raw = tname.get((pid, e.get("tid")), str(e.get("cat", "")))
            args = e.get("args", {}) or {}
            s = args.get("start_cycle", float(e.get("ts", 0.0)) * cyc)
            en = args.get("end_cycle", (float(e.get("ts", 0.0)) + float(e.get("dur", 0.0))) * cyc)
            slices.append(TraceSlice(blk, _PIPE_ALIASES.get(pipe_raw.upper(), pipe_raw), str(e.get("name", "")),
                                     float(s), float(en)))
        elif ph == "s":
            starts[e.get("id")] = e
        elif ph == "f":
            ends[e.get("id")] = e
    flows = []
    for fid, s in starts.items():
        f = ends.get(fid)
        if f is None:
            continue
        pid = s.get("pid")
        blk = _block_of(pid, pname)
        src = tname.get((pid, s.get("tid")), "")
        dst = tname.get((f.get("pid"), f.get("tid")), "")
        args = s.get("args", {}) or {}
        flows.append(TraceFlow(blk, _PIPE_ALIASES.get(src.upper(), src), _PIPE_ALIASES.get(dst.upper(), dst),
                               float(args.get("set_cycle", float(s.get("ts", 0.0)) * cyc)),
                               float(args.get("wait_cycle", float(f.get("ts", 0.0)) * cyc))))
    return slices, flows, int(other.get("trace_truncated", 0) or 0) if isinstance(other, dict) else 0


def _blocks_from_trace(trace: list[TraceSlice], clock: float) -> list[BlockProfile]:
    """Per-block rows from instruction slices: span = first start..last end, busy = union per pipe."""
    by_block: dict[int, list[TraceSlice]] = {}
    for s in trace:
        by_block.setdefault(s.block, []).append(s)
    rows = []
    for blk in sorted(by_block):
        sl = by_block[blk]
        span = max(s.end_cycle for s in sl) - min(s.start_cycle for s in sl)
        pipes: dict[str, PipeStat] = {}
        for pipe in {s.pipe for s in sl}:
            ivs = sorted((s.start_cycle, s.end_cycle) for s in sl if s.pipe == pipe)
            busy, cur_s, cur_e = 0.0, ivs[0][0], ivs[0][1]
            for a, b in ivs[1:]:
                if a > cur_e:
                    busy += cur_e - cur_s
                    cur_s, cur_e = a, b
                else:
                    cur_e = max(cur_e, b)
            busy += cur_e - cur_s
            pipes[pipe] = PipeStat(busy, sum(1 for s in sl if s.pipe == pipe))
        kind = "aic" if set(pipes) & set(CUBE_PIPES) and "V" not in pipes else "aiv"
        rows.append(BlockProfile(blk, "cube0" if kind == "aic" else "vector0", kind, span,
                                 span / (clock * 1e3) if clock else 0.0, pipes))
    return rows


_EPS_US = 1e-6


def _block_of(pid: Any, pname: dict[Any, str]) -> int:
    """Block index of a trace process: ours are ints; msprof names processes like ``core3.veccore0``."""
    for text in (pname.get(pid, ""), str(pid)):
        m = re.search(r"core(\d+)", text) or re.search(r"block\s*(\d+)", text, re.I)
        if m:
            return int(m.group(1))
    if isinstance(pid, int):
        return pid
    digits = re.search(r"\d+", str(pid))
    return int(digits.group(0)) if digits else 0


def validate_chrome_trace(data: dict[str, Any]) -> list[str]:
    """Structural problems of a Chrome trace-event document (empty list when well formed).

    Checks required keys per phase, non-negative durations, timestamps non-decreasing per
    (pid, tid), proper nesting of "X" slices on a thread, and that every flow id has exactly one
    "s" and one "f" with the "f" not before the "s".
    """
    problems: list[str] = []
    if not isinstance(data, dict) or not isinstance(data.get("traceEvents"), list):
        return ["top level must be an object with a traceEvents list"]
    required = {"X": ("name", "ph", "ts", "dur", "pid", "tid"), "M": ("name", "ph", "pid", "args"),
                "s": ("ph", "id", "ts", "pid", "tid", "name"), "f": ("ph", "id", "ts", "pid", "tid", "name")}
    last_ts: dict[tuple[Any, Any], float] = {}
    stacks: dict[tuple[Any, Any], list[float]] = {}
    flows: dict[Any, dict[str, list[dict[str, Any]]]] = {}
    for i, e in enumerate(data["traceEvents"]):
        ph = e.get("ph")
        if ph not in required:
            problems.append(f"event {i}: unsupported phase {ph!r}")
            continue
        missing = [k for k in required[ph] if k not in e]
        if missing:
            problems.append(f"event {i} ({ph}): missing {', '.join(missing)}")
            continue
        if ph == "M":
            continue
        key = (e["pid"], e["tid"])
        ts = float(e["ts"])
        if ts < last_ts.get(key, float("-inf")):
            problems.append(f"event {i}: timestamp {ts} goes backwards on pid {e['pid']} tid {e['tid']}")
        last_ts[key] = ts
        if ph == "X":
            dur = float(e["dur"])
            if dur < 0:
                problems.append(f"event {i}: negative duration")
            st = stacks.setdefault(key, [])
            while st and st[-1] <= ts + _EPS_US:  # slices that ended by now are closed
                st.pop()
            if st and ts + dur > st[-1] + _EPS_US:
                problems.append(f"event {i}: slice [{ts}, {ts + dur}] overlaps its enclosing slice ending {st[-1]}")
            st.append(ts + dur)
        else:
            flows.setdefault(e["id"], {"s": [], "f": []})[ph].append(e)
    for fid, d in flows.items():
        if len(d["s"]) != 1 or len(d["f"]) != 1:
            problems.append(f"flow {fid}: {len(d['s'])} start(s), {len(d['f'])} finish(es)")
        elif float(d["f"][0]["ts"]) < float(d["s"][0]["ts"]):
            problems.append(f"flow {fid}: finishes before it starts")
    return problems

