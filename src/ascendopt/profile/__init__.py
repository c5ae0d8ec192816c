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
from ascendopt.profile.core import Profile, work_split
from ascendopt.profile.model import (
    PIPES,
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
from ascendopt.profile.trace import parse_trace_csv, validate_chrome_trace

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
    "work_split",
]

