"""RL rewards derived from game results, shared by every env.

Game points (``scores``) follow the rulebook; the RL reward is a separate,
documented choice selected by the ``reward`` option.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def win_rewards(num_players: int, winners: Sequence[int]) -> list[float]:
    """+1 shared by the winners, -1 shared by everyone else; zero-sum.

    With one winner this is +1 to the winner and -1/(n-1) to each other player.
    With k tied winners each gets 1/k and each of the others -1/(n-k). When every
    player ties nobody beat anybody, so everyone gets 0.
    """
    k = len(winners)
    if k == 0 or k == num_players:
        return [0.0] * num_players
    win_share, lose_share = 1.0 / k, -1.0 / (num_players - k)
    won = set(winners)
    return [win_share if seat in won else lose_share for seat in range(num_players)]


def win_reward_table(won: np.ndarray) -> np.ndarray:
    """:func:`win_rewards` of many games at once: ``won`` is ``[games, seats]``
    bool (the winners of each game), the result ``[games, seats]`` float, with the
    same float operations (1/k to each of k winners, -1/(n-k) to the others, 0
    when all or none won)."""
    n = won.shape[1]
    k = won.sum(axis=1, keepdims=True)
    share = np.where(won, 1.0 / np.maximum(k, 1), -1.0 / np.maximum(n - k, 1))
    return np.where((k == 0) | (k == n), 0.0, share)


def rank_rewards(scores: Sequence[float]) -> list[float]:
    """Linear in final rank: +1 for first, -1 for last; tied players share the mean.

    Ranks are 0 (best) .. n-1 (worst); a tie over ranks r..r+t-1 gives each tied
    player the mean of those ranks, so the rewards always sum to zero.
    """
    n = len(scores)
    if n < 2:
        return [0.0] * n
    order = sorted(range(n), key=lambda s: -scores[s])
    mean_rank = [0.0] * n
    i = 0
    while i < n:
        j = i
        while j + 1 < n and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        for k in range(i, j + 1):
            mean_rank[order[k]] = (i + j) / 2
        i = j + 1
    return [1.0 - 2.0 * r / (n - 1) for r in mean_rank]


def score_deltas(before: Sequence[float], after: Sequence[float]) -> list[float]:
    """Points scored since ``before``: the per-step reward of ``reward='score'``."""
    return [float(a - b) for a, b in zip(after, before, strict=True)]
