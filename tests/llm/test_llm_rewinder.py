"""LLMRewinder against the fake server: whole-file and diff answers become candidates with their
stated facts, unusable answers and failed requests raise MotifError; in a rewind they are
failed attempts that cost no budget, and a good slower answer is kept and distilled with the
family the LLM stated; ``ascendopt rewind --llm`` runs."""

from __future__ import annotations

import difflib
import json

import pytest
from typer.testing import CliRunner

from ascendopt.bank.store import ExperienceBank
from ascendopt.evaluate.budget import BudgetedEvaluator
from ascendopt.evaluate.store import MemoryStore
from ascendopt.llm.client import LLMClient
from ascendopt.llm.config import LLMConfig
from ascendopt.rewind.engine import RewindConfig, rewind
from ascendopt.rewind.llm_distiller import LLMDistiller
from ascendopt.rewind.llm_rewinder import LLMProposal, LLMRewinder, stated_facts
from ascendopt.transforms import MOTIFS
from ascendopt.transforms.base import MotifError

from ..conftest import FIXTURE_OPS
from ..rewind.fake import BASE_US, SINGLE_US, FakeEvaluator, fake_op
from .fake_server import Reply

KPATH = "op_kernel/fake_op.cpp"
SINGLE_IN = fake_op().files[KPATH].replace("InitBuffer(inQ, BUFFER_NUM, 256)", "InitBuffer(inQ, 1, 256)")
STATED = ("family: pipeline_overlap -- single-buffered the input queue\n"
          "title: Double-buffer the input queue\n"
          "mechanism: MTE2 of the next tile overlaps V of this one.\n")


def whole_file(text: str = SINGLE_IN, head: str = STATED) -> str:
    return f"{head}\n```cpp {KPATH}\n{text}```\nDone.\n"


def as_diff(text: str = SINGLE_IN) -> str:
    d = "".join(difflib.unified_diff(fake_op().files[KPATH].splitlines(True), text.splitlines(True),
                                     f"a/{KPATH}", f"b/{KPATH}"))
    return f"family: multi_core -- single-buffered the input queue\n```diff\n{d}```\n"


def test_not_registered_and_find_gives_one_site_per_request(client):
    assert "llm_rewind" not in MOTIFS.all()
    r = LLMRewinder(client, attempts=2)
    assert [s.label for s in r.find(fake_op())] == ["llm proposal 1", "llm proposal 2"]
    assert r.name == "llm_rewind" and r.family == "other" and r.origin == "rewind/llm_rewind"


def test_whole_file_answer_is_a_candidate_with_its_stated_facts(client, server):
    op = fake_op()
    server.push(whole_file())
    r = LLMRewinder(client)
    site = r.find(op)[0]
    cand = r.apply(op, site)
    assert cand.origin == "rewind/llm_rewind" and cand.parent == op.digest
    assert cand.files[KPATH] == SINGLE_IN and cand.files["op_host/fake_op.cpp"] == op.files["op_host/fake_op.cpp"]
    m, s = r.explain(cand, site)
    assert isinstance(m, LLMProposal) and m.name == "llm_rewind"
    assert (m.family, m.title, m.mechanism) == ("pipeline_overlap", "Double-buffer the input queue",
                                                "MTE2 of the next tile overlaps V of this one.")
    assert "not stated" in m.bottleneck and m.scope == "kernel" and m.model == "fake-model"
    assert s.label == "llm proposal 1: single-buffered the input queue" and (s.file, s.line) == (KPATH, 6)
    # the class facts are untouched; an unknown candidate is described by the rewinder itself
    assert LLMRewinder.family == "other" and r.explain(op, site) == (r, site)
    msgs = server.requests[0]["messages"]
    user, system = msgs[1]["content"], msgs[0]["content"]
    assert op.files[KPATH].strip() in user and "OP_ADD(FakeOp)" in user and "proposal 1" in user
    assert "already removed in\nthis chain (do not restore them, remove a different one): none" in user
    assert "- pipeline_overlap:" in system and "exactly ONE optimization" in system


def test_diff_answer_and_defaults_of_unstated_facts(client, server):
    op = fake_op()
    server.push(as_diff())
    r = LLMRewinder(client)
    site = r.find(op)[1]
    cand = r.apply(op, site)
    assert cand.files[KPATH] == SINGLE_IN and cand.parent == op.digest
    m, s = r.explain(cand, site)
    assert m.family == "multi_core" and m.title == "Single-buffered the input queue"
    assert m.mechanism.startswith("work split over all AI cores")  # the family's description
    assert s.label.startswith("llm proposal 2:")
    assert "proposal 2" in server.requests[0]["messages"][1]["content"]


@pytest.mark.parametrize("answer, reason", [
    ("I would remove double buffering.", "no fenced code block"),
    (whole_file() + "```cpp op_kernel/x.cpp\nint a;\n```\n", "2 code blocks"),
    (whole_file(fake_op().files[KPATH]), "identical"),
    (f"family: other -- x\n```diff\n--- a/{KPATH}\n+++ b/{KPATH}\n@@ -1 +1 @@\n-nope\n+x\n```\n", "does not apply"),
    (f"x\n```cpp {KPATH}\nint main() {{}}\n```\n", "kernel"),  # the entry is gone
])
def test_unusable_answers_raise_motif_error(client, server, answer, reason):
    server.push(answer)
    r = LLMRewinder(client)
    op = fake_op()
    with pytest.raises(MotifError, match=reason):
        r.apply(op, r.find(op)[0])
    assert len(r.failures) == 1 and r.failures[0].attempt == 1 and reason in r.failures[0].reason


def test_failed_request_stops_asking_for_that_kernel(server, sleeps):
    cfg = LLMConfig(base_url=server.base_url, model="fake-model", api_key="k", max_retries=0)
    server.push(Reply(status=500))
    r = LLMRewinder(LLMClient(cfg, None, sleep=sleeps.append))
    op = fake_op()
    s1, s2, _ = r.find(op)
    with pytest.raises(MotifError, match="request failed"):
        r.apply(op, s1)
    with pytest.raises(MotifError, match="not asked"):
        r.apply(op, s2)
    assert len(server.requests) == 1


def test_stated_facts_stop_at_the_block():
    text = "family: x -- y\nTitle: A  b\nbottleneck: c\n```diff\ntitle: not this\n```\nmechanism: nor this\n"
    assert stated_facts(text) == {"title": "A b", "bottleneck": "c"}


def test_in_a_rewind_bad_answers_cost_nothing_and_good_ones_are_kept_with_the_stated_family(client, server):
    distilled = {"title": "Double-buffer the input copy queue", "mechanism": "Copy-in of tile i+1 overlaps compute."}
    server.push("no code here", whole_file(), json.dumps(distilled))  # proposal 1, proposal 2, distiller
    rewinder, bank = LLMRewinder(client, attempts=2), ExperienceBank()
    ev = FakeEvaluator()
    be = BudgetedEvaluator(ev, MemoryStore(), budget=5, run_label="fake_op")
    res = rewind(fake_op(), ["case0"], be, [rewinder], RewindConfig(depth=2), bank=bank, distiller=LLMDistiller(client))
    a1, a2 = res.attempts[:2]
    assert (a1.motif, a1.status, a1.reason, a1.charged) == ("llm_rewind", "motif_error", "failed", False)
    assert "no fenced code block" in a1.detail and a1.family == "other"
    assert (a2.reason, a2.charged, a2.family, a2.latency_us) == ("kept", True, "pipeline_overlap", BASE_US + SINGLE_US)
    assert a2.site == "llm proposal 2: single-buffered the input queue"
    (exp,) = res.experiences
    assert exp.family == "pipeline_overlap" and exp.title == distilled["title"]
    assert exp.applicability["motif"] == "llm_rewind" and exp.source["prose"] == "llm:fake-model"
    assert "+        pipe.InitBuffer(inQ, BUFFER_NUM, 256);" in exp.diff and len(bank) == 1
    # the chain continues from the kept removal (default answers: unusable), and says what is gone
    assert [a.depth for a in res.attempts[2:]] == [2, 2] and all(a.status == "motif_error" for a in res.attempts[2:])
    assert "Double-buffer the input queue (family pipeline_overlap)" in server.requests[3]["messages"][1]["content"]
    assert res.charged == 2 == ev.calls and res.stop_reason == "exhausted"


def test_cli_rewind_with_llm(server, tmp_path, monkeypatch):
    from ascendopt.cli import app

    cfg = tmp_path / "llm.toml"
    cfg.write_text(f'base_url = "{server.base_url}"\nmodel = "fake-model"\napi_key_env = "FAKE_KEY"\n')
    monkeypatch.setenv("FAKE_KEY", "k")
    r = CliRunner().invoke(app, ["rewind", str(FIXTURE_OPS / "scale_copy"), "--budget", "2", "--motifs",
                                 "double_buffer", "--llm", str(cfg), "--bank", str(tmp_path / "b.db"),
                                 "--db", str(tmp_path / "r.db"), "--json"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    (rep,) = out["operators"]
    assert rep["charged"] == 2 and out["llm"]["requests"] >= 1
    llm = [a for a in rep["attempts"] if a["motif"] == "llm_rewind"]
    assert llm and llm[0]["status"] == "motif_error" and not llm[0]["charged"]
    systems = [q["messages"][0]["content"] for q in server.requests]
    assert any("exactly ONE optimization" in t for t in systems)  # rewinder asked
    assert any("experience bank" in t for t in systems) == (rep["kept"] > 0)  # distiller asked per kept pair


def test_cli_bad_llm_config_is_a_usage_error_before_anything_opens(tmp_path, monkeypatch):
    from ascendopt.cli import app

    for k in ("ASCENDOPT_LLM_BASE_URL", "ASCENDOPT_LLM_MODEL", "ASCENDOPT_LLM_API_KEY"):
        monkeypatch.delenv(k, raising=False)
    cfg = tmp_path / "llm.toml"
    cfg.write_text('modle = "x"\n')
    r = CliRunner().invoke(app, ["rewind", str(FIXTURE_OPS / "scale_copy"), "--llm", str(cfg),
                                 "--db", str(tmp_path / "r.db"), "--bank", str(tmp_path / "b.db")])
    assert r.exit_code == 2 and "LLM configuration" in r.output and "unknown field" in r.output
    assert not (tmp_path / "r.db").exists() and not (tmp_path / "b.db").exists()
