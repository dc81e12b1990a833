"""Asrus's engines side by side: steps per CPU-second of random legal play.

Measured in one run, interleaved (``--rounds`` slices each), 5 players, the
default options:

* ``python engine``: :class:`flockgym.envs.asrus.rules.AsrusGame`, driven from
  Python (``legal_actions`` / ``apply_action``, a uniform pick each decision);
* ``compiled engine``: :class:`flockgym.envs.asrus.native.NativeAsrusGame`, the
  same loop;
* ``compiled engine, whole games in C++``: ``Engine.play_random``, the same
  loop inside C++ (the mask and the observation built every decision), the
  compiled engine's own ceiling;
* ``AEC loop, python engine`` and ``AEC loop, compiled engine``:
  ``asrus_v0.env(engine="python")`` and ``asrus_v0.env()`` (the compiled
  engine, the default) driven as benchmarks/throughput.py drives every env
  (``agent_iter`` / ``last()`` with the observation and the mask at every step
  / ``step``);
* ``heuristic bots, python engine`` and ``heuristic bots, compiled``: every
  seat played by the heuristic bot, :class:`~flockgym.envs.asrus.bots.AsrusHeuristicBot`
  reading each decision's view and mask of the Python env, or
  :class:`~flockgym.envs.asrus.native.NativeHeuristicBot` reading the compiled
  engine (the same choices: rollouts and training opponents);
* the peer, PettingZoo's ``connect_four_v3``, through the same AEC loop
  (benchmarks/throughput.py's runner).

A step is one decision of a player. The first three runners build no
observation from Python: they are the engines' own rates.

    python benchmarks/asrus_engines.py [--seconds 3] [--rounds 3] [--json FILE]
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from run_helpers import rounds_script, rounds_table, run_loop
from throughput import Clock, Measurement, run_aec

from flockgym.envs import asrus_v0
from flockgym.envs.asrus.bots import AsrusHeuristicBot
from flockgym.envs.asrus.env import raw_env
from flockgym.envs.asrus.native import NativeAsrusGame, NativeHeuristicBot
from flockgym.envs.asrus.rules import AsrusConfig, AsrusGame
from flockgym.envs.core.rng import make_rng

PEER = "connect_four_v3"
CONFIG = AsrusConfig(num_players=5)


def run_python(seconds: float, seed: int = 0) -> Measurement:
    return run_loop("python engine", lambda s: AsrusGame.new(CONFIG, make_rng(s)), seconds, seed)


def run_compiled(seconds: float, seed: int = 0) -> Measurement:
    return run_loop(
        "compiled engine", lambda s: NativeAsrusGame.new(CONFIG, make_rng(s)), seconds, seed
    )


def run_compiled_in_cpp(seconds: float, seed: int = 0) -> Measurement:
    """Whole random games inside C++ (``Engine.play_random``)."""
    steps = games = 0
    clock = Clock(seconds)
    while clock.running():
        game = NativeAsrusGame.new(CONFIG, make_rng(seed + games))
        steps += game.engine.play_random(make_rng(seed + games + 1).bit_generator.state, 10**6)
        games += 1
    return clock.measurement("compiled engine, whole games in C++", steps, games)


def run_aec_python(seconds: float, seed: int = 0) -> Measurement:
    """The AEC loop (observation and mask every step) on the Python engine."""
    return run_aec(
        "AEC loop, python engine",
        lambda: asrus_v0.env(num_players=CONFIG.num_players, engine="python"),
        seconds,
        seed,
    )


def run_aec_compiled(seconds: float, seed: int = 0) -> Measurement:
    """The same loop on the compiled engine (the default; the observation written in C++)."""
    return run_aec(
        "AEC loop, compiled engine",
        lambda: asrus_v0.env(num_players=CONFIG.num_players, engine="compiled"),
        seconds,
        seed,
    )


def run_bots_python(seconds: float, seed: int = 0) -> Measurement:
    """Heuristic bots at every seat, each decision from the seat's view and mask."""
    env = raw_env(num_players=CONFIG.num_players, engine="python")
    bot = AsrusHeuristicBot(seed)
    steps = games = 0
    clock = Clock(seconds)
    while clock.running():
        env.reset(seed=seed + games)
        while env.agents:
            agent = env.agent_selection
            observation, _, terminated, truncated, _ = env.last()
            env.step(None if terminated or truncated else bot.act(observation, env.view(agent)))
            steps += not (terminated or truncated)
        games += 1
    return clock.measurement("heuristic bots, python engine", steps, games)


def run_bots_compiled(seconds: float, seed: int = 0) -> Measurement:
    """The same games with the compiled bot on the compiled engine."""
    bot = NativeHeuristicBot(seed)
    steps = games = 0
    clock = Clock(seconds)
    while clock.running():
        game = NativeAsrusGame.new(CONFIG, make_rng(seed + games))
        while not game.is_over():
            game.apply_action(bot.act_in(game))
            steps += 1
        games += 1
    return clock.measurement("heuristic bots, compiled", steps, games)


def run_connect_four(seconds: float, seed: int = 0) -> Measurement:
    """The peer: PettingZoo's connect_four_v3 through the same AEC loop."""
    from pettingzoo.classic import connect_four_v3

    return partial(run_aec, PEER, connect_four_v3.env)(seconds, seed)


RUNNERS: list[Callable[[float, int], Measurement]] = [
    run_python,
    run_compiled,
    run_compiled_in_cpp,
    run_aec_python,
    run_aec_compiled,
    run_bots_python,
    run_bots_compiled,
    run_connect_four,
]


measure, main = rounds_script(RUNNERS, PEER, CONFIG.num_players, __doc__)
table = rounds_table


if __name__ == "__main__":
    main()
