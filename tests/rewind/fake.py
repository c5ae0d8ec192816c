"""A fake evaluator for engine tests: latency and status follow from the kernel text.

Each ``InitBuffer(q, 1, ...)`` (a single-buffered queue) adds ``SINGLE_US`` to the latency,
each ``PipeBarrier`` adds ``BARRIER_US``, a ``// race`` comment makes the run fail with a
race, and a ``// slower-by-nothing`` comment is a no-op edit. Profiles are made up but shaped
like the simulator's summaries.
"""

from __future__ import annotations

from ascendopt.backends.base import Backend
from ascendopt.evaluate.evaluator import EvalConfig, Evaluation, Evaluator
from ascendopt.operator import Operator

BASE_US = 10.0
SINGLE_US = 2.0
BARRIER_US = 0.5

KERNEL = """#include "kernel_operator.h"
constexpr int32_t BUFFER_NUM = 2;
class K {
public:
    __aicore__ inline void Init() {
        pipe.InitBuffer(inQ, BUFFER_NUM, 256);
        pipe.InitBuffer(outQ, BUFFER_NUM, 256);
    }
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQ;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQ;
};
extern "C" __global__ __aicore__ void fake_op(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {}
"""
HOST = 'namespace ops { class FakeOp : public OpDef { public: FakeOp(const char* n) : OpDef(n) {} }; OP_ADD(FakeOp); }\n'


def fake_op() -> Operator:
    return Operator.from_files("fake_op", {"op_host/fake_op.cpp": HOST, "op_kernel/fake_op.cpp": KERNEL})


class _Backend(Backend):
    """Never builds or runs: FakeEvaluator answers from the kernel text."""

    name = "fake"

    def build(self, op, dtypes):
        raise AssertionError("FakeEvaluator does not build")

    def run(self, build, op, case, inputs, timeout_s=60.0):
        raise AssertionError("FakeEvaluator does not run")


class FakeEvaluator(Evaluator):
    def __init__(self):
        super().__init__(_Backend(), EvalConfig())
        self.calls = 0

    def evaluate(self, op, cases, seed=None, config_key=None):
        self.calls += 1
        text = op.files[op.kernel_file]
        ev = Evaluation("ok", op_name=op.name, digest=op.digest, parent=op.parent, origin=op.origin,
                        backend="fake", config_key=config_key or "k")
        if "// race" in text:
            ev.status, ev.error_kind, ev.error = "runtime_error", "race", "case0: race on UB"
            return ev
        singles = text.count(", 1, 256)")
        barriers = text.count("PipeBarrier")
        lat = BASE_US + SINGLE_US * singles + BARRIER_US * barriers
        ratios = {"S": 0.0, "V": 0.8 - 0.2 * singles, "MTE2": 0.5 - 0.1 * singles, "MTE3": 0.4 - 0.1 * singles}
        ev.latency_us = lat
        ev.profile = {"case0": {"task_duration_us": lat, "runs_us": [lat], "block_dim": 48, "op_type": "vector",
                                "pipe_ratio_mean": ratios, "bound": "V", "achieved_fraction": 0.8 - 0.1 * singles,
                                "gm_bytes": 1 << 20, "top_instructions": [
                                    {"name": "DataCopy", "pipe": "MTE2", "count": 16, "cycles": 1000.0, "share": 0.4}]}}
        return ev

    def config_key(self, cases):
        return "fake-config"
