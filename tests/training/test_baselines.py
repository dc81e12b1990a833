"""The baselines page: three fields per table size, and a verdict computed from them."""

from __future__ import annotations

import pytest

from flockgym.evaluation.baselines import Fields, table_sizes
from flockgym.evaluation.tournaments import Standing, TournamentResult


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


def test_an_env_of_the_page_is_replayed_and_the_others_kept(monkeypatch, tmp_path) -> None:
    """`--env X --out page`: only X's section is played again and replaced; a page
    made with other --games or --seed is refused, naming both ways out."""
    from flockgym.envs import FlockgymError, list_envs
    from flockgym.evaluation import baselines

    played: list[str] = []

    def section(env_id, games, seed, *rest):
        played.append(env_id)
        return [f"## {env_id}\n", f"run {len(played)} with {games} deals\n"]

    monkeypatch.setattr(baselines, "env_section", section)
    page = tmp_path / "baselines.md"
    baselines.write_baselines(page, 3, 0, None)
    assert played == list_envs()
    first, last = list_envs()[0], list_envs()[-1]
    baselines.write_baselines(page, 3, 0, None, env_ids=[last])
    text = page.read_text()
    assert played == [*list_envs(), last]
    assert text.startswith(baselines.HEADER.format(games=3, seed=0))
    assert f"## {first}\n\nrun 1 with 3 deals" in text  # kept as it was
    assert f"## {last}\n\nrun {len(played)} with 3 deals" in text  # replayed
    assert [line for line in text.splitlines() if line.startswith("## ")] == [
        f"## {e}" for e in list_envs()
    ]
    with pytest.raises(FlockgymError, match="not made with these --games and --seed"):
        baselines.write_baselines(page, 4, 0, None, env_ids=[first])
