"""The interface a rules engine offers to the environment layer.

A rules engine is plain Python: it knows the game, owns its seeded generator,
and imports nothing from gymnasium or PettingZoo. The AEC base class in
:mod:`flockgym.envs.core.aec` drives any object with this interface, so a new
game only writes its rules and its observation encoding.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

NO_PLAYER = -1
"""``current_player()`` when nobody is to act (the game is over)."""


class GameEngine(ABC):
    """A game in progress: whose move it is, what is legal, and how to apply it."""

    num_players: int
    rng: np.random.Generator

    @abstractmethod
    def current_player(self) -> int:
        """Seat to act, or :data:`NO_PLAYER` when the game is over."""

    @abstractmethod
    def legal_actions(self) -> list[int]:
        """Sorted legal action ids for the seat to act (empty when over).

        Callers treat the list as read-only (an engine may cache it)."""

    def legal_mask(self, num_actions: int) -> np.ndarray:
        """int8 mask of :meth:`legal_actions` for the seat to act.

        Engines may override it with a vectorised, cached version (and return a
        read-only array); callers copy before handing it out. It must agree
        with ``legal_actions()`` exactly; the property tests check that."""
        mask = np.zeros(num_actions, dtype=np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def is_legal_id(self, action: int, num_actions: int) -> bool:
        """Whether action id ``action`` (an int in ``0..num_actions-1``) is legal
        for the seat to act: what the env asks before every step. Engines may
        override it with a cheaper lookup; it must agree with :meth:`legal_mask`."""
        return bool(self.legal_mask(num_actions)[action])

    @abstractmethod
    def apply_action(self, action: int) -> None:
        """Apply a legal action of the seat to act. Raises ``ValueError`` if illegal."""

    @abstractmethod
    def is_over(self) -> bool:
        """True once the game has ended by its own rules."""

    def is_truncated(self) -> bool:
        """True when an option-imposed limit (not the rules) stopped the game."""
        return False

    def invariant_violations(self) -> list[str]:
        """What is wrong with this state by the game's own accounting (each card in
        exactly one place, points conserved, counts in range), in words; empty
        when all holds. The soak benchmark calls it after every step."""
        return []

    @abstractmethod
    def scores(self) -> list[float]:
        """Game points per seat (the score sheet, not the RL reward)."""

    @abstractmethod
    def winners(self) -> list[int]:
        """Seats that won (several on a tie); only meaningful once over."""

    @abstractmethod
    def action_to_string(self, seat: int, action: int) -> str:
        """Readable name of an action id, e.g. ``"9+M"``."""

    @abstractmethod
    def string_to_action(self, seat: int, text: str) -> int:
        """Inverse of :meth:`action_to_string`; raises ``ValueError`` naming the forms."""

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """The full state, RNG included, as JSON types."""


def is_legal(engine: GameEngine, action: int) -> bool:
    """Membership test against the single source of truth, ``legal_actions()``."""
    return action in engine.legal_actions()
