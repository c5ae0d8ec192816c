"""FusedMulAdd (dst = src0 * dst + src1) and MulAddDst (dst = src0 * src1 + dst) of the emulation
against numpy: fp32 arithmetic, one rounding to the destination type (case "fma" of vector_unit)."""
from __future__ import annotations

import numpy as np



def f32(x):
    return np.asarray(x, np.float32)


def same(a, b):
    """Bit-equal values (dtype, value and the sign of zeros)."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    np.testing.assert_array_equal(a.astype(np.float64), b.astype(np.float64))
    assert (np.signbit(a) == np.signbit(b)).all()


def test_fused_mul_add(vec):
    g = lambda n: vec("fma", n)
    a, b, d0 = g("a"), g("b"), g("d0")
    same(g("d"), (a * d0 + b).astype(np.float32))
    refh = g("dh0").copy()
    refh[:250] = (f32(g("ah")[:250]) * f32(refh[:250]) + f32(g("bh")[:250])).astype(np.float16)
    same(g("dh"), refh)


def test_mul_add_dst(vec):
    g = lambda n: vec("fma", n)
    a, b = g("a"), g("b")
    same(g("e"), (a * b + g("d0")).astype(np.float32))
    same(g("eh"), (f32(g("ah")) * f32(g("bh")) + f32(g("dh0"))).astype(np.float16))
    refm = g("dm0").copy()
    refm[:200] = f32(g("ah")[:200]) * f32(g("bh")[:200]) + refm[:200]
    same(g("dm"), refm)
    refk = g("dk0").copy()
    for r in range(2):
        sl = slice(64 * r, 64 * r + 40)
        refk[sl] = a[sl] * b[sl] + refk[sl]
    same(g("dk"), refk)
