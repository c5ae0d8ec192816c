"""Kernel forms of the A2 (dav_c220) toolchain that cann-ops' matmul kernels use, on our
scale_copy fixture (y = 2 x) rewritten with them:
- copy_gm_to_ubuf_align_b32 / copy_ubuf_to_gm_align_b32 on raw pointers (DataCopyPad's
  instruction: byte lengths, GM gaps in bytes), unaligned tails included;
- a __BLOCK_LOCAL__ global (one per core: each core counts its own tiles in it);
- NotifyEvent / WaitEvent / wait_flag_dev (a vector-only core is its own partner: its waits are
  satisfied by its own notifications, or the launch deadlocks);
- TOTAL_UB_SIZE / TOTAL_L1_SIZE, the SyncAll flag ids, DEFAULT_DATA_COPY_NBURST / STRIDE, PRELOAD, and the ge::Format macros the device
  build defines (`#if defined(FORMAT_X) && FORMAT_X == FORMAT_FRACTAL_NZ` is not a syntax error).
Before, the kernel did not compile."""

from __future__ import annotations

import shutil

from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import CheckConfig, check_operator
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS

COPY_IN = """        DataCopyExtParams params{1, n * (uint32_t)sizeof(float), 0, 0, 0};
        DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
        DataCopyPad(xLocal, xGm[i * tileLength], params, pad);
"""
COPY_IN_RAW = """        copy_gm_to_ubuf_align_b32((__ubuf__ float*)xLocal.GetPhyAddr(), (__gm__ float*)xGm[i * tileLength].GetPhyAddr(),
                                  0, DEFAULT_DATA_COPY_NBURST, n * (uint32_t)sizeof(float), 0, 0,
                                  DEFAULT_DATA_COPY_STRIDE, 0);
        g_tiles += 1;
"""
COPY_OUT = """        DataCopyExtParams params{1, n * (uint32_t)sizeof(float), 0, 0, 0};
        DataCopyPad(yGm[i * tileLength], yLocal, params);
"""
COPY_OUT_RAW = """        copy_ubuf_to_gm_align_b32((__gm__ float*)yGm[i * tileLength].GetPhyAddr(), (__ubuf__ float*)yLocal.GetPhyAddr(),
                                  0, 1, n * (uint32_t)sizeof(float), 0, 0, 0, 0);
"""
PRELUDE = """#include "kernel_operator.h"
#if defined(FORMAT_X) && FORMAT_X == FORMAT_FRACTAL_NZ
#error "x is ND here"
#endif
static_assert(AscendC::TOTAL_UB_SIZE == 192 * 1024 && AscendC::TOTAL_L1_SIZE == 512 * 1024, "A2 UB, L1");
static_assert(AscendC::SYNC_AIC_FLAG == 11 && AscendC::SYNC_AIV_FLAG == 12, "SyncAll flag ids");
__BLOCK_LOCAL__ __inline__ uint32_t g_tiles;
"""
PROCESS_END = """            CopyOut(i, n);
        }
"""
PROCESS_END_SYNC = """            CopyOut(i, n);
        }
        PRELOAD(2);
        if (g_tiles != tiles) { AscendC::WaitEvent(6); }  // never notified: a shared counter deadlocks
        AscendC::NotifyEvent<PIPE_MTE3>(4);
        AscendC::WaitEvent(4);
        AscendC::NotifyEvent<PIPE_MTE3>(5);
        wait_flag_dev(5);
"""


def test_c220_forms_run_and_pass(backend, tmp_path):
    op_dir = tmp_path / "scale_copy"
    shutil.copytree(FIXTURE_OPS / "scale_copy", op_dir)
    kern = op_dir / "op_kernel/scale_copy.cpp"
    text = kern.read_text()
    for a, b in ((COPY_IN, COPY_IN_RAW), (COPY_OUT, COPY_OUT_RAW), (PROCESS_END, PROCESS_END_SYNC),
                 ('#include "kernel_operator.h"\n', PRELUDE)):
        assert a in text, a
        text = text.replace(a, b, 1)
    kern.write_text(text)
    op = Operator.load(op_dir)
    cases = load_op_cases(op_dir)
    results = check_operator(backend, op, cases, cfg=CheckConfig(timeout_s=60.0))
    assert [r.status for r in results] == ["ok"] * len(cases), [r.message[:2000] for r in results]
