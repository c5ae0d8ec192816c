"""LLMDistiller: prose rewritten from a good JSON answer; offline record on any failure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ascendopt.evaluate.evaluator import Evaluation
from ascendopt.llm.client import LLMClient
from ascendopt.llm.config import LLMConfig
from ascendopt.operator import Operator
from ascendopt.rewind.distill import OfflineDistiller, Pair
from ascendopt.rewind.llm_distiller import LLMDistiller, parse_prose
from ascendopt.evaluate.verdict import Noise
from ascendopt.transforms import get_motif as get
from ascendopt.transforms.base import Site

from .fake_server import Reply


OP_DIR = Path(__file__).resolve().parents[2] / "ops" / "level1" / "abs_custom"


def _ev(op: Operator, lat: float, v: float) -> Evaluation:
    ev = Evaluation("ok", latency_us=lat, op_name=op.name, digest=op.digest, backend="sim", soc="Ascend910B2")
    ev.profile = {"case0": {"task_duration_us": lat, "runs_us": [lat], "block_dim": 8, "op_type": "vector",
                            "pipe_ratio_mean": {"S": 0.05, "V": v, "MTE2": 0.4, "MTE3": 0.3}, "bound": "V",
                            "achieved_fraction": 0.5, "gm_bytes": 1 << 20, "top_instructions": []}}
    return ev


@pytest.fixture(scope="module")
def pair() -> Pair:
    fast = Operator.load(OP_DIR)
    k = fast.kernel_file
    slow = fast.with_file(k, fast.files[k].replace("BUFFER_NUM = 2", "BUFFER_NUM = 1"), origin="rewind/x")
    motif = get("double_buffer")
    site = Site("double_buffer", k, 9, "BUFFER_NUM=2", 0, 1)
    return Pair(motif, site, fast, slow, _ev(fast, 10.0, 0.8), _ev(slow, 15.0, 0.5),
                Noise(0.1, 0.0, 1, 3.0, 1.0), cores=40)


GOOD = {"title": "Double-buffer the in/out queues", "mechanism": "MTE2 of the next tile overlaps V of this one.",
        "reusable_when": "Pipes take turns (overlap near 1) and the queues have depth 1."}


def test_good_answer_rewrites_only_prose(client, server, pair):
    base = OfflineDistiller().distill(pair)
    server.push(json.dumps(GOOD))
    d = LLMDistiller(client)
    e = d.distill(pair)
    assert d.fallbacks == []
    assert e.title == GOOD["title"] and e.mechanism == GOOD["mechanism"] and e.reusable_when == GOOD["reusable_when"]
    assert e.causal_chain == base.causal_chain and e.avoid_when == base.avoid_when  # omitted: kept
    assert (e.family, e.diff, e.expected_effect, e.applicability, e.evidence) == \
        (base.family, base.diff, base.expected_effect, base.applicability, base.evidence)
    assert e.id == base.id and e.source["prose"] == "llm:fake-model"
    user = server.requests[0]["messages"][1]["content"]
    assert base.causal_chain in user and "BUFFER_NUM = 1" in user and "1.5" in user


def test_json_block_accepted(client, server, pair):
    server.push("```json\n" + json.dumps(GOOD) + "\n```")
    assert LLMDistiller(client).distill(pair).title == GOOD["title"]


@pytest.mark.parametrize("answer", [
    "Here is a better title: Double buffer",                 # not JSON
    json.dumps({"title": "x", "family": "vectorization"}),    # tries to change a non-prose field
    json.dumps({"title": ""}),                                # empty
    json.dumps({"title": 3}),                                 # not a string
    json.dumps(["title"]),                                    # not an object
    "```json\n{\"title\": \"a\"}\n```\nand some words",       # extra text
])
def test_bad_answers_fall_back(client, server, pair, answer):
    base = OfflineDistiller().distill(pair)
    server.push(answer)
    d = LLMDistiller(client)
    assert d.distill(pair).to_dict() == base.to_dict()
    assert len(d.fallbacks) == 1


def test_endpoint_failure_and_no_client_fall_back(server, pair, sleeps):
    base = OfflineDistiller().distill(pair).to_dict()
    cfg = LLMConfig(base_url=server.base_url, model="fake-model", api_key="k", max_retries=0)
    server.push(Reply(status=500))
    d = LLMDistiller(LLMClient(cfg, None, sleep=sleeps.append))
    assert d.distill(pair).to_dict() == base and "server_error" in d.fallbacks[0]
    assert LLMDistiller(None).distill(pair).to_dict() == base


def test_parse_prose_normalises_whitespace():
    assert parse_prose('{"title": "  a\\n b "}') == {"title": "a b"}
