#!/usr/bin/env python3
"""Reference values of the exact Bloom-filter false-positive rate, for tests/exact_reference.rs.

The rate of a filter of m bits, n items and k independent uniform hash positions is

    P = m^-k  Σ_j S(k,j) · m!/(m-j)! · q_j,   q_j = Σ_i (-1)^i C(j,i) (1 - i/m)^(kn)

(Bose et al. 2008, IPL 108(4), in its Stirling / moment form): a query's k probes hit J distinct
bits, Pr[J = j] = S(k,j)·(m)_j/m^k, and q_j is the probability that the kn insertion probes
cover a given set of j bits (inclusion-exclusion over the bits missed).

S(k,j) and (m)_j are exact integers; only the alternating sum q_j is evaluated in floating point
(mpmath). Its terms reach C(j, j/2) while q_j can be 1e-600 (huge m, few items), so the working
precision is chosen per j from an estimate of the cancellation (at least 400 digits) and every q_j
is recomputed 40 digits higher: the two must agree to 1e-40 relative, or the precision is raised.

Before writing anything the script checks the formula against
  * brute-force enumeration of every hash assignment (tiny m, n, k), and
  * the exact occupancy distribution in rational arithmetic (m up to 64, a few hundred probes).

Usage: python3 tests/reference/exact_fpr.py   (writes tests/reference/exact_fpr.csv, ~1 min)
"""

import csv
import itertools
import math
import os
import sys
from fractions import Fraction

import mpmath as mp

MIN_DPS = 400


def stirling2_row(k):
    """[S(k, 0), ..., S(k, k)] as exact integers."""
    row = [1]
    for r in range(1, k + 1):
        new = [0] * (r + 1)
        for j in range(1, r + 1):
            new[j] = j * (row[j] if j < len(row) else 0) + row[j - 1]
        row = new
    return row


def falling(m, j):
    out = 1
    for i in range(j):
        out *= m - i
    return out


def cover_prob(j, m, t, dps):
    """q_j = Σ_i (-1)^i C(j,i) (1 - i/m)^t at `dps` digits."""
    with mp.workdps(dps):
        mm = mp.mpf(m)
        s = mp.mpf(0)
        for i in range(j + 1):
            if i >= m:
                term = mp.mpf(0) if t > 0 else mp.mpf(1)
            else:
                x = (mm - i) / mm
                # mpmath raises short exact mantissas to integer powers exactly (slow for huge t)
                term = mp.power(x, t) if t <= 4096 else mp.exp(t * mp.log(x))
            s += (-1) ** i * math.comb(j, i) * term
        return s


def cover_prob_checked(j, m, t):
    """q_j to at least 40 correct digits (two precisions must agree)."""
    if t < j:
        return mp.mpf(0)  # fewer probes than bits to cover
    # Digits lost ≈ log10(Σ|terms| / q_j) ≤ j·log10 2 − log10 q_j, with q_j estimated by the
    # sparse form (t)_j/m^j or the independent-bits form (1 − e^(−t/m))^j, whichever is larger.
    # An underestimate is caught by the two-precision check below.
    sparse = -sum(math.log10(max(t - i, 1) / m) for i in range(j))
    indep = -j * math.log10(-math.expm1(-t / m))
    est = j * math.log10(2.0) + max(min(sparse, indep), 0.0)
    dps = max(MIN_DPS, int(est) + 60)
    while True:
        a = cover_prob(j, m, t, dps)
        b = cover_prob(j, m, t, dps + 40)
        with mp.workdps(dps + 40):
            if b == 0 and a == 0:
                return b
            if b > 0 and abs(a - b) <= mp.mpf(10) ** -40 * b:
                return b
        dps *= 2
        if dps > 20000:
            raise RuntimeError(f"q_{j} at m={m} t={t} did not converge")


def fpr(m, n, k):
    """The exact rate as an mpf (enough digits for ~40 significant)."""
    if k == 0:
        return mp.mpf(1)
    if n == 0:
        return mp.mpf(0)
    t = k * n
    srow = stirling2_row(k)
    total = mp.mpf(0)
    with mp.workdps(60):
        for j in range(1, min(k, m) + 1):
            q = cover_prob_checked(j, m, t)
            total += mp.mpf(srow[j] * falling(m, j)) * q
        return total / mp.mpf(m) ** k


# ---------------------------------------------------------------------------------------------
# Independent checks of the formula.


def brute(m, n, k):
    """Enumerate all m^(k(n+1)) assignments of n inserts and one query."""
    hits = 0
    total = 0
    for probes in itertools.product(range(m), repeat=k * n):
        set_bits = set(probes)
        x = len(set_bits)
        # the query's k probes: count assignments inside set bits directly
        hits += x**k
        total += m**k
    return Fraction(hits, total)


def occupancy_exact(m, n, k):
    """Σ_x Pr[X = x] (x/m)^k with Pr[X = x] from the one-probe recurrence, in rationals."""
    dist = {0: Fraction(1)}
    for _ in range(k * n):
        new = {}
        for x, p in dist.items():
            new[x] = new.get(x, 0) + p * Fraction(x, m)
            if x < m:
                new[x + 1] = new.get(x + 1, 0) + p * Fraction(m - x, m)
        dist = new
    return sum(p * Fraction(x, m) ** k for x, p in dist.items())


def self_check():
    with mp.workdps(60):
        for m, n, k in [(2, 1, 1), (3, 1, 2), (4, 2, 2), (3, 2, 3), (5, 1, 3), (4, 1, 4), (2, 3, 3)]:
            b = brute(m, n, k)
            f = fpr(m, n, k)
            assert abs(f - mp.mpf(b.numerator) / b.denominator) <= mp.mpf(10) ** -45 * f, (m, n, k)
        for m, n, k in [(8, 3, 5), (16, 4, 7), (13, 20, 3), (64, 5, 10), (32, 30, 2), (8, 1, 12), (50, 2, 64)]:
            e = occupancy_exact(m, n, k)
            f = fpr(m, n, k)
            assert abs(f - mp.mpf(e.numerator) / e.denominator) <= mp.mpf(10) ** -35 * f, (m, n, k)


# ---------------------------------------------------------------------------------------------
# The grid.


def size_for(n, p):
    """bloomlab::theory::size_for: m = floor(-n ln p / ln²2) (≥ 1), k = round(m/n ln 2) in 1..64."""
    ln2 = math.log(2.0)
    m = max(int(math.floor(-float(n) * math.log(p) / (ln2 * ln2))), 1)
    k = min(max(int(round_half_away(m / float(max(n, 1)) * ln2)), 1), 64)
    return m, k


def round_half_away(x):
    return math.floor(x + 0.5) if x >= 0 else math.ceil(x - 0.5)


def grid():
    pts = {}

    def add(m, n, k, label):
        key = (int(m), int(n), int(k))
        if key not in pts:
            pts[key] = label

    # The cases of the issue.
    add(524288, 1000, 64, "issue: calc --m 64KiB --n 1000")
    for n, p in [(1000, 1e-18), (1_000_000, 1e-12)]:
        m, k = size_for(n, p)
        add(m, n, k, f"issue: calc --n {n} --p {p:g}")
    add(10**10, 5, 64, "issue: calc --n 5 --m 1e10 --k 64")
    add(256, 26, 7, "issue: m=256 n=26 k=7")
    # Sized filters, p down to 1e-40.
    for n in [1, 10, 100, 1000, 10**5, 10**6, 10**9]:
        for p in [0.5, 0.1, 1e-2, 1e-3, 1e-6, 1e-9, 1e-12, 1e-15, 1e-18, 1e-20, 1e-25, 1e-30, 1e-40]:
            m, k = size_for(n, p)
            add(m, n, k, f"size_for(n={n}, p={p:g})")
    # Tiny, mid and huge m; k from 1 to 64; n from 0 to far beyond m/k.
    tiny = [8, 13, 16, 32, 64]
    mid = [256, 512, 1000, 4096, 65536, 524288, 9585058]
    huge = [2**32, 2**36, 2**40, 10**10]
    ks = [1, 3, 7, 16, 32, 64]
    for m in tiny + mid + huge:
        for k in ks:
            full = max(m // k, 1)  # about m/k items: fill 1 - 1/e
            loads = sorted({0, 1, max(full // 100, 1), max(full // 10, 1), full // 2, full, 2 * full, 10 * full})
            for n in loads:
                if n == 0 and k not in (1, 64):
                    continue
                add(m, n, k, "grid")
    return pts


def main():
    self_check()
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(here, "exact_fpr.csv")
    pts = grid()
    rows = []
    for (m, n, k), label in sorted(pts.items()):
        p = fpr(m, n, k)
        with mp.workdps(60):
            if p == 0:
                fpr_s, ln_s = "0", "-inf"
            else:
                fpr_s = mp.nstr(p, 25, min_fixed=1, max_fixed=0)
                ln_s = mp.nstr(mp.log(p), 25, min_fixed=-10**9, max_fixed=10**9)
        rows.append((m, n, k, fpr_s, ln_s, label))
    with open(out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["m", "n", "k", "fpr", "ln_fpr", "label"])
        w.writerows(rows)
    print(f"wrote {len(rows)} points to {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
