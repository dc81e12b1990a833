"""The statistics of a paired comparison of two agents, over duplicate deals.

A comparison plays A and B on the same deals from the same seats (see
:mod:`.compare`), so each deal gives one paired observation: A's win rate
minus B's, A's mean points minus B's, and a *deal score*
``x = 1/2 + (win rate of A - win rate of B) / 2`` in ``[0, 1]``: A's score in
a match of the deal's table pairs, where at each seat A beats B when A won the
game B lost there, loses when B won the game A lost, and draws otherwise. At 2
players (A and B swap seats) it is the score of A's game pair, the quantity
chess-engine testing models with the pentanomial distribution
(0, 1/4, 1/2, 3/4, 1).

Everything here is a pure function of per-deal values, so the tests check it
on hand-computed inputs.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .evaluate import mean_and_ci

PENTANOMIAL = (0.0, 0.25, 0.5, 0.75, 1.0)
"""The deal scores of a game pair, each given a small prior mass by
:func:`score_distribution` when it was never observed."""
REGULARIZE = 1e-3
"""Fishtest's prior mass for an unobserved outcome (``LLRcalc.regularize``)."""


def logistic_score(elo: float) -> float:
    """The expected score of a player ``elo`` points stronger (logistic Elo)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_from_score(score: float) -> float:
    """The logistic Elo difference whose expected score is ``score``; a score
    of 0 or 1 is an unbounded difference (-inf, inf)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def deal_scores(win_diff: np.ndarray) -> np.ndarray:
    """Each deal's score for A from its win-rate difference (module docstring)."""
    return 0.5 + np.asarray(win_diff, dtype=float) / 2.0


@dataclass(frozen=True)
class EloEstimate:
    """The Elo difference A - B from the mean deal score, with the 95% interval
    of that mean (normal approximation, over deals) mapped through the logistic
    curve: asymmetric in Elo, and unbounded where the interval reaches 0 or 1."""

    score: float
    elo: float
    low: float
    high: float


def elo_estimate(scores: np.ndarray) -> EloEstimate:
    """:class:`EloEstimate` of per-deal scores (fishtest reports its Elo so,
    with the variance of the game-pair scores: ``stat_util.get_elo``)."""
    mean, half = mean_and_ci(np.asarray(scores, dtype=float))
    if not math.isfinite(half):
        return EloEstimate(mean, elo_from_score(mean), -math.inf, math.inf)
    return EloEstimate(
        mean, elo_from_score(mean), elo_from_score(mean - half), elo_from_score(mean + half)
    )


def likelihood_of_superiority(wins: int, losses: int) -> float:
    """The probability that A is stronger than B, from the deals A won and lost
    (draws carry no information): ``LOS = (1 + erf((W - L) / sqrt(2 (W + L)))) / 2``,
    the normal approximation chess-engine testing uses (Chess Programming Wiki,
    "Match Statistics"). 0.5 when no deal was decided."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


def deal_record(scores: np.ndarray) -> tuple[int, int, int]:
    """(deals A won, drew, lost): score above, at, below one half."""
    scores = np.asarray(scores, dtype=float)
    return (
        int(np.sum(scores > 0.5)),
        int(np.sum(scores == 0.5)),
        int(np.sum(scores < 0.5)),
    )


def score_distribution(scores: Sequence[float]) -> tuple[float, list[tuple[float, float]]]:
    """``(N, pdf)``: the deal scores as weighted outcomes, every pentanomial
    outcome never observed given the prior mass :data:`REGULARIZE`, as
    fishtest's ``results_to_pdf`` does (so that a run of identical results
    has a variance); ``N`` is the regularised total. Scores off the pentanomial
    grid (k-player fields, shared wins) are outcomes of their own."""
    counts: Counter[float] = Counter(round(float(x), 12) for x in scores)
    for value in PENTANOMIAL:
        counts.setdefault(value, 0)
    weights = {value: (count if count else REGULARIZE) for value, count in counts.items()}
    total = float(sum(weights.values()))
    return total, [(value, weights[value] / total) for value in sorted(weights)]


def sprt_llr(scores: Sequence[float], elo0: float, elo1: float) -> float:
    """The log-likelihood ratio of H1 (Elo difference ``elo1``) against H0
    (``elo0``) after these deal scores, by the GSPRT normal approximation that
    fishtest and OpenBench use for the pentanomial model (M. Van den Bergh,
    "A practical introduction to the GSPRT", and fishtest ``LLRcalc.LLR_alt2``)::

        LLR = N * (s1 - s0) * (2 * s - s0 - s1) / (2 * var)

    with ``s0``, ``s1`` the expected scores of ``elo0``, ``elo1`` (logistic
    Elo), ``s`` and ``var`` the mean and variance of the regularised score
    distribution (:func:`score_distribution`) and ``N`` its total weight."""
    n, pdf = score_distribution(scores)
    mean = sum(value * p for value, p in pdf)
    var = sum(p * (value - mean) ** 2 for value, p in pdf)
    s0, s1 = logistic_score(elo0), logistic_score(elo1)
    return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's stopping bounds on the LLR: accept H0 at or below
    ``log(beta / (1 - alpha))``, H1 at or above ``log((1 - beta) / alpha)``; the
    test then errs with probability about ``alpha`` (H1 when H0 holds) and
    ``beta`` (H0 when H1 holds)."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def sprt_decision(llr: float, bounds: tuple[float, float]) -> str:
    """``H1``, ``H0``, or ``''`` while the LLR is between the bounds."""
    lower, upper = bounds
    if llr >= upper:
        return "H1"
    if llr <= lower:
        return "H0"
    return ""


def paired_difference(diffs: np.ndarray) -> tuple[float, float]:
    """Mean and 95% half-width of per-deal differences (paired: the deal is the
    unit; normal approximation with the sample standard deviation)."""
    return mean_and_ci(np.asarray(diffs, dtype=float))
