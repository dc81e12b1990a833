"""Training and evaluation for flockgym: self-play from YAML configs, duplicate
tournaments, checkpoints as bots (see docs/training.md).

>>> from flockgym.training import load_policy
>>> policy = load_policy("checkpoints/asrus/ppo_5p.zip", env_id="asrus_v0")  # doctest: +SKIP
>>> action = policy.act(observation["observation"], observation["action_mask"])  # doctest: +SKIP
"""

from .policies import (
    BotSpec,
    BotSpecError,
    CheckpointError,
    Policy,
    PolicyBot,
    load_policy,
    make_participant,
    parse_spec,
    parse_specs,
)

__all__ = [
    "BotSpec",
    "BotSpecError",
    "CheckpointError",
    "Policy",
    "PolicyBot",
    "load_policy",
    "make_participant",
    "parse_spec",
    "parse_specs",
]
