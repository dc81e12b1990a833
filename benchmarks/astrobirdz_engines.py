"""Astrobirdz's engines side by side: steps per CPU-second of random legal play.

Measured in one run, interleaved (``--rounds`` slices each), 4 players, the
default options (Berzerkerbirdz and rule cards on):

* ``python engine``: :class:`flockgym.envs.astrobirdz.rules.AstrobirdzGame`,
  driven from Python (``legal_actions`` / ``apply_action``, a uniform pick
  each decision);
* ``compiled engine``: :class:`flockgym.envs.astrobirdz.native.NativeAstrobirdzGame`,
  the same loop;
* ``AEC loop, python engine`` and ``AEC loop, compiled engine``:
  ``astrobirdz_v0.env(engine="python")`` and ``astrobirdz_v0.env()`` (the
  compiled engine, the default) driven
  as benchmarks/throughput.py drives every env (``agent_iter`` / ``last()``
  with the observation and the mask at every step / ``step``);
* ``heuristic bots, python engine`` and ``heuristic bots, compiled``: every
  seat played by the heuristic bot, :class:`~flockgym.envs.astrobirdz.bots.AstrobirdzHeuristicBot`
  reading each decision's view and mask of the Python env, or
  :class:`~flockgym.envs.astrobirdz.native.NativeHeuristicBot` reading the
  compiled engine (the same choices: rollouts and training opponents);
* the peer, ``open_spiel oh_hell 4p`` with ``information_state_tensor`` for
  the player to act at every decision (benchmarks/throughput.py's runner: the
  deal as chance nodes sampled by OpenSpiel, not counted as steps).

A step is one decision of a player. The first two runners build no
observation: they are the engines' own rates.

    python benchmarks/astrobirdz_engines.py [--seconds 3] [--rounds 3] [--json FILE]
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from run_helpers import rounds_script, rounds_table, run_loop
from throughput import Clock, Measurement, run_aec, run_open_spiel_oh_hell

from flockgym.envs import astrobirdz_v0
from flockgym.envs.astrobirdz.bots import AstrobirdzHeuristicBot
from flockgym.envs.astrobirdz.env import raw_env
from flockgym.envs.astrobirdz.native import NativeAstrobirdzGame, NativeHeuristicBot
from flockgym.envs.astrobirdz.rules import AstrobirdzConfig, AstrobirdzGame
from flockgym.envs.core.rng import make_rng

PEER = "open_spiel oh_hell 4p"
CONFIG = AstrobirdzConfig(num_players=4)


def run_python(seconds: float, seed: int = 0) -> Measurement:
    return run_loop(
        "python engine", lambda s: AstrobirdzGame.new(CONFIG, make_rng(s)), seconds, seed
    )


def run_compiled(seconds: float, seed: int = 0) -> Measurement:
    return run_loop(
        "compiled engine", lambda s: NativeAstrobirdzGame.new(CONFIG, make_rng(s)), seconds, seed
    )


def run_aec_python(seconds: float, seed: int = 0) -> Measurement:
    """The AEC loop (observation and mask every step) on the Python engine."""
    return run_aec(
        "AEC loop, python engine", lambda: astrobirdz_v0.env(engine="python"), seconds, seed
    )


def run_aec_compiled(seconds: float, seed: int = 0) -> Measurement:
    """The same loop with ``engine="compiled"`` (the observation written in C++)."""
    return run_aec(
        "AEC loop, compiled engine", lambda: astrobirdz_v0.env(engine="compiled"), seconds, seed
    )


def run_bots_python(seconds: float, seed: int = 0) -> Measurement:
    """Heuristic bots at every seat, each decision from the seat's view and mask."""
    env = raw_env(num_players=CONFIG.num_players, engine="python")
    bot = AstrobirdzHeuristicBot(seed)
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
        game = NativeAstrobirdzGame.new(CONFIG, make_rng(seed + games))
        while not game.is_over():
            game.apply_action(bot.act_in(game))
            steps += 1
        games += 1
    return clock.measurement("heuristic bots, compiled", steps, games)


RUNNERS: list[Callable[[float, int], Measurement]] = [
    run_python,
    run_compiled,
    run_aec_python,
    run_aec_compiled,
    run_bots_python,
    run_bots_compiled,
    run_open_spiel_oh_hell,
]


measure, main = rounds_script(RUNNERS, PEER, CONFIG.num_players, __doc__)
table = rounds_table


if __name__ == "__main__":
    main()
