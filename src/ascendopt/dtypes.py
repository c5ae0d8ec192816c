"""Data-type and tensor-format tables shared by case parsing, the simulator and the NPU backend.

One table maps every msopst type name to its numpy dtype, its CANN ``ge::DataType`` code,
the C++ element type used in ``-DDTYPE_<NAME>=<type>`` kernel macros, and its element size.
A second table maps format names to ``ge::Format`` codes.

The ``ge::DataType`` / ``ge::Format`` codes are the enum values of CANN's public
``graph/types.h`` (DT_FLOAT=0, DT_FLOAT16=1, ..., DT_BF16=27; FORMAT_NCHW=0, FORMAT_NHWC=1,
FORMAT_ND=2, FORMAT_NC1HWC0=3, FORMAT_FRACTAL_Z=4, FORMAT_FRACTAL_NZ=29).
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np

__all__ = [
    "CaseError",
    "DTypeInfo",
    "DTYPES",
    "FORMATS",
    "canonical_dtype",
    "canonical_format",
    "cpp_type",
    "dtype_info",
    "dtype_size",
    "format_code",
    "ge_dtype_code",
    "np_dtype",
]


class CaseError(ValueError):
    """A test case, dtype, format, golden function or comparison input is invalid."""


@dataclass(frozen=True)
class DTypeInfo:
    """Everything the tool needs to know about one element type.

    Attributes:
        name: Canonical msopst type name (``"float32"`` for both ``float`` and ``float32``).
        np_dtype: numpy dtype holding the values (``ml_dtypes.bfloat16`` for bf16).
        ge_code: Integer value of the CANN ``ge::DataType`` enum.
        ge_name: Enum member name, e.g. ``"DT_FLOAT16"``.
        cpp_type: Element type in AscendC kernel source, e.g. ``"half"``.
        itemsize: Element size in bytes.
    """

    name: str
    np_dtype: np.dtype
    ge_code: int
    ge_name: str
    cpp_type: str
    itemsize: int

    @property
    def is_float(self) -> bool:
        """True for floating-point types (including bfloat16)."""
        return self.name in ("float16", "float32", "bfloat16", "double")

    @property
    def is_complex(self) -> bool:
        """True for complex64 / complex128 (pairs of float32 / float64)."""
        return self.name in ("complex64", "complex128")

    @property
    def is_bool(self) -> bool:
        """True for the boolean type."""
        return self.name == "bool"

    @property
    def is_int(self) -> bool:
        """True for signed and unsigned integer types."""
        return not (self.is_float or self.is_bool or self.is_complex)


def _info(name: str, np_type: type, ge_code: int, ge_name: str, cpp: str) -> DTypeInfo:
    dt = np.dtype(np_type)
    return DTypeInfo(name, dt, ge_code, ge_name, cpp, dt.itemsize)


# Canonical name -> info. Codes from CANN graph/types.h (ge::DataType).
DTYPES: dict[str, DTypeInfo] = {
    info.name: info
    for info in (
        _info("float32", np.float32, 0, "DT_FLOAT", "float"),
        _info("float16", np.float16, 1, "DT_FLOAT16", "half"),
        _info("int8", np.int8, 2, "DT_INT8", "int8_t"),
        _info("int32", np.int32, 3, "DT_INT32", "int32_t"),
        _info("uint8", np.uint8, 4, "DT_UINT8", "uint8_t"),
        _info("int16", np.int16, 6, "DT_INT16", "int16_t"),
        _info("uint16", np.uint16, 7, "DT_UINT16", "uint16_t"),
        _info("uint32", np.uint32, 8, "DT_UINT32", "uint32_t"),
        _info("int64", np.int64, 9, "DT_INT64", "int64_t"),
        _info("uint64", np.uint64, 10, "DT_UINT64", "uint64_t"),
        _info("double", np.float64, 11, "DT_DOUBLE", "double"),
        _info("bool", np.bool_, 12, "DT_BOOL", "bool"),
        _info("bfloat16", ml_dtypes.bfloat16, 27, "DT_BF16", "bfloat16_t"),
        _info("complex64", np.complex64, 16, "DT_COMPLEX64", "AscendC::complex64"),
        _info("complex128", np.complex128, 17, "DT_COMPLEX128", "AscendC::complex128"),
    )
}

# Accepted spellings besides the canonical names: msopst's "float", common short forms,
# and the ge enum names (so op_host registrations like ge::DT_FLOAT16 resolve too).
_ALIASES: dict[str, str] = {
    "float": "float32",
    "fp32": "float32",
    "fp16": "float16",
    "half": "float16",
    "bf16": "bfloat16",
    "float64": "double",
    "fp64": "double",
    **{info.ge_name.lower(): name for name, info in DTYPES.items()},
}

# ge::Format codes (CANN graph/types.h).
FORMATS: dict[str, int] = {
    "NCHW": 0,
    "NHWC": 1,
    "ND": 2,
    "NC1HWC0": 3,
    "FRACTAL_Z": 4,
    "FRACTAL_NZ": 29,
}


def canonical_dtype(name: str) -> str:
    """Return the canonical type name for an msopst / ge / short type name.

    Args:
        name: e.g. ``"float"``, ``"Float16"``, ``"DT_BF16"``, ``"ge::DT_INT32"``.

    Returns:
        The canonical key of :data:`DTYPES`.

    Raises:
        CaseError: If the name is not a known type.
    """
    if not isinstance(name, str):
        raise CaseError(f"dtype must be a string, got {name!r}")
    key = name.strip().lower().removeprefix("ge::")
    if key in DTYPES:
        return key
    if key in _ALIASES:
        return _ALIASES[key]
    known = ", ".join(sorted(set(DTYPES) | {"float"}))
    raise CaseError(f"unknown dtype {name!r} (known: {known})")


def dtype_info(name: str) -> DTypeInfo:
    """Look up the :class:`DTypeInfo` for a type name (any accepted spelling)."""
    return DTYPES[canonical_dtype(name)]


def np_dtype(name: str) -> np.dtype:
    """numpy dtype for a type name (``ml_dtypes.bfloat16`` for bfloat16)."""
    return dtype_info(name).np_dtype


def ge_dtype_code(name: str) -> int:
    """CANN ``ge::DataType`` integer code for a type name."""
    return dtype_info(name).ge_code


def cpp_type(name: str) -> str:
    """C++ element type used in ``-DDTYPE_<NAME>=<type>`` macros for a type name."""
    return dtype_info(name).cpp_type


def dtype_size(name: str) -> int:
    """Element size in bytes for a type name."""
    return dtype_info(name).itemsize


def canonical_format(name: str) -> str:
    """Return the canonical (upper-case, unprefixed) format name.

    Raises:
        CaseError: If the format is unknown.
    """
    if not isinstance(name, str):
        raise CaseError(f"format must be a string, got {name!r}")
    key = name.strip().upper().removeprefix("GE::").removeprefix("FORMAT_")
    if key not in FORMATS:
        raise CaseError(f"unknown format {name!r} (known: {', '.join(FORMATS)})")
    return key


def format_code(name: str) -> int:
    """CANN ``ge::Format`` integer code for a format name such as ``"ND"`` or ``"FRACTAL_NZ"``."""
    return FORMATS[canonical_format(name)]
