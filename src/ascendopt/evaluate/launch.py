"""Equivalence by launch, probing only what can still tell candidates apart.

:class:`~ascendopt.evaluate.budget.BudgetedEvaluator` answers a candidate from the records when
an evaluated one launches the same device program: the same kernel binaries and the same
launch on every case (:meth:`~ascendopt.evaluate.evaluator.Evaluator.launch_key`). Computing
that key runs the host tiling of *every* case of *every* candidate (one tiling-only runner
process each), although most candidates can be told apart from everything evaluated before
with far less:

* candidates whose binaries differ (a kernel rewrite, a kernel knob, a host change outside
  the knob slots) never share a key: when no evaluated candidate has the same builds, nothing
  is run at all;
* otherwise the cases are probed one at a time, largest first (where a tiling knob shows),
  and only against the evaluated candidates that still agree; probing stops as soon as none
  does. What an earlier candidate was never probed on is probed when a later one needs it
  (its operator is kept).

A :class:`LaunchIndex` makes exactly the decisions full keys make (the same candidates are
answered, by the same evaluations): two candidates match iff their builds and every case's
launch part are equal, and a failed tiling matches nothing (a full key would be None). What
differs is the record: a candidate never probed on every case is recorded without a launch
key. So the index only knows the candidates it was shown; it is used on a store holding only
its own run (the benchmark's per-pair stores), where no other record can answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ascendopt.cases import Case
from ascendopt.evaluate.evaluator import Evaluation, Evaluator, case_elements
from ascendopt.operator import Operator

@dataclass
class _Member:
    """A candidate that was evaluated (or is being, in the current batch)."""

    op: Operator
    parts: dict[int, Any] = field(default_factory=dict)  # case index -> launch part (None: failed)
    evaluation: Evaluation | None = None
    batch_index: int | None = None


class LaunchIndex:
    """The charged candidates of one run under one case list, grouped by their builds, with
    the launch parts probed so far (see the module docstring).

    Args:
        evaluator: Builds and runs the tiling probes.
        cases: The case list (its config key is the caller's business: one index per key).
    """

    def __init__(self, evaluator: Evaluator, cases: Sequence[Case]):
        self.evaluator = evaluator
        self.cases = tuple(cases)
        #: Probe order: largest case first (tiling knobs show there first), then case order.
        self.order = sorted(range(len(self.cases)), key=lambda i: (-case_elements(self.cases[i]), i))
        self._families: dict[str, tuple | None] = {}  # digest -> builds' keys (None: no key possible)
        self._builds: dict[str, dict] = {}
        self._parts: dict[str, dict[int, Any]] = {}  # digest -> case index -> launch part probed
        self._members: dict[tuple, list[_Member]] = {}
        self._by_digest: dict[str, _Member] = {}
        self.probes = 0  # tiling-only runs made

    # ------------------------------------------------------------------------ queries
    def family(self, op: Operator) -> tuple | None:
        """The keys of ``op``'s builds (None when a launch key is impossible: no tiling run,
        a malformed candidate, a failed build). Builds are made once per candidate."""
        if op.digest not in self._families:
            builds = self.evaluator.launch_builds(op, self.cases)
            if builds is None:
                self._families[op.digest] = None
            else:
                self._builds[op.digest] = builds
                self._families[op.digest] = tuple(sorted((combo, b.key) for combo, b in builds.items()))
        return self._families[op.digest]

    def _part(self, op: Operator, parts: dict[int, Any], i: int) -> Any:
        if i not in parts:
            self.probes += 1
            parts[i] = self.evaluator.launch_part(op, self.cases, i, self._builds[op.digest])
        return parts[i]

    def match(self, op: Operator) -> _Member | None:
        """The member launching the same device program as ``op`` (None: no such member)."""
        fam = self.family(op)
        if fam is None:
            return None
        mine = self._parts.setdefault(op.digest, {})
        alive = [m for m in self._members.get(fam, []) if m.op.digest != op.digest]
        for i in self.order:
            if not alive:
                return None
            p = self._part(op, mine, i)
            if p is None:  # a failed tiling: no launch key, nothing matches
                return None
            alive = [m for m in alive if self._part(m.op, m.parts, i) == p]
        return alive[0] if alive else None

    def key(self, op: Operator) -> str:
        """``op``'s full launch key when every case was probed ('' otherwise)."""
        m = self._by_digest.get(op.digest)
        if m is None or len(m.parts) < len(self.cases):
            return ""
        return self.evaluator.launch_key_of(self.cases, [m.parts[i] for i in range(len(self.cases))]) or ""

    # ------------------------------------------------------------------------ updates
    def add(self, op: Operator, batch_index: int | None = None) -> None:
        """``op`` will be evaluated (``batch_index``: its place in the current batch): later
        candidates are matched against it."""
        fam = self.family(op)
        if fam is None or op.digest in self._by_digest:
            return
        m = _Member(op, self._parts.setdefault(op.digest, {}), batch_index=batch_index)
        self._members.setdefault(fam, []).append(m)
        self._by_digest[op.digest] = m

    def evaluated(self, op: Operator, evaluation: Evaluation) -> None:
        """``op``'s charged evaluation (what answers a later match)."""
        m = self._by_digest.get(op.digest)
        if m is not None:
            m.evaluation, m.batch_index = evaluation, None

    def drop_pending(self) -> None:
        """Forgets members whose evaluation never came (an interrupted batch): they answer nothing."""
        for fam, members in self._members.items():
            gone = [m for m in members if m.evaluation is None]
            if gone:
                self._members[fam] = [m for m in members if m.evaluation is not None]
                for m in gone:
                    del self._by_digest[m.op.digest]

    def known(self, op: Operator, evaluation: Evaluation) -> None:
        """``op`` was answered from the records by its digest: if that record is its own
        charged evaluation (a resumed run replaying its candidates), it becomes a member."""
        if evaluation.duplicate or op.digest in self._by_digest:
            return
        self.add(op)
        self.evaluated(op, evaluation)
