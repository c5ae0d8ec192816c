"""The offline rewriter ranks before it builds, builds lazily, and shares its site cache with
retrieval."""

from types import SimpleNamespace

from ascendopt.bank.retrieve import rewrite_applies
from ascendopt.refine.rewriter import OfflineRewriter, RewriteContext
from ascendopt.transforms import REWRITES
from ascendopt.transforms import sites as site_cache

from .conftest import load


class Counting:
    """Wraps a rewrite and counts the rewrites it builds."""

    def __init__(self, inner):
        self.inner, self.built = inner, 0
        self.name, self.family, self.anchors = inner.name, inner.family, inner.anchors

    def find(self, op):
        return self.inner.find(op)

    def apply(self, op, site):
        self.built += 1
        return self.inner.apply(op, site)


def _hit(rewrite, family, speedup, score=1.0):
    exp = SimpleNamespace(applicability={"rewrite": rewrite}, family=family, speedup=speedup, id=f"e-{rewrite}")
    return SimpleNamespace(experience=exp, score=score)


def _ctx(op, hits=()):
    return RewriteContext(op, None, None, list(hits), set())


def test_propose_is_the_prefix_of_the_full_ranking_and_builds_only_what_it_returns():
    op = load("level2/rms_norm")   # drop_barrier sites first in registry order, then double_buffer's
    hits = [_hit("double_buffer", "pipeline_overlap", 1.3), _hit("drop_barrier", "sync_elimination", 0.9)]
    full = OfflineRewriter().candidates(_ctx(op, hits))
    assert len(full) > 3
    assert full[0].rewrite == "double_buffer" and full[-1].rewrite == "drop_barrier"
    assert all(a.prior >= b.prior for a, b in zip(full, full[1:]))          # ranked before building
    for n in range(len(full) + 1):
        got = OfflineRewriter().propose(_ctx(op, hits), n)
        assert [p.op.digest for p in got] == [p.op.digest for p in full[:n]]
    counting = [Counting(cls()) for cls in REWRITES.all().values()]
    assert len(OfflineRewriter(counting).propose(_ctx(op, hits), 2)) == 2
    assert sum(c.built for c in counting) == 2                              # stops at the n needed


def test_a_transform_without_its_anchor_nodes_is_not_asked():
    op = load("level1/abs_custom")
    loops = Counting(REWRITES.get("merge_copies"))
    loops.anchors = ("no_such_node_type",)
    asked = []
    loops.find = lambda o: asked.append(o) or []
    assert OfflineRewriter([loops]).propose(_ctx(op), 3) == [] and asked == []


def test_retrieval_and_proposal_share_the_per_digest_site_cache():
    op = load("level1/abs_custom")
    site_cache.clear_cache()
    rewrite_applies("double_buffer", op)
    before = site_cache.cache_info()
    OfflineRewriter([REWRITES.get("double_buffer")]).propose(_ctx(op), 1)
    after = site_cache.cache_info()
    assert before["misses"] == 1 and after["misses"] == 1 and after["hits"] == before["hits"] + 1


class _Appends:
    """A fake rewrite with one site that appends a comment; ``relieves`` as its optimization's."""

    anchors = ()

    def __init__(self, name, relieves=()):
        self.name, self.family, self.relieves = name, "vectorization", tuple(relieves)

    def find(self, op):
        from ascendopt.transforms.base import Site

        return [Site(self.name, op.kernel_files()[0], 1, f"site of {self.name}", 0, 0)]

    def apply(self, op, site):
        rel = op.kernel_files()[0]
        return op.with_file(rel, op.files[rel] + f"\n// {self.name}\n")


def _diag(*findings):
    from ascendopt.profile.diagnosis import Diagnosis

    return Diagnosis(findings=list(findings))


def test_ranking_puts_the_transform_that_relieves_the_diagnosis_first():
    op = load("level1/abs_custom")
    plain, scalar = _Appends("plain"), _Appends("scalar", ("scalar_heavy",))
    rw = OfflineRewriter([plain, scalar])
    ctx = lambda diag, hits=(): RewriteContext(op, None, diag, list(hits), set())   # noqa: E731
    assert [p.rewrite for p in rw.candidates(ctx(None))] == ["plain", "scalar"]                 # registry order
    assert [p.rewrite for p in rw.candidates(ctx(_diag("memory_bound")))] == ["plain", "scalar"]
    got = rw.candidates(ctx(_diag("memory_bound", "scalar_heavy")))
    assert [p.rewrite for p in got] == ["scalar", "plain"] and got[0].match > 1.0 == got[1].match
    # prior x match: a measured 1.3x on the plain one outweighs one matched finding (1.1)
    hits = [_hit("plain", "other_family", 1.3)]
    assert [p.rewrite for p in rw.candidates(ctx(_diag("scalar_heavy"), hits))] == ["plain", "scalar"]
    # ... a measured slowdown on it does not
    hits = [_hit("plain", "other_family", 0.95)]
    assert [p.rewrite for p in rw.candidates(ctx(None, hits))] == ["scalar", "plain"]


def test_every_library_optimization_states_known_findings_it_relieves():
    import pytest

    from ascendopt.profile.diagnosis import FINDING_KINDS
    from ascendopt.refine.rewriter import relieves_of
    from ascendopt.transforms.registry import Optimization, optimizations

    for opt in optimizations().values():
        assert set(opt.relieves) <= set(FINDING_KINDS), opt.name
    assert relieves_of(REWRITES.get("vectorize_scalar_loop")) == ("scalar_heavy",)
    assert relieves_of(REWRITES.get("double_buffer")) == ("serialized_pipes",)
    assert Optimization("x", "vectorization", "t", "m", "b").relieves == ()
    with pytest.raises(ValueError, match="finding kind"):
        Optimization("x", "vectorization", "t", "m", "b", relieves=("slow",))
