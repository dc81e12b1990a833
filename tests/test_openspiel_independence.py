"""The states of one bridged game are independent of each other.

Many live states of one game object are dealt, moved, read (observation and
information-state tensors and strings, the full table), cloned and resampled
in a random interleaving; afterwards every state's history is played again
alone (the same deal, the same moves, the same resamples, nothing else alive)
and every read must give exactly what it gave in the crowd. A state whose
reads depend on what the other states did (a shared observer rebuilt by
another deal, a cache left by another read) fails here.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel")

from openspiel_helpers import SHORT  # noqa: E402

from flockgym.envs import ENVS  # noqa: E402
from flockgym.openspiel import game_name  # noqa: E402

READS = (
    "observation_tensor",
    "information_state_tensor",
    "observation_string",
    "information_state_string",
    "str",
)


@dataclass
class Tracked:
    """A live state, the operations that made it (from its deal) and its reads."""

    state: Any
    deal: int
    ops: list[tuple[Any, ...]] = field(default_factory=list)
    reads: list[tuple[int, str, int, Any]] = field(default_factory=list)


def read(state: Any, kind: str, seat: int) -> Any:
    if kind == "str":
        return str(state)
    return getattr(state, kind)(seat)


def apply(state: Any, op: tuple[Any, ...]) -> Any:
    """Apply one recorded operation; returns the state to continue with."""
    if op[0] == "move":
        state.apply_action(op[1])
        return state
    _, seat, value = op
    return state.resample_from_infostate(seat, lambda: value)


def random_op(state: Any, rnd: random.Random) -> tuple[Any, ...]:
    if state.is_chance_node():
        return ("move", rnd.choice([a for a, _ in state.chance_outcomes()]))
    if rnd.random() < 0.1:
        return ("resample", state.current_player(), rnd.random())
    return ("move", rnd.choice(state.legal_actions()))


def interleave(env_id: str, players: int, steps: int, seed: int) -> tuple[int, int]:
    """One interleaved run and its check; returns (states, reads compared)."""
    params = {**SHORT[env_id], "num_players": players, "seed": seed}
    game = pyspiel.load_game(game_name(env_id), params)
    rnd = random.Random(seed)
    live: list[Tracked] = []
    done: list[Tracked] = []
    deals = 0

    def deal() -> None:
        nonlocal deals
        state = game.new_initial_state()
        state.deal_seed  # noqa: B018  (deals it now: the k-th deal of the game)
        live.append(Tracked(state, deals))
        deals += 1

    for _ in range(3):
        deal()
    last = live[0]
    for _ in range(steps):
        roll = rnd.random()
        if roll < 0.1 or not live:
            deal()
            continue
        # Half the time the state touched last (as a search or a learner does),
        # so a state is often read again right after another state's deal.
        tracked = last if last in live and rnd.random() < 0.5 else rnd.choice(live)
        last = tracked
        state = tracked.state
        if roll < 0.16:
            twin = Tracked(state.clone(), tracked.deal, list(tracked.ops))
            live.append(twin)
        elif roll < 0.55 or state.is_terminal():
            kind = rnd.choice(READS)
            seat = rnd.randrange(players)
            tracked.reads.append((len(tracked.ops), kind, seat, read(state, kind, seat)))
        else:
            op = random_op(state, rnd)
            tracked.state = apply(state, op)
            tracked.ops.append(op)
        if tracked.state.is_terminal() and rnd.random() < 0.5:
            live.remove(tracked)
            done.append(tracked)
    everyone = done + live
    compared = replay_alone(params, env_id, everyone)
    return len(everyone), compared


def replay_alone(params: dict[str, Any], env_id: str, everyone: list[Tracked]) -> int:
    """Every tracked state played again alone, its reads compared."""
    compared = 0
    for tracked in everyone:
        alone = pyspiel.load_game(game_name(env_id), params)
        state = _nth_deal(alone, tracked.deal)
        reads = iter(tracked.reads)
        pending = next(reads, None)
        for at in range(len(tracked.ops) + 1):
            while pending is not None and pending[0] == at:
                _, kind, seat, value = pending
                assert read(state, kind, seat) == value, (env_id, tracked.deal, at, kind, seat)
                compared += 1
                pending = next(reads, None)
            if at < len(tracked.ops):
                state = apply(state, tracked.ops[at])
    return compared


def _nth_deal(game: Any, k: int) -> Any:
    """The k-th deal of a fresh game object (the earlier ones made and dropped)."""
    for _ in range(k):
        game.new_initial_state().deal_seed  # noqa: B018
    state = game.new_initial_state()
    state.deal_seed  # noqa: B018
    return state


FAST_CASES = [
    ("arena_v0", 2),
    ("arena_v0", 4),
    ("asrus_v0", 3),
    ("asrus_v0", 5),
    ("astrobirdz_v0", 2),
    ("astrobirdz_v0", 4),
    ("skybirds_v0", 2),
    ("skybirds_v0", 4),
]


@pytest.mark.parametrize(("env_id", "players"), FAST_CASES)
def test_interleaved_states_read_as_if_alone(env_id: str, players: int) -> None:
    states, compared = interleave(env_id, players, steps=300, seed=players)
    assert states >= 8 and compared >= 80


@pytest.mark.slow
@pytest.mark.parametrize("env_id", sorted(ENVS))
def test_interleaved_states_of_every_player_count(env_id: str) -> None:
    totals = [0, 0]
    for players in ENVS[env_id].player_counts:
        for seed in range(3):
            states, compared = interleave(env_id, players, steps=600, seed=100 * players + seed)
            totals[0] += states
            totals[1] += compared
    print(f"{env_id}: {totals[0]} states, {totals[1]} reads compared")
    assert totals[1] >= 1000
