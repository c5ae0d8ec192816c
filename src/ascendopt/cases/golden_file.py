"""Importing golden (expected-output) files: ``file.py:function`` specs, each file under a fresh
module name. Running a golden on a case is :mod:`ascendopt.cases.golden`."""

from __future__ import annotations

import importlib.util
import inspect
import itertools
import sys
import traceback
from pathlib import Path
from typing import Any, Callable

from ascendopt.dtypes import CaseError

_golden_counter = itertools.count()


def load_golden(spec: str) -> Callable[..., Any]:
    """Import a golden (expected-output) function from ``"path/to/file.py:func"``.

    The file is imported under a fresh module name, with its directory on ``sys.path``
    only while it is being imported, so goldens of different operators never collide.

    Args:
        spec: File path and function name separated by ``:``.

    Returns:
        The callable.

    Raises:
        CaseError: If the file is missing, fails to import (e.g. ``import tensorflow``
            without TensorFlow installed), or lacks the function.
    """
    path_str, sep, func_name = spec.rpartition(":")
    if not sep or not path_str or not func_name:
        raise CaseError(f"golden spec must be 'file.py:function', got {spec!r}")
    module, path = _import_golden_file(path_str)
    func = getattr(module, func_name, None)
    if not callable(func):
        raise CaseError(f"golden file {path} has no function {func_name!r}")
    return func


def golden_functions(path: str | Path) -> dict[str, Callable[..., Any]]:
    """The golden functions a file defines: its public functions (names not starting with
    ``_``; imported ones excluded), by name.

    Raises:
        CaseError: As :func:`load_golden` when the file is missing or fails to import.
    """
    module, _ = _import_golden_file(str(path))
    return {name: f for name, f in vars(module).items()
            if inspect.isfunction(f) and not name.startswith("_") and f.__module__ == module.__name__}


def _import_golden_file(path_str: str) -> tuple[Any, Path]:
    """Imports a golden file under a fresh module name (see :func:`load_golden`)."""
    path = Path(path_str).resolve()
    if not path.is_file():
        raise CaseError(f"golden file not found: {path}")
    module_name = f"_ascendopt_golden_{path.stem}_{next(_golden_counter)}"
    module_spec = importlib.util.spec_from_file_location(module_name, path)
    if module_spec is None or module_spec.loader is None:
        raise CaseError(f"cannot import golden file {path}")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[module_name] = module
    sys.path.insert(0, str(path.parent))
    try:
        module_spec.loader.exec_module(module)
    except BaseException as err:  # noqa: BLE001 - any failure of user code is reported
        sys.modules.pop(module_name, None)
        if isinstance(err, KeyboardInterrupt):
            raise
        reason = traceback.format_exception_only(type(err), err)[-1].strip()
        raise CaseError(f"cannot import golden file {path}: {reason}") from None
    finally:
        try:
            sys.path.remove(str(path.parent))
        except ValueError:
            pass
    return module, path
