"""``ascendopt compat``: how many operators of a collection (a cann-ops checkout, a category
of it, a suite) build and pass on the simulator, and why the others do not.

- :mod:`~ascendopt.compat.targets`: the operators under a directory or of a suite, with the
  goldens (``--goldens FILE.py``) and case files they are checked with;
- :mod:`~ascendopt.compat.check`: one operator checked in a child process, as a row;
- :mod:`~ascendopt.compat.causes`: compiler output and failed runs turned into causes
  ("AscendC API `Xyz` is not emulated by the simulator", ``ub_overflow``, ...);
- :mod:`~ascendopt.compat.runner`: every operator in its own child process, killed with its
  process group at the timeout, several at a time;
- :mod:`~ascendopt.compat.report`: rows, totals by category and cause, the JSON document.
"""

from ascendopt.compat.causes import Cause, classify_compile_error
from ascendopt.compat.report import FORMAT_VERSION, Row, category_totals, cause_totals, document
from ascendopt.compat.runner import CompatConfig, CompatRun, run_targets
from ascendopt.compat.targets import Target, TargetError, dir_targets, select, suite_targets, with_goldens

__all__ = ["Cause", "CompatConfig", "CompatRun", "FORMAT_VERSION", "Row", "Target", "TargetError",
           "category_totals", "cause_totals", "classify_compile_error", "dir_targets", "document", "run_targets",
           "select", "suite_targets", "with_goldens"]
