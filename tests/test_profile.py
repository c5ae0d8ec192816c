"""Profile: msprof-format writers, the tolerant reader, Chrome trace, summary, ``ascendopt profile``."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from ascendopt.profile import (
    BasicInfo,
    BlockProfile,
    InstrStat,
    PipeStat,
    Profile,
    ProfileError,
    TraceFlow,
    TraceSlice,
    Work,
    parse_trace_csv,
    validate_chrome_trace,
    work_split,
)

HERE = Path(__file__).resolve().parent
MSPROF = HERE / "fixtures" / "msprof"
SCALE_COPY = HERE / "fixtures" / "ops" / "scale_copy"

# Column sets from Ascend/msopprof docs/en/user_guide/msopprof_performance_data.md (A2/A3 tables)
# and docs/zh/user_guide/msopprof_simulator_performance_data.md (core*_instr_exe.csv).
BASIC_COLUMNS = ["Op Name", "Op Type", "Task Duration(us)", "Block Dim", "Mix Block Dim", "Device Id", "Pid",
                 "Current Freq", "Rated Freq"]
PIPE_REQUIRED = {"block_id", "sub_block_id", "aic_time(us)", "aic_total_cycles", "aiv_time(us)", "aiv_total_cycles",
                 "aiv_vec_time(us)", "aiv_vec_ratio", "aic_cube_time(us)", "aic_cube_ratio", "aiv_scalar_time(us)",
                 "aiv_scalar_ratio", "aic_scalar_time(us)", "aic_scalar_ratio", "aiv_mte2_time(us)", "aiv_mte2_ratio",
                 "aiv_mte3_time(us)", "aiv_mte3_ratio", "aic_mte1_time(us)", "aic_mte1_ratio", "aic_mte2_time(us)",
                 "aic_mte2_ratio", "aic_fixpipe_time(us)", "aic_fixpipe_ratio"}
MEMORY_REQUIRED = {"block_id", "sub_block_id", "read_main_memory_datas(KB)", "write_main_memory_datas(KB)",
                   "GM_to_UB_datas(KB)", "UB_to_GM_datas(KB)", "aiv_mte2_instructions", "aiv_mte3_instructions",
                   "aiv_gm_to_ub_bw(GB/s)", "aiv_ub_to_gm_bw(GB/s)"}
ARITH_REQUIRED = {"block_id", "sub_block_id", "aic_cube_fops", "aiv_vec_fops", "aic_cube_ratio", "aiv_vec_ratio"}
INSTR_COLUMNS = ["instr", "addr", "pipe", "call_count", "cycles", "running_time(us)", "detail"]

# A fixed SoC for the numeric checks (independent of the calibrated socs/*.toml figures).
SOC = SimpleNamespace(name="TestSoc", params={"clock_ghz": 1.8, "hbm_bytes_per_cycle": 880.0, "aiv_cores": 48,
                                              "aic_cores": 24, "launch_overhead_us": 3.0,
                                              "vec_bytes_per_cycle": 256.0, "cube_flops_per_cycle": 8192.0})


def _core(block, cycles, pipes, instrs, gm_in=0, gm_out=0, **extra):
    all_pipes = {p: {"busy_cycles": 0.0, "instrs": 0} for p in ("S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX", "ALL")}
    for p, v in pipes.items():
        all_pipes[p] = {"busy_cycles": float(v[0]), "instrs": int(v[1]), **({"bytes": v[2]} if len(v) > 2 else {})}
    return {"block": block, "cycles": float(cycles), "time_us": cycles / 1800.0, "gm_bytes_in": gm_in,
            "gm_bytes_out": gm_out, "pipes": all_pipes,
            "instrs": [{"name": n, "pipe": p, "count": c, "cycles": float(cy)} for n, p, c, cy in instrs], **extra}


def _vector_run():
    cores = [_core(b, 1800 + 180 * b, {"S": (90, 10), "V": (360, 4, 65536.0), "MTE2": (1200, 4), "MTE3": (600, 2)},
                   [("DataCopy", "MTE2", 4, 1200), ("Add", "V", 4, 360), ("DataCopyOut", "MTE3", 2, 600)],
                   gm_in=65536, gm_out=32768, vector_elems=16384)
             for b in range(3)]
    return SimpleNamespace(status="ok", block_dim=3, tiling_key=1, task_duration_us=4.2,
                           profile={"cores": cores, "max_core_cycles": 2160.0, "clock_ghz": 1.8})


def _mixed_run():
    cores = [_core(0, 3600, {"S": (100, 5), "V": (900, 3), "M": (1500, 2), "MTE1": (400, 8), "MTE2": (2000, 4),
                             "MTE3": (300, 1), "FIX": (200, 1)},
                   [("Mmad", "M", 2, 1500), ("LoadData", "MTE1", 8, 400), ("DataCopy", "MTE2", 4, 2000),
                    ("Add", "V", 3, 900), ("Fixpipe", "FIX", 1, 200)], gm_in=40960, gm_out=8192, cube_fractals=64),
             _core(1, 2000, {"M": (1000, 1), "MTE1": (300, 4), "MTE2": (1200, 2), "FIX": (100, 1)},
                   [("Mmad", "M", 1, 1000)], gm_in=20480, gm_out=4096, cube_fractals=32)]
    return SimpleNamespace(status="ok", block_dim=2, tiling_key=0, task_duration_us=5.5,
                           profile={"cores": cores, "max_core_cycles": 3600.0, "clock_ghz": 1.8})


TRACE_CSV = """\
i,0,MTE2,DataCopy,0,600
i,0,V,Add,620,710
f,0,MTE2,V,600,620
i,0,MTE3,DataCopyPad(x, y),720,1020
f,0,V,MTE3,710,720
i,0,S,GetValue,0,10
i,1,MTE2,DataCopy,0,640
i,1,V,Add,650,740
f,1,MTE2,V,640,650
truncated,3
"""


def _header(path: Path) -> list[str]:
    first = path.read_text().splitlines()[0]
    return next(csv.reader(io.StringIO(first)))


# ----------------------------------------------------------------------------------------- writers
def test_writers_produce_documented_columns(tmp_path):
    prof = Profile.from_run(_vector_run(), "add_custom", "AddCustom", "Ascend910B2")
    out = prof.write(tmp_path / "p")
    basic = _header(out / "OpBasicInfo.csv")
    assert basic[-1] == "" and basic[:-1] == BASIC_COLUMNS  # msprof ends every line with a comma
    row = (out / "OpBasicInfo.csv").read_text().splitlines()[1].split(",")
    assert row[:5] == ["add_custom", "vector", "4.200000", "3", "NA"] and row[7:9] == ["1800", "1800"]
    assert PIPE_REQUIRED <= set(_header(out / "PipeUtilization.csv"))
    assert MEMORY_REQUIRED <= set(_header(out / "Memory.csv"))
    assert ARITH_REQUIRED <= set(_header(out / "ArithmeticUtilization.csv"))
    rows = list(csv.DictReader(io.StringIO((out / "PipeUtilization.csv").read_text())))
    assert [r["block_id"] for r in rows] == ["0", "1", "2"] and {r["sub_block_id"] for r in rows} == {"vector0"}
    assert rows[0]["aic_time(us)"] == "NA" and float(rows[0]["aiv_total_cycles"]) == 1800
    assert float(rows[0]["aiv_mte2_ratio"]) == pytest.approx(1200 / 1800, abs=1e-6)
    assert float(rows[0]["aiv_vec_time(us)"]) == pytest.approx(360 / 1800, abs=1e-6)
    instr = out / "simulator" / "core0.veccore0" / "core0.veccore0_instr_exe.csv"
    assert _header(instr)[:-1] == INSTR_COLUMNS
    irows = list(csv.DictReader(io.StringIO(instr.read_text())))
    assert [r["instr"] for r in irows] == ["DataCopy", "DataCopyOut", "Add"]  # by cycles
    assert irows[2]["pipe"] == "VEC" and irows[0]["call_count"] == "4"
    assert (out / "simulator" / "trace.json").exists() and (out / "ascendopt_profile.json").exists()


def test_from_run_mixed_block_gives_cube_and_vector_rows():
    prof = Profile.from_run(_mixed_run(), "mm", None, "Ascend910B2")
    assert prof.basic.op_type == "mix"
    rows = [(b.block_id, b.sub_block) for b in prof.blocks]
    assert rows == [(0, "cube0"), (0, "vector0"), (1, "cube0")]
    assert prof.basic.block_dim == 2 and prof.basic.mix_block_dim == 1
    cube0 = prof.blocks[0]
    assert set(cube0.pipes) == {"M", "MTE1", "FIX"} and set(prof.blocks[1].pipes) == {"S", "V", "MTE2", "MTE3"}
    assert prof.blocks[2].gm_read_bytes == 20480 and "MTE2" in prof.blocks[2].pipes
    assert prof.work.cube_flops == (64 + 32) * 8192
    mm = [i for i in prof.instrs if i.name == "Mmad" and i.block_id == 0][0]
    assert mm.sub_block == "cube0"
    assert [i.sub_block for i in prof.instrs if i.name == "Add"] == ["vector0"]


# ----------------------------------------------------------------------------------------- round trip
def test_round_trip_write_load(tmp_path):
    trace = tmp_path / "trace.csv"
    trace.write_text(TRACE_CSV)
    prof = Profile.from_run(_vector_run(), "add_custom", "vector", "Ascend910B2", trace_path=trace)
    back = Profile.load(prof.write(tmp_path / "p"))
    assert back.basic.op_name == "add_custom" and back.basic.op_type == "vector"
    assert back.basic.task_duration_us == pytest.approx(4.2) and back.basic.block_dim == 3
    assert back.basic.mix_block_dim is None and back.basic.current_freq_mhz == 1800
    assert back.soc == "Ascend910B2" and back.clock_ghz == pytest.approx(1.8)
    assert len(back.blocks) == len(prof.blocks)
    for a, b in zip(prof.blocks, back.blocks):
        assert (a.block_id, a.sub_block, a.core_type) == (b.block_id, b.sub_block, b.core_type)
        assert b.cycles == pytest.approx(a.cycles) and b.time_us == pytest.approx(a.time_us, abs=1e-5)
        assert set(b.pipes) == set(a.pipes)
        for k in a.pipes:
            assert b.pipes[k].busy_cycles == pytest.approx(a.pipes[k].busy_cycles, rel=1e-4)
        assert b.pipes["MTE2"].instrs == a.pipes["MTE2"].instrs
        assert b.gm_read_bytes == pytest.approx(a.gm_read_bytes) and b.gm_write_bytes == pytest.approx(a.gm_write_bytes)
        assert b.vec_fops == pytest.approx(a.vec_fops)
    key = lambda i: (i.block_id, i.name, i.pipe)  # noqa: E731
    assert sorted((key(i), i.count, i.cycles) for i in back.instrs) == sorted((key(i), i.count, i.cycles) for i in prof.instrs)
    assert back.work == prof.work
    assert sorted(back.trace, key=lambda s: (s.block, s.pipe, s.start_cycle)) == \
        sorted(prof.trace, key=lambda s: (s.block, s.pipe, s.start_cycle))
    assert sorted(back.flows, key=lambda f: (f.block, f.set_cycle)) == sorted(prof.flows, key=lambda f: (f.block, f.set_cycle))
    assert back.trace_truncated == 3
    sa, sb = prof.summary().to_dict(), back.summary().to_dict()
    for k, v in sa.items():
        if isinstance(v, dict):
            assert sb[k] == pytest.approx(v, rel=1e-5), k
        elif isinstance(v, float):
            assert sb[k] == pytest.approx(v, rel=1e-5), k
        elif k != "top_instructions":
            assert sb[k] == v, k


def test_round_trip_mixed(tmp_path):
    prof = Profile.from_run(_mixed_run(), "mm", "MatmulCustom", "Ascend910B2")
    back = Profile.load(prof.write(tmp_path / "p"))
    assert back.basic.op_type == "mix" and back.basic.mix_block_dim == 1
    assert [(b.block_id, b.sub_block, b.core_type) for b in back.blocks] == \
        [(b.block_id, b.sub_block, b.core_type) for b in prof.blocks]
    assert back.blocks[0].pipes["M"].busy_cycles == pytest.approx(1500, rel=1e-4)
    assert back.meta["operator"] == "MatmulCustom"
    assert (tmp_path / "p" / "simulator" / "core0.cubecore0" / "core0.cubecore0_instr_exe.csv").exists()


# ----------------------------------------------------------------------------------------- real msprof output
def test_load_real_vector_fixture_descends_opprof_and_ignores_extras():
    p = Profile.load(MSPROF / "opprof_vector")  # holds one OPPROF_<timestamp>_<id> folder
    assert (p.basic.op_name, p.basic.op_type, p.basic.block_dim, p.basic.pid) == ("add_custom_0", "vector", 4, 43210)
    assert p.basic.mix_block_dim is None and p.basic.task_duration_us == 12.5
    assert [b.block_id for b in p.blocks] == [0, 1, 2, 3] and {b.core_type for b in p.blocks} == {"aiv"}
    b0 = p.blocks[0]
    assert b0.cycles == 18000 and b0.time_us == 10.0
    assert b0.ratio("MTE2") == pytest.approx(0.8) and b0.ratio("V") == pytest.approx(0.2) and b0.ratio("M") is None
    assert b0.pipes["MTE2"].instrs == 16 and b0.gm_read_bytes == 1000 * 1024 and b0.gm_write_bytes == 500 * 1024
    assert b0.vec_fops == 262144
    assert "aiv_icache_miss_rate" in b0.extra and "aiv_mte2_active_bw(GB/s)" in b0.extra
    s = p.summary(SOC)
    assert s.bound == "MTE2" and s.slowest_block == 0
    assert s.gm_bytes == 4 * 1500 * 1024
    hbm = 4 * 1500 * 1024 / (880 * 1.8e9) * 1e6
    assert s.hbm_time_us == pytest.approx(hbm) and s.roofline_limiter == "HBM"
    assert s.roofline_us == pytest.approx(hbm + 3.0) and s.achieved_fraction == pytest.approx((hbm + 3.0) / 12.5)


def test_load_real_mix_fixture_timestamped_reordered_columns():
    p = Profile.load(MSPROF / "opprof_mix_timestamped")
    assert (p.basic.op_name, p.basic.op_type, p.basic.block_dim, p.basic.mix_block_dim) == \
        ("matmul_leakyrelu_custom_1", "mix", 2, 4)
    assert p.basic.pid is None and p.basic.extra == {"Model Name": "extra_value"}
    assert p.clock_ghz == pytest.approx(1.65)  # from Current Freq
    kinds = [(b.block_id, b.sub_block, b.core_type) for b in p.blocks]
    assert kinds == [(0, "cube0", "aic"), (0, "vector0", "aiv"), (0, "vector1", "aiv"),
                     (1, "cube0", "aic"), (1, "vector0", "aiv"), (1, "vector1", "aiv")]
    cube = p.blocks[3]
    assert cube.cycles == 54450 and cube.ratio("M") == pytest.approx(0.65) and "V" not in cube.pipes
    assert p.blocks[2].ratio("V") == pytest.approx(0.45)
    s = p.summary("Ascend910B2")
    assert s.bound == "M" and s.slowest_block == 1
    assert s.pipe_ratio_mean["V"] == pytest.approx((0.5 + 0.45 + 0.5 + 0.5) / 4)
    assert s.hbm_time_us is None and any("GM byte" in n for n in s.notes)  # no Memory.csv


def test_load_simulator_only_fixture():
    p = Profile.load(MSPROF / "simulator_only")
    names = {(i.block_id, i.name) for i in p.instrs}
    assert (0, "MOV_OUT_TO_UB") in names and (1, "VADD") in names
    vadd = [i for i in p.instrs if i.name == "VADD" and i.block_id == 0][0]
    assert vadd.pipe == "V" and vadd.count == 16 and vadd.addr == "0x1180"
    assert {s.block for s in p.trace} == {0, 1}
    assert p.flows == [TraceFlow(0, "MTE2", "V", pytest.approx(900.0), pytest.approx(1080.0))]
    assert [b.block_id for b in p.blocks] == [0, 1]  # derived from the trace
    assert p.summary().top_instructions[0]["name"] == "MOV_OUT_TO_UB"


def test_load_errors(tmp_path):
    with pytest.raises(ProfileError, match="not a directory"):
        Profile.load(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ProfileError, match="no msprof profile files"):
        Profile.load(tmp_path / "empty")


# ----------------------------------------------------------------------------------------- trace
def test_parse_trace_csv():
    slices, flows, trunc = parse_trace_csv(TRACE_CSV + "\n# comment\n")
    assert len(slices) == 6 and len(flows) == 3 and trunc == 3
    assert slices[2] == TraceSlice(0, "MTE3", "DataCopyPad(x, y)", 720.0, 1020.0)
    assert flows[0] == TraceFlow(0, "MTE2", "V", 600.0, 620.0)
    with pytest.raises(ProfileError, match="line 1"):
        parse_trace_csv("x,1,2\n")


def test_chrome_trace_structure(tmp_path):
    trace = tmp_path / "trace.csv"
    trace.write_text(TRACE_CSV)
    prof = Profile.from_run(_vector_run(), "add_custom", "vector", "Ascend910B2", trace_path=trace)
    out = prof.write(tmp_path / "p")
    data = json.loads((out / "simulator" / "trace.json").read_text())
    assert validate_chrome_trace(data) == []
    ev = data["traceEvents"]
    meta = [e for e in ev if e["ph"] == "M"]
    assert {e["name"] for e in meta} >= {"process_name", "thread_name"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in meta if e["name"] == "thread_name"}
    xs = [e for e in ev if e["ph"] == "X" and e["cat"] != "sync"]
    assert len(xs) == 6
    for e in xs:
        assert {"name", "ph", "ts", "dur", "pid", "tid"} <= set(e) and e["dur"] >= 0
        assert (e["pid"], e["tid"]) in threads
    add = [e for e in xs if e["name"] == "Add" and e["pid"] == 0][0]
    assert threads[(0, add["tid"])] == "VEC" and add["ts"] == pytest.approx(620 / 1800, abs=1e-6) \
        and add["dur"] == pytest.approx(90 / 1800, abs=1e-6)
    last: dict = {}
    for e in ev:
        if e["ph"] != "M":
            assert e["ts"] >= last.get((e["pid"], e["tid"]), -1.0)
            last[(e["pid"], e["tid"])] = e["ts"]
    s_ids = sorted(e["id"] for e in ev if e["ph"] == "s")
    f_ids = sorted(e["id"] for e in ev if e["ph"] == "f")
    assert s_ids == f_ids == [1, 2, 3]
    assert all(e.get("bp") == "e" for e in ev if e["ph"] == "f")
    # The validator catches what Perfetto would choke on.
    bad = {"traceEvents": [{"ph": "X", "name": "a", "pid": 0, "tid": 1, "ts": 1.0, "dur": 5.0},
                           {"ph": "X", "name": "b", "pid": 0, "tid": 1, "ts": 2.0, "dur": 9.0},
                           {"ph": "X", "name": "c", "pid": 0, "tid": 1, "ts": 0.5, "dur": 1.0},
                           {"ph": "s", "name": "x", "id": 9, "pid": 0, "tid": 1, "ts": 1.0}]}
    problems = validate_chrome_trace(bad)
    assert any("overlaps" in p for p in problems) and any("backwards" in p for p in problems)
    assert any("flow 9" in p for p in problems)


def test_chrome_trace_without_instruction_trace(tmp_path):
    prof = Profile.from_run(_vector_run(), "add_custom", "vector", "Ascend910B2")
    data = prof.chrome_trace()
    assert validate_chrome_trace(data) == []
    xs = [e for e in data["traceEvents"] if e["ph"] == "X"]
    assert len(xs) == 3 and xs[1]["dur"] == pytest.approx(1980 / 1800)
    assert Profile.load(prof.write(tmp_path / "p")).trace == []


# ----------------------------------------------------------------------------------------- summary
def _synthetic(blocks, duration, work, op_type="vector"):
    return Profile(BasicInfo("k", op_type, duration, len(blocks)), blocks, work=work, soc="Ascend910B2")


def test_summary_hbm_bound_and_roofline():
    clock = 1.8
    blocks = [BlockProfile(b, "vector0", "aiv", 18000, 10.0,
                           {"MTE2": PipeStat(16000), "MTE3": PipeStat(9000), "V": PipeStat(2000), "S": PipeStat(500)})
              for b in range(2)]
    gm = 880 * clock * 1e3 * 9.0  # bytes moved at full HBM bandwidth in 9 us
    s = _synthetic(blocks, 13.0, Work(gm_read_bytes=gm / 2, gm_write_bytes=gm / 2, vec_bytes=256 * 48 * 1800 * 1.0)) \
        .summary(SOC)
    # the vector term is the V pipe's busy time over all cores (the byte count is only a fallback)
    assert s.hbm_time_us == pytest.approx(9.0) and s.vec_time_us == pytest.approx(2 * 2000 / 48 / 1800)
    assert s.bound == "HBM" and s.bound_ratio == pytest.approx(0.9)
    assert s.roofline_limiter == "HBM" and s.roofline_us == pytest.approx(12.0)
    assert s.achieved_fraction == pytest.approx(12.0 / 13.0)
    # bytes that reached HBM (after L2 hits) set the HBM term when the run reports them
    s3 = _synthetic(blocks, 13.0, Work(gm_bytes_total=gm, hbm_bytes=gm / 3)).summary(SOC)
    assert s3.hbm_time_us == pytest.approx(3.0) and s3.gm_bytes == gm and s3.bound == "MTE2"
    assert s.pipe_ratio_mean["MTE2"] == pytest.approx(16000 / 18000)


def test_summary_pipe_bound_slowest_block_and_cube_roofline():
    blocks = [BlockProfile(0, "cube0", "aic", 9000, 5.0, {"M": PipeStat(8000), "MTE1": PipeStat(3000),
                                                          "MTE2": PipeStat(2000)}),
              BlockProfile(1, "cube0", "aic", 4500, 2.5, {"M": PipeStat(1000), "MTE1": PipeStat(4000),
                                                          "MTE2": PipeStat(1000)})]
    flops = 8192 * 24 * 1.8e9 * 2e-6  # 2 us at peak on all 24 cube cores
    s = _synthetic(blocks, 10.0, Work(gm_bytes_total=1e5, cube_flops=flops), "cube").summary(SOC)
    assert s.bound == "M" and s.slowest_block == 0 and s.bound_ratio == pytest.approx(8000 / 9000)
    assert s.pipe_ratio_mean["MTE1"] == pytest.approx((3000 / 9000 + 4000 / 4500) / 2)
    assert s.pipe_ratio_slowest == {"M": pytest.approx(8000 / 9000), "MTE1": pytest.approx(3000 / 9000),
                                    "MTE2": pytest.approx(2000 / 9000)}
    # the cube term is the M pipe's busy cycles spread over the cores: 9000 / 48 cycles
    cube = 9000 / 48 / 1800
    assert s.cube_time_us == pytest.approx(cube) and s.roofline_limiter == "cube"
    assert s.roofline_terms_us["MTE1"] == pytest.approx(7000 / 48 / 1800)
    assert s.roofline_us == pytest.approx(3.0 + cube) and s.achieved_fraction == pytest.approx((3.0 + cube) / 10)
    # without per-pipe busy times the flop count at peak stands in
    bare = [BlockProfile(b.block_id, "cube0", "aic", b.cycles, b.time_us, {}) for b in blocks]
    s2 = _synthetic(bare, 10.0, Work(gm_bytes_total=1e5, cube_flops=flops), "cube").summary(SOC)
    assert s2.cube_time_us == pytest.approx(2.0) and s2.roofline_limiter == "cube" and s2.bound == "unknown"


def test_work_split_infers_units_from_the_cores_gm_bytes():
    def blocks(per_core_bytes, core_type="aiv"):
        return [BlockProfile(i, "vector0", core_type, 1000, 1.0, {}, gm_read_bytes=2 * v / 3, gm_write_bytes=v / 3)
                for i, v in enumerate(per_core_bytes)]

    # 100 units of 96 B over 8 cores: 4 cores get 13 units, 4 get 12
    assert work_split(blocks([13 * 96] * 4 + [12 * 96] * 4)) == {"blocks": 8, "unit_bytes": 96, "units": 100}
    assert work_split(blocks([12 * 96] * 8)) is None                   # even: nothing to say
    assert work_split(blocks([1200, 1300, 1000])) == {"blocks": 3, "unit_bytes": 100, "units": 35}
    assert work_split(blocks([1201, 1300])) is None                    # no whole units (gcd 99 does not divide)
    # every core also reads a 4000 B weight: rows of 8000 B, but the row count cannot be told
    assert work_split(blocks([4000 + 86 * 8000] * 8 + [4000 + 85 * 8000] * 40)) is None
    assert work_split([BlockProfile(0, "vector0", "aiv", 1, 1.0, {})] * 2) is None  # bytes unknown
    assert work_split([]) is None
    # only the most frequent core type counts
    mixed = blocks([300, 200, 200]) + blocks([999], "aic")
    assert work_split(mixed) == {"blocks": 3, "unit_bytes": 100, "units": 7}
    s = _synthetic(blocks([13 * 96] * 4 + [12 * 96] * 4), 2.0, Work(gm_bytes_total=9600)).summary(SOC)
    assert s.split == {"blocks": 8, "unit_bytes": 96, "units": 100} and s.to_dict()["split"] == s.split


def test_summary_soc_override_and_latency_note():
    blocks = [BlockProfile(0, "vector0", "aiv", 1000, 1000 / 1800, {"V": PipeStat(100), "MTE2": PipeStat(200)})]
    prof = _synthetic(blocks, 4.0, Work(gm_bytes_total=1000.0))
    prof.instrs = [InstrStat(0, "vector0", "Add", "V", 3, 100.0), InstrStat(0, "vector0", "DataCopy", "MTE2", 2, 200.0)]
    soc = SimpleNamespace(name="Fake", params={"hbm_bytes_per_cycle": 1.0, "clock_ghz": 1.0, "launch_overhead_us": 0.5})
    s = prof.summary(soc)
    assert s.soc == "Fake" and s.hbm_time_us == pytest.approx(1.0)  # 1000 B / (1 B/cycle * 1 GHz)
    assert s.roofline_us == pytest.approx(1.5)
    assert s.bound == "HBM"  # 1 us of HBM time >= 80% of the 0.556 us kernel
    assert [r["name"] for r in s.top_instructions] == ["DataCopy", "Add"]
    s2 = _synthetic(blocks, 4.0, Work()).summary(SOC)
    # no pipe busy more than half of the time: the bound says so (MTE2, the busiest, is 20 % busy)
    assert s2.bound == "latency/synchronization" and s2.bound_ratio == pytest.approx(0.2)
    assert any("MTE2 20%" in n for n in s2.notes)
    assert s2.roofline_limiter == "vector" and s2.roofline_us == pytest.approx(3.0 + 100 / 48 / 1800)
    idle = [BlockProfile(0, "vector0", "aiv", 1000, 1000 / 1800, {})]
    s4 = _synthetic(idle, 4.0, Work()).summary(SOC)
    assert s4.roofline_limiter == "launch" and s4.roofline_us == pytest.approx(3.0)
    json.dumps(s2.to_dict())


# ----------------------------------------------------------------------------------------- end to end
@pytest.fixture(scope="module")
def shared_cache_env(tmp_path_factory, sim_cache, backend):
    """ASCENDOPT_CACHE whose sim/ is the session cache, so the CLI reuses the session's builds."""
    root = tmp_path_factory.mktemp("clicache")
    (root / "sim").symlink_to(sim_cache, target_is_directory=True)
    return str(root)


def test_backend_trace_path_option(backend, tmp_path):
    from ascendopt.cases import load_op_cases, make_inputs
    from ascendopt.evaluate.check import case_dtypes
    from ascendopt.operator import Operator

    op = Operator.load(SCALE_COPY)
    case = [c for c in load_op_cases(SCALE_COPY) if c.name == "small_tail"][0]
    build = backend.build(op, case_dtypes(case))
    rr = backend.run(build, op, case, make_inputs(case, 0), trace_path=tmp_path / "t.csv")
    assert rr.status.value == "ok"
    prof = Profile.from_run(rr, op.kernel_entry, op.op_type, backend.soc)
    if (tmp_path / "t.csv").exists():  # once the runner writes traces
        assert rr.profile["trace_path"] == str(tmp_path / "t.csv") and prof.trace
        assert validate_chrome_trace(prof.chrome_trace()) == []
    else:
        assert "trace_path" not in rr.profile and prof.trace == []
    assert prof.basic.block_dim == rr.block_dim and len(prof.blocks) == rr.block_dim


def test_cli_profile_end_to_end(shared_cache_env, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from ascendopt.cli import app

    monkeypatch.setenv("ASCENDOPT_CACHE", shared_cache_env)
    runner = CliRunner()
    out = tmp_path / "prof"
    res = runner.invoke(app, ["profile", str(SCALE_COPY), "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["case"] == "many_cores"  # the largest case by input elements
    assert data["check"]["status"] == "ok"
    s = data["summary"]
    assert s["block_dim"] == 48 and s["op_type"] == "vector" and s["task_duration_us"] > 0
    assert s["bound"] in ("MTE2", "MTE3", "HBM") and 0 < s["achieved_fraction"] <= 1.0
    assert s["gm_bytes"] >= 2 * 64 * 3001 * 4
    loaded = Profile.load(out)
    assert loaded.basic.block_dim == 48 and len(loaded.blocks) == 48 and loaded.meta["case"] == "many_cores"
    assert validate_chrome_trace(json.loads((out / "simulator" / "trace.json").read_text())) == []

    # rich output, explicit case
    res = runner.invoke(app, ["profile", str(SCALE_COPY), "--case", "small_tail", "--out", str(tmp_path / "p2")])
    assert res.exit_code == 0, res.output
    assert "bound" in res.output and "roofline" in res.output and "small_tail" in res.output

    # a wrong result is reported (exit 1) and the profile is still written
    bad = tmp_path / "bad_golden.py"
    bad.write_text("def calc(x, y):\n    return [x['value'] * 3.0]\n")
    res = runner.invoke(app, ["profile", str(SCALE_COPY), "--case", "small_tail", "--golden", f"{bad}:calc",
                              "--out", str(tmp_path / "p3"), "--json"])
    assert res.exit_code == 1, res.output
    assert json.loads(res.stdout)["check"]["status"] == "wrong_result"
    assert (tmp_path / "p3" / "OpBasicInfo.csv").exists()

    # clear errors, no tracebacks
    res = runner.invoke(app, ["profile", str(SCALE_COPY), "--case", "nope"])
    assert res.exit_code == 2 and "unknown case" in res.output and "Traceback" not in res.output
    res = runner.invoke(app, ["profile", str(tmp_path / "missing_op")])
    assert res.exit_code == 2 and "Traceback" not in res.output
    res = runner.invoke(app, ["profile", str(SCALE_COPY), "--soc", "NoSuchSoc"])
    assert res.exit_code == 2 and "unknown SoC" in res.output


def test_cli_run_reports_failures_readably(shared_cache_env, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from ascendopt.cli import app

    monkeypatch.setenv("ASCENDOPT_CACHE", shared_cache_env)
    runner = CliRunner()
    res = runner.invoke(app, ["run", str(SCALE_COPY), "--case", "small_tail", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["passed"] == 1
    # a wrong result: exit 1, the case's message without markup shown literally
    bad = tmp_path / "bad_golden.py"
    bad.write_text("def calc(x, y):\n    return [x['value'] * 3.0]\n")
    res = runner.invoke(app, ["run", str(SCALE_COPY), "--case", "small_tail", "--golden", f"{bad}:calc"])
    assert res.exit_code == 1, res.output
    assert "small_tail wrong_result" in res.output and "[bold]" not in res.output and "0 passed, 1 failed" in res.output
    # a golden override that does not load is said once, up front (exit 2)
    res = runner.invoke(app, ["run", str(SCALE_COPY), "--golden", f"{tmp_path / 'nofile.py'}:calc"])
    assert res.exit_code == 2 and "golden file not found" in res.output and "case_error" not in res.output


def test_bound_rules():
    """The bound: the busiest pipe of the slowest core, HBM when the chip's HBM share is at least
    as large (or 80 % of a GM copy pipe's, whose busy time holds the transfers), and
    latency/synchronization when nothing is busy more than half of the time."""
    from ascendopt.profile.roofline import LATENCY_BOUND, choose_bound

    assert choose_bound({"V": 0.9, "MTE2": 0.6}, 0.55) == ("V", 0.9)
    assert choose_bound({"V": 0.6, "MTE2": 0.3}, 0.7) == ("HBM", 0.7)
    assert choose_bound({"MTE2": 0.95, "V": 0.3}, 0.8) == ("HBM", 0.8)
    assert choose_bound({"MTE2": 0.95}, 0.7) == ("MTE2", 0.95)
    assert choose_bound({"S": 0.3, "MTE2": 0.4}, 0.45) == (LATENCY_BOUND, 0.4)
    assert choose_bound({"S": 0.3}, None) == (LATENCY_BOUND, 0.3)
    assert choose_bound({}, None) == ("unknown", 0.0)


def test_roofline_terms_of_a_simulator_run():
    """Per-pipe terms are the busy cycles summed over the cores / the chip's cores; the memory
    term is HBM time + L2 time (one core's GM channel serialises them)."""
    run = _vector_run()
    run.profile.update(hbm_bytes_total=880 * 1800 * 2.0, l2_hit_bytes=3550 * 1800 * 1.0)
    soc = SimpleNamespace(name="T", params={**SOC.params, "l2_bytes_per_cycle": 3550.0})
    s = Profile.from_run(run, "add_custom", "vector", soc).summary(soc)
    t = s.roofline_terms_us
    assert t["HBM"] == pytest.approx(2.0) and t["L2"] == pytest.approx(1.0) and s.l2_time_us == pytest.approx(1.0)
    assert t["vector"] == pytest.approx(3 * 360 / 48 / 1800) and t["scalar"] == pytest.approx(3 * 90 / 48 / 1800)
    assert s.roofline_limiter == "HBM" and s.roofline_us == pytest.approx(3.0 + 3.0)


def test_slowest_core_doing_cube_and_vector_work_is_both_its_rows():
    """A simulator core issuing cube and vector pipes is written as a cube row and a vector row;
    the bound reads both (before: only the cube row, so M at 42 % named the bound while MTE2
    was 56 % busy on the same core)."""
    s = Profile.from_run(_mixed_run(), "matmul_add", "mix", SOC).summary(SOC)
    assert s.slowest_block == 0 and s.pipe_ratio_slowest["MTE2"] == pytest.approx(2000 / 3600)
    assert s.pipe_ratio_slowest["M"] == pytest.approx(1500 / 3600)
    assert s.bound == "MTE2" and s.bound_ratio == pytest.approx(2000 / 3600)
