"""Playing whole games between bots through the AEC loop.

Used by the demo, the tests and the benchmarks, so that they all drive an env
the way a user's code does: ``agent_iter``, ``last``, ``step``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .bots import Bot, bot_action
from .errors import FlockgymError


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

    ``bots`` maps every agent name to its bot (``{"player_0": bot, ...}``); a
    list, or a mapping that misses an agent, is refused before the game starts.
    ``on_step(env, agent, action)`` is called before each live action, e.g. to
    render the table. Returns the moves, the final game points and each agent's
    summed reward.
    """
    check_bots(bots, list(env.possible_agents))
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


def check_bots(bots: Any, agents: list[str]) -> None:
    """Refuse ``bots`` unless it maps each of ``agents`` to a bot, naming what is
    wrong and what is wanted (a list would otherwise fail mid-game with a bare
    ``TypeError``)."""
    example = "{" + ", ".join(f"{a!r}: bot" for a in agents[:2]) + ", ...}"
    if not isinstance(bots, Mapping):
        raise TypeError(
            f"play_game: bots must map each agent name to its bot, e.g. {example}; "
            f"got a {type(bots).__name__}. Agents: {', '.join(agents)}"
        )
    missing = [agent for agent in agents if agent not in bots]
    if missing:
        raise FlockgymError(
            f"play_game: no bot for {', '.join(missing)}; bots must map every agent "
            f"({', '.join(agents)}) to its bot"
        )
