"""Berzerkerbirdz Extreme Sports Arena, version 0: ``env()``, ``raw_env`` and
``parallel_env()`` (PettingZoo's turn-based AEC-to-parallel conversion).

See :mod:`flockgym.envs.arena.env` for the env's documentation page.
"""

from .arena.env import __doc__ as __doc__
from .arena.env import env, parallel_env, raw_env

__all__ = ["env", "parallel_env", "raw_env"]
