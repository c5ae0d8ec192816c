"""Option checks shared by the CLI's commands (a bad value is a usage error, exit 2)."""

from __future__ import annotations

import typer

from ascendopt.session import RunSpec


def positive(value: float) -> float:
    """Option callback: a number that must be above zero (a timeout)."""
    if value <= 0:
        raise typer.BadParameter(f"{value:g} is not above 0")
    return value


#: ``--unsafe-no-sandbox`` (every command that compiles or runs operator code: run, profile,
#: tune, rewind, optimize, bench, compat): candidates are compiled and run in the sandbox
#: (:mod:`ascendopt.sandbox`); without one they are refused unless this is given.
#: The policy travels with the backend to worker processes.
UNSAFE_NO_SANDBOX = typer.Option(
    False, "--unsafe-no-sandbox",
    help="Compile and run candidate code without the sandbox when this machine has none (bubblewrap).")


def backend_name(value: str) -> str:
    """Option callback: ``sim`` or ``npu``."""
    if value not in ("sim", "npu"):
        raise typer.BadParameter(f"{value!r} is not a backend (sim, npu)")
    return value


#: ``--backend`` (every command that builds or runs candidates: run, profile, tune, rewind,
#: optimize, bench): ``sim`` (the simulator, default) or ``npu`` (an Ascend device through the
#: CANN toolkit; ``ascendopt doctor`` says what this machine has). On ``npu`` the SoC is the
#: device's and ``--soc`` is not used.
BACKEND = typer.Option("sim", "--backend", callback=backend_name,
                       help="sim (simulator, default) or npu (Ascend device with the CANN toolkit; see "
                            "`ascendopt doctor`).")


def npu_mode_name(value: str) -> str:
    """Option callback: ``device``, ``simulator`` or ``auto``."""
    from ascendopt.backends.npu.simulator import MODES

    if value not in MODES:
        raise typer.BadParameter(f"{value!r} is not an npu mode ({', '.join(MODES)})")
    return value


#: ``--npu-mode`` (with ``--backend npu``): ``device`` (default; the Ascend device, msprof op),
#: ``simulator`` (no device: the CANN simulator runs the harness and ``msprof op simulator``
#: times it; the SoC is the device's when npu-smi lists one, else ``--soc``) or ``auto``
#: (the simulator when the toolkit is installed, npu-smi lists no device and the simulator for
#: the SoC is present).
NPU_MODE = typer.Option("device", "--npu-mode", callback=npu_mode_name,
                        help="With --backend npu: device (default), simulator (the CANN simulator, "
                             "msprof op simulator) or auto (simulator when npu-smi lists no device).")


#: ``--timeout`` of the commands that run candidates (optimize, tune, rewind, bench, run): the
#: default is the run spec's (:class:`ascendopt.session.RunSpec`).
TIMEOUT = typer.Option(RunSpec.timeout_s, "--timeout", callback=positive, help="CPU seconds allowed per case run (the runner's; not moved by machine load).")

#: ``--json``: print the command's result as JSON.
AS_JSON = typer.Option(False, "--json", help="Print the result as JSON.")

#: ``--unseen-shapes N`` (tune, optimize, bench): after the search, the returned best is checked
#: on up to N shapes derived from the cases that the search never ran and the original passes
#: (:mod:`ascendopt.evaluate.unseen_check`); a best that fails one gives way to the next best
#: that passes all. 0 turns the check off.
UNSEEN_SHAPES = typer.Option(8, "--unseen-shapes", min=0,
                             help="Check the best on up to N shapes the search never used (ragged, one element, "
                                  "largest, half, other dtypes); a failing best gives way to the next that passes. "
                                  "0: off.")
