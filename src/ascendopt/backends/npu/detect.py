"""What this machine has of the CANN toolchain and an Ascend device.

:func:`detect` looks, and never raises: the CANN toolkit (``ASCEND_HOME_PATH``, or a
``set_env.sh`` in the usual install places, whose environment is then taken over), its version
(``<home>/<arch>-linux/ascend_toolkit_install.info``, ``version=``), the device's chips
(``npu-smi info``), ``msprof``, ``msopgen``, ``cmake``, the host C++ compiler, the device
compiler (``bisheng``, older toolkits ``ccec``), the CANN simulators installed with the toolkit
(:mod:`.simulator`) and whether the candidate sandbox is available.
:meth:`CannInfo.require` turns what the NPU backend (in a mode) cannot do without into one line.

Facts used (public CANN documentation):
  * ``set_env.sh`` of the toolkit sets ``ASCEND_HOME_PATH`` (``<install>/ascend-toolkit/latest``
    or ``<install>/cann-<version>``); the toolkit version is the ``version=`` line of
    ``<home>/<arch>-linux/ascend_toolkit_install.info``.
  * ``npu-smi info`` prints a table whose rows come in pairs per NPU: ``| NPU Name | Health |
    Power(W) Temp(C) Hugepages-Usage(page) |`` then ``| Chip Device | Bus-Id | AICore(%)
    Memory-Usage(MB) |``, blocks separated by ``+===...`` lines, a first line ``| npu-smi <v>
    Version: <driver> |`` (hiascend.com, npu-smi reference, "npu-smi info"). ``Name`` is the
    chip name (``910B2``); the SoC version the toolchain takes is ``Ascend`` + that name.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from ascendopt.backends.npu.simulator import RUNTIME_LIB, find_simulators, simulator_lib

#: Where a toolkit's ``set_env.sh`` is looked for when ``ASCEND_HOME_PATH`` is not set.
SET_ENV_PLACES = ("~/Ascend/ascend-toolkit/set_env.sh", "/usr/local/Ascend/ascend-toolkit/set_env.sh",
                  "~/Ascend/cann/set_env.sh", "/usr/local/Ascend/cann/set_env.sh",
                  "/usr/local/Ascend/cann-*/set_env.sh", "~/Ascend/cann-*/set_env.sh")
DEVICE_COMPILERS = ("bisheng", "ccec")
_TOOL_TIMEOUT_S = 30.0


class CannUnavailable(RuntimeError):
    """The NPU backend cannot work here; the message is one line naming what is missing."""


@dataclass(frozen=True)
class Chip:
    """One row pair of ``npu-smi info``."""

    npu: int
    name: str
    health: str
    chip: int = 0
    bus_id: str = ""

    @property
    def soc(self) -> str:
        """The SoC version the toolchain takes (``Ascend910B2``)."""
        return self.name if self.name.lower().startswith("ascend") else f"Ascend{self.name}"


@dataclass(frozen=True)
class CannInfo:
    """What :func:`detect` found. Paths are None (versions "") when not found.

    Attributes:
        home: The toolkit (``ASCEND_HOME_PATH``).
        set_env: The ``set_env.sh`` whose environment was taken (None when the caller's
            environment already had ``ASCEND_HOME_PATH``).
        version: Toolkit version (``8.0.RC2``).
        driver: Driver version from ``npu-smi info``.
        chips: The device's chips.
        tools: Tool name -> path (``msprof``, ``msopgen``, ``cmake``, ``cxx``, ``bisheng``/``ccec``).
        tool_versions: Tool name -> first line of its ``--version``.
        sandbox: "" when the candidate sandbox is available, else why not.
        env: The environment CANN tools and the harness run in.
        npu_smi_error: Why ``npu-smi info`` gave no chip.
        simulators: SoC -> lib directory of each CANN simulator under ``<home>/tools/simulator``.
    """

    home: Path | None
    set_env: Path | None
    version: str
    driver: str
    chips: tuple[Chip, ...]
    tools: dict[str, str] = field(default_factory=dict)
    tool_versions: dict[str, str] = field(default_factory=dict)
    sandbox: str = ""
    env: dict[str, str] = field(default_factory=dict)
    npu_smi_error: str = ""
    simulators: dict[str, str] = field(default_factory=dict)

    @property
    def soc(self) -> str:
        return self.chips[0].soc if self.chips else ""

    @property
    def device_compiler(self) -> str | None:
        return next((self.tools[c] for c in DEVICE_COMPILERS if c in self.tools), None)

    def missing(self, mode: str = "device", soc: str = "") -> list[str]:
        """What the NPU backend in ``mode`` (``device`` / ``simulator``) needs and this machine
        lacks, most basic first. The simulator replaces the device: it needs the simulator of
        ``soc`` (default: the device's SoC) instead."""
        out = []
        if self.home is None:
            out.append("the CANN toolkit (ASCEND_HOME_PATH is not set and no set_env.sh was found in "
                       + ", ".join(SET_ENV_PLACES[:2]) + ", ...)")
            return out
        if mode == "simulator":
            want = soc or self.soc
            if want not in self.simulators:
                out.append(f"the CANN simulator for {want or 'the SoC'} (no {RUNTIME_LIB} in "
                           f"{simulator_lib(self.home, want or '<SoC>')})")
        elif not self.chips:
            out.append(f"an Ascend device (npu-smi info: {self.npu_smi_error or 'no NPU listed'})")
        for tool in ("msprof", "msopgen", "cmake", "cxx"):
            if tool not in self.tools:
                out.append(f"{'a C++ compiler (g++)' if tool == 'cxx' else tool} on the toolkit's PATH")
        if self.device_compiler is None:
            out.append("the device compiler (bisheng or ccec) on the toolkit's PATH")
        return out

    def require(self, mode: str = "device", soc: str = "") -> None:
        """Raises CannUnavailable (one line) when anything the backend in ``mode`` needs is missing."""
        missing = self.missing(mode, soc)
        if missing:
            what = "--backend npu" + (" --npu-mode simulator" if mode == "simulator" else "")
            raise CannUnavailable(f"{what} needs " + "; ".join(missing))

    def report(self) -> list[tuple[str, str, bool]]:
        """``(what, found, ok)`` rows for ``ascendopt doctor``."""
        rows = [("CANN toolkit", str(self.home) if self.home else "not found (ASCEND_HOME_PATH / set_env.sh)",
                 self.home is not None),
                ("set_env.sh", str(self.set_env) if self.set_env else
                 ("already sourced (ASCEND_HOME_PATH set)" if self.home else "not found"), self.home is not None),
                ("toolkit version", self.version or "unknown", bool(self.version)),
                ("driver version", self.driver or "unknown", bool(self.driver))]
        if self.chips:
            chips = ", ".join(f"NPU {c.npu}: {c.soc} ({c.health})" for c in self.chips)
            rows.append(("SoC (npu-smi)", chips, all(c.health.upper() in ("OK", "WARNING") for c in self.chips)))
        else:
            rows.append(("SoC (npu-smi)", self.npu_smi_error or "no NPU listed", False))
        for tool in ("msprof", "msopgen", "cmake", "cxx", *DEVICE_COMPILERS):
            if tool in DEVICE_COMPILERS and tool not in self.tools:
                continue
            path = self.tools.get(tool)
            ver = self.tool_versions.get(tool, "")
            rows.append((tool if tool != "cxx" else "host C++ compiler",
                         f"{path}{'  (' + ver + ')' if ver else ''}" if path else "not found", path is not None))
        if self.device_compiler is None:
            rows.append(("device compiler", "not found (bisheng / ccec)", False))
        rows.append(self._simulator_row())
        rows.append(("sandbox", "available (bubblewrap)" if not self.sandbox else self.sandbox, not self.sandbox))
        return rows

    def _simulator_row(self) -> tuple[str, str, bool]:
        """The CANN simulator of the device's SoC, or (no device) the simulators installed."""
        if self.home is None:
            return ("CANN simulator", "no toolkit", False)
        if self.soc:
            lib = self.simulators.get(self.soc)
            return ("CANN simulator", f"{lib} ({self.soc})" if lib else
                    f"not found for {self.soc} (no {RUNTIME_LIB} in {simulator_lib(self.home, self.soc)})", bool(lib))
        if self.simulators:
            return ("CANN simulator", ", ".join(f"{k} ({v})" for k, v in self.simulators.items()), True)
        return ("CANN simulator", f"not found (no {simulator_lib(self.home, '<SoC>')}/{RUNTIME_LIB})", False)


def detect(environ: Mapping[str, str] | None = None, probe_versions: bool = True) -> CannInfo:
    """Looks at this machine (``environ``: the environment to start from, default the
    process's). Never raises."""
    base = dict(os.environ if environ is None else environ)
    set_env = None
    if base.get("ASCEND_HOME_PATH"):
        env = base
    else:
        set_env = find_set_env(base)
        env = source_set_env(set_env, base) if set_env is not None else base
    home = Path(env["ASCEND_HOME_PATH"]) if env.get("ASCEND_HOME_PATH") else None
    if home is not None and not home.is_dir():
        home = None
    tools: dict[str, str] = {}
    path = env.get("PATH", "")
    extra = [str(home / "compiler" / "ccec_compiler" / "bin"), str(home / "python" / "site-packages" / "bin"),
             str(home / "tools" / "msopgen" / "bin")] if home else []
    search = os.pathsep.join([path, *extra])
    for tool in ("msprof", "msopgen", "cmake", *DEVICE_COMPILERS, "npu-smi"):
        found = shutil.which(tool, path=search)
        if found:
            tools[tool] = found
    cxx = shutil.which(env.get("CXX", "g++"), path=search)
    if cxx:
        tools["cxx"] = cxx
    versions = {}
    if probe_versions:
        for tool in ("cmake", "cxx", *DEVICE_COMPILERS):
            if tool in tools:
                versions[tool] = _first_line([tools[tool], "--version"], env)
    chips, driver, smi_error = (), "", "npu-smi not found"
    if "npu-smi" in tools:
        out = _run([tools["npu-smi"], "info"], env)
        if out is None:
            smi_error = "npu-smi info failed"
        else:
            chips, driver = parse_npu_smi(out)
            smi_error = "" if chips else "npu-smi info listed no NPU"
    from ascendopt.sandbox import probe

    try:
        sandbox = probe().reason
    except Exception as e:  # noqa: BLE001 - a report, never a crash
        sandbox = f"sandbox probe failed: {e}"
    return CannInfo(home, set_env, toolkit_version(home) if home else "", driver, tuple(chips), tools, versions,
                    sandbox, env, smi_error, find_simulators(home))


def find_set_env(environ: Mapping[str, str]) -> Path | None:
    """The first toolkit ``set_env.sh`` of :data:`SET_ENV_PLACES` that exists."""
    home = environ.get("HOME", str(Path.home()))
    for place in SET_ENV_PLACES:
        pattern = place.replace("~", home, 1)
        hits = sorted(Path("/").glob(pattern.lstrip("/"))) if "*" in pattern else [Path(pattern)]
        for p in reversed(hits):  # the newest versioned install first
            if p.is_file():
                return p
    return None


def source_set_env(script: Path, environ: Mapping[str, str]) -> dict[str, str]:
    """The environment after sourcing ``script`` in bash (``environ`` unchanged when it fails)."""
    try:
        out = subprocess.run(["bash", "-c", '. "$1" >/dev/null 2>&1; env -0', "ao-set-env", str(script)],
                             capture_output=True, env=dict(environ), timeout=_TOOL_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired):
        return dict(environ)
    if out.returncode != 0:
        return dict(environ)
    env = {}
    for item in out.stdout.split(b"\0"):
        k, sep, v = item.decode(errors="replace").partition("=")
        if sep and k:
            env[k] = v
    return env or dict(environ)


def toolkit_version(home: Path) -> str:
    """``version=`` of ``<home>/<arch>-linux/ascend_toolkit_install.info`` (any arch as a fallback)."""
    files = [home / f"{platform.machine()}-linux" / "ascend_toolkit_install.info",
             *sorted(home.glob("*-linux/ascend_toolkit_install.info"))]
    for f in files:
        try:
            text = f.read_text(errors="replace")
        except OSError:
            continue
        m = re.search(r"^\s*version\s*=\s*(\S+)", text, re.M)
        if m:
            return m.group(1)
    return ""


_SEPARATOR = re.compile(r"^\+[=\-+]+\+\s*$")


def parse_npu_smi(text: str) -> tuple[list[Chip], str]:
    """Chips and driver version from ``npu-smi info`` output (module docstring)."""
    m = re.search(r"Version:\s*(\S+)", text)
    driver = m.group(1) if m else ""
    chips: list[Chip] = []
    block: list[list[str]] = []

    def flush() -> None:
        if len(block) >= 2 and block[0] and block[0][0].split()[0].isdigit():
            first, second = block[0], block[1]
            npu, _, name = first[0].partition(" ")
            chip = second[0].split()[0] if second[0].split() else "0"
            chips.append(Chip(int(npu), name.strip() or "?", first[1].strip() if len(first) > 1 else "",
                              int(chip) if chip.isdigit() else 0, second[1].strip() if len(second) > 1 else ""))
        block.clear()

    for line in text.splitlines():
        if _SEPARATOR.match(line.strip()):
            flush()
            continue
        if line.strip().startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cells and cells[0]:
                block.append(cells)
    flush()
    return chips, driver


def _run(cmd: list[str], env: Mapping[str, str]) -> str | None:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, errors="replace", env=dict(env),
                             timeout=_TOOL_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout if out.returncode == 0 else None


def _first_line(cmd: list[str], env: Mapping[str, str]) -> str:
    out = _run(cmd, env)
    lines = [ln.strip() for ln in (out or "").splitlines() if ln.strip()]
    return lines[0] if lines else ""
