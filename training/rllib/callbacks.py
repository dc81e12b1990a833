"""RLlib callbacks of ``rllib_ppo``: the seating of each episode, and our metrics.

* ``on_episode_created`` (before the env's ``reset``): the sub-env draws the
  episode's seating, kept in ``episode.custom_data`` where the policy mapping
  function (:func:`~.env.policy_mapping`) reads it when RLlib maps the
  episode's agents to modules.
* ``on_episode_end``: the finished game's learner win share per opponent kind
  (``win/<opponent>``, ``episodes/<opponent>``) and its illegal actions,
  logged under ``env_runners/flockgym`` of RLlib's results.
"""

from __future__ import annotations

from typing import Any

from ray.rllib.callbacks.callbacks import RLlibCallback

from flockgym.training.rllib.env import SEATING_KEY


def sub_env(env: Any, env_index: int) -> Any:
    """The flockgym adapter behind RLlib's vector env."""
    return env.envs[env_index].unwrapped


class FlockgymCallbacks(RLlibCallback):
    def on_episode_created(
        self, *, episode: Any, env: Any = None, env_index: int = 0, **kw: Any
    ) -> None:
        episode.custom_data[SEATING_KEY] = sub_env(env, env_index).plan_next_episode()

    def on_episode_end(
        self,
        *,
        episode: Any,
        env: Any = None,
        env_index: int = 0,
        metrics_logger: Any = None,
        **kw: Any,
    ) -> None:
        result = sub_env(env, env_index).last_result
        if not result or metrics_logger is None:
            return
        opponent = result["opponent"]
        metrics_logger.log_value(
            ("flockgym", f"win/{opponent}"), result["win"], reduce="mean", window=100
        )
        metrics_logger.log_value(
            ("flockgym", f"episodes/{opponent}"), 1, reduce="sum", clear_on_reduce=True
        )
        metrics_logger.log_value(
            ("flockgym", "illegal_actions"),
            result["illegal_actions"],
            reduce="sum",
            clear_on_reduce=True,
        )
