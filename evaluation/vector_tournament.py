"""A block of tournament games on a vectorised engine: every table of every
deal of the block in one engine, every turn's decisions in a few batched calls.

The scalar lockstep of :func:`~.tournaments.play_block` already takes each
policy's decisions in one forward pass, but every game still has its own AEC
env and every heuristic seat its own bot reading its own view: on a game such
as Asrus that Python work is most of a tournament's time. Here the games live
in one engine of the env's vector-engine adapter (:mod:`~flockgym.training.vector_engines`,
named by its registry entry; with ``dealing="exact"``, dealt card for card as
the scalar env deals them), and since the turns of such an engine are
simultaneous, each turn is decided at its start for every seat of every game:
the heuristic seats in one call of the vectorised heuristic bot, each policy's
seats in one forward pass (each observation with the committed flags its seat
sees on its turn), the random seats by their own generators. Every bot is
seeded as the scalar tournament seeds it, so the games, and the standings, are
the same (``tests/training/test_train_fast_eval.py`` compares them).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from flockgym.envs import OptionError
from flockgym.envs.core.bots import random_legal_actions
from flockgym.envs.core.rng import derive_seed, make_rng
from flockgym.training.vector_engines import (
    has_vector_engine,
    vector_adapter,
    vector_engine_envs,
    vector_engine_problem,
)

VECTOR_KINDS = ("random", "heuristic", "policy")
"""Participant kinds the vectorised block can seat (custom bots cannot be batched)."""


def vector_problem(env_id: str, env_options: dict[str, Any], kinds: list[str]) -> str:
    """Why this tournament cannot be played on a vectorised engine ('' if it can)."""
    if not has_vector_engine(env_id):
        return (
            f"{env_id} has no vectorised engine (envs with one: {', '.join(vector_engine_envs())})"
        )
    custom = sorted({kind for kind in kinds if kind not in VECTOR_KINDS})
    if custom:
        return f"participants of kind {', '.join(custom)}; allowed: {', '.join(VECTOR_KINDS)}"
    return vector_engine_problem(env_id, env_options, "exact")


def resolve_tournament_engine(
    env_id: str, env_options: dict[str, Any], kinds: list[str], engine: str
) -> str:
    """``scalar`` or ``vector``: ``auto`` takes the vectorised engine where it can
    play the tournament; ``vector`` where it cannot is an error saying why."""
    allowed = ("auto", "scalar", "vector")
    if engine not in allowed:
        raise OptionError(f"engine={engine!r}; allowed: {', '.join(allowed)}")
    if engine == "scalar":
        return engine
    problem = vector_problem(env_id, env_options, kinds)
    if engine == "vector" and problem:
        raise OptionError(f"engine='vector' cannot play this tournament: {problem}")
    return "scalar" if problem else "vector"


class VectorBlock:
    """The games of one block: game ``b`` is ``(deal, table)`` of ``games[b]``."""

    def __init__(self, schedule: Any, block: range) -> None:
        adapter = vector_adapter(schedule.env_id)
        self.schedule = schedule
        tables = schedule.tables
        self.games = [(deal, t) for deal in block for t in range(len(tables))]
        count = len(self.games)
        self.engine = adapter.engine(count, "exact", schedule.env_options)
        n = self.n = self.engine.num_players
        seats = [[schedule.participants[p] for p in tables[t]] for _, t in self.games]
        self.kind = np.array([[seat.kind for seat in row] for row in seats])
        self.participant = seats
        self.heuristic = adapter.heuristic_bot(count, n)
        self.rngs: list[list[np.random.Generator | None]] = [[None] * n for _ in range(count)]
        for b, (deal, t) in enumerate(self.games):
            for s in range(n):
                seed = derive_seed(schedule.seed, deal, t, s)
                if self.kind[b, s] == "heuristic":
                    self.heuristic.reseed(np.array([b]), np.array([s]), np.array([seed]))
                else:
                    self.rngs[b][s] = make_rng(seed)
        self.engine.reset(seeds=[derive_seed(schedule.seed, deal) for deal, _ in self.games])
        self.committed_at = adapter.committed_columns(self.engine)
        order = np.arange(n)
        self.committed_before = (((order[:, None] + order[None, :]) % n) < order[:, None]).astype(
            np.float32
        )
        """[s, rel]: the committed flags seat ``s`` sees on its turn (seats commit in order)."""

    def play(self) -> None:
        """Every game to its end, a whole turn of every live game per engine call."""
        engine = self.engine
        actions = np.zeros((len(self.games), self.n), dtype=np.int64)
        while not engine.done.all():
            live = np.flatnonzero(~engine.done)
            self.decide(live, actions)
            engine.step_turn(actions)

    def decide(self, live: np.ndarray, actions: np.ndarray) -> None:
        """This turn's move of every seat of the ``live`` games, into ``actions``."""
        engine = self.engine
        masks = engine.masks()
        kinds = self.kind[live]
        rows, seats = np.nonzero(kinds == "heuristic")
        if rows.size:
            games = live[rows]
            actions[games, seats] = self.heuristic.act(engine.views(games, seats))
        rows, seats = np.nonzero(kinds == "random")
        if rows.size:
            games = live[rows]
            pairs = zip(games.tolist(), seats.tolist(), strict=True)
            generators = [self.rngs[b][s] for b, s in pairs]
            actions[games, seats] = random_legal_actions(masks[games, seats], generators)
        rows, seats = np.nonzero(kinds == "policy")
        if rows.size:
            self._decide_policies(live[rows], seats, masks, actions)

    def _decide_policies(
        self, games: np.ndarray, seats: np.ndarray, masks: np.ndarray, actions: np.ndarray
    ) -> None:
        """One forward pass per (policy, play mode) for all its seats."""
        observations = self.engine.observations()
        groups: dict[tuple[int, str], list[int]] = {}
        for i, (b, s) in enumerate(zip(games.tolist(), seats.tolist(), strict=True)):
            participant = self.participant[b][s]
            groups.setdefault((id(participant.policy), participant.play), []).append(i)
        for members in groups.values():
            rows, at = games[members], seats[members]
            batch = observations[rows, at]
            batch[:, self.committed_at] = self.committed_before[at]
            participant = self.participant[int(rows[0])][int(at[0])]
            generators = [self.rngs[b][s] for b, s in zip(rows.tolist(), at.tolist(), strict=True)]
            actions[rows, at] = participant.policy.act_batch(
                batch, masks[rows, at], participant.play, generators
            )

    def results(self) -> list[tuple[int, int, list[int], dict[int, float]]]:
        """Each game's (deal, table, winning seats, points by seat)."""
        winners, scores = self.engine.winners(), self.engine.scores()
        return [
            (deal, t, np.flatnonzero(winners[b]).tolist(), dict(enumerate(scores[b].tolist())))
            for b, (deal, t) in enumerate(self.games)
        ]
