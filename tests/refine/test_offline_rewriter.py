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
