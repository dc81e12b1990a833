"""Golden playthroughs: whole seeded games written as text, as OpenSpiel does.

A playthrough records, step by step, the agent to act, its legal actions as
strings, the observation (non-zero entries), the action chosen by a seeded
random bot, and the rewards, then the final points. Stored under
``tests/golden/`` and compared line by line by the tests, it pins the rules,
the encodings and the seeding: any change in behaviour shows as a diff.

Regenerate after an intended change (and review the diff):

    python -m flockgym.envs.core.playthrough tests/golden [--env asrus_v0]

``tests/golden/specs.json`` lists the games: ``[{"name", "env", "options",
"seed"}, ...]``; each becomes ``<name>.txt``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from .bots import RandomBot


def format_observation(vector: np.ndarray) -> str:
    """Non-zero entries as ``index:value`` with 4 decimals (compact, exact enough)."""
    nonzero = np.flatnonzero(vector)
    return " ".join(f"{i}:{vector[i]:.4f}" for i in nonzero)


def playthrough_text(env_id: str, options: dict[str, Any], seed: int) -> str:
    """The golden text of one seeded game played by a random bot seeded ``seed``."""
    from .. import make  # late import: the registry imports this package

    env = make(env_id, **options)
    env.reset(seed=seed)
    raw = env.unwrapped
    bot = RandomBot(seed)
    lines = [
        f"env: {env_id}",
        f"options: {json.dumps(options, sort_keys=True)}",
        f"seed: {seed}",
    ]
    step = 0
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            lines.append(f"done {agent} return-this-step {reward:.4f}")
            env.step(None)
            continue
        legal = [
            raw.action_to_string(agent, int(a)) for a in np.flatnonzero(observation["action_mask"])
        ]
        action = bot.act(observation, raw.view(agent))
        lines.append(f"step {step} {agent}")
        lines.append(f"  obs {format_observation(observation['observation'])}")
        lines.append(f"  legal {' | '.join(legal)}")
        lines.append(f"  action {action} {raw.action_to_string(agent, action)}")
        env.step(action)
        rewards = {a: r for a, r in raw.rewards.items() if r}
        if rewards:
            lines.append(f"  rewards {json.dumps(rewards, sort_keys=True)}")
        step += 1
    lines.append(f"scores {json.dumps(raw.scores, sort_keys=True)}")
    lines.append(f"winners {' '.join(raw.winners)}")
    return "\n".join(lines) + "\n"


def load_specs(folder: Path) -> list[dict[str, Any]]:
    """The playthrough list of ``folder/specs.json``."""
    return json.loads((folder / "specs.json").read_text())


def regenerate(folder: Path, env_ids: list[str] | None = None) -> list[Path]:
    """Write the playthroughs listed in ``folder/specs.json`` (only those of
    ``env_ids`` when given); returns the paths."""
    written = []
    for spec in load_specs(folder):
        if env_ids and spec["env"] not in env_ids:
            continue
        path = folder / f"{spec['name']}.txt"
        path.write_text(playthrough_text(spec["env"], spec.get("options", {}), spec["seed"]))
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="folder holding specs.json")
    parser.add_argument("--env", action="append", help="only this env id (repeatable)")
    args = parser.parse_args(argv)
    for path in regenerate(args.folder, args.env):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
