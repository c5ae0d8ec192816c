"""The AscendC instructions the analyses know: which argument each writes, which pipe runs it.

One table for the motifs, the Stage I rewrites and the knob extractor. Every vector and copy
instruction here takes its destination first (``Add(dst, src0, src1, n)``,
``DataCopy(dst, src, len)``), as the AscendC API documents (asc-devkit ``docs/zh`` API
reference) and as the simulator's emulation headers declare them
(``backends/sim/include/ascendopt_kernel/*.h``); ``tests/cxx/test_instructions.py`` checks the
table against those headers: an instruction marked ``emulated`` is declared there with a first
parameter named ``dst...``, one not marked is absent (a kernel using it does not build on the
simulator, but the analyses still read it).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Instruction:
    """One instruction.

    Attributes:
        name: API name (``Add``).
        pipe: ``V`` (vector unit), ``MTE`` (DMA; MTE2 inbound, MTE3 outbound by the operands).
        group: ``binary``, ``scalar`` (tensor-scalar), ``unary``, ``fused``, ``fill``, ``cast``,
            ``compare``, ``math``, ``reduce``, ``gather``, ``copy``.
        dst: Index of the destination argument.
        emulated: The simulator's headers declare it.
        dtypes: Element types it accepts (spellings included), None when the table does not
            restrict them.
    """

    name: str
    pipe: str
    group: str
    dst: int = 0
    emulated: bool = True
    dtypes: frozenset[str] | None = None


#: half and float in every spelling kernels use.
HALF_FLOAT = frozenset({"half", "float", "float16_t", "float32_t"})


def _group(pipe: str, group: str, names: str, emulated: bool = True,
           dtypes: frozenset[str] | None = None) -> dict[str, Instruction]:
    return {n: Instruction(n, pipe, group, 0, emulated, dtypes) for n in names.split()}


TABLE: dict[str, Instruction] = {
    **_group("V", "binary", "Add Sub Mul Div Max Min And Or"),
    **_group("V", "binary", "AddRelu SubRelu", emulated=False),
    **_group("V", "scalar", "Adds Muls Maxs Mins LeakyRelu ShiftLeft ShiftRight"),
    **_group("V", "unary", "Abs Exp Ln Sqrt Rsqrt Reciprocal Relu Not Tanh Sigmoid Sin Cos Floor Ceil Round "
                           "Trunc Erf Log Log2 Log10 Sign Frac"),
    **_group("V", "unary", "Exp2", emulated=False),
    # half/float only (the AscendC API pages of Axpy, FusedMulAdd, MulAddDst; the emulation
    # refuses other types the same way)
    **_group("V", "fused", "Axpy FusedMulAdd MulAddDst", dtypes=HALF_FLOAT),
    **_group("V", "fill", "Duplicate CreateVecIndex ArithProgression Brcb"),
    **_group("V", "cast", "Cast"),
    **_group("V", "compare", "Compare CompareScalar Select"),
    **_group("V", "compare", "Compares", emulated=False),
    **_group("V", "math", "Power"),
    **_group("V", "math", "Softmax Transpose", emulated=False),
    **_group("V", "reduce", "ReduceSum ReduceMax ReduceMin WholeReduceSum WholeReduceMax WholeReduceMin "
                            "BlockReduceSum BlockReduceMax BlockReduceMin PairReduceSum"),
    **_group("V", "gather", "Gather"),
    **_group("V", "copy", "Copy"),
    **_group("MTE", "copy", "DataCopy DataCopyPad"),
}

#: Vector-unit instructions (destination first).
VECTOR_OPS = frozenset(n for n, i in TABLE.items() if i.pipe == "V" and i.name != "Copy")
#: DMA copies between GM and local memory (destination first).
DMA_OPS = frozenset(n for n, i in TABLE.items() if i.pipe == "MTE")
#: Copies of any kind whose first argument is the destination (DMA and the vector ``Copy``).
COPY_OPS = DMA_OPS | {"Copy"}
#: Queue operations on a ``TQue``.
QUEUE_OPS = frozenset({"AllocTensor", "EnQue", "DeQue"})
#: Queue hand-overs: the tensor changes owner (treated as a write by the dataflow checks).
HANDOVER_METHODS = frozenset({"EnQue", "FreeTensor"})
#: Synchronisation calls.
SYNC_CALLS = frozenset({"PipeBarrier", "pipe_barrier", "SetFlag", "WaitFlag"})
#: Hardware events whose source or destination is the scalar pipe.
SCALAR_EVENTS = frozenset({"V_S", "S_V", "S_MTE3", "MTE2_S", "MTE3_S", "S_MTE2"})


def destination(name: str) -> int | None:
    """Index of the argument instruction ``name`` writes, None for anything not in the table."""
    i = TABLE.get(name)
    return None if i is None else i.dst
