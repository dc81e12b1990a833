"""The envs with a vectorised engine (numpy, many games per call), and which
engine a config or a tournament gets. No training dependency: tournaments use
it too, and they run without the training extra."""

from __future__ import annotations

import importlib
from typing import Any

from flockgym.envs import OptionError

ENGINES = ("auto", "scalar", "vector")
DEALINGS = ("exact", "fast")
VECTOR_ENGINES = {"asrus_v0": "flockgym.envs.asrus.vector:VectorAsrus"}
"""Envs with a vectorised engine behind the batched vec env."""


def resolve_engine(env_id: str, engine: str) -> str:
    """``scalar`` or ``vector`` for ``env_id``; ``OptionError`` names what is allowed."""
    if engine not in ENGINES:
        raise OptionError(f"engine={engine!r}; allowed: {', '.join(ENGINES)}")
    if engine == "auto":
        return "vector" if env_id in VECTOR_ENGINES else "scalar"
    if engine == "vector" and env_id not in VECTOR_ENGINES:
        raise OptionError(
            f"engine='vector': {env_id} has no vectorised engine (envs with one: "
            f"{', '.join(sorted(VECTOR_ENGINES))}); allowed for {env_id}: auto, scalar"
        )
    return engine


def vector_engine_problem(env_id: str, env_options: dict[str, Any], dealing: str) -> str:
    """Why the vector engine of ``env_id`` cannot play these options ('' if it can)."""
    module_name, class_name = VECTOR_ENGINES[env_id].split(":")
    engine_class = getattr(importlib.import_module(module_name), class_name)
    try:
        engine_class(1, dealing=dealing, **env_options)
    except OptionError as err:
        return str(err)
    return ""
