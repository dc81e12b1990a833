"""The fast paths of the heuristic bot and of the view decide and show exactly
what the plain definitions do: the bot's counting on bitmasks against the
card-by-card count, its table of cards beating a lead against the rules' own
trick winner, and whole games (every view, observation, mask, reward and
move) against a digest taken before the fast paths existed."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from flockgym.envs import make
from flockgym.envs.astrobirdz import data
from flockgym.envs.astrobirdz.bots import (
    AstrobirdzHeuristicBot,
    beating_masks,
    lead_win_chance,
    no_hit,
)
from flockgym.envs.astrobirdz.observer import AstrobirdzObserver
from flockgym.envs.astrobirdz.rules import trick_winner


def counted_lead_win_chance(card, unknown, trump, effect, opponents, per_hand, known_hands=()):
    """The bot's chance, counted card by card as it was first written."""
    if trump < 0:
        return 0.0
    led = data.colour_of(card)
    beating = {u for u in range(data.NUM_CARDS) if trick_winner([card, u], trump, effect) == 1}
    for hand in known_hands:
        follow = [c for c in hand if data.colour_of(c) == led]
        if any(c in beating for c in (follow or hand)):
            return 0.0
    opponents -= len(known_hands)
    same = [u for u in unknown if data.colour_of(u) == led]
    beaters = [u for u in unknown if u in beating]
    beat_same = sum(1 for u in beaters if data.colour_of(u) == led)
    pool = len(unknown)
    follows_and_beats = 1.0 - no_hit(pool, beat_same, per_hand)
    void = no_hit(pool, len(same), per_hand)
    trumps_in = 1.0 - no_hit(pool - len(same), len(beaters) - beat_same, per_hand)
    return (1.0 - min(1.0, follows_and_beats + void * trumps_in)) ** opponents


def distinct_effects():
    effects = {data.NO_RULE.effect}
    for never_beaten in (False, True):
        effects.update(rule.effect for rule in data.rule_cards(never_beaten))
    return sorted(effects, key=repr)


def test_beating_masks_are_the_rules_trick_winner_for_every_rule_card():
    for index, effect in enumerate(distinct_effects()):
        trump = index % data.NUM_COLOURS
        masks = beating_masks(trump, effect)
        for card in range(data.NUM_CARDS):
            expected = sum(
                1 << u for u in range(data.NUM_CARDS) if trick_winner([card, u], trump, effect) == 1
            )
            assert masks[card] == expected, (effect, trump, card)


def test_lead_win_chance_is_the_card_by_card_count_exactly():
    rng = np.random.default_rng(3)
    effects = distinct_effects()
    for _ in range(400):
        effect = effects[int(rng.integers(len(effects)))]
        trump = int(rng.integers(-1, data.NUM_COLOURS))
        deck = rng.permutation(data.NUM_CARDS).tolist()
        card, per_hand = deck[0], int(rng.integers(1, 9))
        known = (deck[1 : 1 + per_hand],) if rng.random() < 0.3 else ()
        unknown = sorted(deck[1 + per_hand : 1 + per_hand + int(rng.integers(0, 40))])
        opponents = int(rng.integers(1, 6))
        args = (card, unknown, trump, effect, opponents, per_hand, known)
        assert lead_win_chance(*args) == counted_lead_win_chance(*args)


GAMES = [
    (
        {"num_players": 2},
        2,
        "e68ea7b15051e1f8149b1ff9b12f3a3f3e5ff9c5303eb45d1d3111e3bda4a3b8",
    ),
    (
        {"num_players": 4, "reward": "score"},
        3,
        "443063dd624674a9e7cc367134e8884ef8414691406a28c87f52447f282e25f5",
    ),
    (
        {"num_players": 6},
        1,
        "4c026e1fb6ec720352fefeb943e36ce6f74b57f9c25f442925949adaf3e69b65",
    ),
    (
        {"num_players": 5, "pass_cards": True},
        2,
        "fe0b0289ca0752041b2a986362d0888ba581727fa6dc4687d147d589f4aa9db2",
    ),
    (
        {"num_players": 3, "green_7": "never_beaten_by_trump"},
        2,
        "9736b2fbae3e73a2b2b8829ed60e7ec9831aa10eac1e7b4f854e6bc6ccb4c41e",
    ),
    (
        {"num_players": 3, "berzerkerbirdz": False, "trump_rules": False},
        2,
        "8300fe74039018413983eb421df659e80b43ef0ba7281dfeed1a6520bb6e2244",
    ),
]
"""Options, games, and the digest of those games taken with the bot and the
view as they were before their fast paths."""


def play_digest(options: dict, games: int) -> str:
    """SHA-256 of games of heuristic bots (one move in five random): every
    view, observation, mask, reward and move, in order."""
    digest = hashlib.sha256()
    env = make("astrobirdz_v0", **options)
    for game in range(games):
        bots = {
            a: AstrobirdzHeuristicBot(seed=10 * game + i) for i, a in enumerate(env.possible_agents)
        }
        env.reset(seed=100 + game)
        rng = np.random.default_rng(game)
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, _ = env.last()
            digest.update(observation["observation"].tobytes())
            digest.update(observation["action_mask"].tobytes())
            digest.update(repr(reward).encode())
            if terminated or truncated:
                env.step(None)
                continue
            view = env.unwrapped.view(agent)
            digest.update(json.dumps(view).encode())
            if rng.random() < 0.8:
                action = bots[agent].act(observation, view)
            else:
                legal = np.flatnonzero(observation["action_mask"])
                action = int(legal[rng.integers(legal.size)])
            digest.update(str(action).encode())
            env.step(action)
    return digest.hexdigest()


@pytest.mark.parametrize(("options", "games", "expected"), GAMES)
def test_heuristic_games_are_move_for_move_as_before(options, games, expected):
    assert play_digest(options, games) == expected


@pytest.mark.parametrize("every", [1, 5, 13])
def test_observations_after_several_tricks_unseen_equal_a_rebuild(every):
    """The store adds finished tricks as they come: observed only every
    ``every`` moves (several tricks, turns and AstroBoard moves in between),
    every seat's observation is the one written from scratch."""
    for options, seed in (({"num_players": 4}, 1), ({"num_players": 5, "pass_cards": True}, 2)):
        env = make("astrobirdz_v0", **options, engine="python")  # the Python store's fast path
        env.reset(seed=seed)
        raw = env.unwrapped
        game = raw.astrobirdz
        reference = AstrobirdzObserver(options["num_players"])
        rng = np.random.default_rng(seed)
        moves = compared = 0
        while not game.over:
            legal = game.legal_actions()
            game.apply_action(legal[int(rng.integers(len(legal)))])
            moves += 1
            if moves % every == 0 or game.over:
                reference.rebuild(game)
                for seat in range(options["num_players"]):
                    assert np.array_equal(raw._encode_observation(seat), reference.encode(seat))
                compared += 1
        assert compared == -(-moves // every)
