"""Built-in de-optimization motifs: one module per motif, each registered by name.

Importing this package imports every module in it (so adding a motif is adding a file);
:func:`ascendopt.rewind.motifs.base.registry` lists them.
"""

import importlib
import pkgutil

from ascendopt.rewind.motifs.base import Edit, Motif, MotifError, Site, apply_edits, get, registry

for _m in pkgutil.iter_modules(__path__):
    if _m.name != "base" and not _m.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_m.name}")

__all__ = ["Edit", "Motif", "MotifError", "Site", "apply_edits", "get", "registry"]
