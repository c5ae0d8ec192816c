"""msprof CSV column sets and tolerant CSV reading helpers."""


from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

from ascendopt.profile.model import (
    _NA_VALUES,
    _PIPE_METRIC,
    NA,
    BlockProfile,
    PipeStat,
    Work,
)

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
        from ascendopt.hw.soc import SocError, load_soc

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


