"""The repository an operator directory sits in, and what its build adds to the operator.

cann-ops keeps code shared by many operators outside their directories: headers under
``src/common/inc`` (tiling base classes, logging and error macros, the foreach OpDef macros
and kernel templates) and sources under ``src/common/src`` (the foreach tiling functions).
Its CMake build puts ``common/inc`` on the include path of every tiling (host) compile, adds
the include directories and sources an operator's ``CMakeLists.txt`` names for the tiling
library (``target_include_directories(optiling ...)``, ``target_sources(optiling ...)``), the
``-I`` options it gives the kernel compile (``add_ops_compile_options(... OPTIONS -I...)``),
and the compile definitions of the shared header target (``ops_utils_tiling_headers``).
Source lists may come from ``file(GLOB|GLOB_RECURSE VAR patterns...)`` (the matmul family
pulls the whole shared host tiling library ``common/op_host/op_tiling/*.cc`` that way): the
patterns are expanded against the tree, relative to the CMakeLists directory, and ``${VAR}``
in a ``target_sources`` call stands for the files found. Shared sources of the aclnn /
level-0 graph layer (:func:`ascendopt.operator.graph_level_sources`) are left out, as they
are for ``op_host/``.

:func:`find_repo` recognises such a tree by walking up from the operator directory to the
directory that holds ``common/inc`` and reads those conventions into an :class:`OpRepo`; the
simulator build applies them, and the operator's identity covers the external files it uses
(:func:`external_files`, :func:`fingerprint`) so no cache outlives an edit to them.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ascendopt.host_sources import graph_level_sources

SHARED_DIR = "common"  # <repo src>/common/inc, common/src
_MAX_UP = 4  # operator dirs sit at <src>/<category>/<op>; allow a little more nesting
_INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]', re.M)
_CMAKE_CALL = re.compile(r"\b(target_sources|target_include_directories|add_ops_compile_options|"
                         r"target_compile_definitions)\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)", re.S)
_GENEX_IF = re.compile(r"\$<IF:[^,]*,([^,>]*),[^>]*>")
_CMAKE_FILE_GLOB = re.compile(r"\bfile\s*\(\s*(GLOB|GLOB_RECURSE)\s+([^()]*)\)", re.S)
_GLOB_OPTIONS = {"CONFIGURE_DEPENDS", "FOLLOW_SYMLINKS"}
_VAR_REF = re.compile(r"^\$\{(\w+)\}$")


@dataclass(frozen=True)
class OpRepo:
    """Build conventions of the repository around one operator directory.

    Attributes:
        src: The repository directory holding ``common/inc`` (cann-ops: its ``src/``).
        host_include_dirs: Include directories of the tiling (host) compile, in order,
            searched before the simulator's own headers (the repository's copies win).
        kernel_include_dirs: Extra include directories of the kernel compile.
        host_sources: Shared sources outside the operator directory that the build links
            into the operator's tiling library, each named in its CMakeLists.txt.
        host_library_sources: Shared sources it adds by a ``file(GLOB ...)`` variable (a library
            directory of which an operator uses a part), and the tiling sources of sibling
            operators whose op_host headers it includes (the repository builds one tiling
            library of all operators). The simulator links them as a static library: only the
            objects the operator's tiling needs, and those of ``host_library_kept``.
        host_library_kept: The part of ``host_library_sources`` that the operator's own
            ``optiling`` target adds (by a ``file(GLOB ...)`` variable): that target is a shared
            library in the real build, which keeps every object, so the simulator links every
            one of them that compiles and resolves, and their static registrations run (matmul:
            the GEMM estimators ``REG_GEMM_ESTIMATE_FUNC`` registers, which nothing references).
            Sibling operators' sources are not in it: the simulator builds one operator, they
            are there only to define what it references.
        host_defines: Compile definitions of the host compile (``NAME=VALUE``).
        host_own_sources: The operator's own host sources (``op_host/...``, relative to its
            directory) that its ``CMakeLists.txt`` adds to a host target (every target but the
            ``opapi`` aclnn library); empty when it names none (then every source is built).
            Sources it does not name (stale copies) are not part of the real build.
        host_own_groups: ``host_own_sources`` by the library they are linked into: sources
            that share a CMake target are one library (the tiling library ``optiling``'s
            first). Each is a shared library of its own in the real build, so a non-inline
            function that a header defines in two of them is no duplicate (gelu_quant's
            OpDef source in ``opsproto`` and tiling source in ``optiling``). Empty with one.
    """

    src: Path
    host_include_dirs: tuple[Path, ...] = ()
    kernel_include_dirs: tuple[Path, ...] = ()
    host_sources: tuple[Path, ...] = ()
    host_defines: tuple[str, ...] = ()
    host_own_sources: tuple[str, ...] = ()
    host_library_sources: tuple[Path, ...] = ()
    host_own_groups: tuple[tuple[str, ...], ...] = ()
    host_library_kept: tuple[Path, ...] = ()

    def describe(self) -> str:
        """One canonical text of the conventions (part of build keys)."""
        return "\n".join(["src=" + str(self.src), *("hi=" + str(d) for d in self.host_include_dirs),
                          *("ki=" + str(d) for d in self.kernel_include_dirs),
                          *("hs=" + str(s) for s in self.host_sources), *("hd=" + d for d in self.host_defines),
                          *("ho=" + s for s in self.host_own_sources),
                          *("hl=" + str(s) for s in self.host_library_sources),
                          *("hg=" + ",".join(g) for g in self.host_own_groups),
                          *("hk=" + str(s) for s in self.host_library_kept)])


def find_repo(op_dir: str | Path) -> OpRepo | None:
    """The repository conventions around `op_dir`, or None when it sits in no such tree
    (or is not an operator directory: no ``op_host/`` nor ``op_kernel/``)."""
    op_dir = Path(op_dir).resolve()
    if not ((op_dir / "op_host").is_dir() or (op_dir / "op_kernel").is_dir()):
        return None
    src = None
    for d in list(op_dir.parents)[:_MAX_UP]:
        if (d / SHARED_DIR / "inc").is_dir():
            src = d
            break
    if src is None:
        return None
    host_dirs = [src / SHARED_DIR / "inc"]
    kernel_dirs: list[Path] = []
    sources: list[Path] = []
    library: list[Path] = []
    own: list[str] = []
    targets: dict[str, set[str]] = {}  # own source -> the CMake targets it is added to
    unknown = False
    cm = op_dir / "CMakeLists.txt"
    if cm.is_file():
        text = _cmake_text(cm)
        globs = glob_variables(text, src, op_dir)
        for fn, body in _CMAKE_CALL.findall(text):
            raw = body.split()
            toks = _expand(raw, globs)
            globbed = set(toks) - set(raw)
            if not toks:
                continue
            if fn == "target_sources" and toks[0] != "opapi":
                for t in toks[1:]:
                    p = _resolve(t, src, op_dir)
                    if "${" in str(p):  # a variable CMake sets some other way: the list is not known here
                        unknown = True
                    elif _inside(p, op_dir / "op_host") and p.is_file():
                        own.append(_rel(p, op_dir))
                        targets.setdefault(own[-1], set()).add(toks[0])
            if fn == "add_ops_compile_options":
                for t in toks:
                    if t.startswith("-I") and len(t) > 2:
                        kernel_dirs.append(_resolve(t[2:], src, op_dir))
            elif toks[0] == "optiling" and fn in ("target_sources", "target_include_directories"):
                for t in toks[1:]:
                    if t in ("PRIVATE", "PUBLIC", "INTERFACE") or "${ASCEND" in t:
                        continue
                    p = _resolve(t, src, op_dir)
                    if _inside(p, op_dir) or not _inside(p, src.parent):
                        continue  # the operator's own files are in the bundle already
                    if fn == "target_sources" and p.is_file():
                        (library if t in globbed else sources).append(p)
                    elif fn == "target_include_directories" and p.is_dir():
                        host_dirs.append(p)
    globbed_library = set(library)
    library += _sibling_tiling_sources(op_dir, src)
    sources = _tiling_sources(sources)
    library = _tiling_sources([p for p in dict.fromkeys(library) if p not in sources])
    common_cm = src / SHARED_DIR / "CMakeLists.txt"
    defines = _interface_defines(_cmake_text(common_cm)) if common_cm.is_file() else []
    return OpRepo(src=src, host_include_dirs=tuple(dict.fromkeys(host_dirs)),
                  kernel_include_dirs=tuple(dict.fromkeys(d for d in kernel_dirs if d.is_dir())),
                  host_sources=tuple(dict.fromkeys(sources)), host_defines=tuple(defines),
                  host_own_sources=() if unknown else tuple(dict.fromkeys(own)),
                  host_library_sources=tuple(dict.fromkeys(library)),
                  host_own_groups=() if unknown else _library_groups(targets),
                  host_library_kept=tuple(p for p in dict.fromkeys(library) if p in globbed_library))


def _library_groups(targets: dict[str, set[str]]) -> tuple[tuple[str, ...], ...]:
    """Sources grouped into the libraries their CMake targets make (sources sharing a target are
    linked together), the group of ``optiling`` first; () when they all make one."""
    groups: list[tuple[set[str], list[str]]] = []
    for rel, tgts in targets.items():
        joined = [g for g in groups if g[0] & tgts]
        merged = (set(tgts).union(*(g[0] for g in joined)), [r for g in joined for r in g[1]] + [rel])
        groups = [g for g in groups if g not in joined] + [merged]
    if len(groups) < 2:
        return ()
    groups.sort(key=lambda g: "optiling" not in g[0])
    return tuple(tuple(sorted(g[1])) for g in groups)


def glob_variables(text: str, src: Path, op_dir: Path) -> dict[str, list[str]]:
    """The variables that ``file(GLOB ...)`` / ``file(GLOB_RECURSE ...)`` calls of a CMakeLists
    text (of `op_dir`) set: each to the sorted absolute paths of the files its patterns match.
    A relative pattern is relative to the CMakeLists directory; ``GLOB_RECURSE`` matches the
    file-name part of a pattern in the pattern's directory and every directory below it (CMake
    semantics); ``RELATIVE <dir>`` makes the results relative to that directory, and
    ``LIST_DIRECTORIES`` and the other options do not change which files are found."""
    out: dict[str, list[str]] = {}
    for kind, body in _CMAKE_FILE_GLOB.findall(text):
        toks = [t.strip('"') for t in body.split()]
        if not toks:
            continue
        var, rest, relative = toks[0], toks[1:], None
        found: list[Path] = []
        i = 0
        while i < len(rest):
            t = rest[i]
            if t == "RELATIVE" and i + 1 < len(rest):
                relative = _resolve(rest[i + 1], src, op_dir)
                i += 2
                continue
            if t == "LIST_DIRECTORIES":
                i += 2
                continue
            i += 1
            if t in _GLOB_OPTIONS:
                continue
            pattern = _resolve_pattern(t, src, op_dir)
            base, name = pattern.parent, pattern.name
            for d in (sorted(base.parent.glob(base.name)) if _is_glob(base.name) else [base]):
                if d.is_dir():
                    found += [f for f in (d.rglob(name) if kind == "GLOB_RECURSE" else d.glob(name)) if f.is_file()]
        files = sorted(dict.fromkeys(found))
        out[var] = [(os.path.relpath(f, relative) if relative else str(f)) for f in files]
    return out


def _is_glob(part: str) -> bool:
    return any(c in part for c in "*?[")


def _resolve_pattern(token: str, src: Path, op_dir: Path) -> Path:
    """A glob pattern as a path: `_resolve` without touching the (maybe wildcard) name."""
    t = (token.replace("${OP_COMMON_DIR}", str(src / SHARED_DIR)).replace("${CMAKE_SOURCE_DIR}", str(src.parent))
         .replace("${CMAKE_CURRENT_SOURCE_DIR}", str(op_dir)))
    p = Path(t) if Path(t).is_absolute() else op_dir / t
    return Path(os.path.normpath(p))


def _expand(toks: list[str], variables: Mapping[str, list[str]]) -> list[str]:
    """`toks` with each whole-token ``${VAR}`` of `variables` replaced by its list."""
    out: list[str] = []
    for t in toks:
        m = _VAR_REF.match(t.strip('"'))
        out += variables[m.group(1)] if m and m.group(1) in variables else [t]
    return out


def _sibling_tiling_sources(op_dir: Path, src: Path) -> list[Path]:
    """The tiling sources of the sibling operators whose ``op_host`` headers this operator's host
    sources include (``#include "../../mat_mul_v3/op_host/mat_mul_v3_base_tiling.h"``): every
    operator's ``target_sources(optiling ...)`` go into the one tiling library of the repository,
    so a class a sibling's header declares is defined by that sibling's sources."""
    siblings: dict[Path, None] = {}
    host = op_dir / "op_host"
    for f in sorted(host.rglob("*")) if host.is_dir() else []:
        if f.suffix not in (".h", ".hpp", ".cpp", ".cc") or not f.is_file():
            continue
        for kind, name in _includes_of(f):
            target = Path(os.path.normpath(f.parent / name))
            sib = target.parent.parent
            if (kind == '"' and target.parent.name == "op_host" and target.is_file() and sib != op_dir
                    and _inside(sib, src) and (sib / "CMakeLists.txt").is_file()):
                siblings[sib] = None
    out: list[Path] = []
    for sib in siblings:
        text = _cmake_text(sib / "CMakeLists.txt")
        globs = glob_variables(text, src, sib)
        for fn, body in _CMAKE_CALL.findall(text):
            toks = _expand(body.split(), globs)
            if fn != "target_sources" or not toks or toks[0] != "optiling":
                continue
            for t in toks[1:]:
                p = _resolve(t, src, sib)
                if p.suffix in (".cpp", ".cc") and p.is_file() and _inside(p, sib / "op_host"):
                    out.append(p)
    return out


def _tiling_sources(paths: list[Path]) -> list[Path]:
    """`paths` without the sources of the aclnn / level-0 graph layer (by the same test as the
    operator's own ``op_host/`` sources)."""
    named = {f"op_host/{i}/{p.name}": p.read_text(errors="replace") for i, p in enumerate(paths)}
    graph = graph_level_sources(named)
    return [p for i, p in enumerate(paths) if f"op_host/{i}/{p.name}" not in graph]


def _cmake_text(path: Path) -> str:
    return re.sub(r"#[^\n]*", "", path.read_text(errors="replace"))


def _resolve(token: str, src: Path, op_dir: Path) -> Path:
    """A CMake path token with the variables the cann-ops build uses substituted."""
    t = token.strip('"')
    t = (t.replace("${OP_COMMON_DIR}", str(src / SHARED_DIR)).replace("${CMAKE_SOURCE_DIR}", str(src.parent))
         .replace("${CMAKE_CURRENT_SOURCE_DIR}", str(op_dir)))
    p = Path(t)
    return (p if p.is_absolute() else op_dir / p).resolve()


def _inside(p: Path, d: Path) -> bool:
    try:
        p.relative_to(d)
        return True
    except ValueError:
        return False


def _rel(p: Path, root: Path) -> str:
    return p.relative_to(root).as_posix()


def _interface_defines(text: str) -> list[str]:
    """``NAME=VALUE`` definitions of the shared tiling-header target (the open-project
    branch of ``$<IF:...>`` generator expressions)."""
    out: list[str] = []
    for fn, body in _CMAKE_CALL.findall(text):
        toks = body.split(None, 2)
        if fn != "target_compile_definitions" or len(toks) < 3 or "tiling" not in toks[0]:
            continue
        for tok in re.findall(r'[A-Za-z_]\w*=(?:\$<IF:[^\s]*>|"[^"]*"|\S+)', toks[2]):
            name, value = tok.split("=", 1)
            value = _GENEX_IF.sub(r"\1", value)
            if "$<" not in value:
                out.append(f"{name}={value}")
    return out


#: Whether a kernel whose build files do not set ``--cce-auto-sync`` is compiled with it: yes. The
#: toolkit's operator compile appends ``--cce-auto-sync`` to the kernel's compile options unless
#: they already hold ``--cce-auto-sync=off`` or the operator's compile-option json says
#: ``"auto_sync": false`` (asc-devkit ``tools/build/asc_op_compile_base/adapter/compile_op.py``,
#: ``_add_op_compile_options_by_customized_json``; the same in ``asc_op_compiler/compile_op.py``),
#: so an operator built the standard way (cann-ops, msOpGen projects, ``ops/``) has it unless its
#: CMake says ``=off`` (the compiler then takes the last of the options). The json is not read.
AUTO_SYNC_DEFAULT = True
_OPTION_KEYWORDS = {"OP_NAME", "COMPUTE_UNIT", "OPTIONS"}  # add_ops_compile_options' keywords


def kernel_compile_options(op_dir: str | Path) -> list[str]:
    """The ``OPTIONS`` of every ``add_ops_compile_options(...)`` call in the operator's own
    ``CMakeLists.txt`` and ``op_kernel/CMakeLists.txt`` (the device compile options its build
    gives the kernel), in order."""
    out: list[str] = []
    for cm in (Path(op_dir) / "CMakeLists.txt", Path(op_dir) / "op_kernel" / "CMakeLists.txt"):
        if not cm.is_file():
            continue
        for fn, body in _CMAKE_CALL.findall(_cmake_text(cm)):
            if fn != "add_ops_compile_options":
                continue
            key = None
            for t in body.split():
                t = t.strip('"')
                if t in _OPTION_KEYWORDS:
                    key = t
                elif key == "OPTIONS":
                    out.append(t)
    return out


def cce_auto_sync(op_dir: str | Path) -> bool:
    """Whether the operator's kernel is compiled with the compiler's automatic synchronisation
    (``--cce-auto-sync`` / ``--cce-auto-sync=on``; the last such option wins, ``=off`` turns it
    off; :data:`AUTO_SYNC_DEFAULT` when none is given)."""
    on = AUTO_SYNC_DEFAULT
    for t in kernel_compile_options(op_dir):
        if t in ("--cce-auto-sync", "--cce-auto-sync=on"):
            on = True
        elif t == "--cce-auto-sync=off":
            on = False
    return on


# ------------------------------------------------------------------------- used external files
_INCLUDES_MEMO: dict[tuple[str, int, int], list[tuple[str, str]]] = {}


def _includes_of(path: Path) -> list[tuple[str, str]]:
    st = path.stat()
    key = (str(path), st.st_mtime_ns, st.st_size)
    if key not in _INCLUDES_MEMO:
        _INCLUDES_MEMO[key] = _INCLUDE.findall(path.read_text(errors="replace"))
    return _INCLUDES_MEMO[key]


def external_files(repo: OpRepo, files: Mapping[str, str], root: Path) -> list[Path]:
    """The files outside the operator that its build reads: the shared host sources and
    every repository file reachable (by ``#include``, conditionals ignored) from the
    operator's sources (`files`, relative to `root`) or from those. Files of the operator's
    own directory, and headers only the simulator provides, are not external."""
    root = Path(root).resolve()
    dirs = list(repo.host_include_dirs) + list(repo.kernel_include_dirs)
    found: dict[Path, None] = {}
    todo: list[tuple[Path, list[tuple[str, str]]]] = [(root / rel, _INCLUDE.findall(text))
                                                      for rel, text in files.items()]
    for s in (*repo.host_sources, *repo.host_library_sources):
        if s.is_file():
            found[s] = None
            todo.append((s, _includes_of(s)))
    while todo:
        path, incs = todo.pop()
        for kind, name in incs:
            local = Path(os.path.normpath(path.parent / name)) if kind == '"' else None
            if local is not None and _inside(local, root) and (local.is_file() or _rel(local, root) in files):
                continue  # the operator's own file (in the bundle, possibly edited)
            hit = next((c for c in ([local] if local else []) + [d / name for d in dirs] if c.is_file()), None)
            if hit is None:
                continue
            hit = hit.resolve()
            if hit not in found and _inside(hit, repo.src.parent) and not _inside(hit, root):
                found[hit] = None
                todo.append((hit, _includes_of(hit)))
    return sorted(found)


def fingerprint(repo: OpRepo, files: Mapping[str, str], root: Path) -> str:
    """Hash of the conventions and the contents of :func:`external_files` ('' when the
    operator uses no external file: its identity is then its own sources alone)."""
    ext = external_files(repo, files, root)
    if not ext:
        return ""
    h = hashlib.sha256(repo.describe().encode() + b"\0")
    for p in ext:
        h.update(str(p.relative_to(repo.src.parent)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()
