"""``ascendopt doctor``: what this machine has for each backend."""

from __future__ import annotations

import json

import typer
from rich.table import Table

from ascendopt.cli.common import console


def doctor_command(
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Report the CANN toolkit (ASCEND_HOME_PATH / set_env.sh), its version, the device's SoC
    (npu-smi), msprof, msopgen, cmake, the compilers, the CANN simulator (``<toolkit>/tools/
    simulator/<SoC>/lib``: of the device's SoC, or every one installed) and the candidate
    sandbox: what ``--backend npu`` (and the simulator's sandbox) need. Exit 0 when
    ``--backend npu`` can run on the device, 1 when something it needs is missing (our
    simulator needs none of it); whether ``--npu-mode simulator`` can run is said too."""
    from ascendopt.backends.npu.detect import detect

    info = detect()
    rows = info.report()
    missing = info.missing()
    sim_soc = info.soc or next(iter(info.simulators), "")
    sim_missing = info.missing("simulator", sim_soc)
    if as_json:
        print(json.dumps({"rows": [{"what": w, "found": f, "ok": ok} for w, f, ok in rows],
                          "npu_ready": not missing, "missing": missing,
                          "simulator_ready": not sim_missing, "simulator_missing": sim_missing,
                          "simulators": info.simulators, "soc": info.soc, "cann_version": info.version},
                         indent=2))
        raise typer.Exit(0 if not missing else 1)
    table = Table(title="ascendopt doctor")
    for col in ("", "what", "found"):
        table.add_column(col, overflow="fold")
    for what, found, ok in rows:
        table.add_row("[green]ok[/green]" if ok else "[red]--[/red]", what, found)
    console.print(table)
    console.print(f"--npu-mode simulator: ready ({sim_soc} on the CANN simulator)" if not sim_missing else
                  f"--npu-mode simulator: not available: {'; '.join(sim_missing)}", markup=False, highlight=False)
    if missing:
        console.print(f"--backend npu: not available: {'; '.join(missing)}", markup=False, highlight=False)
        console.print("--backend sim (the simulator) needs none of this"
                      + ("" if not info.sandbox else "; without a sandbox it needs --unsafe-no-sandbox"),
                      markup=False, highlight=False)
        raise typer.Exit(1)
    console.print(f"--backend npu: ready ({info.soc}, CANN {info.version or 'version unknown'})",
                  markup=False, highlight=False)
