"""A checkpoint of an untrained policy, saved the way training saves one (shared
by the policy tests)."""

from __future__ import annotations

from pathlib import Path

from flockgym.bots.checkpoints import write_checkpoint as write_zip
from flockgym.bots.policies import CheckpointMeta, env_shapes, meta_member
from flockgym.training.learners import get_learner


def write_checkpoint(
    path: Path, env_id: str, options: dict | None = None, advisor: str = "none"
) -> Path:
    """An untrained policy saved the way training saves one (advised by ``advisor``)."""
    learner = get_learner("maskable_ppo")
    size, actions, resolved = env_shapes(env_id, options or {})
    config = {"net_arch": [16], "activation": "tanh"}
    advised = advisor != "none"

    class Model:  # what network_members reads from a model
        policy = learner.network(
            config, size + actions * advised, actions, actions if advised else 0
        )

    meta = CheckpointMeta(env_id, resolved, size, actions, "maskable_ppo", config, advisor=advisor)
    return write_zip(path, learner.network_members(Model()) | meta_member(meta))
