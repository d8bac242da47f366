#!/usr/bin/env python3
"""Independent reference values for bloomlab's multiblock model (src/theory/multiblock.rs).

Written from the definition, not from the Rust code: a block of K words of w bits holding i
items, each item setting b uniform bits (with replacement) in every word; a block's load is
Poisson(lambda = n*K*w/m). The per-word inner rate q(i) = E[(X/w)^b], X the set bits after b*i
probes, is computed here by the exact combinatorial formula (Stirling numbers of the second
kind: Pr[X = x] = C(w, x) * x! * S(b*i, x) / w^(b*i)), not by the recurrence the Rust code uses,
and the mixture by summing Poisson terms with mpmath at 40 digits until they vanish.

Run: python3 experiments/programs/multiblock_reference.py  (prints the Rust test's table).
"""
from mpmath import mp, mpf, binomial, factorial, exp, stirling2

mp.dps = 40


def word_rate(w, b, i):
    t = b * i
    if t == 0:
        return mpf(0)
    if b == 1:
        return 1 - (1 - mpf(1) / w) ** i
    return sum(
        binomial(w, x) * factorial(x) * stirling2(t, x) / mpf(w) ** t * (mpf(x) / w) ** b
        for x in range(1, min(w, t) + 1)
    )


def fpr(w, K, b, bits_per_key):
    lam = mpf(K * w) / bits_per_key
    total, i, term = mpf(0), 0, exp(-lam)
    while True:
        total += term * word_rate(w, b, i) ** K
        i += 1
        term = term * lam / i
        if i > lam and term < mpf(10) ** -30:
            return total


CASES = [
    (32, 8, 1, 8), (32, 8, 1, 12), (32, 8, 1, 16),
    (64, 8, 1, 8), (64, 8, 1, 12), (64, 8, 1, 16),
    (64, 1, 1, 8), (64, 1, 1, 12), (64, 1, 1, 16),
    (32, 16, 1, 8), (32, 16, 1, 12), (32, 16, 1, 16),
    (64, 1, 4, 8), (64, 1, 6, 16), (32, 1, 3, 10), (64, 2, 3, 12),
]

if __name__ == "__main__":
    for w, K, b, c in CASES:
        print(f"            ({w}, {K}, {b}, {c}, {float(fpr(w, K, b, c))!r}),")
