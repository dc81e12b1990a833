"""Training: the learners (:mod:`~flockgym.training.learners`, MaskablePPO,
masked DQN/QR-DQN, RLlib's PPO in :mod:`~flockgym.training.rllib`), the
self-play env and its vectorised forms (:mod:`~flockgym.training.selfplay`,
:mod:`~flockgym.training.batched`, :mod:`~flockgym.training.parallel`,
:mod:`~flockgym.training.vec_env`), configs (:mod:`~flockgym.training.config`),
run folders (:mod:`~flockgym.training.runs`) and a run from start to end
(:mod:`~flockgym.training.train`); see docs/training.md and docs/own-code.md.

It may import :mod:`flockgym.envs`, :mod:`flockgym.common`, :mod:`flockgym.bots`
(opponents are bots) and, at the end of a run, the tournament and plots of
:mod:`flockgym.evaluation`; never the command line.

``import flockgym.training`` is cheap and needs no torch; it registers the
self-play envs with Gymnasium (``flockgym/asrus-selfplay-v0``, ...). Training
needs the ``train`` extra (``pip install -c constraints.txt '.[train]'`` from a
clone). The bot and tournament names this package used to export
(``load_policy``, ``make_participant``, ``tournament``, ...) still resolve for one
release, with a DeprecationWarning: import them from :mod:`flockgym.bots` and
:mod:`flockgym.evaluation`.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

from flockgym.common.errors import BotSpecError, CheckpointError, ConfigError, RunError
from flockgym.common.moved import keep_old_paths
from flockgym.common.version import __version__
from flockgym.training.selfplay import register_selfplay_envs

MOVED_MODULES = {
    **{f"flockgym.training.{name}": f"flockgym.common.{name}"
       for name in ("errors", "files", "progress", "provenance", "version")},
    **{f"flockgym.training.{name}": f"flockgym.bots.{name}"
       for name in ("advice", "checkpoints", "export", "policies", "search", "shipped")},
    **{f"flockgym.training.{name}": f"flockgym.evaluation.{name}"
       for name in ("baselines", "benchmark", "benchmark_stats", "bot_claims", "compare",
                    "compare_stats", "plot", "reproduce", "reproduce_grid", "sprt",
                    "vector_tournament")},
    "flockgym.training.evaluate": "flockgym.evaluation.tournaments",
    "flockgym.training.cli": "flockgym.cli",
}  # fmt: skip
"""The modules that left this package (old name -> new name), importable under
their old names until the next release (docs/own-code.md)."""

_LAZY = {
    "SelfPlayEnv": "flockgym.training.selfplay",
    "selfplay_env": "flockgym.training.selfplay",
    "gymnasium_id": "flockgym.training.selfplay",
}
_MOVED = {
    "BotSpec": "flockgym.bots.policies",
    "Policy": "flockgym.bots.policies",
    "PolicyBot": "flockgym.bots.policies",
    "load_policy": "flockgym.bots.policies",
    "make_participant": "flockgym.bots.policies",
    "parse_spec": "flockgym.bots.policies",
    "parse_specs": "flockgym.bots.policies",
    "export_policy": "flockgym.bots.export",
    "tournament": "flockgym.evaluation.tournaments",
    "TournamentResult": "flockgym.evaluation.tournaments",
    "TournamentInterrupted": "flockgym.evaluation.tournaments",
}
"""Names that moved with their modules; kept one release, with a warning."""


keep_old_paths(MOVED_MODULES)
register_selfplay_envs()


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None and name in _MOVED:
        module = _MOVED[name]
        package = module.rsplit(".", 1)[0]
        warnings.warn(
            f"flockgym.training.{name} moved: import it from {package}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(module), name)
    if module is None:
        raise AttributeError(f"module 'flockgym.training' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "BotSpecError",
    "CheckpointError",
    "ConfigError",
    "RunError",
    "SelfPlayEnv",
    "__version__",
    "gymnasium_id",
    "selfplay_env",
]
