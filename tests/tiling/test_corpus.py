"""Knob roles do not depend on how a host names things (issue 32, item 4).

Each program of ``tests/tiling/corpus`` exists twice: written the way other authors write
tilings (``*.theirs.cpp``: ``kMaxBlocks``, ``LIMIT``, ``cfg_tile``, ``n_vec``; clamps as
``std::min``, ternaries, ``if`` with a sentinel test, a helper's early return; knobs in a
namespace, a struct or the evolvable block) and with the names ``ops/`` uses (``*.ours.cpp``).
Both, as the host of the ``naive_add`` fixture, must give the same knobs, roles, defaults and
domains, and each program's expected knobs are stated here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ascendopt.operator import Operator
from ascendopt.tiling.space import KnobSpace

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
FIXTURE = HERE.parent / "fixtures" / "ops" / "naive_add"
HOST = "op_host/naive_add.cpp"

#: Expected knobs (named as in ``theirs``): role and default. BUFFER_NUM is the kernel's queue depth.
EXPECTED = {
    "if_sentinel": {"cfg_tile": ("tile", 256), "kMaxBlocks": ("core_cap", 1), "BUFFER_NUM": ("buffer_num", 2)},
    "min_namespace": {"LIMIT": ("core_cap", 8), "CHUNK": ("tile", 1024), "BUFFER_NUM": ("buffer_num", 2)},
    "ternary_region": {"LIMIT": ("core_cap", 8), "slack": ("ub_reserve", 1024), "depth": ("ub_parts", 2),
                       "BUFFER_NUM": ("buffer_num", 2)},
    "struct_grain": {"kMaxBlocks": ("core_cap", 4), "kTile": ("tile", 512), "kMinShare": ("core_grain", 4096),
                     "BUFFER_NUM": ("buffer_num", 2)},
    "early_return": {"cfg_tile": ("tile", 2048), "kMaxBlocks": ("core_cap", 6), "BUFFER_NUM": ("buffer_num", 2)},
}


def names(case: str) -> dict[str, str]:
    """theirs -> ours, from the first line of the ``theirs`` program."""
    first = (CORPUS / f"{case}.theirs.cpp").read_text().splitlines()[0]
    return dict(pair.split("=") for pair in first.split(":", 1)[1].split())


def space(case: str, side: str) -> KnobSpace:
    """The knob space of the fixture with the program as its host (the common end of the
    tiling function and the OpDef appended from ``tail.inc``)."""
    host = (CORPUS / f"{case}.{side}.cpp").read_text() + (CORPUS / "tail.inc").read_text()
    op = Operator.load(FIXTURE).with_file(HOST, host)
    return KnobSpace.from_operator(op)


def summary(s: KnobSpace, rename: dict[str, str] | None = None) -> dict[str, tuple]:
    rename = rename or {}
    return {rename.get(k.id, k.id): (k.role, k.default, k.scope, s.domain(k.id)) for k in s.knobs}


def test_every_program_has_both_versions():
    theirs = {p.name.split(".")[0] for p in CORPUS.glob("*.theirs.cpp")}
    ours = {p.name.split(".")[0] for p in CORPUS.glob("*.ours.cpp")}
    assert theirs == ours == set(EXPECTED)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_their_names_give_the_expected_knobs(case):
    s = space(case, "theirs")
    assert {k.id: (k.role, k.default) for k in s.knobs} == EXPECTED[case]


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_same_knobs_and_roles_with_our_names(case):
    theirs, ours = space(case, "theirs"), space(case, "ours")
    assert summary(theirs, names(case)) == summary(ours)


def test_ours_is_theirs_renamed():
    """The two versions differ only in names: renaming ``theirs`` gives ``ours`` (comments and
    the mapping line aside)."""
    for case in EXPECTED:
        text = (CORPUS / f"{case}.theirs.cpp").read_text().split("\n", 1)[1]
        for a, b in names(case).items():
            text = re.sub(rf"\b{re.escape(a)}\b", b, text)
        assert text == (CORPUS / f"{case}.ours.cpp").read_text().split("\n", 1)[1]
