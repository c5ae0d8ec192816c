"""The shipped bank agrees with the optimizations' own pairing of motif and rewrite: rewind now
names the optimization's rewrite instead of rediscovering one by family (issue 31), and every
shipped experience already names exactly that rewrite (or none, for an optimization without
one), so rebuilding the bank gives the same records."""

import json

from ascendopt.bank.store import DEFAULT_BANK_JSON
from ascendopt.transforms import MOTIFS


def test_every_shipped_experience_names_its_optimization_s_rewrite():
    records = json.loads(DEFAULT_BANK_JSON.read_text())["experiences"]
    assert records
    motifs = MOTIFS.all()
    for r in records:
        rec = r.get("record", r)
        app = rec["applicability"]
        opt = motifs[app["motif"]].optimization
        assert app["rewrite"] == (opt.rewrite.name if opt.rewrite else ""), (app["motif"], app["rewrite"])
        assert rec["family"] == opt.family and rec["title"] == opt.title and rec["mechanism"] == opt.mechanism
