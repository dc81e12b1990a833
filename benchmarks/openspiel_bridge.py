"""The OpenSpiel bridge's random-play speed against the env's own AEC loop, in one run.

For every registered env (or ``--env``), four loops play random legal games in
interleaved slices of ``--seconds`` each, ``--rounds`` times, so that a change of
load on a shared machine falls on all of them alike:

* ``aec``: the env's AEC loop as a training loop drives it (``agent_iter`` /
  ``last()``, which builds the observation and the action mask / ``step``);
* ``bridge``: ``pyspiel.load_game("flockgym_<game>")`` states, ``legal_actions()``
  and ``apply_action`` (the Arena's dice are chance nodes, sampled uniformly and
  not counted as steps);
* ``bridge+tensor``: the same, with ``observation_tensor()`` of the player to act
  at every decision (what the AEC loop's ``last()`` gives);
* ``backgammon``: the peer, OpenSpiel's own C++ game driven by the very same
  pyspiel calls as ``bridge`` (its dice chance nodes sampled the same way).

Moves come from Python's ``random`` (seeded). A step is one player decision. The
report gives steps per second of wall time and per CPU-second of the process
(``time.process_time``), and the bridge's ratio to the AEC loop on the latter.
Then the cost of an information state at move 100 of a 4-player Arena game:
the bridge's first string (which folds the 100 moves made since the deal into
each seat's recall digest, once), its later strings and tensors (nothing left
to fold), and the env's own string, which replays the game at every call.

    python benchmarks/openspiel_bridge.py [--seconds 3] [--rounds 2] [--env arena_v0 ...]
                                          [--json FILE]

Needs the ``openspiel`` extra.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from typing import Any

import pyspiel

import flockgym.openspiel  # noqa: F401  (registers the games)
from flockgym.envs import ENVS, make
from flockgym.openspiel import game_name

Runner = Callable[[float, random.Random], int]


def aec_runner(env_id: str) -> Runner:
    """Random games through the env's AEC loop for ``seconds``; returns the steps."""
    env = make(env_id)
    env.reset(seed=0)

    def run(seconds: float, rnd: random.Random) -> int:
        steps, end = 0, time.perf_counter() + seconds
        while time.perf_counter() < end:
            env.reset(seed=rnd.randrange(2**31))
            for agent in env.agent_iter():
                _, _, termination, truncation, _ = env.last()
                if termination or truncation:
                    env.step(None)
                    continue
                env.step(rnd.choice(env.unwrapped.legal_actions(agent)))
                steps += 1
        return steps

    return run


PEER = "backgammon"
"""OpenSpiel's own C++ game driven by the very same pyspiel calls: the peer."""


def bridge_runner(env_id: str, tensor: bool, name: str | None = None) -> Runner:
    """Random games of the pyspiel game (``env_id``'s bridge, or the game ``name``)
    for ``seconds``; returns the player steps."""
    game = pyspiel.load_game(name or game_name(env_id))

    def run(seconds: float, rnd: random.Random) -> int:
        steps, end = 0, time.perf_counter() + seconds
        while time.perf_counter() < end:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(rnd.choice(state.chance_outcomes())[0])
                    continue
                if tensor:
                    state.observation_tensor(state.current_player())
                state.apply_action(rnd.choice(state.legal_actions()))
                steps += 1
        return steps

    return run


def measure(env_id: str, seconds: float, rounds: int) -> dict[str, Any]:
    """Steps/s of the three loops on ``env_id``, slices interleaved."""
    runners = {
        "aec": aec_runner(env_id),
        "bridge": bridge_runner(env_id, tensor=False),
        "bridge+tensor": bridge_runner(env_id, tensor=True),
        PEER: bridge_runner(env_id, tensor=False, name=PEER),
    }
    totals = {name: [0, 0.0, 0.0] for name in runners}
    for r in range(rounds):
        for i, (name, run) in enumerate(runners.items()):
            rnd = random.Random(r * 10 + i)
            wall, cpu = time.perf_counter(), time.process_time()
            steps = run(seconds, rnd)
            totals[name][0] += steps
            totals[name][1] += time.perf_counter() - wall
            totals[name][2] += time.process_time() - cpu
    out: dict[str, Any] = {"env": env_id}
    for name, (steps, wall, cpu) in totals.items():
        out[name] = {"steps": steps, "per_s": steps / wall, "per_cpu_s": steps / cpu}
    base = out["aec"]["per_cpu_s"]
    out["ratio"] = out["bridge"]["per_cpu_s"] / base
    out["ratio_tensor"] = out["bridge+tensor"]["per_cpu_s"] / base
    out["ratio_peer"] = out["bridge"]["per_cpu_s"] / out[PEER]["per_cpu_s"]
    return out


def information_state_cost(moves: int = 100, calls: int = 5) -> dict[str, float]:
    """Milliseconds a call at move ``moves`` of a seeded 4-player Arena game: the
    bridge's ``information_state_string`` and ``information_state_tensor``, and
    the env's own ``information_state_string`` (which replays the game) at move
    ``moves`` of a game of the env."""
    game = pyspiel.load_game("flockgym_arena", {"num_players": 4})
    state = game.new_initial_state()
    rnd = random.Random(0)
    played = 0
    while played < moves or state.is_chance_node():
        if state.is_chance_node():
            state.apply_action(rnd.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(rnd.choice(state.legal_actions()))
            played += 1
    seat = state.current_player()
    env = make("arena_v0", num_players=4).unwrapped  # the env's own game, as long
    env.reset(seed=0)
    for _ in range(moves):
        env.step(rnd.choice(env.legal_actions()))
    agent = env.agent_selection

    def per_call(call: Callable[[], object], times: int = calls) -> float:
        start = time.perf_counter()
        for _ in range(times):
            call()
        return (time.perf_counter() - start) / times * 1e3

    return {
        "moves": moves,
        "bridge_first_string_ms": per_call(lambda: state.information_state_string(seat), 1),
        "bridge_string_ms": per_call(lambda: state.information_state_string(seat)),
        "bridge_tensor_ms": per_call(lambda: state.information_state_tensor(seat)),
        "env_replay_string_ms": per_call(lambda: env.information_state_string(agent)),
    }


def table(rows: list[dict[str, Any]]) -> str:
    """The run as a Markdown table."""
    lines = [
        "| env | AEC loop steps/CPU-s | bridge steps/CPU-s | bridge / AEC "
        f"| bridge+tensor steps/CPU-s | bridge+tensor / AEC | {PEER} steps/CPU-s "
        f"| bridge / {PEER} |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        lines.append(
            f"| {row['env']} | {row['aec']['per_cpu_s']:,.0f} | {row['bridge']['per_cpu_s']:,.0f} "
            f"| {row['ratio']:.2f} | {row['bridge+tensor']['per_cpu_s']:,.0f} "
            f"| {row['ratio_tensor']:.2f} | {row[PEER]['per_cpu_s']:,.0f} "
            f"| {row['ratio_peer']:.2f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per slice")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved slices per loop")
    parser.add_argument("--env", action="append", choices=sorted(ENVS), help="env ids")
    parser.add_argument("--json", help="save the run to this JSON file")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.rounds < 1:
        parser.error("--seconds must be > 0 and --rounds >= 1")
    rows = [measure(env_id, args.seconds, args.rounds) for env_id in args.env or sorted(ENVS)]
    print(table(rows))
    cost = information_state_cost()
    print(
        f"\nArena, 4 players, move {cost['moves']}: bridge information_state_string "
        f"{cost['bridge_first_string_ms']:.1f} ms the first time (folding the moves so far), "
        f"then {cost['bridge_string_ms']:.2f} ms, information_state_tensor "
        f"{cost['bridge_tensor_ms']:.2f} ms; the env's replaying information_state_string "
        f"{cost['env_replay_string_ms']:.1f} ms"
    )
    if args.json:
        run = {"seconds": args.seconds, "rounds": args.rounds, "rows": rows, "infostate": cost}
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(run, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
