"""What op_host sources are, read without a compiler: comments stripped, and which of them
belong to the aclnn / level-0 graph layer rather than to tiling. Shared by the operator
(:mod:`ascendopt.operator`), the repository conventions (:mod:`ascendopt.oprepo`) and the
OpDef scan."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

# Headers of the graph/aclnn layer (level-0 graph builders, aclnn two-phase API). op_host/
# sources that include them, directly or through an op_host header, are not tiling code.
_GRAPH_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](?:opdev|aclnn|aclnn_kernels|aclnnop|level0)/', re.M)
_LOCAL_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def graph_level_sources(files: Mapping[str, str]) -> set[str]:
    """The op_host/ paths of `files` that belong to the aclnn / level-0 graph layer, not to
    tiling: named ``aclnn_*`` or ``*_l0.*``, or including (directly or through an op_host
    header) an ``opdev/``, ``aclnn/``, ``aclnn_kernels/``, ``aclnnop/`` or ``level0/`` header.
    They need the CANN graph runtime, so a simulator build leaves them out."""
    host = {k: v for k, v in files.items() if k.startswith("op_host/")}
    by_name: dict[str, list[str]] = {}
    for k in host:
        by_name.setdefault(Path(k).name, []).append(k)
    memo: dict[str, bool] = {}

    def graph(rel: str) -> bool:
        if rel in memo:
            return memo[rel]
        memo[rel] = False  # include cycles
        name = Path(rel).name
        text = strip_comments(host[rel])
        hit = name.startswith("aclnn_") or Path(rel).stem.endswith("_l0") or bool(_GRAPH_INCLUDE.search(text))
        if not hit:
            hit = any(graph(dep) for inc in _LOCAL_INCLUDE.findall(text) for dep in by_name.get(Path(inc).name, ()))
        memo[rel] = hit
        return hit

    return {k for k in host if graph(k)}


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", lambda m: " " * len(m.group(0)), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)
