"""The one composition root: a validated :class:`RunSpec` -> backend, evaluator, budget,
executor, record store, experience bank and rewriter.

``optimize``, ``tune``, ``rewind``, ``bench`` (each pair in its worker) and the benchmark
scripts build what they run here and nowhere else, so the benchmark measures exactly the
program the commands run: the same evaluation config (inputs seeded from the run's seed, the
same benchmark cases), the same budgeted evaluator (``lazy_probes``: probing only what tells
a candidate apart, which a store holding other runs turns off by itself), the same SoC for
every consumer (backend, knob space, rewind motifs). Every component's seed comes from the
one seed of the spec (:class:`Seeds`). A bad spec raises :class:`SessionError`, which the
commands report as a usage error.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ascendopt.hw.soc import DEFAULT_SOC, SocError
from ascendopt.bank.transfer import import_json, open_default

DEFAULT_DB = Path("ascendopt.db")
DEFAULT_BANK_FILE = Path("ascendopt-bank.db")


class SessionError(ValueError):
    """A run spec that cannot be composed (unknown backend, no sandbox, unusable store/bank,
    bad LLM configuration); the message says what to change."""


@dataclass(frozen=True)
class Seeds:
    """Per-component seeds, all derived from the run's one seed.

    Attributes:
        inputs: Base seed of the candidates' inputs (``EvalConfig.seed``).
        strategy: Seed of a Stage II strategy (the agent's round ``r`` uses ``strategy + r``)
            and of a benchmark method.
        noise: Seed of the simulator's injected timing noise.
    """

    inputs: int
    strategy: int
    noise: int

    @classmethod
    def derive(cls, seed: int) -> "Seeds":
        return cls(inputs=seed, strategy=seed, noise=seed)


@dataclass(frozen=True)
class RunSpec:
    """Everything a run is made of, validated by :meth:`validate`.

    Attributes:
        command: ``optimize``, ``tune``, ``rewind`` or ``bench`` (recorded with the run).
        backend: ``sim`` or ``npu``.
        soc: The SoC (the device's on ``npu``).
        seed: The one seed (:class:`Seeds`).
        budget: Charged evaluations per operator (None: unlimited).
        workers: Candidates evaluated in parallel (processes).
        db: Record store (None: an in-memory store, e.g. a benchmark worker's).
        bank: Experience bank file (None: the shipped bank in memory).
        llm: LLM configuration file (None: the environment's, else offline).
        timeout_s: Seconds allowed per case run.
        noise_pct: Injected timing noise on the simulator (percent std).
        npu_mode: With ``npu``: ``device``, ``simulator`` or ``auto``.
        unsafe_no_sandbox: Run candidate code unconfined when there is no sandbox.
        cache_dir: Simulator build cache (None: the default).
        jobs: Threads inside one evaluation (0: one per core).
        profile_repeats: Timed runs per benchmark case.
        lazy_probes: Probe only what tells a candidate apart (see
            :class:`~ascendopt.evaluate.budget.BudgetedEvaluator`).
        lazy_verify: Stage II's candidates timed above its bar are not run on every case
            (``ReuseConfig.verify_lazily``; off by default).
    """

    command: str
    backend: str = "sim"
    soc: str = DEFAULT_SOC
    seed: int = 0
    budget: int | None = None
    workers: int = 1
    db: Path | None = DEFAULT_DB
    bank: Path | None = DEFAULT_BANK_FILE
    llm: Path | None = None
    timeout_s: float = 60.0
    noise_pct: float = 0.0
    npu_mode: str = "device"
    unsafe_no_sandbox: bool = False
    cache_dir: Path | None = None
    jobs: int = 0
    profile_repeats: int = 1
    lazy_probes: bool = True
    lazy_verify: bool = False

    @property
    def seeds(self) -> Seeds:
        return Seeds.derive(self.seed)

    def validate(self) -> "RunSpec":
        """Returns the spec; raises :class:`SessionError` on a value no component accepts."""
        if self.backend not in ("sim", "npu"):
            raise SessionError(f"{self.backend!r} is not a backend (sim, npu)")
        if self.budget is not None and self.budget < 1:
            raise SessionError("--budget must be at least 1")
        if self.workers < 1 or self.seed < 0 or self.timeout_s <= 0 or self.profile_repeats < 1:
            raise SessionError("workers and profile repeats must be at least 1, the seed at least 0 and the "
                               "timeout above 0")
        if self.llm is not None and not Path(self.llm).is_file():
            raise SessionError(f"--llm {self.llm}: no such file")
        if self.backend == "npu" and self.noise_pct:
            raise SessionError("--noise-pct injects noise into the simulator; the npu backend measures its own")
        if self.backend == "sim" and self.npu_mode != "device":
            raise SessionError("--npu-mode is for --backend npu")
        return self


@dataclass
class Session:
    """The components of one run, made on first use from its :class:`RunSpec`."""

    spec: RunSpec
    _backend: Any = None
    _store: Any = None
    owned: list[Any] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.spec.validate()

    # ------------------------------------------------------------------------- components
    @property
    def backend(self) -> Any:
        if self._backend is None:
            self._backend = make_backend(self.spec)
        return self._backend

    @property
    def soc(self) -> str:
        """The run's SoC: the backend's (the device's on ``npu``)."""
        return self.backend.soc.name if self.spec.backend == "npu" else self.spec.soc

    @property
    def store(self) -> Any:
        """The record store (SQLite at ``spec.db``, else in memory)."""
        if self._store is None:
            self._store = open_store(self.spec.db)
        return self._store

    def eval_config(self, bench_names: Sequence[str], cases: Sequence[Any] = (), profile_dir: str = "") -> Any:
        """The evaluation config every command uses: inputs from the run's seed, the given
        benchmark cases (empty: the largest case of each dtype combination of ``cases``)."""
        from ascendopt.evaluate.evaluator import EvalConfig, largest_per_dtype

        timed = tuple(bench_names) or (largest_per_dtype(cases) if cases else ())
        return EvalConfig(seed=self.spec.seeds.inputs, benchmark_cases=timed, profile_repeats=self.spec.profile_repeats,
                          run_timeout_s=self.spec.timeout_s, jobs=self.spec.jobs, profile_dir=profile_dir)

    def evaluator(self, bench_names: Sequence[str], cases: Sequence[Any] = (), profile_dir: str = "") -> Any:
        from ascendopt.evaluate.evaluator import Evaluator

        return Evaluator(self.backend, self.eval_config(bench_names, cases, profile_dir))

    def executor(self) -> Any:
        from ascendopt.evaluate.executors import InlineExecutor, LocalExecutor

        ex = LocalExecutor(self.spec.workers) if self.spec.workers > 1 else InlineExecutor()
        self.owned.append(ex)
        return ex

    def budgeted(self, evaluator: Any, label: str, run_config: Mapping[str, Any], executor: Any = None,
                 run_id: int | None = None, store: Any = None) -> Any:
        """A budgeted evaluator of one run (``run_id``: resume it) over the session's store
        (or ``store``)."""
        from ascendopt.evaluate.budget import BudgetedEvaluator, ReuseConfig

        return BudgetedEvaluator(evaluator, self.store if store is None else store, budget=self.spec.budget,
                                 executor=executor, run_id=run_id, run_label=label,
                                 run_config={"command": self.spec.command, **run_config},
                                 reuse=ReuseConfig(lazy_probes=self.spec.lazy_probes,
                                                   verify_lazily=self.spec.lazy_verify))

    def resume_run(self, op_name: str) -> int:
        """The id of the last run of this command on ``op_name`` in the store, to resume: the
        one resume mechanism (the run is reopened; its loop asks again, the candidates it had
        charged come back from the records without charge, and it goes on where it stood)."""
        runs = [r for r in self.store.list_runs() if r.op == op_name and r.config.get("command") == self.spec.command]
        if not runs:
            raise SessionError(f"--resume: no {self.spec.command} run of {op_name} in {self.spec.db}")
        return runs[-1].id

    def bank(self, seeded: bool = True) -> Any:
        """The experience bank (``spec.bank``; one that does not exist yet starts from the
        shipped bank when ``seeded`` (rewind starts from an empty one); None: the shipped bank
        in memory)."""
        from ascendopt.bank.store import DEFAULT_BANK_JSON, BankError, ExperienceBank

        if self.spec.bank is None:
            return open_default()
        path = Path(self.spec.bank)
        try:
            fresh = not path.exists()
            bank = ExperienceBank(path)
            if fresh and seeded and DEFAULT_BANK_JSON.exists():
                import_json(bank, DEFAULT_BANK_JSON)
        except (BankError, OSError) as e:
            raise SessionError(f"cannot open experience bank: {e}" if str(path) in str(e)
                               else f"cannot open experience bank {path}: {e}") from e
        return bank

    def llm_client(self) -> Any:
        """The LLM client when an endpoint is configured (``spec.llm`` or the environment),
        else None; its responses are cached in the record database (in memory without one)."""
        from ascendopt.llm.client import open_client
        from ascendopt.llm.config import ConfigError
        from ascendopt.llm.errors import LLMError

        try:
            return open_client(self.spec.llm, self.spec.db)
        except (ConfigError, LLMError) as e:
            raise SessionError(f"LLM configuration: {e}") from e

    def rewriter(self) -> Any:
        """Stage I's rewriter: the LLM one when an endpoint is configured, else the offline one."""
        from ascendopt.refine.llm_rewriter import LLMRewriter
        from ascendopt.refine.rewriter import OfflineRewriter

        client = self.llm_client()
        return OfflineRewriter() if client is None else LLMRewriter(client)

    def motifs(self, names: Sequence[str] | None = None) -> list[Any]:
        """Rewind's motifs (``names``: these, default all), built for the run's SoC."""
        return motifs_for(self.soc, names)

    def close(self) -> None:
        for ex in self.owned:
            ex.close()
        self.owned.clear()


def script_session(command: str = "bench", soc: str | None = None, **fields: Any) -> Session:
    """A benchmark script's session: what the commands compose, with an in-memory record store
    and the shipped bank in memory unless ``fields`` (further :class:`RunSpec` fields) say
    otherwise; ``soc``: the operator's SoC (a suite operator's ``soc``; None: the default)."""
    return Session(RunSpec(command, soc=soc or DEFAULT_SOC, **{"db": None, "bank": None, **fields}))


def motifs_for(soc: str, names: Sequence[str] | None = None) -> list[Any]:
    """The registered motifs (``names``: these) built for ``soc`` (a motif whose constructor
    takes the SoC gets it: its limits are the SoC's)."""
    from ascendopt.transforms import MOTIFS

    reg = MOTIFS.all()
    out = []
    for name in (list(reg) if names is None else names):
        cls = reg[name]
        out.append(cls(soc=soc) if "soc" in inspect.signature(cls).parameters else cls())
    return out


def make_backend(spec: RunSpec) -> Any:
    """The backend of ``spec`` (``sim``: the simulator under the sandbox policy, which this
    process then applies too; ``npu``: the device, see :mod:`ascendopt.backends.npu`)."""
    if spec.backend == "npu":
        from ascendopt.backends.npu.backend import NpuBackend

        return NpuBackend(mode=spec.npu_mode, soc=spec.soc)
    from ascendopt import sandbox
    from ascendopt.backends.sim.backend import SimBackend
    from ascendopt.backends.sim.build import SimBuilder

    policy = sandbox.Sandbox(allow_unsafe=spec.unsafe_no_sandbox)
    sandbox.configure(policy)
    try:
        policy.require()
    except sandbox.SandboxUnavailable as e:
        raise SessionError(str(e)) from e
    builder = SimBuilder(cache_dir=Path(spec.cache_dir)) if spec.cache_dir else None
    try:
        return SimBackend(spec.soc, builder=builder, noise_pct=spec.noise_pct, noise_seed=spec.seeds.noise,
                          sandbox=policy)
    except (SocError, ValueError) as e:
        raise SessionError(str(e)) from e


def open_store(db: Path | None) -> Any:
    """The record store at ``db`` (in memory when None)."""
    from ascendopt.evaluate.store import MemoryStore, SQLiteStore, StoreError

    if db is None:
        return MemoryStore()
    try:
        return SQLiteStore(db)
    except (StoreError, OSError) as e:
        raise SessionError(f"cannot open record store: {e}" if str(db) in str(e)
                           else f"cannot open record store {db}: {e}") from e
