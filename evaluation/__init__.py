"""Measuring bots: duplicate tournaments (:mod:`~flockgym.evaluation.tournaments`
schedules and plays the deals, on the vectorised engines where there are some:
:mod:`~flockgym.evaluation.vector_tournament`), paired comparisons with their
statistics and sequential test (:mod:`~flockgym.evaluation.compare`,
:mod:`~flockgym.evaluation.compare_stats`, :mod:`~flockgym.evaluation.sprt`),
the benchmark grid and its aggregates (:mod:`~flockgym.evaluation.benchmark`,
:mod:`~flockgym.evaluation.benchmark_stats`), re-running a recorded result
(:mod:`~flockgym.evaluation.reproduce`, :mod:`~flockgym.evaluation.reproduce_grid`),
the baseline tables and stated claims (:mod:`~flockgym.evaluation.baselines`,
:mod:`~flockgym.evaluation.bot_claims`) and plots (:mod:`~flockgym.evaluation.plot`).

It may import :mod:`flockgym.envs`, :mod:`flockgym.common`, :mod:`flockgym.bots`
and :mod:`flockgym.training` (a benchmark or a reproduction trains runs). A
tournament's path reads top to bottom: :mod:`~flockgym.evaluation.tournaments`
owns scheduling and playing deals (on a vectorised engine through
:mod:`~flockgym.evaluation.vector_tournament`, which imports nothing else of this
package), and compare, benchmark, baselines and reproduce use it, never the
other way round. Nothing here imports the command line.

>>> from flockgym.evaluation import tournament
>>> from flockgym.bots import make_participant
>>> result = tournament("asrus_v0", [make_participant("heuristic", "asrus_v0"),
...     make_participant("random", "asrus_v0")], deals=4, seed=0)  # doctest: +SKIP
"""

from __future__ import annotations

from flockgym.common.moved import lazy_exports

_LAZY = {
    "tournament": "tournaments",
    "TournamentResult": "tournaments",
    "TournamentInterrupted": "tournaments",
}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

__all__ = sorted(_LAZY)
