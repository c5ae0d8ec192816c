"""Stage I's offline rewrites: optimizing source transforms, one module each, registered by
name in :data:`REWRITES` (the optimizing direction of the bank's families).

They share the motif interface (:class:`ascendopt.rewind.motifs.base.Motif`, with
``direction = "optimize"``): a matcher that finds its sites in an unseen kernel and names
them, and a rewriter that edits byte spans of the original text.
"""

import importlib
import pkgutil

from ascendopt.rewind.motifs.base import Registry

REWRITES = Registry("ascendopt.refine.transforms", "rewrite")

for _m in pkgutil.iter_modules(__path__):
    if not _m.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_m.name}")

__all__ = ["REWRITES"]
