"""LLMRewriter against the fake server: whole-file and diff answers become proposals,
malformed answers and failing endpoints make none (with the reason), repair sends the error."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from ascendopt.bank.experience import Experience
from ascendopt.bank.retrieve import Hit
from ascendopt.bank.store import Entry
from ascendopt.evaluate.evaluator import Evaluation
from ascendopt.llm.client import LLMClient
from ascendopt.llm.config import LLMConfig
from ascendopt.operator import Operator
from ascendopt.profile.diagnosis import Diagnosis
from ascendopt.refine.llm_rewriter import LLMRewriter
from ascendopt.refine.rewriter import Proposal, RewriteContext, Rewriter

from .fake_server import Reply

ROOT = Path(__file__).resolve().parents[2]
OP_DIR = ROOT / "ops" / "level1" / "abs_custom"
KPATH = "op_kernel/abs_custom.cpp"


@pytest.fixture(scope="module")
def op() -> Operator:
    return Operator.load(OP_DIR)


def experience() -> Experience:
    return Experience(
        title="Double-buffer the copy queues", family="pipeline_overlap",
        mechanism="MTE2 of tile i+1 overlaps V of tile i", causal_chain="MTE2 busy 40% -> 70%",
        bottleneck="serialized pipes", applicability={"rewrite": "double_buffer"},
        expected_effect={"speedup": 1.6, "slow_us": 16.0, "fast_us": 10.0}, evidence={},
        reusable_when="overlap near 1", avoid_when="already double-buffered",
        diff="--- a/op_kernel/k.cpp\n+++ b/op_kernel/k.cpp\n@@ -1 +1 @@\n-constexpr int32_t BUFFER_NUM = 1;\n"
             "+constexpr int32_t BUFFER_NUM = 2;\n")


@pytest.fixture
def ctx(op) -> RewriteContext:
    diag = Diagnosis(text="vector bound: V busy 91%", bound="V", pipe_ratios={"V": 0.91, "MTE2": 0.3},
                     busiest="V", overlap=1.25, block_dim=8, cores=40, findings=["vector_bound", "idle_cores"])
    hits = [Hit(Entry(experience(), 2, ("add_custom",)), 0.8)]
    return RewriteContext(op=op, evaluation=Evaluation("ok", latency_us=10.0), diagnosis=diag, hits=hits)


@pytest.fixture
def rewriter(client) -> LLMRewriter:
    return LLMRewriter(client)


def whole_file(op: Operator, new_text: str, first: str = "family: tile_size -- bigger blocks") -> str:
    return f"{first}\n\n```cpp {KPATH}\n{new_text}```\nThat should help.\n"


def as_diff(op: Operator, new_text: str) -> str:
    d = "".join(difflib.unified_diff(op.files[KPATH].splitlines(True), new_text.splitlines(True),
                                     f"a/{KPATH}", f"b/{KPATH}"))
    return f"family: multi_core -- use all cores\n```diff\n{d}```\n"


def test_is_a_rewriter(rewriter):
    r: Rewriter = rewriter  # structural typing: the protocol's methods exist with its names
    assert r.name == "llm" and callable(r.propose) and callable(r.repair)


def test_prompt_has_kernel_host_diagnosis_and_experiences(rewriter, ctx, op):
    msgs = rewriter.prompt(ctx, 1)
    assert [m["role"] for m in msgs] == ["system", "user"]
    user = msgs[1]["content"]
    assert op.files[KPATH].strip() in user
    for h in op.host_files():
        assert op.files[h].strip()[:200] in user
    assert "vector bound: V busy 91%" in user and "V 0.91" in user and "8 of 40 cores" in user
    assert "Double-buffer the copy queues" in user and "pipeline_overlap" in user
    assert "+constexpr int32_t BUFFER_NUM = 2;" in user and "1.6" in user
    assert "10.000 us" in user
    assert "tail_handling" in msgs[0]["content"]  # the families are listed


def test_good_whole_file(rewriter, ctx, op, server):
    new = op.files[KPATH].replace("BUFFER_NUM = 2", "BUFFER_NUM = 3")
    server.push(whole_file(op, new))
    (p,) = rewriter.propose(ctx, 1)
    assert isinstance(p, Proposal) and p.rewrite == "llm" and p.family == "tile_size"
    assert p.site == "bigger blocks"
    assert p.op.files[KPATH] == new and p.op.parent == op.digest and p.op.origin == "stage1/llm"
    assert p.op.host_files() == op.host_files()
    assert rewriter.rejections == []


def test_good_diff(rewriter, ctx, op, server):
    new = op.files[KPATH].replace("BUFFER_NUM = 2", "BUFFER_NUM = 4")
    server.push(as_diff(op, new))
    (p,) = rewriter.propose(ctx, 1)
    assert p.op.files[KPATH] == new and p.family == "multi_core" and p.site == "use all cores"


def test_family_not_named_is_other_and_experiences_credited(rewriter, ctx, op, server):
    server.push(whole_file(op, op.files[KPATH] + "// faster\n", first="Here is a faster kernel."))
    (p,) = rewriter.propose(ctx, 1)
    assert p.family == "other" and p.experiences == []
    server.push(whole_file(op, op.files[KPATH] + "// faster 2\n", first="family: pipeline_overlap -- deeper"))
    (p,) = rewriter.propose(ctx, 1)
    assert p.family == "pipeline_overlap" and p.experiences == [experience().id] and p.prior > 1.0


def test_malformed_answer_no_proposal_reason_recorded(rewriter, ctx, server):
    server.push("You should double buffer the queues and use all 40 cores.")
    assert rewriter.propose(ctx, 1) == []
    (rej,) = rewriter.rejections
    assert rej.stage == "propose" and "no fenced code block" in rej.reason and "double buffer" in rej.answer


def test_path_outside_rejected(rewriter, ctx, server):
    server.push("family: other -- x\n```python tests/st/test_abs_custom.py\nprint(1)\n```\n")
    assert rewriter.propose(ctx, 1) == []
    assert "outside" in rewriter.rejections[0].reason


def test_several_attempts_mixed_and_deduplicated(rewriter, ctx, op, server):
    a = whole_file(op, op.files[KPATH] + "// a\n")
    server.push(a, "no code here", a, whole_file(op, op.files[KPATH] + "// b\n"))
    props = rewriter.propose(ctx, 4)
    assert [p.op.files[KPATH][-5:] for p in props] == ["// a\n", "// b\n"]
    assert [r.reason.split(" ")[0] for r in rewriter.rejections] == ["no", "duplicate"]
    # each attempt is a distinct request (the attempt number is in the prompt)
    assert len({r["messages"][1]["content"] for r in server.requests}) == 4


def test_tried_candidates_not_proposed_again(rewriter, ctx, op, server):
    new = op.files[KPATH] + "// tried\n"
    ctx.tried.add(op.with_file(KPATH, new).digest)
    server.push(whole_file(op, new))
    assert rewriter.propose(ctx, 1) == []
    assert "duplicate" in rewriter.rejections[0].reason


def test_timeout_stops_without_raising(ctx, server, sleeps):
    cfg = LLMConfig(base_url=server.base_url, model="fake-model", api_key="k", timeout_s=0.3, max_retries=0)
    rw = LLMRewriter(LLMClient(cfg, None, sleep=sleeps.append))
    server.push(Reply("late", delay_s=1.0))
    assert rw.propose(ctx, 3) == []
    assert len(rw.rejections) == 1 and rw.rejections[0].reason.startswith("timeout")
    assert len(server.requests) == 1


def test_429_then_success(rewriter, ctx, op, server, sleeps):
    server.push(Reply(status=429), whole_file(op, op.files[KPATH] + "// ok\n"))
    assert len(rewriter.propose(ctx, 1)) == 1 and sleeps == [0.5]


def test_broken_rewrite_then_repair_with_the_error(rewriter, ctx, op, server):
    broken = op.files[KPATH].replace("BUFFER_NUM = 2;", "BUFFER_NUM = 2")  # does not compile
    server.push(whole_file(op, broken, first="family: pipeline_overlap -- tweak"))
    (p,) = rewriter.propose(ctx, 1)
    assert p.op.files[KPATH] == broken  # proposed: only building it can tell
    err = "op_kernel/abs_custom.cpp:9:36: error: expected ';' before '}' token"
    fixed = op.files[KPATH].replace("BUFFER_NUM = 2;", "BUFFER_NUM = 3;")
    d = "".join(difflib.unified_diff(broken.splitlines(True), fixed.splitlines(True), f"a/{KPATH}", f"b/{KPATH}"))
    server.push(f"Add the missing semicolon.\n```diff\n{d}```\n")
    r = rewriter.repair(ctx, p, Evaluation("compile_error", error=err))
    sent = server.requests[-1]["messages"][1]["content"]
    assert err in sent and "compile_error" in sent and broken.strip() in sent
    assert "-constexpr int32_t BUFFER_NUM = 2;" in sent  # the failed diff against the parent
    assert r is not None and r.op.files[KPATH] == fixed
    assert r.op.parent == op.digest and r.family == "pipeline_overlap" and r.site.startswith("repair:")


def test_repair_malformed_gives_none(rewriter, ctx, op, server):
    server.push(whole_file(op, op.files[KPATH] + "// x\n"))
    (p,) = rewriter.propose(ctx, 1)
    server.push("Sorry, I cannot fix it.")
    assert rewriter.repair(ctx, p, Evaluation("wrong_result", error="max abs error 3.0 at index 7")) is None
    assert rewriter.rejections[-1].stage == "repair"
    assert "max abs error 3.0" in server.requests[-1]["messages"][1]["content"]


def test_usage_counted(rewriter, ctx, op, server):
    server.push(Reply(whole_file(op, op.files[KPATH] + "// u\n"), prompt_tokens=1000, completion_tokens=200))
    rewriter.propose(ctx, 1)
    u = rewriter.usage
    assert u["prompt_tokens"] == 1000 and u["completion_tokens"] == 200 and u["requests"] == 1
    assert u["cost_usd"] == pytest.approx((1000 * 2 + 200 * 4) / 1e6)


def test_repeated_asks_differ_and_a_resumed_rewriter_is_answered_from_cache(client, ctx, op, server):
    server.push(whole_file(op, op.files[KPATH] + "// 1\n"), whole_file(op, op.files[KPATH] + "// 2\n"))
    first = LLMRewriter(client)
    (a,) = first.propose(ctx, 1)
    (b,) = first.propose(ctx, 1)  # same context, next attempt: a new request
    assert a.op.digest != b.op.digest and len(server.requests) == 2
    again = LLMRewriter(client)  # as after a resume: the same requests, from the cache
    assert [p.op.digest for p in again.propose(ctx, 2)] == [a.op.digest, b.op.digest]
    assert len(server.requests) == 2 and client.usage.cached == 2
