"""Finds the op types an operator's op_host sources register when no literal ``OP_ADD(`` is
in them: the registration is made by a macro (cann-ops' ``FOREACH_OPDEF(...)``), so the
sources are run through the C preprocessor with the simulator's host headers and the
repository's include directories (the same search path as the host build), and the
expanded ``OP_ADD`` — our :file:`register/op_def.h` turns it into an ``AoOpDefRegistrar``
named after the op type — is read from the output. The expanded OpDef constructors also give
the parameters in declaration order (:func:`opdef_params`, the order of the generated aclnn
API's arguments) and the data types of each (:func:`opdef_dtypes`) where they are written as a
list, or as a variable initialised with one (what the cann-ops foreach macros expand to); both
are read by :mod:`ascendopt.opdef_params`, as the npu harness reads a literal OpDef.

Results are cached in memory and on disk under a hash of the host sources, the external
files they use and the emulation headers.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path

from ascendopt.opdef_params import Param, parse_params
from ascendopt.backends.sim.toolchain import INCLUDE_DIR, _Job, _tree_hash, default_cache_dir
from ascendopt.host_sources import graph_level_sources
from ascendopt.operator import Operator

SCAN_TIMEOUT_S = 60.0
_REGISTRAR = re.compile(r'\bAoOpDefRegistrar\s+\w+\s*(?:__attribute__\s*\(\([^)]*\)\)\s*)?\(\s*"(\w+)"')
_LINE_MARK = re.compile(r'^# \d+ "([^"]*)"', re.M)
_memo: dict[str, dict] = {}


def registered_op_types(op: Operator, cxx: str = "g++") -> list[str]:
    """Op types registered by `op`'s op_host sources after preprocessing, in source order
    (empty when none, or when no source preprocesses)."""
    return list(_scan_cached(op, cxx)["types"])


def opdef_dtypes(op: Operator, cxx: str = "g++") -> dict[str, list[str]]:
    """Parameter name -> ge data type names (``DT_FLOAT16``, ...) of the OpDefs in `op`'s
    preprocessed op_host sources, for parameters whose ``DataType(...)`` is a literal list
    or a variable initialised with one (others are left out)."""
    return {k: list(v) for k, v in _scan_cached(op, cxx)["dtypes"].items()}


def opdef_params(op: Operator, cxx: str = "g++") -> list[Param]:
    """The parameters of the first preprocessed op_host source that declares any (source
    order), in declaration order; empty when none does."""
    return [Param(r, n, k, tuple(d)) for r, n, k, d in _scan_cached(op, cxx)["params"]]


def _scan_cached(op: Operator, cxx: str) -> dict:
    from ascendopt.backends.sim.build import SimBuilder

    host = {k: op.files[k] for k in op.host_files()}
    graph = graph_level_sources(host)
    sources = [k for k in sorted(host) if k.endswith((".cpp", ".cc", ".cxx")) and k not in graph]
    key = hashlib.sha256("\0".join([cxx, op.external_fingerprint, _tree_hash(INCLUDE_DIR),
                                    *(k + "\0" + host[k] for k in sorted(host))]).encode()).hexdigest()[:24]
    if key in _memo:
        return _memo[key]
    cache = default_cache_dir() / "opdef_scan" / f"{key}.json"
    try:
        found = json.loads(cache.read_text())
        assert isinstance(found, dict) and {"types", "dtypes", "params"} <= set(found)
    except (OSError, ValueError, AssertionError):
        found = _scan(op, host, sources, SimBuilder(cxx=cxx, timeout_s=SCAN_TIMEOUT_S), INCLUDE_DIR)
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_name(f".{key}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(found))
        os.replace(tmp, cache)
    _memo[key] = found
    return found


def _scan(op: Operator, host: dict[str, str], sources: list[str], builder, include_dir: Path) -> dict:
    """Preprocesses each source (sandboxed and bounded like every compile) and collects the
    expanded registrations; a source that does not preprocess contributes what it printed."""
    repo = op.repo
    names: list[str] = []
    dtypes: dict[str, list[str]] = {}
    params: list[list] = []
    with tempfile.TemporaryDirectory(prefix="aoscan-") as d:
        tmp = Path(d)
        for rel, text in host.items():
            p = tmp / "src" / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        (tmp / "out").mkdir()
        for i, rel in enumerate(sources):
            src = tmp / "src" / rel
            out = tmp / "out" / f"{i}.ii"
            cmd = [builder.cxx, "-std=c++17", "-E", "-w", "-I", str(src.parent)]
            if repo is not None:
                for inc in repo.host_include_dirs:
                    cmd += ["-I", str(inc)]
                cmd += [f"-D{x}" for x in repo.host_defines]
            cmd += ["-I", str(include_dir), str(src), "-o", str(out)]
            builder._run_jobs([_Job(cmd, out)])
            if out.exists():
                text = out.read_text(errors="replace")
                names += [n for n in _REGISTRAR.findall(text) if n not in names]
                found = parse_params(_own_lines(text, src))
                for p in found:
                    if p.role != "attr" and p.dtypes:
                        dtypes.setdefault(p.name, list(p.dtypes))
                if not params:
                    params = [[p.role, p.name, p.kind, list(p.dtypes)] for p in found]
    return {"types": names, "dtypes": dtypes, "params": params}


def _own_lines(text: str, src: Path) -> str:
    """The parts of preprocessor output that come from `src` itself (macro expansions land
    there), by the output's line markers."""
    parts, own, pos = [], True, 0
    for m in _LINE_MARK.finditer(text):
        if own:
            parts.append(text[pos:m.start()])
        own, pos = Path(m.group(1)) == src, m.end()
    if own:
        parts.append(text[pos:])
    return "".join(parts)
