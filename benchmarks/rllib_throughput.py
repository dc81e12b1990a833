"""Env steps per second of the rllib_ppo learner with 1 and 2 env runners.

Measured in one run, on the same config (Asrus, 5 players, the shipped
``configs/asrus/rllib_ppo.yaml`` with a smaller batch), in one local Ray
instance, each after a warm-up iteration:

* ``adapter``: the RLlib adapter alone in this process, legal random moves for
  the learner's seats and the pool's bots in theirs (no RLlib): the ceiling of
  one env runner;
* ``rllib N runners``: whole PPO iterations (sampling on N env runners, then
  the update in the driver), env steps (every seat's moves) and learner steps
  per second; then sampling alone (the same batches collected with no update).

Ratios are against the one-runner figure of the same run. Needs the rllib
extra (``make test-rllib`` builds .venv-rllib)::

    .venv-rllib/bin/python benchmarks/rllib_throughput.py [--iterations 3] [--batch 2000]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np

from flockgym.training.config import load_config

REPO = Path(__file__).resolve().parents[1]
CONFIG = REPO / "configs" / "asrus" / "rllib_ppo.yaml"


def adapter_rate(config: Any, seconds: float) -> float:
    """Env steps per second of the adapter alone, random legal moves."""
    from flockgym.training.rllib.env import FlockgymMultiAgentEnv
    from flockgym.training.rllib.run import env_config

    env = FlockgymMultiAgentEnv(env_config(config, 0))
    rng = np.random.default_rng(0)
    observations, _ = env.reset(seed=0)
    steps, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        ((agent, observation),) = observations.items()
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        observations, _, terminated, truncated, _ = env.step({agent: action})
        steps += 1
        if terminated["__all__"] or truncated["__all__"]:
            observations, _ = env.reset()
    return steps / (time.perf_counter() - started)


def sampling_rate(model: Any, batch: int, rounds: int) -> float:
    """Env steps per second of sampling alone: the env runners collect ``batch``
    env steps ``rounds`` times, as a PPO iteration does, with no update."""
    from ray.rllib.execution.rollout_ops import synchronous_parallel_sample

    steps, started = 0, time.perf_counter()
    for _ in range(rounds):
        episodes = synchronous_parallel_sample(
            worker_set=model.algo.env_runner_group,
            max_env_steps=batch,
            _uses_new_env_runners=True,
        )
        steps += sum(len(episode) for episode in episodes)
    return steps / (time.perf_counter() - started)


def rllib_rates(config: Any, runners: int, iterations: int) -> dict[str, float]:
    from flockgym.training.rllib.run import RLlibRun

    config.algo.num_env_runners = runners
    model = RLlibRun(config, 0)
    try:
        model.train_iteration()  # warm-up: actors started, first episodes, torch ready
        env0, learner0 = model.env_steps, model.num_timesteps
        started = time.perf_counter()
        for _ in range(iterations):
            model.train_iteration()
        seconds = time.perf_counter() - started
        return {
            "env_steps_per_s": (model.env_steps - env0) / seconds,
            "learner_steps_per_s": (model.num_timesteps - learner0) / seconds,
            "sampling_env_steps_per_s": sampling_rate(
                model, model.config.algo.train_batch_size, iterations
            ),
            "iteration_s": seconds / iterations,
        }
    finally:
        model.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--iterations", type=int, default=3, help="timed iterations per setup")
    parser.add_argument("--batch", type=int, default=2000, help="env steps per iteration")
    parser.add_argument("--envs-per-runner", type=int, default=4)
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)  # as `flockgym train` does (torch_threads: 1)
    config = load_config(
        CONFIG,
        [
            f"algo.train_batch_size={args.batch}",
            f"algo.minibatch_size={min(512, args.batch)}",
            f"algo.envs_per_env_runner={args.envs_per_runner}",
            "algo.num_cpus=3",
        ],
    )
    from flockgym.training.rllib.run import ray_session

    print(
        f"asrus_v0, 5 players, pool {config.opponents.pool}, selfplay_share "
        f"{config.algo.selfplay_share}, {args.envs_per_runner} envs per runner, batch "
        f"{args.batch} env steps, {args.iterations} timed iterations each"
    )
    rows = [("adapter alone (no RLlib)", {"env_steps_per_s": adapter_rate(config, 10.0)})]
    with ray_session(config.algo):
        for runners in (1, 2):
            figures = rllib_rates(config, runners, args.iterations)
            rows.append((f"rllib, {runners} env runner{'s' if runners > 1 else ''}", figures))
    base = rows[1][1]["env_steps_per_s"]
    print()
    print(
        "| setup | env steps/s | vs 1 runner | learner steps/s | sampling env steps/s "
        "| s per iteration |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, figures in rows:
        print(
            f"| {name} | {cell(figures, 'env_steps_per_s')} | "
            f"{figures['env_steps_per_s'] / base:.2f}x | {cell(figures, 'learner_steps_per_s')} | "
            f"{cell(figures, 'sampling_env_steps_per_s')} | "
            f"{cell(figures, 'iteration_s', '{:.1f}')} |"
        )


def cell(figures: dict[str, float], key: str, fmt: str = "{:,.0f}") -> str:
    return fmt.format(figures[key]) if key in figures else "-"


if __name__ == "__main__":
    main()
