"""Plain sb3-contrib MaskablePPO on flockgym's self-play env, outside the
flockgym trainer: make the env through Gymnasium, learn, export the model as a
flockgym checkpoint, and evaluate it like any bot.

    python examples/sb3_maskable_ppo.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import gymnasium
import torch
from sb3_contrib import MaskablePPO

from flockgym.bots import export_policy, make_participant
from flockgym.evaluation import tournament

OPTIONS = {"num_players": 3, "reward": "score"}


def main(steps: int = 4096, out: Path | None = None) -> dict:
    # One torch thread. torch starts a thread per core; on a small machine whose other
    # core is busy they spin at every barrier waiting for it, and learning this small
    # network took 20x as long (benchmarks/sb3_threads.py, docs/own-code.md). The env
    # steps on one core anyway; the flockgym trainer does the same (update_threads: 1).
    torch.set_num_threads(1)
    # One seat of 3-player Asrus; a heuristic or a random bot fills the other seats.
    env = gymnasium.make("flockgym/asrus-selfplay-v0", opponents=["heuristic", "random"], **OPTIONS)
    # MaskablePPO reads env.action_masks() (the learner's legal moves) at every step.
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=128, seed=0, verbose=0)
    model.learn(total_timesteps=steps)

    # The model as a flockgym bot: weights and metadata, loadable without running code.
    path = Path(out or tempfile.mkdtemp()) / "my_asrus_bot.zip"
    export_policy(model, "asrus_v0", OPTIONS, path)
    players = [
        make_participant(str(path), "asrus_v0", OPTIONS, name="mine"),
        make_participant("random", "asrus_v0", OPTIONS),
    ]
    result = tournament("asrus_v0", players, deals=4, env_options=OPTIONS)
    print(result.to_markdown())
    return {"checkpoint": path, "result": result}


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4096)
