"""Issue 32's add example: a new user's host whose core clamp (``if (MAX_CORES != 0 && coreNum >
MAX_CORES) coreNum = MAX_CORES;``) must stay a knob although the core count also divides the
work (``(total + coreNum - 1) / coreNum``, the shape of an alignment granule)."""

from pathlib import Path

from typer.testing import CliRunner

from ascendopt.cli import app
from ascendopt.operator import Operator
from ascendopt.tiling.space import KnobSpace

OP = Path(__file__).resolve().parents[1] / "fixtures" / "ops" / "naive_add"


def test_core_clamp_of_a_new_users_host_is_a_knob():
    space = KnobSpace.from_operator(Operator.load(OP))
    roles = {k.id: (k.role, k.default) for k in space.knobs}
    assert roles == {"TILE_ELEMS": ("tile", 256), "MAX_CORES": ("core_cap", 1), "BUFFER_NUM": ("buffer_num", 2)}
    assert space.domain("MAX_CORES").hi == space.soc.aiv_cores


def test_show_space_lists_the_core_clamp():
    r = CliRunner().invoke(app, ["tune", str(OP), "--show-space"])
    assert r.exit_code == 0, r.output
    assert "MAX_CORES" in r.output and "core_cap" in r.output
