"""The compiled Arena engine plays every decision as the Python engine does.

Random games at every player count (2-6) and every option set (the 16 of
``world_challenge`` x ``dark_matter`` x ``nova_invazorz`` x ``fifth_world``)
run side by side on :class:`.rules.ArenaGame` and
:class:`.native.CompiledArenaGame` from the same seed: the seat to act, the
legal actions and the full state dict (generator included) must be equal
after every step. Games also continue from a state saved as JSON, from
scenarios (characters given, later turns, forced dice), and through the
errors (an illegal action, a forced die the die cannot show), which must
change nothing. ``test_hundred_thousand_games`` (slow) plays 100,000 games.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from flockgym.envs import arena_v0
from flockgym.envs.arena.native import CompiledArenaGame
from flockgym.envs.arena.observer import ArenaObserver
from flockgym.envs.arena.rules import ArenaConfig, ArenaGame, ForcedDiceError, Scenario
from flockgym.envs.core.rng import make_rng
from tests.compiled_helpers import require_compiled

require_compiled("arena")

OPTION_SETS = [
    {"world_challenge": w, "dark_matter": d, "nova_invazorz": v, "fifth_world": f}
    for w, d, v, f in itertools.product(
        ("offset", "printed"), ("two", "medals"), ("turn_back", "become"), ("held", "won")
    )
]
PLAYERS = [2, 3, 4, 5, 6]


def twins(config: ArenaConfig, seed: int, scenario: Scenario | None = None):
    python = ArenaGame.new(config, make_rng(seed), scenario)
    return python, CompiledArenaGame.from_python(python)


def assert_same(python: ArenaGame, compiled: CompiledArenaGame, where: str) -> None:
    assert compiled.current_player() == python.current_player(), where
    assert compiled.legal_actions() == python.legal_actions(), where
    assert compiled.to_dict() == python.to_dict(), where


def play_side_by_side(
    python: ArenaGame,
    compiled: CompiledArenaGame,
    picker: np.random.Generator,
    full_state_every: int = 1,
    max_steps: int = 100_000,
    observer: ArenaObserver | None = None,
) -> int:
    """Random legal play on both; the state compared every ``full_state_every``
    steps (the legal actions at every step; with ``observer``, every seat's
    observation at every step). Returns the steps played."""
    steps = 0
    while not python.is_over() and steps < max_steps:
        legal = python.legal_actions()
        assert compiled.legal_actions() == legal, f"step {steps}"
        assert compiled.current_player() == python.current_player(), f"step {steps}"
        if steps % full_state_every == 0:
            assert compiled.to_dict() == python.to_dict(), f"step {steps}"
        if observer is not None:
            assert_same_observations(python, compiled, observer, f"step {steps}")
        action = legal[int(picker.integers(len(legal)))]
        python.apply_action(action)
        compiled.apply_action(action)
        steps += 1
    assert_same(python, compiled, f"after {steps} steps")
    assert compiled.is_over() == python.is_over()
    assert compiled.scores() == python.scores()
    assert compiled.winners() == python.winners()
    return steps


def assert_same_observations(
    python: ArenaGame, compiled: CompiledArenaGame, observer: ArenaObserver, where: str
) -> None:
    for seat in range(python.num_players):
        expected = observer.encode(python, seat)
        got = compiled.observation(seat)
        assert got.dtype == np.float32 and got.shape == expected.shape
        if not np.array_equal(got, expected):
            wrong = np.flatnonzero(got != expected)[:5].tolist()
            raise AssertionError(f"{where}: seat {seat}'s observation differs at {wrong}")


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("options", range(len(OPTION_SETS)))
def test_every_decision_and_state_match(players: int, options: int) -> None:
    """A whole game per player count and option set (wishes, deal, corners,
    first player, every turn to the end): the full state and every seat's
    observation after every step."""
    config = ArenaConfig(num_players=players, max_rounds=12, **OPTION_SETS[options])
    seed = 1000 * players + options
    python, compiled = twins(config, seed)
    observer = ArenaObserver(config.box, players)
    play_side_by_side(python, compiled, np.random.default_rng(seed), observer=observer)


@pytest.mark.parametrize("players", PLAYERS)
def test_thousands_of_games_match(players: int) -> None:
    """1,000 games per player count, the 16 option sets in turn and game lengths
    of 1-8 rounds (the Python engine's cost; the slow test plays whole games):
    the legal actions at every decision, the state every 25."""
    lengths = np.random.default_rng(players).integers(1, 9, 1000)
    for game in range(1000):
        options = OPTION_SETS[game % len(OPTION_SETS)]
        config = ArenaConfig(num_players=players, max_rounds=int(lengths[game]), **options)
        python, compiled = twins(config, 7919 * game + players)
        play_side_by_side(python, compiled, np.random.default_rng(game), full_state_every=25)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_a_game_continues_from_a_saved_state(players: int) -> None:
    """Saved as JSON at random points, loaded into the compiled engine, the game
    goes on as the Python one does (and the compiled state loads back into Python)."""
    config = ArenaConfig(num_players=players, max_rounds=20)
    picker = np.random.default_rng(players)
    for seed in range(6):
        python = ArenaGame.new(config, make_rng(seed))
        while not python.is_over():
            legal = python.legal_actions()
            python.apply_action(legal[int(picker.integers(len(legal)))])
            if picker.random() < 0.05:
                saved = json.loads(json.dumps(python.to_dict()))
                compiled = CompiledArenaGame.from_dict(saved, config)
                assert_same(python, compiled, "loaded")
                back = ArenaGame.from_dict(json.loads(json.dumps(compiled.to_dict())))
                assert back.to_dict() == python.to_dict()
                fork = np.random.default_rng(int(picker.integers(2**31)))
                twin = ArenaGame.from_dict(saved)
                play_side_by_side(twin, compiled, fork, full_state_every=5)


def test_scenarios_match() -> None:
    """Characters given (the board dealt at once), later turns, preset first
    players and forced dice, at every player count."""
    for players in PLAYERS:
        for seed in range(8):
            chars = {s: (3 * s + seed) % 18 for s in range(players)}
            if len(set(chars.values())) < players:
                continue
            dice = [int(x) for x in np.random.default_rng(seed).integers(1, 7, 30)]
            scenario = Scenario(
                characters=chars if seed % 2 else {0: chars[0]},
                turn=1 + seed % 3,
                first_player=None if seed % 4 < 2 else seed % players,
                dice=dice if seed % 3 == 0 else [],
            )
            config = ArenaConfig(num_players=players, max_rounds=15)
            python, compiled = twins(config, seed, scenario)
            play_side_by_side(python, compiled, np.random.default_rng(seed))


def other_box(tmp_path) -> str:
    """The shipped box with other numbers (option ``data``): more trophies and
    power cards, three challenge dice, trophies worth 3, lower medal levels,
    d9 Berzerkerbirdz and dark matter reading 1."""
    from flockgym.envs.arena.data import DEFAULT_PATH

    text = DEFAULT_PATH.read_text()
    for old, new in (
        ("trophies: 40 ", "trophies: 60 "),
        ("gym_power_cards: 2 ", "gym_power_cards: 3 "),
        ("challenge_dice: 4 ", "challenge_dice: 3 "),
        ("trophy_value: 2 ", "trophy_value: 3 "),
        ("dark_matter_value: 2", "dark_matter_value: 1"),
        ("maneuvers: 3, below: 1", "maneuvers: 2, below: 1"),
        ("movement: {astrobirdz: 6, berzerkerbirdz: 8", "movement: {astrobirdz: 6, berzerkerbirdz: 9"),  # noqa: E501
        ("challenge: {astrobirdz: 6, berzerkerbirdz: 8", "challenge: {astrobirdz: 6, berzerkerbirdz: 9"),  # noqa: E501
    ):  # fmt: skip
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path / "other_box.yaml"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_another_box_plays_the_same(players: int, tmp_path) -> None:
    """Option ``data``: the compiled engine reads every number from the box."""
    data = other_box(tmp_path)
    for game in range(4):
        options = OPTION_SETS[(5 * game + players) % len(OPTION_SETS)]
        config = ArenaConfig(num_players=players, max_rounds=15, data=data, **options)
        python, compiled = twins(config, 31 * game + players)
        observer = ArenaObserver(config.box, players)
        play_side_by_side(python, compiled, np.random.default_rng(game), observer=observer)


def test_new_builds_the_same_game_as_the_python_engine() -> None:
    """With a scenario the Python engine sets up; without one the C++ engine
    does (every seat to wish, the board in the box): the same game either way."""
    config = ArenaConfig(num_players=3)
    python = ArenaGame.new(config, make_rng(5), Scenario(turn=2))
    compiled = CompiledArenaGame.new(config, make_rng(5), Scenario(turn=2))
    assert_same(python, compiled, "new")
    for players in PLAYERS:
        for seed in range(4):
            options = OPTION_SETS[seed * 5 % len(OPTION_SETS)]
            config = ArenaConfig(num_players=players, max_rounds=6, **options)
            python = ArenaGame.new(config, make_rng(seed))
            compiled = CompiledArenaGame.new(config, make_rng(seed))
            assert_same(python, compiled, "new without a scenario")
            play_side_by_side(python, compiled, np.random.default_rng(seed))
    with pytest.raises(ValueError, match="max_rounds"):
        CompiledArenaGame.new(ArenaConfig(max_rounds=0), make_rng(0))


def test_an_impossible_forced_die_raises_the_same_error_and_changes_nothing() -> None:
    """A forced 7 waiting for the next d6 (or d8): every step that rolls no die
    goes on alike; the first that rolls raises the same words in both engines
    and leaves each state as it was."""
    game = ArenaGame.new(ArenaConfig(num_players=3), make_rng(1))
    picker = np.random.default_rng(1)
    while True:
        saved = game.to_dict()
        saved["forced"] = [9]
        python = ArenaGame.from_dict(saved)
        compiled = CompiledArenaGame.from_dict(saved)
        legal = python.legal_actions()
        action = legal[int(picker.integers(len(legal)))]
        try:
            python.apply_action(action)
        except ForcedDiceError as theirs:
            with pytest.raises(ForcedDiceError) as ours:
                compiled.apply_action(action)
            assert str(ours.value) == str(theirs)
            assert compiled.to_dict() == python.to_dict() == ArenaGame.from_dict(saved).to_dict()
            return
        compiled.apply_action(action)
        assert compiled.to_dict() == python.to_dict()
        game.apply_action(action)


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    python, compiled = twins(ArenaConfig(num_players=4), 3)
    before = compiled.to_dict()
    illegal = next(a for a in range(compiled.layout.size) if a not in compiled.legal_actions())
    with pytest.raises(ValueError, match="illegal Arena action") as ours:
        compiled.apply_action(illegal)
    with pytest.raises(ValueError, match="illegal Arena action") as theirs:
        python.apply_action(illegal)
    assert str(ours.value) == str(theirs.value)
    assert compiled.to_dict() == before


def test_random_play_inside_the_engine_draws_as_a_python_loop() -> None:
    """``play_random`` picks ``legal[rng.integers(len(legal))]`` in C++: the same
    game and the same picker state as that loop in Python."""
    config = ArenaConfig(num_players=4)
    for seed in range(5):
        python, compiled = twins(config, seed)
        picker, twin_picker = np.random.default_rng(seed), np.random.default_rng(seed)
        steps = compiled.play_random(picker)
        loop = 0
        while not python.is_over():
            legal = python.legal_actions()
            python.apply_action(legal[int(twin_picker.integers(len(legal)))])
            loop += 1
        assert steps == loop
        assert compiled.to_dict() == python.to_dict()
        assert picker.bit_generator.state == twin_picker.bit_generator.state


def test_a_copy_plays_on_alone() -> None:
    _, compiled = twins(ArenaConfig(num_players=3), 11)
    before = compiled.to_dict()
    twin = compiled.copy()
    twin.play_random(np.random.default_rng(0))
    assert twin.is_over()
    assert compiled.to_dict() == before


def test_masks_agree_with_legal_actions() -> None:
    python, compiled = twins(ArenaConfig(num_players=5), 2)
    size = compiled.layout.size
    picker = np.random.default_rng(0)
    while not compiled.is_over():
        mask = compiled.legal_mask(size)
        assert mask.dtype == np.int8 and mask.shape == (size,)
        assert np.array_equal(mask, python.legal_mask(size))
        legal = compiled.legal_actions()
        action = legal[int(picker.integers(len(legal)))]
        compiled.apply_action(action)
        python.apply_action(action)


def aec_trace(env, seed: int, picks: np.random.Generator) -> list:
    """Everything an AEC loop sees over one random game."""
    env.reset(seed=seed)
    trace = []
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        trace.append(
            (agent, observation["observation"].tobytes(), observation["action_mask"].tobytes(),
             reward, terminated, truncated)
        )  # fmt: skip
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(legal[int(picks.integers(len(legal)))]))
    return trace


@pytest.mark.parametrize("options", [{}, {"world_challenge": "printed", "reward": "score"}])
def test_the_env_on_the_compiled_engine_is_the_same_env(options: dict) -> None:
    """``engine="compiled"``: the same observations, masks, rewards and ends in
    the AEC loop; state dicts load across the two engines."""
    for players in (2, 4, 6):
        python = arena_v0.env(num_players=players, max_rounds=10, engine="python", **options)
        compiled = arena_v0.env(num_players=players, max_rounds=10, **options)  # the default
        assert compiled.unwrapped.compiled
        for seed in range(3):
            ours = aec_trace(compiled, seed, np.random.default_rng(seed))
            theirs = aec_trace(python, seed, np.random.default_rng(seed))
            assert ours == theirs
        python.reset(seed=9)
        for _ in range(25):
            mask = python.last()[0]["action_mask"]
            python.step(int(np.flatnonzero(mask)[0]))
        compiled.unwrapped.load_state_dict(json.loads(json.dumps(python.unwrapped.state_dict())))
        ours_saved, theirs_saved = compiled.unwrapped.state_dict(), python.unwrapped.state_dict()
        assert ours_saved.pop("options")["engine"] == "compiled"
        assert theirs_saved.pop("options")["engine"] == "python"
        assert ours_saved == theirs_saved
        agent = python.agent_selection
        assert np.array_equal(
            compiled.observe(agent)["observation"], python.observe(agent)["observation"]
        )
        assert compiled.unwrapped.view(agent) == python.unwrapped.view(agent)


@pytest.mark.slow
@pytest.mark.parametrize("players", PLAYERS)
def test_hundred_thousand_games(players: int) -> None:
    """20,000 games per player count (100,000 in all), every option set, the
    legal actions at every decision and the state every 50."""
    lengths = np.random.default_rng(10 + players).integers(1, 41, 20_000)
    for game in range(20_000):
        options = OPTION_SETS[game % len(OPTION_SETS)]
        config = ArenaConfig(num_players=players, max_rounds=int(lengths[game]), **options)
        python, compiled = twins(config, 104_729 * game + players)
        play_side_by_side(python, compiled, np.random.default_rng(game), full_state_every=50)


@pytest.mark.parametrize("rollout", ["random", "heuristic"])
def test_the_search_bot_chooses_the_same_on_both_engines(rollout: str) -> None:
    """The search bot (resample, copy, roll out) on an env with the compiled
    engine makes the Python engine's choices, simulation for simulation."""
    from flockgym.bots.search import SearchBot, SearchSettings

    settings = SearchSettings(None, 6, rollout=rollout)
    chosen = []
    for engine in ("python", "compiled"):
        env = arena_v0.env(num_players=2, max_rounds=4, engine=engine)
        env.reset(seed=4)
        bot = SearchBot("arena_v0", {"num_players": 2, "max_rounds": 4, "engine": engine},
                        settings, seed=1)  # fmt: skip
        moves = []
        for _ in range(4):
            if not env.agents:
                break
            raw = env.unwrapped
            bot.see_table(raw, env.agent_selection)
            observation = env.observe(env.agent_selection)
            action = bot.act(observation, raw.view(env.agent_selection))
            moves.append(action)
            env.step(action)
        chosen.append(moves)
    assert chosen[0] == chosen[1] and chosen[0]


def test_a_compiled_game_pickles_and_plays_on() -> None:
    import pickle

    python, compiled = twins(ArenaConfig(num_players=3), 8)
    picker = np.random.default_rng(8)
    for _ in range(30):
        legal = python.legal_actions()
        action = legal[int(picker.integers(len(legal)))]
        python.apply_action(action)
        compiled.apply_action(action)
    again = pickle.loads(pickle.dumps(compiled))
    assert again.to_dict() == compiled.to_dict()
    play_side_by_side(python, again, np.random.default_rng(1))


@pytest.mark.parametrize("options", [{"engine": "compiled"}, {}])
def test_without_the_extension_the_env_says_so_once_and_plays_python(
    monkeypatch, options: dict
) -> None:
    """``engine="compiled"`` (asked for, or the default) where the extension
    cannot load: one warning, then the Python engine plays (the same game)."""
    import importlib
    import warnings

    from flockgym.envs.core import compiled as loader

    real_import = importlib.import_module

    def no_arena(name: str, *args, **kwargs):
        if name == "flockgym.envs.arena._native":
            raise ImportError("no compiled Arena engine in this test")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(loader, "_loaded", {})
    monkeypatch.setattr(loader.importlib, "import_module", no_arena)
    with pytest.warns(loader.CompiledEngineWarning, match="Python engine runs instead"):
        env = arena_v0.env(num_players=2, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = arena_v0.env(num_players=2, **options)
    assert not env.unwrapped.compiled and not again.unwrapped.compiled
    env.reset(seed=1)
    assert isinstance(env.unwrapped.game, ArenaGame)


def test_the_python_copy_of_a_compiled_game_is_the_checked_one() -> None:
    """``python_game`` skips the state check: at every step of random games it
    builds the game the check builds (state, invariants, views, observations,
    and the play that follows)."""
    from flockgym.envs.arena.observer import game_view

    for players in (2, 5):
        python, compiled = twins(ArenaConfig(num_players=players, max_rounds=6), players)
        observer = ArenaObserver(python.box, players)
        agents = [f"player_{s}" for s in range(players)]
        picker = np.random.default_rng(players)
        while not compiled.is_over():
            fast = compiled.python_game()
            checked = ArenaGame.from_dict(compiled.to_dict())
            assert fast.to_dict() == checked.to_dict()
            assert fast.invariant_violations() == []
            assert fast.space_item == checked.space_item
            assert sorted(map(sorted, fast.maneuvers_of)) == sorted(
                map(sorted, checked.maneuvers_of)
            )
            for seat in range(players):
                assert game_view(fast, seat, agents) == game_view(checked, seat, agents)
                assert np.array_equal(observer.encode(fast, seat), compiled.observation(seat))
            legal = compiled.legal_actions()
            assert fast.legal_actions() == legal
            action = legal[int(picker.integers(len(legal)))]
            compiled.apply_action(action)
            fast.apply_action(action)
            assert fast.to_dict() == compiled.to_dict()


def test_a_compiled_games_fields_read_as_copies_and_refuse_writes() -> None:
    """``game.positions`` and the like read as on the Python engine; setting one
    would change a copy, so it is refused with the way to do it."""
    python, compiled = twins(ArenaConfig(num_players=3), 5)
    for name in ("positions", "trophies", "phase", "card_holder", "maneuvers_of", "space_item"):
        assert getattr(compiled, name) == getattr(python, name), name
    with pytest.raises(AttributeError, match=r"read-only copy.*engine='python'"):
        compiled.forced = [3]
    with pytest.raises(AttributeError, match="no attribute 'rolls_since'"):
        compiled.rolls_since  # noqa: B018 - a method of the Python engine only
    assert compiled.to_dict() == python.to_dict()
