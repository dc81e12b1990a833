"""Throughput of every registered flockgym env beside its peers, in one run.

Each env plays random legal games through the AEC loop the way a training
loop drives it: ``agent_iter`` / ``last()`` (observation and action mask built
at every step) / ``step``. The peers run the same loop in the same process:
PettingZoo's ``connect_four_v3`` and ``leduc_holdem_v4``, OpenSpiel's
``oh_hell`` (4 players) with ``information_state_tensor`` and ``backgammon``
with ``observation_tensor`` computed at every decision (chance nodes sampled,
not counted as steps), and RLCard's ``doudizhu`` (the climbing game PettingZoo
dropped; its state features are built at every step). Ratios are taken
against the peers measured in this same run, so machine load cancels out.

    python benchmarks/throughput.py [--seconds 6] [--rounds 3] [--env asrus_v0 ...]

Each env plays ``--rounds`` interleaved slices of its time, so that a change of
load on a shared machine falls on the peers and the envs alike.

Needs the ``bench`` extra (pygame-ce for PettingZoo's classic envs, rlcard for
leduc and doudizhu, open-spiel for oh_hell and backgammon); a peer that
cannot be imported is reported and skipped.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from flockgym.envs import entry, list_envs, make

BENCH_OPTIONS: dict[str, dict[str, Any]] = {
    "asrus_v0": {"num_players": 5},
    "astrobirdz_v0": {"num_players": 4},
    "arena_v0": {"num_players": 4},
    "skybirds_v0": {"num_players": 4},
}
"""The configuration each env is measured at (others: their default players)."""

GOALS: dict[str, list[tuple[str, float]]] = {
    "asrus_v0": [("connect_four_v3", 5.0)],
    "astrobirdz_v0": [("connect_four_v3", 3.0), ("open_spiel oh_hell 4p", 3.0)],
    "arena_v0": [("connect_four_v3", 2.0)],
    "skybirds_v0": [("connect_four_v3", 3.0), ("rlcard doudizhu", 10.0)],
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
    return play_open_spiel("open_spiel oh_hell 4p", game, "information_state_tensor", seconds, seed)


def run_open_spiel_backgammon(seconds: float, seed: int = 0) -> Measurement:
    """OpenSpiel backgammon (a roll-and-move board game, the Arena's nearest peer):
    random play, observation tensor per decision, dice sampled as chance nodes."""
    import pyspiel

    game = pyspiel.load_game("backgammon")
    return play_open_spiel("open_spiel backgammon", game, "observation_tensor", seconds, seed)


def play_open_spiel(name: str, game: Any, tensor: str, seconds: float, seed: int) -> Measurement:
    """Random legal games of an OpenSpiel ``game`` for ``seconds``: chance nodes
    sampled by their odds, the ``tensor`` method (the observation a learner
    reads) called for the player to act at every decision."""
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
            getattr(state, tensor)(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            steps += 1
        games += 1
    return Measurement(name, steps, games, time.perf_counter() - start)


def run_rlcard_doudizhu(seconds: float, seed: int = 0) -> Measurement:
    """RLCard's doudizhu (3 players): random legal actions; RLCard builds each
    state's features (observation and legal actions) at every step."""
    import rlcard

    env = rlcard.make("doudizhu", config={"seed": seed})
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state, _player = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"])
            state, _player = env.step(legal[rng.integers(len(legal))])
            steps += 1
        games += 1
    return Measurement("rlcard doudizhu", steps, games, time.perf_counter() - start)


Runner = Callable[[float, int], Measurement]
"""Plays for about the given seconds from the given seed and measures."""


def peer_runners() -> list[Runner]:
    """The peers that can be imported here."""
    runners: list[Runner] = []
    try:
        from pettingzoo.classic import connect_four_v3

        runners.append(partial(run_aec, "connect_four_v3", connect_four_v3.env))
    except ImportError as err:
        print(f"skipped connect_four_v3: {err}")
    try:
        from pettingzoo.classic import leduc_holdem_v4

        runners.append(partial(run_aec, "leduc_holdem_v4", leduc_holdem_v4.env))
    except ImportError as err:
        print(f"skipped leduc_holdem_v4: {err}")
    try:
        import pyspiel  # noqa: F401 - only to know whether it is installed

        runners.append(run_open_spiel_oh_hell)
        runners.append(run_open_spiel_backgammon)
    except ImportError as err:
        print(f"skipped open_spiel oh_hell and backgammon: {err}")
    try:
        import rlcard  # noqa: F401 - only to know whether it is installed

        runners.append(run_rlcard_doudizhu)
    except ImportError as err:
        print(f"skipped rlcard doudizhu: {err}")
    return runners


def flockgym_runner(env_id: str) -> Runner:
    options = BENCH_OPTIONS.get(env_id, {"num_players": entry(env_id).default_players})
    label = f"{env_id} {options.get('num_players')}p"
    return partial(run_aec, label, lambda: make(env_id, **options))


def measure_interleaved(runners: list[Runner], seconds: float, rounds: int) -> list[Measurement]:
    """Each runner in turn for seconds/rounds, ``rounds`` times over, summed.

    Interleaving spreads a change in machine load (other processes on a shared
    machine) over every env alike, where back-to-back blocks would let it land
    on one side of a ratio."""
    totals: dict[int, Measurement] = {}
    for round_ in range(rounds):
        for index, runner in enumerate(runners):
            m = runner(seconds / rounds, 1000 * round_)
            total = totals.setdefault(index, Measurement(m.name, 0, 0, 0.0))
            total.steps += m.steps
            total.games += m.games
            total.seconds += m.seconds
    return [totals[i] for i in range(len(runners))]


def main() -> None:
    parser = argparse.ArgumentParser(description="Steps per second of every env and its peers.")
    parser.add_argument("--seconds", type=float, default=6.0, help="time per env")
    parser.add_argument(
        "--rounds", type=int, default=3, help="interleaved rounds the time is split into"
    )
    parser.add_argument(
        "--env", action="append", choices=list_envs(), help="env ids (default: all)"
    )
    args = parser.parse_args()

    env_ids = args.env or list_envs()
    runners = [flockgym_runner(e) for e in env_ids] + peer_runners()
    results = measure_interleaved(runners, args.seconds, max(1, args.rounds))
    measured = list(zip(env_ids, results[: len(env_ids)], strict=True))
    baseline = results[len(env_ids) :]

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
