"""Skybirds' compiled engine beside its Python engine and RLCard's ``doudizhu``, in one run.

Three ways of playing random legal games, each on one core, interleaved in
slices so that a change of load on a shared machine falls on all of them:

* the AEC loop a training loop runs (``agent_iter`` / ``last()`` with the
  observation and the action mask / ``step``), 4 players, with
  ``engine="compiled"`` and with ``engine="python"`` (throughput.py's loop);
* RLCard's ``doudizhu`` (the climbing game the issue names as the peer):
  ``env.step``, which builds the state's features and legal actions each step;
* the bare engines (no env): legal actions, the mask, the observation of the
  player to act and the move, per decision, driven from Python; and the same
  loop inside C++ (``Engine.play_random``), the compiled engine's own ceiling;
* whole games of four heuristic bots: the compiled bot on the compiled engine
  against the Python bot on the Python env (decisions per CPU-second);
* the search bot (20 simulations a move, heuristic rollouts) at seat 0 of 2
  players against the heuristic, on either engine: its simulations per
  CPU-second of searching (the "steps" of that row; on the compiled engine
  the rollouts' heuristic is the compiled bot, through ``act_on_table``).

Rates are steps per CPU-second of this process (``time.process_time``); the
ratios are against the peers of the same run.

    python benchmarks/skybirds_compiled.py [--seconds 6] [--rounds 3] [--json FILE]
    python benchmarks/skybirds_compiled.py --table FILE   # a saved run, in Markdown

Needs ``rlcard`` (the ``bench`` extra) for the peer; without it the peer is
skipped and said so.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
from dataclasses import asdict
from functools import partial
from pathlib import Path
from typing import Any

from run_helpers import Timed  # benchmarks/: the script's own folder
from throughput import (  # benchmarks/: the script's own folder
    Clock,
    Measurement,
    Runner,
    measure_interleaved,
    run_aec,
    run_rlcard_doudizhu,
)

from flockgym.envs import make
from flockgym.envs.core.rng import make_rng
from flockgym.envs.skybirds.actions import ActionLayout
from flockgym.envs.skybirds.bots import SkybirdsHeuristicBot
from flockgym.envs.skybirds.env import raw_env
from flockgym.envs.skybirds.native import NativeHeuristicBot, NativeSkybirdsGame
from flockgym.envs.skybirds.observer import SkybirdsObserver
from flockgym.envs.skybirds.rules import SkybirdsConfig, SkybirdsGame

PLAYERS = 4
DEFAULT_JSON = Path(__file__).parent / "results" / "skybirds_compiled.json"


def aec_runner(engine: str) -> Runner:
    label = f"skybirds_v0 {PLAYERS}p AEC ({engine})"
    return partial(run_aec, label, lambda: make("skybirds_v0", num_players=PLAYERS, engine=engine))


def run_bare(compiled: bool, seconds: float, seed: int = 0) -> Measurement:
    """The engine alone: per decision its legal actions, mask and the actor's
    observation, then a random legal move."""
    config = SkybirdsConfig(num_players=PLAYERS)
    num_actions = ActionLayout(PLAYERS, config.tokens).size
    observer = SkybirdsObserver(config)
    draw = random.Random(seed)
    steps = games = 0
    clock = Clock(seconds)
    while clock.running():
        rng = make_rng(seed + games)
        game: Any = (
            NativeSkybirdsGame.new(config, rng) if compiled else SkybirdsGame.new(config, rng)
        )
        while not (game.is_over() or game.is_truncated()):
            seat = game.current_player()
            game.legal_mask(num_actions)
            game.encode(seat) if compiled else observer.encode(game, seat)
            game.apply_action(draw.choice(game.legal_actions()))
            steps += 1
        games += 1
    name = f"skybirds bare engine ({'compiled' if compiled else 'python'})"
    return clock.measurement(name, steps, games)


def run_inside(seconds: float, seed: int = 0) -> Measurement:
    """The bare loop of :func:`run_bare` inside C++: whole random games."""
    config = SkybirdsConfig(num_players=PLAYERS)
    steps = games = 0
    clock = Clock(seconds)
    while clock.running():
        game = NativeSkybirdsGame.new(config, make_rng(seed + games))
        steps += game.engine.play_random(make_rng(10**6 + seed + games).bit_generator.state, 10**6)
        games += 1
    return clock.measurement("skybirds engine inside C++", steps, games)


def run_bots(compiled: bool, seconds: float, seed: int = 0) -> Measurement:
    """Whole games of four heuristic bots: decisions per CPU-second."""
    steps = games = 0
    clock = Clock(seconds)
    while clock.running():
        game_seed = seed + games
        if compiled:
            game = NativeSkybirdsGame.new(SkybirdsConfig(num_players=PLAYERS), make_rng(game_seed))
            bots = [NativeHeuristicBot(seed=game_seed * 10 + s) for s in range(PLAYERS)]
            while not (game.is_over() or game.is_truncated()):
                game.apply_action(bots[game.current_player()].act_in(game))
                steps += 1
        else:
            env = raw_env(num_players=PLAYERS)
            env.reset(seed=game_seed)
            python_bots = [SkybirdsHeuristicBot(seed=game_seed * 10 + s) for s in range(PLAYERS)]
            while not (env.game.is_over() or env.game.is_truncated()):
                agent = env.agent_selection
                seat = env.seat_of(agent)
                env.step(python_bots[seat].act(env.observe(agent), env.view(agent)))
                steps += 1
        games += 1
    name = f"skybirds heuristic bots ({'compiled' if compiled else 'python'})"
    return clock.measurement(name, steps, games)


def run_search(compiled: bool, seconds: float, seed: int = 0) -> Measurement:
    """Search-bot simulations per CPU-second of its searching, whole games of 2
    players (3 Campaigns) against the heuristic; a game started is finished."""
    from flockgym.bots.policies import make_participant
    from flockgym.envs.core.play import play_game

    engine = "compiled" if compiled else "python"
    options = {"num_players": 2, "engine": engine, "max_campaigns": 3}
    search = make_participant("search:budget=20", "skybirds_v0", options)
    heuristic = make_participant("heuristic", "skybirds_v0", options)
    simulations = games = 0
    searching = 0.0
    clock = Clock(seconds)
    while clock.running():
        env = make("skybirds_v0", **options)
        bot = search.new_bot(seed + games)
        timed = Timed(bot)
        bots = {"player_0": timed, "player_1": heuristic.new_bot(seed + games + 1)}
        play_game(env, bots, seed=seed + games)
        simulations += timed.simulations
        searching += timed.seconds
        games += 1
    measured = clock.measurement(f"skybirds search bot simulations ({engine})", simulations, games)
    measured.cpu_seconds = searching  # the rate is per CPU-second of searching
    return measured


def runners() -> list[Runner]:
    out: list[Runner] = [
        aec_runner("compiled"),
        aec_runner("python"),
        partial(run_bare, True),
        partial(run_bare, False),
        run_inside,
        partial(run_bots, True),
        partial(run_bots, False),
        partial(run_search, True),
        partial(run_search, False),
    ]
    try:
        import rlcard  # noqa: F401 - only to know whether it is installed

        out.append(run_rlcard_doudizhu)
    except ImportError as err:
        print(f"skipped rlcard doudizhu: {err}")
    return out


def ratio(rates: dict[str, float], name: str, peer: str) -> float | None:
    if name in rates and peer in rates:
        return rates[name] / rates[peer]
    return None


ROWS = (
    ("AEC loop, observation and mask", "skybirds_v0 4p AEC"),
    ("bare engine (mask, observation, move)", "skybirds bare engine"),
    ("four heuristic bots, whole games", "skybirds heuristic bots"),
    ("search bot simulations (2 players)", "skybirds search bot simulations"),
)
"""The table's rows: label, and the measurement name before `` (compiled)``."""


def table(run: dict[str, Any]) -> str:
    """A saved run as docs/scale.md shows it: each loop compiled and Python, and
    the AEC loop against RLCard's ``doudizhu``."""
    rates = {m["name"]: m["steps_per_cpu_second"] for m in run["measurements"]}
    lines = [
        f"One run of `{run['command']}` (saved in",
        "`benchmarks/results/skybirds_compiled.json`), per CPU-second:",
        "",
        "| loop | compiled | Python | compiled / Python |",
        "| --- | ---: | ---: | ---: |",
    ]
    for label, name in ROWS:
        compiled, python = rates.get(f"{name} (compiled)"), rates.get(f"{name} (python)")
        if compiled is None or python is None:
            continue
        lines.append(f"| {label} | {compiled:,.0f} | {python:,.0f} | {compiled / python:.2f}x |")
    inside = rates.get("skybirds engine inside C++")
    if inside is not None:
        lines += [
            "",
            f"The bare loop inside C++ (`Engine.play_random`): {inside:,.0f} steps per CPU-second.",
        ]
    peer = rates.get("rlcard doudizhu")
    if peer is not None:
        aec = rates[f"{ROWS[0][1]} (compiled)"] / peer
        before = rates[f"{ROWS[0][1]} (python)"] / peer
        verdict = "met" if aec >= 10 else "not met"
        lines += [
            "",
            f"RLCard's `doudizhu` in the same run: {peer:,.0f} steps per CPU-second; the AEC",
            f"loop is {aec:.2f}x `doudizhu` on the compiled engine (goal 10x: {verdict})",
            f"and {before:.2f}x on the Python engine.",
        ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=6.0, help="seconds per runner")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved slices per runner")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="where to save the run")
    parser.add_argument("--table", type=Path, help="print a saved run's table and stop")
    args = parser.parse_args()
    if args.table is not None:
        print(table(json.loads(args.table.read_text())))
        return
    if args.seconds <= 0 or args.rounds < 1:
        parser.error("--seconds must be > 0 and --rounds >= 1")
    measurements = measure_interleaved(runners(), args.seconds, args.rounds)
    rates = {m.name: m.steps_per_cpu_second for m in measurements}
    compiled_aec = f"skybirds_v0 {PLAYERS}p AEC (compiled)"
    python_aec = f"skybirds_v0 {PLAYERS}p AEC (python)"
    run = {
        "command": "python benchmarks/skybirds_compiled.py "
        f"--seconds {args.seconds:g} --rounds {args.rounds}",
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "measurements": [
            {**asdict(m), "steps_per_cpu_second": round(m.steps_per_cpu_second, 1)}
            for m in measurements
        ],
        "ratios": {
            "aec compiled / rlcard doudizhu": ratio(rates, compiled_aec, "rlcard doudizhu"),
            "aec python / rlcard doudizhu": ratio(rates, python_aec, "rlcard doudizhu"),
            "aec compiled / aec python": ratio(rates, compiled_aec, python_aec),
            "bare compiled / bare python": ratio(
                rates, "skybirds bare engine (compiled)", "skybirds bare engine (python)"
            ),
            "bots compiled / bots python": ratio(
                rates, "skybirds heuristic bots (compiled)", "skybirds heuristic bots (python)"
            ),
            "search compiled / search python": ratio(
                rates,
                "skybirds search bot simulations (compiled)",
                "skybirds search bot simulations (python)",
            ),
        },
    }
    for m in measurements:
        print(f"{m.name:<40} {m.steps_per_cpu_second:>12,.0f} steps per CPU-second")
    for label, value in run["ratios"].items():
        print(f"{label:<40} {'-' if value is None else f'{value:.2f}x':>12}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(run, indent=2) + "\n")
    print(f"saved {args.json}")


if __name__ == "__main__":
    main()
