"""Does a bench pair's figure equal what the tool returned for it? Per method of a bench
directory: the tool's result (each pair's report, runs/<slug>.html: "original X us -> best Y us"),
the metric as it was before issue 33 (the fastest correct candidate) and as it is (the verdict's
rule, :func:`ascendopt.evaluate.verdict.gain_chain`), both from the ledger.

    PYTHONPATH=src python benchmarks/bench_vs_tool.py benchmarks/results/bench_own_b100/ledger.jsonl
"""
import json, re, sys
from pathlib import Path
from ascendopt.bench.metrics import Trial

for led in map(Path, sys.argv[1:]):
    rows = [json.loads(l) for l in led.read_text().splitlines() if l.strip()]
    stats = {}
    for r in rows:
        t = Trial.from_record(r["trial"])
        html = led.parent / "runs" / f"{r['slug']}.html"
        m = re.search(r"original ([0-9.]+) us &rarr; best ([0-9.]+) us", html.read_text()) if html.exists() else None
        if not m:
            continue
        tool = float(m.group(1)) / float(m.group(2))
        ref = t.reference_us
        lats = [lat for ok, lat in t.evals if ok and lat]
        old = max(1.0, ref / min(lats)) if ref and lats else 1.0
        new = t.speedup
        s = stats.setdefault(t.method, [0, 0, 0, 0, 0])
        s[0] += 1
        s[1] += abs(tool - old) / tool < 2e-3   # the report prints 3 decimals
        s[2] += abs(tool - new) / tool < 2e-3
        s[3] += old > 1.0 and tool == 1.0       # a gain the tool rejected
        s[4] += new > 1.0 and tool == 1.0
    print(led)
    for meth, (n, eo, en, go, gn) in stats.items():
        print(f"  {meth}: {n} pairs; figure equals the tool's: old {eo}, new {en}; "
              f"gain reported where the tool kept the original: old {go}, new {gn}")
