from ascendopt.transforms import get_motif as get

from .conftest import load


HOST = "op_host/scale_copy.cpp"
PER_CORE = "uint32_t perCore = (blocks + useCores - 1) / useCores * 8;"


def aligned_scale_copy():
    """scale_copy whose per-core share is rounded up to 512 bytes (so every core starts on a
    512-byte GM line) plus, in dead code, the other rounding shapes and some non-roundings."""
    op = load("scale_copy")
    h = op.files[HOST]
    assert PER_CORE in h and "namespace optiling {\n" in h
    h = h.replace(PER_CORE, "uint32_t perCore = ((blocks + useCores - 1) / useCores * 32 + 511) / 512 * 512 / 4;")
    h = h.replace("namespace optiling {\n", """namespace optiling {
constexpr uint32_t LINE = 512;
static inline uint32_t AlignUp(uint32_t x, uint32_t a) { return (x + a - 1) / a * a; }
static inline uint32_t Unused(uint32_t n)
{
    uint32_t a = n / LINE * LINE + AlignUp(n, 512) + ((n + (LINE - 1)) & ~(LINE - 1));
    uint32_t b = (n + 255) / 512 * 512 + n / 512 + n * 512 + (n + 31) / 32 * 32 + AlignUp(n, 256);
    return a + b;
}
""")
    return op.with_file(HOST, h)


def test_finds_each_512_rounding_and_rounds_to_32(check):
    op = aligned_scale_copy()
    m = get("drop_align_512")
    sites = m.find(op)
    assert [s.label for s in sites] == [
        "n / LINE * LINE: round down to 512 B -> 32 B",
        "AlignUp(n, 512): align to 512 B -> 32 B",
        "(n + (LINE - 1)) & ~(LINE - 1): round up to 512 B -> 32 B",
        "((blocks + useCores - 1) / useCores * 32 + 511) / 512 * 512: round up to 512 B -> 32 B",
    ]
    assert m.apply(op, sites[0]).files[HOST].count("n / 32 * 32 + AlignUp(n, 512)") == 1
    assert "AlignUp(n, 32)" in m.apply(op, sites[1]).files[HOST]
    assert "((n + 31) & ~31)" in m.apply(op, sites[2]).files[HOST]
    slow = m.apply(op, sites[3])
    assert slow.parent == op.digest and slow.origin == "rewind/drop_align_512"
    assert "uint32_t perCore = ((blocks + useCores - 1) / useCores * 32 + 31) / 32 * 32 / 4;" in slow.files[HOST]
    assert all(r.status == "ok" for r in check(slow))


def test_no_site_without_512_rounding():
    m = get("drop_align_512")
    for name in ("scale_copy", "level1/gelu", "level2/softmax_last"):
        assert m.find(load(name)) == []


def test_helpers_are_known_by_their_bodies_not_their_names():
    """A rounding helper named unlike ours is a site; a function named ``AlignBytes`` that does
    not round, or a rounding helper's value argument equal to 512, is not (issue 32)."""
    op = load("scale_copy")
    h = op.files[HOST].replace("namespace optiling {\n", """namespace optiling {
static inline uint32_t up_to(uint32_t g, uint32_t x) { return (x + g - 1) / g * g; }
static inline uint32_t AlignBytes(uint32_t x, uint32_t a) { return x + a; }
static inline uint32_t Unused(uint32_t n) { return up_to(512, n) + AlignBytes(n, 512) + up_to(32, 512); }
""", 1)
    sites = get("drop_align_512").find(op.with_file(HOST, h))
    assert [s.label for s in sites] == ["up_to(512, n): align to 512 B -> 32 B"]
