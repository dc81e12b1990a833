"""Asrus, version 0: ``env()``, ``raw_env`` and the native ``parallel_env()``.

See :mod:`flockgym.envs.asrus.env` for the env's documentation page.

Its table talk, which the play server, terminal play and replays ask for:
``is_public_move`` (which moves every seat reads), ``narrate_changes`` (what a
seat is told happened) and ``special_cards_help`` (what the special cards do).
"""

from .asrus.actions import is_public_move
from .asrus.data import special_cards_help
from .asrus.env import __doc__ as __doc__
from .asrus.env import env, parallel_env, raw_env
from .asrus.observer import narrate_changes

__all__ = [
    "env",
    "is_public_move",
    "narrate_changes",
    "parallel_env",
    "raw_env",
    "special_cards_help",
]
