"""Headroom of the cann-ops suite against the simulator's roofline: each operator's benchmark case
(the first of the suite's ``benchmark`` names), run and checked once, with its modelled time, the
roofline lower bound, the share (roofline / time), the limiter and the bound the profile names,
and the warning kinds. Resumable: rows are appended to a JSONL file and skipped when present.

    python benchmarks/cannops_headroom.py --src /work/cannops/src --out rows.jsonl [--only a,b]
        [--compat benchmarks/results/cannops_compat_suite.json] [--workers 2] [--timeout 600]
    python benchmarks/cannops_headroom.py --table rows.jsonl            # summary and table
    python benchmarks/cannops_headroom.py --diff before.jsonl after.jsonl  # what changed, and by how much

Only operators whose compat status is ``pass`` run (``--compat``; all of the suite without it).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path


def profile_one(op_dir: str, src: str, timeout_s: float) -> dict:
    """One operator's benchmark case: status, time, roofline and bound (never raises)."""
    from ascendopt.evaluate.check import CheckConfig, case_dtypes, check_case
    from ascendopt.operator import Operator
    from ascendopt.session import script_session
    from ascendopt.suites import load_suite

    row: dict = {"op": op_dir}
    try:
        [sop] = [o for o in load_suite("cannops", src).ops if str(o.dir).endswith("/" + op_dir)]
        names = list(sop.benchmark[:1]) or None
        cases = sop.load_cases(names)
        case = cases[0] if names else max(cases, key=lambda c: sum(math.prod(i.shape) for i in c.inputs))
        row["case"] = case.name
        backend = script_session(soc=sop.soc).backend
        op = Operator.load(sop.dir)
        runs: list = []
        build = backend.build(op, case_dtypes(case))
        result = check_case(backend, op, case, build, 0, CheckConfig(timeout_s=timeout_s, measure=True),
                            run_result_hook=runs.append)
        row["status"] = result.status
        row["warnings"] = sorted({w.get("kind", "") for w in result.warnings or ()})
        rr = runs[0] if runs else None
        if rr is None or rr.status.value != "ok":
            row["message"] = (result.message or "")[:300]
            return row
        summ = backend.load_profile(rr, op.kernel_entry, op.op_type).summary(backend.soc)
        row.update({"duration_us": summ.task_duration_us, "kernel_us": summ.kernel_time_us,
                    "block_dim": summ.block_dim, "roofline_us": summ.roofline_us,
                    "limiter": summ.roofline_limiter, "share": summ.achieved_fraction, "bound": summ.bound,
                    "bound_ratio": summ.bound_ratio, "pipes": summ.pipe_ratio_slowest,
                    "share_cores": rr.profile.get("hbm_share_cores")})  # cores sharing HBM (None: older timer)
    except Exception as e:  # noqa: BLE001 - one operator's failure is a row, not the end of the run
        row["status"] = "error"
        row["message"] = f"{type(e).__name__}: {e}"[:300]
    return row


def _read(path: Path) -> dict[str, dict]:
    rows = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                rows[r["op"]] = r
    return rows


def run(args) -> None:
    from ascendopt.suites import load_suite

    suite = load_suite("cannops", args.src)
    ops = [str(o.dir.relative_to(Path(args.src).resolve())) for o in suite.ops]
    if args.compat:
        passing = {o["dir"].split("/src/", 1)[-1] for o in json.loads(Path(args.compat).read_text())["ops"]
                   if o["status"] == "pass"}
        ops = [o for o in ops if o in passing]
    if args.only:
        want = set(args.only.split(","))
        ops = [o for o in ops if o in want or o.split("/")[-1] in want]
    out = Path(args.out)
    done = _read(out)
    todo = [o for o in ops if o not in done]
    print(f"{len(ops)} operators, {len(ops) - len(todo)} done, {len(todo)} to run", file=sys.stderr)
    with ProcessPoolExecutor(max_workers=args.workers) as pool, out.open("a") as f:
        futs = {pool.submit(profile_one, o, args.src, args.timeout): o for o in todo}
        for k, fut in enumerate(as_completed(futs), 1):
            row = fut.result()
            f.write(json.dumps(row) + "\n")
            f.flush()
            share = row.get("share")
            print(f"[{k}/{len(todo)}] {row['op']}: {row.get('status')} "
                  f"{row.get('duration_us', float('nan')):.2f} us share {share if share is None else round(share, 3)}",
                  file=sys.stderr)


def table(path: Path) -> None:
    rows = [r for r in _read(path).values()]
    ok = [r for r in rows if r.get("share")]
    shares = sorted(r["share"] for r in ok)
    print(f"{len(rows)} operators, {len(ok)} timed; share median {statistics.median(shares):.3f}, "
          f"below 0.5: {sum(s < 0.5 for s in shares)}, below 0.25: {sum(s < 0.25 for s in shares)}, "
          f"above 1: {sum(s > 1 for s in shares)}; GM ceiling {math.exp(-statistics.mean(map(math.log, shares))):.2f}x")
    print("| op | case | us | roofline us | share | limiter | bound | warnings |")
    print("|---|---|---|---|---|---|---|---|")
    for r in sorted(ok, key=lambda r: r["share"]):
        print(f"| {r['op']} | {r['case']} | {r['duration_us']:.2f} | {r['roofline_us']:.2f} | {r['share']:.3f} | "
              f"{r['limiter']} | {r['bound']} {r['bound_ratio']:.0%} | {','.join(r['warnings'])} |")
    for r in rows:
        if not r.get("share"):
            print(f"not timed: {r['op']}: {r.get('status')} {r.get('message', '')[:120]}")


def diff(a_path: Path, b_path: Path, rel: float = 1e-6) -> None:
    a, b = _read(a_path), _read(b_path)
    same = 0
    for op in sorted(set(a) | set(b)):
        ra, rb = a.get(op, {}), b.get(op, {})
        da, db = ra.get("duration_us"), rb.get("duration_us")
        if ra.get("status") != rb.get("status") or ra.get("warnings") != rb.get("warnings") or (
                da and db and abs(da - db) > rel * max(da, db)):
            ratio = f"{da / db:.3f}x" if da and db else "-"
            print(f"{op}: {ra.get('status')} {da} us -> {rb.get('status')} {db} us ({ratio} faster after); "
                  f"warnings {ra.get('warnings')} -> {rb.get('warnings')}")
        else:
            same += 1
    print(f"{same} unchanged")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src")
    ap.add_argument("--out")
    ap.add_argument("--compat")
    ap.add_argument("--only", default="")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--table")
    ap.add_argument("--diff", nargs=2)
    args = ap.parse_args()
    if args.table:
        table(Path(args.table))
    elif args.diff:
        diff(Path(args.diff[0]), Path(args.diff[1]))
    elif args.src and args.out:
        run(args)
    else:
        ap.error("give --src and --out, --table FILE or --diff A B")


if __name__ == "__main__":
    main()
