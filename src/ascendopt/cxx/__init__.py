"""The one C++ analysis layer the motifs, the Stage I rewrites, retrieval and the knob extractor
read AscendC sources through (tree-sitter-cpp underneath).

* :mod:`~ascendopt.cxx.parse` -- parsing (AscendC qualifiers blanked, offsets kept), one tree
  per file content (a cache keyed by the SHA-256 of the text), literals and declarators;
* :mod:`~ascendopt.cxx.syntax` -- node queries: calls, enclosing constructs, functions, the
  variable an expression names, identifiers used;
* :mod:`~ascendopt.cxx.scope` -- method following (a function with its class's fields and
  methods, ``Process`` -> ``CopyIn``/``Compute``/``CopyOut``), declared types, tensor element
  types;
* :mod:`~ascendopt.cxx.defuse` -- def-use of locals and members: assigned, written, declared,
  dead after a statement;
* :mod:`~ascendopt.cxx.affine` -- counted loops and index expressions affine in their variable;
* :mod:`~ascendopt.cxx.macros` -- function-like macros the operator's own sources define, and
  the loops inside them;
* :mod:`~ascendopt.cxx.sync` -- barriers, flags and events;
* :mod:`~ascendopt.cxx.instructions` -- the instruction table (destination argument, pipe,
  dtypes), checked against the simulator's emulation headers by ``tests/cxx``.
"""
