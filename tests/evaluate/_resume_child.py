"""Child process of test_resume: evaluates candidates into a record store until killed."""

import sys
from pathlib import Path

from ascendopt.backends.sim.backend import SimBackend
from ascendopt.backends.sim.build import SimBuilder
from ascendopt.cases import load_op_cases
from ascendopt.evaluate.budget import BudgetedEvaluator
from ascendopt.evaluate.evaluator import EvalConfig, Evaluator
from ascendopt.evaluate.store import SQLiteStore
from ascendopt.operator import Operator

db, cache, op_dir, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
base = Operator.load(op_dir)
cases = load_op_cases(op_dir)
ops = [base.with_file("op_kernel/scale_copy.cpp", base.files["op_kernel/scale_copy.cpp"] + f"\n// resume {i}\n",
                      origin=f"test/resume{i}") for i in range(n)]
session = BudgetedEvaluator(Evaluator(SimBackend(builder=SimBuilder(cache_dir=Path(cache))), EvalConfig(seed=7, run_timeout_s=20.0, jobs=1)),
                            SQLiteStore(db), budget=n, run_label="scale_copy")
print(session.run_id, flush=True)
for op in ops:
    session.evaluate(op, cases)
    print("done", op.digest, flush=True)
