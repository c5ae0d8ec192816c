"""Fakes for the agent's loop: an evaluator whose latency is a function of the kernel text,
and a rewriter that appends tokens, so a test states the latency landscape in a few lines and
runs in milliseconds."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from ascendopt.evaluate.budget import BudgetedEvaluator, ReuseConfig
from ascendopt.evaluate.evaluator import EvalConfig, Evaluation
from ascendopt.evaluate.store import MemoryStore
from ascendopt.operator import Operator
from ascendopt.refine.rewriter import Proposal

KERNEL = "op_kernel/toy.cpp"


def toy() -> Operator:
    return Operator.from_files("toy", {KERNEL: "base\n"})


def tokens(op: Operator) -> list[str]:
    return op.files[KERNEL].split()


def with_token(op: Operator, token: str, origin: str = "stage1/fake") -> Operator:
    new = op.with_file(KERNEL, op.files[KERNEL] + token + "\n", origin)
    return new


class FakeEvaluator:
    """Latency = ``latency(tokens)``; None means a wrong result. Three noise-free runs."""

    backend_name, soc_name = "fake", "fake"

    def __init__(self, latency: Callable[[list[str]], float | None], interrupt_after: int | None = None):
        self.latency, self.interrupt_after, self.calls = latency, interrupt_after, 0
        self.config = EvalConfig()
        self.backend = SimpleNamespace(soc=None, supports_tiling=False)

    def config_key(self, cases: Any) -> str:
        return "fake"

    def seed_for(self, op: Operator) -> int:
        return 0

    def evaluate(self, op: Operator, cases: Any, seed: int | None = None, config_key: str = "") -> Evaluation:
        if self.interrupt_after is not None and self.calls >= self.interrupt_after:
            raise KeyboardInterrupt
        self.calls += 1
        lat = self.latency(tokens(op))
        common = dict(op_name=op.name, digest=op.digest, parent=op.parent, origin=op.origin, config_key="fake")
        if lat is None:
            return Evaluation("wrong_result", error="mismatch", **common)
        return Evaluation("ok", latency_us=lat, profile={"bench": {"runs_us": [lat] * 3, "task_duration_us": lat}},
                          **common)


def budgeted(ev: FakeEvaluator, budget: int, store: MemoryStore | None = None,
             run_id: int | None = None) -> BudgetedEvaluator:
    return BudgetedEvaluator(ev, store or MemoryStore(), budget=budget, run_id=run_id,
                             reuse=ReuseConfig(equivalence=False))


@dataclass
class Step:
    """A fake rewrite: appends ``token`` when every token of ``needs`` is present."""

    token: str
    needs: tuple[str, ...] = ()


@dataclass
class FakeRewriter:
    """Proposes its steps in order (those applicable, new and not tried yet); ``endless``
    adds ``slow<i>`` tokens after them without end."""

    steps: list[Step] = field(default_factory=list)
    endless: bool = False
    name: str = "fake"

    def propose(self, ctx: Any, n: int) -> list[Proposal]:
        have, out = tokens(ctx.op), []
        cands = [s for s in self.steps if s.token not in have and all(x in have for x in s.needs)]
        i = 0
        while self.endless and len(cands) < len(self.steps) + n + len(ctx.tried):
            cands.append(Step(f"slow{i}"))
            i += 1
        for s in cands:
            op = with_token(ctx.op, s.token)
            if op.digest in ctx.tried or len(out) >= n:
                continue
            out.append(Proposal(op, s.token, "fake", f"add {s.token}"))
        return out

    def repair(self, ctx: Any, failed: Any, evaluation: Any) -> None:
        return None
