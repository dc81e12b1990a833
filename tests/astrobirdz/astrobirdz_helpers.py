"""Scenario helpers for the Astrobirdz tests: set up a table, step by action
strings (checking whose turn it is), and read the rules engine.

The env plays on the compiled engine by default; ``ENGINE`` is the engine
:func:`table` asks for, which the fixture ``either_engine`` (``conftest.py``)
sets to each engine in turn for the rule tests. :func:`game` reads the state
through the env's public ``astrobirdz`` property at every attribute, so a test
may keep it across steps on either engine."""

from __future__ import annotations

from typing import Any

import numpy as np

from flockgym.envs import astrobirdz_v0
from flockgym.envs.astrobirdz.data import parse_card
from flockgym.envs.astrobirdz.rules import AstrobirdzGame, bits


def agents(n: int) -> list[str]:
    return [f"player_{s}" for s in range(n)]


def table(
    players: int,
    hands: dict[int, list[str]] | None = None,
    trump: str | None = None,
    berzerkers: dict[int, int] | None = None,
    turn: int = 1,
    scores: dict[int, int] | None = None,
    seed: int = 0,
    **options: Any,
):
    """A wrapped env reset to a scenario; seats are given as numbers."""
    env = astrobirdz_v0.env(num_players=players, **{"engine": ENGINE, **options})
    scenario: dict[str, Any] = {"turn": turn}
    if hands:
        scenario["hands"] = {f"player_{s}": cards for s, cards in hands.items()}
    if trump:
        scenario["trump"] = trump
    if berzerkers:
        scenario["berzerkers"] = {f"player_{s}": b for s, b in berzerkers.items()}
    if scores:
        scenario["scores"] = {f"player_{s}": p for s, p in scores.items()}
    env.reset(seed=seed, options=scenario)
    return env


ENGINE = "compiled"
"""The engine :func:`table` plays on unless a test names one (the env's default)."""


class LiveGame:
    """The env's rules engine as it is now: each attribute read asks
    ``env.unwrapped.astrobirdz`` again. With the compiled engine that property
    is a Python snapshot of the moment it is read, so a test keeping
    ``game(env)`` across steps reads through this; it changes nothing."""

    __slots__ = ("_env",)

    def __init__(self, env: Any) -> None:
        object.__setattr__(self, "_env", env)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._env.unwrapped.astrobirdz, name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"game(env) only reads the game; set {name} on a Python engine")


def game(env) -> LiveGame:
    """The env's game, read live (see :class:`LiveGame`)."""
    return LiveGame(env)


def step(env, seat: int, text: str) -> None:
    """Play ``text`` as ``player_{seat}``, who must be the agent to act and
    must have it in its action mask."""
    agent = f"player_{seat}"
    assert env.agent_selection == agent, f"expected {agent} to act, not {env.agent_selection}"
    action = env.unwrapped.string_to_action(agent, text)
    mask = env.observe(agent)["action_mask"]
    assert mask[action] == 1, f"{text} is not in {agent}'s mask: {legal_strings(env)}"
    env.step(action)


def steps(env, moves: list[tuple[int, str]]) -> None:
    for seat, text in moves:
        step(env, seat, text)


def legal_strings(env) -> list[str]:
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    return [env.unwrapped.action_to_string(agent, int(a)) for a in np.flatnonzero(mask)]


def hand(env, seat: int) -> list[str]:
    return env.unwrapped.view(f"player_{seat}")["hand"]


def cards(texts: list[str]) -> int:
    mask = 0
    for text in texts:
        mask |= 1 << parse_card(text)
    return mask


def turn_totals(env) -> list[int]:
    """Each seat's points for the turn just scored."""
    return [item.total for item in game(env).last_turn]


def totals_of(env, name: str) -> list[int]:
    """One item of the last turn's tally for every seat, e.g. ``card_points``."""
    return [getattr(item, name) for item in game(env).last_turn]


def observation_field(env, seat: int, name: str) -> np.ndarray:
    """One field of ``player_{seat}``'s observation vector."""
    raw = env.unwrapped
    observer = raw.observer
    start = observer.obs_at[name]
    names = [f.name for f in observer.fields]
    index = names.index(name)
    end = observer.obs_at[names[index + 1]] if index + 1 < len(names) else observer.size
    return raw.observe(f"player_{seat}")["observation"][start:end]


def all_cards(g: AstrobirdzGame) -> list[int]:
    """Every card's place, as a sorted list: must be each of the 54 once."""
    places = [*g.deck, *g.discards, g.trump_card, *g.trick]
    places += [c for h in g.hands for c in bits(h)]
    places += [c for t in g.finished for c in t]
    return sorted(places)
