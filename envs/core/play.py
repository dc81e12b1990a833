"""Playing whole games between bots through the AEC loop.

Used by the demo, the tests and the benchmarks, so that they all drive an env
the way a user's code does: ``agent_iter``, ``last``, ``step``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .bots import Bot, bot_action


@dataclass
class GameRecord:
    """What happened in one game: its moves as strings, final points and returns."""

    seed: int | None
    moves: list[tuple[str, str]] = field(default_factory=list)
    scores: dict[str, float] = field(default_factory=dict)
    returns: dict[str, float] = field(default_factory=dict)
    winners: list[str] = field(default_factory=list)


def play_game(
    env: Any,
    bots: Mapping[str, Bot],
    seed: int | None = None,
    options: dict[str, Any] | None = None,
    on_step: Callable[[Any, str, int], None] | None = None,
) -> GameRecord:
    """Play one game of ``env`` (wrapped or raw AEC env) with one bot per agent.

    ``on_step(env, agent, action)`` is called before each live action, e.g. to
    render the table. Returns the moves, the final game points and each agent's
    summed reward.
    """
    env.reset(seed=seed, options=options)
    raw = env.unwrapped
    record = GameRecord(seed=seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        returns[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        action = bot_action(bots[agent], raw, agent, observation, raw.view(agent))
        record.moves.append((agent, raw.action_to_string(agent, action)))
        if on_step is not None:
            on_step(env, agent, action)
        env.step(action)
    record.scores = dict(raw.scores)
    record.returns = returns
    record.winners = list(raw.winners)
    return record
