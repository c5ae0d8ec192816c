"""Issue 18: evaluations that run on Ray workers carry the driver's sandbox policy (it travels
with the backend inside the evaluator): sandboxed there, a candidate that opens /etc/passwd for
writing is a ``sandbox_violation``; with ``--unsafe-no-sandbox`` the worker's policy says so and
candidate code runs unconfined."""

from __future__ import annotations

import importlib.util

import pytest

from ascendopt import sandbox
from ascendopt.backends.sim.backend import SimBackend
from ascendopt.backends.sim.build import SimBuilder
from ascendopt.cases import load_op_cases
from ascendopt.evaluate.evaluator import EvalConfig, Evaluator
from ascendopt.evaluate.executors import EvalTask
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS

SCALE_COPY = FIXTURE_OPS / "scale_copy"
KERNEL = "op_kernel/scale_copy.cpp"
ENTRY = "GET_TILING_DATA(tilingData, tiling);"
MISSING = sandbox.Support(None, None, "no bwrap (test)")


def _in_kernel(code: str) -> Operator:
    base = Operator.load(SCALE_COPY)
    text = base.files[KERNEL]
    assert ENTRY in text
    return base.with_file(KERNEL, "#include <fcntl.h>\n#include <unistd.h>\n#include <cstdlib>\n"
                          + text.replace(ENTRY, ENTRY + "\n    " + code, 1), origin="test/ray")


def _evaluate_on_ray(evaluator: Evaluator, op: Operator, case) -> object:
    from ascendopt.evaluate.executors import RayExecutor

    task = EvalTask(op, (case,), 1, evaluator.config_key((case,)))
    with RayExecutor() as ex:
        [(i, ev)] = list(ex.run(evaluator, [task]))
    return ev


def _policy_seen_by_a_worker(evaluator: Evaluator) -> tuple[bool, bool]:
    import ray

    @ray.remote
    def seen(ev: Evaluator) -> tuple[bool, bool]:
        return ev.backend.sandbox.allow_unsafe, ev.backend.sandbox.active

    return ray.get(seen.remote(evaluator))


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="ray is not installed (pip install 'ascendopt[ray]')")
def test_ray_workers_carry_the_sandbox_policy(sim_cache, tmp_path):
    import ray

    case = next(c for c in load_op_cases(SCALE_COPY) if c.name == "small_tail")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        # Sandboxed (the default where bubblewrap works, as in CI).
        safe = Evaluator(SimBackend(builder=SimBuilder(cache_dir=sim_cache), sandbox=sandbox.Sandbox()),
                         EvalConfig(jobs=1))
        assert _policy_seen_by_a_worker(safe) == (False, True)
        ev = _evaluate_on_ray(safe, _in_kernel('open("/etc/passwd", O_WRONLY | O_APPEND);'), case)
        assert (ev.status, ev.error_kind) == ("runtime_error", "sandbox_violation"), (ev.status, ev.error)
        assert "/etc/passwd" in ev.error
        # --unsafe-no-sandbox on a machine without a sandbox: the worker runs unconfined.
        marker = tmp_path / "visible_only_unconfined"
        marker.write_text("x")
        unsafe = Evaluator(SimBackend(builder=SimBuilder(cache_dir=sim_cache),
                                      sandbox=sandbox.Sandbox(allow_unsafe=True, _support=MISSING)),
                           EvalConfig(jobs=1))
        assert _policy_seen_by_a_worker(unsafe) == (True, False)
        ev = _evaluate_on_ray(unsafe, _in_kernel(f'if (access("{marker}", F_OK) != 0) abort();'), case)
        assert ev.status == "ok", (ev.status, ev.error)
    finally:
        ray.shutdown()
