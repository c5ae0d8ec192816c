import json
import sqlite3

import pytest

from ascendopt.bank.experience import Experience, normalized_diff, validate
from ascendopt.bank.store import BankError, ExperienceBank
from ascendopt.bank.transfer import export_dict, export_json, import_json


def make(family="pipeline_overlap", diff="-a = 1;\n+a = 2;\n", op="gelu", title="Double-buffer the copy queues",
         speedup=1.2, findings=("memory_bound",), ratios=None):
    slow = {"pipe_ratios": ratios or {"V": 0.3, "MTE2": 0.5}, "findings": list(findings), "top_instructions": [],
            "overlap": 0.8, "roofline_share": 0.4, "block_dim": 48, "cores": 48, "text": "t"}
    return Experience(title=title, family=family, mechanism="m", causal_chain="c", bottleneck="b",
                      applicability={"rewrite": "", "motif": "x", "pattern": ["p"]},
                      expected_effect={"speedup": speedup, "slow_us": 12.0, "fast_us": 10.0, "tau_us": 0.1},
                      evidence={"slow": slow, "fast": {}}, reusable_when="r", avoid_when="a",
                      diff=f"--- a/op_kernel/{op}.cpp\n+++ b/op_kernel/{op}.cpp\n@@ -1,1 +1,1 @@\n{diff}",
                      source={"op": op})


def test_near_identical_experiences_merge_and_count(tmp_path):
    bank = ExperienceBank(tmp_path / "b.db")
    id1, added1 = bank.add(make(op="gelu"))
    id2, added2 = bank.add(make(op="silu", diff="-a  =  1;\n+a = 2;\n"))  # same edit, other file, spacing
    assert added1 and not added2 and id1 == id2
    (e,) = bank.entries()
    assert e.support == 2 and e.seen_on == ("gelu", "silu")
    _, added3 = bank.add(make(family="sync_elimination"))  # same diff, other family: another lesson
    assert added3 and len(bank) == 2


def test_export_import_round_trip(tmp_path):
    a = ExperienceBank(tmp_path / "a.db")
    a.add(make())
    a.add(make(family="vectorization", diff="-x\n+y\n", title="Vectorize"))
    a.add(make(), seen_on=["rms_norm"])
    out = tmp_path / "bank.json"
    assert export_json(a, out) == 2
    b = ExperienceBank(tmp_path / "b.db")
    assert import_json(b, out) == (2, 0)
    assert export_dict(b) == export_dict(a)
    assert import_json(b, out) == (0, 2)  # importing again raises support only
    assert {e.support for e in b.entries()} == {4, 2}


def test_bad_inputs_are_clear_errors(tmp_path):
    not_bank = tmp_path / "other.db"
    sqlite3.connect(not_bank).execute("CREATE TABLE t (x)")
    with pytest.raises(BankError, match="not an experience bank"):
        ExperienceBank(not_bank)
    newer = tmp_path / "newer.db"
    ExperienceBank(newer).close()
    sqlite3.connect(newer).execute("UPDATE bank_schema SET version = 99").connection.commit()
    with pytest.raises(BankError, match="newer"):
        ExperienceBank(newer)
    bad = tmp_path / "bad.json"
    good = make().to_dict()
    bad.write_text(json.dumps({"format": "ascendopt-experience-bank", "version": 1,
                               "experiences": [good, {**good, "family": "made_up"}]}))
    bank = ExperienceBank()
    with pytest.raises(BankError, match="unknown family"):
        import_json(bank, bad)
    assert len(bank) == 0  # nothing half-imported
    (tmp_path / "x.json").write_text("{}")
    with pytest.raises(BankError, match="not an ascendopt"):
        import_json(bank, tmp_path / "x.json")


def test_schema_check_and_normalised_diff():
    with pytest.raises(ValueError, match="missing or empty"):
        validate({**make().to_dict(), "mechanism": " "})
    with pytest.raises(ValueError, match="speedup"):
        validate({**make().to_dict(), "expected_effect": {"speedup": -1}})
    assert normalized_diff("--- a/x\n+++ b/x\n@@ -3 +3 @@\n-a  b\n+a b c\n ctx\n") == "-a b\n+a b c"


def test_lexical_search_ranks_the_matching_text_first():
    bank = ExperienceBank()
    bank.add(make(family="vectorization", diff="-x\n+y\n", title="Use vector instructions",
                  findings=("scalar_heavy",)))
    bank.add(make(title="Double-buffer the copy queues"))
    scores = bank.lexical("scalar heavy pipe")
    assert max(scores, key=scores.get) == bank.entries("vectorization")[0].id
