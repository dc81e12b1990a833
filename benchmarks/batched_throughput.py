"""Random-play steps per CPU-second of the batched form, beside the AEC env.

For every game, four loops of random legal play, each building at every
decision the legal-action mask of the player to act:

* **AEC env** (the peer): the existing throughput loop of benchmarks/throughput.py
  (``agent_iter`` / ``last()`` / ``step``, the observation built beside the
  mask) on the compiled engine;
* **batch from Python**: ``BatchedGames`` of ``--games`` (256) games driven
  from Python: ``masks()``, a uniformly random legal action per game drawn
  with numpy (``sample_actions``), ``step``;
* **batch in C++, masks**: the same batch's ``play_random(observe=False)``
  (every draw in C++);
* **batch in C++, + observations**: ``play_random`` building each actor's
  observation as well, the AEC loop's work.

Each is reported as a ratio to the AEC env of the same game, measured in this
same process with its slices interleaved, and the best batch rate with masks
against the moonshot of 1,000,000 steps per CPU-second (``time.process_time``:
the rate per core, which other processes on a shared machine do not lower).

    python benchmarks/batched_throughput.py [--seconds 3] [--rounds 2] [--games 256]
                                            [--env arena_v0 ...] [--json FILE]
    python benchmarks/batched_throughput.py --summary FILE  # a saved run's table
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from functools import partial
from typing import Any

import numpy as np
from baseline_tree import checkout_commit  # benchmarks/: the script's own folder
from run_helpers import add_run_arguments, print_and_save, print_saved
from throughput import BENCH_OPTIONS, Clock, Measurement, env_label, measure_interleaved, run_aec

from flockgym.envs import entry, list_envs, make
from flockgym.envs.core.batched import BatchedGames

MOONSHOT = 1_000_000
"""Random-play steps per CPU-second per game, with masks (the issue's goal)."""

AEC, FROM_PYTHON = "AEC env", "batch from Python"
IN_CPP, IN_CPP_OBSERVED = "batch in C++, masks", "batch in C++, + observations"
LOOPS = (AEC, FROM_PYTHON, IN_CPP, IN_CPP_OBSERVED)

Runner = Callable[[float, int], Measurement]


def options_of(env_id: str) -> dict[str, Any]:
    """The configuration a game is measured at (benchmarks/throughput.py's)."""
    return BENCH_OPTIONS.get(env_id, {"num_players": entry(env_id).default_players})


def run_batch_from_python(batch: BatchedGames, seconds: float, seed: int) -> Measurement:
    """masks -> numpy's uniform legal choice -> step, for ``seconds``."""
    draws = np.random.default_rng(seed)
    steps = games = 0
    clock = Clock(seconds)
    while clock.running():
        _rewards, finished = batch.step(batch.sample_actions(draws, batch.masks()))
        steps += batch.num_envs
        games += int(finished.sum())
    return clock.measurement(FROM_PYTHON, steps, games)


def run_batch_in_cpp(
    batch: BatchedGames, seconds: float, seed: int, observe: bool = False
) -> Measurement:
    """``play_random`` in chunks of 20,000 decisions for ``seconds``."""
    steps = games = 0
    clock = Clock(seconds)
    while clock.running():
        played, ended = batch.play_random(20_000, seed=seed + steps, observe=observe)
        steps += played
        games += ended
    return clock.measurement(IN_CPP_OBSERVED if observe else IN_CPP, steps, games)


def runners_of(env_id: str, games: int) -> list[Runner]:
    """The four loops of one game; the batch loops share one batch."""
    options = options_of(env_id)
    batch = BatchedGames(env_id, games, seed=0, **options)
    return [
        partial(run_aec, AEC, partial(make, env_id, engine="compiled", **options)),
        partial(run_batch_from_python, batch),
        partial(run_batch_in_cpp, batch),
        partial(run_batch_in_cpp, batch, observe=True),
    ]


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """One run: per game, the three loops' slices interleaved."""
    env_ids = args.env or list_envs()
    rows = {}
    for env_id in env_ids:
        results = measure_interleaved(runners_of(env_id, args.games), args.seconds, args.rounds)
        rows[env_label(env_id)] = {m.name: asdict(m) for m in results}
    return {
        "command": " ".join(["python benchmarks/batched_throughput.py", *sys.argv[1:]]),
        "commit": checkout_commit(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "seconds": args.seconds,
        "rounds": args.rounds,
        "games": args.games,
        "load_average": os.getloadavg(),
        "moonshot": MOONSHOT,
        "envs": rows,
    }


def rate(m: dict[str, Any]) -> float:
    """Steps per CPU-second of a saved measurement."""
    return m["steps"] / max(m["cpu_seconds"], 1e-9)


def summary(run: dict[str, Any]) -> str:
    """The saved run as docs/scale.md's Markdown table."""
    lines = [
        f"One run of `{run['command']}` ({run['date']}, commit {run['commit']}, load "
        f"average {run['load_average'][0]:.1f} at its end; {run['games']} games in a batch; "
        "steps per CPU-second, and over the AEC env of the same game):",
        "",
        f"| env | {AEC} | {FROM_PYTHON} | {IN_CPP} | {IN_CPP_OBSERVED} | "
        f"best with masks >= {run['moonshot']:,} |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for name, loops in run["envs"].items():
        aec, *batched = (rate(loops[loop]) for loop in LOOPS)
        cells = " | ".join(f"{r:,.0f} ({r / aec:.1f}x)" for r in batched)
        best = max(batched)
        verdict = "met" if best >= run["moonshot"] else "not met"
        lines.append(
            f"| {name} | {aec:,.0f} | {cells} | {verdict} ({best / run['moonshot']:.2f}x) |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per loop and game")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved slices per loop")
    parser.add_argument("--games", type=int, default=256, help="games in the batch")
    parser.add_argument("--env", action="append", choices=list_envs(), help="default: all")
    add_run_arguments(parser, "print a saved run's table and exit")
    args = parser.parse_args()
    if args.summary:
        print_saved(summary, args.summary)
        return
    print_and_save(measure(args), summary, args.json)


if __name__ == "__main__":
    main()
