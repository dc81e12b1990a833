"""The bot protocol and the random bot every env has.

A bot acts from exactly what its seat may see: the observation dict (vector and
action mask) and the structured ``view`` of the same information. It never
touches the env or the engine, so it cannot cheat and can be swapped for a
trained policy or a person.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

from .errors import OptionError
from .rng import make_rng

Spec = TypeVar("Spec")


@runtime_checkable
class Bot(Protocol):
    """Anything that picks a legal action from what its seat may see."""

    def act(self, observation: dict[str, np.ndarray], view: dict[str, Any]) -> int:
        """Return an action id whose ``observation["action_mask"]`` entry is 1."""
        ...


def legal_from_mask(observation: dict[str, np.ndarray]) -> np.ndarray:
    """Legal action ids of an observation dict; raises if the mask allows nothing."""
    legal = np.flatnonzero(observation["action_mask"])
    if legal.size == 0:
        raise ValueError("the action mask allows no action: this agent is not to act")
    return legal


def random_legal_actions(masks: np.ndarray, rngs: list[np.random.Generator]) -> np.ndarray:
    """Row ``i``'s uniformly random legal action drawn from ``rngs[i]``: for each
    row the very action (and the very generator state after it) that
    :meth:`RandomBot.act` gives, since ``Generator.choice`` of a 1-D array is
    ``integers(0, len)`` indexing it. Batched engines seat many random bots this
    way: one generator call per row, the counting and indexing in numpy."""
    legal = np.asarray(masks) > 0
    counts = legal.sum(axis=1)
    if legal.shape[0] != len(rngs):
        raise ValueError(f"{legal.shape[0]} masks for {len(rngs)} generators")
    if (counts == 0).any():
        raise ValueError("the action mask allows no action: this agent is not to act")
    pairs = zip(rngs, counts.tolist(), strict=True)
    picks = np.array([rng.integers(0, count) for rng, count in pairs], dtype=np.int64)
    # The pick-th legal action of each row: the first column where the running
    # count of legal actions passes pick.
    return np.argmax(np.cumsum(legal, axis=1) > picks[:, None], axis=1).astype(np.int64)


def bot_action(
    bot: Bot, raw: Any, agent: str, observation: dict[str, np.ndarray], view: dict[str, Any]
) -> int:
    """``bot``'s move for ``agent``. A bot that searches (it has ``see_table``) is
    first shown the table, the raw env, which it reads only through the game's
    resampler (states the seat cannot tell apart from this one); every other bot
    sees the observation and view alone."""
    see_table = getattr(bot, "see_table", None)
    if see_table is not None:
        see_table(raw, agent)
    return int(bot.act(observation, view))


def bot_move(bot: Bot, raw: Any, agent: str) -> int:
    """``bot``'s move for ``agent`` at the raw env ``raw``, where the harness has
    not built the observation and view yet: a bot with ``act_on_table(raw,
    agent)`` may answer from the env itself (a compiled bot reading a compiled
    engine: the same choice, without the Python view); when it returns None, or
    has no such method, it is asked with the observation and view as usual."""
    act_on_table = getattr(bot, "act_on_table", None)
    if act_on_table is not None:
        action = act_on_table(raw, agent)
        if action is not None:
            return int(action)
    return int(bot.act(raw.observe(agent), raw.view(agent)))


class RandomBot:
    """Uniformly random legal actions from its own seeded generator."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = make_rng(seed)

    def act(self, observation: dict[str, np.ndarray], view: dict[str, Any]) -> int:
        return int(self.rng.choice(legal_from_mask(observation)))


def fill_seats(specs: Sequence[Spec], count: int, flag: str, seats: str = "seats") -> list[Spec]:
    """One bot spec per seat from a list a person typed (``flockgym play
    --opponents``, ``make watch``'s ``--bots``): the specs given take the first
    seats in order and the last one fills the seats left (``heuristic`` fills
    them all; ``search,random`` is the search bot, then random bots). More specs
    than seats is refused, naming ``flag`` and the ``seats`` it fills: a spec would
    otherwise be dropped."""
    if not specs:
        raise OptionError(f"{flag} names no bot; give at least one")
    if len(specs) > count:
        raise OptionError(
            f"{flag} names {len(specs)} bots for {count} {seats}; give at most {count} "
            f"(the last one fills the seats left)"
        )
    return list(specs) + [specs[-1]] * (count - len(specs))
