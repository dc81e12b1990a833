"""The compiled Asrus engine and bot play exactly as the Python ones (rules.py, bots.py).

Every player count (3-9) and every option sample of the env that count allows,
random games compared at every decision (see asrus_crosscheck.py), half of them
from a scenario with points and a deposit at random; the ``slow`` version plays
100,000 games. The env tests check the AEC loop itself: observations, masks,
rewards, views, text and saved states the same with either engine, a state
saved by one loaded into the other; the bot tests check that the compiled
heuristic makes the Python heuristic's choice at every decision.
"""

from __future__ import annotations

import copy
import json
import pickle
import warnings

import numpy as np
import pytest
from asrus_crosscheck import cross_check, option_configs
from compiled_helpers import play_envs_side_by_side, require_compiled

from flockgym.envs.asrus.bots import AsrusHeuristicBot
from flockgym.envs.asrus.env import parallel_env, raw_env
from flockgym.envs.asrus.native import NativeAsrusGame, NativeHeuristicBot
from flockgym.envs.asrus.rules import AsrusConfig, AsrusGame
from flockgym.envs.core import compiled
from flockgym.envs.core.bots import bot_move
from flockgym.envs.core.compiled import CompiledEngineWarning
from flockgym.envs.core.rng import make_rng

CASES = [case for players in range(3, 10) for case in option_configs(players)]
IDS = [label for label, _ in CASES]
FAST_GAMES = 60
"""Games per player count and option sample (2,400 in all)."""


require_compiled("asrus")


def test_every_player_count_and_option_sample_is_covered() -> None:
    assert {config.num_players for _, config in CASES} == set(range(3, 10))
    assert len(CASES) * FAST_GAMES >= 2000
    configs = [config for _, config in CASES]
    for name, values in (
        ("jokers", {True, False}),
        ("elimination", {True, False}),
        ("retrogrades", {"once", "cancel"}),
        ("retrograde_deposit", {"closest", "farthest"}),
        ("majority_ties", {"none", "all"}),
    ):
        assert {getattr(c, name) for c in configs} == values, name
    assert any(c.rounds is None for c in configs) and any(c.removed for c in configs)


@pytest.mark.parametrize(("label", "config"), CASES, ids=IDS)
def test_random_games_match_every_decision(label: str, config: AsrusConfig) -> None:
    for seed in range(FAST_GAMES):
        cross_check(config, seed, scenario=seed % 2 == 1)


SLOW_GAMES = 100_000 // len(CASES) + 1


@pytest.mark.slow
@pytest.mark.parametrize(("label", "config"), CASES, ids=IDS)
def test_a_hundred_thousand_random_games_match_every_decision(
    label: str, config: AsrusConfig
) -> None:
    for seed in range(SLOW_GAMES):
        cross_check(config, 50_000 + seed, scenario=seed % 2 == 1)


def _play_both(options: dict, seed: int) -> int:
    """The AEC loop on both engines side by side: the same observation, mask,
    reward, termination, selection and view at every step, the same text and
    saved state; every 40 steps the compiled env loads the Python env's saved
    state and goes on."""
    envs = [raw_env(**options, engine=engine) for engine in ("python", "compiled")]
    for env in envs:
        env.reset(seed=seed)
    assert isinstance(envs[0].game, AsrusGame)
    assert isinstance(envs[1].game, NativeAsrusGame)
    return play_envs_side_by_side(
        envs,
        seed,
        viewers_at=lambda steps: (
            envs[0].possible_agents if steps % 7 == 0 else [envs[0].agent_selection]
        ),
        render_every=11,
        save_every=40,
    )


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 5},
        {"num_players": 3, "reward": "score", "rounds": 3, "elimination": False},
        {"num_players": 9, "reward": "rank", "jokers": True, "retrogrades": "cancel"},
        {"num_players": 8, "reward": "score", "rounds": None, "target": 80},
        {"num_players": 4, "hand_size": 3, "removed_numbers": [4, 8, 12], "rounds": 5,
         "starting_points": 5, "majority_ties": "all", "retrograde_deposit": "farthest"},
    ],
)  # fmt: skip
def test_the_env_plays_the_same_with_either_engine(options: dict) -> None:
    for seed in range(3):
        assert _play_both(options, seed) >= options["num_players"]


def test_the_parallel_env_plays_the_same_with_either_engine() -> None:
    envs = [parallel_env(num_players=6, rounds=2, engine=e) for e in ("python", "compiled")]
    results = [env.reset(seed=4) for env in envs]
    draws = np.random.default_rng(4)
    while envs[0].agents:
        observations = [r[0] for r in results]
        for agent in envs[0].agents:
            for key in ("observation", "action_mask"):
                assert np.array_equal(observations[0][agent][key], observations[1][agent][key])
        actions = {}
        for agent in envs[0].agents:
            legal = np.flatnonzero(observations[0][agent]["action_mask"])
            actions[agent] = int(legal[draws.integers(len(legal))])
        results = [env.step(dict(actions)) for env in envs]
        assert results[0][1:] == results[1][1:]
    assert envs[0].scores == envs[1].scores
    assert envs[0].game.to_dict() == envs[1].game.to_dict()


def test_the_compiled_engine_is_the_default() -> None:
    env = raw_env()
    env.reset(seed=0)
    assert env.options["engine"] == "compiled" and env.native
    assert isinstance(env.game, NativeAsrusGame)
    assert isinstance(env.asrus, AsrusGame)  # a Python snapshot of the state, to read
    assert env.asrus.to_dict() == env.game.to_dict()


def test_scenarios_and_a_reset_without_a_seed_agree() -> None:
    scenario = {
        "hands": {"player_0": ["1", "15", "8"]},
        "specials": {"player_1": ["M", "R"]},
        "destination": "9",
        "stones": {"player_2": 3},
        "deposit": 7,
    }
    envs = [raw_env(engine=engine, hand_size=3) for engine in ("python", "compiled")]
    for env in envs:
        env.reset(seed=5, options=scenario)
    assert isinstance(envs[1].game, NativeAsrusGame)
    for agent in envs[0].possible_agents:
        assert np.array_equal(
            envs[0].observe(agent)["observation"], envs[1].observe(agent)["observation"]
        )
    assert envs[0].game.to_dict() == envs[1].game.to_dict()
    for env in envs:
        env.reset()  # the previous game's generator goes on
    assert envs[0].game.to_dict() == envs[1].game.to_dict()


def test_an_illegal_action_is_refused_with_the_python_engines_words() -> None:
    config = AsrusConfig()
    py = AsrusGame.new(config, make_rng(1))
    nat = NativeAsrusGame.new(config, make_rng(1))
    illegal = next(a for a in range(195) if a not in py.legal_actions())
    errors = []
    for game in (py, nat):
        for action in (illegal, 195, -1):
            with pytest.raises(ValueError) as caught:
                game.apply_action(action)
            errors.append(str(caught.value))
    assert errors[:3] == errors[3:] and "illegal Asrus action" in errors[0]
    assert nat.to_dict() == py.to_dict()  # the refusals changed nothing


def test_a_copied_or_pickled_compiled_game_goes_on_alike() -> None:
    game = NativeAsrusGame.new(AsrusConfig(num_players=4, rounds=2), make_rng(3))
    draws = np.random.default_rng(3)
    for _ in range(10):
        game.apply_action(game.legal_actions()[int(draws.integers(len(game.legal_actions())))])
    twins = [game.copy(), copy.deepcopy(game), pickle.loads(pickle.dumps(game))]
    while not game.is_over():
        action = game.legal_actions()[int(draws.integers(len(game.legal_actions())))]
        for g in (game, *twins):
            g.apply_action(action)
    assert all(json.dumps(t.to_dict()) == json.dumps(game.to_dict()) for t in twins)


def test_without_the_extension_the_python_engine_runs_and_says_so_once(monkeypatch) -> None:
    monkeypatch.setattr(compiled, "_loaded", {})

    def missing(name: str) -> None:
        raise ImportError(f"No module named {name!r}")

    monkeypatch.setattr(compiled.importlib, "import_module", missing)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = raw_env(engine="compiled")
        second = raw_env(engine="compiled")
    first.reset(seed=0)
    assert not first.native and not second.native
    assert isinstance(first.game, AsrusGame)
    assert len([w for w in caught if issubclass(w.category, CompiledEngineWarning)]) == 1
    with pytest.raises(RuntimeError, match="allowed: engine='python'"):
        NativeHeuristicBot(seed=0)


def _bots_side_by_side(options: dict, seed: int, heuristic_seats: int) -> int:
    """Python heuristic bots on the Python env, compiled ones on a compiled engine
    from the same seeds (random play at the other seats): the same action at
    every decision."""
    env = raw_env(**options, engine="python")
    env.reset(seed=seed)
    game = NativeAsrusGame.from_python(env.asrus)
    python_bots = [AsrusHeuristicBot(seed=100 + s) for s in range(heuristic_seats)]
    compiled_bots = [NativeHeuristicBot(seed=100 + s) for s in range(heuristic_seats)]
    draws = np.random.default_rng(seed)
    decisions = 0
    while env.agents and not (
        env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
    ):
        agent = env.agent_selection
        seat = env.seat_of(agent)
        observation = env.observe(agent)
        if seat < heuristic_seats:
            action = python_bots[seat].act(observation, env.view(agent))
            assert compiled_bots[seat].act_in(game) == action, f"seed {seed}, decision {decisions}"
        else:
            legal = np.flatnonzero(observation["action_mask"])
            action = int(legal[draws.integers(len(legal))])
        env.step(action)
        game.apply_action(action)
        decisions += 1
    assert game.to_dict() == env.game.to_dict()
    return decisions


@pytest.mark.parametrize(
    ("options", "heuristic_seats"),
    [
        ({"num_players": 5, "rounds": 3, "elimination": False}, 5),
        ({"num_players": 3, "jokers": True, "specials_per_player": 4, "rounds": 2}, 3),
        ({"num_players": 9, "jokers": True, "retrogrades": "cancel"}, 6),
        ({"num_players": 8, "rounds": None, "target": 100, "majority_ties": "all"}, 8),
        ({"num_players": 4, "hand_size": 3, "removed_numbers": [4, 8, 12], "rounds": 6}, 2),
        ({"num_players": 6, "specials_per_player": 0, "rounds": 2}, 6),
    ],
)
def test_the_compiled_heuristic_bot_makes_the_python_bots_choices(
    options: dict, heuristic_seats: int
) -> None:
    for seed in range(4):
        assert _bots_side_by_side(options, seed, heuristic_seats) > 0


def test_act_on_table_answers_only_on_the_compiled_engine() -> None:
    envs = [raw_env(engine=engine) for engine in ("python", "compiled")]
    for env in envs:
        env.reset(seed=2)
    bot = AsrusHeuristicBot(seed=0)
    agent = envs[0].agent_selection
    assert bot.act_on_table(envs[0], agent) is None
    other = next(a for a in envs[1].possible_agents if a != agent)
    assert bot.act_on_table(envs[1], other) is None  # not that seat's turn
    twin = AsrusHeuristicBot(seed=0)
    assert bot.act_on_table(envs[1], agent) == twin.act(envs[0].observe(agent), envs[0].view(agent))


def test_a_copied_heuristic_bot_goes_on_as_the_original() -> None:
    """A bot that has answered through the compiled bot deep-copies and pickles
    (its generator goes along): both copies then choose alike."""
    env = raw_env(num_players=4, rounds=3, elimination=False)
    env.reset(seed=6)
    bot = AsrusHeuristicBot(seed=3)
    for _ in range(20):
        env.step(bot_move(bot, env, env.agent_selection))
    twins = [copy.deepcopy(bot), pickle.loads(pickle.dumps(bot))]
    for _ in range(40):
        agent = env.agent_selection
        action = bot_move(bot, env, agent)
        assert all(bot_move(twin, env, agent) == action for twin in twins)
        env.step(action)


def test_the_search_bot_plays_the_same_game_on_either_engine() -> None:
    """Its rollouts ask the heuristic through ``act_on_table``: on the compiled
    engine the compiled bot answers, with the Python bot's choices, and its
    resampler redeals a Python copy of the same state, so a search with a
    budget of simulations plays the same moves."""
    from flockgym.bots.policies import make_participant
    from flockgym.envs import make
    from flockgym.envs.core.play import play_game

    finals = []
    for engine in ("python", "compiled"):
        options = {"num_players": 3, "engine": engine, "hand_size": 5}
        search = make_participant("search:budget=6", "asrus_v0", options)
        heuristic = make_participant("heuristic", "asrus_v0", options)
        env = make("asrus_v0", **options)
        bots = {"player_0": search.new_bot(1)}
        bots.update({a: heuristic.new_bot(2 + i) for i, a in enumerate(env.possible_agents[1:])})
        play_game(env, bots, seed=4)
        finals.append(env.unwrapped.game.to_dict())
    assert finals[0] == finals[1]
