"""Within one optimize run, while the kernel is unchanged, Stage II keeps its knob space and its
strategy across rounds (issue 32 item 3): what the strategy learnt in round 1 (e.g. evo's
retired knobs) is not relearnt in round 2. A changed kernel gets a new space and strategy."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascendopt import agent
from ascendopt.agent import AgentConfig, OptimizeResult
from ascendopt.operator import Operator
from ascendopt.tiling import search

OP = Path(__file__).resolve().parents[1] / "fixtures" / "ops" / "naive_add"


class _Budget:
    evaluator = None


@pytest.fixture
def seen(monkeypatch):
    """The (space, strategy) each Stage II round searched with; tune itself finds nothing."""
    calls: list[tuple] = []

    def fake_tune(op, cases, sub, space, strategy, name):
        calls.append((op.digest, space, strategy))
        return search.TuneResult(op_name=op.name, strategy=name, budget=0, charged=0, duplicates=0,
                                 baseline_latency_us=None, best_latency_us=None, best_config={}, best_digest="")

    monkeypatch.setattr(search, "tune", fake_tune)
    monkeypatch.setattr(agent, "SubBudget", lambda *a, **k: None)
    return calls


def _round(op: Operator, rnd: int, memo: dict) -> None:
    """One Stage II round on ``op`` with ``memo`` as the loop's Stage II state (``_State.stage2``)."""
    res = OptimizeResult(op=op.name, baseline_us=None, best_us=None, best_op=None)
    st = agent._State(op, None, 1, None, stage2=memo)
    agent._stage2_round(st, [], _Budget(), AgentConfig(), rnd, res, lambda *a: None)


def test_stage2_keeps_its_strategy_while_the_kernel_is_unchanged(seen):
    op = Operator.load(OP)
    memo: dict = {}
    _round(op, 1, memo)
    _round(op, 2, memo)
    (_, space1, strat1), (_, space2, strat2) = seen
    assert space1 is space2 and strat1 is strat2
    kernel = next(iter(op.kernel_files()))
    changed = op.with_file(kernel, op.files[kernel] + "\n// another kernel\n")
    _round(changed, 3, memo)
    _, space3, strat3 = seen[2]
    assert strat3 is not strat1 and space3 is not space1
    # without a memo every round starts afresh
    _round(op, 4, {})
    assert seen[3][2] is not strat1
