"""Distillation: a kept (fast, slow) pair -> an :class:`~ascendopt.bank.experience.Experience`.

The offline distiller fills every field from three things only: the motif's stated facts
(title, family, mechanism, bottleneck class), the two evaluations' profiles (through
:func:`ascendopt.profile.diagnosis.diagnose_profile`) and the diff. The causal chain is the
measured change of each pipe's busy ratio and of the bound, in words; "reusable when" is the
slow side's diagnosis; "avoid when" is the fast side's state (where the optimization is
already in place, it has nothing left to give) plus the motif's own precondition.

An LLM distiller (:class:`Distiller` protocol) may rewrite the prose fields; its answer goes
through :func:`ascendopt.bank.experience.validate` like any record.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from ascendopt.bank.experience import Experience
from ascendopt.evaluate.evaluator import Evaluation
from ascendopt.operator import Operator
from ascendopt.profile.diagnosis import Diagnosis, diagnose_evaluation
from ascendopt.evaluate.verdict import Noise
from ascendopt.transforms.base import Motif, Site


#: Pipe ratio changes smaller than this are not worth a word.
_RATIO_STEP = 0.03


class Distiller(Protocol):
    def distill(self, pair: "Pair") -> Experience: ...


@dataclass(eq=False)  # a record of one removal: compared by identity, as before
class Pair:
    """A kept de-optimization: ``fast`` (the parent) and ``slow`` (the motif's rewrite of it).

    Attributes:
        motif: The motif that removed the optimization.
        site: Where.
        fast, slow: The two operators.
        fast_ev, slow_ev: Their evaluations.
        noise: The parent's noise threshold.
        cores: Cores of the kernel's type (for the diagnosis).
        depth: Chain depth of the slow side (1 = one removal from the original).
        rewrite: Name of the Stage I rewrite of the removed optimization (empty when it has
            none).
        rewrite_sites: Labels of that rewrite's sites in ``slow``.
    """

    motif: Motif
    site: Site
    fast: Operator
    slow: Operator
    fast_ev: Evaluation
    slow_ev: Evaluation
    noise: Noise
    cores: int = 0
    depth: int = 1
    rewrite: str = ""
    rewrite_sites: list[str] | None = None

    def __post_init__(self) -> None:
        self.rewrite_sites = list(self.rewrite_sites or ())


def _ratio_words(slow: Diagnosis, fast: Diagnosis) -> list[str]:
    words = []
    for pipe in sorted(set(slow.pipe_ratios) | set(fast.pipe_ratios)):
        a, b = fast.pipe_ratios.get(pipe, 0.0), slow.pipe_ratios.get(pipe, 0.0)
        if abs(a - b) >= _RATIO_STEP:
            words.append(f"{pipe} busy {a:.0%} -> {b:.0%}")
    return words


def causal_chain(motif: Motif, site: Site, slow: Diagnosis, fast: Diagnosis) -> str:
    """What the removal did, from the measured profiles (fast -> slow)."""
    parts = [f"Removing it ({site.label}, {site.file}:{site.line})"]
    ratios = _ratio_words(slow, fast)
    parts.append("changed " + ", ".join(ratios) if ratios else "left every pipe's busy ratio within 3 points")
    if slow.overlap is not None and fast.overlap is not None and abs(slow.overlap - fast.overlap) >= 0.05:
        parts.append(f"pipe overlap {fast.overlap:.2f}x -> {slow.overlap:.2f}x")
    if slow.busiest != fast.busiest and slow.busiest:
        parts.append(f"the busiest pipe moved from {fast.busiest or '-'} to {slow.busiest}")
    if slow.block_dim != fast.block_dim:
        parts.append(f"blocks {fast.block_dim} -> {slow.block_dim}")
    if slow.bytes_per_transfer and fast.bytes_per_transfer and \
            abs(slow.bytes_per_transfer - fast.bytes_per_transfer) / fast.bytes_per_transfer > 0.1:
        parts.append(f"bytes per transfer {fast.bytes_per_transfer / 1024:.1f} -> {slow.bytes_per_transfer / 1024:.1f} KiB")
    new = [f for f in slow.findings if f not in fast.findings]
    if new:
        parts.append("new findings: " + ", ".join(new))
    if fast.latency_us and slow.latency_us:
        parts.append(f"task time {fast.latency_us:.2f} -> {slow.latency_us:.2f} us")
    return "; ".join(parts) + "."


class OfflineDistiller:
    """Fills every field from the motif, the profiles and the diff (deterministic)."""

    def distill(self, pair: Pair) -> Experience:
        m = pair.motif
        slow_d = diagnose_evaluation(pair.slow_ev, pair.cores)
        fast_d = diagnose_evaluation(pair.fast_ev, pair.cores)
        assert pair.slow_ev.latency_us and pair.fast_ev.latency_us
        speedup = pair.slow_ev.latency_us / pair.fast_ev.latency_us
        pattern = pair.rewrite_sites or [pair.site.label]
        bench = next(iter(pair.fast_ev.profile), "")
        return Experience(
            title=m.title,
            family=m.family,
            mechanism=m.mechanism,
            causal_chain=causal_chain(m, pair.site, slow_d, fast_d),
            bottleneck=f"{m.bottleneck} (measured: {slow_d.text})",
            applicability={"rewrite": pair.rewrite, "motif": m.name, "scope": m.scope, "pattern": pattern},
            expected_effect={"speedup": round(speedup, 4), "slow_us": round(pair.slow_ev.latency_us, 4),
                             "fast_us": round(pair.fast_ev.latency_us, 4), "tau_us": round(pair.noise.tau_us, 4),
                             "sigma_us": round(pair.noise.sigma_us, 4), "repeats": pair.noise.repeats},
            evidence={"slow": _rounded(slow_d.to_dict()), "fast": _rounded(fast_d.to_dict())},
            reusable_when=(f"the profile shows {slow_d.text}"
                           + (f", and the `{pair.rewrite}` rewrite finds its pattern ({pattern[0]})"
                              if pair.rewrite and pair.rewrite_sites
                              else f", and the code has the pattern of motif `{m.name}` removed")),
            avoid_when=(f"the kernel already has it (a profile like {fast_d.text}); or the rewrite would not fit "
                        f"the UB or would break a data dependence (then it fails validation)"),
            diff=pair.fast.diff(pair.slow),
            source={"op": pair.fast.name, "case": bench, "soc": pair.fast_ev.soc, "backend": pair.fast_ev.backend,
                    "fast_digest": pair.fast.digest, "slow_digest": pair.slow.digest, "depth": pair.depth},
        )


def _rounded(d: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, float):
            out[k] = round(v, 4)
        elif isinstance(v, dict):
            out[k] = {a: round(b, 4) if isinstance(b, float) else b for a, b in v.items()}
        else:
            out[k] = v
    return out
