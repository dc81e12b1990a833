"""How much better the Arena heuristic bot plays than the random bot.

One heuristic seat against random bots, at 2, 4 and 6 players: the heuristic
bot takes each seat in turn (so no seat is favoured) over seeded games played
through the AEC loop. Reported per player count: its win rate (ties share the
win) against the 1/n a seat wins on average, the random seats' win rate, and
the mean worlds held at the end by the heuristic and by the random seats.

    python benchmarks/arena_bots.py [--games 300] [--players 2 4 6] [--seed 0]
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

from flockgym.envs import RandomBot, make
from flockgym.envs.arena.bots import ArenaHeuristicBot
from flockgym.envs.core.play import play_game


@dataclass
class Tally:
    """Running totals for one kind of seat."""

    wins: float = 0.0
    worlds: float = 0.0
    seats: int = 0

    def add(self, worlds: float, win_share: float) -> None:
        self.seats += 1
        self.worlds += worlds
        self.wins += win_share

    @property
    def win_rate(self) -> float:
        return self.wins / max(1, self.seats)

    @property
    def mean_worlds(self) -> float:
        return self.worlds / max(1, self.seats)


def one_heuristic_seat(games: int, players: int, seed: int) -> tuple[Tally, Tally, dict[str, int]]:
    """The heuristic in seat ``game % players`` against random bots; also counts
    how the games ended."""
    env = make("arena_v0", num_players=players)
    heuristic, random_seats = Tally(), Tally()
    endings: dict[str, int] = {}
    for game in range(games):
        hero = game % players
        bots = {
            f"player_{s}": ArenaHeuristicBot(seed + game)
            if s == hero
            else RandomBot(seed + game * 31 + s)
            for s in range(players)
        }
        record = play_game(env, bots, seed=seed + game)
        reason = env.unwrapped.view("player_0")["win_reason"] or "truncated"
        endings[reason] = endings.get(reason, 0) + 1
        share = 1.0 / len(record.winners) if record.winners else 0.0
        for s in range(players):
            agent = f"player_{s}"
            win = share if agent in record.winners else 0.0
            (heuristic if s == hero else random_seats).add(record.scores[agent], win)
    return heuristic, random_seats, endings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300, help="games per player count")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4, 6])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"{'players':>7} {'games':>6} {'heuristic wins':>15} {'1/n':>6} {'random seat wins':>17}"
          f" {'worlds (h / r)':>15} {'s':>6}  endings")  # fmt: skip
    for players in args.players:
        start = time.perf_counter()
        heuristic, random_seats, endings = one_heuristic_seat(args.games, players, args.seed)
        seconds = time.perf_counter() - start
        ended = ", ".join(f"{k} {v}" for k, v in sorted(endings.items()))
        print(
            f"{players:>7} {args.games:>6} {heuristic.win_rate:>15.3f} {1 / players:>6.3f} "
            f"{random_seats.win_rate:>17.3f} {heuristic.mean_worlds:>7.2f} / "
            f"{random_seats.mean_worlds:<5.2f} {seconds:>6.0f}  {ended}"
        )


if __name__ == "__main__":
    main()
