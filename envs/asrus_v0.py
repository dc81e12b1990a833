"""Asrus, version 0: ``env()``, ``raw_env`` and the native ``parallel_env()``.

See :mod:`flockgym.envs.asrus.env` for the env's documentation page.
"""

from .asrus.env import __doc__ as __doc__
from .asrus.env import env, parallel_env, raw_env

__all__ = ["env", "parallel_env", "raw_env"]
