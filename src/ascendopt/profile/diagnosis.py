"""The one structured diagnosis of an evaluated candidate, shared by Stage I, Stage II and the bank.

:func:`diagnose_profile` reads a profile summary (the dict an
:class:`~ascendopt.evaluate.evaluator.Evaluation` keeps per benchmark case, i.e.
:meth:`ascendopt.profile.model.Summary.to_dict`, or the compact form Stage II's strategies are
told, :func:`compact_profile`) and returns a :class:`Diagnosis`: the bound, the per-pipe busy
ratios, how much the pipes overlap, the roofline share, idle cores, the average transfer size,
the scalar share, how evenly the work divides among the cores, and named findings with a short
text. Stage II's directed moves (:mod:`ascendopt.tiling.moves`) answer its findings through
:func:`findings`; the experience bank stores the diagnosis of both sides of every experience and
retrieves by it. One set of thresholds serves all of them.

Findings (kinds in :data:`FINDING_KINDS`), each resting on a stated mechanism:

* ``idle_cores``: fewer blocks than cores of the kernel's type: the rest of the chip waits.
* ``uneven_split``: the work units (inferred from the cores' GM bytes,
  :func:`ascendopt.profile.core.work_split`) do not divide among the blocks, and a core count of
  at least half the cores divides them (:func:`balanced_cores`): the slowest core sets the
  time; an even split also starts every core's data on the same alignment.
* ``serialized_pipes``: the work pipes' busy ratios add up to less than :data:`OVERLAP_MIN`
  (``overlap``: busy pipe-time per unit of wall time; near 1 means one pipe works at a time
  while the others wait: no double buffering, or waits between them) while the busiest pipe
  is idle part of the time.
* ``scalar_heavy``: the scalar pipe is busy more than :data:`SCALAR_HEAVY` of the time (element
  loops with ``GetValue``/``SetValue``, per-element copies): the scalar unit issues everything,
  so its own work delays every pipe.
* ``memory_stalls``: a memory pipe is the busiest pipe (scalar included; without pipe ratios the
  roofline's ``HBM`` label stands in) and busy less than :data:`SATURATED` of the time: it waits
  between transfers, and more buffers let the next tile's copy start while this one is
  computed. The buffer count asked is the pipeline's overlap depth (:func:`overlap_depth`). When
  another pipe is the busiest, the memory pipes already hide behind it: more buffers only split
  the UB into smaller tiles, which adds per-tile instructions to that busiest pipe.
* ``small_transfers``: GM bytes per DMA instruction below :data:`SMALL_TRANSFER_BYTES`: each
  transfer pays a fixed issue and turnaround cost (on the Ascend910B2 model about 28 cycles,
  ``dma_issue_cycles + dma_latency_cycles``, about 5 % of a 16 KiB transfer at 32 bytes per
  cycle).
* ``memory_bound`` / ``vector_bound`` / ``cube_bound``: which pipe is busiest, with its ratio.
* ``roofline_gap``: the achieved share of the roofline is below :data:`HEADROOM`: the modelled
  time has room the bound says can be recovered.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import math

MEMORY_PIPES = ("MTE2", "MTE3")
WORK_PIPES = ("MTE2", "MTE3", "V", "M", "MTE1", "FIX")
FINDING_KINDS = ("idle_cores", "uneven_split", "serialized_pipes", "scalar_heavy", "memory_stalls",
                 "small_transfers", "memory_bound", "vector_bound", "cube_bound", "roofline_gap")
OVERLAP_MIN = 1.3
BUSY = 0.9
SCALAR_HEAVY = 0.2
SMALL_TRANSFER_BYTES = 16 * 1024
#: A memory pipe busier than this has no gaps between transfers left for buffers to fill.
SATURATED = 0.95
#: Below this share of the roofline a candidate has a gap worth probing (Stage II: the tile size).
HEADROOM = 0.95
#: The numeric features retrieval compares (all in [0, 1] or so).
FEATURES = ("S", "V", "MTE2", "MTE3", "M", "overlap_norm", "roofline_share", "core_use", "transfer_norm")


@dataclass
class Diagnosis:
    """What a profile says about a candidate.

    Attributes:
        latency_us: Task duration of the benchmark case.
        bound: Busiest pipe's class (``HBM``/``V``/``M``/... as the profile's roofline says).
        pipe_ratios: Mean busy ratio per pipe over the cores.
        busiest: The busiest work pipe (scalar excluded).
        overlap: Sum of the work pipes' busy ratios: busy pipe-time per unit of wall time
            (at most 1 when the pipes take turns; 2 when two are busy at all times ...).
        roofline_share: Achieved fraction of the roofline (None when unknown).
        block_dim: Blocks launched.
        cores: Cores of the kernel's type on the SoC (0 when unknown).
        bytes_per_transfer: GM bytes per DMA instruction among the top instructions.
        scalar_share: Busy ratio of the scalar pipe.
        top_instructions: ``name@pipe`` of the instructions taking the most cycles.
        findings: Kinds from :data:`FINDING_KINDS`, most important first.
        text: The findings in words.
        notes: Finding -> its words.
        numbers: Finding -> the number a move needs (the balanced core count of
            ``uneven_split``, the overlap depth of ``memory_stalls``).
    """

    latency_us: float | None = None
    bound: str = ""
    pipe_ratios: dict[str, float] = field(default_factory=dict)
    busiest: str = ""
    overlap: float | None = None
    roofline_share: float | None = None
    block_dim: int = 0
    cores: int = 0
    bytes_per_transfer: float | None = None
    scalar_share: float = 0.0
    top_instructions: list[str] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)
    text: str = ""
    notes: dict[str, str] = field(default_factory=dict)
    numbers: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Diagnosis":
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in d.items() if k in known})

    def features(self) -> dict[str, float]:
        """Numeric features for similarity (see :data:`FEATURES`)."""
        f = {p: float(self.pipe_ratios.get(p, 0.0)) for p in ("S", "V", "MTE2", "MTE3", "M")}
        f["overlap_norm"] = 0.0 if self.overlap is None else min(1.0, self.overlap / 3.0)
        f["roofline_share"] = float(self.roofline_share or 0.0)
        f["core_use"] = self.block_dim / self.cores if self.cores else 1.0
        bpt = self.bytes_per_transfer
        f["transfer_norm"] = 1.0 if bpt is None else min(1.0, bpt / (64 * 1024))
        return f

    def query_text(self) -> str:
        """Words for lexical retrieval: findings, bound, busiest pipe, top instructions."""
        words = [*self.findings, f"bound {self.bound}", f"busiest {self.busiest}", *self.top_instructions, self.text]
        return " ".join(w.replace("_", " ") for w in words if w)


def diagnose_profile(summary: Mapping[str, Any] | None, cores: int = 0) -> Diagnosis:
    """The diagnosis of one benchmark case's profile summary (empty Diagnosis for None); a
    compact profile (:func:`compact_profile`) gives the same findings."""
    if not summary:
        return Diagnosis(text="no profile")
    ratios = {p: float(r) for p, r in (summary.get("pipe_ratio_mean") or {}).items() if r is not None}
    work = {p: r for p, r in ratios.items() if p in WORK_PIPES}
    busiest = max(work, key=lambda p: work[p], default="")
    top = work.get(busiest, 0.0)
    overlap = sum(work.values()) if top > 0 else None
    rows = list(summary.get("top_instructions") or ())
    n_dma = transfers(summary)
    gm = summary.get("gm_bytes")
    bpt = float(gm) / n_dma if gm and n_dma else None
    block_dim = int(summary.get("block_dim") or 0)
    d = Diagnosis(latency_us=summary.get("task_duration_us"), bound=str(summary.get("bound") or ""),
                  pipe_ratios=ratios, busiest=busiest, overlap=overlap,
                  roofline_share=summary.get("achieved_fraction"), block_dim=block_dim, cores=cores,
                  bytes_per_transfer=bpt, scalar_share=ratios.get("S", 0.0),
                  top_instructions=[f"{r.get('name')}@{r.get('pipe')}" for r in rows[:5]])

    def note(kind: str, words: str, number: int | None = None) -> None:
        d.findings.append(kind)
        d.notes[kind] = words
        if number is not None:
            d.numbers[kind] = number

    if cores and 0 < block_dim < cores:
        note("idle_cores", f"{block_dim} of {cores} cores used")
    split = summary.get("split")
    even = balanced_cores(int(split["units"]), cores) if split and block_dim and cores else None
    if even and even != block_dim:
        note("uneven_split", f"{split['units']} units of {split['unit_bytes']} B do not divide among {block_dim} "
                             f"cores; {even} cores split them evenly", even)
    if d.scalar_share > SCALAR_HEAVY:
        note("scalar_heavy", f"scalar pipe {d.scalar_share:.0%} busy")
    if overlap is not None and overlap < OVERLAP_MIN and top < BUSY and len([r for r in work.values() if r > 0.05]) > 1:
        note("serialized_pipes", f"pipes overlap {overlap:.2f}x (they take turns)")
    mem = max((ratios.get(p, 0.0) for p in MEMORY_PIPES), default=0.0)
    memory_busiest = mem > 0 and mem >= max(ratios.values()) if ratios else d.bound == "HBM"
    if memory_busiest and mem < SATURATED:
        depth = overlap_depth(ratios)
        note("memory_stalls", f"busiest pipe is a memory pipe, {mem:.0%} busy"
                              + (f"; the pipes' work overlaps {depth} deep" if depth else ""), depth)
    if bpt is not None and bpt < SMALL_TRANSFER_BYTES:
        note("small_transfers", f"{bpt / 1024:.1f} KiB per transfer")
    if busiest:
        kind = ("memory_bound" if busiest in MEMORY_PIPES else "cube_bound" if busiest in ("M", "MTE1", "FIX")
                else "vector_bound")
        note(kind, f"{busiest} busiest at {top:.0%}")
    if d.roofline_share is not None and d.roofline_share < HEADROOM:
        note("roofline_gap", f"{d.roofline_share:.0%} of the roofline")
    d.text = "; ".join(d.notes[k] for k in d.findings) or "nothing notable"
    return d


def transfers(summary: Mapping[str, Any]) -> int:
    """DMA instructions of a summary: its memory-pipe top instructions, or the compact
    profile's ``transfers``."""
    rows = [r for r in summary.get("top_instructions") or () if r.get("pipe") in MEMORY_PIPES]
    if rows:
        return int(sum(int(r.get("count") or 0) for r in rows))
    return int(summary.get("transfers") or 0)


def overlap_depth(ratios: Mapping[str, float]) -> int | None:
    """Tiles in flight for the busiest pipe to run on without waiting: the busy ratios of all
    pipes but the scalar one summed, over the busiest one's, rounded up (None without busy
    pipes). Pipes that run one after another per tile need that many buffers to overlap."""
    busy = [r for p, r in ratios.items() if p != "S" and r > 0]
    if not busy:
        return None
    return max(1, math.ceil(sum(busy) / max(busy) - 1e-6))


def balanced_cores(units: int, cores: int) -> int | None:
    """The most cores, at least half of ``cores``, among which ``units`` divide evenly."""
    for n in range(cores, cores // 2 - 1, -1):
        if n > 0 and units % n == 0:
            return n
    return None


# the compact profile a Stage II strategy is told: the fields of a Summary the diagnosis reads
_KEEP = ("op_type", "block_dim", "bound", "pipe_ratio_mean", "gm_bytes", "achieved_fraction", "split")


def compact_profile(summary: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The part of a profile summary (``Summary.to_dict()``) the diagnosis needs, JSON-small:
    op type (vector / cube / mix), block dim, bound, mean pipe ratios, GM bytes, achieved
    roofline fraction, the uneven split of the work among the cores when there is one
    (``split``) and the number of memory-pipe instructions (``transfers``)."""
    if not summary:
        return None
    out = {k: summary.get(k) for k in _KEEP if summary.get(k) is not None}
    n = transfers(summary)
    if n:
        out["transfers"] = n
    return out or None


@dataclass(frozen=True)
class Finding:
    """One finding Stage II answers with a move (``kind`` in :data:`TILING_FINDINGS`), its
    words and the number the move needs (:attr:`Diagnosis.numbers`)."""

    kind: str
    reason: str
    value: int | None = None


#: The findings a tiling can answer, in the order they are answered.
TILING_FINDINGS = ("idle_cores", "uneven_split", "memory_stalls", "small_transfers", "roofline_gap")


def findings(profile: Mapping[str, Any] | None, cores: int) -> list[Finding]:
    """The findings of :func:`diagnose_profile` a tiling can answer, most important first. A
    gap to the roofline counts only when nothing but an uneven split explains it (an uneven
    split explains little of it): then the tile size is probed."""
    d = diagnose_profile(profile, cores)
    out = [Finding(k, d.notes[k], d.numbers.get(k)) for k in TILING_FINDINGS if k in d.findings]
    if any(f.kind not in ("uneven_split", "roofline_gap") for f in out):
        out = [f for f in out if f.kind != "roofline_gap"]
    return out


def full_summary(summary: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """The summary with every instruction of the run (not only the top five) when its full
    profile was kept (``profile_dir``, see ``EvalConfig.profile_dir``); else as given."""
    where = (summary or {}).get("profile_dir")
    if not where:
        return summary
    try:
        from ascendopt.profile import Profile

        full = Profile.load(where).summary(top=1000).to_dict()
    except Exception:  # noqa: BLE001 - a profile that cannot be read back: the summary stands
        return summary
    return {**summary, "top_instructions": full.get("top_instructions") or summary.get("top_instructions")}


def diagnose_evaluation(ev: Any, cores: int = 0) -> Diagnosis:
    """The diagnosis of an evaluation's first benchmark case (empty when it has no profile),
    read from its full profile when that was kept."""
    profile = getattr(ev, "profile", None) or {}
    first = next(iter(profile.values()), None)
    return diagnose_profile(full_summary(first), cores)


def kernel_cores(soc: Any, summary: Mapping[str, Any] | None) -> int:
    """Cores of the kernel's type on ``soc`` (a :class:`~ascendopt.hw.soc.Soc` or
    anything with ``get``): cube cores for a cube or mix kernel, vector cores otherwise; 0 when
    unknown."""
    if soc is None or not hasattr(soc, "get"):
        return 0
    try:
        aiv = int(soc.get("aiv_cores"))
        cube = (summary or {}).get("op_type") in ("cube", "mix")
        return int(soc.get("aic_cores", aiv)) if cube else aiv
    except Exception:  # noqa: BLE001 - a SoC without core counts: unknown
        return 0
