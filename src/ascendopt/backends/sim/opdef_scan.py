"""Finds the op types an operator's op_host sources register when no literal ``OP_ADD(`` is
in them: the registration is made by a macro (cann-ops' ``FOREACH_OPDEF(...)``), so the
sources are run through the C preprocessor with the simulator's host headers and the
repository's include directories (the same search path as the host build), and the
expanded ``OP_ADD`` — our :file:`register/op_def.h` turns it into an ``AoOpDefRegistrar``
named after the op type — is read from the output.

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

from ascendopt.operator import Operator, graph_level_sources

SCAN_TIMEOUT_S = 60.0
_REGISTRAR = re.compile(r'\bAoOpDefRegistrar\s+\w+\s*(?:__attribute__\s*\(\([^)]*\)\)\s*)?\(\s*"(\w+)"')
_memo: dict[str, list[str]] = {}


def registered_op_types(op: Operator, cxx: str = "g++") -> list[str]:
    """Op types registered by `op`'s op_host sources after preprocessing, in source order
    (empty when none, or when no source preprocesses)."""
    from ascendopt.backends.sim.build import INCLUDE_DIR, SimBuilder, _tree_hash, default_cache_dir

    host = {k: op.files[k] for k in op.host_files()}
    graph = graph_level_sources(host)
    sources = [k for k in sorted(host) if k.endswith((".cpp", ".cc", ".cxx")) and k not in graph]
    key = hashlib.sha256("\0".join([cxx, op.external_fingerprint, _tree_hash(INCLUDE_DIR),
                                    *(k + "\0" + host[k] for k in sorted(host))]).encode()).hexdigest()[:24]
    if key in _memo:
        return list(_memo[key])
    cache = default_cache_dir() / "opdef_scan" / f"{key}.json"
    try:
        names = json.loads(cache.read_text())
    except (OSError, ValueError):
        names = _scan(op, host, sources, SimBuilder(cxx=cxx, timeout_s=SCAN_TIMEOUT_S), INCLUDE_DIR)
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_name(f".{key}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(names))
        os.replace(tmp, cache)
    _memo[key] = list(names)
    return list(names)


def _scan(op: Operator, host: dict[str, str], sources: list[str], builder, include_dir: Path) -> list[str]:
    """Preprocesses each source (sandboxed and bounded like every compile) and collects the
    expanded registrations; a source that does not preprocess contributes what it printed."""
    from ascendopt.backends.sim.build import _Job

    repo = op.repo
    names: list[str] = []
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
                names += [n for n in _REGISTRAR.findall(out.read_text(errors="replace")) if n not in names]
    return names
