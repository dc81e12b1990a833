"""Lockstep checks of the vectorised Astrobirdz engine against the AEC env:
the same seeds, the same moves, and at every decision the same seat to act,
mask, every seat's observation, rewards and scores."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from flockgym.envs import astrobirdz_v0
from flockgym.envs.astrobirdz.env import OPTION_SAMPLES, ages_sample
from flockgym.envs.astrobirdz.vector import PLAIN, VectorAstrobirdz

PLAYER_COUNTS = (2, 3, 4, 5, 6)


def vector_option_samples(players: int) -> list[dict[str, Any]]:
    """Every option sample of the env (and its ``ages`` sample) with the three
    options the engine needs set to what it plays: every value of the other
    options appears."""
    samples = [*OPTION_SAMPLES, {"ages": ages_sample(players)}]
    return [{**sample, **PLAIN} for sample in samples]


def random_moves(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Per row, a uniformly random legal action (0 for rows with none)."""
    running = np.cumsum(masks, axis=1, dtype=np.int64)
    pick = (rng.random(len(masks)) * np.maximum(running[:, -1], 1)).astype(np.int64)
    return (running > pick[:, None]).argmax(axis=1)


Chooser = Callable[[VectorAstrobirdz, np.ndarray, list[Any]], np.ndarray]


def lockstep(
    players: int,
    options: dict[str, Any],
    seeds: list[int],
    chooser: Chooser | None = None,
    reward: str = "score",
) -> int:
    """Play ``len(seeds)`` games in the engine and in AEC envs side by side and
    assert they agree at every decision; the moves are random legal ones
    (seeded by ``seeds[0]``) or ``chooser(engine, masks, envs)``'s. Returns the
    number of decisions compared."""
    count = len(seeds)
    engine = VectorAstrobirdz(count, dealing="exact", num_players=players, reward=reward, **options)
    engine.reset(seeds)
    envs = []
    for seed in seeds:
        # the reference engine, read live every step (the compiled one would hand a copy)
        env = astrobirdz_v0.raw_env(num_players=players, reward=reward, engine="python", **options)
        env.reset(seed=seed)
        envs.append(env)
    agents = envs[0].possible_agents
    rng = np.random.default_rng(seeds[0])
    decisions = 0
    while not engine.over.all():
        running = np.flatnonzero(~engine.over)
        masks = engine.masks()
        every_seat = [engine.observations(np.full(count, s)) for s in range(players)]
        for b in running.tolist():
            env = envs[b]
            seat = env.seat_of(env.agent_selection)
            assert seat == engine.actor[b], f"game {b}: seat to act"
            for s, agent in enumerate(agents):
                seen = env.observe(agent)
                np.testing.assert_array_equal(
                    every_seat[s][b], seen["observation"], err_msg=f"game {b} seat {s}"
                )
                want = seen["action_mask"]
                np.testing.assert_array_equal(
                    engine.masks(np.full(count, s))[b], want, err_msg=f"game {b} seat {s} mask"
                )
            np.testing.assert_array_equal(masks[b], env.observe(agents[seat])["action_mask"])
        moves = random_moves(masks, rng) if chooser is None else chooser(engine, masks, envs)
        result = engine.step(moves)
        for b in running.tolist():
            env = envs[b]
            env.step(int(moves[b]))
            decisions += 1
            paid = [env.rewards[a] for a in agents]
            assert result.rewards[b].tolist() == paid, f"game {b}: rewards"
            assert engine.score_table[b].tolist() == env.astrobirdz.scores_, f"game {b}: scores"
            assert bool(engine.over[b]) == env.astrobirdz.over, f"game {b}: over"
    for b, env in enumerate(envs):
        winners = env.astrobirdz.winners()
        assert np.flatnonzero(engine.winners()[b]).tolist() == winners
        for s, agent in enumerate(agents):  # the terminal observations
            np.testing.assert_array_equal(
                engine.observations_of(np.array([b]), np.array([s]))[0],
                env.observe(agent)["observation"],
            )
    return decisions


def heuristic_chooser(random_share: float, seed: int) -> Chooser:
    """A chooser that asks the vectorised heuristic and the scalar heuristic
    (each seat its own bot) for every game's move, asserts they agree, and
    plays it, or, with chance ``random_share``, a random legal move instead
    (so the games reach more situations than the heuristic's own)."""
    from flockgym.envs.astrobirdz.bots import AstrobirdzHeuristicBot
    from flockgym.envs.astrobirdz.vector_bots import VectorHeuristicBot

    rng = np.random.default_rng(seed)
    scalar: dict[int, AstrobirdzHeuristicBot] = {}
    vector: list[VectorHeuristicBot] = []

    def choose(engine: VectorAstrobirdz, masks: np.ndarray, envs: list[Any]) -> np.ndarray:
        if not vector:
            vector.append(VectorHeuristicBot(engine.B, engine.n))
        running = np.flatnonzero(~engine.over)
        picked = vector[0].act(engine.views(running, engine.actor[running]))
        moves = random_moves(masks, rng)
        for i, b in enumerate(running.tolist()):
            env = envs[b]
            agent = env.agent_selection
            bot = scalar.setdefault(b * 10 + env.seat_of(agent), AstrobirdzHeuristicBot(seed=b))
            want = bot.act(env.observe(agent), env.view(agent))
            assert picked[i] == want, f"game {b} {agent}: vector {picked[i]}, scalar {want}"
            if rng.random() >= random_share:
                moves[b] = want
        return moves

    return choose
