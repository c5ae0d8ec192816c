"""Timing snapshot: every case of every operator under ops/, every fixture under tests/fixtures/ops
and four timing_lab variants (two racy), each run recording status, modelled duration, profile,
warnings, a hash of the trace CSV and of the outputs. Used to check that a change to the
simulator's plumbing (e.g. the timer process of issue 18) leaves timing bit-identical.

    PYTHONPATH=<tree>/src python benchmarks/timing_snapshot.py <tree> before.jsonl [NAME-FILTER]
    python benchmarks/timing_snapshot.py --diff before.jsonl after.jsonl
    python benchmarks/timing_snapshot.py --durations before.jsonl after.jsonl
    PYTHONPATH=<tree>/src python benchmarks/timing_snapshot.py --roofline after.jsonl [-v]

``--roofline`` prints every ok run's roofline share (the profile summary's achieved fraction,
at most 1 under the model: docs/timing-model.md "Roofline and bound"), limiter and bound, and
counts the runs above 1 (``-v``: every run, else only those). ``--durations`` compares only what
a timing-model change may change: each run's duration (the ones that changed, with the cores the
bandwidth was shared by, ``hbm_share_cores``, against the launched blocks) and whether outputs,
status and warnings stayed the same.
"""
import hashlib
import json
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def main(tree: Path, out: Path, only: str = "") -> None:
    from ascendopt.cases import load_op_cases, make_inputs
    from ascendopt.evaluate.check import case_dtypes
    from ascendopt.operator import Operator
    try:  # the simulator as the commands compose it (default SoC, sandboxed)
        from ascendopt.session import script_session

        be = script_session().backend
    except ImportError:  # a tree from before the composition root (snapshots compare trees)
        from ascendopt.backends.sim.backend import SimBackend

        be = SimBackend()
    dirs = sorted(p.parent for p in (tree / "ops").glob("*/*/op_kernel"))
    fx = tree / "tests" / "fixtures" / "ops"
    targets = [(d.parent.name + "/" + d.name, Operator.load(d), load_op_cases(d)) for d in dirs]
    for d in sorted(p.parent for p in fx.glob("*/op_kernel")):
        try:
            targets.append((d.name, Operator.load(d), load_op_cases(d)))
        except Exception as e:  # noqa: BLE001
            print("skip", d.name, e)
    lab = Operator.load(fx / "timing_lab")
    k = "op_kernel/timing_lab.cpp"
    for tag, macros in (("race_skip_wait", dict(MODE=1, SKIP_WAIT=1)), ("race_peek", dict(MODE=1, PEEK=1, VS_FLAG=0)),
                        ("mode1", dict(MODE=1)), ("bursts", dict(MODE=1, BURSTS=4, GM_OFFSET=64))):
        text = lab.files[k]
        for m, v in macros.items():
            text = re.sub(rf"#define {m} .*", f"#define {m} {v}", text, count=1)
        targets.append((f"timing_lab[{tag}]", lab.with_file(k, text, origin="snap"), load_op_cases(fx / "timing_lab")))
    rows = []
    t0 = time.time()
    for name, op, cases in targets:
        if only and only not in name:
            continue
        for case in cases:
            build = be.build(op, case_dtypes(case))
            if not build.ok:
                rows.append({"op": name, "case": case.name, "build": build.error[:200]})
                continue
            with tempfile.TemporaryDirectory() as d:
                tp = Path(d) / "t.csv"
                rr = be.run(build, op, case, make_inputs(case, 0), trace_path=tp)
                trace = hashlib.sha256(tp.read_bytes()).hexdigest() if tp.exists() else None
            prof = {k: v for k, v in rr.profile.items() if k != "trace_path"}
            outs = {k: hashlib.sha256(np.ascontiguousarray(v).tobytes()).hexdigest() for k, v in (rr.outputs or {}).items()}
            rows.append({"op": name, "case": case.name, "status": rr.status.value, "kind": rr.error_kind,
                         "message": rr.message, "duration": rr.task_duration_us, "profile": prof,
                         "warnings": rr.warnings, "trace": trace, "outputs": outs, "block_dim": rr.block_dim})
            print(name, case.name, rr.status.value, rr.task_duration_us, flush=True)
    out.write_text("\n".join(json.dumps(r, sort_keys=True) for r in rows) + "\n")
    print(f"{len(rows)} runs in {time.time() - t0:.0f} s")


def diff(a: Path, b: Path) -> None:
    ra = [json.loads(x) for x in a.read_text().splitlines()]
    rb = [json.loads(x) for x in b.read_text().splitlines()]
    assert len(ra) == len(rb), (len(ra), len(rb))
    bad = 0
    for x, y in zip(ra, rb):
        if x != y:
            bad += 1
            keys = sorted(k for k in set(x) | set(y) if x.get(k) != y.get(k))
            print("DIFF", x["op"], x["case"], keys)
    print(f"{len(ra)} runs compared, {bad} differ")


def durations(a: Path, b: Path) -> None:
    ra = [json.loads(x) for x in a.read_text().splitlines()]
    rb = [json.loads(x) for x in b.read_text().splitlines()]
    assert [(x["op"], x["case"]) for x in ra] == [(y["op"], y["case"]) for y in rb]
    ratios, other = [], 0
    for x, y in zip(ra, rb):
        if any(x.get(k) != y.get(k) for k in ("status", "outputs", "warnings")):
            other += 1
            print("OTHER", x["op"], x["case"], x.get("status"), y.get("status"))
        if x.get("status") != "ok" or y.get("status") != "ok":
            continue
        r = y["duration"] / x["duration"]
        if abs(r - 1) > 1e-9:
            ratios.append(r)
            print(f"{x['op']:28} {x['case']:44} blocks {y['block_dim']:3} shared by "
                  f"{y['profile'].get('hbm_share_cores')}: {x['duration']:.3f} -> {y['duration']:.3f} us ({r:.3f}x)")
    ratios.sort()
    spread = f", after/before {ratios[0]:.3f}..{ratios[-1]:.3f} (median {ratios[len(ratios) // 2]:.3f})" if ratios else ""
    print(f"{len(ra)} runs compared, {len(ratios)} durations changed{spread}; "
          f"{other} with other differences (status, outputs, warnings)")


def roofline(path: Path, verbose: bool) -> None:
    from types import SimpleNamespace

    from ascendopt.profile import Profile

    rows = [json.loads(x) for x in path.read_text().splitlines()]
    above = 0
    for r in rows:
        if r.get("status") != "ok":
            continue
        run = SimpleNamespace(profile=r["profile"], task_duration_us=r["duration"], block_dim=r["block_dim"])
        s = Profile.from_run(run, r["op"], None, soc="Ascend910B2").summary()
        bad = s.achieved_fraction is not None and s.achieved_fraction > 1 + 1e-9
        above += bad
        if bad or verbose:
            print(f"{'ABOVE' if bad else '':5} {r['op']:28} {r['case']:40} {s.task_duration_us:10.3f} us  "
                  f"roofline {s.roofline_us:9.3f} us {s.roofline_limiter:7} share {s.achieved_fraction:.3f}  "
                  f"bound {s.bound} {s.bound_ratio:.2f}")
    print(f"{len(rows)} runs, {above} with a roofline share above 1")


if __name__ == "__main__":
    if sys.argv[1] == "--diff":
        diff(Path(sys.argv[2]), Path(sys.argv[3]))
    elif sys.argv[1] == "--durations":
        durations(Path(sys.argv[2]), Path(sys.argv[3]))
    elif sys.argv[1] == "--roofline":
        roofline(Path(sys.argv[2]), "-v" in sys.argv[3:])
    else:
        main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else "")
