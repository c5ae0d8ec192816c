"""Optimizations as objects with both directions (issue 31): the transform interface
(:mod:`~ascendopt.transforms.base`), the families (:mod:`~ascendopt.transforms.families`), the
registry (:mod:`~ascendopt.transforms.registry`) and the built-in library
(:mod:`~ascendopt.transforms.library`). Rewind uses the motifs, Stage I the rewrites."""

from ascendopt.transforms.base import Edit, Motif, MotifError, Rewrite, Site, Transform, apply_edits
from ascendopt.transforms.registry import MOTIFS, REWRITES, Optimization, optimizations, register, rewrite_of


def get_motif(name: str) -> Motif:
    """A new instance of the motif registered as ``name``."""
    return MOTIFS.get(name)


def get_rewrite(name: str) -> Rewrite:
    """A new instance of the rewrite registered as ``name``."""
    return REWRITES.get(name)


__all__ = ["Edit", "MOTIFS", "Motif", "MotifError", "Optimization", "REWRITES", "Rewrite", "Site", "Transform",
           "apply_edits", "get_motif", "get_rewrite", "optimizations", "register", "rewrite_of"]
