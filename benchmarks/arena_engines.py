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

* ``AEC loop, python engine`` and ``AEC loop, compiled engine``:
  ``arena_v0.env(engine="python")`` and ``arena_v0.env()`` (the compiled
  engine, the default) driven as benchmarks/throughput.py drives every env
  (``agent_iter`` / ``last()`` with the observation and the mask at every
  step / ``step``).
* ``heuristic bots, python`` and ``heuristic bots, compiled``: four heuristic
  bots play whole games, a step being one bot decision: the Python bot
  (:class:`flockgym.envs.arena.bots.ArenaHeuristicBot`, from the seat's mask
  and view, ``observer.bot_view``) on the Python engine, against the compiled
  bot (:class:`flockgym.envs.arena.native.CompiledArenaBot`, which reads the
  compiled game) on the compiled engine. ``bots_compiled_over_python`` in the
  saved run is their ratio.

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
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from run_helpers import rounds_main, rounds_script, rounds_table, run_loop
from throughput import Clock, Measurement, run_aec, run_open_spiel_backgammon

from flockgym.envs import arena_v0
from flockgym.envs.arena.bots import ArenaHeuristicBot
from flockgym.envs.arena.native import CompiledArenaBot, CompiledArenaGame
from flockgym.envs.arena.observer import bot_view
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
    return run_aec("AEC loop, python engine", lambda: arena_v0.env(engine="python"), seconds, seed)


def run_aec_compiled(seconds: float, seed: int = 0) -> Measurement:
    """The same loop on the default engine, the compiled one (observation built in C++)."""
    return run_aec("AEC loop, compiled engine", lambda: arena_v0.env(), seconds, seed)


AGENTS = [f"player_{seat}" for seat in range(CONFIG.num_players)]


def run_bots_python(seconds: float, seed: int = 0) -> Measurement:
    """Four Python heuristic bots on the Python engine, each deciding from its
    mask and view as the env gives them."""
    size = ArenaGame.new(CONFIG, make_rng(0)).layout.size

    def decide(bot: ArenaHeuristicBot, game: ArenaGame, seat: int) -> int:
        return bot.act({"action_mask": game.legal_mask(size)}, bot_view(game, seat, AGENTS))

    return _run_bots(
        "heuristic bots, python",
        lambda s: ArenaGame.new(CONFIG, make_rng(s)),
        ArenaHeuristicBot,
        decide,
        seconds,
        seed,
    )


def run_bots_compiled(seconds: float, seed: int = 0) -> Measurement:
    """Four compiled heuristic bots on the compiled engine."""
    return _run_bots(
        "heuristic bots, compiled",
        lambda s: CompiledArenaGame.new(CONFIG, make_rng(s)),
        lambda s: CompiledArenaBot(make_rng(s)),
        lambda bot, game, seat: bot.act_in(game),
        seconds,
        seed,
    )


def _run_bots(
    name: str,
    new_game: Callable[[int], Any],
    new_bot: Callable[[int], Any],
    decide: Callable[[Any, Any, int], int],
    seconds: float,
    seed: int,
) -> Measurement:
    """Whole games of bots for about ``seconds`` (the clock read at every
    decision: a game under way at the end counts its decisions so far)."""
    steps = games = 0
    clock = Clock(seconds)
    while clock.running():
        game = new_game(seed + games)
        bots = [new_bot(1000 * (seed + games) + seat) for seat in range(CONFIG.num_players)]
        while not game.is_over() and clock.running():
            seat = game.current_player()
            game.apply_action(decide(bots[seat], game, seat))
            steps += 1
        games += 1
    return clock.measurement(name, steps, games)


RUNNERS: list[Callable[[float, int], Measurement]] = [
    run_python,
    run_compiled,
    run_compiled_inside,
    run_aec_python,
    run_aec_compiled,
    run_bots_python,
    run_bots_compiled,
    run_open_spiel_backgammon,
]


_measure, _main = rounds_script(RUNNERS, PEER, CONFIG.num_players, __doc__)


def measure(seconds: float, rounds: int) -> dict[str, Any]:
    """Every runner ``rounds`` times, interleaved; ratios to the peer and the
    Python engine, and the compiled bots' over the Python bots'."""
    result = _measure(seconds, rounds)
    runners = result["runners"]
    result["bots_compiled_over_python"] = (
        runners["heuristic bots, compiled"]["steps_per_cpu_second"]
        / runners["heuristic bots, python"]["steps_per_cpu_second"]
    )
    return result


def main(argv: list[str] | None = None) -> None:
    rounds_main(__doc__.splitlines()[0], measure, argv)


table = rounds_table


if __name__ == "__main__":
    main()
