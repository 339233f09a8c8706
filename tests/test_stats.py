"""evalkit.comparison.stats against closed forms, exhaustive enumeration and fixed seeds."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from evalkit.comparison import stats

# A small paired sample in points, computed by hand:
# d = cand - base = [10, -10, 10, 20, 0]; mean 6; sum of squared deviations
# 16 + 256 + 16 + 196 + 36 = 520; var = 520/4 = 130; SE = sqrt(130/5) = sqrt(26).
BASE = [20.0, 50.0, 90.0, 40.0, 70.0]
CAND = [30.0, 40.0, 100.0, 60.0, 70.0]
T_975_4 = 2.7764451051977987  # Student t, 0.975 quantile, 4 df (printed tables: 2.776)
Z_975 = 1.959963984540054
Z_80 = 0.8416212335729143


def test_paired_t_matches_hand_computation():
    s = stats.paired_t(BASE, CAND)
    assert s.n == 5
    assert s.base == pytest.approx(54.0)
    assert s.cand == pytest.approx(60.0)
    assert s.delta == pytest.approx(6.0)
    assert s.se == pytest.approx(math.sqrt(26.0))
    assert s.df == 4
    half = T_975_4 * math.sqrt(26.0)
    assert s.ci95 == pytest.approx((6.0 - half, 6.0 + half))


def test_t_quantile_is_exact_not_normal():
    assert stats.t_quantile(0.975, 4) == pytest.approx(T_975_4, rel=1e-12)
    assert stats.t_quantile(0.975, 1) == pytest.approx(12.706204736174707, rel=1e-12)
    assert math.isnan(stats.t_quantile(0.975, 0))


def test_paired_se_is_not_the_unpaired_formula():
    s = stats.paired_t(BASE, CAND)
    _, se_b, _ = stats.mean_se(BASE)
    _, se_c, _ = stats.mean_se(CAND)
    unpaired = math.sqrt(se_b**2 + se_c**2)
    # Positively correlated scores: the paired SE is much smaller than the unpaired one.
    assert s.corr > 0.9
    assert s.se < unpaired / 3
    # Identity: Var(d) = Var(B) + Var(C) - 2 Cov(B, C).
    vb, vc = np.var(BASE, ddof=1), np.var(CAND, ddof=1)
    cov = np.cov(BASE, CAND, ddof=1)[0, 1]
    assert s.se == pytest.approx(math.sqrt((vb + vc - 2 * cov) / 5))


def test_mde_formula():
    s = stats.paired_t(BASE, CAND)
    assert s.mde == pytest.approx((Z_975 + Z_80) * math.sqrt(26.0))
    assert stats.mde(1.0) == pytest.approx(2.8015852181, rel=1e-9)
    assert math.isnan(stats.mde(float("nan")))


def test_degenerate_samples_are_nan_not_zero():
    empty = stats.paired_t([], [])
    assert empty.n == 0 and math.isnan(empty.delta) and math.isnan(empty.se)
    one = stats.paired_t([1.0], [2.0])
    assert one.delta == 1.0 and math.isnan(one.se) and math.isnan(one.ci95[0])
    assert math.isnan(stats.correlation([1.0, 1.0], [2.0, 3.0]))


def _exhaustive_p(d: list[float]) -> float:
    obs = abs(sum(d))
    hits = total = 0
    for signs in itertools.product((1, -1), repeat=len(d)):
        total += 1
        if abs(sum(s * x for s, x in zip(signs, d, strict=True))) >= obs - 1e-9:
            hits += 1
    return hits / total


def test_sign_flip_exact_on_tiny_sample():
    d = [c - b for b, c in zip(BASE, CAND, strict=True)]
    # By hand: |sum| >= 30 in 8 of the 16 patterns of (10, -10, 10, 20), x2 for the 0.
    assert _exhaustive_p(d) == 0.5
    p, how = stats.sign_flip_p(d)
    assert (p, how) == (0.5, "exact")
    assert stats.sign_flip_p([1.0, 2.0, 3.0])[0] == pytest.approx(2 / 8)


def test_sign_flip_monte_carlo_close_to_exhaustive_and_seeded():
    rng = np.random.default_rng(7)
    d = list(rng.normal(0.8, 2.0, size=14))
    exact = _exhaustive_p(d)
    p1, how = stats.sign_flip_p(d, replicates=10_000, seed=3)
    p2, _ = stats.sign_flip_p(d, replicates=10_000, seed=3)
    assert how == "monte-carlo"
    assert p1 == p2
    # Monte Carlo SE at B=10000 is at most 0.005; allow 4 SE.
    assert p1 == pytest.approx(exact, abs=0.02)
    # The +1 correction: never exactly 0.
    assert stats.sign_flip_p([5.0] * 30, replicates=999)[0] == pytest.approx(1 / 1000)


def test_bootstrap_is_reproducible_and_close_to_t_on_large_sample():
    rng = np.random.default_rng(11)
    d = rng.normal(-1.5, 10.0, size=3000)
    a = stats.bootstrap_ci({"all": d}, {"all": 1.0}, replicates=4000, seed=5)
    b = stats.bootstrap_ci({"all": d}, {"all": 1.0}, replicates=4000, seed=5)
    c = stats.bootstrap_ci({"all": d}, {"all": 1.0}, replicates=4000, seed=6)
    assert a == b
    assert a != c
    mean, se, n = stats.mean_se(d)
    t_lo, t_hi = stats.t_interval(mean, se, n - 1)
    width = t_hi - t_lo
    assert a[0] == pytest.approx(t_lo, abs=0.08 * width)
    assert a[1] == pytest.approx(t_hi, abs=0.08 * width)


def test_stratified_weights_and_overall():
    rng = np.random.default_rng(2)
    pairs = {}
    for h, n, shift in (("2", 40, 0.0), ("4", 30, -5.0), ("8", 0, 0.0)):
        base = rng.uniform(0, 100, size=n)
        pairs[h] = (base, np.clip(base + shift + rng.normal(0, 3, size=n), 0, 100))
    res = stats.stratified_paired(pairs, bootstrap=500, permutations=500, seed=0)
    assert res.weights["2"] == pytest.approx(40 / 70)
    assert res.weights["4"] == pytest.approx(30 / 70)
    assert math.isnan(res.weights["8"])  # empty stratum: NaN, excluded, never 0
    assert res.strata["8"].n == 0 and math.isnan(res.strata["8"].delta)
    s2, s4 = res.strata["2"], res.strata["4"]
    # Sample-proportional weights: the weighted total is the pooled mean difference.
    pooled = np.concatenate([pairs["2"][1] - pairs["2"][0], pairs["4"][1] - pairs["4"][0]])
    assert res.overall.delta == pytest.approx(pooled.mean())
    assert res.overall.n == 70
    assert res.overall.df == 68
    w2, w4 = 40 / 70, 30 / 70
    assert res.overall.se == pytest.approx(math.sqrt(w2**2 * s2.se**2 + w4**2 * s4.se**2))
    lo, hi = res.overall.ci95
    assert lo < res.overall.delta < hi
    assert res.overall.mde == pytest.approx((Z_975 + Z_80) * res.overall.se)
    assert res.overall.bootstrap_ci95[0] < res.overall.delta < res.overall.bootstrap_ci95[1]
    assert 0 < res.overall.p_permutation <= 1


def test_equal_weights_average_the_strata():
    pairs = {"2": ([0.0] * 4, [10.0] * 4), "4": ([0.0] * 2, [-2.0] * 2), "8": ([], [])}
    res = stats.stratified_paired(pairs, weighting="equal", bootstrap=100, permutations=100)
    assert res.weights["2"] == res.weights["4"] == 0.5
    assert res.overall.delta == pytest.approx(4.0)


def test_unpaired_normal_is_labelled_and_widest():
    delta, se, (lo, hi) = stats.unpaired_normal(70.0, 0.6, 69.0, 0.8)
    assert delta == -1.0
    assert se == pytest.approx(1.0)
    assert (lo, hi) == pytest.approx((-1.0 - Z_975, -1.0 + Z_975))
    assert math.isnan(stats.unpaired_normal(70.0, None, 69.0, 0.8)[1])


def test_bootstrap_of_single_item_strata_is_nan_not_zero_width():
    lo, hi = stats.bootstrap_ci({"2": [5.0], "4": [1.0, 2.0]}, {"2": 0.5, "4": 0.5})
    assert math.isnan(lo) and math.isnan(hi)
