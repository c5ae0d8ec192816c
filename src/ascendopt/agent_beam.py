"""Stage I's search in the agent: a greedy step from the current kernel plus a bounded frontier
of *neutral* rewrites, so that compositions are reachable.

Some rewrites pay only in a chain: staging a scalar GM loop through UB may be no faster alone,
but it makes the loop vectorizable, which is much faster. A purely greedy step never keeps the
first link. The search therefore keeps, besides the current kernel, a **frontier** of at most
``width`` nodes: kernels reached from the current one by a chain of rewrites each judged
``neutral`` against the current kernel (correct, no hazard the current kernel lacks, not slower
beyond its noise threshold ``tau``; :func:`ascendopt.evaluate.verdict.judge_improvement`).

One search step (:func:`search_step`):

1. runs a Stage I step (:func:`ascendopt.refine.stage1.stage1_step`) from the current kernel,
   then one from each frontier node (best first), every proposal judged against the *current*
   kernel;
2. the fastest proposal over all of them that beats the current kernel by more than ``tau`` is
   accepted, with the chain that led to it (a chain is accepted only when its end is faster);
3. the new frontier is the ``width`` fastest neutral proposals of this step (ties by digest)
   whose chain is shorter than ``depth`` (``depth`` = the longest chain accepted); the nodes
   expanded in this step leave it. The agent clears the frontier when the kernel changes
   (neutrality is relative to the current kernel).

Every choice is a function of the evaluations (latency, then digest), so a replay from the
records takes the same path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ascendopt.cases import Case
from ascendopt.evaluate.evaluator import Evaluation
from ascendopt.operator import Operator
from ascendopt.refine.stage1 import StepConfig, StepResult, StepServices, Tried, stage1_step


@dataclass
class Node:
    """A kernel of the search: ``op`` evaluated as ``ev``, reached from the current kernel by
    ``chain`` (each link neutral against it; empty for the current kernel itself)."""

    op: Operator
    ev: Evaluation
    chain: list[Tried] = field(default_factory=list)

    def labels(self) -> list[str]:
        return [link_label(t) for t in self.chain]


@dataclass
class Frontier:
    """The neutral nodes kept for the next step.

    Attributes:
        width: Nodes kept at most (0: greedy Stage I, no compositions).
        depth: Longest chain (in rewrites) that can be accepted; a node's chain is shorter.
        nodes: The nodes, fastest first.
    """

    width: int = 2
    depth: int = 2
    nodes: list[Node] = field(default_factory=list)

    def clear(self) -> None:
        self.nodes = []

    def admit(self, candidates: Sequence[Node]) -> None:
        """Keeps the ``width`` fastest of ``candidates`` whose chain can still grow."""
        ok = [n for n in candidates if 0 < len(n.chain) < self.depth and n.ev.latency_us is not None]
        ok.sort(key=lambda n: (n.ev.latency_us, n.op.digest))
        self.nodes = ok[:max(0, self.width)]


@dataclass
class SearchStep:
    """What one search step did.

    Attributes:
        expanded: Each node stepped from, with its Stage I step.
        accepted: The accepted proposal (the chain's last link), or None.
        chain: The whole accepted chain (its last element is ``accepted``).
        parent: The node the accepted proposal was made from (the current kernel for a chain
            of one).
        exhausted: The budget ran out during the step.
    """

    expanded: list[tuple[Node, StepResult]] = field(default_factory=list)
    accepted: Tried | None = None
    chain: list[Tried] = field(default_factory=list)
    parent: Node | None = None
    exhausted: bool = False

    @property
    def proposed(self) -> int:
        return sum(r.proposed for _, r in self.expanded)


def link_label(t: Tried) -> str:
    return f"{t.proposal.rewrite}: {t.proposal.site}"


def chain_record(chain: Sequence[Tried]) -> list[dict[str, Any]]:
    """The steps of a chain for the report: each link's rewrite, site, digest, latency, verdict."""
    return [{"rewrite": t.proposal.rewrite, "site": t.proposal.site, "digest": t.proposal.op.digest,
             "latency_us": t.evaluation.latency_us, "verdict": t.verdict.reason} for t in chain]


def search_step(cur: Operator, cur_ev: Evaluation, frontier: Frontier, cases: Sequence[Case],
                services: StepServices, tried: set[str], cfg: StepConfig = StepConfig()) -> SearchStep:
    """One step from the current kernel and every frontier node (see the module docstring);
    ``services`` and ``cfg`` go to :func:`~ascendopt.refine.stage1.stage1_step`. Updates ``frontier``."""
    beval = services.beval
    out = SearchStep()
    grown: list[Node] = []
    best: tuple[float, str, Node, Tried] | None = None
    for node in [Node(cur, cur_ev), *frontier.nodes]:
        if beval.remaining(cur.name) == 0:
            out.exhausted = True
            break
        r = stage1_step(node.op, node.ev, cases, services, cfg, tried=tried, reference=cur_ev)
        out.expanded.append((node, r))
        grown += [Node(t.proposal.op, t.evaluation, [*node.chain, t]) for t in r.neutral]
        for t in r.tried:
            if t.verdict.kept and t.evaluation.latency_us is not None:
                key = (t.evaluation.latency_us, t.proposal.op.digest)
                if best is None or key < best[:2]:
                    best = (*key, node, t)
        if r.exhausted:
            out.exhausted = True
            break
    frontier.admit(grown if frontier.width > 0 else [])
    if best is not None:
        _, _, node, t = best
        out.accepted, out.chain, out.parent = t, [*node.chain, t], node
    return out
