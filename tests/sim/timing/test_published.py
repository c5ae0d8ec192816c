"""Published measured figures (tests/sim/timing/published_figures.toml) reproduced by the model."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import numpy as np
import pytest

from ascendopt.backends.sim.backend import SimBackend

from .common import instr, load, run, variant

FIGURES = tomllib.loads((Path(__file__).parent / "published_figures.toml").read_text())["figure"]
BY_ID = {f["id"]: f for f in FIGURES}
KERNEL = "op_kernel/timing_copy.cpp"
_RUNS: dict = {}  # one build and run per distinct variant (several figures share one)


@pytest.fixture(scope="module")
def lab():
    return load("timing_copy")


def _variant(fig):
    v = fig["variant"]
    return BY_ID[v]["variant"] if isinstance(v, str) else v


def _run_cached(backend, op, case, fig_variant):
    key = (case.name, tuple(sorted(fig_variant.items())))
    if key not in _RUNS:
        _RUNS[key] = run(backend, variant(op, KERNEL, **fig_variant), case)
    return _RUNS[key]


def _measure(backend, op, case, fig_variant):
    rr = _run_cached(backend, op, case, fig_variant)
    if fig_variant.get("MODE") == 1:
        n, cyc = instr(rr, "Add", "V")
        return cyc / n
    n, cyc = instr(rr, "DataCopyPad", "MTE2")
    return cyc / n


def _fixture_ratio(backend, fig):
    """Time ratio of two variants of another fixture, L2 scaled to the published share of the data."""
    op, cases = load(fig["fixture"])
    case = cases.get(fig["case"])  # None for a figure on another fixture
    data = sum(int(np.prod(t.shape)) * t.np_dtype.itemsize for t in [*case.inputs, *case.outputs])
    be = SimBackend(builder=backend.builder)
    be.soc = dataclasses.replace(backend.soc, params={**backend.soc.params, "l2_bytes": data * fig["l2_of_data"]})
    kernel = f"op_kernel/{fig['fixture']}.cpp"
    got = run(be, variant(op, kernel, **fig["variant"]), case).profile["max_core_cycles"]
    base = run(be, variant(op, kernel, **fig["baseline_variant"]), case).profile["max_core_cycles"]
    return got / base


@pytest.mark.parametrize("fig", FIGURES, ids=[f["id"] for f in FIGURES])
def test_published_figure(backend, lab, fig):
    op, cases = lab
    case = cases.get(fig["case"])  # None for a figure on another fixture
    if "per_instr" in fig:
        fop, fcases = load(fig["fixture"])
        rr = run(backend, variant(fop, f"op_kernel/{fig['fixture']}.cpp", **fig["variant"]), fcases[fig["case"]])
        n, cyc = map(sum, zip(*(instr(rr, name, "S") for name in fig["per_instr"])))
        value = cyc / n
    elif "fixture" in fig:
        value = _fixture_ratio(backend, fig)
    elif fig.get("l2_scale"):
        # Keep the published working-set : L2 ratio (302 MB : 192 MB) at the fixture's size.
        data = 3072 * 4096 * 2
        soc = dataclasses.replace(backend.soc, params={**backend.soc.params, "l2_bytes": data * 192 / 302})
        be = SimBackend(builder=backend.builder)
        be.soc = soc
        got = run(be, variant(op, KERNEL, **fig["variant"]), case).profile["max_core_cycles"]
        base = run(be, variant(op, KERNEL, **fig["baseline_variant"]), case).profile["max_core_cycles"]
        value = got / base
    elif "per_repeat" in fig:
        n, cyc = instr(_run_cached(backend, op, case, _variant(fig)), fig["per_repeat"], "V")
        assert n > 0, f"no {fig['per_repeat']} instruction"
        value = (cyc / n - backend.soc.params["vec_startup_cycles"]) / fig["repeats"]
    elif "baseline_case" in fig:
        value = _measure(backend, op, case, fig["variant"]) / _measure(backend, op, cases[fig["baseline_case"]],
                                                                       fig["variant"])
    else:
        value = _measure(backend, op, case, fig["variant"])
    err = abs(value - fig["value"]) / fig["value"]
    assert err <= fig["tolerance"], f"{fig['id']}: model {value:.4g} vs published {fig['value']} ({err:.1%})"
