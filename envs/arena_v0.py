"""Berzerkerbirdz Extreme Sports Arena, version 0: ``env()``, ``raw_env`` and
``parallel_env()`` (PettingZoo's turn-based AEC-to-parallel conversion).

See :mod:`flockgym.envs.arena.env` for the env's documentation page.

Its table talk, which the play server, terminal play and replays ask for:
``is_public_move`` (which moves every seat reads), ``narrate_changes`` and
``MOVE_WORDS`` (what a seat is told happened) and ``special_cards_help``
(what the special cards do).
"""

from .arena.actions import is_public_move
from .arena.data import special_cards_help
from .arena.env import __doc__ as __doc__
from .arena.env import env, parallel_env, raw_env
from .arena.observer import MOVE_WORDS, narrate_changes

__all__ = [
    "MOVE_WORDS",
    "env",
    "is_public_move",
    "narrate_changes",
    "parallel_env",
    "raw_env",
    "special_cards_help",
]
