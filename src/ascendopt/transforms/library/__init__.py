"""The built-in optimizations: one module each, holding the optimization and its motif and/or
rewrite. Importing this package imports every module in it (adding an optimization is adding
a file); modules starting with ``_`` are shared helpers."""

import importlib
import pkgutil


for _m in pkgutil.iter_modules(__path__):
    if not _m.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_m.name}")
