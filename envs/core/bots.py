"""The bot protocol and the random bot every env has.

A bot acts from exactly what its seat may see: the observation dict (vector and
action mask) and the structured ``view`` of the same information. It never
touches the env or the engine, so it cannot cheat and can be swapped for a
trained policy or a person.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from .rng import make_rng


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


class RandomBot:
    """Uniformly random legal actions from its own seeded generator."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = make_rng(seed)

    def act(self, observation: dict[str, np.ndarray], view: dict[str, Any]) -> int:
        return int(self.rng.choice(legal_from_mask(observation)))
