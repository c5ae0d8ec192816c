"""The LLM tiling mutator (the evo strategy's llm_mutator slot) against the fake server: its
request fits the token budget on the largest norm kernels whose tiling function is located
(the region always whole), a diff inside the region becomes the new region text, an answer
touching anything else is refused and counted."""

from __future__ import annotations

import difflib

import pytest

from ascendopt.llm.client import LLMClient
from ascendopt.llm.config import LLMConfig
from ascendopt.llm.context_budget import estimate_tokens
from ascendopt.operator import Operator
from ascendopt.llm.tiling_mutator import LLMTilingMutator
from ascendopt.tiling.strategies import LLMMutator
from ascendopt.tiling.strategies.base import TrialResult
from ascendopt.tiling.template import find_template

from .test_context_budget import NORM

pytestmark = pytest.mark.skipif(not NORM.is_dir(), reason="cann-ops sources not present")
#: rms_norm_grad and group_norm_silu: the largest norm operators of test_context_budget whose
#: tiling function the template finds (add_layer_norm's is not located).
TUNED = ("rms_norm_grad", "group_norm_silu")
BUDGET = 4000
HISTORY = [({"tile": 64, "cores": 8}, TrialResult("ok", 40.0, True)),
           ({"tile": 128, "cores": 8}, TrialResult("ub_overflow", None, False)),
           ({"tile": 32, "@region": "x"}, TrialResult("ok", 45.0, True))]


def tokens(msgs: list[dict[str, str]]) -> int:
    return sum(estimate_tokens(m["content"]) for m in msgs)


def diff_answer(path: str, old: str, new: str) -> str:
    d = "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), f"a/{path}", f"b/{path}"))
    return f"family: tile_size -- bigger tiles\n```diff\n{d}```\n"


@pytest.mark.parametrize("name", TUNED)
def test_the_request_fits_the_budget_and_a_region_diff_becomes_the_new_region(name, server, sleeps):
    op = Operator.load(NORM / name)
    tpl = find_template(op)
    region = tpl.region_text(op)
    cfg = LLMConfig(base_url=server.base_url, model="fake-model", api_key="k", context_tokens=BUDGET)
    m = LLMTilingMutator(LLMClient(cfg, None, sleep=sleeps.append), op, tpl, "memory bound")
    assert isinstance(m, LLMMutator)
    assert tokens(LLMTilingMutator(None, op, tpl, context_tokens=0).prompt(region, HISTORY)) > BUDGET
    host = op.files[tpl.file]
    new_region = region.rstrip("\n") + "\n    // tuned\n" + region[len(region.rstrip("\n")):]
    server.push(diff_answer(tpl.file, host, tpl.with_region(op, new_region).files[tpl.file]))
    assert m.propose(region, HISTORY) == new_region
    sent = server.requests[-1]["messages"]
    user = sent[1]["content"]
    assert tokens(sent) <= BUDGET and region.strip() in user and "memory bound" in user
    assert "tile=128 -> failed (ub_overflow)" in user and "rewritten region -> 45.000 us" in user
    assert "latency 40.000 us" in user
    (f,) = m.fits
    assert not f["over"] and f["tokens"] <= BUDGET and f["evaluations"] == 3
    assert tpl.file in f["summarised"] + f["dropped"] or op.kernel_file in f["summarised"] + f["dropped"]


def test_an_answer_touching_lines_outside_the_region_is_refused(client, server):
    op = Operator.load(NORM / TUNED[1])
    tpl = find_template(op)
    host = op.files[tpl.file]
    first = host.splitlines(True)[0]
    server.push(diff_answer(tpl.file, host, host.replace(first, first.rstrip("\n") + " // moved\n", 1)),
                "no code block at all")
    m = LLMTilingMutator(client, op, tpl)
    assert m.propose(tpl.region_text(op), []) is None and "outside the evolvable region" in m.failures[0]
    assert m.propose(tpl.region_text(op), []) is None and "no fenced code block" in m.failures[1]
    assert client.usage_by_role["tiling_mutator"].refused == 2
