"""Training and evaluation for flockgym: self-play from YAML configs, duplicate
tournaments, checkpoints as bots, and the single-agent self-play env for your
own learner (see docs/training.md and docs/own-code.md).

>>> from flockgym.training import load_policy
>>> policy = load_policy("asrus/ppo_5p", env_id="asrus_v0")  # doctest: +SKIP
>>> action = policy.act(observation["observation"], observation["action_mask"])  # doctest: +SKIP

Names are imported when first used, so ``import flockgym.training`` is cheap and
needs no torch; the self-play env with random and heuristic opponents, and
tournaments between them, run on the core install. Importing it registers the
self-play envs with Gymnasium (``flockgym/asrus-selfplay-v0``, ...). Checkpoints, training and
plots need the ``train`` extra (``pip install -c constraints.txt '.[train]'`` from a
clone).
"""

from __future__ import annotations

import importlib
from typing import Any

from .errors import BotSpecError, CheckpointError, ConfigError, RunError
from .selfplay import register_selfplay_envs
from .version import __version__

_LAZY = {
    "BotSpec": "policies",
    "Policy": "policies",
    "PolicyBot": "policies",
    "load_policy": "policies",
    "make_participant": "policies",
    "parse_spec": "policies",
    "parse_specs": "policies",
    "export_policy": "export",
    "SelfPlayEnv": "selfplay",
    "selfplay_env": "selfplay",
    "gymnasium_id": "selfplay",
    "tournament": "evaluate",
    "TournamentResult": "evaluate",
    "TournamentInterrupted": "evaluate",
}


register_selfplay_envs()


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'flockgym.training' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "BotSpec",
    "BotSpecError",
    "CheckpointError",
    "ConfigError",
    "Policy",
    "PolicyBot",
    "RunError",
    "SelfPlayEnv",
    "TournamentInterrupted",
    "TournamentResult",
    "__version__",
    "export_policy",
    "gymnasium_id",
    "load_policy",
    "make_participant",
    "parse_spec",
    "parse_specs",
    "selfplay_env",
    "tournament",
]
