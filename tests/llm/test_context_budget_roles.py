"""Every LLM role that sends kernel, host or diff text fits the configured token budget in tiers,
as the refiner's proposals do (test_context_budget.py): the rewinder, the distiller and the
refiner's repair, on the largest cann-ops norm kernels (not held out) against the fake server.

Before the shared :class:`~ascendopt.llm.context_budget.RoleBudget`, the rewinder sent the host
files whole (clipped to 12000 characters each) and never the kernel's other op_kernel files
(where these kernels keep their logic), the distiller sent up to 6000 characters of diff and
the repair prompt was not budgeted: none recorded a fit, and requests went over the budget."""

from __future__ import annotations

import pytest

from ascendopt.evaluate.evaluator import Evaluation
from ascendopt.evaluate.verdict import Noise
from ascendopt.llm.client import LLMClient
from ascendopt.llm.config import LLMConfig
from ascendopt.llm.context_budget import estimate_tokens
from ascendopt.operator import Operator
from ascendopt.profile.diagnosis import Diagnosis
from ascendopt.refine.llm_rewriter import LLMRewriter
from ascendopt.refine.rewriter import Proposal, RewriteContext
from ascendopt.rewind.distill import OfflineDistiller, Pair
from ascendopt.rewind.llm_distiller import LLMDistiller
from ascendopt.rewind.llm_rewinder import LLMRewinder
from ascendopt.transforms import get_motif
from ascendopt.transforms.base import Site

from .test_context_budget import BUDGET, LARGEST, NORM
from .test_llm_distiller import _ev

pytestmark = pytest.mark.skipif(not NORM.is_dir(), reason="cann-ops sources not present")
#: A small configured budget for the distiller, whose request carries no kernel.
DISTILL_BUDGET = 1500


def tokens(msgs: list[dict[str, str]]) -> int:
    return sum(estimate_tokens(m["content"]) for m in msgs)


def client_for(server, sleeps, budget: int) -> LLMClient:
    cfg = LLMConfig(base_url=server.base_url, model="fake-model", api_key="k", context_tokens=budget)
    return LLMClient(cfg, None, sleep=sleeps.append)


def others(op: Operator) -> list[str]:
    return sorted(k for k in op.files if k.startswith("op_kernel/") and k != op.kernel_file)


@pytest.fixture(scope="module", params=LARGEST)
def norm_op(request) -> Operator:
    return Operator.load(NORM / request.param)


def test_rewinder_fits_the_budget(norm_op, server, sleeps):
    op, kernel = norm_op, norm_op.files[norm_op.kernel_file]
    assert tokens(LLMRewinder(client_for(server, sleeps, 0)).prompt(op, 1)) > BUDGET    # the whole context does not fit
    r = LLMRewinder(client_for(server, sleeps, BUDGET))
    server.push(f"family: other -- touch\n```cpp {op.kernel_file}\n{kernel}// x\n```\n")
    cand = r.apply(op, r.find(op)[0])
    assert cand.files[op.kernel_file].endswith("// x\n")
    sent = server.requests[-1]["messages"]
    assert tokens(sent) <= BUDGET
    user = sent[1]["content"]
    assert kernel.rstrip() in user and "remove a different one): none" in user       # always sent whole
    (f,) = r.fits
    assert not f["over"] and f["tokens"] <= BUDGET and f["budget"] == BUDGET and f["attempt"] == 1
    # every other kernel file is in the request (whole or summarised) or recorded as dropped
    shown = [k for k in others(op) if f"#### {k}\n" in user]
    assert shown and set(shown) | set(f["dropped"]) >= set(others(op))
    assert set(f["summarised"]) | set(f["dropped"]) and set(f["dropped"]) <= set(others(op))


def with_barriers(op: Operator, origin: str) -> Operator:
    """``op`` with a full barrier after every DataCopy of its largest op_kernel file (a removal
    of overlap with a long diff, as a whole-file answer rewriting that file makes)."""
    big = max(others(op), key=lambda k: len(op.files[k]))
    text = "".join(ln + ("    PipeBarrier<PIPE_ALL>();\n" if "DataCopy" in ln and ln.rstrip().endswith(";") else "")
                   for ln in op.files[big].splitlines(True))
    return op.with_file(big, text, origin=origin)


@pytest.fixture(scope="module")
def norm_pair(norm_op) -> Pair:
    """A kept removal on the norm kernel (:func:`with_barriers`)."""
    slow = with_barriers(norm_op, "rewind/x")
    return Pair(get_motif("double_buffer"), Site("double_buffer", norm_op.kernel_file, 1, "barriers", 0, 1), norm_op,
                slow, _ev(norm_op, 10.0, 0.8), _ev(slow, 15.0, 0.5), Noise(0.1, 0.0, 1, 3.0, 1.0), cores=40)


def test_distiller_fits_the_budget(norm_pair, server, sleeps):
    base = OfflineDistiller().distill(norm_pair)
    assert tokens(LLMDistiller(client_for(server, sleeps, 0)).prompt(base)) > DISTILL_BUDGET
    d = LLMDistiller(client_for(server, sleeps, DISTILL_BUDGET))
    server.push('{"title": "Keep DataCopy free of full barriers"}')
    e = d.distill(norm_pair)
    assert d.fallbacks == [] and e.title == "Keep DataCopy free of full barriers"
    sent = server.requests[-1]["messages"]
    assert tokens(sent) <= DISTILL_BUDGET
    user = sent[1]["content"]
    assert base.causal_chain in user and "1.5x" in user                       # measurements and prose: always
    (f,) = d.fits
    assert not f["over"] and f["experience"] == base.id and (f["summarised"] or f["dropped"]) == ["diff"]


def test_refiner_repair_fits_the_budget(norm_op, server, sleeps):
    op = norm_op
    failed_op = with_barriers(op, "stage1/llm")
    failed_op = failed_op.with_file(op.kernel_file, op.files[op.kernel_file] + "// broken\n", origin="stage1/llm")
    ctx = RewriteContext(op, Evaluation("ok", latency_us=50.0), Diagnosis(text="memory bound"))
    failed = Proposal(failed_op, "llm", "other", "touch")
    bad = Evaluation("compile_error", error="error: expected ';'\n" * 50)
    assert tokens(LLMRewriter(client_for(server, sleeps, 0)).repair_prompt(ctx, failed, bad)) > BUDGET
    rw = LLMRewriter(client_for(server, sleeps, BUDGET))
    server.push(f"family: other -- fixed\n```cpp {op.kernel_file}\n{op.files[op.kernel_file]}// fixed\n```\n")
    p = rw.repair(ctx, failed, bad)
    assert p is not None and p.op.files[op.kernel_file].endswith("// fixed\n")
    sent = server.requests[-1]["messages"]
    user = sent[1]["content"]
    assert tokens(sent) <= BUDGET and "// broken" in user and "error: expected ';'" in user   # always whole
    assert "+    PipeBarrier<PIPE_ALL>();" in user                     # the failed diff, summarised at worst
    (f,) = rw.fits
    assert f["section"] == "repair" and not f["over"] and f["summarised"] and f["dropped"] == []
