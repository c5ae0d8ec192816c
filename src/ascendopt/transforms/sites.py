"""One per-digest site cache, shared by retrieval (does an experience's rewrite apply to this
kernel?) and the Stage I proposer (where does it apply?).

A transform's sites depend only on the operator's sources, so they are keyed by the
transform's class and name and the operator's digest. Only transforms without constructor
parameters are cached (a motif built for one SoC may find other sites for another). A matcher
that raises is remembered as raising (the callers treat it as finding nothing).
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from ascendopt.cxx.parse import of_type, parse
from ascendopt.operator import Operator
from ascendopt.transforms.base import Site, Transform

CACHE_SIZE = 4096
_cache: OrderedDict[tuple, tuple[Site, ...] | Exception] = OrderedDict()
_lock = threading.Lock()
_stats = {"hits": 0, "misses": 0}


def _cacheable(t: Transform) -> bool:
    return type(t).__init__ is object.__init__


def sites_of(t: Transform, op: Operator) -> list[Site]:
    """``t.find(op)``, computed once per (transform, operator digest).

    Raises:
        Exception: Whatever the matcher raised (again, from the cache).
    """
    if not _cacheable(t):
        return t.find(op)
    key = (type(t), t.name, op.digest)
    with _lock:
        got = _cache.get(key)
        if got is not None:
            _cache.move_to_end(key)
            _stats["hits"] += 1
    if got is None:
        try:
            got = tuple(t.find(op))
        except Exception as e:  # noqa: BLE001 - remembered and re-raised
            got = e
        with _lock:
            _stats["misses"] += 1
            _cache[key] = got
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
    if isinstance(got, Exception):
        raise got
    return list(got)


def anchored(t: Transform, op: Operator) -> bool:
    """Whether ``op``'s kernel sources hold a node of one of the types ``t`` anchors on (always
    True for a transform that declares none); answered from the per-file node index
    (:func:`ascendopt.cxx.parse.of_type`), one walk per file content for all transforms."""
    if not t.anchors:
        return True
    for rel in op.kernel_files():
        p = parse(rel, op.files[rel])
        if any(of_type(p, a) for a in t.anchors):
            return True
    return False


def cache_info() -> dict[str, int]:
    with _lock:
        return {**_stats, "size": len(_cache)}


def clear_cache() -> None:
    with _lock:
        _cache.clear()
        _stats.update(hits=0, misses=0)
