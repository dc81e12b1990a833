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
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

SMALL_SAMPLE = 30
"""Under this many deals a comparison warns that its intervals rest on few
observations (they are t intervals, wider than the normal ones, but assume the
deal's mean is near normal)."""


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
    of that mean (a t interval over deals) mapped through the logistic
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


def mean_and_ci(values: np.ndarray) -> tuple[float, float]:
    """Mean and 95% half-width of per-deal values by Student's t with ``n - 1``
    degrees of freedom: at 3 deals the normal interval (z = 1.96 where t =
    4.30) held the true mean in about 83% of A/A comparisons. NaN below 2."""
    values = np.asarray(values, dtype=float)
    mean = float(np.mean(values))
    if values.size < 2:
        return mean, float("nan")
    quantile = float(sps.t.ppf(0.975, values.size - 1))
    return mean, quantile * float(np.std(values, ddof=1)) / math.sqrt(values.size)


def paired_difference(diffs: np.ndarray) -> tuple[float, float]:
    """Mean and 95% half-width of per-deal differences (paired: the deal is the
    unit; a t interval, :func:`mean_and_ci`)."""
    return mean_and_ci(np.asarray(diffs, dtype=float))


def small_sample_warning(deals: int) -> str | None:
    """A warning for fewer than :data:`SMALL_SAMPLE` deals, else None."""
    if deals >= SMALL_SAMPLE:
        return None
    return (
        f"only {deals} deals: the intervals are t intervals over so few deals and rest on "
        f"the deal's mean being near normal; play at least {SMALL_SAMPLE}"
    )
