"""The Arena's engines side by side: steps per CPU-second of random legal play.

Measured in one run, interleaved (``--rounds`` slices each), 4 players, the
shipped box and options:

* ``python engine``: :class:`flockgym.envs.arena.rules.ArenaGame`, driven from
  Python (``legal_actions`` / ``apply_action``, a uniform pick each decision);
* ``compiled engine``: :class:`flockgym.envs.arena.native.CompiledArenaGame`,
  the same loop;
* ``compiled engine, play in C++``: the same games played inside the engine
  (``CompiledArenaGame.play_random``: the picks too are drawn in C++);
* the peer, ``open_spiel backgammon`` with ``observation_tensor`` for the
  player to act at every decision (benchmarks/throughput.py's runner: dice as
  chance nodes sampled by OpenSpiel, not counted as steps).

* ``AEC loop, python engine`` and ``AEC loop, compiled engine``: ``arena_v0.env()``
  and ``arena_v0.env(engine="compiled")`` driven as benchmarks/throughput.py
  drives every env (``agent_iter`` / ``last()`` with the observation and the
  mask at every step / ``step``).

A step is one decision of a player (the Arena's dice are rolled inside its
steps). Each game is set up afresh from its seed (the Python engine's setup,
then the compiled play), and that cost is counted. The first three runners
build no observation: they are the engines' own rates.

    python benchmarks/arena_engines.py [--seconds 3] [--rounds 3] [--json FILE]
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from run_helpers import rounds_script, rounds_table, run_loop
from throughput import Clock, Measurement, run_aec, run_open_spiel_backgammon

from flockgym.envs import arena_v0
from flockgym.envs.arena.native import CompiledArenaGame
from flockgym.envs.arena.rules import ArenaConfig, ArenaGame
from flockgym.envs.core.rng import make_rng

PEER = "open_spiel backgammon"
CONFIG = ArenaConfig(num_players=4)


def run_python(seconds: float, seed: int = 0) -> Measurement:
    return run_loop("python engine", lambda s: ArenaGame.new(CONFIG, make_rng(s)), seconds, seed)


def run_compiled(seconds: float, seed: int = 0) -> Measurement:
    return run_loop(
        "compiled engine", lambda s: CompiledArenaGame.new(CONFIG, make_rng(s)), seconds, seed
    )


def run_compiled_inside(seconds: float, seed: int = 0) -> Measurement:
    """Whole games inside the engine (picks drawn in C++ from one generator)."""
    picker = np.random.default_rng(seed)
    steps = games = 0
    clock = Clock(seconds)
    while clock.running():
        steps += CompiledArenaGame.new(CONFIG, make_rng(seed + games)).play_random(picker)
        games += 1
    return clock.measurement("compiled engine, play in C++", steps, games)


def run_aec_python(seconds: float, seed: int = 0) -> Measurement:
    """The AEC loop (observation and mask every step) on the Python engine."""
    return run_aec("AEC loop, python engine", lambda: arena_v0.env(), seconds, seed)


def run_aec_compiled(seconds: float, seed: int = 0) -> Measurement:
    """The same loop with ``engine="compiled"`` (the observation built in C++)."""
    return run_aec(
        "AEC loop, compiled engine", lambda: arena_v0.env(engine="compiled"), seconds, seed
    )


RUNNERS: list[Callable[[float, int], Measurement]] = [
    run_python,
    run_compiled,
    run_compiled_inside,
    run_aec_python,
    run_aec_compiled,
    run_open_spiel_backgammon,
]


measure, main = rounds_script(RUNNERS, PEER, CONFIG.num_players, __doc__)
table = rounds_table


if __name__ == "__main__":
    main()
