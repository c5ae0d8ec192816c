"""Runs one case through the operator's host harness and reads back what it did.

Inputs are written as raw files and named in a manifest (the simulator runner's line format,
:mod:`.harness`); the harness writes the outputs and ``result.json``. What went wrong becomes
the same typed statuses as on the simulator:

* the aclnn ``GetWorkspaceSize`` call failing (the host tiling or the parameter checks
  rejected the case) -> ``tiling_error``;
* an ACL runtime error code -> ``runtime_error`` with a kind (``aicore_exception``, ...), or
  ``timeout`` for the device's own timeouts (:data:`ACL_ERRORS`);
* the harness outliving the run timeout (killed with its process group) -> ``timeout``;
* the harness dying by a signal -> ``runtime_error`` named after the signal.

ACL runtime error codes (AscendCL error code reference, ``acl_base.h``): 507014
``ACL_ERROR_RT_AICORE_TIMEOUT``, 507015 ``ACL_ERROR_RT_AICORE_EXCEPTION``, 507017
``ACL_ERROR_RT_AICPU_TIMEOUT``, 507018 ``ACL_ERROR_RT_AICPU_EXCEPTION``, 507034
``ACL_ERROR_RT_VECTOR_CORE_TIMEOUT``, 507046 ``ACL_ERROR_RT_STREAM_SYNC_TIMEOUT``, 207001
``ACL_ERROR_RT_MEMORY_ALLOCATION``.
"""

from __future__ import annotations

import json
import shutil
import signal
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ascendopt.backends.base import BuildResult, RunResult, Status
from ascendopt.backends.npu.harness import Param
from ascendopt.backends.npu.project import run_tool
from ascendopt.runner_manifest import manifest_tail, tensor_line
from ascendopt.cases import Case, group_params

#: ACL error code -> (status, error kind).
ACL_ERRORS: dict[int, tuple[Status, str]] = {
    507014: (Status.TIMEOUT, "aicore_timeout"),
    507015: (Status.RUNTIME_ERROR, "aicore_exception"),
    507017: (Status.TIMEOUT, "aicpu_timeout"),
    507018: (Status.RUNTIME_ERROR, "aicpu_exception"),
    507034: (Status.TIMEOUT, "vector_core_timeout"),
    507046: (Status.TIMEOUT, "stream_sync_timeout"),
    207001: (Status.RUNTIME_ERROR, "device_out_of_memory"),
}
_SIGNALS = {signal.SIGSEGV: "segfault", signal.SIGBUS: "bus_error", signal.SIGFPE: "arithmetic_exception",
            signal.SIGABRT: "abort", signal.SIGILL: "illegal_instruction", signal.SIGKILL: "killed"}


def write_manifest(work: Path, params: Sequence[Param], case: Case, inputs: dict[str, np.ndarray],
                   extra: Sequence[str] = ()) -> Path:
    """Writes the inputs and the manifest into ``work``; outputs go to ``out<i>.bin``. A case
    output the OpDef does not declare but has as an input (an in-place operator) is a
    ``ref_output``: the harness returns that input's final contents."""
    lines = list(extra)
    n = 0
    for _, tensors, _ in group_params(case.inputs):
        for spec in tensors:
            path = work / f"in{n}.bin"
            n += 1
            path.write_bytes(np.ascontiguousarray(inputs[spec.key], dtype=spec.np_dtype).tobytes())
            lines.append(tensor_line("dyn_input" if spec.dynamic else "input", spec, path))
    lines += manifest_tail(work, case, {p.name for p in params if p.role == "output"},
                           {p.name for p in params if p.role == "input"})
    manifest = work / "manifest.txt"
    manifest.write_text("\n".join(lines) + "\n")
    return manifest


def harness_env(cann_env: dict[str, str], build: BuildResult) -> dict[str, str]:
    """The harness's environment: the toolkit's, with the build's paths put first."""
    env = dict(cann_env)
    for k, v in build.run_env:
        env[k] = f"{v}:{env[k]}" if k in ("LD_LIBRARY_PATH", "ASCEND_CUSTOM_OPP_PATH") and env.get(k) else v
    return env


def run_case(build: BuildResult, params: Sequence[Param], case: Case, inputs: dict[str, np.ndarray],
             timeout_s: float, cann_env: dict[str, str], device: int = 0) -> RunResult:
    """Runs one case once (no profiler). Never raises for a bad candidate."""
    t0 = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="aonpu-"))
    try:
        manifest = write_manifest(work, params, case, inputs,
                                  [f"device {device}", "repeat 1", f"timeout_ms {int(timeout_s * 1000)}"])
        code, out, timed_out = run_tool([str(build.artifact), str(manifest)], work, harness_env(cann_env, build),
                                        timeout_s)
        return collect(work, case, code, out, timed_out, timeout_s, time.perf_counter() - t0)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def collect(work: Path, case: Case, code: int, out: str, timed_out: bool, timeout_s: float,
            seconds: float) -> RunResult:
    """The RunResult of a harness run in ``work`` (module docstring)."""
    if timed_out:
        return RunResult(Status.TIMEOUT, "timeout", f"the run did not finish within {timeout_s:g} s "
                                                    f"(kernel loop or hang?)", seconds=seconds)
    tail = "\n".join(out.strip().splitlines()[-5:])
    if code < 0:
        sig = -code
        kind = _SIGNALS.get(signal.Signals(sig), f"signal_{sig}") if sig in signal.Signals._value2member_map_ \
            else f"signal_{sig}"
        return RunResult(Status.RUNTIME_ERROR, kind, f"the harness died with {kind}\n{tail}".strip(), seconds=seconds)
    try:
        res: dict[str, Any] = json.loads((work / "result.json").read_text())
    except (OSError, ValueError):
        return RunResult(Status.RUNTIME_ERROR, "harness", f"the harness exited with {code} without a result\n"
                                                          f"{tail}".strip(), seconds=seconds)
    status = res.get("status")
    acl = int(res.get("acl_error", 0) or 0)
    said = str(res.get("message", "")).strip()
    if status == "tiling_error":
        return RunResult(Status.TILING_ERROR, "tiling", f"aclnn GetWorkspaceSize failed ({acl})"
                                                        + (f": {said}" if said else ""), seconds=seconds)
    if status != "ok":
        st, kind = ACL_ERRORS.get(acl, (Status.RUNTIME_ERROR, f"acl_error_{acl}" if acl else "harness"))
        stage = res.get("stage", "")
        return RunResult(st, kind, f"{kind} at {stage or 'run'} (ACL error {acl})" + (f": {said}" if said else ""),
                         seconds=seconds)
    outputs = {}
    for i, spec in enumerate(case.outputs):
        want = int(np.prod(spec.shape, dtype=np.int64)) * np.dtype(spec.np_dtype).itemsize
        try:
            raw = (work / f"out{i}.bin").read_bytes()
        except OSError as e:
            return RunResult(Status.RUNTIME_ERROR, "harness", f"output {spec.key} is unreadable: {e.strerror or e}",
                             seconds=seconds)
        if len(raw) != want:
            return RunResult(Status.RUNTIME_ERROR, "harness", f"output {spec.key} has {len(raw)} bytes, "
                                                              f"expected {want}", seconds=seconds)
        outputs[spec.key] = np.frombuffer(raw, dtype=spec.np_dtype).reshape(spec.shape).copy()
    profile = {"workspace_bytes": int(res.get("workspace_bytes", 0) or 0), "launches": int(res.get("launches", 1))}
    return RunResult(Status.OK, outputs=outputs, profile=profile, seconds=seconds)
