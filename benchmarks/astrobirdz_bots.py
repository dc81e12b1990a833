"""How much better the Astrobirdz heuristic bot plays than the random bot.

Two measurements over seeded games, played through the AEC loop:

1. **One heuristic seat against random bots**: the heuristic bot takes each seat
   in turn (so no seat position is favoured); its win rate (ties share the
   win) against the 1/n a random bot gets, and its mean points against the
   random seats' mean points.
2. **All-heuristic table against all-random table**: mean points per player
   and the share of exact guesses, on the same seeds.

    python benchmarks/astrobirdz_bots.py [--games 2000] [--players 4]
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from typing import Any

from flockgym.envs import RandomBot, make
from flockgym.envs.astrobirdz.bots import AstrobirdzHeuristicBot
from flockgym.envs.astrobirdz.rules import TurnScore
from flockgym.envs.core.play import play_game


@dataclass
class Tally:
    """Running totals for one kind of seat."""

    wins: float = 0.0
    points: float = 0.0
    seats: int = 0

    def add(self, points: float, win_share: float) -> None:
        self.seats += 1
        self.points += points
        self.wins += win_share

    @property
    def mean_points(self) -> float:
        return self.points / max(1, self.seats)

    @property
    def win_rate(self) -> float:
        return self.wins / max(1, self.seats)


def one_heuristic_seat(games: int, players: int, seed: int) -> tuple[Tally, Tally]:
    env = make("astrobirdz_v0", num_players=players)
    heuristic, random_seats = Tally(), Tally()
    for game in range(games):
        hero = game % players
        bots = {
            f"player_{s}": AstrobirdzHeuristicBot(seed + game)
            if s == hero
            else RandomBot(seed + game * 31 + s)
            for s in range(players)
        }
        record = play_game(env, bots, seed=seed + game)
        share = 1.0 / len(record.winners)
        for s in range(players):
            agent = f"player_{s}"
            win = share if agent in record.winners else 0.0
            (heuristic if s == hero else random_seats).add(record.scores[agent], win)
    return heuristic, random_seats


def whole_table(games: int, players: int, seed: int, kind: str) -> tuple[float, float]:
    """Mean points per player and exact-guess share for a table of one bot kind."""
    # the Python engine: each turn's tally is told apart by identity, and the
    # compiled engine's ``astrobirdz`` is a fresh copy at every read
    env = make("astrobirdz_v0", num_players=players, engine="python")
    tallies: list[list[TurnScore]] = []

    def note_scored_turn(env: Any, *_: Any) -> None:
        """Keep each turn's tally once, as soon as the next step shows it."""
        last = env.unwrapped.astrobirdz.last_turn
        if last is not None and (not tallies or tallies[-1] is not last):
            tallies.append(last)

    points = 0.0
    for game in range(games):
        bots = {
            f"player_{s}": AstrobirdzHeuristicBot(seed + game * 31 + s)
            if kind == "heuristic"
            else RandomBot(seed + game * 31 + s)
            for s in range(players)
        }
        record = play_game(env, bots, seed=seed + game, on_step=note_scored_turn)
        note_scored_turn(env)  # the game's last turn is scored by its last step
        points += sum(record.scores.values()) / players
    items = [item for tally in tallies for item in tally]
    exact = sum(item.guess == item.tricks for item in items)
    return points / games, exact / max(1, len(items))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1000)
    args = parser.parse_args()
    start = time.perf_counter()
    hero, rest = one_heuristic_seat(args.games, args.players, args.seed)
    print(f"astrobirdz_v0, {args.players} players, {args.games} games per measurement")
    print(
        f"one heuristic seat vs random bots: win rate {hero.win_rate:.3f} "
        f"(a random seat: {rest.win_rate:.3f}, fair share {1 / args.players:.3f}); "
        f"mean points {hero.mean_points:.1f} vs {rest.mean_points:.1f} per random seat"
    )
    h_points, h_exact = whole_table(args.games, args.players, args.seed, "heuristic")
    r_points, r_exact = whole_table(args.games, args.players, args.seed, "random")
    print(
        f"all-heuristic table: {h_points:.1f} points per player, exact guesses {h_exact:.3f}; "
        f"all-random table: {r_points:.1f} points per player, exact guesses {r_exact:.3f}"
    )
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
