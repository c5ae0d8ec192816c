"""An LLM answer that breaks a failure rule in force is refused before it costs an evaluation,
with the rule recorded on the refusal and counted in the usage: a rule on an offline transform
forbids an answer making that transform's edit (checked on the rewritten source), a rule on an
LLM family forbids an answer stating that family."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascendopt.bank.rules import Rule, save
from ascendopt.bank.store import ExperienceBank
from ascendopt.evaluate.evaluator import Evaluation
from ascendopt.operator import Operator
from ascendopt.profile.diagnosis import Diagnosis
from ascendopt.refine.llm_rewriter import LLMRewriter
from ascendopt.refine.rewriter import RewriteContext
from ascendopt.refine.rule_check import broken_rules, contains_edit
from ascendopt.refine.stage1 import StepConfig, StepServices, stage1_step
from ascendopt.transforms import REWRITES
from ascendopt.transforms.sites import sites_of

OP_DIR = Path(__file__).resolve().parents[2] / "ops" / "level2" / "rms_norm"
EVIDENCE = [{"op": "a", "digest": "d1", "detail": ""}, {"op": "b", "digest": "d2", "detail": ""}]
DROP = Rule("drop_barrier", "", "hazard", [], "race on UB: V reads what V wrote", EVIDENCE, 2)
FAMILY = Rule("llm", "pipeline_overlap", "wrong_result", [], "output mismatch", EVIDENCE, 2)


@pytest.fixture(scope="module")
def op() -> Operator:
    return Operator.load(OP_DIR)


def made_by(name: str, op: Operator, i: int = 0) -> Operator:
    t = REWRITES.all()[name]()
    return t.apply(op, sites_of(t, op)[i])


def answer(op: Operator, text: str, family: str = "other") -> str:
    return f"family: {family} -- my change\n```cpp {op.kernel_file}\n{text}```\n"


def reformatted(op: Operator, cand: Operator) -> str:
    """``cand``'s kernel re-indented, with one more change elsewhere (as an LLM writes it)."""
    return "".join("  " + ln for ln in cand.files[op.kernel_file].splitlines(True)) + "// and more\n"


def ctx_with(op: Operator, rules: list[Rule]) -> RewriteContext:
    return RewriteContext(op, Evaluation("ok", latency_us=20.0), Diagnosis(text="vector bound"), rules=rules)


def test_the_edit_of_a_transform_is_recognised_on_the_rewritten_source(op):
    dropped = made_by("drop_barrier", op, 3)
    other = made_by("double_buffer", op)
    loose = op.with_file(op.kernel_file, reformatted(op, dropped))
    assert contains_edit(op, dropped, loose)                       # whitespace and extra changes do not hide it
    assert not contains_edit(op, dropped, other) and not contains_edit(op, other, dropped)
    assert broken_rules([DROP], op, loose, "other") == [DROP]
    assert broken_rules([DROP], op, other, "other") == []
    assert broken_rules([FAMILY], op, other, "pipeline_overlap") == [FAMILY]
    assert broken_rules([FAMILY], op, other, "tile_size") == []


def test_an_answer_making_a_forbidden_transforms_edit_is_refused_and_counted(op, client, server):
    rw = LLMRewriter(client)
    ctx = ctx_with(op, [DROP])
    server.push(answer(op, reformatted(op, made_by("drop_barrier", op, 5))),
                answer(op, made_by("double_buffer", op).files[op.kernel_file]))
    (p,) = rw.propose(ctx, 2)                                      # the first answer refused, the second kept
    assert p.op.digest == made_by("double_buffer", op).digest and p.rules == [DROP.id]
    (r,) = rw.rule_refusals
    assert r.rules == [DROP.id] and r.attempt == 1 and DROP.text() in r.reason
    assert "race on UB" in server.requests[0]["messages"][1]["content"]   # the prompt stated the rule
    u = client.usage_by_role["refiner"]
    assert (u.requests, u.refused, u.refused_by_rule) == (2, 1, 1)
    assert client.usage.to_dict()["refused_by_rule"] == 1


def test_an_answer_of_a_forbidden_llm_family_is_refused(op, client, server):
    rw = LLMRewriter(client)
    text = made_by("double_buffer", op).files[op.kernel_file]
    server.push(answer(op, text, "pipeline_overlap"), answer(op, text, "tile_size"))
    ctx = ctx_with(op, [FAMILY])
    assert rw.propose(ctx, 1) == [] and rw.rule_refusals[0].rules == [FAMILY.id]
    (p,) = rw.propose(ctx, 1)                                      # the same edit under another family
    assert p.family == "tile_size"


class CountingEvaluator:
    def __init__(self) -> None:
        self.asked: list[str] = []

    def evaluate_many(self, ops, cases):
        self.asked += [o.digest for o in ops]
        return [Evaluation("ok", latency_us=25.0, digest=o.digest) for o in ops]


def test_in_a_stage1_step_a_refused_answer_costs_no_evaluation(op, client, server):
    bank = ExperienceBank()
    save(bank, [DROP])
    server.push(answer(op, made_by("drop_barrier", op).files[op.kernel_file]))
    beval, rw = CountingEvaluator(), LLMRewriter(client)
    res = stage1_step(op, Evaluation("ok", latency_us=20.0), [], StepServices(beval, rw, bank),
                      StepConfig(k=0, candidates=1))
    assert res.proposed == 0 and res.tried == [] and beval.asked == []
    assert rw.rule_refusals[0].rules == [DROP.id] and client.usage.refused_by_rule == 1
