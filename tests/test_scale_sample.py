"""The scale run's operator sample (benchmarks/scale_run.py): seeded, stratified, committed."""

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _script():
    spec = importlib.util.spec_from_file_location("scale_run", ROOT / "benchmarks" / "scale_run.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_stratified_keeps_every_category_and_the_count():
    mod = _script()
    ops = [f"big/op{i}" for i in range(50)] + [f"mid/op{i}" for i in range(9)] + ["tiny/only"]
    chosen = mod.stratified(ops, 20, seed=1)
    assert len(chosen) == 20 == len(set(chosen))
    cats = {op.split("/")[0] for op in chosen}
    assert cats == {"big", "mid", "tiny"}
    assert sum(op.startswith("big/") for op in chosen) > sum(op.startswith("mid/") for op in chosen)
    assert mod.stratified(ops, 20, seed=1) == chosen
    assert mod.stratified(ops, 20, seed=2) != chosen


def test_committed_sample_is_the_seeded_draw_without_held_out_operators():
    mod = _script()
    committed = json.loads(mod.SAMPLE.read_text())
    held = set(json.loads(mod.SPLIT.read_text())["held_out"])
    pool = [op for op in mod.passing_ops() if op not in held]
    assert committed["ops"] == mod.stratified(pool, committed["n"], committed["seed"])
    assert committed["n"] >= 100 and not held & set(committed["ops"])
    assert {op.split("/")[0] for op in committed["ops"]} == {op.split("/")[0] for op in pool}
