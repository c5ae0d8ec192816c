from pathlib import Path

from ascendopt.evaluate.evaluator import EvalConfig, Evaluator
from ascendopt.profile import Profile
from ascendopt.profile.diagnosis import diagnose_evaluation


def test_full_profiles_are_kept_addressable_and_do_not_change_the_key(backend, base, cases, tmp_path):
    keep = Evaluator(backend, EvalConfig(seed=7, jobs=2, profile_dir=str(tmp_path)))
    plain = Evaluator(backend, EvalConfig(seed=7, jobs=2))
    assert keep.config_key(cases) == plain.config_key(cases)
    ev = keep.evaluate(base, cases)
    (summary,) = ev.profile.values()
    where = Path(summary["profile_dir"])
    assert where.is_relative_to(tmp_path) and (where / "PipeUtilization.csv").exists()
    assert Profile.load(where).summary().task_duration_us > 0
    assert diagnose_evaluation(ev, 48).top_instructions  # read back from the full profile
    assert "profile_dir" not in next(iter(plain.evaluate(base, cases).profile.values()))
