"""The baselines page: three fields per table size, and a verdict computed from them."""

from __future__ import annotations

from flockgym.training.baselines import Fields, table_sizes
from flockgym.training.evaluate import Standing, TournamentResult


def result(heuristic: float, random: float, seats: int) -> TournamentResult:
    standings = [
        Standing("heuristic", "heuristic", 10, heuristic, 0.01, 50.0, 1.0, 1500.0),
        Standing("random", "random", 10, random, 0.01, 40.0, 1.0, 1500.0),
    ]
    return TournamentResult("asrus_v0", {}, {}, "field", 2, seats, 0, seats, standings)


def test_table_sizes_are_the_smallest_default_and_largest() -> None:
    assert table_sizes("asrus_v0") == [3, 5, 9]
    assert table_sizes("astrobirdz_v0") == [2, 4, 6]
    assert table_sizes("arena_v0") == [2, 4, 6]


def test_the_heuristic_must_clear_every_field() -> None:
    good = Fields(4, result(0.40, 0.20, 4), result(0.30, 0.20, 4), result(0.30, 0.10, 4))
    assert good.beats_random()
    assert good.summary_row().endswith("| yes |")
    alone_weak = Fields(4, result(0.24, 0.25, 4), good.mixed, good.lone_random)
    mixed_weak = Fields(4, good.alone, result(0.20, 0.30, 4), good.lone_random)
    random_lucky = Fields(4, good.alone, good.mixed, result(0.24, 0.28, 4))
    for fields in (alone_weak, mixed_weak, random_lucky):
        assert not fields.beats_random()
        assert fields.summary_row().endswith("| **no** |")
