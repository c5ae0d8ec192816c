"""The Profile: built from a run, written as msprof op files, read back, summarised."""


from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ascendopt.profile.csvio import (
    _ARITH_COLUMNS,
    _BASIC_COLUMNS,
    _INSTR_COLUMNS,
    _MEMORY_COLUMNS,
    _PIPE_UTIL_COLUMNS,
    _block_from_row,
    _core_dir,
    _csv,
    _descend_opprof,
    _find,
    _float,
    _get,
    _int,
    _match_row,
    _num,
    _read_csv,
    _soc_params,
    _sum_opt,
    _work_from,
)
from ascendopt.profile.model import (
    _PIPE_ALIASES,
    _PIPE_DISPLAY,
    _PIPE_METRIC,
    CUBE_FLOPS_PER_FRACTAL,
    CUBE_PIPES,
    NA,
    PIPES,
    SOC_DEFAULTS,
    BasicInfo,
    BlockProfile,
    InstrStat,
    PipeStat,
    ProfileError,
    Summary,
    TraceFlow,
    TraceSlice,
    Work,
)
from ascendopt.profile.roofline import summarize, work_split  # noqa: F401 (work_split: the package exports it)
from ascendopt.profile.trace import (
    _blocks_from_trace,
    _read_chrome_trace,
    parse_trace_csv,
)


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
            soc: SoC name or :class:`~ascendopt.hw.soc.Soc` (for the clock).
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
            if not basic.task_duration_us:  # msprof op simulator: the launch's span on the modelled chip
                first = min(s.start_cycle for s in profile.trace)
                last = max(s.end_cycle for s in profile.trace)
                basic.task_duration_us = (last - first) / (clock * 1e3) if clock else 0.0
                basic.block_dim = basic.block_dim or len({b.block_id for b in profile.blocks})
                kinds = {b.core_type for b in profile.blocks}
                basic.op_type = basic.op_type or ("mix" if kinds == {"aic", "aiv"} else
                                                  "cube" if kinds == {"aic"} else "vector")
        return profile

    # ------------------------------------------------------------------ analysis
    def summary(self, soc: Any = None, top: int = 10) -> Summary:
        """Per-pipe ratios, the roofline lower bound and the bound
        (:func:`ascendopt.profile.roofline.summarize`, whose module docstring defines them).

        Args:
            soc: SoC name or object whose figures price the roofline (default: the profile's).
            top: Instructions to list by cycles.
        """
        return summarize(self, soc, top)
