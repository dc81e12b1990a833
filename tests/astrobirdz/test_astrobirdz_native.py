"""The compiled Astrobirdz engine plays exactly as the Python one (rules.py).

Every player count (2-6) and option sample of the env, random games compared at
every decision (see astrobirdz_crosscheck.py): by default 2,604 one-turn games
(dealt at the last turn, the longest hands; half of them with a chosen trump
card, so that every rule card turns up) and two full games per case; the
``slow`` version plays 100,000 games. The env tests check the AEC loop itself:
observations, masks, rewards and saved states the same with either engine, a
state saved by one loaded into the other.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from astrobirdz_crosscheck import cross_check, option_configs
from compiled_helpers import play_envs_side_by_side, require_compiled

from flockgym.envs.astrobirdz.bots import AstrobirdzHeuristicBot
from flockgym.envs.astrobirdz.env import raw_env
from flockgym.envs.astrobirdz.native import NativeAstrobirdzGame, NativeHeuristicBot
from flockgym.envs.astrobirdz.rules import AstrobirdzGame
from flockgym.envs.core import compiled
from flockgym.envs.core.compiled import CompiledEngineWarning

CASES = [case for players in (2, 3, 4, 5, 6) for case in option_configs(players)]
IDS = [label for label, _ in CASES]
FAST_GAMES = {2: 160, 3: 108, 4: 72, 5: 54, 6: 40}
"""One-turn games per option sample, by player count (2,604 in all, plus two
full games per sample); each sample of a player count takes the next seeds, so
the chosen trump cards cover all 54 in every player count."""


def _first_seed(label: str, players: int) -> int:
    """Where the one-turn games of a case start: after those of the same player
    count's earlier samples."""
    same = [lab for lab, config in CASES if config.num_players == players]
    return same.index(label) * FAST_GAMES[players]


require_compiled("astrobirdz")


@pytest.mark.parametrize(("label", "config"), CASES, ids=IDS)
def test_one_turn_random_games_match_every_decision(label: str, config) -> None:
    start = _first_seed(label, config.num_players)
    for seed in range(start, start + FAST_GAMES[config.num_players]):
        cross_check(config, seed, turn=config.turns)


@pytest.mark.parametrize(("label", "config"), CASES, ids=IDS)
def test_a_full_random_game_matches_every_decision(label: str, config) -> None:
    for seed in (10_000, 10_001):
        cross_check(config, seed)


SLOW_GAMES = 100_000 // len(CASES) + 1


@pytest.mark.slow
@pytest.mark.parametrize(("label", "config"), CASES, ids=IDS)
def test_a_hundred_thousand_random_games_match_every_decision(label: str, config) -> None:
    for seed in range(20_000, 20_000 + SLOW_GAMES):
        cross_check(config, seed, turn=None if seed % 5 == 0 else 1 + seed % config.turns)


def test_every_rule_card_comes_up_in_the_fast_games() -> None:
    """The fast games' chosen trump cards (odd seeds: card ``seed // 2`` mod 54)
    cover all 54 rule cards at every player count."""
    for players in (2, 3, 4, 5, 6):
        cards = {
            (seed // 2) % 54
            for label, config in CASES
            if config.num_players == players
            for seed in range(
                _first_seed(label, players), _first_seed(label, players) + FAST_GAMES[players]
            )
            if seed % 2
        }
        assert cards == set(range(54)), players


def _play_both(options: dict, seed: int) -> int:
    """The AEC loop on both engines side by side: the same observation, mask,
    reward, termination, selection and view at every step (the compiled env's
    views read its mirror, brought up to date at each), the same saved
    state; now and then the compiled env loads the Python env's saved state
    and goes on."""
    envs = [raw_env(**options, engine=engine) for engine in ("python", "compiled")]
    for env in envs:
        env.reset(seed=seed)
    assert isinstance(envs[0].game, AstrobirdzGame)
    assert isinstance(envs[1].game, NativeAstrobirdzGame)
    return play_envs_side_by_side(
        envs,
        seed,
        viewers_at=lambda steps: (
            envs[0].possible_agents if steps % 40 == 0 else [envs[0].agent_selection]
        ),
        render_every=40,
        save_every=60,
    )


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 4},
        {"num_players": 2, "reward": "score", "pass_cards": True},
        {"num_players": 5, "reward": "rank", "green_7": "never_beaten_by_trump"},
        {"num_players": 6, "berzerkerbirdz": False, "highest_bonus_ties": "all"},
    ],
)
def test_the_env_plays_the_same_with_either_engine(options: dict) -> None:
    assert _play_both(options, seed=3) > 50


def test_a_scenario_deals_the_same_in_either_engine() -> None:
    scenario = {"trump": "O3", "turn": 4, "berzerkers": {"player_0": "nitro"}}
    envs = [raw_env(engine=engine) for engine in ("python", "compiled")]
    for env in envs:
        env.reset(seed=5, options=scenario)
    assert isinstance(envs[1].game, NativeAstrobirdzGame)
    for agent in envs[0].possible_agents:
        assert np.array_equal(
            envs[0].observe(agent)["observation"], envs[1].observe(agent)["observation"]
        )
        assert envs[0].view(agent) == envs[1].view(agent)


def test_an_illegal_action_is_refused_as_by_the_python_engine() -> None:
    py = AstrobirdzGame.new(raw_env().config, np.random.default_rng(1))
    nat = NativeAstrobirdzGame.from_python(py)
    with pytest.raises(ValueError) as expected:
        py.apply_action(999)
    with pytest.raises(ValueError) as got:
        nat.apply_action(999)
    assert str(got.value) == str(expected.value)
    assert nat.to_dict() == py.to_dict()


def test_a_copy_and_a_pickle_play_on_independently() -> None:
    import pickle

    env = raw_env(engine="compiled")
    env.reset(seed=2)
    game = env.game
    assert isinstance(game, NativeAstrobirdzGame)
    twin = pickle.loads(pickle.dumps(game))
    copied = game.copy()
    game.apply_action(game.legal_actions()[0])
    assert twin.to_dict() == copied.to_dict() != game.to_dict()


def test_without_the_extension_the_python_engine_runs_and_says_so_once(monkeypatch) -> None:
    monkeypatch.setitem(compiled._loaded, "astrobirdz", None)
    monkeypatch.delitem(compiled._loaded, "astrobirdz")
    real_import = compiled.importlib.import_module

    def refuse(name: str):  # type: ignore[no-untyped-def]
        if name.endswith("astrobirdz._native"):
            raise ImportError("no compiler here")
        return real_import(name)

    monkeypatch.setattr(compiled.importlib, "import_module", refuse)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        envs = [raw_env(), raw_env(engine="compiled"), raw_env()]  # the default: compiled
    assert [type(w.message) for w in caught] == [CompiledEngineWarning]
    assert "no compiler here" in str(caught[0].message)
    for env in envs:
        env.reset(seed=1)
        assert isinstance(env.game, AstrobirdzGame)


def test_the_compiled_engine_is_the_default_and_the_python_one_selectable() -> None:
    games = []
    for options in ({}, {"engine": "compiled"}, {"engine": "python"}):
        env = raw_env(num_players=3, **options)
        env.reset(seed=6)
        games.append(env.game)
    assert [type(g) for g in games] == [NativeAstrobirdzGame, NativeAstrobirdzGame, AstrobirdzGame]
    assert games[0].to_dict() == games[2].to_dict()


def _bots_agree(options: dict, seed: int) -> int:
    """bots.py's heuristic (reading the view and the mask of the Python env) and
    the compiled one (reading the compiled engine) at every decision of a game
    played by the Python bot, both seeded alike; returns the decisions."""
    envs = [raw_env(**options, engine=engine) for engine in ("python", "compiled")]
    for env in envs:
        env.reset(seed=seed)
    reference, compiled_bot = AstrobirdzHeuristicBot(seed), NativeHeuristicBot(seed)
    decisions = 0
    while envs[0].agents:
        agent = envs[0].agent_selection
        observation, _, terminated, truncated, _ = envs[0].last()
        if terminated or truncated:
            for env in envs:
                env.step(None)
            continue
        expected = reference.act(observation, envs[0].view(agent))
        got = compiled_bot.act_in(envs[1].game)
        assert got == expected, f"seed {seed}, decision {decisions}: {got} != {expected}"
        for env in envs:
            env.step(expected)
        decisions += 1
    return decisions


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("sample", range(6))
def test_the_compiled_heuristic_bot_chooses_as_bots_py(players: int, sample: int) -> None:
    options = {"num_players": players, **raw_env.option_samples_for(players)[sample]}
    for seed in range(2):
        assert _bots_agree(options, 100 * sample + seed) > 10


def test_resampling_a_compiled_game_redeals_as_on_the_python_engine() -> None:
    """The search bot's resampler redeals a Python copy of a compiled game and
    hands back a compiled game: the same redeal from the same draws as on the
    Python engine, the resampling seat's observation unchanged."""
    from flockgym.envs.astrobirdz.resample import resample

    envs = [raw_env(num_players=4, engine=engine) for engine in ("python", "compiled")]
    for env in envs:
        env.reset(seed=8)
    draws = np.random.default_rng(8)
    for _ in range(12):
        legal = np.flatnonzero(envs[0].observe(envs[0].agent_selection)["action_mask"])
        action = int(legal[draws.integers(len(legal))])
        for env in envs:
            env.step(action)
    seat = int(envs[0].agent_selection.split("_")[1])
    before = envs[1].observe(envs[1].agent_selection)["observation"]
    for env in envs:
        resample(env, seat, np.random.default_rng(99))
    assert isinstance(envs[1].game, NativeAstrobirdzGame)
    assert envs[1].game.to_dict() == envs[0].game.to_dict()
    assert np.array_equal(envs[1].observe(envs[1].agent_selection)["observation"], before)


def test_a_compiled_game_answers_the_python_engines_state_attributes() -> None:
    env = raw_env(num_players=3, engine="compiled")
    env.reset(seed=4)
    game = env.game
    assert isinstance(game, NativeAstrobirdzGame)
    python = game.to_python()
    for name in ("turn", "hands", "guess_order", "known", "last_turn", "rule", "previous_trick"):
        assert getattr(game, name) == getattr(python, name), name
    game.hands[0] = 0  # a copy: the compiled state is untouched
    assert game.hands == python.hands
    with pytest.raises(AttributeError, match="no attribute 'events'"):
        game.events  # noqa: B018


@pytest.mark.parametrize(
    "scenario",
    [{"trump": 0}, {"turn": 3}, {"turn": 2, "berzerkers": {1: 6}}, {"scores": {0: 0}}, {}],
    ids=["red-1-trump", "turn-only", "bird-placed", "zero-score", "none"],
)
def test_new_deals_a_scenario_as_the_python_engine(scenario: dict) -> None:
    """Regression: a scenario whose only value is falsy (trump card 0, R1) was
    dealt by the compiled engine as no scenario at all."""
    config = raw_env(num_players=3).config
    py = AstrobirdzGame.new(config, np.random.default_rng(6), **scenario)
    nat = NativeAstrobirdzGame.new(config, np.random.default_rng(6), **scenario)
    assert nat.to_dict() == py.to_dict()


def test_act_on_table_answers_only_on_the_compiled_engine() -> None:
    envs = [raw_env(engine=engine) for engine in ("python", "compiled")]
    for env in envs:
        env.reset(seed=2)
    bot = AstrobirdzHeuristicBot(seed=0)
    agent = envs[0].agent_selection
    assert bot.act_on_table(envs[0], agent) is None
    other = next(a for a in envs[1].possible_agents if a != agent)
    assert bot.act_on_table(envs[1], other) is None  # not that seat's turn
    twin = AstrobirdzHeuristicBot(seed=0)
    assert bot.act_on_table(envs[1], agent) == twin.act(envs[0].observe(agent), envs[0].view(agent))


def test_the_compiled_heuristic_bot_copies_and_pickles_with_its_generator() -> None:
    import copy
    import pickle

    env = raw_env(num_players=4)
    env.reset(seed=3)
    bot = NativeHeuristicBot(seed=5)
    twins = [pickle.loads(pickle.dumps(bot)), copy.deepcopy(bot)]
    assert all(t.bot.rng_state() == bot.bot.rng_state() for t in twins)
    assert {t.act_in(env.game) for t in twins} == {bot.act_in(env.game)}


def test_the_search_bot_plays_the_same_game_on_either_engine() -> None:
    """Its rollouts ask the heuristic through ``act_on_table``: on the compiled
    engine the compiled bot answers, with the Python bot's choices, so a
    search with a budget of simulations plays the same moves."""
    from flockgym.bots.policies import make_participant
    from flockgym.envs import make
    from flockgym.envs.core.play import play_game

    finals = []
    for engine in ("python", "compiled"):
        options = {"num_players": 3, "engine": engine}
        search = make_participant("search:budget=6", "astrobirdz_v0", options)
        heuristic = make_participant("heuristic", "astrobirdz_v0", options)
        env = make("astrobirdz_v0", **options)
        bots = {"player_0": search.new_bot(1), "player_1": heuristic.new_bot(2)}
        bots["player_2"] = heuristic.new_bot(3)
        play_game(env, bots, seed=4)
        finals.append(env.unwrapped.game.to_dict())
    assert finals[0] == finals[1]
