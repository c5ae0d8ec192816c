"""msopst test cases: parsing and expansion, input generation, golden functions, comparison.

An operator's ``tests/st/*.json`` files are msopst case files: a JSON list of cases, each with
``case_name``, ``op``, ``input_desc`` / ``output_desc`` (``name``, ``type``, ``format``,
``shape``, ``data_distribute``, ``value_range``), ``attr`` (``[{name, type, value}]``) and
``calc_expect_func_file`` (``"test_x.py:calc_expect_func"``, relative to the JSON file).
Any of ``type`` / ``format`` / ``shape`` / ``data_distribute`` / ``value_range`` may list
several entries; entry *i* of every multi-entry list forms concrete case *i* and single-entry
lists broadcast. Expanded names get a dtype suffix (``Test_Muls_001_float16``) when the first
tensor's dtype tells the variants apart, an index suffix (``_0``, ``_1``) otherwise.

A dynamic (list) parameter (OpDef ``ParamType(DYNAMIC)``) is given either as one entry per
tensor carrying ``"dynamic_input": "x"`` (``"dynamic_output"`` in ``output_desc``), the form of
the single-operator description files, or as one entry with ``"dynamic": true`` whose
``shape`` lists one shape per tensor (``[[16, 32], [7], [100]]``; a list of such lists gives
variants). Each tensor becomes a :class:`TensorSpec` with the list's name and its ``index``;
inputs and outputs are keyed ``x[0]``, ``x[1]`` ... (:attr:`TensorSpec.key`) and golden
functions receive (and return) a list per list parameter.
"""


from ascendopt.cases.compare import TOLERANCES, Comparison, Tolerance, compare
from ascendopt.cases.data import make_inputs
from ascendopt.cases.spec import DISTRIBUTIONS
from ascendopt.cases.golden import load_golden, run_golden
from ascendopt.cases.spec import (Case, TensorSpec, group_params, load_case_file, load_op_cases,
                                  normalize_attr_type, parse_attrs)
from ascendopt.dtypes import CaseError

__all__ = [
    "Case",
    "CaseError",
    "Comparison",
    "TensorSpec",
    "Tolerance",
    "TOLERANCES",
    "DISTRIBUTIONS",
    "compare",
    "group_params",
    "normalize_attr_type",
    "parse_attrs",
    "load_case_file",
    "load_golden",
    "load_op_cases",
    "make_inputs",
    "run_golden",
]


