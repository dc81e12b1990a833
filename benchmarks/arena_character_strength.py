"""Which Arena character wins most often for the heuristic bot.

Heuristic bots in every seat; each game's characters are a seeded random draw
of distinct characters given by the reset option ``characters`` (so the wish
phase is skipped and no seat's wish is involved). Reported per character: the
games it played, its win share (ties share the win) and its win rate. The
ranking (win rate, highest first; ties by box order) is what the heuristic
wishes by (``HEURISTIC_CHARACTER_ORDER`` in envs/arena/data.py). Writes
benchmarks/results/arena_character_strength.json.

    python benchmarks/arena_character_strength.py [--games 3000] [--players 4] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from flockgym.envs import make
from flockgym.envs.arena.bots import ArenaHeuristicBot
from flockgym.envs.core.play import play_game

RESULT = Path(__file__).with_name("results") / "arena_character_strength.json"


def measure(games: int, players: int, seed: int) -> dict[str, dict[str, float]]:
    """Win share and games played per character over ``games`` seeded games."""
    env = make("arena_v0", num_players=players)
    names = [c.name for c in env.unwrapped.box.characters]
    tally = {name: {"games": 0, "wins": 0.0} for name in names}
    draw = np.random.default_rng(seed)
    for game in range(games):
        chosen = [names[int(i)] for i in draw.choice(len(names), players, replace=False)]
        options = {"characters": {f"player_{s}": chosen[s] for s in range(players)}}
        bots = {f"player_{s}": ArenaHeuristicBot(seed + game * 7 + s) for s in range(players)}
        record = play_game(env, bots, seed=seed + game, options=options)
        share = 1.0 / len(record.winners) if record.winners else 0.0
        for s, name in enumerate(chosen):
            tally[name]["games"] += 1
            tally[name]["wins"] += share if f"player_{s}" in record.winners else 0.0
    for entry in tally.values():
        entry["win_rate"] = round(entry["wins"] / max(1, entry["games"]), 4)
    return tally


def ranking(tally: dict[str, dict[str, float]]) -> list[str]:
    """Characters by win rate, highest first; equal rates keep box order."""
    names = list(tally)
    return sorted(names, key=lambda n: (-tally[n]["win_rate"], names.index(n)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    start = time.perf_counter()
    tally = measure(args.games, args.players, args.seed)
    order = ranking(tally)
    seconds = time.perf_counter() - start
    for name in order:
        t = tally[name]
        print(f"{name:40} {int(t['games']):5} games  win rate {t['win_rate']:.3f}")
    print(f"{args.games} games of {args.players} players in {seconds:.0f} s")
    RESULT.parent.mkdir(exist_ok=True)
    result = {
        "command": "python benchmarks/arena_character_strength.py "
        f"--games {args.games} --players {args.players} --seed {args.seed}",
        "games": args.games,
        "players": args.players,
        "seed": args.seed,
        "characters": tally,
        "ranking": order,
    }
    RESULT.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
