"""Decisions per second of the vector Asrus engine beside the scalar env, in one run.

Every path plays random legal games of the same configuration, observation and
action mask built for every decision, on one core:

* ``scalar env``: ``asrus_v0.env()`` through the AEC loop a training loop uses
  (``agent_iter`` / ``last()`` / ``step``), as ``benchmarks/throughput.py``.
* ``vector, seat by seat``: :class:`VectorAsrus` with ``--games`` games and
  auto-reset; each call the seat to act in every game gets its observation
  ``[B, D]`` and mask ``[B, A]`` and commits (one AEC step per game).
* ``vector, whole turns``: every seat of every game gets its observation and
  mask (``[B, n, D]``, ``[B, n, A]``) and the turn is played with ``step_turn``.

Both vector paths run with ``dealing="exact"`` (the scalar engine's cards for
each seed) and ``dealing="fast"`` (one generator call per game and deal).

With ``--bots`` it also times the heuristic bot: the scalar bot reading each
seat's view, against the vectorised bot deciding every seat of every game at once.

Time is this process's CPU time (``time.process_time``), so that waiting for a
core on a shared machine is not counted; the paths also run in ``--rounds``
interleaved slices, so that a change of load (caches, clock) falls on all of
them alike. The ratios are taken in this run.

    python benchmarks/asrus_vector.py [--seconds 4] [--rounds 3] [--games 256]
                                      [--players 5] [--bots]
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from flockgym.envs import asrus_v0, make_bot
from flockgym.envs.asrus.vector import VectorAsrus


@dataclass
class Tally:
    name: str
    decisions: int = 0
    seconds: float = 0.0
    slices: list[float] = field(default_factory=list)

    @property
    def per_second(self) -> float:
        return self.decisions / max(self.seconds, 1e-9)


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per mask row, read from the mask alone.

    An Asrus mask is a product: every number card held, each with every slot
    its specials allow (slot 0, alone, always). So a uniform legal action is a
    uniform held number (the slot-0 column) and a uniform allowed slot (that
    number's row); two short cumulative sums instead of one over 195 entries."""
    flat = masks.reshape(-1, 15, 13)
    rows = np.arange(len(flat))
    number = uniform_true(flat[:, :, 0], rng)
    slot = uniform_true(flat[rows, number], rng)
    return (number * 13 + slot).reshape(masks.shape[:-1])


def uniform_true(available: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Per row, a uniformly random column among the non-zero ones."""
    running = np.cumsum(available, axis=1, dtype=np.int16)
    pick = (rng.random(len(available)) * running[:, -1]).astype(np.int16)
    return (running > pick[:, None]).argmax(axis=1)


class ScalarPath:
    """The AEC env, game after game, random legal moves."""

    def __init__(self, players: int, seed: int) -> None:
        self.env = asrus_v0.env(num_players=players)
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.games = 0

    def run(self, seconds: float) -> int:
        env, rng = self.env, self.rng
        decisions = 0
        deadline = time.process_time() + seconds
        while time.process_time() < deadline:
            env.reset(seed=self.seed + self.games)
            for _agent in env.agent_iter():
                observation, _reward, terminated, truncated, _info = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                legal = np.flatnonzero(observation["action_mask"])
                env.step(int(legal[rng.integers(legal.size)]))
                decisions += 1
            self.games += 1
        return decisions


class VectorPath:
    """The vector engine, auto-resetting, seat by seat or whole turns."""

    def __init__(self, players: int, games: int, seed: int, joint: bool, dealing: str) -> None:
        self.engine = VectorAsrus(games, auto_reset=True, dealing=dealing, num_players=players)
        self.engine.reset(list(range(seed, seed + games)))
        self.rng = np.random.default_rng(seed)
        self.joint = joint

    def run(self, seconds: float) -> int:
        engine, rng = self.engine, self.rng
        decisions = 0
        deadline = time.process_time() + seconds
        while time.process_time() < deadline:
            if self.joint:
                engine.observations()
                actions = random_legal(engine.masks(), rng)
                engine.step_turn(actions)
                decisions += actions.size
            else:
                seats = engine.current_players()
                engine.observations(seats)
                actions = random_legal(engine.masks(seats), rng)
                engine.step(actions)
                decisions += actions.size
        return decisions


class ScalarBotPath:
    """The scalar heuristic bot deciding for every seat from its view."""

    def __init__(self, players: int, seed: int) -> None:
        self.env = asrus_v0.env(num_players=players)
        self.bots = {a: make_bot("asrus_v0", "heuristic", seed=i) for i, a in
                     enumerate(self.env.possible_agents)}  # fmt: skip
        self.seed = seed
        self.games = 0

    def run(self, seconds: float) -> int:
        env = self.env
        decisions = 0
        deadline = time.process_time() + seconds
        while time.process_time() < deadline:
            env.reset(seed=self.seed + self.games)
            for agent in env.agent_iter():
                observation, _reward, terminated, truncated, _info = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                env.step(self.bots[agent].act(observation, env.unwrapped.view(agent)))
                decisions += 1
            self.games += 1
        return decisions


class VectorBotPath:
    """The vectorised heuristic deciding every seat of every game at once."""

    def __init__(self, players: int, games: int, seed: int) -> None:
        from flockgym.envs.asrus.vector_bots import VectorHeuristicBot

        self.engine = VectorAsrus(games, auto_reset=True, num_players=players)
        self.engine.reset(list(range(seed, seed + games)))
        n = self.engine.num_players
        self.bot = VectorHeuristicBot(games, n, seeds=np.arange(games * n).reshape(games, n))
        self.games = np.repeat(np.arange(games), n)
        self.seats = np.tile(np.arange(n), games)

    def run(self, seconds: float) -> int:
        engine = self.engine
        decisions = 0
        deadline = time.process_time() + seconds
        while time.process_time() < deadline:
            actions = self.bot.act(engine.views(self.games, self.seats))
            engine.step_turn(actions.reshape(engine.num_games, engine.num_players))
            decisions += actions.size
        return decisions


def pin_to_one_core() -> str:
    """Run on one core (the first this process may use), where the OS allows it."""
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")
    if hasattr(os, "sched_setaffinity"):
        core = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {core})
        return f"core {core}"
    return "unpinned"


def measure(paths: list[tuple[Tally, Callable[[float], int]]], seconds: float, rounds: int) -> None:
    """Each path gets ``rounds`` slices of ``seconds / rounds``, interleaved."""
    for run in (run for _, run in paths):
        run(0.2)  # warm up: imports, first deals, caches
    for _ in range(rounds):
        for tally, run in paths:
            start = time.process_time()
            done = run(seconds / rounds)
            elapsed = time.process_time() - start
            tally.decisions += done
            tally.seconds += elapsed
            tally.slices.append(done / elapsed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="per path, all rounds")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--games", type=int, default=256, help="games in the vector engine")
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--bots", action="store_true", help="also time the heuristic bots")
    args = parser.parse_args()
    where = pin_to_one_core()
    scalar = Tally("scalar env (AEC loop)")
    paths: list[tuple[Tally, Callable[[float], int]]] = [(scalar, ScalarPath(args.players, 0).run)]
    vector_rows = []
    for dealing in ("exact", "fast"):
        for joint in (False, True):
            how = "whole turns" if joint else "seat by seat"
            tally = Tally(f"vector, {how}, {dealing} deals")
            vector_rows.append(tally)
            paths.append((tally, VectorPath(args.players, args.games, 0, joint, dealing).run))
    bot_rows: list[Tally] = []
    if args.bots:
        scalar_bot = Tally("scalar heuristic bot (views)")
        vector_bot = Tally(f"vector heuristic bot (B={args.games})")
        bot_rows = [scalar_bot, vector_bot]
        paths += [
            (scalar_bot, ScalarBotPath(args.players, 0).run),
            (vector_bot, VectorBotPath(args.players, args.games, 0).run),
        ]
    measure(paths, args.seconds, args.rounds)
    print(
        f"Asrus, {args.players} players, random legal play, observation and mask for every "
        f"decision; {args.games} games in the vector engine; one process on {where}, "
        f"{args.rounds} interleaved slices per path; decisions per CPU-second"
    )
    print(f"{'path':40s} {'decisions/s':>12s} {'x scalar':>9s}   slices")
    for tally in (scalar, *vector_rows):
        ratio = tally.per_second / scalar.per_second
        slices = " ".join(f"{s:,.0f}" for s in tally.slices)
        print(f"{tally.name:40s} {tally.per_second:12,.0f} {ratio:9.1f}   {slices}")
    if bot_rows:
        base = bot_rows[0].per_second
        print("heuristic bot playing every seat (engine included):")
        for tally in bot_rows:
            slices = " ".join(f"{s:,.0f}" for s in tally.slices)
            print(f"{tally.name:40s} {tally.per_second:12,.0f} {tally.per_second / base:9.1f}"
                  f"   {slices}")  # fmt: skip


if __name__ == "__main__":
    main()
