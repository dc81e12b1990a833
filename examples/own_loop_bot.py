"""A flockgym bot in your own loop: the shipped Asrus policy (found from the
package, any folder) and the heuristic play against your code through the
plain AEC loop. A bot sees only what its seat may see: the observation dict
(with the mask) and the seat's ``view``.

    python examples/own_loop_bot.py
"""

from __future__ import annotations

import sys

import numpy as np

from flockgym.bots import load_policy
from flockgym.envs import make, make_bot


def main(games: int = 3) -> dict:
    policy = load_policy("asrus/ppo_5p", env_id="asrus_v0")  # a shipped checkpoint's name
    env = make("asrus_v0", num_players=5)
    raw = env.unwrapped
    rng = np.random.default_rng(0)
    wins = dict.fromkeys(env.possible_agents, 0.0)
    for game in range(games):
        bots = {
            "player_1": policy.as_bot(seed=game),
            "player_2": make_bot("asrus_v0", "heuristic", game),
        }
        env.reset(seed=game)
        for agent in env.agent_iter():
            observation, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            if agent in bots:
                action = bots[agent].act(observation, raw.view(agent))
            else:  # your own code: here, a random legal move
                action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            env.step(action)
        for winner in raw.winners:
            wins[winner] += 1 / len(raw.winners)
    print(f"wins over {games} games: {wins}")
    return wins


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
