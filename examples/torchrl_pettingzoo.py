"""TorchRL on a flockgym AEC env: ``PettingZooWrapper(use_mask=True)`` turns the
env into a TorchRL env whose action specs carry each agent's mask, so random
actions (and masked policies) stay legal. A rollout is one TensorDict, one
group per agent, with the observation, mask, action, rewards and done flags.

    python examples/torchrl_pettingzoo.py
"""

from __future__ import annotations

import sys

from torchrl.envs.libs.pettingzoo import PettingZooWrapper

from flockgym.envs import make


def main(steps: int = 1000) -> dict:
    env = PettingZooWrapper(env=make("asrus_v0", num_players=3), use_mask=True, seed=0)
    collected, games = 0, 0
    while collected < steps:
        rollout = env.rollout(max_steps=steps - collected)  # stops at the end of a game
        collected += rollout.batch_size[0]
        games += 1
        for agent in env.group_map:
            group = rollout[agent]
            # Every action taken was legal under that agent's mask (when it acted).
            acted = group["mask"].squeeze(-1)
            chosen = group["action"].squeeze(-1)[acted]
            masks = group["action_mask"].squeeze(1)[acted]
            assert bool(masks.gather(-1, chosen.unsqueeze(-1)).all())
    print(f"{collected} TorchRL steps in {games} rollouts; groups: {sorted(env.group_map)}")
    return {"steps": collected, "games": games, "groups": sorted(env.group_map)}


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
