"""The Skybirds heuristic bot: legal and deterministic, each rule of its play
in a hand-built scenario, and clearly better than random at every player
count (the few-thousand-game measurement is benchmarks/skybirds_bots.py)."""

from __future__ import annotations

import numpy as np
import pytest

from flockgym.envs import RandomBot, make_bot, skybirds_v0
from flockgym.envs.core.play import play_game
from flockgym.envs.skybirds.bots import SkybirdsHeuristicBot


def table(players: int = 4, **scenario):
    env = skybirds_v0.env(num_players=players)
    env.reset(seed=0, options=scenario)
    return env


def choice(env) -> str:
    """What the heuristic bot plays for the agent to act."""
    agent = env.agent_selection
    raw = env.unwrapped
    bot = SkybirdsHeuristicBot(seed=0)
    action = bot.act(env.observe(agent), raw.view(agent))
    return raw.action_to_string(agent, action)


def play(env, text: str) -> None:
    env.step(env.unwrapped.string_to_action(env.agent_selection, text))


def all_hands(**hands: str) -> dict:
    return {f"player_{k[1:]}": v.split() for k, v in hands.items()}


def test_registered_as_the_heuristic_bot():
    assert isinstance(make_bot("skybirds_v0", "heuristic", seed=1), SkybirdsHeuristicBot)


def test_garros_is_played_alone_then_the_weakest_set_leads():
    env = table(hands=all_hands(p0="G 2 2 5 9", p1="3", p2="4", p3="6"))
    assert choice(env) == "G"
    play(env, "G")
    assert choice(env) == "2 2"  # the weakest value, every copy of it, Medallions kept


def test_follows_with_the_cheapest_winning_squadron_without_breaking_sets():
    env = table(hands=all_hands(p0="4 1", p1="5 6 6 7 9", p2="8", p3="3"), leader="player_0")
    play(env, "4")
    assert choice(env) == "5"  # not a 6 from the pair, not the Medallion 9


def test_keeps_medallions_unless_the_dogfight_decides_who_goes_out():
    hands = all_hands(p0="5 5 1 1 1 1 2 2", p1="9 3 3 3 3 4 4 4", p2="2 6 6 6 7", p3="6 7 8 8")
    env = table(hands=hands, leader="player_0")
    play(env, "5 5")
    assert choice(env) == "pass"  # a single 9 would win, but nobody is close to going out
    hands = all_hands(p0="5 5 1", p1="9 3 3 3 3 4 4 4", p2="2 6 6 6 7", p3="6 7 8 8")
    env = table(hands=hands, leader="player_0")
    play(env, "5 5")
    assert choice(env) == "9"  # player_0 is down to one card: the Medallion comes out


def test_uses_a_token_to_win_a_dogfight_it_would_lose():
    hands = all_hands(p0="5 5 5 1", p1="2 3 3", p2="4", p3="6")
    env = table(hands=hands, leader="player_0", tokens={"player_1": {"A1": "front"}})
    play(env, "5 5 5")
    assert choice(env) == "use A1"  # would pass; an opponent is close to going out
    play(env, "use A1")
    assert choice(env) == "add 2"  # the cheapest winner: a single 2 with the Medallion
    play(env, "add 2")
    assert choice(env) == "done"
    play(env, "done")
    assert env.unwrapped.skybirds.table.medallions == 1


def test_takes_the_armistice_and_otherwise_the_token_toward_it():
    env = table(
        hands=all_hands(p0="7", p1="8 8", p2="2 2", p3="3 4"),
        leader="player_0",
        tokens={"player_0": {"D1": "front", "D2": "front"}},
    )
    play(env, "7")
    assert choice(env) == "take Armistice"
    env = table(
        hands=all_hands(p0="7", p1="8 8", p2="2 2", p3="3 4"),
        leader="player_0",
        tokens={"player_0": {"A1": "front", "A2": "front"}},
    )
    play(env, "7")
    assert choice(env) == "take B2"  # the Tiebreaker opens both C tokens


def test_every_action_is_legal_and_the_bot_is_deterministic():
    for players in (2, 3, 4):
        env = skybirds_v0.env(num_players=players)
        bots = {a: SkybirdsHeuristicBot(seed=i) for i, a in enumerate(env.possible_agents)}
        first = play_game(env, bots, seed=players)  # play_game steps only masked actions
        bots = {a: SkybirdsHeuristicBot(seed=i) for i, a in enumerate(env.possible_agents)}
        again = play_game(env, bots, seed=players)
        assert first.moves == again.moves and env.unwrapped.skybirds.over


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_heuristic_beats_random_on_win_rate_and_vp(players):
    env = skybirds_v0.env(num_players=players)
    wins, hero_vp, random_vp = 0.0, [], []
    games = 12
    for game in range(games):
        hero = game % players
        bots = {
            f"player_{s}": SkybirdsHeuristicBot(game) if s == hero else RandomBot(100 + s + game)
            for s in range(players)
        }
        record = play_game(env, bots, seed=500 + game)
        agent = f"player_{hero}"
        wins += (agent in record.winners) / max(1, len(record.winners))
        hero_vp.append(record.scores[agent])
        random_vp += [v for a, v in record.scores.items() if a != agent]
    assert wins / games > 0.75  # equal players would win 1/n
    assert np.mean(hero_vp) > 2 * np.mean(random_vp)
