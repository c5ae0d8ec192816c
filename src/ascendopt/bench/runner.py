"""The benchmark driver: plan the (operator, method, seed) pairs, run what is not finished,
record everything in one database, and summarise.

**One database, one writer.** Every pair is one run of the record store ``OUT/bench.db``
(config ``command = "bench"``, its operator, digest, level, method, seed, budget and options).
Workers run a pair against an in-memory store and stream each record back
(:mod:`ascendopt.bench.pair`, :mod:`ascendopt.bench.dispatch`); only this driver writes the
database. Each pair's evaluations are deduplicated within its own run only (a worker sees no
other run), so no method is handed another's evaluations for free, and the results do not
depend on which pair ran first.

**Resume.** A pair whose run is ``finished`` is not rerun. A pair whose run is ``running`` or
``failed`` (the driver was killed, a worker crashed) is rerun in the same run with its recorded
evaluations preloaded: what it asks again comes back free, and the budget counts each
evaluation once. After a pair finishes, its result (``OUT/runs/<pair>.json``) and its
``optimize``-style report (``OUT/runs/<pair>.html``) are written, then the run is marked
finished.

**Isolation.** Each pair gets a fresh copy of the shipped experience bank (methods that use
one), so methods and seeds do not learn from each other and every pair is reproducible alone.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ascendopt.hw.soc import DEFAULT_SOC
from ascendopt.bench.metrics import Trial, per_operator, summarize, trial_from_records
from ascendopt.bench.pair import PairOutcome, PairTask
from ascendopt.evaluate.store import SQLiteStore
from ascendopt.suites import SuiteOp

#: Finished pairs, one JSON line each (identity + trial): what --resume keeps without bench.db.
LEDGER_NAME = "ledger.jsonl"

DB_NAME = "bench.db"
BENCH_FORMAT = 1
#: The reference method's published figures (arXiv 2603.23566; 101 cann-ops operators,
#: Ascend 910B2, 230 evaluations per operator), for comparison in reports.
PUBLISHED = {"full": {"gm_speedup": 1.21, "fast_1.0": 0.5347, "fast_2.0": 0.099},
             "stage1": {"gm_speedup": 1.16}, "stage1-noexp": {"gm_speedup": 1.09}, "stage2": {"gm_speedup": 1.02}}


class BenchError(ValueError):
    """A benchmark that cannot start (bad selection, an existing database without --resume)."""


def level_of(op_dir: Path, root: Path | None = None) -> int:
    """The operator's level: the number of a ``level<N>`` component of its path (relative to
    the suite root when it lies under it); 0 when there is none."""
    p = Path(op_dir)
    if root is not None:
        try:
            p = p.resolve().relative_to(Path(root).resolve())
        except ValueError:
            pass
    for part in reversed(p.parts):
        m = re.fullmatch(r"level(\d+)", part)
        if m:
            return int(m.group(1))
    return 0


@dataclass
class Pair:
    """One planned (operator, method, seed).

    ``source`` is the operator as its suite defines it (golden override, case files, own
    cases, benchmark cases; None: the directory's own cases and goldens); ``cases_key`` a
    content hash of what the suite sets (None when it sets nothing: a plain directory), part
    of the pair's identity so a changed manifest golden or case file is a new pair.
    """

    op_dir: Path
    op: str
    digest: str
    level: int
    method: str
    seed: int
    run_id: int | None = None
    status: str = "planned"
    error: str = ""
    source: SuiteOp | None = None
    cases_key: str | None = None
    #: The finished trial read from the ledger (``ledger.jsonl``) when the database lacks it
    #: (a benchmark continued in a fresh checkout from its committed results).
    ledger: Trial | None = None

    @property
    def key(self) -> str:
        return f"{self.op}|{self.method}|{self.seed}"

    @property
    def slug(self) -> str:
        return re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{self.op}__{self.method}__s{self.seed}")


@dataclass
class BenchConfig:
    """One benchmark invocation.

    Attributes:
        out: Output directory (``bench.db``, ``runs/``, ``bench.json``, ``report.html``).
        budget: Charged evaluations per pair.
        methods: Method names.
        seeds: Seeds (each method runs once per seed).
        soc: SoC to simulate.
        timeout_s: Seconds per case run.
        workers: Pairs run concurrently.
        executor: ``local`` or ``ray``.
        ray_address: Ray cluster (None: a local Ray instance with ``workers`` CPUs).
        llm: LLM configuration file for the rewriters.
        resume: Continue the database in ``out`` (without it, an existing one is an error).
        options: Per-method option overrides.
        cache_dir: Simulator build cache (None: the default).
        suite: Label of the suite (reports).
        unsafe_no_sandbox: Run candidate code unconfined when the machine has no sandbox.
        backend: ``sim`` or ``npu`` (then ``soc`` is the device's, or the simulated one).
        npu_mode: With ``npu``: ``device`` or ``simulator`` (the CANN simulator of ``soc``).
        unseen_shapes: Unseen shapes each pair's best is checked on (0: none); a best that fails
            one is not credited (the next that passes all is).
    """

    out: Path
    budget: int = 230
    methods: Sequence[str] = ("full",)
    seeds: Sequence[int] = (0,)
    soc: str = DEFAULT_SOC
    timeout_s: float = 60.0
    workers: int = 1
    executor: str = "local"
    ray_address: str | None = None
    llm: str | None = None
    resume: bool = False
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    cache_dir: str | None = None
    suite: str = ""
    unsafe_no_sandbox: bool = False
    backend: str = "sim"
    npu_mode: str = "device"
    unseen_shapes: int = 0


def _cases_key(sop: SuiteOp, cases: Sequence[Any]) -> str | None:
    """A content hash of what a suite sets for an operator (None when it sets nothing): the
    fingerprints of the cases it loads (shapes, attrs, golden code) and its timed case names."""
    if sop.golden is None and not sop.cases and sop.own_cases and not sop.benchmark:
        return None
    import hashlib

    from ascendopt.evaluate.casedata import case_fingerprint

    blob = json.dumps({"cases": [case_fingerprint(c) for c in cases], "own_cases": sop.own_cases,
                       "benchmark": list(sop.benchmark)}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def plan(targets: Sequence[Path | SuiteOp], cfg: BenchConfig, root: Path | None = None,
         levels: Sequence[int] | None = None, ops_glob: str | None = None
         ) -> tuple[list[Pair], list[dict[str, str]]]:
    """The pairs to run (operator-major) and the operators left out with why (unloadable, no
    cases, an unknown benchmark case name). ``targets`` are operator directories (their own
    cases and goldens) or suite operators (:class:`~ascendopt.suites.SuiteOp`: the manifest's
    golden, case files, own-cases setting, benchmark cases and level). ``ops_glob`` is a
    comma-separated list of globs matched against the operator's name and its path in the
    suite (relative to ``root``)."""
    from ascendopt.bench.pair import suite_cases
    from ascendopt.cases import CaseError
    from ascendopt.operator import Operator, OperatorError

    pairs, skipped = [], []
    for t in targets:
        sop = t if isinstance(t, SuiteOp) else SuiteOp(Path(t))
        d = sop.dir
        lv = sop.level or level_of(d, root)
        if levels is not None and lv not in levels:
            continue
        rel = str(d.resolve().relative_to(root.resolve())) if root and d.resolve().is_relative_to(root.resolve()) \
            else str(d)
        globs = [g.strip() for g in (ops_glob or "").split(",") if g.strip()]
        if globs and not any(fnmatch.fnmatch(d.name, g) or fnmatch.fnmatch(rel, g) for g in globs):
            continue
        try:
            op = Operator.load(d)
            cases, _ = suite_cases(sop)
        except (OperatorError, CaseError, OSError) as e:
            skipped.append({"op_dir": str(d), "reason": str(e)})
            continue
        ck = _cases_key(sop, cases)
        for m in cfg.methods:
            for s in cfg.seeds:
                pairs.append(Pair(Path(d), op.name, op.digest, lv, m, s, source=sop, cases_key=ck))
    return pairs, skipped


def _case_fields(sop: SuiteOp | None) -> dict[str, Any]:
    """The :class:`~ascendopt.bench.pair.PairTask` fields that rebuild a suite operator's cases
    in a worker (plain strings: picklable, the same on every executor)."""
    if sop is None:
        return {}
    return {"golden": sop.golden, "case_files": tuple(str(f) for f in sop.cases), "own_cases": sop.own_cases,
            "bench_cases": tuple(sop.benchmark)}


class Runner:
    """Runs planned pairs (see the module docstring). ``on_event(kind, data)`` reports progress."""

    def __init__(self, cfg: BenchConfig, on_event: Callable[[str, dict[str, Any]], None] | None = None):
        self.cfg = cfg
        self.on_event = on_event or (lambda kind, data: None)
        cfg.out.mkdir(parents=True, exist_ok=True)
        (cfg.out / "runs").mkdir(exist_ok=True)
        db = cfg.out / DB_NAME
        existed = db.exists()
        self.store = SQLiteStore(db)
        if existed and not cfg.resume and any(r.config.get("command") == "bench" for r in self.store.list_runs()):
            self.store.close()
            raise BenchError(f"{db} already holds benchmark runs: pass --resume to continue it, or another --out")
        self._routes: dict[str, int] = {}
        self._ledger: dict[str, dict[str, Any]] | None = None

    def close(self) -> None:
        self.store.close()

    # --------------------------------------------------------------------- bookkeeping
    def _run_config(self, p: Pair) -> dict[str, Any]:
        return {"command": "bench", "format": BENCH_FORMAT, "op": p.op, "op_dir": str(p.op_dir), "op_digest": p.digest,
                "level": p.level, "method": p.method, "seed": p.seed, "budget": self.cfg.budget, "soc": self.cfg.soc,
                "options": self.cfg.options.get(p.method, {}),
                **({} if p.cases_key is None else {"cases_key": p.cases_key, "suite_cases": _case_fields(p.source)})}

    def _identity(self, c: dict[str, Any]) -> tuple:
        return (c.get("op"), c.get("op_digest"), c.get("method"), c.get("seed"), c.get("budget"), c.get("soc"),
                json.dumps(c.get("options", {}), sort_keys=True), c.get("cases_key"))

    def attach(self, pairs: Sequence[Pair]) -> None:
        """Finds each pair's run in the database (finished ones are done) or creates it."""
        known: dict[tuple, Any] = {}
        for r in self.store.list_runs():
            if r.config.get("command") == "bench":
                k = self._identity(r.config)
                if k not in known or r.status == "finished":
                    known[k] = r
        for p in pairs:
            c = self._run_config(p)
            r = known.get(self._identity(c))
            if r is None and self.cfg.resume:  # e.g. a fresh checkout of a committed benchmark
                p.ledger = self._ledger_trial(p, c)
                if p.ledger is not None:
                    p.status = "done"
                    continue
            if r is None:
                p.run_id, p.status = self.store.create_run(p.op, c), "new"
            else:
                p.run_id = r.id
                p.status = "done" if r.status == "finished" else "resumed"

    def _ledger_trial(self, p: Pair, config: dict[str, Any]) -> Trial | None:
        """The pair's finished trial from the ledger (``ledger.jsonl``: one line per finished
        pair, its identity and its trial, small enough to commit) when it records a finished
        run of the same identity (operator digest, method, seed, budget, SoC, options, cases);
        None otherwise."""
        if self._ledger is None:
            self._ledger = {}
            try:
                for line in (self.cfg.out / LEDGER_NAME).read_text().splitlines():
                    try:
                        e = json.loads(line)
                        self._ledger[e["slug"]] = e
                    except (ValueError, KeyError, TypeError):
                        continue  # a line cut short by a kill: that pair runs again
            except OSError:
                pass
        e = self._ledger.get(p.slug)
        try:
            if e is None or self._identity(e["config"]) != self._identity(config):
                return None
            return Trial.from_record(e["trial"])
        except (KeyError, TypeError, ValueError):
            return None

    def handle(self, msg: tuple) -> None:
        """Writes what a worker sent (the driver's only write path for evaluations)."""
        kind, key = msg[0], msg[1]
        if kind == "eval":
            self.store.add_evaluation(self._routes[key], msg[3], charged=msg[2])
        elif kind == "src":
            self.store.put_sources(msg[2], msg[3])

    def _task(self, p: Pair) -> PairTask:
        assert p.run_id is not None
        prior: tuple = ()
        if p.status == "resumed":
            prior = tuple((r.charged, r.evaluation) for r in self.store.list_evaluations(p.run_id))
        cpus = os.cpu_count() or 1
        jobs = 0 if self.cfg.workers <= 1 else max(1, cpus // self.cfg.workers)
        return PairTask(p.key, str(p.op_dir), p.method, p.seed, self.cfg.budget, self.cfg.soc, self.cfg.timeout_s,
                        self.cfg.options.get(p.method, {}), self.cfg.llm, jobs, prior, self.cfg.cache_dir,
                        self.cfg.unsafe_no_sandbox, **_case_fields(p.source), backend=self.cfg.backend,
                        npu_mode=self.cfg.npu_mode, unseen_shapes=self.cfg.unseen_shapes)

    # ----------------------------------------------------------------------------- run
    def run(self, pairs: Sequence[Pair]) -> None:
        """Runs every pair not finished yet; Ctrl-C stops after recording what was done."""
        from ascendopt.bench import dispatch

        self.attach(pairs)
        todo = [p for p in pairs if p.status != "done"]
        by_key = {p.key: p for p in todo}
        self._routes = {p.key: p.run_id for p in todo}  # type: ignore[misc]
        self.on_event("plan", {"pairs": len(pairs), "todo": len(todo)})
        tasks = [self._task(p) for p in todo]
        if self.cfg.executor == "ray":
            gen = dispatch.run_ray(tasks, self.handle, self.cfg.workers, self.cfg.ray_address)
        elif self.cfg.workers > 1 and len(tasks) > 1:
            gen = dispatch.run_pool(tasks, self.handle, self.cfg.workers)
        else:
            gen = dispatch.run_inline(tasks, self.handle)
        for out in gen:
            p = by_key[out.key]
            self._finish(p, out)
            self.on_event("pair", {"key": p.key, "status": p.status, "error": p.error.splitlines()[-1:] or "",
                                   "speedup": getattr(out.result, "speedup", None)})
            if out.error == "interrupted":
                raise KeyboardInterrupt

    def _finish(self, p: Pair, out: PairOutcome) -> None:
        from ascendopt.optimize_report import render

        assert p.run_id is not None
        res = out.result
        p.error = out.error
        doc = {"key": p.key, "op": p.op, "level": p.level, "method": p.method, "seed": p.seed, "run_id": p.run_id,
               "error": out.error, "seconds": round(out.seconds, 2),
               "result": None if res is None else res.to_dict(), "unseen": out.unseen}
        runs = self.cfg.out / "runs"
        if res is not None:
            records = self.store.list_evaluations(p.run_id)
            (runs / f"{p.slug}.html").write_text(render(res, records, out.titles, None,
                                                        title=f"ascendopt bench: {p.op} / {p.method} / seed {p.seed}"))
            if not out.error:  # the ledger: --resume without the database keeps this pair
                trial = trial_from_records(records, p.digest, p.op, p.level, p.method, p.seed, out.seconds,
                                           out.unseen.get("passed_over", ()))
                with (self.cfg.out / LEDGER_NAME).open("a") as f:
                    f.write(json.dumps({"slug": p.slug, "config": self._run_config(p), "trial": trial.record()},
                                       default=str) + "\n")
        (runs / f"{p.slug}.json").write_text(json.dumps(doc, indent=2, default=str))
        if out.error and out.error != "interrupted":
            p.status = "failed"
            self.store.set_run_status(p.run_id, "failed")
        elif not out.error:
            p.status = "finished"
            self.store.set_run_status(p.run_id, "finished")

    # ------------------------------------------------------------------------ results
    def trials(self, pairs: Sequence[Pair]) -> list[Trial]:
        out = []
        for p in pairs:
            if p.ledger is not None:
                out.append(p.ledger)
                continue
            if p.run_id is None:
                continue
            r = self.store.get_run(p.run_id)
            if r is None or r.status != "finished":
                continue
            side_doc: dict[str, Any] = {}
            side = self.cfg.out / "runs" / f"{p.slug}.json"
            if side.exists():
                side_doc = json.loads(side.read_text())
            out.append(trial_from_records(self.store.list_evaluations(p.run_id), p.digest, p.op, p.level, p.method,
                                          p.seed, float(side_doc.get("seconds") or 0.0),
                                          (side_doc.get("unseen") or {}).get("passed_over", ())))
        return out

    def document(self, pairs: Sequence[Pair], skipped: Sequence[dict[str, str]]) -> dict[str, Any]:
        """Every number of the benchmark (``bench.json``)."""
        from ascendopt.bench.methods import get_method

        trials = self.trials(pairs)
        summary = summarize(trials, self.cfg.budget)
        pair_rows = []
        for p in pairs:
            side = self.cfg.out / "runs" / f"{p.slug}.json"
            side_doc = json.loads(side.read_text()) if side.exists() else {}
            res, unseen = side_doc.get("result"), side_doc.get("unseen") or {}
            pair_rows.append({"op": p.op, "level": p.level, "method": p.method, "seed": p.seed, "run_id": p.run_id,
                              "status": p.status, "error": p.error[-2000:],
                              "report": f"runs/{p.slug}.html" if (self.cfg.out / "runs" / f"{p.slug}.html").exists()
                              else None,
                              "stop_reason": (res or {}).get("stop_reason"),
                              "charged_by_stage": (res or {}).get("charged_by_stage"),
                              "unseen": {"shapes": [x["shape"] for x in unseen.get("shapes", [])],
                                         "fell_back": unseen.get("fell_back"),
                                         "passed_over": len(unseen.get("passed_over", []))} if unseen else None})
        methods = {}
        for m in self.cfg.methods:
            meth = get_method(m)
            methods[m] = {"doc": meth.doc, "uses_bank": meth.uses_bank,
                          "options": {k: {"default": v[0], "doc": v[1]} for k, v in meth.options.items()},
                          "overrides": self.cfg.options.get(m, {})}
        return {"format": BENCH_FORMAT, "suite": self.cfg.suite, "budget": self.cfg.budget, "soc": self.cfg.soc,
                "seeds": list(self.cfg.seeds), "methods": methods, "published": PUBLISHED,
                "complete": all(p.status in ("done", "finished") for p in pairs), "skipped": list(skipped),
                "pairs": pair_rows, "trials": [t.to_dict() for t in trials], **summary,
                "operators": per_operator(trials)}
