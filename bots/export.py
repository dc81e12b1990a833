"""``export_policy``: a model trained outside flockgym becomes a flockgym checkpoint.

Train with stable-baselines3 (or sb3-contrib's MaskablePPO) on the self-play
env, or on any env with the same observation vector and action count, then::

    from flockgym.bots import export_policy, load_policy

    export_policy(model, "asrus_v0", {"num_players": 5}, "my_bot.zip")
    policy = load_policy("my_bot.zip", env_id="asrus_v0", env_options={"num_players": 5})

The checkpoint is the policy network's weights only (``policy.pth``, tensors)
with its ``flockgym.json``: usable wherever a bot spec is (``flockgym eval
--players my_bot.zip,heuristic``, ``flockgym play``, a config's opponents).
The model must be an MLP actor-critic policy on the flat observation vector
(``"MlpPolicy"``, the same layer sizes for the policy and the value network,
tanh or ReLU): the network flockgym rebuilds from the metadata. Anything else
is refused naming what differs, before a file is written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flockgym.bots.checkpoints import check_state_dict, write_checkpoint
from flockgym.bots.policies import CheckpointMeta, env_shapes, meta_member
from flockgym.common.errors import CheckpointError

ACTIVATION_NAMES = {"Tanh": "tanh", "ReLU": "relu"}


def export_policy(
    model: Any,
    env_id: str,
    env_options: dict[str, Any] | None,
    path: str | Path,
    *,
    steps: int | None = None,
    seed: int | None = None,
) -> Path:
    """Write ``model``'s policy as a flockgym checkpoint at ``path``; return the path.

    ``model`` is a stable-baselines3 algorithm (``PPO``, ``MaskablePPO``) or its
    ``policy``. ``steps`` and ``seed`` default to the model's own. Raises
    :class:`CheckpointError` naming the problem when the model does not fit
    ``env_id`` with ``env_options`` or is not a network flockgym can rebuild.
    """
    from flockgym.common.version import git_commit
    from flockgym.training.learners import get_learner

    policy = getattr(model, "policy", model)
    env_options = dict(env_options or {})
    size, actions, resolved = env_shapes(env_id, env_options)
    check_spaces(policy, env_id, size, actions)
    network = network_config(policy)
    learner = get_learner("maskable_ppo")
    problems = learner.network_problems(network, size, actions, "network.")
    if problems:
        raise CheckpointError("cannot export this model: " + "; ".join(problems))
    expected = learner.network(network, size, actions).state_dict()
    weights = {k: v.detach().cpu() for k, v in policy.state_dict().items()}
    check_state_dict(Path(path), "policy.pth", weights, expected)
    meta = CheckpointMeta(
        env_id=env_id,
        env_options=resolved,
        observation_size=size,
        num_actions=actions,
        algo=learner.name,
        network=network,
        steps=int(steps if steps is not None else getattr(model, "num_timesteps", 0)),
        seed=int(seed if seed is not None else (getattr(model, "seed", None) or 0)),
        git_commit=git_commit(),
        extra={"exported_from": type(model).__name__},
    )

    class Weights:  # what network_members reads
        pass

    holder = Weights()
    holder.policy = policy  # type: ignore[attr-defined]
    members = learner.network_members(holder) | meta_member(meta)
    return write_checkpoint(Path(path), members)


def check_spaces(policy: Any, env_id: str, size: int, actions: int) -> None:
    """The model's spaces must be the env's observation vector and actions."""
    observation = getattr(policy, "observation_space", None)
    action = getattr(policy, "action_space", None)
    shape = getattr(observation, "shape", None)
    count = getattr(action, "n", None)
    if shape != (size,) or count != actions:
        raise CheckpointError(
            f"cannot export this model for {env_id}: it takes observations of shape {shape} "
            f"and {count} actions; {env_id} with these options has observations of shape "
            f"({size},) and {actions} actions (train on flockgym.training.SelfPlayEnv, or "
            "give the env options the model was trained with)"
        )


def network_config(policy: Any) -> dict[str, Any]:
    """``{"net_arch": [...], "activation": ...}`` of an SB3 MLP actor-critic policy."""
    arch = getattr(policy, "net_arch", None)
    if isinstance(arch, dict):
        pi, vf = list(arch.get("pi", [])), list(arch.get("vf", []))
        if pi != vf:
            raise CheckpointError(
                f"cannot export this model: its policy and value networks differ "
                f"(net_arch pi={pi}, vf={vf}); flockgym rebuilds one layer list for both"
            )
        arch = pi
    if not isinstance(arch, list) or not arch:
        raise CheckpointError(
            f"cannot export this model: net_arch {arch!r:.80} is not a list of layer sizes "
            "(an MlpPolicy's)"
        )
    activation_fn = getattr(policy, "activation_fn", None)
    name = ACTIVATION_NAMES.get(getattr(activation_fn, "__name__", ""))
    if name is None:
        raise CheckpointError(
            f"cannot export this model: activation {activation_fn!r:.80}; allowed: "
            f"{', '.join(ACTIVATION_NAMES)} (torch.nn)"
        )
    return {"net_arch": [int(size) for size in arch], "activation": name}
