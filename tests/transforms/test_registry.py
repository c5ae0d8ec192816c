"""Optimizations as objects: each states its facts once; its motif and rewrite take them from it."""

import pytest

from ascendopt.rewind.engine import optimizing_rewrite
from ascendopt.transforms import MOTIFS, REWRITES, Motif, Optimization, Rewrite, optimizations, register, rewrite_of
from ascendopt.transforms.families import FAMILIES


def test_every_optimization_has_a_transform_and_states_its_facts_once():
    opts = optimizations()
    assert len(opts) == 20
    for name, o in opts.items():
        assert o.family in FAMILIES and o.title and o.mechanism and o.bottleneck and o.scope in ("kernel", "host")
        assert o.motif is not None or o.rewrite is not None
        for cls in (o.motif, o.rewrite):
            if cls is not None:
                assert cls.optimization is o
                assert (cls.family, cls.title, cls.mechanism, cls.bottleneck, cls.scope) == \
                    (o.family, o.title, o.mechanism, o.bottleneck, o.scope)
        if o.rewrite is not None:
            assert o.rewrite.name == name and issubclass(o.rewrite, Rewrite) and o.rewrite.direction == "optimize"
        if o.motif is not None:
            assert issubclass(o.motif, Motif) and o.motif.direction == "deoptimize"


def test_registry_views_by_direction():
    assert set(MOTIFS.all()) == {o.motif.name for o in optimizations().values() if o.motif}
    assert set(REWRITES.all()) == {o.rewrite.name for o in optimizations().values() if o.rewrite}
    pairs = {o.motif.name: o.rewrite.name for o in optimizations().values() if o.motif and o.rewrite}
    assert pairs == {"double_buffer": "double_buffer", "scalar_loop": "vectorize_scalar_loop",
                     "extra_cast": "drop_cast_roundtrip", "tail_per_element": "datacopypad_tail",
                     "split_copy": "merge_copies", "pipe_barrier": "drop_barrier",
                     "serialize_copy_compute": "drop_event_wait", "invariant_into_loop": "hoist_invariant",
                     "unfuse": "fuse_mul_add"}
    assert rewrite_of(MOTIFS.get("scalar_loop")) is REWRITES.all()["vectorize_scalar_loop"]
    assert rewrite_of(MOTIFS.get("shrink_tile")) is None
    with pytest.raises(KeyError):
        MOTIFS.get("vectorize_scalar_loop")


def test_registration_checks():
    with pytest.raises(ValueError):
        Optimization("x", "no_such_family", "t", "m", "b")
    with pytest.raises(ValueError):
        @register
        class NoOptimization(Motif):  # noqa: F841 - the decorator refuses it
            name = "nothing"

            def find(self, op):
                return []

            def edits(self, op, site):
                return []


def test_the_rewrite_an_experience_names_is_the_optimization_s_own():
    from tests.rewind.fake import fake_op

    single = fake_op().with_file("op_kernel/fake_op.cpp", fake_op().files["op_kernel/fake_op.cpp"]
                                 .replace("InitBuffer(inQ, BUFFER_NUM, 256)", "InitBuffer(inQ, 1, 256)"))
    name, sites = optimizing_rewrite(MOTIFS.get("double_buffer"), single)
    assert name == "double_buffer" and sites
    assert optimizing_rewrite(MOTIFS.get("fewer_cores"), single) == ("", [])
