"""Multi-core execution: SyncAll, atomics, determinism, and the device runtime's GM padding."""

from __future__ import annotations

import numpy as np

from ascendopt.cases import load_op_cases, make_inputs
from ascendopt.evaluate.check import CheckConfig, case_dtypes, check_operator
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS


def test_syncall_and_atomic_add_accumulate_across_cores(backend):
    op = Operator.load(FIXTURE_OPS / "block_sum")
    [res] = check_operator(backend, op, load_op_cases(FIXTURE_OPS / "block_sum"))
    assert res.status == "ok", res.message
    assert res.block_dim > 8


def test_runs_are_deterministic(backend):
    op = Operator.load(FIXTURE_OPS / "block_sum")
    [case] = load_op_cases(FIXTURE_OPS / "block_sum")
    build = backend.build(op, case_dtypes(case))
    inputs = make_inputs(case, seed=7)
    a = backend.run(build, op, case, inputs)
    b = backend.run(build, op, case, inputs)
    assert a.outputs["y"].tobytes() == b.outputs["y"].tobytes()
    assert a.task_duration_us == b.task_duration_us
    assert a.profile["cores"] == b.profile["cores"]


def _scale_copy_variant(old: str, new: str) -> Operator:
    op = Operator.load(FIXTURE_OPS / "scale_copy")
    text = op.files["op_kernel/scale_copy.cpp"]
    assert old in text
    return op.with_file("op_kernel/scale_copy.cpp", text.replace(old, new, 1))


def test_rounding_a_tail_copy_up_to_32_bytes_stays_in_the_runtime_padding(backend):
    # 1000 floats = 4000 bytes; the last core's tail read rounded up to 8 elements touches up to
    # 28 bytes past the end, inside aclrtMalloc's padding: allowed, as on the device.
    op = _scale_copy_variant("DataCopyPad(xLocal, xGm[i * tileLength], params, pad);",
                             "DataCopy(xLocal, xGm[i * tileLength], (n + 7) / 8 * 8);")
    cases = [c for c in load_op_cases(FIXTURE_OPS / "scale_copy") if c.name == "small_tail"]
    [res] = check_operator(backend, op, cases)
    assert res.status == "ok", res.message


def test_reading_past_the_padding_is_a_warning_and_strict_fails_it(backend):
    # 256 bytes past the padded end, inside the allocator page: the device does not fault, the
    # run goes on with a gm_read_past_end warning (tests/sim/test_hazard_policy.py has the rest).
    op = _scale_copy_variant("DataCopyPad(xLocal, xGm[i * tileLength], params, pad);",
                             "DataCopy(xLocal, xGm[i * tileLength], (n + 7) / 8 * 8 + 64);")
    cases = [c for c in load_op_cases(FIXTURE_OPS / "scale_copy") if c.name == "small_tail"]
    [res] = check_operator(backend, op, cases)
    assert res.status == "ok" and [w["kind"] for w in res.warnings] == ["gm_read_past_end"], res.message
    [res] = check_operator(backend, op, cases, cfg=CheckConfig(strict=True))
    assert res.status == "runtime_error" and res.error_kind == "gm_read_past_end", res.message


def test_noise_injection_is_seeded_and_off_by_default(sim_cache):
    from ascendopt.backends.sim.backend import SimBackend
    from ascendopt.backends.sim.build import SimBuilder

    op = Operator.load(FIXTURE_OPS / "block_sum")
    [case] = load_op_cases(FIXTURE_OPS / "block_sum")
    inputs = make_inputs(case, seed=1)

    def durations(noise_pct, seed):
        be = SimBackend(builder=SimBuilder(cache_dir=sim_cache), noise_pct=noise_pct, noise_seed=seed)
        b = be.build(op, case_dtypes(case))
        return [be.run(b, op, case, inputs).task_duration_us for _ in range(3)]

    exact = durations(0.0, 0)
    assert len(set(exact)) == 1
    noisy = durations(5.0, 42)
    assert noisy == durations(5.0, 42)
    assert len(set(noisy)) == 3 and all(abs(v / exact[0] - 1) < 0.3 for v in noisy)
