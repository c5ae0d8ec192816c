"""Hazards an evaluation carries, and the rule that a candidate may not add one.

The simulator detects every hazard and gives it one of two severities:

- **errors** end the run (``runtime_error`` with the hazard as ``error_kind``): GM writes beyond
  the allocator's block, reads beyond the mapped page, UB overflow, misalignment, queue misuse, ...;
- **warnings** are recorded on the case and the run goes on (``CaseResult.warnings``): a race
  (two pipes touch the same bytes with nothing ordering them), a ``same_pipe_race`` (a vector
  instruction reads or overwrites what an earlier one wrote with no ``PipeBarrier<PIPE_V>``
  between them, in a kernel built with ``--cce-auto-sync=off``: otherwise the compiler inserts
  the barrier) and a GM read past a tensor's
  padded end inside the mapped page (``gm_read_past_end``), a GM write past it inside the block
  the framework's caching allocator hands out (``gm_write_past_end``), a UB/L1/L0 read or write
  outside the tensor's buffer but inside the memory (``local_read_outside_buffer``,
  ``local_write_outside_buffer``: the device checks no tensor bounds; the outputs show whether
  the bytes mattered), a continuous mask above one repeat's elements (``mask_out_of_range``:
  the mask register is filled and the instruction takes one repeat's worth), GM read or
  written through a raw pointer outside the AscendC APIs (``raw_gm_access``: legal on the device,
  timed as scalar GM accesses; a candidate may not move traffic there), and a scalar GM
  access that the core's data cache would get wrong on the device, where the emulation's one
  copy of memory gets it right: a scalar read hitting a cached line this core's DMA overwrote
  (``dcache_stale``), or a DMA touching a line the scalar unit wrote and did not clean
  (``dcache_dirty``; both cured by ``DataCacheCleanAndInvalid``). Working operators
  carry such hazards on the chip, so on the operator *as given* they are reported, not fatal
  (``--strict`` makes them fatal).

A candidate derived from a parent (Stage I rewrite, Stage II tiling, rewind de-optimization)
is rejected when it carries a hazard kind its parent did not have: otherwise a search could buy
speed by deleting a needed synchronisation. :func:`reject_new_hazards` turns such an
evaluation into a failure whose ``error_kind`` is the new hazard.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable

#: Hazard kinds the simulator reports as warnings (the run goes on).
WARNING_KINDS = (
    "race", "same_pipe_race", "gm_read_past_end", "gm_write_past_end", "local_read_outside_buffer",
    "local_write_outside_buffer", "mask_out_of_range", "raw_gm_access", "dcache_stale", "dcache_dirty",
)


def case_warnings(results: Iterable[Any]) -> list[dict[str, Any]]:
    """Every warning of the given case results, each once per (kind, message)."""
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for c in results:
        for w in getattr(c, "warnings", None) or ():
            w = w if isinstance(w, dict) else {"kind": str(w), "message": ""}
            seen.setdefault((str(w.get("kind", "")), str(w.get("message", ""))), w)
    return list(seen.values())


def hazards(ev: Any) -> set[str]:
    """The hazard kinds an evaluation carries: its typed runtime error when it failed on one,
    plus the warnings its cases report."""
    kinds: set[str] = set()
    if getattr(ev, "status", "") == "runtime_error" and getattr(ev, "error_kind", ""):
        kinds.add(ev.error_kind)
    for w in case_warnings((*getattr(ev, "cases", ()), *getattr(ev, "benchmark", ()))):
        kinds.add(str(w.get("kind", "")))
    kinds.discard("")
    return kinds


def new_hazards(parent_kinds: set[str], ev: Any) -> set[str]:
    """Hazard kinds of ``ev`` that are not among ``parent_kinds``."""
    return hazards(ev) - set(parent_kinds)


def reject_new_hazards(ev: Any, parent_kinds: set[str]) -> Any:
    """``ev`` unchanged when it is not a correct evaluation or adds no hazard kind; otherwise a
    copy that failed as ``runtime_error`` with ``error_kind`` the (first) new hazard and the
    warning's message as its error, so that a search tells its strategy "infeasible" and never
    keeps it as the best candidate. (The stored record is not changed: it is the truth about
    the run; the rejection is the search's judgement of it.)"""
    if getattr(ev, "status", "") not in ("ok", "unverified"):  # correct on every case it ran
        return ev
    new = sorted(new_hazards(parent_kinds, ev))
    if not new:
        return ev
    kind = new[0]
    msg = next((str(w.get("message", "")) for w in case_warnings((*ev.cases, *ev.benchmark))
                if w.get("kind") == kind), "")
    more = f" (also adds {', '.join(new[1:])})" if len(new) > 1 else ""
    return replace(ev, status="runtime_error", error_kind=kind, latency_us=None,
                   error=f"adds a {kind} hazard the original does not have{more}: {msg}".strip())
