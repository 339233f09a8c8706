"""Paired statistics for comparing a baseline and a candidate on the same items.

Pure functions over numbers: no files, no argv. Scores are whatever scale the caller
passes (compare uses points, 0-100). Conventions:
- SE of a mean is sd/sqrt(n) with ddof=1; intervals use Student t with n-1 df.
- A paired difference is d_i = cand_i - base_i; its SE is sd(d)/sqrt(n). The unpaired
  sqrt(SE_B^2 + SE_C^2) is never used for paired data: it ignores the correlation.
- Strata with no items are NaN and left out of any weighted total, never counted as 0.
- Every resampling method takes an explicit seed and gives the same answer for it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

NAN = float("nan")
ALPHA = 0.05
POWER = 0.80
# Bound the working set of the resampling loops (replicates x items per chunk).
_CHUNK_CELLS = 2_000_000


def t_quantile(p: float, df: float) -> float:
    """Quantile of Student's t; NaN when there are no degrees of freedom.

    scipy.special gives the same values as scipy.stats at a third of the import time, and
    is imported on first use: a compare that stops at bad input never pays for it."""
    if not df or df <= 0 or not math.isfinite(df):
        return NAN
    from scipy.special import stdtrit

    return float(stdtrit(df, p))


def z_quantile(p: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(p))


def mean_se(values: Sequence[float]) -> tuple[float, float, int]:
    """(mean, SE = sd/sqrt(n) with ddof=1, n). NaN where undefined (n=0, or SE at n=1)."""
    x = np.asarray(values, dtype=float)
    n = int(x.size)
    if n == 0:
        return NAN, NAN, 0
    mean = float(x.mean())
    se = float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else NAN
    return mean, se, n


def t_interval(mean: float, se: float, df: float, level: float = 0.95) -> tuple[float, float]:
    q = t_quantile(1 - (1 - level) / 2, df)
    if not (math.isfinite(mean) and math.isfinite(se) and math.isfinite(q)):
        return NAN, NAN
    return mean - q * se, mean + q * se


def normal_interval(mean: float, se: float, level: float = 0.95) -> tuple[float, float]:
    q = z_quantile(1 - (1 - level) / 2)
    if not (math.isfinite(mean) and math.isfinite(se)):
        return NAN, NAN
    return mean - q * se, mean + q * se


def mde(se: float, alpha: float = ALPHA, power: float = POWER) -> float:
    """Smallest true difference detected with `power` by a two-sided test at `alpha`:
    (z_{1-alpha/2} + z_{power}) * SE, where SE = sd(d)/sqrt(n) (about 2.80 * SE)."""
    if not math.isfinite(se):
        return NAN
    return (z_quantile(1 - alpha / 2) + z_quantile(power)) * se


def correlation(a: Sequence[float], b: Sequence[float]) -> float:
    """Pearson correlation of paired scores; NaN when either side has no spread."""
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    if x.size < 2 or x.std() == 0 or y.std() == 0:
        return NAN
    return float(np.corrcoef(x, y)[0, 1])


@dataclass(frozen=True)
class PairedSummary:
    """One paired comparison (a stratum, or the weighted total over strata)."""

    n: int
    base: float
    cand: float
    delta: float
    se: float
    df: float
    ci95: tuple[float, float]
    mde: float
    corr: float
    bootstrap_ci95: tuple[float, float] = (NAN, NAN)
    p_permutation: float = NAN
    permutation_method: str = ""

    def as_dict(self) -> dict:
        return {
            "n": self.n,
            "base": self.base,
            "cand": self.cand,
            "delta": self.delta,
            "se": self.se,
            "df": self.df,
            "ci95": list(self.ci95),
            "bootstrap_ci95": list(self.bootstrap_ci95),
            "p_permutation": self.p_permutation,
            "permutation_method": self.permutation_method,
            "mde": self.mde,
            "corr": self.corr,
        }


def paired_t(base: Sequence[float], cand: Sequence[float]) -> PairedSummary:
    """Mean paired difference with SE = sd(d)/sqrt(n) and a t interval on n-1 df."""
    b = np.asarray(base, dtype=float)
    c = np.asarray(cand, dtype=float)
    if b.shape != c.shape:
        raise ValueError("paired samples must have the same length")
    n = int(b.size)
    if n == 0:
        return PairedSummary(0, NAN, NAN, NAN, NAN, NAN, (NAN, NAN), NAN, NAN)
    delta, se, _ = mean_se(c - b)
    df = float(n - 1)
    return PairedSummary(
        n=n,
        base=float(b.mean()),
        cand=float(c.mean()),
        delta=delta,
        se=se,
        df=df,
        ci95=t_interval(delta, se, df),
        mde=mde(se),
        corr=correlation(b, c),
    )


def proportional_weights(sizes: Mapping[str, int]) -> dict[str, float]:
    """w_h = n_h / N over non-empty strata; empty strata get NaN (excluded)."""
    total = sum(n for n in sizes.values() if n > 0)
    return {h: (n / total if n > 0 and total else NAN) for h, n in sizes.items()}


def equal_weights(sizes: Mapping[str, int]) -> dict[str, float]:
    """Each non-empty stratum counts the same (the "MRCR 1M" per-bin style)."""
    k = sum(1 for n in sizes.values() if n > 0)
    return {h: (1.0 / k if n > 0 else NAN) for h, n in sizes.items()}


WEIGHTINGS = {"sample": proportional_weights, "equal": equal_weights}


@dataclass
class StratifiedResult:
    weights: dict[str, float]
    overall: PairedSummary
    strata: dict[str, PairedSummary] = field(default_factory=dict)


def stratified_paired(
    pairs: Mapping[str, tuple[Sequence[float], Sequence[float]]],
    *,
    weighting: str = "sample",
    seed: int = 0,
    bootstrap: int = 10_000,
    permutations: int = 10_000,
) -> StratifiedResult:
    """Per-stratum paired summaries and their weighted total.

    `pairs` maps stratum -> (base scores, cand scores), aligned item by item. The total is
    sum_h w_h * mean_h with SE sqrt(sum_h w_h^2 SE_h^2) and a t interval on N - H df
    (H = non-empty strata). Bootstrap and permutation use the same seed everywhere, so a
    stratum's figures do not depend on which other strata are present.
    """
    arrays = {
        h: (np.asarray(b, dtype=float), np.asarray(c, dtype=float)) for h, (b, c) in pairs.items()
    }
    sizes = {h: int(b.size) for h, (b, _) in arrays.items()}
    weights = WEIGHTINGS[weighting](sizes)
    strata: dict[str, PairedSummary] = {}
    for h, (b, c) in arrays.items():
        summary = paired_t(b, c)
        d = c - b
        boot = bootstrap_ci({h: d}, {h: 1.0}, replicates=bootstrap, seed=seed)
        p, how = sign_flip_p(d, replicates=permutations, seed=seed)
        strata[h] = _with_resampling(summary, boot, p, how)

    used = [h for h in arrays if sizes[h] > 0]
    if not used:
        empty = PairedSummary(0, NAN, NAN, NAN, NAN, NAN, (NAN, NAN), NAN, NAN)
        return StratifiedResult(weights, empty, strata)

    def total(attr: str) -> float:
        return float(sum(weights[h] * getattr(strata[h], attr) for h in used))

    n_total = sum(sizes[h] for h in used)
    ses = [strata[h].se for h in used]
    se = (
        math.sqrt(sum(weights[h] ** 2 * strata[h].se ** 2 for h in used))
        if all(math.isfinite(s) for s in ses)
        else NAN
    )
    df = float(n_total - len(used))
    delta = total("delta")
    all_b = np.concatenate([arrays[h][0] for h in used])
    all_c = np.concatenate([arrays[h][1] for h in used])
    diffs = {h: arrays[h][1] - arrays[h][0] for h in used}
    # Each item's sign flip moves the weighted total by w_h / n_h times its difference.
    coef = np.concatenate([np.full(sizes[h], weights[h] / sizes[h]) for h in used])
    p, how = sign_flip_p(np.concatenate([diffs[h] for h in used]), coef, permutations, seed)
    overall = PairedSummary(
        n=n_total,
        base=total("base"),
        cand=total("cand"),
        delta=delta,
        se=se,
        df=df,
        ci95=t_interval(delta, se, df),
        mde=mde(se),
        corr=correlation(all_b, all_c),
        bootstrap_ci95=bootstrap_ci(
            diffs, {h: weights[h] for h in used}, replicates=bootstrap, seed=seed
        ),
        p_permutation=p,
        permutation_method=how,
    )
    return StratifiedResult(weights, overall, strata)


def _with_resampling(
    s: PairedSummary, boot: tuple[float, float], p: float, how: str
) -> PairedSummary:
    return PairedSummary(
        s.n, s.base, s.cand, s.delta, s.se, s.df, s.ci95, s.mde, s.corr, boot, p, how
    )


def bootstrap_ci(
    diffs: Mapping[str, Sequence[float]],
    weights: Mapping[str, float],
    *,
    replicates: int = 10_000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float]:
    """Paired percentile bootstrap of sum_h w_h * mean(d_h), resampling items within strata.

    Resampling the differences keeps each item's base and candidate scores together.
    """
    used = {h: np.asarray(d, dtype=float) for h, d in diffs.items() if len(d) > 0}
    # A one-item stratum resamples to itself and would fake a zero-width interval.
    if not used or replicates < 1 or any(d.size < 2 for d in used.values()):
        return NAN, NAN
    rng = np.random.default_rng(seed)
    reps = np.zeros(replicates)
    for h, d in used.items():
        n = d.size
        chunk = max(1, _CHUNK_CELLS // n)
        for start in range(0, replicates, chunk):
            stop = min(replicates, start + chunk)
            idx = rng.integers(0, n, size=(stop - start, n))
            reps[start:stop] += weights[h] * d[idx].mean(axis=1)
    tail = (1 - level) / 2 * 100
    lo, hi = np.percentile(reps, [tail, 100 - tail])
    return float(lo), float(hi)


def sign_flip_p(
    d: Sequence[float],
    coef: Sequence[float] | None = None,
    replicates: int = 10_000,
    seed: int = 0,
) -> tuple[float, str]:
    """Two-sided sign-flip permutation p-value for H0: the differences are symmetric about 0.

    Statistic: T = sum_i coef_i * d_i (coef 1/n gives the mean difference). When 2^n is at
    most `replicates` every sign pattern is enumerated and p = #{|T*| >= |T|} / 2^n
    ("exact"); otherwise random patterns give (#{|T*| >= |T|} + 1) / (B + 1) ("monte-carlo").
    """
    x = np.asarray(d, dtype=float)
    n = int(x.size)
    if n == 0:
        return NAN, ""
    w = np.full(n, 1.0 / n) if coef is None else np.asarray(coef, dtype=float)
    y = w * x
    observed = abs(float(y.sum()))
    # Sums of the same numbers in another order differ in the last bits: count those ties.
    tol = 1e-9 * max(float(np.abs(y).sum()), 1e-300)
    if n <= 16 and 2**n <= replicates:
        codes = np.arange(2**n, dtype=np.int64)
        bits = (codes[:, None] >> np.arange(n, dtype=np.int64)) & 1
        stats = np.abs((1 - 2 * bits) @ y)
        return float(np.count_nonzero(stats >= observed - tol) / 2**n), "exact"
    if replicates < 1:
        return NAN, ""
    rng = np.random.default_rng(seed)
    hits = 0
    chunk = max(1, _CHUNK_CELLS // n)
    for start in range(0, replicates, chunk):
        size = min(chunk, replicates - start)
        signs = 1.0 - 2.0 * rng.integers(0, 2, size=(size, n), dtype=np.int8)
        hits += int(np.count_nonzero(np.abs(signs @ y) >= observed - tol))
    return (hits + 1) / (replicates + 1), "monte-carlo"


def unpaired_normal(
    base: float, base_se: float | None, cand: float, cand_se: float | None
) -> tuple[float, float, tuple[float, float]]:
    """Difference of two headline scores when item-level data is unavailable.

    SE = sqrt(SE_B^2 + SE_C^2) ignores the positive correlation of two runs on the same
    items, so it overstates the uncertainty: use it only when items cannot be paired.
    """
    delta = cand - base
    if base_se is None or cand_se is None:
        return delta, NAN, (NAN, NAN)
    se = math.sqrt(base_se**2 + cand_se**2)
    return delta, se, normal_interval(delta, se)
