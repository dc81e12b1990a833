"""Tournaments: balanced seating, deterministic results, the JSON and Markdown
output, confidence intervals and ratings."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from training_helpers import winning_bot

from flockgym.bots.policies import Participant, make_participant
from flockgym.envs import make
from flockgym.envs.core.play import GameRecord
from flockgym.envs.core.rng import derive_seed
from flockgym.evaluation import tournaments as evaluate
from flockgym.evaluation.tournaments import (
    Z95,
    bradley_terry_elo,
    mean_and_ci,
    save_result,
    seating_tables,
    tournament,
)


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
    bot = winning_bot(env_id)  # every game ends with a winner
    players = [make_participant(bot, env_id), Participant("lowest", lambda seed: LowestCard())]
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
    assert sorted(row.split("|")[1].strip() for row in rows) == sorted(["lowest", bot])
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
    pair_wins = np.array([[0.0, 30, 0], [0, 0, 30], [0, 0, 0]])
    elo = np.array(bradley_terry_elo(pair_wins))
    assert elo[0] > elo[1] > elo[2]  # a beat b always, b beat c always; the prior keeps them finite
    assert elo.mean() == pytest.approx(1500)
    # The maximum-likelihood equations: each player's wins (with the prior's
    # half a win per pair) equal its expected wins at the fitted strengths.
    wins = pair_wins + 0.5 * (1 - np.eye(3))
    strength = 10 ** ((elo - 1500) / 400)
    expected = ((wins + wins.T) * strength[:, None] / (strength[:, None] + strength)).sum(axis=1)
    assert wins.sum(axis=1) == pytest.approx(expected, rel=1e-6)


def test_tournament_statistics_from_scripted_games(monkeypatch) -> None:
    """Games whose results are scripted per deal, so every figure is known exactly:
    deals 0 and 1 are won by A's first seat at every table, deal 2 by B's; a
    winner scores 5 points, everyone else -1."""
    deals, seed = 3, 5
    favourite = {derive_seed(seed, deal): who for deal, who in enumerate("AAB")}
    seen_seeds = []

    def scripted_game(env, bots, seed=None):
        seen_seeds.append(seed)
        winner = next(agent for agent, who in bots.items() if who == favourite[seed])
        scores = {agent: 5.0 if agent == winner else -1.0 for agent in bots}
        return GameRecord(seed, scores=scores, winners=[winner])

    monkeypatch.setattr(evaluate, "play_game", scripted_game)
    players = [Participant("A", lambda seed: "A"), Participant("B", lambda seed: "B")]
    # One game after the other through play_game (the batched engine plays the
    # same games, as test_batched_and_sequential_engines_agree shows).
    result = tournament("asrus_v0", players, deals, seed, {"num_players": 3}, batch=False)

    # Duplicate: the 6 tables of a deal all play that deal's seed.
    assert result.tables_per_deal == 6 and result.games == 18
    assert seen_seeds == [derive_seed(seed, deal) for deal in range(deals) for _ in range(6)]
    a, b = result.standings
    # Each sits 9 times per deal (3 seats x 6 tables / 2); the favourite wins all 6 games.
    assert (a.games, b.games) == (27, 27)
    sd = np.std([2 / 3, 2 / 3, 0], ddof=1)  # per-deal win rates of A; B's mirror them
    assert (a.win_rate, a.win_rate_ci) == pytest.approx((4 / 9, Z95 * sd / np.sqrt(3)))
    assert (b.win_rate, b.win_rate_ci) == pytest.approx((2 / 9, Z95 * sd / np.sqrt(3)))
    # Per-deal mean points: the favourite (6 x 5 - 3) / 9 = 3, the other -1.
    sd = np.std([3, 3, -1], ddof=1)
    assert (a.mean_points, a.mean_points_ci) == pytest.approx((5 / 3, Z95 * sd / np.sqrt(3)))
    assert (b.mean_points, b.mean_points_ci) == pytest.approx((1 / 3, Z95 * sd / np.sqrt(3)))
    # Pairwise: a winner beats each seat of the other participant, 9 per deal.
    assert a.elo - b.elo == pytest.approx(400 * np.log10((18 + 0.5) / (9 + 0.5)))
    assert (a.elo + b.elo) / 2 == pytest.approx(1500)


def test_a_tournament_of_one_deal_is_refused_for_its_intervals() -> None:
    from flockgym.bots.policies import make_participant
    from flockgym.evaluation.tournaments import tournament

    players = [make_participant("random", "asrus_v0", {})]
    with pytest.raises(ValueError, match="at least 2 deals for its 95% intervals, got 1"):
        tournament("asrus_v0", players, deals=1)
