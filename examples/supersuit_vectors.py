"""SuperSuit vector envs on flockgym's parallel API: every seat of several
Asrus tables stepped as one batch (``num_vec_envs`` tables x players rows).
Asrus is natively simultaneous, so its parallel env suits vectorised learners;
each row gets its seat's observation vector and mask.

    python examples/supersuit_vectors.py
"""

from __future__ import annotations

import sys

import numpy as np
import supersuit

from flockgym.envs import make_parallel


def main(steps: int = 1000, tables: int = 2) -> dict:
    parallel = make_parallel("asrus_v0", num_players=3)
    vec = supersuit.pettingzoo_env_to_vec_env_v1(parallel)
    vec = supersuit.concat_vec_envs_v1(vec, tables, num_cpus=0, base_class="gymnasium")
    observations, _ = vec.reset(seed=0)
    rng = np.random.default_rng(0)
    done_rows = 0
    for _ in range(steps):
        masks = observations["action_mask"]  # (tables x players, actions)
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        observations, _rewards, terminated, truncated, _ = vec.step(actions)
        done_rows += int(np.sum(terminated | truncated))
    rows = observations["observation"].shape[0]
    print(f"{steps} vector steps of {rows} rows; {done_rows} seats finished a game")
    vec.close()
    return {"rows": rows, "finished": done_rows}


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
