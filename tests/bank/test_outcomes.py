"""Outcomes written back: the old schema migrates, values follow the Beta rule, retrieval ranks
by similarity and value with room for untried experiences, and an experience whose rewrite
cannot apply is not among the top hits (issue 34's gelu example)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from ascendopt.bank import store as store_mod
from ascendopt.bank.outcomes import Outcome, Value, outcome_class, outcomes, record, ucb, values
from ascendopt.bank.retrieve import retrieve, rewrite_applies
from ascendopt.bank.store import ExperienceBank
from ascendopt.operator import Operator
from ascendopt.profile.diagnosis import Diagnosis
from ascendopt.bank.transfer import export_dict, export_json, import_json, open_default

from .test_store import make

GELU = Path(__file__).resolve().parents[2] / "ops" / "level1" / "gelu"


def old_bank(path: Path) -> str:
    """A schema-1 bank file as the previous ascendopt wrote it, with one experience."""
    exp = make()
    db = sqlite3.connect(path)
    db.executescript(store_mod._SCHEMA_V1 + "CREATE TABLE bank_schema (version INTEGER NOT NULL);"
                     "INSERT INTO bank_schema VALUES (1);")
    db.execute("INSERT INTO experiences VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)",
               (exp.id, exp.dedup_key(), exp.family, exp.title, exp.origin, exp.speedup, json.dumps(["gelu"]),
                json.dumps(exp.to_dict())))
    db.execute("INSERT INTO experiences_fts VALUES (?, ?)", (exp.id, exp.search_text()))
    db.commit()
    db.close()
    return exp.id


def outcome(op: str, exps: list[str], result: str, digest: str = "", rewrite: str = "double_buffer") -> Outcome:
    return Outcome("rewrite", op, digest or f"{op}-{result}-{','.join(exps)}", "p", rewrite, "pipeline_overlap",
                   result, findings=["memory_bound"], experiences=exps)


def test_an_old_schema_bank_still_opens_read_only_and_migrates_read_write(tmp_path):
    path = tmp_path / "old.db"
    exp_id = old_bank(path)
    ro = ExperienceBank(path, readonly=True)
    assert ro.schema_version == 1 and not ro.learns and [e.id for e in ro.entries()] == [exp_id]
    assert values(ro) == {} and outcomes(ro) == [] and not record(ro, outcome("a", [exp_id], "faster"))
    ro.close()
    rw = ExperienceBank(path)
    assert rw.schema_version == store_mod.SCHEMA_VERSION == 2 and rw.learns and len(rw) == 1
    assert record(rw, outcome("a", [exp_id], "faster"))
    rw.close()
    assert ExperienceBank(path, readonly=True).schema_version == 2


def test_values_follow_the_beta_posterior_and_a_replay_counts_once():
    bank = ExperienceBank()
    for o in (outcome("a", ["x"], "faster"), outcome("b", ["x"], "faster"), outcome("a", ["y"], "wrong_result"),
              outcome("b", ["y"], "neutral")):
        assert record(bank, o)
    assert not record(bank, outcome("a", ["x"], "faster"))      # the same evaluation again
    v = values(bank)
    assert v["x"] == Value(2.0, 0.0, 2) and v["x"].mean == pytest.approx(3 / 4)
    assert v["y"] == Value(0.0, 1.5, 2) and v["y"].mean == pytest.approx(1 / 3.5)
    assert Value().mean == 0.5
    # UCB: an untried experience keeps room above one that failed, below one that paid
    n = 4
    assert ucb(v["y"], n) < ucb(Value(), n) < ucb(v["x"], n)
    assert ucb(Value(), 0) == 0.5


def test_outcome_classes():
    assert outcome_class("accepted") == "faster" and outcome_class("neutral") == "neutral"
    assert outcome_class("failed", "compile_error") == "build_failure"
    assert outcome_class("failed", "wrong_result") == "wrong_result"
    assert outcome_class("new_hazard", "ok") == "hazard" and outcome_class("failed", "timeout") == "failed"


def two_alike() -> tuple[ExperienceBank, str, str]:
    bank = ExperienceBank()
    a, _ = bank.add(make(diff="-a\n+b\n", op="abs"))
    b, _ = bank.add(make(diff="-c\n+d\n", op="silu"))
    return bank, a, b


def test_value_reorders_equally_similar_experiences_and_similarity_mode_ignores_it():
    bank, a, b = two_alike()
    d = Diagnosis(findings=["memory_bound"], pipe_ratios={"V": 0.3, "MTE2": 0.5})
    first = retrieve(bank, d, 2)[0].experience.id
    other = b if first == a else a
    for i in range(3):  # the first one's advice fails three times, the other's pays once
        record(bank, outcome(f"op{i}", [first], "wrong_result"))
    record(bank, outcome("op9", [other], "faster"))
    hits = retrieve(bank, d, 2)
    assert [h.experience.id for h in hits] == [other, first] and hits[0].parts["value"] > hits[1].parts["value"]
    assert retrieve(bank, d, 2, mode="similarity")[0].experience.id == first
    assert "value" not in retrieve(bank, d, 2, mode="similarity")[0].parts


def test_an_untried_experience_is_explored_before_one_that_kept_failing():
    bank, a, b = two_alike()
    d = Diagnosis(findings=["memory_bound"], pipe_ratios={"V": 0.3, "MTE2": 0.5})
    first = retrieve(bank, d, 2)[0].experience.id
    record(bank, outcome("op1", [first], "not_faster"))
    assert retrieve(bank, d, 1)[0].experience.id != first


def test_gelu_scalar_loop_lessons_are_not_top_hits():
    """gelu has no scalar element loop: the vectorize experiences, however similar their
    profile, rank after every experience that may apply."""
    op = Operator.load(GELU)
    bank = open_default()
    assert rewrite_applies("vectorize_scalar_loop", op) == 0.0
    scalar = next(e for e in bank.entries() if e.experience.applicability.get("rewrite") == "vectorize_scalar_loop")
    d = Diagnosis.from_dict(scalar.experience.evidence["slow"])
    every = retrieve(bank, d, len(bank), op=op)
    by_score = sorted(every, key=lambda h: -h.score)[:5]
    assert any(h.experience.applicability.get("rewrite") == "vectorize_scalar_loop" for h in by_score)  # similar
    top = retrieve(bank, d, 5, op=op)
    assert len(top) == 5 and all(h.parts["applies"] > 0 for h in top)
    assert not any(h.experience.applicability.get("rewrite") == "vectorize_scalar_loop" for h in top)


def test_export_import_carry_values(tmp_path):
    bank, a, _ = two_alike()
    record(bank, outcome("x", [a], "faster"))
    out = tmp_path / "e.json"
    export_json(bank, out)
    other = ExperienceBank()
    import_json(other, out)
    assert values(other) == values(bank) and export_dict(other) == export_dict(bank)


def test_a_repeated_lesson_comes_after_every_distinct_one():
    bank = ExperienceBank()
    a, _ = bank.add(make(diff="-a\n+b\n", op="abs"))
    b, _ = bank.add(make(diff="-c\n+d\n", op="silu"))                      # the same lesson, another kernel
    c, _ = bank.add(make(diff="-e\n+f\n", op="exp", title="Split the work", family="multi_core",
                         findings=("idle_cores",)))
    d = Diagnosis(findings=["memory_bound"], pipe_ratios={"V": 0.3, "MTE2": 0.5})
    by_score = sorted(retrieve(bank, d, 3, mode="similarity"), key=lambda h: -h.score)
    assert by_score[-1].experience.id == c                                   # least similar
    assert [h.experience.id for h in retrieve(bank, d, 3, mode="similarity")][1] == c
