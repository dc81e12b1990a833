"""Throughput of every registered flockgym env beside its peers, in one run.

Each env plays random legal games through the AEC loop the way a training
loop drives it: ``agent_iter`` / ``last()`` (observation and action mask built
at every step) / ``step``. The peers run the same loop in the same process:
PettingZoo's ``connect_four_v3`` and ``leduc_holdem_v4``, and OpenSpiel's
``oh_hell`` (4 players) with ``information_state_tensor`` computed at every
decision (chance nodes sampled, not counted as steps). Ratios are taken
against the peers measured in this same run, so machine load cancels out.

    python benchmarks/throughput.py [--seconds 5] [--env asrus_v0 ...]

Needs the ``bench`` extra (pygame-ce for PettingZoo's classic envs, rlcard for
leduc, open-spiel for oh_hell); a peer that cannot be imported is reported and
skipped.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from flockgym.envs import entry, list_envs, make

BENCH_OPTIONS: dict[str, dict[str, Any]] = {
    "asrus_v0": {"num_players": 5},
    "astrobirdz_v0": {"num_players": 4},
}
"""The configuration each env is measured at (others: their default players)."""

GOALS: dict[str, list[tuple[str, float]]] = {
    "asrus_v0": [("connect_four_v3", 5.0)],
    "astrobirdz_v0": [("connect_four_v3", 3.0), ("open_spiel oh_hell 4p", 3.0)],
}
"""Speed goals: at least this many times the named peer's steps per second."""


@dataclass
class Measurement:
    name: str
    steps: int
    games: int
    seconds: float

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds

    @property
    def steps_per_game(self) -> float:
        return self.steps / max(1, self.games)


def run_aec(name: str, make_env: Callable[[], Any], seconds: float, seed: int = 0) -> Measurement:
    """Random legal games through the AEC loop for about ``seconds``."""
    env = make_env()
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        env.reset(seed=seed + games)
        for _agent in env.agent_iter():
            observation, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
            steps += 1
        games += 1
    return Measurement(name, steps, games, time.perf_counter() - start)


def run_open_spiel_oh_hell(seconds: float, seed: int = 0) -> Measurement:
    """OpenSpiel oh_hell, 4 players: random play, information state tensor per decision."""
    import pyspiel

    game = pyspiel.load_game("oh_hell", {"players": 4})
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probs)))
                continue
            state.information_state_tensor(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            steps += 1
        games += 1
    return Measurement("open_spiel oh_hell 4p", steps, games, time.perf_counter() - start)


def peers(seconds: float) -> list[Measurement]:
    """The peers that can be imported here."""
    results = []
    try:
        from pettingzoo.classic import connect_four_v3

        results.append(run_aec("connect_four_v3", connect_four_v3.env, seconds))
    except ImportError as err:
        print(f"skipped connect_four_v3: {err}")
    try:
        from pettingzoo.classic import leduc_holdem_v4

        results.append(run_aec("leduc_holdem_v4", leduc_holdem_v4.env, seconds))
    except ImportError as err:
        print(f"skipped leduc_holdem_v4: {err}")
    try:
        results.append(run_open_spiel_oh_hell(seconds))
    except ImportError as err:
        print(f"skipped open_spiel oh_hell: {err}")
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description="Steps per second of every env and its peers.")
    parser.add_argument("--seconds", type=float, default=5.0, help="time per env")
    parser.add_argument(
        "--env", action="append", choices=list_envs(), help="env ids (default: all)"
    )
    args = parser.parse_args()

    measured = []
    for env_id in args.env or list_envs():
        options = BENCH_OPTIONS.get(env_id, {"num_players": entry(env_id).default_players})
        label = f"{env_id} {options.get('num_players')}p"
        measured.append(
            (env_id, run_aec(label, lambda e=env_id, o=options: make(e, **o), args.seconds))
        )
    baseline = peers(args.seconds)

    print(f"\n{'env':<26}{'steps/s':>11}{'games/s':>10}{'steps/game':>12}")
    for m in [m for _, m in measured] + baseline:
        print(
            f"{m.name:<26}{m.steps_per_second:>11,.0f}{m.games_per_second:>10,.1f}"
            f"{m.steps_per_game:>12,.1f}"
        )
    by_name = {m.name: m for m in baseline}
    print("\nratios (same run):")
    for env_id, m in measured:
        for peer in baseline:
            goal = dict(GOALS.get(env_id, [])).get(peer.name)
            ratio = m.steps_per_second / peer.steps_per_second
            verdict = (
                ""
                if goal is None
                else f"  goal >= {goal:.0f}x: {'met' if ratio >= goal else 'NOT met'}"
            )
            print(f"  {m.name} / {peer.name}: {ratio:.2f}x{verdict}")
    missing = {p for goals in GOALS.values() for p, _ in goals} - set(by_name)
    for name in sorted(missing):
        print(f"  (peer {name} not measured)")


if __name__ == "__main__":
    main()
