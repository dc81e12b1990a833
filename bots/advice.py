"""Advised policies: the learner sees a bot's suggested move beside its observation.

With ``env.advisor: heuristic`` in a config, the learner's input at every
decision is the env's observation vector followed by a one-hot vector over the
actions: the move the game's heuristic bot would make in the learner's seat
(all zeros when the learner has nothing to decide). The network can copy the
suggestion, or overrule it where it has learnt better. This is residual
learning on top of a hand-written player (a policy that starts where the
heuristic is and learns where it goes wrong), and it is how the Arena and
Astrobirdz bots were trained: their heuristics compute exact dice and trick
probabilities that a flat network would otherwise have to rediscover from
one-hot encodings of the table.

The advice is part of the policy: a checkpoint trained with it says so
(``advisor`` in its ``flockgym.json``), its network reads ``observation size +
actions`` inputs, and wherever it plays (tournaments, self-play, ``flockgym
play``, the browser) each of its seats keeps an advisor bot of its own,
seeded from the seat's seed, that is asked for its move from the same
observation and view before the network decides. Such a policy reads views,
so the vectorised Asrus engine does not seat it (tournaments fall back to the
scalar engine).

Each advisor is asked exactly once per decision of its seat, in order, so an
advisor that keeps state between its moves (the Arena heuristic counts its
Nebula Slides within a turn) sees every decision of the seat it advises.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from flockgym.envs import Bot, OptionError, make_bot

ADVISORS = ("none", "heuristic")
"""What can advise a policy: nothing, or the env's heuristic bot."""


def check_advisor(advisor: str) -> None:
    """Refuse an unknown advisor name, naming the allowed ones."""
    if advisor not in ADVISORS:
        raise OptionError(f"advisor={advisor!r}; allowed: {', '.join(ADVISORS)}")


def input_size(observation_size: int, num_actions: int, advisor: str) -> int:
    """The network's input size: the observation, plus one entry per action when advised."""
    check_advisor(advisor)
    return observation_size + (num_actions if advisor != "none" else 0)


class Advisor:
    """One seat's advisor: a bot asked for its move at each of the seat's decisions."""

    def __init__(self, env_id: str, advisor: str, num_actions: int, seed: int | None) -> None:
        check_advisor(advisor)
        if advisor == "none":
            raise OptionError("an Advisor needs an advisor; allowed: heuristic")
        self.bot: Bot = make_bot(env_id, advisor, seed)
        self.num_actions = num_actions

    def advice(self, observation: dict[str, np.ndarray], view: dict[str, Any]) -> np.ndarray:
        """One-hot float32 ``[num_actions]`` of the bot's move; zeros if the seat has
        no legal move (its game is over for it)."""
        onehot = np.zeros(self.num_actions, dtype=np.float32)
        if np.any(observation["action_mask"]):
            onehot[int(self.bot.act(observation, view))] = 1.0
        return onehot

    def network_input(self, observation: dict[str, np.ndarray], view: dict[str, Any]) -> np.ndarray:
        """The observation vector followed by the advice (float32)."""
        vector = np.asarray(observation["observation"], dtype=np.float32).reshape(-1)
        return np.concatenate([vector, self.advice(observation, view)])
