"""A structured diagnosis of one evaluated candidate, shared by Stage I, Stage II and the bank.

:func:`diagnose_profile` reads a profile summary (the dict an
:class:`~ascendopt.evaluate.evaluator.Evaluation` keeps per benchmark case, i.e.
:meth:`ascendopt.profile.model.Summary.to_dict`) and returns a :class:`Diagnosis`: the bound,
the per-pipe busy ratios, how much the pipes overlap, the roofline share, idle cores, the
average transfer size, the scalar share, and named findings with a short text. Stage II's
directed moves (:mod:`ascendopt.tiling.diagnose`) read the same numbers; the experience bank
stores the diagnosis of both sides of every experience and retrieves by it.

Findings (kinds in :data:`FINDING_KINDS`), each resting on a stated mechanism:

* ``idle_cores``: fewer blocks than cores of the kernel's type: the rest of the chip waits.
* ``serialized_pipes``: the work pipes' busy ratios add up to less than :data:`OVERLAP_MIN`
  (``overlap``: busy pipe-time per unit of wall time; near 1 means one pipe works at a time
  while the others wait: no double buffering, or waits between them) while the busiest pipe
  is idle part of the time.
* ``scalar_heavy``: the scalar pipe is busy more than :data:`SCALAR_HEAVY` of the time (element
  loops with ``GetValue``/``SetValue``, per-element copies): the scalar unit issues everything,
  so its own work delays every pipe.
* ``small_transfers``: GM bytes per DMA instruction below :data:`SMALL_TRANSFER_BYTES`: each
  transfer pays a fixed issue and turnaround cost.
* ``memory_bound`` / ``vector_bound`` / ``cube_bound``: which pipe is busiest, with its ratio.
* ``roofline_gap``: the achieved share of the roofline is below :data:`HEADROOM`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

MEMORY_PIPES = ("MTE2", "MTE3")
WORK_PIPES = ("MTE2", "MTE3", "V", "M", "MTE1", "FIX")
FINDING_KINDS = ("idle_cores", "serialized_pipes", "scalar_heavy", "small_transfers", "memory_bound",
                 "vector_bound", "cube_bound", "roofline_gap")
OVERLAP_MIN = 1.3
BUSY = 0.9
SCALAR_HEAVY = 0.2
SMALL_TRANSFER_BYTES = 16 * 1024
HEADROOM = 0.9
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
    """The diagnosis of one benchmark case's profile summary (empty Diagnosis for None)."""
    if not summary:
        return Diagnosis(text="no profile")
    ratios = {p: float(r) for p, r in (summary.get("pipe_ratio_mean") or {}).items() if r is not None}
    work = {p: r for p, r in ratios.items() if p in WORK_PIPES}
    busiest = max(work, key=lambda p: work[p], default="")
    top = work.get(busiest, 0.0)
    overlap = sum(work.values()) if top > 0 else None
    rows = list(summary.get("top_instructions") or ())
    dma = [r for r in rows if r.get("pipe") in MEMORY_PIPES]
    n_dma = sum(int(r.get("count") or 0) for r in dma)
    gm = summary.get("gm_bytes")
    bpt = float(gm) / n_dma if gm and n_dma else None
    block_dim = int(summary.get("block_dim") or 0)
    d = Diagnosis(latency_us=summary.get("task_duration_us"), bound=str(summary.get("bound") or ""),
                  pipe_ratios=ratios, busiest=busiest, overlap=overlap,
                  roofline_share=summary.get("achieved_fraction"), block_dim=block_dim, cores=cores,
                  bytes_per_transfer=bpt, scalar_share=ratios.get("S", 0.0),
                  top_instructions=[f"{r.get('name')}@{r.get('pipe')}" for r in rows[:5]])
    words: list[str] = []
    if cores and 0 < block_dim < cores:
        d.findings.append("idle_cores")
        words.append(f"{block_dim} of {cores} cores used")
    if d.scalar_share > SCALAR_HEAVY:
        d.findings.append("scalar_heavy")
        words.append(f"scalar pipe {d.scalar_share:.0%} busy")
    if overlap is not None and overlap < OVERLAP_MIN and top < BUSY and len([r for r in work.values() if r > 0.05]) > 1:
        d.findings.append("serialized_pipes")
        words.append(f"pipes overlap {overlap:.2f}x (they take turns)")
    if bpt is not None and bpt < SMALL_TRANSFER_BYTES:
        d.findings.append("small_transfers")
        words.append(f"{bpt / 1024:.1f} KiB per transfer")
    if busiest:
        kind = ("memory_bound" if busiest in MEMORY_PIPES else "cube_bound" if busiest in ("M", "MTE1", "FIX")
                else "vector_bound")
        d.findings.append(kind)
        words.append(f"{busiest} busiest at {top:.0%}")
    if d.roofline_share is not None and d.roofline_share < HEADROOM:
        d.findings.append("roofline_gap")
        words.append(f"{d.roofline_share:.0%} of the roofline")
    d.text = "; ".join(words) or "nothing notable"
    return d


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
