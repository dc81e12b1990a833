"""The benchmark's interval estimates: a seeded stratified bootstrap.

rliable's ``get_interval_estimates`` (1.2.0) hands its ``random_state`` to
arch but draws its resamples with ``np.random.choice``, numpy's global
generator, so the same runs gave a different interval at each invocation. The
resampling is therefore done here, with a generator of its own
(``numpy.random.default_rng``) seeded from the benchmark's ``eval_seed`` and
the interval's label, exactly as rliable's ``StratifiedBootstrap`` resamples:
each game's runs (rows of a ``runs x games`` matrix) are drawn with
replacement within that game, and the statistic is computed on every
resample by rliable's own functions (``metrics.aggregate_iqm``,
``metrics.probability_of_improvement``) in vectorised form, which a test
checks against them resample by resample. Intervals are percentile intervals,
rliable's default method.

Because a percentile bootstrap over five runs a game can under-cover, the
coverage of the IQM interval is measured by simulation too
(:func:`iqm_coverage`): the grid's own runs stand for the truth, runs are
drawn from them, and the share of intervals holding the truth's IQM is
counted.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable

import numpy as np
from scipy import stats as sps

CONFIDENCE = 0.95


def label_rng(seed: int, label: str) -> np.random.Generator:
    """A generator of its own for each interval: the same seed and label give
    the same draws whatever else the report computes, and in any order."""
    return np.random.default_rng([seed % 2**63, zlib.crc32(label.encode("utf-8"))])


def stratified_resamples(matrix: np.ndarray, reps: int, rng: np.random.Generator) -> np.ndarray:
    """``reps`` resamples of a ``runs x games`` matrix, each game's runs drawn
    with replacement within that game (rliable's ``StratifiedBootstrap``
    without task resampling): shape ``reps x runs x games``."""
    runs, games = matrix.shape
    rows = rng.integers(0, runs, size=(reps, runs, games))
    return matrix[rows, np.arange(games)[None, None, :]]


def iqm_rows(samples: np.ndarray) -> np.ndarray:
    """The interquartile mean of each resample (``reps x runs x games``): the
    25%-trimmed mean of all its scores, as ``metrics.aggregate_iqm``."""
    flat = samples.reshape(samples.shape[0], -1)
    return np.asarray(sps.trim_mean(flat, proportiontocut=0.25, axis=1), dtype=float)


def improvement_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """P(a run of X scores above a run of Y on the same game, ties counting
    half), averaged over games, for each pair of resamples (``reps x runs x
    games`` each): the Mann-Whitney U over ``n_x n_y``, as
    ``metrics.probability_of_improvement``."""
    above = (x[:, :, None, :] > y[:, None, :, :]).mean(axis=(1, 2))
    tied = (x[:, :, None, :] == y[:, None, :, :]).mean(axis=(1, 2))
    return np.asarray((above + 0.5 * tied).mean(axis=1), dtype=float)


def percentile_interval(values: np.ndarray) -> tuple[float, float]:
    """The central 95% of the bootstrap values (arch's ``percentile`` method)."""
    tail = 100.0 * (1.0 - CONFIDENCE) / 2.0
    low, high = np.percentile(values, [tail, 100.0 - tail], axis=-1)
    return float(low), float(high)


def iqm_interval(matrix: np.ndarray, reps: int, seed: int, label: str) -> tuple[float, list[float]]:
    """The IQM of ``matrix`` (runs x games) and its 95% stratified bootstrap interval."""
    samples = stratified_resamples(matrix, reps, label_rng(seed, label))
    point = float(iqm_rows(matrix[None])[0])
    return point, list(percentile_interval(iqm_rows(samples)))


def improvement_interval(
    x: np.ndarray, y: np.ndarray, reps: int, seed: int, label: str
) -> tuple[float, list[float]]:
    """P(X > Y) and its 95% interval, X's and Y's runs resampled independently
    within each game (rliable's ``StratifiedIndependentBootstrap``)."""
    rng = label_rng(seed, label)
    xs, ys = stratified_resamples(x, reps, rng), stratified_resamples(y, reps, rng)
    point = float(improvement_rows(x[None], y[None])[0])
    return point, list(percentile_interval(improvement_rows(xs, ys)))


def mean_interval(
    values: np.ndarray, reps: int, seed: int, label: str
) -> tuple[float, list[float]]:
    """The mean of one game's runs and its 95% bootstrap interval (the per-game
    tables beside the aggregates)."""
    matrix = np.asarray(values, dtype=float).reshape(-1, 1)
    samples = stratified_resamples(matrix, reps, label_rng(seed, label))
    return float(matrix.mean()), list(percentile_interval(samples.mean(axis=(1, 2))))


def coverage(
    truth: np.ndarray,
    runs: int,
    statistic: Callable[[np.ndarray], np.ndarray],
    reps: int,
    sims: int,
    seed: int,
) -> float:
    """The share of 95% stratified percentile intervals, each from ``runs``
    runs a game drawn from ``truth`` (its rows are each game's population of
    run scores), that hold the statistic of the whole population: the
    interval's coverage, by simulation (vectorised over simulations)."""
    rng = np.random.default_rng(seed)
    target = float(statistic(truth[None])[0])
    population, games = truth.shape
    drawn = truth[rng.integers(0, population, size=(sims, runs, games)), np.arange(games)]
    held = 0
    for sample in drawn:
        values = statistic(stratified_resamples(sample, reps, rng))
        low, high = percentile_interval(values)
        held += low <= target <= high
    return held / sims


def iqm_coverage(matrix: np.ndarray, reps: int, sims: int, seed: int) -> float:
    """The IQM interval's coverage at this grid's shape, the grid's own runs of
    each game standing for that game's population of runs."""
    return coverage(matrix, matrix.shape[0], iqm_rows, reps, sims, seed)


# ---- sample-efficiency curves ---------------------------------------------------------


def cell_indices(shape: tuple[int, ...], reps: int, rng: np.random.Generator) -> np.ndarray:
    """Run indices for ``reps`` resamples of a ``runs x games x steps`` tensor,
    drawn for every (game, step) cell apart, as rliable's ``StratifiedBootstrap``
    draws them for a 3-d score array (``np.random.choice(runs, shape)``): shape
    ``reps x runs x games x steps``."""
    return rng.integers(0, shape[0], size=(reps, *shape))


def resample_cells(tensor: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """The resamples ``indices`` (:func:`cell_indices`) pick from ``tensor``:
    each cell's runs drawn within its game and step."""
    _, games, steps = tensor.shape
    return tensor[indices, np.arange(games)[:, None], np.arange(steps)[None, :]]


def iqm_steps(samples: np.ndarray) -> np.ndarray:
    """The IQM over runs x games at every step of each resample (``reps x runs
    x games x steps``): ``metrics.aggregate_iqm`` of each step's slice, as
    rliable's sample-efficiency curves compute it; shape ``reps x steps``."""
    reps, runs, games, steps = samples.shape
    flat = samples.reshape(reps, runs * games, steps)
    return np.asarray(sps.trim_mean(flat, proportiontocut=0.25, axis=1), dtype=float)


def mean_steps(samples: np.ndarray) -> np.ndarray:
    """The mean over runs x games at every step of each resample: ``reps x steps``."""
    return np.asarray(samples.mean(axis=(1, 2)), dtype=float)


def curve_interval(
    tensor: np.ndarray,
    statistic: Callable[[np.ndarray], np.ndarray],
    reps: int,
    seed: int,
    label: str,
    indices: np.ndarray | None = None,
) -> tuple[list[float], list[list[float]]]:
    """A sample-efficiency curve of ``tensor`` (runs x games x steps): the
    statistic at every step and its 95% percentile interval, ``[lows, highs]``
    as rliable's ``get_interval_estimates`` returns them (2 x steps). The
    resamples come from the label's own seeded generator, or are ``indices``
    (a test hands it the draws rliable makes from numpy's global generator, to
    check the two agree to the last digit)."""
    if indices is None:
        indices = cell_indices(tensor.shape, reps, label_rng(seed, label))
    values = statistic(resample_cells(tensor, indices))
    tail = 100.0 * (1.0 - CONFIDENCE) / 2.0
    lows, highs = np.percentile(values, [tail, 100.0 - tail], axis=0)
    point = statistic(tensor[None])[0]
    return [float(v) for v in point], [[float(v) for v in lows], [float(v) for v in highs]]
