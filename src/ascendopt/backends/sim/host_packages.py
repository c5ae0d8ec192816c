"""Header-only C++ libraries that operators' host (tiling) code includes and that installed
Python packages provide.

Operator repositories' tiling libraries include third-party headers the CANN toolkit ships
beside its own, e.g. ``<nlohmann/json.hpp>`` (cann-ops' cube tiling library parses compile
info with it). The simulator does not emulate such libraries: the real ones are installed
from the package registry (``nlohmann-json`` on PyPI, a dependency of this project) and
their include directories go after the simulator's own on the host include path
(``-idirafter``, so an operator's or the simulator's header of the same name wins). A
package that is not installed contributes nothing: its headers are then reported as not
provided, as before.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
from pathlib import Path

# (import name, distribution name, include directory inside the package)
PACKAGES = (("nlohmann_json", "nlohmann-json", "include"),)


@functools.lru_cache(maxsize=1)
def _found() -> tuple[tuple[Path, str], ...]:
    out = []
    for module, dist, sub in PACKAGES:
        spec = importlib.util.find_spec(module)
        if spec is None or not spec.submodule_search_locations:
            continue
        inc = Path(list(spec.submodule_search_locations)[0]) / sub
        if inc.is_dir():
            try:
                version = importlib.metadata.version(dist)
            except importlib.metadata.PackageNotFoundError:
                version = "?"
            out.append((inc.resolve(), f"{dist}=={version}"))
    return tuple(out)


def include_dirs() -> tuple[Path, ...]:
    """Include directories of the installed header packages, in PACKAGES order."""
    return tuple(d for d, _ in _found())


def include_flags() -> list[str]:
    """``-idirafter DIR`` for each of :func:`include_dirs`."""
    flags: list[str] = []
    for d in include_dirs():
        flags += ["-idirafter", str(d)]
    return flags


def describe() -> str:
    """The installed header packages and their versions (part of the toolchain key)."""
    return " ".join(v for _, v in _found())
