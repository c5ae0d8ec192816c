"""Small helpers of the element-level motifs (scalar_loop, unfuse, extra_cast, tail_per_element);
what they read of the code (tensor element types, liveness) comes from :mod:`ascendopt.cxx`.
"""

from __future__ import annotations


def flag_pair(src: str, dst: str, var: str = "aoEvt") -> list[str]:
    """``src`` pipe -> ``dst`` pipe ordering: set and wait one hardware event (``V``, ``S``, ``MTE2``...)."""
    ev = f"AscendC::HardEvent::{src}_{dst}"
    return [f"{var} = static_cast<int32_t>(AscendC::GetTPipePtr()->FetchEventID({ev}));",
            f"AscendC::SetFlag<{ev}>({var});",
            f"AscendC::WaitFlag<{ev}>({var});"]
