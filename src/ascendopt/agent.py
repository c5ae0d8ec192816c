"""The episodic agent: rewind, then outer rounds of Stage I and Stage II under one budget.

Per operator, every evaluation (the original, rewind's de-optimizations, Stage I's rewrites
and their repairs, Stage II's tiling candidates) is charged once to one budget, enforced by
the :class:`~ascendopt.evaluate.budget.BudgetedEvaluator`; each phase gets a share of it
(:class:`~ascendopt.evaluate.budget.SubBudget`) and stops there.

1. **Original**: evaluated first (its latency is the reference).
2. **Rewind** (its share, default 20): unless the bank already holds experiences measured on
   this operator, or the bank is frozen, the operator is rewound and its kept pairs join the
   bank before Stage I retrieves from it.
3. **Stage I and Stage II** until the budget is spent, scheduled by ``AgentConfig.schedule``:

   * ``gain`` (default): slices of budget (one Stage I search step, or one Stage II round of
     ``stage2_steps`` evaluations), each to the stage with the higher expected gain per charged
     evaluation: recent log-latency improvement over the evaluations it cost, an optimistic
     prior for a stage not tried yet and a floor so a stalled stage is retried once the other
     stalls (:mod:`ascendopt.agent_schedule`, like TVM's gradient task scheduler);
   * ``fixed``: rounds of ``stage1_steps`` Stage I steps, then ``stage2_steps`` Stage II
     evaluations.

   A Stage I step is a search step (:mod:`ascendopt.agent_beam`): proposals from the current
   kernel and from a frontier of up to ``beam_width`` neutral rewrites, so that a chain whose
   first link alone is not faster can be accepted when its end is; each accepted rewrite
   (or chain) becomes the current kernel and, unless the bank is frozen, an *online*
   experience, whichever rewriter made it (:mod:`ascendopt.bank.learn`); what came of every
   proposal (and of every rewind attempt) is written back to the bank, updating the value of
   the experiences that led to it and the failure rules (:mod:`ascendopt.bank.outcomes`).
   Stage II tunes the tiling program of the current kernel (its knob space is rebuilt from
   the current sources when the kernel changed; while it is unchanged, the space and the
   strategy carry over from round to round, so what the strategy learnt is not relearnt).

Who owns what: Stage II owns every numeric value the tiling search can see (tiling knobs and
kernel compile-time constants such as ``BUFFER_NUM``); Stage I owns code structure (which
instructions, which synchronisation, how copies are issued). Stage I's rewrites never edit a
named constant that is a knob (see :mod:`ascendopt.transforms.library.double_buffer`).

The loop is deterministic given the records: re-running the same command on the same store
replays every evaluation from the records without charge (``--resume`` continues the same
run, so the budget already spent is counted once; the schedule counts a replayed evaluation
as charged, as it was when first run, so it makes the same choices).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ascendopt.bank.learn import learn_accepted
from ascendopt.bank.feedback import record_rewind, record_step
from ascendopt.hw.soc import DEFAULT_SOC
from ascendopt.bank.store import ExperienceBank
from ascendopt.cases import Case
from ascendopt.evaluate.budget import BudgetedEvaluator, BudgetExhausted, SubBudget
from ascendopt.evaluate.evaluator import Evaluation
from ascendopt.operator import Operator
from ascendopt.profile.diagnosis import kernel_cores
from ascendopt.agent_beam import Frontier, SearchStep, chain_record, link_label, search_step
from ascendopt.agent_schedule import DEFAULT_FLOOR, DEFAULT_WINDOW, GainScheduler, log_gain
from ascendopt.refine.rewriter import Rewriter
from ascendopt.refine.stage1 import StepConfig, StepServices
from ascendopt.evaluate.verdict import MeasureCallback, MeasureCallbacks, Measured, faster, noise_threshold

DEFAULT_BUDGET = 230
DEFAULT_REWIND_BUDGET = 20


@dataclass
class AgentConfig:
    """Knobs of the loop (see the module docstring).

    Attributes:
        rounds: Outer rounds (``fixed``) or slices (``gain``) at most (None: until the budget
            is spent or nothing moves).
        schedule: ``gain`` (each slice to the stage with the higher expected gain per charged
            evaluation, :mod:`ascendopt.agent_schedule`) or ``fixed`` (rounds of
            ``stage1_steps`` Stage I steps then ``stage2_steps`` Stage II evaluations).
        stage1_steps: Stage I steps per round (``fixed``).
        stage1_candidates: Proposals evaluated per Stage I step.
        stage2_steps: Stage II evaluations per round (per Stage II slice with ``gain``).
        rewind_budget: Rewind's share (0: no rewind).
        rewind_depth: Chained removals in rewind.
        k: Experiences retrieved per Stage I step (0 with ``use_experience=False``).
        use_experience: Retrieve experiences (False: the ``--no-experience`` ablation).
        only: ``stage1`` or ``stage2`` to run one stage alone.
        freeze_bank: Never add to the bank (ablations).
        exclude_ops: Operators whose own experiences are not retrieved (held-out runs).
        repairs: Repairs of a failed proposal (LLM rewriter).
        strategy: Stage II strategy.
        seed: Seed of Stage II's strategy (round or slice r uses seed + r).
        beam_width: Neutral rewrites Stage I's search keeps to build on (0: greedy), see
            :mod:`ascendopt.agent_beam`.
        chain_depth: Longest chain of rewrites Stage I accepts at once.
        gain_window: Recent slices per stage the ``gain`` schedule estimates its rate from.
        gain_floor: Lowest rate (log-gain per charged evaluation) a tried stage is given.
    """

    rounds: int | None = None
    schedule: str = "gain"
    stage1_steps: int = 2
    stage1_candidates: int = 3
    stage2_steps: int = 20
    rewind_budget: int = DEFAULT_REWIND_BUDGET
    rewind_depth: int = 2
    k: int = 5
    use_experience: bool = True
    only: str | None = None
    freeze_bank: bool = False
    exclude_ops: tuple[str, ...] = ()
    repairs: int = 1
    strategy: str = "evo"
    seed: int = 0
    beam_width: int = 2
    chain_depth: int = 2
    gain_window: int = DEFAULT_WINDOW
    gain_floor: float = DEFAULT_FLOOR


@dataclass
class Accepted:
    """One change of the current best operator."""

    stage: str
    digest: str
    parent: str
    latency_us: float
    parent_us: float
    what: str
    experiences: list[str] = field(default_factory=list)
    diff: str = ""
    chain: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class OptimizeResult:
    """Outcome of :func:`optimize` for one operator."""

    op: str
    baseline_us: float | None
    best_us: float | None
    best_op: Operator | None
    accepted: list[Accepted] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)
    charged_by_stage: dict[str, int] = field(default_factory=dict)
    charged: int = 0
    rounds: int = 0
    stop_reason: str = ""
    bank_added: int = 0
    seconds: float = 0.0
    schedule: list[dict[str, Any]] = field(default_factory=list)

    @property
    def speedup(self) -> float | None:
        if self.baseline_us and self.best_us:
            return self.baseline_us / self.best_us
        return None

    def to_dict(self) -> dict[str, Any]:
        return {"op": self.op, "baseline_us": self.baseline_us, "best_us": self.best_us, "speedup": self.speedup,
                "best_digest": None if self.best_op is None else self.best_op.digest,
                "accepted": [a.to_dict() for a in self.accepted], "steps": self.steps,
                "charged_by_stage": self.charged_by_stage, "charged": self.charged, "rounds": self.rounds,
                "stop_reason": self.stop_reason, "bank_added": self.bank_added, "seconds": round(self.seconds, 2),
                "schedule": self.schedule}


def bank_covers(bank: ExperienceBank | None, op_name: str) -> bool:
    """Whether the bank holds experiences measured on this operator."""
    return bank is not None and any(op_name in e.seen_on for e in bank.entries())


def optimize(op: Operator, cases: Sequence[Case], beval: BudgetedEvaluator, rewriter: Rewriter,
             bank: ExperienceBank | None, cfg: AgentConfig | None = None,
             on_event: Callable[[str, dict[str, Any]], None] | None = None,
             callbacks: Sequence[MeasureCallback] = ()) -> OptimizeResult:
    """Optimizes one operator within ``beval``'s budget (see the module docstring).
    ``callbacks`` run after the loop's own measure callbacks (:func:`record_accepted`,
    :func:`online_experience`) on every judged and accepted candidate, and get the run's
    ``finished`` event last (e.g. :func:`~ascendopt.evaluate.verdict.clean_profiles`)."""
    cfg = cfg or AgentConfig()
    t0 = time.perf_counter()
    emit = on_event or (lambda kind, data: None)
    res = OptimizeResult(op.name, None, None, None)
    try:
        _run(op, cases, beval, _Run(rewriter, bank, cfg, tuple(callbacks)), res, emit)
    except KeyboardInterrupt:
        res.stop_reason = "interrupted"
    finally:
        res.charged = beval.report(op.name).charged
        res.seconds = time.perf_counter() - t0
        res.charged_by_stage = _charged_by_stage(beval, op.name)
        MeasureCallbacks(callbacks)(Measured("finished", "run", res.best_op or op, None, op, None, None, res))
    return res


def stage_of(origin: str) -> str:
    """The stage an evaluation's origin names (``stage2/evo`` -> ``stage2``; empty: original)."""
    return (origin or "original").split("/")[0]


def _charged_by_stage(beval: BudgetedEvaluator, op_name: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in beval.store.list_evaluations(beval.run_id, op_name):
        if r.charged:
            stage = stage_of(r.evaluation.origin)
            out[stage] = out.get(stage, 0) + 1
    return out


@dataclass
class _State:
    """The loop's state: the current kernel, its evaluation, what Stage I has tried, its frontier."""

    cur: Operator
    cur_ev: Evaluation
    cores: int
    frontier: Frontier
    tried: set[str] = field(default_factory=set)
    stage2: dict[str, Any] = field(default_factory=dict)  # Stage II's space and strategy while the kernel stays
    callbacks: MeasureCallbacks = field(default_factory=MeasureCallbacks)  # post-evaluation effects, in order
    llm_client: Any = None  # the LLM rewriter's client: Stage II's evo strategy gets the LLM tiling mutator


def _spent(beval: BudgetedEvaluator, op_name: str) -> int:
    """Charged evaluations so far, counting a resumed run's replayed ones as charged (as they
    were when first run), so that a replay takes the same decisions."""
    return beval.report(op_name).charged + getattr(beval, "replayed", {}).get(op_name, 0)


@dataclass(frozen=True)
class _Run:
    """What stays the same through one run of the loop: the rewriter, the bank, the config and
    the caller's measure callbacks."""

    rewriter: Rewriter
    bank: ExperienceBank | None
    cfg: AgentConfig
    callbacks: tuple[MeasureCallback, ...] = ()


def _run(op: Operator, cases: Sequence[Case], beval: BudgetedEvaluator, run: _Run, res: OptimizeResult,
         emit: Callable[[str, dict[str, Any]], None]) -> None:
    cfg, bank = run.cfg, run.bank
    try:
        base = beval.evaluate(op, cases)
    except BudgetExhausted:
        res.stop_reason = "budget"
        return
    emit("original", {"status": base.status, "latency_us": base.latency_us})
    if not base.ok or base.latency_us is None:
        res.stop_reason = "original_failed"
        return
    res.baseline_us = res.best_us = base.latency_us
    res.best_op = op
    cores = kernel_cores(beval.evaluator.backend.soc, next(iter(base.profile.values()), None))

    # rewind: its share of the budget, unless the bank knows this operator already
    if (cfg.only != "stage2" and cfg.rewind_budget > 0 and bank is not None and not cfg.freeze_bank
            and not bank_covers(bank, op.name)):
        from ascendopt.rewind.engine import RewindConfig, rewind
        from ascendopt.session import motifs_for

        before = len(bank)
        rw = rewind(op, cases, SubBudget(beval, op.name, cfg.rewind_budget),
                    motifs_for(getattr(beval.evaluator, "soc_name", "") or DEFAULT_SOC),
                    RewindConfig(depth=cfg.rewind_depth), bank=bank,
                    on_attempt=lambda a: record_rewind(bank, op.name, a))
        res.bank_added += len(bank) - before
        emit("rewind", {"kept": len(rw.kept), "charged": rw.charged, "bank_size": len(bank)})

    st = _State(op, base, cores, Frontier(cfg.beam_width, cfg.chain_depth), {op.digest})
    st.llm_client = getattr(run.rewriter, "client", None)
    st.callbacks = MeasureCallbacks([record_accepted(res), online_experience(bank, cfg, cores, res, run.rewriter),
                                   *run.callbacks])
    args = (st, cases, beval, run, res, emit)
    if cfg.schedule == "fixed":
        _fixed_loop(*args)
    elif cfg.schedule == "gain":
        _gain_loop(*args)
    else:
        raise ValueError(f"unknown schedule {cfg.schedule!r} (gain or fixed)")


def _fixed_loop(st: _State, cases: Sequence[Case], beval: BudgetedEvaluator, run: _Run, res: OptimizeResult,
                emit: Callable[[str, dict[str, Any]], None]) -> None:
    """Rounds of ``stage1_steps`` Stage I steps, then ``stage2_steps`` Stage II evaluations."""
    cfg = run.cfg
    name, rnd = st.cur.name, 0
    while beval.remaining(name) != 0 and (cfg.rounds is None or rnd < cfg.rounds):
        rnd += 1
        res.rounds = rnd
        spent_before = _spent(beval, name)
        if cfg.only != "stage2":
            for _ in range(cfg.stage1_steps):
                if beval.remaining(name) == 0 or _stage1_slice(st, rnd, cases, beval, run, res, emit):
                    break
        if cfg.only != "stage1" and beval.remaining(name) != 0:
            _stage2_slice(st, cases, beval, cfg, rnd, res, emit)
        if _spent(beval, name) == spent_before:
            res.stop_reason = "converged (a round proposed nothing new)"
            return
    res.stop_reason = "budget" if beval.remaining(name) == 0 else f"{rnd} rounds"


def _gain_loop(st: _State, cases: Sequence[Case], beval: BudgetedEvaluator, run: _Run, res: OptimizeResult,
               emit: Callable[[str, dict[str, Any]], None]) -> None:
    """Slices of one stage at a time, each to the stage with the higher expected gain per
    charged evaluation (:mod:`ascendopt.agent_schedule`)."""
    cfg = run.cfg
    stages = tuple(s for s in ("stage1", "stage2") if cfg.only in (None, s))
    sched = GainScheduler(stages, cfg.gain_window, cfg.gain_floor)
    name, n = st.cur.name, 0
    while beval.remaining(name) != 0 and (cfg.rounds is None or n < cfg.rounds):
        stage = sched.pick()
        if stage is None:
            res.stop_reason = "converged (no stage has anything new to try)"
            return
        n += 1
        res.rounds = n
        before_us, before_spent, before = st.cur_ev.latency_us, _spent(beval, name), st.cur.digest
        if stage == "stage1":
            _stage1_slice(st, n, cases, beval, run, res, emit)
        else:
            _stage2_slice(st, cases, beval, cfg, n, res, emit)
        charged, gain = _spent(beval, name) - before_spent, log_gain(before_us, st.cur_ev.latency_us)
        changed = st.cur.digest != before
        sched.record(stage, gain, charged, changed, idle=charged == 0 and not (stage == "stage1" and st.frontier.nodes))
        res.schedule.append({"slice": n, "stage": stage, "charged": charged, "gain": round(gain, 6),
                             "changed": changed, **sched.state()})
    res.stop_reason = "budget" if beval.remaining(name) == 0 else f"{n} slices"


def _stage1_slice(st: _State, rnd: int, cases: Sequence[Case], beval: BudgetedEvaluator, run: _Run,
                  res: OptimizeResult, emit: Callable[[str, dict[str, Any]], None]) -> bool:
    """One Stage I search step (:func:`ascendopt.agent_beam.search_step`); True when it proposed
    nothing new or ran out of budget."""
    cfg, rewriter, bank = run.cfg, run.rewriter, run.bank
    services = StepServices(beval, rewriter, bank if cfg.use_experience else None,
                            on_eval=lambda t: st.callbacks(Measured("judged", "stage1", t.proposal.op, t.evaluation,
                                                                    st.cur, st.cur_ev, t.verdict, t)))
    step_cfg = StepConfig(k=cfg.k if cfg.use_experience else 0, candidates=cfg.stage1_candidates,
                          repairs=cfg.repairs, exclude_ops=cfg.exclude_ops, cores=st.cores)
    step = search_step(st.cur, st.cur_ev, st.frontier, cases, services, st.tried, step_cfg)
    for node, r in step.expanded:
        res.steps.append({"round": rnd, "stage": "stage1", "from": node.op.digest, "chain": node.labels(),
                          **r.to_dict()})
        if bank is not None and not cfg.freeze_bank:
            record_step(bank, st.cur.name, r)
    emit("stage1", {"round": rnd, "proposed": step.proposed, "accepted": step.accepted is not None,
                    "chain": len(step.chain), "frontier": len(st.frontier.nodes)})
    if step.accepted is not None:
        st.cur, st.cur_ev = _accept_stage1(step, st)
        st.frontier.clear()
    return step.proposed == 0 or step.exhausted


def _stage2_slice(st: _State, cases: Sequence[Case], beval: BudgetedEvaluator, cfg: AgentConfig, rnd: int,
                  res: OptimizeResult, emit: Callable[[str, dict[str, Any]], None]) -> None:
    """One Stage II round on the current kernel; a new kernel clears Stage I's frontier (its
    nodes were neutral against the kernel before)."""
    before = st.cur.digest
    st.cur, st.cur_ev = _stage2_round(st, cases, beval, cfg, rnd, res, emit)
    if st.cur.digest != before:
        st.frontier.clear()


def _accept_stage1(step: SearchStep, st: _State) -> tuple[Operator, Evaluation]:
    """The accepted chain of a search step becomes the current kernel; the ``accepted`` event
    goes to the run's measure callbacks (the result's record, the online experience, ...)."""
    t = step.accepted
    assert t is not None and step.parent is not None
    assert t.evaluation.latency_us is not None and st.cur_ev.latency_us is not None
    new, new_ev, cur, cur_ev = t.proposal.op, t.evaluation, st.cur, st.cur_ev
    acc = Accepted("stage1", new.digest, cur.digest, new_ev.latency_us, cur_ev.latency_us,
                   " -> ".join(link_label(x) for x in step.chain),
                   [e for x in step.chain for e in x.proposal.experiences], new.diff(cur), chain_record(step.chain))
    st.callbacks(Measured("accepted", "stage1", new, new_ev, cur, cur_ev, t.verdict, {"accepted": acc, "step": step}))
    return new, new_ev


def record_accepted(res: OptimizeResult) -> MeasureCallback:
    """Measure callback: an accepted change goes into the result and becomes its best."""
    def cb(m: Measured) -> None:
        if m.event == "accepted":
            res.accepted.append(m.detail["accepted"])
            res.best_op, res.best_us = m.candidate, m.evaluation.latency_us
    return cb


def online_experience(bank: ExperienceBank | None, cfg: AgentConfig, cores: int, res: OptimizeResult,
                      rewriter: Rewriter | None = None) -> MeasureCallback:
    """Measure callback: any accepted Stage I rewrite is a measured lesson, whichever rewriter
    made it (slow = the kernel it was applied to, fast = after; for a chain, its last link on the
    node before it), added to the bank unless the bank is frozen (:func:`bank.learn.learn_accepted`)."""
    def cb(m: Measured) -> None:
        if m.event != "accepted" or m.stage != "stage1" or bank is None or cfg.freeze_bank:
            return
        step = m.detail["step"]
        t, parent = step.accepted, step.parent
        res.bank_added += int(learn_accepted(bank, t.proposal, parent.op, parent.ev, m.evaluation, cores, rewriter))
    return cb


def _stage2_round(st: _State, cases: Sequence[Case], beval: BudgetedEvaluator, cfg: AgentConfig, rnd: int,
                  res: OptimizeResult, emit: Callable[[str, dict[str, Any]], None]) -> tuple[Operator, Evaluation]:
    """One Stage II round on the current kernel. The knob space and the strategy of the
    previous round are kept (``st.stage2``) while the kernel is unchanged (what the strategy
    learnt, e.g. evo's retired knobs, is not relearnt); a changed kernel gets new ones."""
    from ascendopt.tiling.search import tune
    from ascendopt.tiling.space import KnobSpace
    from ascendopt.llm.tiling_mutator import strategy_options
    from ascendopt.tiling.strategies import make_strategy

    cur, cur_ev, memo = st.cur, st.cur_ev, st.stage2
    soc_name = getattr(beval.evaluator, "soc_name", "") or DEFAULT_SOC
    try:
        space = memo["space"] if memo.get("digest") == cur.digest else KnobSpace.from_operator(cur, soc=soc_name)
    except Exception as e:  # noqa: BLE001 - no evolvable region or knobs: Stage II sits this round out
        res.steps.append({"round": rnd, "stage": "stage2", "skipped": f"{type(e).__name__}: {e}"})
        return cur, cur_ev
    if not space.knobs:
        res.steps.append({"round": rnd, "stage": "stage2", "skipped": "no knobs"})
        return cur, cur_ev
    if memo.get("digest") != cur.digest:
        llm = strategy_options(st.llm_client, cur, cfg.strategy)
        memo.update(digest=cur.digest, space=space, strategy=make_strategy(cfg.strategy, space, seed=cfg.seed + rnd, **llm))
    sub = SubBudget(beval, cur.name, cfg.stage2_steps)
    tr = tune(cur, cases, sub, space, memo["strategy"], cfg.strategy)
    res.steps.append({"round": rnd, "stage": "stage2", "charged": tr.charged, "best_us": tr.best_latency_us,
                      "stop": tr.stop_reason})
    emit("stage2", {"round": rnd, "charged": tr.charged, "best_us": tr.best_latency_us})
    if tr.stop_reason == "interrupted":
        raise KeyboardInterrupt
    if tr.best_op is None or tr.best_latency_us is None or cur_ev.latency_us is None:
        return cur, cur_ev
    if faster(cur_ev.latency_us, tr.best_latency_us, noise_threshold(cur_ev).tau_us):
        best_ev = beval.evaluate(tr.best_op, cases)  # answered from the records, free
        acc = Accepted("stage2", tr.best_op.digest, cur.digest, tr.best_latency_us, cur_ev.latency_us,
                       "tiling: " + ", ".join(f"{k}={v}" for k, v in sorted(tr.best_config.items())),
                       [], tr.best_op.diff(cur))
        st.callbacks(Measured("accepted", "stage2", tr.best_op, best_ev, cur, cur_ev, None, {"accepted": acc}))
        return tr.best_op, best_ev
    return cur, cur_ev
