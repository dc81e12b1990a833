"""The sequential test of ``flockgym compare --sprt``: a GSPRT on the deal
scores that keeps its error rates whatever share of deals is drawn.

Each deal gives A a score in ``[0, 1]`` (:mod:`.compare_stats`); at 2 players
the pentanomial score of a game pair. The test is fishtest's generalised SPRT
(M. Van den Bergh, "A practical introduction to the GSPRT" and "Comments on
normalized Elo"), in one of two Elo models:

* ``normalized`` (the default, as fishtest's): the hypotheses are normalised
  Elo, ``nElo = 800 / ln 10 * (mean - 1/2) / sigma_pg`` with ``sigma_pg =
  sqrt(2 var)``, the deal counted as a game pair, and the log-likelihood ratio
  is ``LLR_normalized_alt``: ``N log((1 + (t - t0)^2) / (1 + (t - t1)^2))``.
  A normalised Elo difference is a signal-to-noise ratio, so the same
  hypotheses need about the same number of deals at any draw rate; a logistic
  Elo difference of 20 cannot even exist when 95% of the deals are drawn.
* ``logistic``: the hypotheses are logistic Elo, the LLR ``LLR_alt2``:
  ``N (s1 - s0)(2 s - s0 - s1) / (2 var)``.

Both estimate the variance of the deal scores from the deals played. On a few
deals, mostly drawn, that estimate is nearly zero and the LLR explodes: a run
of drawn deals alone "accepted" H0. So the test makes no decision before
:data:`MIN_DECISIVE` decisive deals (score not 1/2) have been played, and the
variance carries fishtest's prior mass (0.001 of a deal at the scores 0 and 1)
so that identical results still have one. Its error rates, by simulation over
draw rates 0 to 95% (:func:`simulate`), are in docs/training.md and checked by a
test.

After a stop the fixed-n interval is biased (a test stops when the LLR is
extreme): :func:`analytics` gives fishtest's stopping-aware estimates instead,
the median-unbiased Elo and its interval from the distribution of the test's
outcome for a Brownian motion with the LLR's drift and variance between the two
bounds (fishtest ``stats/sprt.py`` and ``stats/brownian.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import optimize
from scipy import stats as sps

ELO_MODELS = ("normalized", "logistic")
NELO_PER_T = 800.0 / math.log(10.0)
"""Normalised Elo per unit of the per-game t-value (fishtest ``nelo_divided_by_nt``)."""
PRIOR = 1e-3
"""Prior mass (in deals) at each extreme score, 0 and 1 (fishtest's ``regularize``)."""
MIN_DECISIVE = 10
"""Decisive deals (score not 1/2) before the test may decide: with fewer, the
estimated variance is too unsure for the normal approximation (the error rates
rise above their nominal values at high draw rates, by simulation)."""


def logistic_score(elo: float) -> float:
    """The expected score of a player ``elo`` points stronger (logistic Elo)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def check_model(model: str) -> None:
    if model not in ELO_MODELS:
        raise ValueError(f"Elo model {model!r}: allowed {', '.join(ELO_MODELS)}")


def running_moments(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(N, sum, sum of squares)`` after each deal along the last axis."""
    scores = np.asarray(scores, dtype=float)
    count = np.arange(1, scores.shape[-1] + 1, dtype=float)
    return count, np.cumsum(scores, axis=-1), np.cumsum(scores * scores, axis=-1)


def regularised(
    count: np.ndarray, total: np.ndarray, squares: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(N, mean, variance)`` of the deal scores with the prior mass
    :data:`PRIOR` at the scores 0 and 1."""
    count = count + 2.0 * PRIOR
    mean = (total + PRIOR) / count
    var = np.maximum((squares + PRIOR) / count - mean * mean, 1e-12)
    return count, mean, var


def llr_from_sums(
    count: Any, total: Any, squares: Any, elo0: float, elo1: float, model: str
) -> np.ndarray:
    """The GSPRT log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``)
    from the running count, sum and sum of squares of the deal scores."""
    check_model(model)
    n, mean, var = regularised(*(np.asarray(x, dtype=float) for x in (count, total, squares)))
    if model == "logistic":
        s0, s1 = logistic_score(elo0), logistic_score(elo1)
        return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
    t0, t1 = elo0 / NELO_PER_T, elo1 / NELO_PER_T
    t = (mean - 0.5) / np.sqrt(2.0 * var)
    return n * np.log((1.0 + (t - t0) ** 2) / (1.0 + (t - t1) ** 2))


def llr_path(scores: np.ndarray, elo0: float, elo1: float, model: str = "normalized") -> np.ndarray:
    """The LLR after each deal (last axis; vectorised over any leading axes)."""
    return llr_from_sums(*running_moments(scores), elo0, elo1, model)


def sprt_llr(scores: np.ndarray, elo0: float, elo1: float, model: str = "normalized") -> float:
    """The LLR after all ``scores``."""
    return float(llr_path(np.asarray(scores, dtype=float), elo0, elo1, model)[-1])


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's stopping bounds on the LLR: accept H0 at or below
    ``log(beta / (1 - alpha))``, H1 at or above ``log((1 - beta) / alpha)``."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def decisive_path(scores: np.ndarray) -> np.ndarray:
    """Decisive deals (score not 1/2) played after each deal."""
    return np.cumsum(np.asarray(scores, dtype=float) != 0.5, axis=-1)


def first_stop(
    scores: np.ndarray,
    elo0: float,
    elo1: float,
    bounds: tuple[float, float],
    model: str = "normalized",
    min_decisive: int = MIN_DECISIVE,
) -> tuple[np.ndarray, np.ndarray]:
    """Where each sequence of deals (last axis) stops and what it decides:
    ``(deals played, decision)`` with decision 1 (H1), -1 (H0) or 0 (none
    after all of them). Vectorised: the simulation and the command share it."""
    llr = llr_path(scores, elo0, elo1, model)
    lower, upper = bounds
    ready = decisive_path(scores) >= min_decisive
    crossed = ready & ((llr >= upper) | (llr <= lower))
    stopped = crossed.any(axis=-1)
    index = np.where(stopped, crossed.argmax(axis=-1), scores.shape[-1] - 1)
    final = np.take_along_axis(llr, index[..., None], axis=-1)[..., 0]
    decision = np.where(stopped, np.where(final >= upper, 1, -1), 0)
    return index + 1, decision


@dataclass
class Sequential:
    """The test played deal by deal (``flockgym compare --sprt``): the very
    LLR and stopping rule of :func:`first_stop`, from running sums."""

    elo0: float
    elo1: float
    bounds: tuple[float, float]
    model: str = "normalized"
    min_decisive: int = MIN_DECISIVE
    sums: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    decisive: int = 0
    llr: float = 0.0

    def add(self, score: float) -> str:
        """Count one deal; ``H1``, ``H0``, or ``''`` while undecided."""
        self.sums[0] += 1.0
        self.sums[1] += score
        self.sums[2] += score * score
        self.decisive += int(score != 0.5)
        count, total, squares = self.sums
        self.llr = float(llr_from_sums(count, total, squares, self.elo0, self.elo1, self.model))
        if self.decisive < self.min_decisive:
            return ""
        lower, upper = self.bounds
        return "H1" if self.llr >= upper else "H0" if self.llr <= lower else ""


# ---- simulation -------------------------------------------------------------------------


def trinomial_with(draw_rate: float, nelo: float) -> tuple[np.ndarray, np.ndarray]:
    """Deal scores 0, 1/2, 1 with ``draw_rate`` at 1/2 and the win/loss split
    whose normalised Elo (deal as a game pair) is ``nelo``: ``(values, probs)``."""
    decisive = 1.0 - draw_rate
    # mean - 1/2 = (w - l) / 2 = d / 2; var = decisive / 4 - d^2 / 4; t = (d / 2) / sqrt(2 var)
    t = nelo / NELO_PER_T
    d = 2.0 * t * math.sqrt(decisive / 2.0) / math.sqrt(1.0 + 2.0 * t * t)
    win, loss = (decisive + d) / 2.0, (decisive - d) / 2.0
    return np.array([0.0, 0.5, 1.0]), np.array([loss, draw_rate, win])


def logistic_trinomial(draw_rate: float, elo: float) -> tuple[np.ndarray, np.ndarray]:
    """Deal scores 0, 1/2, 1 with ``draw_rate`` at 1/2 and mean score the
    logistic expectation of ``elo`` (where the draw rate allows it)."""
    decisive = 1.0 - draw_rate
    d = 2.0 * (logistic_score(elo) - 0.5)
    if abs(d) > decisive:
        raise ValueError(f"logistic Elo {elo:g} is out of reach at {draw_rate:.0%} draws")
    return np.array([0.0, 0.5, 1.0]), np.array([(decisive - d) / 2, draw_rate, (decisive + d) / 2])


@dataclass(frozen=True)
class ErrorRates:
    """What :func:`simulate` measured at one true distribution."""

    accept_h1: float
    accept_h0: float
    undecided: float
    mean_deals: float


def simulate(
    values: np.ndarray,
    probs: np.ndarray,
    elo0: float,
    elo1: float,
    alpha: float,
    beta: float,
    runs: int,
    max_deals: int,
    seed: int,
    model: str = "normalized",
    min_decisive: int = MIN_DECISIVE,
    chunk: int = 500,
) -> ErrorRates:
    """Run the test ``runs`` times on deals drawn from ``(values, probs)``, each
    capped at ``max_deals``: the share accepting H1, H0, neither, and the mean
    deals played."""
    rng = np.random.default_rng(seed)
    bounds = sprt_bounds(alpha, beta)
    h1 = h0 = 0
    deals = 0.0
    for start in range(0, runs, chunk):
        size = min(chunk, runs - start)
        scores = rng.choice(values, size=(size, max_deals), p=probs)
        played, decision = first_stop(scores, elo0, elo1, bounds, model, min_decisive)
        h1 += int(np.sum(decision == 1))
        h0 += int(np.sum(decision == -1))
        deals += float(played.sum())
    return ErrorRates(h1 / runs, h0 / runs, 1.0 - (h1 + h0) / runs, deals / runs)


# ---- stopping-aware estimates --------------------------------------------------------------


class Brownian:
    """A Brownian motion with drift ``mu`` and variance ``sigma^2`` per deal,
    from 0 between absorbing bounds ``a < 0 < b`` (fishtest ``brownian.py``)."""

    def __init__(self, a: float, b: float, mu: float, sigma: float) -> None:
        self.a, self.b, self.mu, self.sigma2 = a, b, mu, sigma * sigma

    def outcome_cdf(self, time: float, y: float) -> float:
        """The probability that the path ends to the right of ``(time, y)``:
        absorbed at ``b`` before ``time``, or still inside at ``time`` above
        ``y``, or absorbed at ``a`` after ``time`` (a worse outcome for H1 is
        a faster fail, a slower pass, or a pass turned into a fail)."""
        gamma = self.mu / self.sigma2
        width = self.b - self.a
        if self.sigma2 * time / width**2 < 1e-2 or abs(gamma * width) > 15:
            value = self.siegmund(time, y)
        else:
            value = self.series(time, y)
        return min(max(value, 0.0), 1.0)

    def series(self, time: float, y: float) -> float:
        mu, sigma2 = self.mu, self.sigma2
        width = self.b - self.a
        x, y = -self.a, y - self.a
        gamma = mu / sigma2
        lambda_1 = ((math.pi / width) ** 2) * sigma2 / 2 + (mu**2 / sigma2) / 2
        t0 = math.exp(-lambda_1 * time - x * gamma + y * gamma)
        total, n = 0.0, 1
        while True:
            lambda_n = ((n * math.pi / width) ** 2) * sigma2 / 2 + (mu**2 / sigma2) / 2
            t1 = math.exp(-(lambda_n - lambda_1) * time)
            t3 = primitive(n, gamma, width, y)
            total += t1 * t3 * math.sin(n * math.pi * x / width)
            if abs(t0 * t1 * t3) <= 1e-9:
                break
            n += 1
        if gamma * width > 30:
            pre = math.exp(-2 * gamma * x)
        elif abs(gamma * width) < 1e-8:
            pre = (width - x) / width
        else:
            pre = (1 - math.exp(2 * gamma * (width - x))) / (1 - math.exp(2 * gamma * width))
        return pre + t0 * total

    def siegmund(self, time: float, y: float) -> float:
        """Siegmund's approximation, where the series converges slowly."""
        denom = math.sqrt(time * self.sigma2)
        offset = self.mu * time
        gamma = self.mu / self.sigma2
        z = (y - offset) / denom
        za = (-y + offset + 2 * self.a) / denom
        zb = (y - offset - 2 * self.b) / denom
        t2 = (
            tail(za, gamma * self.a)
            if gamma * self.a >= 5
            else math.exp(2 * gamma * self.a) * sps.norm.cdf(za)
        )
        t3 = (
            tail(zb, gamma * self.b)
            if gamma * self.b >= 5
            else math.exp(2 * gamma * self.b) * sps.norm.cdf(zb)
        )
        return float(sps.norm.cdf(z) + t2 - t3)


def tail(z: float, gamma_bound: float) -> float:
    """``exp(2 gamma bound) Phi(z)`` by the asymptotic expansion of Phi (fishtest)."""
    return -math.exp(-(z**2) / 2 + 2 * gamma_bound) / math.sqrt(2 * math.pi) * (1 / z - 1 / z**3)


def primitive(n: int, gamma: float, width: float, y: float) -> float:
    """A primitive of ``e^(gamma y) sin(n pi y / A)`` times ``2 / A e^(-gamma y)``."""
    angle = math.pi * n * y / width
    return (2 * width * gamma * math.sin(angle) - 2 * math.pi * n * math.cos(angle)) / (
        width**2 * gamma**2 + math.pi**2 * n**2
    )


@dataclass(frozen=True)
class Analytics:
    """Stopping-aware estimates after the test: the median-unbiased logistic
    Elo, its interval, the likelihood of superiority, and the same in
    normalised Elo."""

    elo: float
    low: float
    high: float
    los: float
    nelo: float
    nelo_low: float
    nelo_high: float


def analytics(
    scores: np.ndarray,
    elo0: float,
    elo1: float,
    alpha: float,
    beta: float,
    model: str = "normalized",
    level: float = 0.95,
) -> Analytics:
    """fishtest's ``sprt.analytics`` on these deal scores: the LLR as a
    Brownian motion between the bounds, its drift and variance those of the
    GSPRT approximation (``LLR_drift_variance_alt2``) at a true score ``s``;
    the Elo whose probability of an outcome worse than the observed one is
    ``p`` is solved for ``p`` = 1/2 (the estimate) and the two tails."""
    check_model(model)
    a, b = sprt_bounds(alpha, beta)
    sums = (x[..., -1:] for x in running_moments(np.asarray(scores, dtype=float)))
    n, mean, var = (float(x[0]) for x in regularised(*sums))
    sigma_pg = math.sqrt(2.0 * var)
    if model == "normalized":
        s0, s1 = (0.5 + sigma_pg * elo / NELO_PER_T for elo in (elo0, elo1))
    else:
        s0, s1 = logistic_score(elo0), logistic_score(elo1)
    slope = (mean - (s0 + s1) / 2.0) * (s1 - s0) / var
    llr, time = n * slope, n
    if llr < a:
        time, llr = a / slope, a
    elif llr > b:
        time, llr = b / slope, b
    sigma = abs(s1 - s0) / math.sqrt(var)

    def worse(elo: float) -> float:
        drift = (logistic_score(elo) - (s0 + s1) / 2.0) * (s1 - s0) / var
        return Brownian(a, b, drift, sigma).outcome_cdf(time, llr)

    def solve(p: float) -> float:
        lo, hi = -1000.0, 1000.0
        f_lo, f_hi = worse(lo) - (1 - p), worse(hi) - (1 - p)
        if f_lo * f_hi > 0:
            return lo if f_lo > 0 else hi
        return float(optimize.brentq(lambda e: worse(e) - (1 - p), lo, hi, xtol=1e-6))

    tails = (1.0 - level) / 2.0
    elo, low, high = solve(0.5), solve(tails), solve(1.0 - tails)

    def to_nelo(x: float) -> float:
        return (logistic_score(x) - 0.5) / sigma_pg * NELO_PER_T

    return Analytics(elo, low, high, worse(0.0), to_nelo(elo), to_nelo(low), to_nelo(high))
