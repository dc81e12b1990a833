"""Tournaments: balanced seating, deterministic results, the JSON and Markdown
output, confidence intervals and ratings."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from flockgym.envs import make
from flockgym.training.evaluate import (
    bradley_terry_elo,
    mean_and_ci,
    save_result,
    seating_tables,
    tournament,
)
from flockgym.training.policies import Participant, make_participant


@pytest.mark.parametrize("seats", range(2, 10))
@pytest.mark.parametrize("players", range(1, 7))
def test_rotation_seats_everyone_everywhere_equally(seats: int, players: int) -> None:
    tables = seating_tables(seats, players, "rotate")
    per_seat = Counter((seat, p) for table in tables for seat, p in enumerate(table))
    assert len(set(per_seat.values())) == 1
    assert set(per_seat) == {(s, p) for s in range(seats) for p in range(players)}


def test_field_seating_puts_the_first_player_in_each_seat_once() -> None:
    assert seating_tables(3, 2, "field") == [(0, 1, 1), (1, 0, 1), (1, 1, 0)]
    with pytest.raises(ValueError, match="exactly 2 players"):
        seating_tables(3, 3, "field")


class LowestCard:
    """Always the lowest legal action id: a deterministic, beatable bot."""

    def act(self, observation, view):
        return int(np.flatnonzero(observation["action_mask"])[0])


def test_tournament_output_format(env_id: str, tmp_path: Path) -> None:
    players = [make_participant("random", env_id), Participant("lowest", lambda seed: LowestCard())]
    result = tournament(env_id, players, deals=4, seed=7)
    n = make(env_id).unwrapped.num_players
    assert result.games == 4 * result.tables_per_deal
    assert sum(s.games for s in result.standings) == result.games * n
    json_path, md_path = save_result(result, tmp_path / "out")
    data = json.loads(json_path.read_text())
    assert data["env_id"] == env_id and data["games"] == result.games
    assert data["env_options"]["num_players"] == n
    for row in data["standings"]:
        assert set(row) == {
            "name",
            "spec",
            "games",
            "win_rate",
            "win_rate_ci",
            "mean_points",
            "mean_points_ci",
            "elo",
        }
        assert 0 <= row["win_rate"] <= 1 and row["win_rate_ci"] >= 0
    lines = md_path.read_text().splitlines()
    assert "| player | games | win rate (95% CI) | mean points (95% CI) | Elo |" in lines
    rows = [line for line in lines if line.startswith("| ") and "---" not in line][1:]
    assert sorted(row.split("|")[1].strip() for row in rows) == ["lowest", "random"]
    # Win rates of all seats add up to one win per game (ties share it).
    total_wins = sum(s.win_rate * s.games for s in result.standings)
    assert total_wins == pytest.approx(result.games)


def test_same_seed_same_tournament(env_id: str) -> None:
    def run(seed: int) -> list:
        players = [make_participant("random", env_id), make_participant("random", env_id)]
        return [s.mean_points for s in tournament(env_id, players, 3, seed).standings]

    assert run(1) == run(1)
    assert run(1) != run(2)


def test_every_deal_is_the_same_hand_at_every_table(env_id: str) -> None:
    """Duplicate format: identical bots at every table give identical games per deal."""
    players = [
        Participant("a", lambda seed: LowestCard()),
        Participant("b", lambda s: LowestCard()),
    ]
    result = tournament(env_id, players, deals=3, seed=0)
    a, b = result.standings
    assert a.win_rate == pytest.approx(b.win_rate)
    assert a.mean_points == pytest.approx(b.mean_points)


def test_confidence_interval() -> None:
    mean, half = mean_and_ci(np.array([0.0, 1.0] * 50))
    assert mean == 0.5
    assert half == pytest.approx(1.959964 * np.std([0, 1] * 50, ddof=1) / 10)


def test_elo_ratings() -> None:
    assert bradley_terry_elo(np.array([[0.0, 10], [10, 0]])) == pytest.approx([1500, 1500])
    strong, weak = bradley_terry_elo(np.array([[0.0, 75], [25, 0]]))
    # Bradley-Terry: 75% expected score is log10(3) * 400 = 191 Elo points.
    assert strong - weak == pytest.approx(400 * np.log10(75.5 / 25.5), abs=0.5)
    a, b, c = bradley_terry_elo(np.array([[0.0, 30, 0], [0, 0, 30], [0, 0, 0]]))
    assert a > b > c  # a beat b always, b beat c always; the prior keeps them finite
