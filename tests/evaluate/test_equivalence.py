"""Candidates that launch the same device program are answered by one evaluation.

The launch (block dim, tiling key, workspace, tiling data, from a tiling-only run of the
runner) and the kernel binaries decide what the device runs; a knob that changes neither
must not cost a second evaluation, and one that changes either must.
"""

from __future__ import annotations

import pytest

from ascendopt.backends.base import Backend, Status
from ascendopt.cases import make_inputs
from ascendopt.evaluate.budget import BudgetedEvaluator, ReuseConfig
from ascendopt.evaluate.evaluator import Evaluator
from ascendopt.evaluate.store import MemoryStore, SQLiteStore
from ascendopt.tiling.space import KnobSpace

from .conftest import HOST, KERNEL, edit
from .test_budget import CountingEvaluator

CAP = "maxTileLength"


@pytest.fixture(scope="module")
def capped(base):
    """scale_copy with a tile cap that only matters when it is below the tile length (1024)."""
    return edit(base, HOST, "uint32_t tileLength = 1024;",
                f"uint32_t tileLength = 1024;\n    uint32_t {CAP} = 4096;\n"
                f"    tileLength = tileLength < {CAP} ? tileLength : {CAP};", origin="original")


@pytest.fixture(scope="module")
def space(capped):
    return KnobSpace.from_operator(capped)


def knobbed(space, op, **values):
    return space.apply(op, {**space.defaults(), **values}, origin="stage2/test")


def test_tiling_only_run_reports_the_launch(backend, base, cases):
    case = max(cases, key=lambda c: c.inputs[0].shape[0] if c.inputs[0].shape else 0)
    build = backend.build(base, {"x": "float", "y": "float"})
    launch = backend.tiling(build, base, case, make_inputs(case, 0))
    assert launch.ok, launch.message
    fields = dict(launch.fields)
    run = backend.run(build, base, case, make_inputs(case, 0))
    assert fields["block_dim"] == run.block_dim and fields["tiling_key"] == run.tiling_key
    assert len(fields["tiling_data"]) == 2 * run.profile["tiling_bytes"]
    assert fields["workspace_sizes"] == [0]


def test_tiling_failure_is_reported_not_raised(backend, base, cases):
    bad = edit(base, HOST, "context->SetBlockDim(useCores);", "context->SetBlockDim(0);")
    build = backend.build(bad, {"x": "float", "y": "float"})
    launch = backend.tiling(build, bad, cases[0], make_inputs(cases[0], 0))
    assert launch.status == Status.TILING_ERROR and "block dim is 0" in launch.message
    assert Evaluator(backend).launch_key(bad, cases) is None


def test_launch_key_follows_the_launch_not_the_sources(evaluator, space, capped, cases):
    a = evaluator.launch_key(knobbed(space, capped), cases)
    assert a is not None
    assert evaluator.launch_key(knobbed(space, capped, **{CAP: 8192}), cases) == a  # cap above the tile: no effect
    assert evaluator.launch_key(knobbed(space, capped, **{CAP: 512}), cases) != a  # tiling data change
    assert evaluator.launch_key(knobbed(space, capped, BUFFER_NUM=3), cases) != a  # kernel binary change
    assert evaluator.launch_key(knobbed(space, capped, **{CAP: 8192}), cases[:1]) != a  # other cases


class NoTilingBackend(Backend):
    """A backend without a tiling-only run (like one that cannot run the host tiling alone)."""

    def __init__(self, inner):
        self.inner, self.name, self.soc = inner, inner.name, inner.soc

    def build(self, op, dtypes):
        return self.inner.build(op, dtypes)

    def run(self, *a, **kw):
        return self.inner.run(*a, **kw)


def test_backends_without_a_tiling_run_get_no_key(backend, config, capped, cases):
    assert Evaluator(NoTilingBackend(backend), config).launch_key(capped, cases) is None


def test_equivalent_candidates_cost_one_evaluation(tmp_path, backend, config, space, capped, cases):
    ev = CountingEvaluator(backend, config)
    store = SQLiteStore(tmp_path / "r.db")
    s = BudgetedEvaluator(ev, store, budget=10, run_label="scale_copy")
    first = s.evaluate(knobbed(space, capped), cases)
    same = s.evaluate(knobbed(space, capped, **{CAP: 8192}), cases)
    other = s.evaluate(knobbed(space, capped, **{CAP: 512}), cases)
    batch = s.evaluate_many([knobbed(space, capped, **{CAP: 2048}), knobbed(space, capped, **{CAP: 16384}),
                             knobbed(space, capped, **{CAP: 256})], cases)
    assert ev.calls == 3  # first, other, and the cap of 256
    assert first.ok and not first.duplicate and first.launch_key
    assert same.duplicate and same.same_as == first.digest and same.latency_us == first.latency_us
    assert same.digest != first.digest and same.origin == "stage2/test"
    assert not other.duplicate
    assert [b.duplicate for b in batch] == [True, True, False]
    assert batch[1].same_as == first.digest
    rep = s.report("scale_copy")
    assert (rep.charged, rep.duplicates) == (3, 3)
    # the answers are recorded with their own digest and sources, and what they were taken from
    rec = [r for r in store.list_evaluations() if r.evaluation.digest == same.digest]
    assert [(r.charged, r.evaluation.same_as) for r in rec] == [(False, first.digest)]
    assert store.get_sources(same.digest) is not None
    store.close()


def test_equivalence_can_be_switched_off(backend, config, space, capped, cases):
    ev = CountingEvaluator(backend, config)
    s = BudgetedEvaluator(ev, MemoryStore(), budget=10, reuse=ReuseConfig(equivalence=False))
    s.evaluate(knobbed(space, capped), cases)
    assert not s.evaluate(knobbed(space, capped, **{CAP: 8192}), cases).duplicate
    assert ev.calls == 2
