"""The CANN simulator (``msprof op simulator``): where it is, which mode to use, how to run on it.

``--backend npu`` runs in one of two modes:

* ``device``: the operator runs on the Ascend device (``npu-smi`` lists it), timed by
  ``msprof op``;
* ``simulator``: no device is needed. The same harness runs against the CANN simulator's
  runtime, and timing comes from ``msprof op simulator``: a cycle-level model of the SoC's AI
  cores whose instruction trace gives the latency and the per-pipe busy time. It is
  deterministic (noise 0) and does not model a device shared with other work (HBM contention
  of real runs, clock changes).
* ``auto``: ``simulator`` when the toolkit is installed, ``npu-smi`` lists no device and the
  simulator for the SoC is present; ``device`` otherwise.

Facts used (msOpProf documentation, repository Ascend/msopprof):
  * ``docs/en/user_guide/msopprof_simulator_user_guide.md``, "Command Reference": ``msprof op
    simulator --soc-version=<SoC> [--output=DIR] [--kernel-name=NAME] [--launch-count=N] APP
    [ARGS]``; the simulator type is chosen by ``--soc-version`` or by putting
    ``${INSTALL_DIR}/tools/simulator/<SoC>/lib`` on ``LD_LIBRARY_PATH`` (the values of
    ``--soc-version`` are the directory names under ``${INSTALL_DIR}/tools/simulator``). There
    is no ``--warm-up`` in simulator mode; ``--timeout`` stops the simulation early and parses
    what was simulated, so it is never used here (a partial trace is not a latency).
  * Same document, "Scenarios": an application built for the board runs on the simulator
    without recompiling when a link named ``libruntime.so`` to the simulator's
    ``libruntime_camodel.so`` is put in a directory on ``LD_LIBRARY_PATH``; the single-operator
    API (aclnn) scenario is supported. Simulation is single-device.
  * ``docs/zh/best_practices/typical_cases.md`` (catlass case): running a program on the
    simulator puts ``<toolkit>/tools/simulator/<SoC>/lib`` on ``LD_LIBRARY_PATH``; the
    simulator's libraries there are ``libruntime_camodel.so`` and ``libnpu_drv_camodel.so``.
  * Output layout: ``msopprof_simulator_performance_data.md`` (see
    :mod:`ascendopt.profile`): ``OPPROF_<ts>_<id>/dump/`` and ``simulator/`` with a
    ``core<N>.veccore<M>`` / ``core<N>.cubecore<M>`` directory per core
    (``*_instr_exe.csv``, ``*_code_exe.csv``, ``trace.json``), ``visualize_data.bin`` and the
    all-core ``trace.json``; with several launches ``<OpName>/<i>/`` per launch.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Mapping

MODES = ("device", "simulator", "auto")
#: The simulator's runtime library (the simulator of a SoC is present when its lib directory has it).
RUNTIME_LIB = "libruntime_camodel.so"
#: The name the application's runtime is loaded by; a link of this name points at :data:`RUNTIME_LIB`.
RUNTIME_LINK = "libruntime.so"


def simulator_root(home: Path) -> Path:
    """``<toolkit>/tools/simulator``: one directory per simulated SoC."""
    return Path(home) / "tools" / "simulator"


def simulator_lib(home: Path, soc: str) -> Path:
    """Where the simulator of ``soc`` keeps its libraries (present or not)."""
    return simulator_root(home) / soc / "lib"


def find_simulators(home: Path | None) -> dict[str, str]:
    """SoC -> lib directory of every simulator installed with the toolkit at ``home``."""
    if home is None:
        return {}
    root = simulator_root(home)
    try:
        subs = sorted(p for p in root.iterdir() if p.is_dir())
    except OSError:
        return {}
    return {p.name: str(p / "lib") for p in subs if (p / "lib" / RUNTIME_LIB).is_file()}


def resolve_mode(mode: str, has_home: bool, has_device: bool, has_simulator: bool) -> str:
    """``device`` or ``simulator`` for a requested mode (``auto``: module docstring)."""
    if mode not in MODES:
        raise ValueError(f"{mode!r} is not an npu mode ({', '.join(MODES)})")
    if mode != "auto":
        return mode
    return "simulator" if has_home and not has_device and has_simulator else "device"


def runtime_link_dir(lib_dir: Path, where: Path) -> Path:
    """A directory under ``where`` holding ``libruntime.so`` -> ``lib_dir/libruntime_camodel.so``
    (made once; a concurrent maker's link is as good as ours)."""
    d = Path(where) / "simulator-runtime" / Path(lib_dir).parent.name
    link = d / RUNTIME_LINK
    target = Path(lib_dir) / RUNTIME_LIB
    if link.is_symlink() and Path(os.readlink(link)) == target:
        return d
    d.mkdir(parents=True, exist_ok=True)
    tmp = d / f".{RUNTIME_LINK}.{uuid.uuid4().hex[:8]}"
    tmp.symlink_to(target)
    os.replace(tmp, link)
    return d


def simulator_env(env: Mapping[str, str], lib_dir: Path, link_dir: Path) -> dict[str, str]:
    """The toolkit's environment with the simulator's runtime first on ``LD_LIBRARY_PATH``
    (the ``libruntime.so`` link, then the simulator's own libraries)."""
    out = dict(env)
    rest = out.get("LD_LIBRARY_PATH", "")
    out["LD_LIBRARY_PATH"] = os.pathsep.join(p for p in (str(link_dir), str(lib_dir), rest) if p)
    return out
