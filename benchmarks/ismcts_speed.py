"""Simulations per CPU-second of the tree search bot (``ismcts``) beside the
one-move search bot (``search``, method ``paired``), in the same run, on the
same positions, each game on its fastest engine.

    python benchmarks/ismcts_speed.py --simulations 20 --positions 4 \
        --json benchmarks/results/ismcts_speed.json

Positions are decisions with two or more legal moves from a seeded game of
heuristics (2 players; Asrus 3), spread over the game. At each position both
bots, seeded alike and rolling out with the heuristic, search the same budget
of simulations one after the other (interleaved, so load on the machine hits
both alike); CPU time (``time.process_time``) is what is compared, as wall
time moves with the load. The ratio is tree search over one-move search.

Beside them, in the same run, each bot once more with its resampler on the
checked path (``checked=True``: the state copied and the redraw installed
through the game's loader, a validated JSON round trip each, as before the
search's resample skipped them); the speed-up is the default bot's rate over
its checked twin's, for the same simulations (the same states are drawn).
"""

from __future__ import annotations

import argparse
import functools
import time
from typing import Any

from run_helpers import add_run_arguments, print_and_save, print_saved

from flockgym.bots.policies import make_participant
from flockgym.envs import ENVS, list_envs, make

BOTS = {"ismcts": "ismcts:budget={n}", "search": "search:budget={n},method=paired"}
CHECKED = {f"{name}_checked": name for name in BOTS}
"""Each bot again with its resampler on the checked (loader) path."""


def env_options(env_id: str) -> dict[str, Any]:
    """The game's fewest players (at least 2) on its default engine: the compiled
    one in every game."""
    return {"num_players": max(2, ENVS[env_id].player_counts[0])}


def positions(env_id: str, options: dict[str, Any], count: int, seed: int) -> list[Any]:
    """``count`` clones of a heuristic game's decisions with >= 2 legal moves,
    evenly spread over the game."""
    heuristic = make_participant("heuristic", env_id, options)
    env = make(env_id, **options)
    env.reset(seed=seed)
    raw = env.unwrapped
    bots = {a: heuristic.new_bot(seed + i) for i, a in enumerate(raw.possible_agents)}
    found = []
    while raw.agents:
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            raw.step(None)
            continue
        if len(raw.legal_actions(agent)) >= 2:
            found.append(raw.clone())
        raw.step(int(bots[agent].act(raw.observe(agent), raw.view(agent))))
    step = max(1, len(found) // count)
    return found[::step][:count]


def measure(env_id: str, simulations: int, count: int, seed: int) -> dict[str, Any]:
    options = env_options(env_id)
    makers = {
        name: make_participant(spec.format(n=simulations), env_id, options)
        for name, spec in BOTS.items()
    }
    names = [*BOTS, *CHECKED]
    seconds = dict.fromkeys(names, 0.0)
    done = dict.fromkeys(names, 0)
    for i, position in enumerate(positions(env_id, options, count, seed)):
        agent = position.agent_selection
        for name in names:
            bot = makers[CHECKED.get(name, name)].new_bot(seed + i)
            if name in CHECKED:
                bot.resample = functools.partial(bot.resample, checked=True)
            table = position.clone()
            bot.see_table(table, agent)
            started = time.process_time()
            bot.act(table.observe(agent), table.view(agent))
            seconds[name] += time.process_time() - started
            done[name] += bot.last_simulations
    rates = {name: done[name] / max(seconds[name], 1e-9) for name in names}
    return {
        "env": env_id,
        "options": options,
        "positions": count,
        "simulations": done,
        "cpu_seconds": seconds,
        "simulations_per_cpu_second": rates,
        "ratio": rates["ismcts"] / rates["search"],
        "speedup_over_checked": {name: rates[name] / rates[f"{name}_checked"] for name in BOTS},
    }


def summary(run: dict[str, Any]) -> str:
    lines = [
        "| game | players | ISMCTS sims / CPU s | one-move search sims / CPU s | ratio "
        "| ISMCTS, checked resample | one-move, checked resample | speed-up (ISMCTS, one-move) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in run["rows"]:
        rates, up = row["simulations_per_cpu_second"], row["speedup_over_checked"]
        lines.append(
            f"| {row['env']} | {row['options']['num_players']} | {rates['ismcts']:.0f} "
            f"| {rates['search']:.0f} | {row['ratio']:.2f}x | {rates['ismcts_checked']:.0f} "
            f"| {rates['search_checked']:.0f} | {up['ismcts']:.2f}x, {up['search']:.2f}x |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--simulations", type=int, default=30, help="budget of each search")
    parser.add_argument("--positions", type=int, default=6, help="positions per game")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--envs", default=",".join(list_envs()))
    add_run_arguments(parser)
    args = parser.parse_args()
    if args.summary:
        print_saved(summary, args.summary)
        return
    rows = [
        measure(env_id, args.simulations, args.positions, args.seed)
        for env_id in args.envs.split(",")
    ]
    run = {
        "command": "benchmarks/ismcts_speed.py",
        "simulations": args.simulations,
        "seed": args.seed,
        "rows": rows,
    }
    print_and_save(run, summary, args.json)


if __name__ == "__main__":
    main()
