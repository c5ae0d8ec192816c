"""The canonical optimization families an experience belongs to (versioned).

A family names the *mechanism* an optimization acts on, not the edit: double buffering and
overlapping copy-in with compute are both ``pipeline_overlap``. Retrieval groups and dedups
experiences by family; a new family is a new version of this list (bump
:data:`FAMILIES_VERSION`, never rename or reuse a key).
"""

from __future__ import annotations


FAMILIES_VERSION = 1

FAMILIES: dict[str, str] = {
    "pipeline_overlap": "copies and compute of successive tiles overlap (queue depth, no serialising waits)",
    "sync_elimination": "no synchronisation beyond what the data dependences need (no full-pipe barriers in loops)",
    "vectorization": "element work done by vector instructions, not scalar GetValue/SetValue loops",
    "dma_consolidation": "few large DMA bursts instead of many small ones",
    "tile_size": "tiles large enough to amortise per-instruction and per-transfer fixed costs",
    "multi_core": "work split over all AI cores",
    "loop_invariant_hoisting": "constants and invariant vector setup computed once, outside the tile loop",
    "instruction_fusion": "fused vector instructions (Axpy, FusedMulAdd, MulAddDst) instead of their parts",
    "cast_elimination": "no precision conversions beyond those the dtypes need",
    "tail_handling": "ragged tails moved by one padded DMA (DataCopyPad), not element by element",
    "data_reuse": "data read from GM once and kept in UB while it is reused",
    "ub_bank_layout": "UB operands laid out so vector reads do not conflict on banks",
    "l2_cache_policy": "L2 cache hints that keep reused data resident and stream read-once data",
    "gm_alignment": "GM transfers aligned to 512 bytes",
    "other": "anything else (LLM-proposed rewrites)",
}


def check_family(name: str) -> str:
    """``name`` if it is a known family.

    Raises:
        ValueError: Unknown family.
    """
    if name not in FAMILIES:
        raise ValueError(f"unknown optimization family {name!r}; known: {', '.join(FAMILIES)}")
    return name
