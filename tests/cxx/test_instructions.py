"""The instruction table against the simulator's emulation headers: what the table says is
emulated is declared there with its destination first; what it says is not, is absent."""

import re
from pathlib import Path

import pytest

from ascendopt.cxx.instructions import COPY_OPS, DMA_OPS, HALF_FLOAT, TABLE, VECTOR_OPS, destination

INCLUDE = Path(__file__).resolve().parents[2] / "src" / "ascendopt" / "backends" / "sim" / "include"


def _headers() -> str:
    return "\n".join(p.read_text(errors="replace") for p in sorted(INCLUDE.rglob("*.h")))


HEADERS = _headers()
#: ``NAME(const LocalTensor<T>& dst...`` / ``NAME(const GlobalTensor<T>& dstGlobal...`` as declared
_DECL = r"\b{name}\s*\(\s*(?:const\s+)?(?:AscendC::)?(?:Local|Global)Tensor<[^>]*>\s*&\s*dst\w*"
#: ``AO_X_API(NAME, ...)``: a macro instantiation; the macro's definition holds the declaration
_INST = r"^\s*(AO_\w+)\(\s*{name}\b"


def _declared_dst_first(name: str) -> bool:
    if re.search(_DECL.format(name=name), HEADERS):
        return True
    for m in re.finditer(_INST.format(name=name), HEADERS, re.M):
        if re.search(r"#define\s+" + m.group(1) + r"\(Name\b[\s\S]*?" + _DECL.format(name="Name"), HEADERS):
            return True
    return False


@pytest.mark.parametrize("name", sorted(n for n, i in TABLE.items() if i.emulated))
def test_emulated_instruction_takes_its_destination_first(name):
    assert TABLE[name].dst == 0
    assert _declared_dst_first(name), f"{name}: no declaration with a dst... first parameter in the emulation headers"


@pytest.mark.parametrize("name", sorted(n for n, i in TABLE.items() if not i.emulated))
def test_instruction_not_emulated_is_absent(name):
    assert not _declared_dst_first(name), f"{name} is emulated now: mark it so in the table"


def test_fused_instructions_take_half_and_float_only():
    # the emulation refuses other types for Axpy and FusedMulAdd/MulAddDst (kIsHalfOrFloat)
    assert re.search(r"AxpyRun[\s\S]{0,300}kIsHalfOrFloat", HEADERS)
    assert re.search(r"FmaRun[\s\S]{0,300}kIsHalfOrFloat", HEADERS)
    assert {TABLE[n].dtypes for n in ("Axpy", "FusedMulAdd", "MulAddDst")} == {HALF_FLOAT}


def test_groups():
    assert {"Add", "Exp", "Duplicate", "Cast", "WholeReduceSum", "Axpy"} <= VECTOR_OPS
    assert DMA_OPS == {"DataCopy", "DataCopyPad"}
    assert COPY_OPS == DMA_OPS | {"Copy"} and "Copy" not in VECTOR_OPS
    assert destination("Add") == 0 and destination("GetValue") is None
