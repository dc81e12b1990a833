"""The compiled Skybirds engine plays exactly as the Python one (rules.py).

Every player count and option sample of the env, random games compared at
every decision (see skybirds_crosscheck.py): by default short Great Wars (at
most two Campaigns, half of them dealt with tokens already held) and a few
full-length ones; the ``slow`` version plays 100,000 games. The env tests
check the AEC loop itself: observations, masks, rewards and saved states the
same with either engine, a state saved by one loaded into the other.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from compiled_helpers import play_envs_side_by_side, require_compiled
from skybirds_crosscheck import cross_check, option_configs, short

from flockgym.envs.core import compiled
from flockgym.envs.core.bots import bot_move
from flockgym.envs.core.compiled import CompiledEngineWarning
from flockgym.envs.skybirds.bots import SkybirdsHeuristicBot
from flockgym.envs.skybirds.env import raw_env
from flockgym.envs.skybirds.native import NativeHeuristicBot, NativeSkybirdsGame
from flockgym.envs.skybirds.rules import SkybirdsGame

CASES = [case for players in (2, 3, 4) for case in option_configs(players)]
IDS = [label for label, _ in CASES]
FAST_GAMES = 120
"""Short games per player count and option sample (1,440 in all)."""


require_compiled("skybirds")


@pytest.mark.parametrize(("label", "config"), CASES, ids=IDS)
def test_short_random_games_match_every_decision(label: str, config) -> None:
    for seed in range(FAST_GAMES):
        cross_check(short(config, 2), seed, scenario=seed % 2 == 1)


@pytest.mark.parametrize(("label", "config"), CASES, ids=IDS)
def test_full_length_random_games_match_every_decision(label: str, config) -> None:
    for seed in range(2):
        cross_check(config, 10_000 + seed, scenario=seed == 1)


SLOW_GAMES = 100_000 // len(CASES) + 1


@pytest.mark.slow
@pytest.mark.parametrize(("label", "config"), CASES, ids=IDS)
def test_a_hundred_thousand_random_games_match_every_decision(label: str, config) -> None:
    for seed in range(SLOW_GAMES):
        cross_check(short(config, 1 + seed % 4), 20_000 + seed, scenario=seed % 2 == 1)


def _play_both(options: dict, seed: int) -> int:
    """The AEC loop on both engines side by side: the same observation, mask,
    reward, termination, selection and view at every step, the same text and
    saved state;
    midway the compiled env loads the Python env's saved state and goes on."""
    envs = [raw_env(**options, engine=engine) for engine in ("python", "compiled")]
    for env in envs:
        env.reset(seed=seed)
    assert isinstance(envs[0].game, SkybirdsGame)
    assert isinstance(envs[1].game, NativeSkybirdsGame)
    return play_envs_side_by_side(
        envs,
        seed,
        viewers_at=lambda steps: (
            envs[0].possible_agents if steps % 25 == 0 else [envs[0].agent_selection]
        ),
        render_every=100,
        save_every=150,
    )


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 4},
        {"num_players": 2, "reward": "score", "short_game": True},
        {"num_players": 3, "reward": "rank", "armistice_ends": "campaign", "max_campaigns": 4},
        {"num_players": 4, "tokens_per_turn": "one", "reward": "score"},
    ],
)
def test_the_env_plays_the_same_with_either_engine(options: dict) -> None:
    assert _play_both(options, seed=3) > 100


def test_scenarios_and_a_reset_without_a_seed_agree() -> None:
    scenario = {"hands": {"player_0": ["G", "4", "4"]}, "tokens": {"player_1": {"B3": "front"}}}
    envs = [raw_env(engine=engine) for engine in ("python", "compiled")]
    for env in envs:
        env.reset(seed=5, options=scenario)
    assert envs[0].observe("player_0")["observation"].tolist() == (
        envs[1].observe("player_0")["observation"].tolist()
    )
    for env in envs:
        env.reset()  # the previous game's generator goes on
    assert envs[0].game.to_dict() == envs[1].game.to_dict()


def test_an_illegal_action_is_refused_with_the_python_engines_words() -> None:
    from flockgym.envs.core.rng import make_rng
    from flockgym.envs.skybirds.rules import SkybirdsConfig

    config = SkybirdsConfig()
    py = SkybirdsGame.new(config, make_rng(1))
    nat = NativeSkybirdsGame.new(config, make_rng(1))
    errors = []
    for game in (py, nat):
        with pytest.raises(ValueError) as caught:
            game.apply_action(79 if 79 not in game.legal_actions() else 0)
        errors.append(str(caught.value))
    assert errors[0] == errors[1] and "illegal action" in errors[0]
    assert nat.to_dict() == py.to_dict()  # the refusal changed nothing


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
    assert isinstance(first.game, SkybirdsGame)
    assert len([w for w in caught if issubclass(w.category, CompiledEngineWarning)]) == 1


def _bots_side_by_side(options: dict, seed: int, heuristic_seats: int) -> int:
    """Python heuristic bots on the Python env, compiled ones on a compiled engine
    from the same seeds (random play at the other seats): the same action at
    every decision."""
    env = raw_env(**options)
    env.reset(seed=seed)
    game = NativeSkybirdsGame.from_python(env.skybirds)
    python_bots = [SkybirdsHeuristicBot(seed=100 + s) for s in range(heuristic_seats)]
    compiled_bots = [NativeHeuristicBot(seed=100 + s) for s in range(heuristic_seats)]
    draws = np.random.default_rng(seed)
    decisions = 0
    while env.agents and not (env.terminations[env.agent_selection] or
                              env.truncations[env.agent_selection]):  # fmt: skip
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
        ({"num_players": 4, "max_campaigns": 6}, 4),
        ({"num_players": 2, "max_campaigns": 8, "short_game": True}, 1),
        ({"num_players": 3, "max_campaigns": 6, "tokens_per_turn": "one"}, 2),
        ({"num_players": 4, "max_campaigns": 6, "armistice_ends": "campaign"}, 2),
    ],
)
def test_the_compiled_heuristic_bot_makes_the_python_bots_choices(
    options: dict, heuristic_seats: int
) -> None:
    for seed in range(2):
        assert _bots_side_by_side(options, seed, heuristic_seats) > 50


def test_the_search_bot_plays_the_same_game_on_either_engine() -> None:
    """Its rollouts ask the heuristic through ``act_on_table``: on the compiled
    engine the compiled bot answers, with the Python bot's choices, so a
    search with a budget of simulations plays the same moves."""
    from flockgym.bots.policies import make_participant
    from flockgym.envs import make
    from flockgym.envs.core.play import play_game

    finals = []
    for engine in ("python", "compiled"):
        options = {"num_players": 2, "engine": engine, "max_campaigns": 2}
        search = make_participant("search:budget=6", "skybirds_v0", options)
        heuristic = make_participant("heuristic", "skybirds_v0", options)
        env = make("skybirds_v0", **options)
        bots = {"player_0": search.new_bot(1), "player_1": heuristic.new_bot(2)}
        play_game(env, bots, seed=4)
        finals.append(env.unwrapped.game.to_dict())
    assert finals[0] == finals[1]


def test_act_on_table_answers_only_on_the_compiled_engine() -> None:
    envs = [raw_env(engine=engine) for engine in ("python", "compiled")]
    for env in envs:
        env.reset(seed=2)
    bot = SkybirdsHeuristicBot(seed=0)
    agent = envs[0].agent_selection
    assert bot.act_on_table(envs[0], agent) is None
    other = next(a for a in envs[1].possible_agents if a != agent)
    assert bot.act_on_table(envs[1], other) is None  # not that seat's turn
    twin = SkybirdsHeuristicBot(seed=0)
    assert bot.act_on_table(envs[1], agent) == twin.act(envs[0].observe(agent), envs[0].view(agent))


def test_a_copied_heuristic_bot_goes_on_as_the_original() -> None:
    """A bot that has answered through the compiled bot deep-copies and pickles
    (its generator and plan go along): both copies then choose alike."""
    import copy
    import pickle

    env = raw_env(engine="compiled", num_players=2)
    env.reset(seed=6)
    bot = SkybirdsHeuristicBot(seed=3)
    for _ in range(40):
        env.step(bot_move(bot, env, env.agent_selection))
    twins = [copy.deepcopy(bot), pickle.loads(pickle.dumps(bot))]
    for _ in range(40):
        agent = env.agent_selection
        action = bot_move(bot, env, agent)
        assert all(bot_move(twin, env, agent) == action for twin in twins)
        env.step(action)
