"""Think time of the search bot: seconds of CPU per searched move, and
simulations per CPU-second, for each game at 2 players (Asrus at 3), the search
bot at seat 0 against the heuristic, over a few seeded games.

    python benchmarks/search_speed.py --budget 10 --games 2

Forced moves (a single legal move) are not searched and are not counted. CPU
time (``time.process_time``) is reported because wall time on a shared machine
moves with the load.
"""

from __future__ import annotations

import argparse

from run_helpers import Timed  # benchmarks/: the script's own folder

from flockgym.bots.policies import make_participant
from flockgym.envs import ENVS, list_envs, make
from flockgym.envs.core.play import play_game


def measure(env_id: str, budget: str, games: int) -> dict[str, float]:
    """CPU seconds per searched move and simulations per CPU second in ``env_id``."""
    n = max(2, ENVS[env_id].player_counts[0])
    options = {"num_players": n}
    search = make_participant(f"search:budget={budget}", env_id, options)
    heuristic = make_participant("heuristic", env_id, options)
    totals = Timed(None)
    for game in range(games):
        env = make(env_id, **options)
        timed = Timed(search.new_bot(game))
        bots = {a: heuristic.new_bot(100 + i) for i, a in enumerate(env.possible_agents)}
        bots["player_0"] = timed  # type: ignore[assignment]
        play_game(env, bots, seed=game)
        totals.seconds += timed.seconds
        totals.moves += timed.moves
        totals.simulations += timed.simulations
    return {
        "players": n,
        "moves": totals.moves,
        "seconds_per_move": totals.seconds / max(1, totals.moves),
        "simulations_per_second": totals.simulations / max(1e-9, totals.seconds),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", default="10", help="search budget: N simulations or Xs")
    parser.add_argument("--games", type=int, default=2, help="seeded games per env")
    args = parser.parse_args()
    print("| env | players | searched moves | CPU s / move | simulations / CPU s |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for env_id in list_envs():
        row = measure(env_id, args.budget, args.games)
        print(
            f"| {env_id} | {row['players']} | {row['moves']} | {row['seconds_per_move']:.3f} "
            f"| {row['simulations_per_second']:.1f} |"
        )


if __name__ == "__main__":
    main()
