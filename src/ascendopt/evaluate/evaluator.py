"""The evaluator: build -> correctness on every case -> profile on the benchmark case(s).

An :class:`Evaluator` turns one candidate :class:`~ascendopt.operator.Operator` into one
:class:`Evaluation`. It never raises for a bad candidate: compiler errors, tiling failures,
typed simulator errors, wrong results and timeouts all become a status plus its message.
All candidate code (compilers, runner executables) runs in child processes bounded by a
wall-clock timeout and an address-space limit, which the backend enforces; the evaluator
itself only generates inputs, computes goldens and compares.

It writes nothing: the driver (:class:`~ascendopt.evaluate.budget.BudgetedEvaluator`) records
evaluations in the store, whichever executor produced them.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections import OrderedDict
from dataclasses import replace
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Sequence

from ascendopt.backends.base import Backend, BuildResult, RunResult, Status
from ascendopt.cases import Case, CaseError, make_inputs
from ascendopt.evaluate import casedata
from ascendopt.evaluate.casedata import _inputs_fingerprint, case_fingerprint  # noqa: F401 (re-exported)
from ascendopt.evaluate.check import CaseResult, CheckConfig, case_dtypes, check_case, check_cases, timed_build
from ascendopt.evaluate.evaluation import (  # noqa: F401 (re-exported: the evaluator's types)
    UNVERIFIED,
    EvalConfig,
    above_bar,
    Evaluation,
    benchmark_cases,
    case_elements,
    largest_per_dtype,
)
from ascendopt.operator import Operator, OperatorError

#: Separate profile runs (a backend whose correctness runs are not timed, a noisy one, or
#: ``profile_repeats`` > 1) draw their inputs from ``seed + PROFILE_SEED_OFFSET + k`` (fresh,
#: not the correctness runs' data).
PROFILE_SEED_OFFSET = 1_000_003
#: Bumped when the meaning of an evaluation changes (part of every config key). 2: an exact
#: backend's benchmark case is timed by its correctness run; 3: the simulator compiles a kernel
#: with --cce-auto-sync unless its CMake says =off (oprepo.AUTO_SYNC_DEFAULT; a record of the
#: same sources made before timed it without and reported the races the compiler syncs); 4: the
#: profile summary's roofline is a lower bound under the model (per-pipe busy cycles, scalar
#: accesses, L2 time) and its bound may say latency/synchronization (profile/roofline.py), scalar
#: GM accesses go through a per-core data cache (hits and misses priced apart, the dcache_stale /
#: dcache_dirty warnings), and GM or on-chip memory reached through raw pointers is timed
#: (raw_gm_access): a record made before carries other times, achieved_fraction and bound;
#: vector instructions overlap their pipeline drain unless a PipeBarrier<PIPE_V> (given, or
#: inserted by auto-sync for a V->V dependency) separates them, and such a dependency without it
#: is a ``same_pipe_race`` warning under --cce-auto-sync=off.
EVALUATOR_VERSION = 4
_FAILURE_ORDER = (Status.COMPILE_ERROR, Status.TILING_ERROR, Status.RUNTIME_ERROR, Status.TIMEOUT,
                  Status.WRONG_RESULT)


def _batches(order: Sequence[int], builds: Sequence[tuple], cases: Sequence[Case], jobs: int) -> list[list[int]]:
    """The cases (indices) in batches of one build each, largest batch first: one per build,
    and a build's cases split in up to ``jobs // builds`` batches of about equal work
    (elements; in `order`, each case to the lightest batch) so that every worker has one to
    run. A batch runs its cases in case order: when it stops at a failure, every case before
    that one has run, as the evaluation's first failure in case order needs."""
    groups: dict[tuple, list[int]] = {}
    for i in order:
        groups.setdefault(builds[i], []).append(i)
    parts = max(1, jobs // max(1, len(groups)))
    out: list[list[int]] = []
    for members in groups.values():
        bins: list[list[int]] = [[] for _ in range(min(parts, len(members)))]
        load = [0] * len(bins)
        for i in members:  # largest first (order): each to the lightest batch
            b = load.index(min(load))
            bins[b].append(i)
            load[b] += case_elements(cases[i])
        out += [sorted(b) for b in bins]
    return sorted(out, key=lambda b: -sum(case_elements(cases[i]) for i in b))


def _safe_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "case"


def _host_fingerprint(op: Operator) -> str:
    """What the host objects of a build are made from: the op_host sources and the external
    files they read."""
    h = hashlib.sha256(op.external_fingerprint.encode())
    for k in sorted(op.host_files()):
        h.update(k.encode() + b"\0" + op.files[k].encode() + b"\0")
    return h.hexdigest()


class InputCache:
    """Seeded case inputs for tiling-only runs (launch keys, Stage II's program oracle).

    A launch key runs the host tiling of every case for every candidate with the same seeded
    inputs: they depend on the case and the seed, not on the candidate, and drawing them again
    cost about a third of a key. Kept read-only, least recently used out beyond
    ``limit_bytes``; one per process (a pickled copy starts empty).
    """

    def __init__(self, limit_bytes: int = 256 << 20):
        self.limit_bytes = limit_bytes
        self._items: OrderedDict[tuple[str, int], dict[str, Any]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, case: Case, seed: int) -> dict[str, Any]:
        """``make_inputs(case, seed)``, read-only, from the cache when there."""
        key = (json.dumps([case.name, _inputs_fingerprint(case)], default=str), seed)
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
                return hit
        arrays = make_inputs(case, seed)
        for a in arrays.values():
            a.flags.writeable = False
        size = sum(a.nbytes for a in arrays.values())
        with self._lock:
            if size <= self.limit_bytes and key not in self._items:
                self._items[key] = arrays
                self._bytes += size
                while self._bytes > self.limit_bytes:
                    _, old = self._items.popitem(last=False)
                    self._bytes -= sum(a.nbytes for a in old.values())
        return arrays

    def __len__(self) -> int:
        return len(self._items)

    def __getstate__(self) -> dict[str, Any]:
        return {"limit_bytes": self.limit_bytes}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["limit_bytes"])


class Evaluator:
    """Builds, checks and profiles candidates on one backend.

    Args:
        backend: Any :class:`~ascendopt.backends.base.Backend` (``sim`` or ``npu``).
        config: How to evaluate.

    The evaluator is picklable (executors ship it to worker processes or Ray workers).
    """

    def __init__(self, backend: Backend, config: EvalConfig | None = None):
        if not isinstance(backend, Backend):
            raise TypeError(f"{type(backend).__name__} is not an ascendopt.backends.base.Backend")
        self.backend = backend
        self.config = config or EvalConfig()
        ident = backend.identity()
        self.backend_name = ident["backend"]
        self.soc_name = ident["soc"]
        self._identity = ident
        self.launch_inputs = InputCache()
        #: Inputs and goldens of the pool's seeds, kept across candidates (with ``input_pool``)
        #: and across the evaluators of this process.
        self.case_data = casedata.shared()
        #: Fingerprints of host sources this evaluator has built successfully (their host
        #: objects are in the build cache): a candidate with such host files builds all its
        #: dtype combinations at once (:meth:`_builds`).
        self._built_hosts: set[str] = set()

    # ----------------------------------------------------------------------------- keys
    def config_key(self, cases: Sequence[Case]) -> str:
        """Dedup key: evaluator version, config (minus `jobs`, `profile_dir`), cases, backend and
        toolchain."""
        cfg = self.config.to_dict()
        cfg.pop("jobs", None)
        cfg.pop("profile_dir", None)
        blob = json.dumps({"v": EVALUATOR_VERSION, "config": cfg, "backend": self._identity,
                           "cases": [case_fingerprint(c) for c in cases]}, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:32]

    def seed_for(self, op: Operator) -> int:
        """Deterministic per-candidate seed: replaying a candidate replays its inputs. With
        ``input_pool`` K it is one of K seeds derived from ``config.seed`` (:meth:`pool_seeds`),
        picked by a hash of the candidate's digest: which one is not the candidate's choice
        (any change of its sources picks again, uniformly)."""
        h = hashlib.sha256(f"{self.config.seed}:{op.digest}".encode()).digest()
        if self.config.input_pool > 0:
            return self.pool_seeds()[int.from_bytes(h[4:8], "little") % self.config.input_pool]
        return int.from_bytes(h[:4], "little") & 0x3FFFFFFF

    def pool_seeds(self) -> list[int]:
        """The ``input_pool`` seeds candidates share (derived from ``config.seed`` only)."""
        return [int.from_bytes(hashlib.sha256(f"{self.config.seed}:pool:{k}".encode()).digest()[:4], "little")
                & 0x3FFFFFFF for k in range(self.config.input_pool)]

    def launch_key(self, op: Operator, cases: Sequence[Case]) -> str | None:
        """A key shared by every candidate that runs the same device program on ``cases``: the
        evaluation config key, the kernel binaries and the launch the host tiling asks for on
        every case (:class:`~ascendopt.backends.base.Launch`; the tiling alone is run, not the
        kernel). Candidates with equal keys get equal evaluations, so one answers the other.

        None when the backend cannot run the tiling alone, or when a build or a tiling fails
        (the candidate is then simply evaluated). It is :meth:`launch_key_of` the
        :meth:`launch_part` of every case (what :class:`~ascendopt.evaluate.launch.LaunchIndex`
        computes case by case).
        """
        builds = self.launch_builds(op, cases)
        if builds is None:
            return None
        with ThreadPoolExecutor(max_workers=self.config.jobs or os.cpu_count() or 1) as pool:
            parts = list(pool.map(lambda i: self.launch_part(op, cases, i, builds), range(len(cases))))
        return self.launch_key_of(cases, parts)

    def launch_builds(self, op: Operator, cases: Sequence[Case]) -> dict[tuple, BuildResult] | None:
        """The builds a launch key is made from, by dtype combination (``sorted(case_dtypes)``
        items); None when the backend cannot run the tiling alone, there are no cases, the
        candidate is malformed or a build fails. Their keys name the kernel binaries: candidates
        whose builds differ never share a launch key."""
        if not self.backend.supports_tiling or not cases:
            return None
        try:
            op.op_type, op.kernel_file  # noqa: B018 - validates the candidate's structure
        except OperatorError:
            return None
        combos = list(dict.fromkeys(tuple(sorted(case_dtypes(c).items())) for c in cases))
        with ThreadPoolExecutor(max_workers=self.config.jobs or os.cpu_count() or 1) as pool:
            builds = self._builds(op, combos, pool, stop_at_failure=True)
        if len(builds) < len(combos) or any(not b.ok or not b.key for b in builds.values()):
            return None
        return builds

    def launch_part(self, op: Operator, cases: Sequence[Case], i: int,
                    builds: dict[tuple, BuildResult]) -> list[Any] | None:
        """Case ``i``'s share of the launch key: its binary's key, its name and the launch its
        host tiling asks for (a tiling-only run on the case's seeded inputs); None when the
        tiling fails."""
        case = cases[i]
        b = builds[tuple(sorted(case_dtypes(case).items()))]
        try:
            inputs = self.launch_inputs.get(case, self.config.seed + i)
        except CaseError:
            return None
        got = self.backend.tiling(b, op, case, inputs, timeout_s=self.config.run_timeout_s)
        return [b.key, case.name, got.fields] if got.ok else None

    def launch_key_of(self, cases: Sequence[Case], parts: Sequence[list[Any] | None]) -> str | None:
        """The launch key made of every case's :meth:`launch_part` (None if one is None)."""
        if any(p is None for p in parts):
            return None
        blob = json.dumps([self.config_key(cases), list(parts)], sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:32]

    # ------------------------------------------------------------------------- evaluate
    def evaluate(self, op: Operator, cases: Sequence[Case], seed: int | None = None,
                 config_key: str | None = None, bar_us: float | None = None) -> Evaluation:
        """Evaluates one candidate on `cases`. Never raises for a bad candidate.

        ``bar_us``: benchmark case(s) first; timed above the bar: ``UNVERIFIED``, other cases not
        run; a failing tiling or benchmark run, or at/below the bar: every case, as without a bar
        (where a benchmark case's correctness run is its timed run; elsewhere ignored).

        Raises:
            ValueError: No cases, or an unknown benchmark case name (configuration errors).
        """
        if not cases:
            raise ValueError(f"{op.name}: no cases to evaluate on")
        t0 = time.perf_counter()
        seed = self.seed_for(op) if seed is None else seed
        ev = Evaluation(Status.OK.value, seed=seed, backend=self.backend_name, soc=self.soc_name, op_name=op.name,
                        digest=op.digest, parent=op.parent, origin=op.origin,
                        config_key=config_key or self.config_key(cases), bar_us=bar_us)
        timings = {"build_s": 0.0, "check_s": 0.0, "profile_s": 0.0}
        try:
            self._evaluate(op, list(cases), ev, timings)
        finally:
            timings["total_s"] = time.perf_counter() - t0
            ev.timings = {k: round(v, 4) for k, v in timings.items()}
        return ev

    def _evaluate(self, op: Operator, cases: list[Case], ev: Evaluation, timings: dict[str, float]) -> None:
        cfg = self.config
        try:
            op.op_type, op.kernel_file  # noqa: B018 - validates the candidate's structure
        except OperatorError as e:
            ev.status, ev.error, ev.error_kind = Status.COMPILE_ERROR.value, str(e), "structure"
            return
        jobs = cfg.jobs or os.cpu_count() or 1
        bench = benchmark_cases(cases, cfg.benchmark_cases)
        with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="ao-eval") as pool:
            # 1. builds, one per dtype combination, concurrently.
            t = time.perf_counter()
            combos = list(dict.fromkeys(tuple(sorted(case_dtypes(c).items())) for c in (*cases, *bench)))
            builds = self._builds(op, combos, pool, stop_at_failure=cfg.fail_fast)
            timings["build_s"] = time.perf_counter() - t
            for key in builds:
                b = builds[key]
                if not b.ok:
                    ev.status = (Status.TIMEOUT if b.timed_out else Status.COMPILE_ERROR).value
                    ev.error_kind = ("build_timeout" if b.timed_out else
                                     "sandbox_violation" if b.error.startswith("sandbox_violation") else "compiler")
                    ev.error = b.error
                    if cfg.fail_fast:
                        return
            # 2. correctness on every case, fresh seeded inputs per case; largest cases are
            # started first (they dominate). On a noise-free backend the benchmark runs start
            # alongside (their inputs are independent); they only count if every check passes.
            t = time.perf_counter()
            data = self.case_data.get if cfg.input_pool > 0 else None  # pool seeds recur: keep

            def build_of(case: Case) -> BuildResult:
                return builds[tuple(sorted(case_dtypes(case).items()))]

            chk = CheckConfig(cfg.rtol, cfg.atol, cfg.run_timeout_s)

            def check(i: int, case: Case, runs: list[RunResult] | None = None) -> CaseResult:
                return check_case(self.backend, op, case, build_of(case), ev.seed + i, chk,
                                  run_result_hook=None if runs is None else runs.append, data=data)

            def bench_run(j: int, k: int, case: Case) -> tuple[CaseResult, RunResult | None]:
                runs: list[RunResult] = []
                r = check_case(self.backend, op, case, build_of(case), ev.seed + PROFILE_SEED_OFFSET + j * 1009 + k,
                               replace(chk, measure=True), run_result_hook=runs.append, data=data)
                return r, (runs[-1] if runs else None)

            overlap = self.backend.concurrent_timing  # noise draws / a device measurement: alone, in order
            # On an exact backend that times every run, the correctness run of a benchmark case
            # is a timed, checked run of it: it is the profile run (one run of the largest
            # cases fewer per evaluation), unless repeats are asked for.
            index = {c.name: i for i, c in enumerate(cases)}
            reuse = (overlap and self.backend.times_every_run and cfg.profile_repeats <= 1
                     and all(c.name in index for c in bench))
            kept: dict[int, list[RunResult]] = {index[c.name]: [] for c in bench} if reuse else {}
            bench_jobs = [] if reuse else [(j, k, c) for j, c in enumerate(bench)
                                           for k in range(max(1, cfg.profile_repeats))]
            order = sorted(range(len(cases)), key=lambda i: -case_elements(cases[i]))
            futures: dict[int, Future] = {}
            bench_futures: list[Future] = []
            lazy = reuse and ev.bar_us is not None
            ev.bar_us = ev.bar_us if lazy else None  # the record's bar: it was timed first
            skipped = False  # lazy, and timed above the bar: the other cases are not run
            if overlap:  # an exact backend: the cases of one build share a process (run_batch)
                def check_batch(batch: list[int]) -> dict[int, CaseResult]:
                    got = check_cases(self.backend, op, [cases[i] for i in batch], build_of(cases[batch[0]]),
                                      [ev.seed + i for i in batch], replace(chk, stop_at_failure=cfg.fail_fast),
                                      [kept[i].append if i in kept else None for i in batch], data=data)
                    return dict(zip(batch, got))

                dtype_keys = [tuple(sorted(case_dtypes(cases[i]).items())) for i in range(len(cases))]

                def submit(indices: list[int]) -> None:
                    nonlocal bench_futures
                    for n, batch in enumerate(_batches(indices, dtype_keys, cases, jobs)):
                        f = pool.submit(check_batch, batch)
                        futures.update((i, f) for i in batch)
                        if n == 0 and not bench_futures:
                            bench_futures = [pool.submit(bench_run, *bj) for bj in bench_jobs]

                first = [i for i in order if i in kept] if lazy else order
                submit(first)
                # above the bar, unless a tiling fails on another case (the common failure a
                # benchmark run cannot show): then every case runs, as without a bar
                timed = [futures[index[c.name]].result()[index[c.name]] for c in bench] if lazy else []
                skipped = (lazy and above_bar(ev.bar_us, timed)
                           and self._tilings_pass(op, [(cases[i], build_of(cases[i]), ev.seed + i) for i in order
                                                       if i not in kept], data, pool))
                if not skipped:
                    submit([i for i in order if i not in futures])
            else:
                for i in order:
                    futures[i] = pool.submit(check, i, cases[i], kept.get(i))
            for i in range(len(cases)):
                if skipped and i not in kept:
                    continue
                r = futures[i].result()
                if isinstance(r, dict):  # a batch's; None only after a failure of its (earlier) case
                    r = r[i]
                    if r is None:
                        break
                ev.cases.append(r)
                if r.status != Status.OK.value and cfg.fail_fast:
                    for g in (*futures.values(), *bench_futures):
                        g.cancel()
                    break
            # Results after the first failure (in case order) are dropped even if they finished:
            # what an evaluation contains must not depend on thread timing.
            timings["check_s"] = time.perf_counter() - t
            if self._fail_from(ev, ev.cases) or ev.status != Status.OK.value:
                return
            # 3. profile the benchmark case(s): fresh inputs again, outputs checked again.
            t = time.perf_counter()
            if reuse:
                ran = {c.name: r for c, r in zip([cases[i] for i in range(len(cases)) if not skipped or i in kept],
                                                 ev.cases)}
                bench_jobs = [(j, 0, c) for j, c in enumerate(bench)]
                results = [(ran[c.name], kept[index[c.name]][-1]) for c in bench]
            else:
                results = ([f.result() for f in bench_futures] if bench_futures
                           else [bench_run(*bj) for bj in bench_jobs])
        durations: list[float] = []
        for j, case in enumerate(bench):
            mine = [(r, rr) for (jj, _, _), (r, rr) in zip(bench_jobs, results) if jj == j]
            per_case: list[float] = []
            for r, _ in mine:
                ev.benchmark.append(r)
                if r.status != Status.OK.value:
                    timings["profile_s"] = time.perf_counter() - t
                    self._fail_from(ev, [r], prefix=f"benchmark run of {case.name}: ")
                    return
                per_case.append(float(r.task_duration_us or 0.0))
            durations.append(sum(per_case) / len(per_case))
            ev.profile[case.name] = self._summarize(op, mine[-1][1], per_case, case.name)
        timings["profile_s"] = time.perf_counter() - t
        ev.latency_us = sum(durations) / len(durations) if durations else None
        if skipped:
            ev.status, ev.error_kind = UNVERIFIED, "above_bar"
            ev.error = (f"timed {ev.latency_us:.3f} us, above the bar {ev.bar_us:.3f} us: "
                        f"{len(cases) - len(ev.cases)} of {len(cases)} cases not run")

    def _tilings_pass(self, op: Operator, runs: Sequence[tuple[Case, BuildResult, int]],
                      data: Any, pool: ThreadPoolExecutor) -> bool:
        """Whether the host tiling succeeds on every ``(case, build, seed)`` (tiling-only runs, one
        runner process each). They run in chunks of the pool's width, and the first chunk with
        a failure ends the check: the answer is known, and every case runs next anyway."""
        if not self.backend.supports_tiling:
            return False

        def ok(run: tuple[Case, BuildResult, int]) -> bool:
            case, build, seed = run
            try:
                inputs = data(case, seed)[0] if data is not None else make_inputs(case, seed)
            except CaseError:
                return False
            return build.ok and self.backend.tiling(build, op, case, inputs, timeout_s=self.config.run_timeout_s).ok
        width = self.config.jobs or os.cpu_count() or 1  # the pool's width (evaluate makes it so)
        return all(all(list(pool.map(ok, runs[i:i + width]))) for i in range(0, len(runs), width))

    def _build(self, op: Operator, dtypes: dict[str, str]) -> BuildResult:
        return timed_build(self.backend, op, dtypes)

    def _builds(self, op: Operator, combos: Sequence[tuple], pool: ThreadPoolExecutor,
                stop_at_failure: bool = True) -> dict[tuple, BuildResult]:
        """One build per dtype combination, in ``combos`` order (with ``stop_at_failure``, none
        after a failing first one). Every combination shares the (dtype-independent) host
        objects: when this evaluator has not built the candidate's host sources yet, the
        first build compiles them alone and the others then only compile their kernel and
        relink, concurrently; when it has (a kernel rewrite, a repeated candidate), all
        combinations build at once. Builds are content-addressed, so the order changes only
        the wall time, never a result."""
        if not combos:
            return {}
        host = _host_fingerprint(op)
        builds: dict[tuple, BuildResult] = {}
        rest = list(combos)
        if host not in self._built_hosts:
            builds[rest[0]] = self._build(op, dict(rest[0]))
            rest = rest[1:] if (builds[rest[0]].ok or not stop_at_failure) else []
        builds.update(zip(rest, pool.map(lambda k: self._build(op, dict(k)), rest)))
        if any(b.ok for b in builds.values()):
            self._built_hosts.add(host)
        return {k: builds[k] for k in combos if k in builds}

    @staticmethod
    def _fail_from(ev: Evaluation, results: Sequence[CaseResult], prefix: str = "") -> bool:
        """Sets the evaluation's status from the first failing case (by severity, then order)."""
        failing = [r for r in results if r.status != Status.OK.value]
        if not failing:
            return False
        rank = {s.value: i for i, s in enumerate(_FAILURE_ORDER)}
        worst = min(failing, key=lambda r: rank.get(r.status, len(rank)))
        if worst.status == "case_error":  # input/golden problem: reported, attributed to the run
            ev.status, ev.error_kind = Status.RUNTIME_ERROR.value, "case_error"
        else:
            ev.status, ev.error_kind = worst.status, worst.error_kind
        ev.error = f"{prefix}{worst.name}: {worst.message}".strip()
        return True

    def _summarize(self, op: Operator, run: RunResult, durations: list[float], case_name: str = "") -> dict[str, Any]:
        """A compact, JSON-friendly profile summary of one benchmark run."""
        summary: dict[str, Any] = {"task_duration_us": sum(durations) / len(durations),
                                   "runs_us": durations, "block_dim": run.block_dim, "tiling_key": run.tiling_key}
        try:
            prof = self.backend.load_profile(run, op.kernel_entry)
            summary.update(json.loads(json.dumps(prof.summary(top=5).to_dict(), default=str)))
            if self.config.profile_dir:
                where = Path(self.config.profile_dir) / op.digest[:16] / _safe_name(case_name)
                prof.write(where)
                summary["profile_dir"] = str(where)
            summary["task_duration_us"] = sum(durations) / len(durations)
        except Exception as e:  # noqa: BLE001 - the summary is best-effort; raw scalars remain
            summary["summary_error"] = f"{type(e).__name__}: {e}"
            summary.update({k: v for k, v in run.profile.items() if isinstance(v, (int, float, str))})
        return summary
