"""Random games for 2-6 players and every option: cards are conserved, masks
are exact (checked against a legality oracle written here from the rules, and
against the engine refusing everything else), the incremental observations
equal a rebuild from scratch, no observation changes when hidden cards move,
every state checked action by action saves and loads back as itself (the
state-dict checks refuse no reachable state), and every game ends after the
Player Chart's number of turns with the running totals adding up. A small
version runs by default; the big one is ``slow``."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from aec_helpers import random_action, random_steps
from astrobirdz_helpers import all_cards, game, observation_field, table
from hypothesis import given, settings
from hypothesis import strategies as st

from flockgym.envs import astrobirdz_v0
from flockgym.envs.astrobirdz import data
from flockgym.envs.astrobirdz.actions import GUESS_OFFSET, TRUMP_OFFSET
from flockgym.envs.astrobirdz.env import OPTION_SAMPLES, ages_sample
from flockgym.envs.astrobirdz.native import ENGINES
from flockgym.envs.astrobirdz.observer import AstrobirdzObserver
from flockgym.envs.astrobirdz.rules import AstrobirdzGame, Phase, bits

OPTIONS = st.fixed_dictionaries(
    {
        "num_players": st.integers(2, 6),
        "berzerkerbirdz": st.booleans(),
        "trump_rules": st.booleans(),
        "pass_cards": st.booleans(),
    }
)


def oracle(g: AstrobirdzGame) -> set[int]:
    """The legal actions, worked out from the rules without the engine's own
    ``legal_actions``."""
    n, seat = g.config.num_players, g.actor
    layout = g.layout
    hand = [c for c in range(data.NUM_CARDS) if g.hands[seat] >> c & 1]
    others = {layout.player(seat, s) for s in range(n) if s != seat}
    if g.phase == Phase.PLAY:
        if g.trick:
            led = [c for c in hand if c // 9 == g.trick[0] // 9]
            return set(led or hand)
        return set(hand)
    if g.phase == Phase.GUESS:
        return {GUESS_OFFSET + k for k in range(len(hand) + 1)}
    if g.phase == Phase.CHOOSE_TRUMP:
        return {TRUMP_OFFSET + c for c in range(6)}
    if g.phase == Phase.NITRO_PEEK:
        return others
    if g.phase == Phase.SURFETTE_PARTNER:
        return others | {layout.decline}
    held = [g.holders.count(s) for s in range(n)]
    if g.phase == Phase.ASTROBOARD:
        short = g.guesses[seat] - held[seat]
        partners = {
            layout.player(seat, s)
            for s in range(n)
            if s != seat and held[s] - g.guesses[s] == short
        }
        return partners | {layout.decline}
    if g.phase == Phase.ASTROBOARD_TRICK:  # any trick of the giver: the partner's if taking
        giver = g.astro_partner if g.guesses[seat] > held[seat] else seat
        return {layout.trick(k) for k in range(len(g.finished)) if g.holders[k] == giver}
    chosen = set(g.chosen[seat])
    if g.phase == Phase.PASS_RIGHT:
        numbers = [c % 9 for c in hand]
        target = min(numbers) if g.rule.effect.pass_right == "lowest" else max(numbers)
        pool = [c for c in hand if c % 9 == target]
    else:
        pool = hand
    legal = {layout.choose(c) for c in pool if c not in chosen}
    if g.phase == Phase.SURFETTE_CARDS and chosen:
        legal.add(layout.decline)
    return legal


def check_state(
    env, reference: AstrobirdzObserver, rng: np.random.Generator, deep: bool, share: float
) -> None:
    """Check the invariants; the observation checks on a ``share`` of the steps."""
    raw = env.unwrapped
    g: AstrobirdzGame = raw.astrobirdz
    assert all_cards(g) == list(range(data.NUM_CARDS))
    in_trick = set(g.trick_order[: len(g.trick)])
    for seat, held in enumerate(g.hands):  # every hand the same size, less the card played
        assert len(bits(held)) == g.hand_size - len(g.trick_winners) - (seat in in_trick)
    for observer, row in enumerate(g.known):  # what a seat knows of a hand is in that hand
        for seat, known in enumerate(row):
            assert known & ~g.hands[seat] == 0 and not (seat == observer and known)
    acting = env.agent_selection
    observations = share >= 1 or rng.random() < share
    if deep or rng.random() < 0.1:  # the full state check on a tenth of the steps
        assert g.invariant_violations() == []
    if observations:
        reference.rebuild(g)
    for seat, agent in enumerate(env.possible_agents):
        observation = raw.observe(agent)
        vector, mask = observation["observation"], observation["action_mask"]
        if observations:
            assert raw.observation_space(agent).contains(observation)
            assert np.array_equal(vector, reference.encode(seat)), (agent, g.phase)
        if agent != acting or g.over:
            assert not mask.any()
    if g.over:  # the final state saves and loads too
        assert AstrobirdzGame.from_dict(g.to_dict()).to_dict() == g.to_dict()
        return
    mask = raw.observe(acting)["action_mask"]
    legal = set(np.flatnonzero(mask).tolist())
    engine = raw.game  # the engine that plays (g is the Python engine or a copy in its state)
    assert legal == oracle(g) == set(g.legal_actions()) == set(engine.legal_actions())
    if deep:
        # every reachable state saves and loads back as itself ...
        assert AstrobirdzGame.from_dict(g.to_dict()).to_dict() == g.to_dict() == engine.to_dict()
        # ... the engine refuses every other action before changing anything ...
        before = engine.to_dict()
        for action in range(raw.num_actions):
            if action not in legal:
                with pytest.raises(ValueError, match="illegal Astrobirdz action"):
                    engine.apply_action(action)
        assert engine.to_dict() == before
        # ... and applies every legal one (on a copy)
        for action in legal:
            probe = copy.deepcopy(engine)
            if isinstance(probe, AstrobirdzGame):
                probe.record_events = False
            probe.apply_action(action)
    if observations:
        check_hidden_cards_do_not_show(raw, g, rng)


def check_hidden_cards_do_not_show(raw, g: AstrobirdzGame, rng: np.random.Generator) -> None:
    """Swap a card between two other players' hands (cards the observer does
    not know): the observer's vector must not change."""
    n = g.config.num_players
    if n < 3:
        return
    observer = int(rng.integers(n))
    a, b = [s for s in range(n) if s != observer][:2]
    known_a = g.known[observer][a]
    known_b = g.known[observer][b]
    hidden_a = [c for c in bits(g.hands[a]) if not known_a >> c & 1]
    hidden_b = [c for c in bits(g.hands[b]) if not known_b >> c & 1]
    if not hidden_a or not hidden_b:
        return
    swapped = copy.deepcopy(g)
    ca, cb = hidden_a[0], hidden_b[0]
    swapped.hands[a] ^= (1 << ca) | (1 << cb)
    swapped.hands[b] ^= (1 << ca) | (1 << cb)
    before, after = AstrobirdzObserver(n), AstrobirdzObserver(n)
    before.rebuild(g)
    after.rebuild(swapped)
    assert np.array_equal(before.encode(observer), after.encode(observer))


def play_checked(
    options: dict,
    seed: int,
    policy_seed: int,
    deep: bool = False,
    share: float = 1.0,
    engine: str = "compiled",
) -> None:
    env = astrobirdz_v0.env(**options, engine=engine)
    env.reset(seed=seed)
    rng = np.random.default_rng(policy_seed)
    reference = AstrobirdzObserver(options["num_players"])
    g = game(env)
    totals = [0] * options["num_players"]
    turns_scored = 0
    for _ in env.agent_iter():
        check_state(env, reference, rng, deep, share)
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        turn = g.turn
        env.step(random_action(observation, rng))
        if g.turn != turn or g.over:
            turns_scored += 1
            totals = [t + item.total for t, item in zip(totals, g.last_turn, strict=True)]
            assert min(item.total for item in g.last_turn) >= 0
    assert g.over and turns_scored == data.TURNS[options["num_players"]]
    assert g.scores_ == totals
    assert env.unwrapped.winners == [
        f"player_{s}" for s in range(len(totals)) if totals[s] == max(totals)
    ]


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=12)
@given(OPTIONS, st.integers(0, 2**31), st.integers(0, 2**31))
def test_random_games_keep_every_invariant(engine, options, seed, policy_seed):
    play_checked(options, seed, policy_seed, engine=engine)


@pytest.mark.parametrize(
    ("players", "engine"),
    [(players, "python") for players in (2, 3, 4, 5, 6)]
    + [(players, "compiled") for players in (2, 3, 4)],
)
def test_every_legal_action_applies_and_every_other_is_refused(players, engine):
    """Every player count on the Python engine; on the compiled one the counts
    up to 4 (each refusal asks a Python copy for its words: slow at 5-6 seats,
    and the cross-check compares the legal actions at every decision there)."""
    options = {"num_players": players, "pass_cards": players % 2 == 0}
    play_checked(options, players, 1, deep=True, engine=engine)


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=2000)
@given(OPTIONS, st.integers(0, 2**31), st.integers(0, 2**31))
def test_thousands_of_random_games_keep_every_invariant(engine, options, seed, policy_seed):
    play_checked(options, seed, policy_seed, share=0.2, engine=engine)


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=60)
@given(OPTIONS, st.integers(0, 2**31), st.integers(0, 2**31))
def test_many_games_checked_action_by_action(engine, options, seed, policy_seed):
    play_checked(options, seed, policy_seed, deep=True, engine=engine)


# ---- observations inside their Box ------------------------------------------------------


def samples(players: int) -> list[dict]:
    """Every option sample of the env, and one with ages, for ``players`` seats."""
    return [{**o, "num_players": players} for o in OPTION_SAMPLES] + [
        {"num_players": players, "ages": ages_sample(players)}
    ]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_observations_stay_in_their_box_in_every_option_sample(players):
    rng = np.random.default_rng(players)
    for options in samples(players):
        env = astrobirdz_v0.env(**options)
        env.reset(seed=int(rng.integers(1 << 30)))
        space = env.observation_space("player_0")
        for _ in env.agent_iter():
            for agent in env.possible_agents:
                assert space.contains(env.observe(agent)), (options, agent)
            observation, _, terminated, truncated, _ = env.last()
            env.step(None if terminated or truncated else random_action(observation, rng))


@pytest.mark.parametrize(
    ("players", "trump", "turn", "options", "largest"),
    [
        (2, "P3", 5, {}, 8),  # 5 cards + 3 drawn
        (4, "P3", 6, {}, 9),
        (5, "P3", 7, {}, 10),  # 7 + 3: the largest hand of any game
        (6, "P3", 8, {}, 8),  # the deck allows no extra card
        (4, "R3", 6, {"trump_rules": False}, 6),  # no rule card draws extra cards
    ],
)
def test_hand_size_and_tricks_are_scaled_by_the_largest_hand_of_the_configuration(
    players, trump, turn, options, largest
):
    env = table(players, trump=trump, turn=turn, scores={0: 10**6}, **options)
    g = game(env)
    assert g.hand_size == largest == g.config.max_hand
    assert observation_field(env, 1, "hand_size")[0] == 1.0
    assert observation_field(env, 1, "scores")[players - 1] == 1.0  # player_0, capped
    space = env.observation_space("player_0")
    rng = np.random.default_rng(0)
    while g.turn == turn and not g.over:  # the last turn: play it out
        for agent in env.possible_agents:
            assert space.contains(env.observe(agent))
        env.step(random_action(env.last()[0], rng))
    held = [item.tricks for item in g.last_turn]
    assert sum(held) == largest


def test_invariant_violations_name_what_the_rules_find_wrong():
    env = astrobirdz_v0.env(num_players=3)
    env.reset(seed=5)
    random_steps(env, np.random.default_rng(5), 20)
    g = env.unwrapped.astrobirdz
    assert g.invariant_violations() == []
    broken = copy.deepcopy(g)
    card = bits(broken.hands[0])[0] if broken.hands[0] else broken.deck[0]
    broken.hands[1] |= 1 << card  # a card in two places
    found = broken.invariant_violations()
    assert found[0].startswith("cards: ") and any("game.hands[1]" in f for f in found)
    broken = copy.deepcopy(g)
    broken.scores_[2] = -4
    top = data.MAX_SCORE + g.turn * data.MAX_TURN_POINTS
    assert broken.invariant_violations() == [
        f"game.scores[2]: -4 is not allowed; allowed: a whole number 0..{top} (1,000,000 and "
        f"{data.MAX_TURN_POINTS} a turn, at turn {g.turn})"
    ]
