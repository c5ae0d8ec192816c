"""Trace events: the runner's CSV, Chrome trace.json reading and validation."""


from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ascendopt.profile.model import (
    _PIPE_ALIASES,
    _PIPE_METRIC,
    CUBE_PIPES,
    PIPES,
    BlockProfile,
    PipeStat,
    ProfileError,
    TraceFlow,
    TraceSlice,
)


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
    """Instruction slices and SetFlag/WaitFlag flows of a Chrome trace: ours (integer pid/tid
    named by ``M`` metadata events) or ``msprof op simulator``'s, whose events name the core in
    ``pid`` (``core0.veccore1``) and the pipe in ``tid`` (``MTE2``, ``VECTOR``) and whose flows
    end with a ``t`` event (Ascend/msinsight, the timeline parser's simulation-trace tests).
    Times are microseconds."""
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

    def pipe_of(e: dict[str, Any]) -> str:
        key = (e.get("pid"), e.get("tid"))
        raw = tname.get(key) or (e.get("tid") if isinstance(e.get("tid"), str) else str(e.get("cat", "")))
        return _PIPE_ALIASES.get(raw.upper(), raw)

    cyc = clock * 1e3
    slices: list[TraceSlice] = []
    starts: dict[Any, dict[str, Any]] = {}
    ends: dict[Any, dict[str, Any]] = {}
    for e in events:
        ph = e.get("ph")
        if ph == "X" and e.get("cat") != "sync":
            pid = e.get("pid")
            args = e.get("args", {}) or {}
            s = args.get("start_cycle", float(e.get("ts", 0.0)) * cyc)
            en = args.get("end_cycle", (float(e.get("ts", 0.0)) + float(e.get("dur", 0.0))) * cyc)
            slices.append(TraceSlice(_block_of(pid, pname), pipe_of(e), str(e.get("name", "")), float(s), float(en),
                                     _sub_block_of(pid, pname)))
        elif ph == "s":
            starts[e.get("id")] = e
        elif ph in ("f", "t"):
            ends[e.get("id")] = e
    flows = []
    for fid, s in starts.items():
        f = ends.get(fid)
        if f is None:
            continue
        args = s.get("args", {}) or {}
        flows.append(TraceFlow(_block_of(s.get("pid"), pname), pipe_of(s), pipe_of(f),
                               float(args.get("set_cycle", float(s.get("ts", 0.0)) * cyc)),
                               float(args.get("wait_cycle", float(f.get("ts", 0.0)) * cyc))))
    return slices, flows, int(other.get("trace_truncated", 0) or 0) if isinstance(other, dict) else 0


def _blocks_from_trace(trace: list[TraceSlice], clock: float) -> list[BlockProfile]:
    """Per-core rows from instruction slices: span = first start..last end of the core, busy =
    union per pipe. A core is a block, or a block's named sub-block (``vector1``); slices on
    other channels (msprof's FLOWCTRL, CACHEMISS, ...) count toward the span only."""
    by_core: dict[tuple[int, str], list[TraceSlice]] = {}
    for s in trace:
        by_core.setdefault((s.block, s.sub_block), []).append(s)
    rows = []
    for blk, sub in sorted(by_core):
        sl = by_core[(blk, sub)]
        span = max(s.end_cycle for s in sl) - min(s.start_cycle for s in sl)
        pipes: dict[str, PipeStat] = {}
        for pipe in {s.pipe for s in sl} & set(PIPES):
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
        if sub:  # a named AIC/AIV: only its own pipes
            kind = "aic" if sub.startswith("cube") else "aiv"
            pipes = {k: v for k, v in pipes.items() if kind in _PIPE_METRIC[k][0]}
        else:
            kind = "aic" if set(pipes) & set(CUBE_PIPES) and "V" not in pipes else "aiv"
            sub = "cube0" if kind == "aic" else "vector0"
        rows.append(BlockProfile(blk, sub, kind, span, span / (clock * 1e3) if clock else 0.0, pipes))
    return rows


_EPS_US = 1e-6


def _sub_block_of(pid: Any, pname: dict[Any, str]) -> str:
    """``vector<M>`` / ``cube<M>`` of a process that is one msprof core (``core<B>.veccore<M>`` /
    ``core<B>.cubecore<M>``, as pid or name), else empty (ours name a block's cores together)."""
    for text in (pname.get(pid, ""), str(pid)):
        m = re.fullmatch(r"\s*core\d+\.(vec|cube)core(\d+)\s*", text)
        if m:
            return f"{'vector' if m.group(1) == 'vec' else 'cube'}{m.group(2)}"
    return ""


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

