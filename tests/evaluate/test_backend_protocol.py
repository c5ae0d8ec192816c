"""The backend protocol (:class:`ascendopt.backends.base.Backend`): what the evaluator may ask a
backend, and the identity that goes into every evaluation config key."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from ascendopt.backends.base import Backend
from ascendopt.backends.sim.backend import SimBackend
from ascendopt.hw.soc import available_socs
from ascendopt.evaluate.evaluator import EvalConfig, Evaluator


def _identity_before_the_protocol(backend: Any) -> dict[str, Any]:
    """The backend identity as it was computed (by attribute probing) when record stores were
    first written; frozen here so the config key of existing stores stays the same."""
    soc = getattr(backend, "soc", None)
    ident: dict[str, Any] = {"backend": getattr(backend, "name", type(backend).__name__),
                             "soc": getattr(soc, "name", str(soc or ""))}
    params = getattr(soc, "params", None)
    if params:
        ident["soc_params"] = hashlib.sha256(json.dumps(params, sort_keys=True, default=str).encode()).hexdigest()[:16]
    builder = getattr(backend, "builder", None)
    if builder is not None and hasattr(builder, "toolchain_key"):
        ident["toolchain"] = builder.toolchain_key
    if getattr(backend, "noise_pct", None):
        ident["noise_pct"] = backend.noise_pct
    return ident


@pytest.mark.parametrize("soc", available_socs())
@pytest.mark.parametrize("noise_pct", [0.0, 2.5])
def test_sim_identity_is_what_existing_record_stores_were_keyed_by(backend, soc, noise_pct):
    sim = SimBackend(soc=soc, builder=backend.builder, noise_pct=noise_pct)
    ident = sim.identity()
    assert ident == _identity_before_the_protocol(sim)
    keys = ["backend", "soc", "soc_params", "toolchain"] + (["noise_pct"] if noise_pct else [])
    assert list(ident) == keys
    assert ident["backend"] == "sim" and ident["soc"] == sim.soc.name
    assert ident["toolchain"] == backend.builder.toolchain_key
    assert Evaluator(sim, EvalConfig())._identity == ident


def test_the_config_key_hashes_the_identity(backend, cases):
    """Same identity, same key; a different SoC or noise level, another key."""
    cfg = EvalConfig(seed=3)
    k = Evaluator(backend, cfg).config_key(list(cases))
    assert Evaluator(SimBackend(builder=backend.builder), cfg).config_key(list(cases)) == k
    assert Evaluator(SimBackend(builder=backend.builder, noise_pct=1.0), cfg).config_key(list(cases)) != k
    other = next(s for s in available_socs() if s != backend.soc.name)
    assert Evaluator(SimBackend(soc=other, builder=backend.builder), cfg).config_key(list(cases)) != k


class _Minimal(Backend):
    name = "minimal"

    def build(self, op, dtypes):
        raise AssertionError

    def run(self, build, op, case, inputs, timeout_s=60.0):
        raise AssertionError


def test_defaults_of_a_minimal_backend():
    b = _Minimal()
    assert b.soc is None and b.noise_pct == 0.0 and not b.supports_tiling
    assert b.identity() == {"backend": "minimal", "soc": ""}
    with pytest.raises(NotImplementedError, match="minimal"):
        b.tiling(None, None, None, {}, 1.0)


def test_the_simulator_offers_a_tiling_run(backend):
    assert isinstance(backend, Backend) and backend.supports_tiling


def test_build_and_run_are_required():
    class NoRun(Backend):
        name = "norun"

        def build(self, op, dtypes):
            raise AssertionError

    with pytest.raises(TypeError):
        NoRun()


def test_the_evaluator_refuses_what_is_not_a_backend():
    class Duck:
        name = "duck"

        def build(self, op, dtypes): ...

        def run(self, build, op, case, inputs, timeout_s=60.0): ...

    with pytest.raises(TypeError, match="Duck is not"):
        Evaluator(Duck())
