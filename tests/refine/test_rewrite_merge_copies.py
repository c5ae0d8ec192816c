from ascendopt.cxx.parse import parse, walk
from ascendopt.transforms import REWRITES
from ascendopt.transforms.library.merge_copies import merged

from .conftest import load


MULS = "level1/muls_custom"
IN = "            AscendC::DataCopy(xLocal, xGm[gmOffset], count);\n"
OUT = "            AscendC::DataCopy(yGm[gmOffset], yLocal, count);\n"


def slow_op():
    """muls_custom copying aligned tiles in 128-element chunks: copy-in with a remainder-sized last
    chunk, copy-out as whole chunks plus a tail copy."""
    op = load(MULS)
    src = op.files[op.kernel_file]
    assert src.count(IN) == 1 and src.count(OUT) == 1
    src = src.replace(IN, """            for (uint32_t o = 0; o < count; o += 128) {
                AscendC::DataCopy(xLocal[o], xGm[gmOffset + o], (count - o < 128) ? (count - o) : 128);
            }
""")
    src = src.replace(OUT, """            uint32_t full = count / 128;
            for (uint32_t k = 0; k < full; ++k) {
                AscendC::DataCopy(yGm[gmOffset + k * 128], yLocal[k * 128], 128);
            }
            if (count % 128 != 0) {
                AscendC::DataCopy(yGm[gmOffset + full * 128], yLocal[full * 128], count % 128);
            }
""")
    return op.with_file(op.kernel_file, src)


def test_chunk_loops_become_one_copy(check):
    slow = slow_op()
    rw = REWRITES.get("merge_copies")
    sites = rw.find(slow)
    assert [s.label for s in sites] == ["DataCopy(xLocal, xGm[gmOffset], count) in CopyIn",
                                        "DataCopy(yGm[gmOffset], yLocal, full * 128) in CopyOut"]
    half = rw.apply(slow, sites[0])
    assert half.files[half.kernel_file].count(IN) == 1
    fast = rw.apply(half, rw.find(half)[0])
    assert "            AscendC::DataCopy(yGm[gmOffset], yLocal, full * 128);\n" in fast.files[fast.kernel_file]
    assert all(r.status == "ok" for r in check(fast))


SNIPPETS = """#include "kernel_operator.h"
using namespace AscendC;
void F(LocalTensor<half>& d, GlobalTensor<half>& s, uint32_t n, uint32_t b) {
  for (uint32_t o = 0; o < n; o += 64) DataCopy(d[o], s[b + o], std::min(64u, n - o));
  for (uint32_t o = 0; o < n; o += C) DataCopy(d[o], s[o], o + C <= n ? C : n - o);
  for (uint32_t o = 0; o < n; o += C) DataCopy(d[o], s[o], C > n - o ? n - o : C);
  for (uint32_t o = 0; o < n; o += C) DataCopy(d[o], s[o], C);
  for (int k = 0; k < K; k++) { DataCopy(d[C * k], s[b + k * C], C); }
  for (uint32_t o = 0; o < n; o += C) DataCopy(d[o], s[o], n - o < C ? C : n - o);
  for (uint32_t o = 0; o < n; o += C) DataCopy(d[o], s[2 * o], C);
  for (uint32_t o = 0; o < n; o += C) DataCopy(d[o], s[o], D);
  for (int k = 0; k < K; k++) DataCopy(d[k * C], s[k * C], D);
  for (int k = 0; k < K; k++) DataCopy(d[k * C], s[k], C);
  for (uint32_t o = 0; o < n; o += C) { DataCopy(d[o], s[o], C); PipeBarrier<PIPE_ALL>(); }
}
"""


def test_matches_only_consecutive_chunks():
    p = parse("k.cpp", SNIPPETS)
    got = [merged(p, n) for n in walk(p.tree.root_node) if n.type == "for_statement"]
    assert got == [("d", "s[b]", "n"), ("d", "s", "n"), ("d", "s", "n"), ("d", "s", "(n + C - 1) / C * C"),
                   ("d", "s[b]", "K * C"),
                   # max instead of min; strided source; length not the chunk; chunk size != stride;
                   # source not advancing by chunks; two statements
                   None, None, None, None, None, None]


def test_no_site_in_single_copy_kernels():
    assert REWRITES.get("merge_copies").find(load(MULS)) == []
