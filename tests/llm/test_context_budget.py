"""The token budget of an LLM request: parts fitted in tiers (always sent, summarised, dropped),
on toy parts and on the largest cann-ops norm kernels (not held out) against the fake server."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascendopt.bank.rules import Rule
from ascendopt.bank.retrieve import Hit
from ascendopt.bank.store import ExperienceBank
from ascendopt.evaluate.evaluator import Evaluation
from ascendopt.llm.client import LLMClient
from ascendopt.llm.config import LLMConfig
from ascendopt.llm.context_budget import Part, estimate_tokens, fit
from ascendopt.operator import Operator
from ascendopt.profile.diagnosis import Diagnosis
from ascendopt.refine.llm_rewriter import LLMRewriter
from ascendopt.refine.rewriter import RewriteContext
from ascendopt.bank.transfer import open_default

NORM = Path("/work/cannops/src/norm")
#: The three largest norm-family operators by kernel source (instance_norm_v3 is held out).
LARGEST = ("rms_norm_grad", "group_norm_silu", "add_layer_norm")
BUDGET = 8000


def test_tiers_summarise_from_the_end_then_drop_and_never_touch_always():
    parts = [Part("k", "kernel", "K" * 300), Part("e", "e1", "A" * 300, "summarise", "a"),
             Part("e", "e2", "B" * 300, "drop", "b"), Part("e", "e3", "C" * 300, "drop", "c")]
    assert fit(parts, 0).values == {"k": "K" * 300, "e": "\n\n".join(p.text for p in parts[1:])}
    got = fit(parts, 250)                       # 400 tokens whole: summarising e3 then e2 is enough
    assert got.summarised == ["e3", "e2"] and got.values["e"] == "A" * 300 + "\n\nb\n\nc" and got.tokens <= 250
    got = fit(parts, 150)
    assert got.values["k"] == "K" * 300 and got.summarised == ["e3", "e2", "e1"]
    assert got.tokens <= 150 and got.values["e"] == "a\n\nb\n\nc" and got.dropped == []
    got = fit(parts, 101)                       # the kernel alone is 100 tokens: the droppable go
    assert got.dropped == ["e3", "e2"] and got.values["e"] == "a\n\n(2 more left out to fit the token budget)"
    got = fit(parts, 50)                        # the always part alone is over: sent anyway, flagged
    assert got.over and got.values["k"] == "K" * 300
    with pytest.raises(ValueError):
        Part("k", "x", "y", "sometimes")


@pytest.fixture(scope="module")
def hits() -> list[Hit]:
    bank = open_default()
    return [Hit(e, 1.0 - i / 10) for i, e in enumerate(bank.entries()[:3])]


@pytest.mark.skipif(not NORM.is_dir(), reason="cann-ops sources not present")
@pytest.mark.parametrize("name", LARGEST)
def test_largest_norm_kernels_fit_the_budget(name, server, hits, sleeps):
    op = Operator.load(NORM / name)
    rule = Rule("llm", "pipeline_overlap", "hazard", ["memory_bound"], "race on UB",
                [{"op": "a", "digest": "d", "detail": ""}], 2)
    diag = Diagnosis(text="memory bound: MTE2 busy 80%", bound="MTE2", pipe_ratios={"MTE2": 0.8, "V": 0.3},
                     findings=["memory_bound"])
    ctx = RewriteContext(op, Evaluation("ok", latency_us=50.0), diag, hits, rules=[rule])
    cfg = LLMConfig(base_url=server.base_url, model="fake-model", api_key="k", context_tokens=BUDGET)
    rw = LLMRewriter(LLMClient(cfg, None, sleep=sleeps.append))
    unbudgeted = sum(estimate_tokens(m["content"]) for m in LLMRewriter(None, context_tokens=0).prompt(ctx, 1))
    assert unbudgeted > BUDGET                              # the whole context does not fit
    kernel = op.files[op.kernel_file]
    server.push(f"family: other -- touch\n```cpp {op.kernel_file}\n{kernel}// x\n```\n")
    (p,) = rw.propose(ctx, 1)
    sent = server.requests[-1]["messages"]
    assert sum(estimate_tokens(m["content"]) for m in sent) <= BUDGET
    user = sent[1]["content"]
    assert kernel.rstrip() in user and rule.text() in user and "memory bound: MTE2 busy 80%" in user  # always
    assert hits[0].experience.title in user                  # the best experience is summarised at worst
    (f,) = rw.fits
    assert not f["over"] and f["summarised"] and f["tokens"] <= BUDGET
    assert p.op.files[op.kernel_file].endswith("// x\n")
    tiny = LLMRewriter(None, context_tokens=1000)     # below what must always be sent: sent whole, flagged
    assert kernel.rstrip() in tiny.prompt(ctx, 1)[1]["content"] and tiny.fits[0]["over"]
    assert tiny.fits[0]["dropped"]
