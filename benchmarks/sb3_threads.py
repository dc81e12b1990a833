"""Your own SB3 loop on a small shared machine: ``MaskablePPO.learn`` on four
Skybirds self-play envs with torch's default thread count and with one thread,
measured side by side in one run (the settings alternate, so load changes hit
both alike). torch starts one OpenMP thread per core; on a machine whose other
core is busy those threads spin at every barrier and wait for a core, which is
why the flockgym trainer updates on one thread (``update_threads: 1``) and why
``examples/sb3_maskable_ppo.py`` calls ``torch.set_num_threads(1)``.

    python benchmarks/sb3_threads.py --json benchmarks/results/sb3_threads.json
    python benchmarks/sb3_threads.py --summary benchmarks/results/sb3_threads.json

docs/own-code.md states :func:`summary` of the saved run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import Any

import torch
from baseline_tree import checkout_commit  # benchmarks/: the script's own folder
from run_helpers import add_run_arguments, print_and_save, print_saved
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_util import make_vec_env

import flockgym.training  # noqa: F401  (registers the self-play envs with Gymnasium)

ENV_ID = "flockgym/skybirds-selfplay-v0"
ENVS = 4
STEPS = 256


def one_learn(threads: int, seed: int) -> float:
    """Seconds of one ``MaskablePPO.learn(STEPS)`` on ``threads`` torch threads."""
    torch.set_num_threads(threads)
    env = make_vec_env(ENV_ID, n_envs=ENVS, seed=seed, env_kwargs={"opponents": ["heuristic"]})
    model = MaskablePPO("MlpPolicy", env, n_steps=STEPS // ENVS, batch_size=64, seed=seed)
    start = time.perf_counter()
    model.learn(total_timesteps=STEPS)
    seconds = time.perf_counter() - start
    env.close()
    return seconds


def measure(repeats: int) -> dict[str, Any]:
    default = torch.get_num_threads()
    times: dict[int, list[float]] = {default: [], 1: []}
    for repeat in range(repeats):
        for threads in times:
            times[threads].append(one_learn(threads, seed=repeat))
    return {
        "command": "python " + " ".join(sys.argv),
        "commit": checkout_commit(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load_average": os.getloadavg(),
        "cores": os.cpu_count(),
        "env": ENV_ID,
        "envs": ENVS,
        "steps": STEPS,
        "runs": [
            {"threads": threads, "seconds": seconds, "median": statistics.median(seconds)}
            for threads, seconds in times.items()
        ],
    }


def summary(run: dict[str, Any]) -> str:
    """The sentence docs/own-code.md states for a saved run."""
    default, one = run["runs"]
    return (
        f"`MaskablePPO.learn({run['steps']})` on {run['envs']} Skybirds self-play envs, "
        f"{run['cores']} cores (load {run['load_average'][0]:.1f}): torch's default "
        f"{default['threads']} threads {default['median']:.1f} s, one thread "
        f"{one['median']:.1f} s (median of {len(one['seconds'])}; "
        f"{default['median'] / one['median']:.1f}x faster on one)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs of each setting")
    add_run_arguments(parser)
    args = parser.parse_args()
    if args.summary:
        print_saved(summary, args.summary)
        return
    run = measure(args.repeats)
    print_and_save(run, summary, args.json)


if __name__ == "__main__":
    main()
