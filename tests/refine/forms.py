"""Small kernels in the forms real operators use, for the Stage I rewrites' must-apply /
must-not-apply tests (find only: nothing is built).

Each snippet is the body of a class ``K`` with the members real kernels declare (a pipe,
queues, a scratch buffer, GM tensors, tile counts); :func:`kernel` wraps it into an operator
(the ``abs_custom`` operator with its kernel file replaced)."""

from ascendopt.operator import Operator
from ascendopt.transforms import REWRITES

from .conftest import load

_HEAD = """#include "kernel_operator.h"
constexpr int32_t BUFFER_NUM = 2;
constexpr int32_t ONE_BUFFER = 1;
constexpr uint32_t CHUNK = 256;
"""
_MEMBERS = """
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inQ;
    AscendC::TQue<AscendC::TPosition::VECOUT, BUFFER_NUM> outQ;
    AscendC::TBuf<AscendC::TPosition::VECCALC> tmpBuf;
    AscendC::GlobalTensor<float> xGm, yGm;
    uint32_t tiles, len, tail;
"""
_ENTRY = """
extern "C" __global__ __aicore__ void abs_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    K op;
    op.Process();
}
"""


def kernel(body: str, head: str = "") -> Operator:
    """The operator whose kernel is ``class K { public: <body> <members> };``."""
    op = load("level1/abs_custom")
    src = f"{_HEAD}{head}\nclass K {{\npublic:\n{body}\n{_MEMBERS}}};\n{_ENTRY}"
    return op.with_file(op.kernel_file, src)


def sites(op: Operator) -> dict[str, list]:
    """Every rewrite's sites in ``op``."""
    return {name: cls().find(op) for name, cls in REWRITES.all().items()}


#: name -> (class body, file-scope text before the class): the forms
S: dict[str, tuple[str, str]] = {}
S["DB_LITERAL_ONE"] = ("""
    __aicore__ inline void Init() { pipe.InitBuffer(inQ, 1, len * sizeof(float)); pipe.InitBuffer(outQ, BUFFER_NUM, len * sizeof(float)); }
    __aicore__ inline void Process() { Init(); }
""", "")
S["DB_HELPER_METHOD"] = ("""
    __aicore__ inline void InitQueues(uint32_t bytes) { pipe.InitBuffer(inQ, 1, bytes); }
    __aicore__ inline void Process() { InitQueues(len * 4); }
""", "")
S["DB_NAMED_CONSTANT"] = ("""
    __aicore__ inline void Process() { pipe.InitBuffer(inQ, ONE_BUFFER, len * sizeof(float)); pipe.InitBuffer(tmpBuf, len * 4); }
""", "")
S["DB_MACRO"] = ("""
    __aicore__ inline void Process() { INIT_QUEUE(inQ, len * 4); }
""", "#define INIT_QUEUE(q, bytes) pipe.InitBuffer(q, 1, bytes)\n")
S["BARRIER_IN_TILE_LOOP"] = ("""
    __aicore__ inline void Process() {
        for (uint32_t i = 0; i < tiles; i++) {
            CopyIn(i);
            AscendC::PipeBarrier<PIPE_ALL>();
            Compute(i);
        }
    }
    __aicore__ inline void CopyIn(uint32_t i) { auto x = inQ.AllocTensor<float>(); AscendC::DataCopy(x, xGm[i * len], len); inQ.EnQue(x); }
    __aicore__ inline void Compute(uint32_t i) { auto x = inQ.DeQue<float>(); AscendC::Abs(x, x, len); inQ.FreeTensor(x); }
""", "")
S["BARRIER_BETWEEN_INSTRUCTIONS"] = ("""
    __aicore__ inline void Process() {
        auto x = inQ.DeQue<float>();
        auto t = tmpBuf.Get<float>();
        AscendC::Exp(t, x, len);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Add(x, x, t, len);
        inQ.FreeTensor(x);
    }
""", "")
S["NO_BARRIER"] = ("""
    __aicore__ inline void Process() { auto x = inQ.DeQue<float>(); AscendC::Abs(x, x, len); inQ.FreeTensor(x); }
""", "")
S["EVENT_WAIT_IN_LOOP"] = ("""
    __aicore__ inline void Process() {
        for (uint32_t i = 0; i < tiles; i++) {
            auto x = inQ.AllocTensor<float>();
            AscendC::DataCopy(x, xGm[i * len], len);
            event_t e = static_cast<event_t>(GetTPipePtr()->FetchEventID(AscendC::HardEvent::MTE2_V));
            AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(e);
            AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(e);
            AscendC::Abs(x, x, len);
            inQ.FreeTensor(x);
        }
    }
""", "")
S["EVENT_WAIT_OUTSIDE_LOOP"] = ("""
    __aicore__ inline void Process() {
        auto x = inQ.AllocTensor<float>();
        AscendC::DataCopy(x, xGm, len);
        AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
        AscendC::Abs(x, x, len);
    }
""", "")
S["SCALAR_LOOP_HELPER"] = ("""
    __aicore__ inline void Process() { Compute(); }
    __aicore__ inline void Compute() {
        AscendC::LocalTensor<float> x = inQ.DeQue<float>();
        AscendC::LocalTensor<float> y = outQ.AllocTensor<float>();
        for (uint32_t i = 0; i < len; i++) {
            y.SetValue(i, x.GetValue(i) * 2.0f);
        }
        outQ.EnQue(y);
        inQ.FreeTensor(x);
    }
""", "")
S["SCALAR_LOOP_STRIDED"] = ("""
    __aicore__ inline void Process() {
        AscendC::LocalTensor<float> x = inQ.DeQue<float>();
        AscendC::LocalTensor<float> y = outQ.AllocTensor<float>();
        for (uint32_t i = 0; i < len; i++) {
            y.SetValue(i, x.GetValue(2 * i) * 2.0f);
        }
    }
""", "")
S["SCALAR_LOOP_CARRIED"] = ("""
    __aicore__ inline void Process() {
        AscendC::LocalTensor<float> y = outQ.AllocTensor<float>();
        for (uint32_t i = 1; i < len; i++) {
            y.SetValue(i, y.GetValue(i - 1) + 1.0f);
        }
    }
""", "")
S["SCALAR_LOOP_MACRO"] = ("""
    __aicore__ inline void Process() {
        AscendC::LocalTensor<float> x = inQ.DeQue<float>();
        AscendC::LocalTensor<float> y = outQ.AllocTensor<float>();
        SCALE(y, x, len);
    }
""", "#define SCALE(d, s, n) for (uint32_t k = 0; k < (n); k++) { d.SetValue(k, s.GetValue(k) * 2.0f); }\n")
S["MUL_ADD_TEMP"] = ("""
    __aicore__ inline void Process() {
        AscendC::LocalTensor<float> a = inQ.DeQue<float>();
        AscendC::LocalTensor<float> b = outQ.AllocTensor<float>();
        AscendC::LocalTensor<float> t = tmpBuf.Get<float>();
        AscendC::Mul(t, a, b, len);
        AscendC::Add(b, t, b, len);
        outQ.EnQue(b);
    }
""", "")
S["MUL_ADD_BARRIER_BETWEEN"] = ("""
    __aicore__ inline void Process() {
        AscendC::LocalTensor<float> a = inQ.DeQue<float>();
        AscendC::LocalTensor<float> b = outQ.AllocTensor<float>();
        AscendC::LocalTensor<float> t = tmpBuf.Get<float>();
        AscendC::Mul(t, a, b, len);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Add(b, t, b, len);
        outQ.EnQue(b);
    }
""", "")
S["MUL_ADD_INPLACE_CHAIN"] = ("""
    __aicore__ inline void Process() {
        AscendC::LocalTensor<float> a = inQ.DeQue<float>();
        AscendC::LocalTensor<float> b = outQ.AllocTensor<float>();
        AscendC::Muls(a, a, 2.0f, len);
        AscendC::Add(b, a, b, len);
        outQ.EnQue(b);
    }
""", "")
S["MUL_ADD_TEMP_REUSED"] = ("""
    __aicore__ inline void Process() {
        AscendC::LocalTensor<float> a = inQ.DeQue<float>();
        AscendC::LocalTensor<float> b = outQ.AllocTensor<float>();
        AscendC::LocalTensor<float> t = tmpBuf.Get<float>();
        AscendC::Mul(t, a, b, len);
        AscendC::Add(b, t, b, len);
        AscendC::Exp(a, t, len);
        outQ.EnQue(b);
    }
""", "")
S["TAIL_ELEMENT_LOOP"] = ("""
    __aicore__ inline void Process() {
        AscendC::LocalTensor<float> x = inQ.AllocTensor<float>();
        for (uint32_t j = 0; j < tail; j++) {
            x.SetValue(j, xGm.GetValue(j));
        }
        inQ.EnQue(x);
    }
""", "")
S["TAIL_DATACOPYPAD"] = ("""
    __aicore__ inline void Process() {
        AscendC::LocalTensor<float> x = inQ.AllocTensor<float>();
        AscendC::DataCopyExtParams cp{1, static_cast<uint32_t>(tail * sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<float> pp{false, 0, 0, 0.0f};
        AscendC::DataCopyPad(x, xGm, cp, pp);
        inQ.EnQue(x);
    }
""", "")
S["CHUNK_COPY_LOOP"] = ("""
    __aicore__ inline void Process() {
        AscendC::LocalTensor<float> x = inQ.AllocTensor<float>();
        for (uint32_t off = 0; off < len; off += CHUNK) {
            AscendC::DataCopy(x[off], xGm[off], CHUNK);
        }
        inQ.EnQue(x);
    }
""", "")
S["STRIDED_COPY_PARAMS"] = ("""
    __aicore__ inline void Process() {
        AscendC::LocalTensor<float> x = inQ.AllocTensor<float>();
        for (uint32_t r = 0; r < tiles; r++) {
            AscendC::DataCopyParams p{1, static_cast<uint16_t>(len / 8), 0, 0};
            AscendC::DataCopy(x[r * len], xGm[r * len * 2], p);
        }
        inQ.EnQue(x);
    }
""", "")
S["CAST_ROUNDTRIP"] = ("""
    __aicore__ inline void Process() {
        AscendC::LocalTensor<half> h = inQ.DeQue<half>();
        AscendC::LocalTensor<float> f = tmpBuf.Get<float>();
        AscendC::Cast(f, h, AscendC::RoundMode::CAST_NONE, len);
        AscendC::Cast(h, f, AscendC::RoundMode::CAST_ROUND, len);
        AscendC::Abs(h, h, len);
    }
""", "")
S["CAST_USED"] = ("""
    __aicore__ inline void Process() {
        AscendC::LocalTensor<half> h = inQ.DeQue<half>();
        AscendC::LocalTensor<float> f = tmpBuf.Get<float>();
        AscendC::Cast(f, h, AscendC::RoundMode::CAST_NONE, len);
        AscendC::Exp(f, f, len);
        AscendC::Cast(h, f, AscendC::RoundMode::CAST_ROUND, len);
    }
""", "")
S["INVARIANT_FILL_IN_LOOP"] = ("""
    __aicore__ inline void Process() {
        AscendC::LocalTensor<float> ones = tmpBuf.Get<float>();
        for (uint32_t i = 0; i < tiles; i++) {
            AscendC::LocalTensor<float> x = inQ.DeQue<float>();
            AscendC::Duplicate(ones, 1.0f, len);
            AscendC::Add(x, x, ones, len);
            inQ.FreeTensor(x);
        }
    }
""", "")
S["VARIANT_FILL_IN_LOOP"] = ("""
    __aicore__ inline void Process() {
        AscendC::LocalTensor<float> ones = tmpBuf.Get<float>();
        for (uint32_t i = 0; i < tiles; i++) {
            AscendC::LocalTensor<float> x = inQ.DeQue<float>();
            AscendC::Duplicate(ones, static_cast<float>(i), len);
            AscendC::Add(x, x, ones, len);
            inQ.FreeTensor(x);
        }
    }
""", "")
S["INVARIANT_FILL_OVERWRITTEN"] = ("""
    __aicore__ inline void Process() {
        AscendC::LocalTensor<float> ones = tmpBuf.Get<float>();
        for (uint32_t i = 0; i < tiles; i++) {
            AscendC::LocalTensor<float> x = inQ.DeQue<float>();
            AscendC::Duplicate(ones, 1.0f, len);
            AscendC::Add(x, x, ones, len);
            AscendC::Muls(ones, x, 2.0f, len);
            inQ.FreeTensor(x);
        }
    }
""", "")
# stage_scalar_gm: an element loop on GlobalTensors in a helper (buffers initialised by the
# caller); not a prefix sum carried through GM (y read at i - 1)
S["STAGE_GM_LOOP_HELPER"] = ("""
    __aicore__ inline void Compute() {
        for (uint32_t i = 0; i < len; ++i) {
            float v = xGm.GetValue(i);
            yGm.SetValue(i, v > 0.0f ? v : 0.0f);
        }
    }
    __aicore__ inline void Process() { pipe.InitBuffer(tmpBuf, len * 4); Compute(); }
""", "")
S["STAGE_GM_CARRIED"] = ("""
    __aicore__ inline void Compute() {
        for (uint32_t i = 1; i < len; ++i) {
            yGm.SetValue(i, yGm.GetValue(i - 1) + xGm.GetValue(i));
        }
    }
    __aicore__ inline void Process() { pipe.InitBuffer(tmpBuf, len * 4); Compute(); }
""", "")
S["RECIPROCAL_OF_ONES"] = ("""
    __aicore__ inline void Process() {
        AscendC::LocalTensor<float> x = inQ.DeQue<float>();
        AscendC::LocalTensor<float> y = outQ.AllocTensor<float>();
        AscendC::LocalTensor<float> ones = tmpBuf.Get<float>();
        AscendC::Duplicate(ones, 1.0f, len);
        AscendC::Div(y, ones, x, len);
        outQ.EnQue(y);
    }
""", "")
S["DIV_BY_FILL_OF_TWO"] = ("""
    __aicore__ inline void Process() {
        AscendC::LocalTensor<float> x = inQ.DeQue<float>();
        AscendC::LocalTensor<float> y = outQ.AllocTensor<float>();
        AscendC::LocalTensor<float> twos = tmpBuf.Get<float>();
        AscendC::Duplicate(twos, 2.0f, len);
        AscendC::Div(y, twos, x, len);
        outQ.EnQue(y);
    }
""", "")
S["ZERO_FROM_INT_TILE"] = ("""
    __aicore__ inline void Process() {
        AscendC::LocalTensor<int32_t> x = tmpBuf.Get<int32_t>();
        AscendC::LocalTensor<int32_t> y = outQ.AllocTensor<int32_t>();
        AscendC::DataCopy(x, iGm, len);
        AscendC::Sub(y, x, x, len);
        outQ.EnQue(y);
    }
    AscendC::GlobalTensor<int32_t> iGm;
""", "")
S["ZERO_FROM_FLOAT_TILE"] = ("""
    __aicore__ inline void Process() {
        AscendC::LocalTensor<float> x = inQ.DeQue<float>();
        AscendC::LocalTensor<float> y = outQ.AllocTensor<float>();
        AscendC::Muls(y, x, 0.0f, len);
        outQ.EnQue(y);
    }
""", "")
S["FLAG_AFTER_DEQUE"] = ("""
    __aicore__ inline void CopyIn(uint32_t i) { auto x = inQ.AllocTensor<float>(); AscendC::DataCopy(x, xGm[i * len], len); inQ.EnQue(x); }
    __aicore__ inline void Compute() {
        auto x = inQ.DeQue<float>();
        AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
        AscendC::Abs(x, x, len);
        inQ.FreeTensor(x);
    }
    __aicore__ inline void Process() { for (uint32_t i = 0; i < tiles; i++) { CopyIn(i); Compute(); } }
""", "")
S["FLAG_FOR_BUFFER_LOAD"] = ("""
    __aicore__ inline void Compute() {
        auto x = inQ.DeQue<float>();
        auto t = tmpBuf.Get<float>();
        AscendC::DataCopy(t, xGm, len);
        AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
        AscendC::Add(x, x, t, len);
        inQ.FreeTensor(x);
    }
    __aicore__ inline void Process() { for (uint32_t i = 0; i < tiles; i++) { Compute(); } }
""", "")
S["SPREAD_SCALAR_GM_LOOP"] = ("""
    __aicore__ inline void Process() {
        for (uint32_t i = 0; i < len; i++) {
            yGm.SetValue(i, xGm.GetValue(i) * 2.0f);
        }
    }
""", "")
S["SPREAD_SCALAR_GM_CARRIED"] = ("""
    __aicore__ inline void Process() {
        float acc = 0.0f;
        for (uint32_t i = 0; i < len; i++) {
            acc += xGm.GetValue(i);
            yGm.SetValue(i, acc);
        }
    }
""", "")
