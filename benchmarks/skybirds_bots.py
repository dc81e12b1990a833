"""How much better the Skybirds heuristic bot plays than the random bot.

For each player count, seeded games through the AEC loop with one heuristic
seat against random bots; the heuristic takes each seat in turn (so no seat is
favoured). Climbing games are judged two ways, and the two can disagree, so
both are printed:

- **win rate**: the share of games the heuristic wins (a shared win counts as
  a fraction; a truncated Great War has no winner), against the 1/n a seat of
  equal players would get and the rate of a random seat at the same tables;
- **mean VP**: the heuristic's final Victory Points against a random seat's.

It also prints how many Great Wars ended with the Armistice and how long
they lasted.

    python benchmarks/skybirds_bots.py [--games 2000] [--players 2 3 4] [--seed 1000]
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

from flockgym.envs import RandomBot, make
from flockgym.envs.core.play import play_game
from flockgym.envs.skybirds.bots import SkybirdsHeuristicBot


@dataclass
class Tally:
    """Running totals for one kind of seat."""

    wins: float = 0.0
    vp: float = 0.0
    seats: int = 0

    def add(self, vp: float, win_share: float) -> None:
        self.seats += 1
        self.vp += vp
        self.wins += win_share

    @property
    def win_rate(self) -> float:
        return self.wins / max(1, self.seats)

    @property
    def mean_vp(self) -> float:
        return self.vp / max(1, self.seats)


@dataclass
class Result:
    players: int
    games: int
    heuristic: Tally
    random: Tally
    ended: int
    campaigns: int
    steps: int
    seconds: float


def measure(players: int, games: int, seed: int) -> Result:
    """One heuristic seat (rotating) against random bots, ``games`` seeded games."""
    env = make("skybirds_v0", num_players=players)
    heuristic, random_seats = Tally(), Tally()
    ended = campaigns = steps = 0
    start = time.perf_counter()
    for game in range(games):
        hero = game % players
        bots = {
            f"player_{s}": SkybirdsHeuristicBot(seed + game)
            if s == hero
            else RandomBot(seed + game * 31 + s)
            for s in range(players)
        }
        record = play_game(env, bots, seed=seed + game)
        engine = env.unwrapped.skybirds
        ended += engine.over
        campaigns += engine.campaign
        steps += len(record.moves)
        share = 1.0 / len(record.winners) if record.winners else 0.0
        for s in range(players):
            agent = f"player_{s}"
            win = share if agent in record.winners else 0.0
            (heuristic if s == hero else random_seats).add(record.scores[agent], win)
    seconds = time.perf_counter() - start
    return Result(players, games, heuristic, random_seats, ended, campaigns, steps, seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="games per player count")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--seed", type=int, default=1000)
    args = parser.parse_args()
    print(
        f"skybirds_v0: one heuristic seat against random bots, {args.games} seeded games "
        f"per player count (seeds {args.seed}..{args.seed + args.games - 1})\n"
    )
    header = (
        "| players | heuristic win rate | random seat win rate | fair share "
        "| heuristic mean VP | random seat mean VP | ended (Armistice) | mean campaigns |"
    )
    print(header)
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for players in args.players:
        r = measure(players, args.games, args.seed)
        print(
            f"| {players} | {r.heuristic.win_rate:.3f} | {r.random.win_rate:.3f} "
            f"| {1 / players:.3f} | {r.heuristic.mean_vp:.2f} | {r.random.mean_vp:.2f} "
            f"| {r.ended / r.games:.3f} | {r.campaigns / r.games:.1f} |",
            flush=True,
        )
    print()


if __name__ == "__main__":
    main()
