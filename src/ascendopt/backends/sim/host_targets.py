"""An operator's host sources linked as the separate libraries its CMake targets make.

The cann-ops build adds an operator's OpDef source to ``opsproto`` / ``op_host_aclnn`` and its
tiling source to ``optiling``: separate shared libraries loaded into one process. A non-inline
function that a header of the operator defines is then compiled into two libraries, which the
dynamic loader accepts (the first definition wins; the copies are the same code). The simulator
links everything into one executable, so each library other than the tiling one is first
partially linked into one object (``ld -r``), and its global definitions that an earlier library
also defines strongly are made local to it (``objcopy --localize-symbol``), as a shared library's
own copy would be. A name defined twice inside one library is still a link error, as in the real
build. ``ld``, ``nm`` and ``objcopy`` run outside the sandbox, as ``ar`` does for the host
library: they only read and rewrite objects, they run no candidate code.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

_STRONG = set("TDBRGS")  # nm kinds of a strong global definition (not weak V/W, not unique u)


def strong_globals(objs: list[Path]) -> tuple[set[str], str]:
    """The strong global symbols `objs` define, and nm's error ("" when fine)."""
    if not objs:
        return set(), ""
    res = subprocess.run(["nm", "-g", "--defined-only", *map(str, objs)], capture_output=True, text=True)
    if res.returncode != 0:
        return set(), res.stderr.strip() or f"nm exited with {res.returncode}"
    names = set()
    for line in res.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[-2] in _STRONG:
            names.add(parts[-1])
    return names, ""


def link_libraries(groups: list[list[Path]], also_first: list[Path], out_dir: Path) -> tuple[list[Path], str]:
    """Objects to link in place of `groups` (each a list of objects of one library, the tiling
    library first): the first group's as they are, each other group partially linked into
    ``out_dir/h-lib<k>.o`` with the strong definitions of the groups before it (and of
    `also_first`, objects of the tiling library built elsewhere) made local. Returns the objects
    and an error text ("" when fine); the caller removes the grouped objects it no longer links."""
    result = list(groups[0]) if groups else []
    seen, err = strong_globals([*groups[0], *also_first] if groups else also_first)
    for k, objs in enumerate(groups[1:], start=1):
        if err or not objs:
            continue
        merged = out_dir / f"h-lib{k}.o"
        res = subprocess.run(["ld", "-r", "-o", str(merged), *map(str, objs)], capture_output=True, text=True)
        if res.returncode != 0:
            return result, res.stderr.strip() or f"ld -r exited with {res.returncode}"
        mine, err = strong_globals([merged])
        dup = sorted(mine & seen)
        if dup and not err:
            listing = out_dir / f"h-lib{k}.localize"
            listing.write_text("".join(s + "\n" for s in dup))
            res = subprocess.run(["objcopy", f"--localize-symbols={listing}", str(merged)],
                                 capture_output=True, text=True)
            if res.returncode != 0:
                return result, res.stderr.strip() or f"objcopy exited with {res.returncode}"
        seen |= mine
        result.append(merged)
    return result, err
