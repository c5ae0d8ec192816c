"""Knob slots: candidates differing only in knob values share one host build, and behave
exactly like their literal sources."""

from __future__ import annotations

import math
import pickle
import random
from pathlib import Path

import numpy as np
import pytest

from ascendopt.backends.sim.backend import SimBackend
from ascendopt.backends.sim.build import SimBuilder
from ascendopt.cases import load_op_cases, make_inputs
from ascendopt.evaluate.check import case_dtypes
from ascendopt.operator import Operator
from ascendopt.slots import ENV_VAR, HostSlots
from ascendopt.tiling.space import KnobSpace

ROOT = Path(__file__).resolve().parents[2]
OPS = sorted(p.parent for p in (ROOT / "ops").rglob("op_host"))
FIXTURES = ROOT / "tests" / "fixtures" / "ops"


def _host(op: Operator) -> dict[str, str]:
    return {k: op.files[k] for k in op.host_files()}


@pytest.mark.parametrize("op_dir", OPS + [FIXTURES / "scale_copy"], ids=lambda p: p.name)
def test_slots_render_back_to_the_literal_sources(op_dir):
    op = Operator.load(op_dir)
    space = KnobSpace.from_operator(op)
    rng = random.Random(7)
    seen = set()
    for _ in range(6):
        cand = space.apply(op, space.sample(rng))
        if not space.knobs or cand.slots is None:
            continue
        assert cand.slots.matches(_host(cand))
        assert cand.slots.render() == _host(cand)
        seen.add(tuple(sorted(cand.slots.files.items())))
    # literal knobs share one parameterized source; only non-slottable knobs (kernel-rebuild
    # twins in constant contexts, cap on/off) may add variants
    assert len(seen) <= 4


def test_tampered_slots_are_not_trusted():
    op = Operator.load(ROOT / "ops" / "level1" / "gelu")
    space = KnobSpace.from_operator(op)
    cand = space.apply(op, {"minBytesPerCore": 8192})
    assert cand.slots is not None and cand.slots.matches(_host(cand))
    wrong = HostSlots.make(cand.slots.files, [v + 32 for v in cand.slots.values])
    assert not wrong.matches(_host(cand))
    short = HostSlots.make(cand.slots.files, cand.slots.values[:-1])
    assert not short.matches(_host(cand))
    # pickling (process pools, Ray) keeps the hint
    again = pickle.loads(pickle.dumps(cand))
    assert again.slots == cand.slots and again.digest == cand.digest
    # editing a file drops it
    assert cand.with_file(cand.kernel_file, cand.files[cand.kernel_file] + "\n").slots is None


def _mid_case(op_dir: Path):
    """A case large enough to split over several cores, small enough to run fast."""
    cases = load_op_cases(op_dir)
    elems = lambda c: sum(math.prod(t.shape) for t in (*c.inputs, *c.outputs))  # noqa: E731
    small = [c for c in cases if elems(c) <= 1 << 20] or cases
    return max(small, key=elems)


def _same(r1, r2) -> None:
    assert (r1.status, r1.error_kind, r1.block_dim, r1.tiling_key, r1.task_duration_us) == \
           (r2.status, r2.error_kind, r2.block_dim, r2.tiling_key, r2.task_duration_us), (r1.message, r2.message)
    assert sorted(r1.outputs) == sorted(r2.outputs)
    for k in r1.outputs:
        np.testing.assert_array_equal(r1.outputs[k], r2.outputs[k])


@pytest.mark.slow
@pytest.mark.parametrize("op_dir", OPS, ids=lambda p: p.name)
def test_slotted_builds_are_shared_and_equivalent(op_dir, sim_cache):
    slotted = SimBackend(builder=SimBuilder(cache_dir=sim_cache))
    literal = SimBackend(builder=SimBuilder(cache_dir=sim_cache, knob_slots=False))
    op = Operator.load(op_dir)
    space = KnobSpace.from_operator(op)
    case = _mid_case(op_dir)
    dtypes = case_dtypes(case)
    rng = random.Random(op.name)
    host_dirs = set((sim_cache / "host").iterdir()) if (sim_cache / "host").exists() else set()
    used_slots = 0
    variants = set()
    for i in range(3):
        cfg = space.sample(rng)
        if i == 0:
            cfg = {k.id: (v if k.rebuild == "kernel" else space.domain(k.id).grid()[0]) for k, v in
                   zip(space.knobs, cfg.values())}  # extreme values too
        cand = space.apply(op, cfg)
        b1 = slotted.builder.build(cand, dtypes)
        b2 = literal.builder.build(cand, dtypes)
        assert b1.ok == b2.ok, (b1.error, b2.error)
        if cand.slots is not None and b1.ok:
            assert dict(b1.run_env).get(ENV_VAR) == cand.slots.env_value()
            used_slots += 1
            variants.add(tuple(sorted(cand.slots.files.items())))
        if b1.ok:
            x = make_inputs(case, 11 + i)
            _same(slotted.run(b1, cand, case, x), literal.run(b2, cand, case, x))
    if space.knobs:
        assert used_slots == 3, "every candidate should build through its slots"
    new_slot_hosts = [d for d in set((sim_cache / "host").iterdir()) - host_dirs]
    # 3 literal host builds + one slotted build per parameterized variant
    assert len(new_slot_hosts) <= 3 + len(variants)


def test_parameterized_source_that_does_not_compile_falls_back(sim_cache):
    """A slotted constexpr needed at compile time (static_assert) cannot be a runtime value:
    the builder compiles the literal source instead, remembers it, and the run is correct."""
    op = Operator.load(FIXTURES / "scale_copy")
    host = "op_host/scale_copy.cpp"
    text = op.files[host].replace("namespace optiling {\n",
                                  "namespace optiling {\nconstexpr uint32_t TILE_K = 16;\nstatic_assert(TILE_K % 8 == 0, \"\");\n", 1)
    cand = op.with_file(host, text.replace("TILE_K = 16", "TILE_K = 24"))
    param = text.replace("constexpr uint32_t TILE_K = 16", "AO_KNOB_CONSTEXPR uint32_t TILE_K = AO_KNOB_SLOT(0, 16)")
    from dataclasses import replace
    cand = replace(cand, slots=HostSlots.make({**_host(cand), host: param}, [24]))
    assert cand.slots.matches(_host(cand))
    backend = SimBackend(builder=SimBuilder(cache_dir=sim_cache))
    case = load_op_cases(FIXTURES / "scale_copy")[0]
    for _ in range(2):  # second time: the failure marker is used, no compiler runs for the slots
        b = backend.builder.build(cand, case_dtypes(case))
        assert b.ok and b.run_env == ()
    r = backend.run(b, cand, case, make_inputs(case, 0))
    assert r.status.value == "ok"
    np.testing.assert_allclose(r.outputs["y"], 2 * make_inputs(case, 0)["x"], rtol=1e-6)
    assert list((sim_cache / "host").glob("*/slots_failed"))
