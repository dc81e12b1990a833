"""RLlib's own ``PettingZooEnv`` on a flockgym AEC env, with the observation
layout of RLlib's action-masking example.

RLlib's masking module (``ActionMaskingTorchRLModule``, in
``ray/rllib/examples/rl_modules/classes/action_masking_rlm.py``) reads every
observation as ``{"observations": ..., "action_mask": ...}``; flockgym's is
``{"observation": ..., "action_mask": ...}``. :class:`RLlibObservations`
renames the key; the mask stays flockgym's int8 0/1 vector (the module takes its
log, -inf where 0: torch promotes it to float). RLlib's env checker steps one action
sampled from the action space with the mask unread, so the env is made with
``illegal_action="penalize"``: an illegal action then ends the game with -1 to
its player (0 to the others) instead of raising ``IllegalActionError``.

With ray[rllib] installed (the ``rllib`` extra, in a venv of its own:
``pip install -c constraints-rllib.txt '.[train,rllib]'``)::

    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.tune.registry import register_env

    register_env("asrus3", lambda config: PettingZooEnv(rllib_aec_env("asrus_v0", num_players=3)))

Without ray, ``python examples/rllib_pettingzoo.py`` checks the wrapped env as
RLlib's wrapper and checker use it: PettingZoo's api_test, random masked games,
and one action taken without reading the mask.
"""

from __future__ import annotations

import sys
from typing import Any

import gymnasium
import numpy as np
from pettingzoo.test import api_test
from pettingzoo.utils import BaseWrapper

from flockgym.envs import make


class RLlibObservations(BaseWrapper):
    """A flockgym AEC env whose observations are ``{"observations", "action_mask"}``,
    the keys RLlib's action-masking module reads."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self._spaces = {agent: self._renamed(agent) for agent in env.possible_agents}

    def _renamed(self, agent: str) -> gymnasium.spaces.Dict:
        space = self.env.observation_space(agent)
        return gymnasium.spaces.Dict(
            {"observations": space["observation"], "action_mask": space["action_mask"]}
        )

    def observation_space(self, agent: str) -> gymnasium.spaces.Dict:
        return self._spaces[agent]  # one object per agent, as PettingZoo's api_test asks

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        observation = self.env.observe(agent)
        return {
            "observations": observation["observation"],
            "action_mask": observation["action_mask"],
        }


def rllib_aec_env(env_id: str, **options: Any) -> RLlibObservations:
    """The env to hand to ``ray.rllib.env.wrappers.pettingzoo_env.PettingZooEnv``:
    RLlib's observation keys, and illegal actions penalized (RLlib's env checker
    takes one unmasked random step)."""
    return RLlibObservations(make(env_id, illegal_action="penalize", **options))


def random_games(env: RLlibObservations, games: int, seed: int) -> int:
    """Masked random play through the AEC loop, as RLlib's wrapper steps it; the
    number of games that ended with a winner."""
    rng = np.random.default_rng(seed)
    won = 0
    for game in range(games):
        env.reset(seed=seed + game)
        for _agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            done = terminated or truncated
            legal = np.flatnonzero(observation["action_mask"])
            env.step(None if done else int(rng.choice(legal)))
        won += bool(env.unwrapped.winners)
    return won


def unmasked_step(env: RLlibObservations, seed: int) -> dict[str, float]:
    """The first illegal action of the first seat to move, as RLlib's checker might
    sample it: the game ends, and the rewards it pays."""
    env.reset(seed=seed)
    agent = env.agent_selection
    illegal = int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0])
    env.step(illegal)
    return {a: float(env.rewards[a]) for a in env.possible_agents}


def main(games: int = 20, env_id: str = "asrus_v0", num_players: int = 3) -> dict[str, Any]:
    env = rllib_aec_env(env_id, num_players=num_players)
    api_test(env, num_cycles=50)
    won = random_games(env, games, seed=0)
    rewards = unmasked_step(env, seed=0)
    print(f"{games} masked random games ({won} won); an unmasked illegal action paid {rewards}")
    try:
        from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    except ImportError:
        print("ray[rllib] is not installed: RLlib's PettingZooEnv not tried")
    else:
        rllib_env = PettingZooEnv(rllib_aec_env(env_id, num_players=num_players))
        observations, _ = rllib_env.reset(seed=0)
        print(f"RLlib's PettingZooEnv: first observation for {sorted(observations)}")
    return {"games": games, "won": won, "penalty": rewards, "space": env.observation_space}


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
