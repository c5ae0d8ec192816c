"""Failure rules: a validity failure recurring for the same rewrite on two operators becomes a
rule the offline rewriter obeys and the LLM prompt states; a success under its condition
retires it; ``bank rules`` lists them and export/import carry them."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ascendopt.bank.feedback import learn_from as record
from ascendopt.bank.outcomes import Outcome
from ascendopt.bank.rules import Rule, blocking, in_force, rules
from ascendopt.bank.store import ExperienceBank
from ascendopt.cli import app
from ascendopt.evaluate.evaluator import Evaluation
from ascendopt.operator import Operator
from ascendopt.profile.diagnosis import Diagnosis
from ascendopt.refine.llm_rewriter import LLMRewriter
from ascendopt.refine.rewriter import OfflineRewriter, RewriteContext

OPS = Path(__file__).resolve().parents[2] / "ops"
runner = CliRunner()


def failed(op: str, findings: list[str], result: str = "wrong_result", rewrite: str = "double_buffer",
           detail: str = "output y mismatch: 37 of 4096 elements") -> Outcome:
    return Outcome("rewrite", op, f"d-{op}-{result}-{rewrite}", "p", rewrite, "pipeline_overlap", result,
                   detail=detail, findings=findings)


def test_a_failure_on_two_operators_becomes_a_rule_with_its_condition_and_evidence():
    bank = ExperienceBank()
    record(bank, failed("a", ["memory_bound", "serialized_pipes"]))
    again = failed("a", ["memory_bound"])
    again.digest += "-2"
    assert record(bank, again)
    assert rules(bank) == []                                   # one operator is not a recurrence
    record(bank, failed("b", ["memory_bound", "idle_cores"], result="build_failure"))
    assert rules(bank) == []                                   # another way of failing
    record(bank, failed("c", ["memory_bound", "idle_cores"]))
    (r,) = rules(bank)
    assert (r.rewrite, r.fails, r.condition, r.support, r.active) == ("double_buffer", "wrong_result",
                                                                      ["memory_bound"], 2, True)
    assert r.what == "output y mismatch: 37 of 4096 elements" and {e["op"] for e in r.evidence} == {"a", "c"}
    assert "Do not apply the `double_buffer` rewrite to a kernel whose diagnosis shows memory_bound" in r.text()
    assert in_force(bank, ["memory_bound", "x"]) == [r] and in_force(bank, ["vector_bound"]) == []
    assert blocking([r], "double_buffer") == [r] and blocking([r], "drop_barrier") == []


def test_a_success_under_the_condition_retires_the_rule():
    bank = ExperienceBank()
    record(bank, failed("a", ["memory_bound"]))
    record(bank, failed("b", ["memory_bound"]))
    assert rules(bank, active_only=True)
    record(bank, Outcome("rewrite", "c", "d-c", "p", "double_buffer", "pipeline_overlap", "faster",
                         findings=["memory_bound", "idle_cores"]))
    assert rules(bank, active_only=True) == [] and not rules(bank)[0].active


def test_llm_rules_are_per_family():
    bank = ExperienceBank()
    record(bank, failed("a", [], rewrite="llm"))
    record(bank, Outcome("rewrite", "b", "d-b", "p", "llm", "tile_size", "wrong_result"))
    assert rules(bank) == []
    record(bank, failed("c", [], rewrite="llm"))
    (r,) = rules(bank)
    assert r.family == "pipeline_overlap" and "LLM rewrite of family pipeline_overlap to any kernel" in r.text()


def test_the_offline_rewriter_does_not_propose_a_forbidden_rewrite():
    op = Operator.load(OPS / "level2" / "rms_norm")
    free = OfflineRewriter().candidates(RewriteContext(op, None, None))
    assert {"double_buffer", "drop_barrier"} <= {p.rewrite for p in free}
    rule = Rule("double_buffer", "", "wrong_result", [], "mismatch", [{"op": "a", "digest": "d", "detail": ""}], 2)
    got = OfflineRewriter().candidates(RewriteContext(op, None, None, rules=[rule]))
    assert got and "double_buffer" not in {p.rewrite for p in got}
    assert all(p.rules == [rule.id] for p in got)


def test_the_llm_prompt_states_the_rules():
    op = Operator.load(OPS / "level1" / "abs_custom")
    rule = Rule("llm", "multi_core", "hazard", ["idle_cores"], "race on UB", [{"op": "a", "digest": "d", "detail": ""}],
                3)
    ctx = RewriteContext(op, Evaluation("ok", latency_us=5.0), Diagnosis(findings=["idle_cores"]), rules=[rule])
    user = LLMRewriter(None).prompt(ctx, 1)[1]["content"]
    assert "Rules learnt from failures" in user and rule.text() in user


def test_cli_rules_and_export_import_carry_them(tmp_path):
    path = tmp_path / "b.db"
    bank = ExperienceBank(path)
    record(bank, failed("a", ["memory_bound"]))
    record(bank, failed("b", ["memory_bound"]))
    bank.close()
    r = runner.invoke(app, ["bank", "rules", "--bank", str(path), "--json"])
    assert r.exit_code == 0, r.output
    (d,) = json.loads(r.stdout)
    assert d["rewrite"] == "double_buffer" and d["support"] == 2 and d["condition"] == ["memory_bound"]
    r = runner.invoke(app, ["bank", "rules", "--bank", str(path)])
    assert "support 2" in r.stdout and "double_buffer" in r.stdout
    out = tmp_path / "e.json"
    assert runner.invoke(app, ["bank", "export", str(out), "--bank", str(path)]).exit_code == 0
    assert runner.invoke(app, ["bank", "import", str(out), "--bank", str(tmp_path / "c.db")]).exit_code == 0
    (got,) = rules(ExperienceBank(tmp_path / "c.db", readonly=True))
    assert got.to_dict() == d
