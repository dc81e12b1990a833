"""OpenSpiel-style strings and clone() of every registered env: the observation
string is the seat's view as text, the information state is what that agent
saw (and only that), and a clone continues on its own."""

from __future__ import annotations

import json

import numpy as np
import pytest

from flockgym.envs import list_envs, make


def played(env_id: str, steps: int, seed: int = 0):
    env = make(env_id)
    env.reset(seed=seed)
    raw = env.unwrapped
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        agent = env.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            env.step(None)
            continue
        env.step(int(rng.choice(raw.legal_actions(agent))))
    return raw


def as_json(raw) -> dict:
    return json.loads(json.dumps(raw.state_dict()))


@pytest.mark.parametrize("env_id", list_envs())
def test_clone_is_equal_and_independent(env_id: str) -> None:
    raw = played(env_id, 12)
    copy = raw.clone()
    assert copy is not raw and as_json(copy) == as_json(raw)
    before = as_json(raw)
    agent = copy.agent_selection
    copy.step(copy.legal_actions(agent)[0])
    assert as_json(raw) == before, "stepping the clone changed the original"
    raw.step(raw.legal_actions(agent)[0])
    assert as_json(raw) == as_json(copy), "the same move gave different continuations"


@pytest.mark.parametrize("env_id", list_envs())
def test_observation_string_is_the_seats_text_view(env_id: str) -> None:
    raw = played(env_id, 6)
    strings = {a: raw.observation_string(a) for a in raw.possible_agents}
    for seat, agent in enumerate(raw.possible_agents):
        assert strings[agent] == raw._render_text(seat)
    assert len(set(strings.values())) > 1, "every seat sees the same: hands are not shown"
    with pytest.raises(ValueError, match="unknown agent"):
        raw.observation_string("nobody")


@pytest.mark.parametrize("env_id", list_envs())
def test_information_state_is_built_from_that_agents_views_only(env_id: str) -> None:
    raw = played(env_id, 15, seed=2)
    agent = raw.possible_agents[1]
    looked_at = []
    view = type(raw).view

    def spy(self, who):
        looked_at.append(who)
        return view(self, who)

    type(raw).view = spy
    try:
        text = raw.information_state_string(agent)
    finally:
        type(raw).view = view
    assert set(looked_at) == {agent}
    lines = text.splitlines()
    assert json.loads(lines[0])["agent"] == agent or agent in lines[0]
    assert any(line.startswith(f"{agent} plays ") for line in lines)
    assert text == played(env_id, 15, seed=2).information_state_string(agent)  # deterministic
    assert text == raw.clone().information_state_string(agent)
    assert text != raw.information_state_string(raw.possible_agents[0])


def test_information_state_ignores_what_the_agent_cannot_see() -> None:
    """Asrus: player_0 holds the same cards in two deals whose other hands differ;
    before anything of theirs is revealed, player_0's information is the same."""

    def deal(others: str) -> object:
        env = make("asrus_v0", num_players=3)
        hands = {"player_0": ["9", "4"], "player_1": [others, "2"], "player_2": [others, "3"]}
        env.reset(seed=5, options={"hands": hands, "destination": "8"})
        raw = env.unwrapped
        for agent in ("player_0", "player_1"):  # both commit a card, hidden until the reveal
            env.step(raw.legal_actions(agent)[0])
        return raw

    one, other = deal("12"), deal("6")
    assert one.observation_string("player_1") != other.observation_string("player_1")
    assert one.information_state_string("player_0") == other.information_state_string("player_0")
    assert one.information_state_string("player_1") != other.information_state_string("player_1")
