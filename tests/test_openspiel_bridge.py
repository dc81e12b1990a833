"""flockgym.openspiel: every registered env as a pyspiel game, checked against the env.

The bridge's random games are replayed move by move on the env itself (same
deal from the same seed; the env's dice, recorded as it rolls them, fed to the
bridge's chance nodes): same legal moves, same action strings, same returns
as the summed AEC rewards. OpenSpiel's MCTSBot plays a whole game of each, and
ISMCTSBot does where the game registers a resampler.
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import openspiel_helpers  # noqa: E402

from flockgym.envs import ENVS, make  # noqa: E402
from flockgym.envs.core.errors import OptionError  # noqa: E402
from flockgym.envs.core.rng import derive_seed  # noqa: E402
from flockgym.openspiel import (  # noqa: E402
    GAMES,
    PerfectInformationWarning,
    copy_env,
    game_name,
)

ENV_IDS = openspiel_helpers.ENV_IDS

SHORT = {**openspiel_helpers.SHORT, "arena_v0": {"max_rounds": 2}}
"""Options that keep a game short (every registered env must be listed)."""


def test_every_registered_env_is_bridged() -> None:
    assert sorted(GAMES) == ENV_IDS
    assert sorted(SHORT) == ENV_IDS
    names = {game_name(e) for e in ENV_IDS}
    assert names == {"flockgym_arena", "flockgym_asrus", "flockgym_astrobirdz", "flockgym_skybirds"}
    registered = set(pyspiel.registered_names())
    assert names <= registered


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_game_type(env_id: str) -> None:
    item = ENVS[env_id]
    game = pyspiel.load_game(game_name(env_id))
    kind = game.get_type()
    assert kind.short_name == game_name(env_id)
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert kind.min_num_players == min(item.player_counts)
    assert kind.max_num_players == max(item.player_counts)
    dice = env_id == "arena_v0"
    assert kind.chance_mode == (
        pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
        if dice
        else pyspiel.GameType.ChanceMode.DETERMINISTIC
    )
    assert game.num_players() == item.default_players
    assert game.num_distinct_actions() == make(env_id).unwrapped.num_actions
    assert game.max_chance_outcomes() == (20 if dice else 0)
    scored = pyspiel.load_game(game_name(env_id), {"reward": "score"}).get_type()
    assert scored.utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert scored.reward_model == pyspiel.GameType.RewardModel.REWARDS


def test_load_with_player_count() -> None:
    game = pyspiel.load_game("flockgym_asrus", {"num_players": 3})
    assert game.num_players() == 3
    state = game.new_initial_state()
    assert state.current_player() in range(3)


def test_bad_parameters_name_the_option_and_allowed_values() -> None:
    with pytest.raises(OptionError) as err:
        pyspiel.load_game("flockgym_asrus", {"num_players": 2})
    assert str(err.value) == (
        "option num_players=2 is not allowed; allowed values: 3, 4, 5, 6, 7, 8, 9"
    )
    with pytest.raises(OptionError) as err:
        pyspiel.load_game("flockgym_arena", {"reward": "points"})
    assert str(err.value) == (
        "option reward='points' is not allowed; allowed values: 'win', 'score', 'rank'"
    )
    with pytest.raises(OptionError) as err:
        pyspiel.load_game("flockgym_arena", {"max_rounds": 0})
    assert str(err.value) == "option max_rounds=0 is not allowed; allowed: an integer >= 1"
    with pytest.raises(OptionError) as err:
        pyspiel.load_game("flockgym_skybirds", {"seed": -1})
    assert str(err.value) == "parameter seed=-1 is not allowed; allowed: an integer >= 0"


def test_unknown_parameter_is_refused() -> None:
    with pytest.raises(pyspiel.SpielError, match="num_player"):
        pyspiel.load_game("flockgym_asrus", {"num_player": 3})


def _env_with_recorded_dice(env_id: str, options: dict[str, Any], seed: int) -> tuple[Any, list]:
    """The wrapped env dealt from ``seed``, its engine's dice (if it rolls any)
    recorded as they are rolled (the Arena's Python engine, where the bridge
    plays the compiled one: the same rolls)."""
    env = make(env_id, **options, **openspiel_helpers.dice_recording_engine(env_id))
    env.reset(seed=seed)
    faces: list[int] = []
    game = env.unwrapped.game
    roll_die = getattr(type(game), "roll_die", None)
    if roll_die is not None:

        def recorded(seat: int, sides: int, purpose: str) -> int:
            value = int(roll_die(game, seat, sides, purpose))
            faces.append(value)
            return value

        game.roll_die = recorded
    return env, faces


def play_against_env(env_id: str, options: dict[str, Any], seed: int, games: int) -> int:
    """``games`` random games of the bridge replayed on the env move by move;
    returns the number of moves checked."""
    game = pyspiel.load_game(game_name(env_id), {**options, "seed": seed})
    rnd = random.Random(seed)
    checked = 0
    for _ in range(games):
        state = game.new_initial_state()
        env, faces = _env_with_recorded_dice(env_id, options, state.deal_seed)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        raw = env.unwrapped
        while True:
            agent = env.agent_selection
            done = env.terminations[agent] or env.truncations[agent]
            assert state.is_terminal() == done
            if done:
                break
            seat = raw.seat_of(agent)
            assert state.current_player() == seat
            legal = env.legal_actions()
            assert state.legal_actions() == legal
            assert state.legal_actions(seat) == legal
            strings = [raw.action_to_string(agent, a) for a in legal]
            assert [state.action_to_string(seat, a) for a in legal] == strings
            action = rnd.choice(legal)
            assert state.string_to_action(strings[legal.index(action)]) == action
            if checked % 17 == 0:
                tensor = np.asarray(state.observation_tensor(seat), dtype=np.float32)
                np.testing.assert_array_equal(tensor, env.observe(agent)["observation"])
                assert state.observation_string(seat) == raw.observation_string(agent)
            before = len(faces)
            env.step(action)
            state.apply_action(action)
            for face in faces[before:]:
                assert state.is_chance_node()
                outcomes = state.chance_outcomes()
                assert [p for _, p in outcomes] == [1.0 / len(outcomes)] * len(outcomes)
                state.apply_action(face - 1)
            assert not state.is_chance_node()
            for a, r in env.rewards.items():
                totals[a] += r
            assert state.returns() == [totals[a] for a in env.possible_agents]
            checked += 1
        assert state.returns() == [totals[a] for a in env.possible_agents]
    return checked


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_random_games_match_the_env(env_id: str) -> None:
    counts = ENVS[env_id].player_counts
    checked = 0
    for i, players in enumerate(counts[:3]):
        options = {**SHORT[env_id], "num_players": players}
        checked += play_against_env(env_id, options, seed=100 + i, games=25)
    assert checked > 600


@pytest.mark.slow
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_thousands_of_random_games_match_the_env(env_id: str) -> None:
    counts = ENVS[env_id].player_counts
    per_count = -(-1000 // len(counts))
    for i, players in enumerate(counts):
        play_against_env(env_id, {"num_players": players}, seed=1000 + i, games=per_count)


def test_score_rewards_are_paid_as_scored() -> None:
    play_against_env("asrus_v0", {"num_players": 4, "reward": "score"}, seed=3, games=5)
    play_against_env("arena_v0", {"max_rounds": 2, "reward": "rank"}, seed=3, games=2)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_clones_are_independent(env_id: str) -> None:
    game = pyspiel.load_game(
        game_name(env_id), {**SHORT[env_id], "num_players": 2 if env_id != "asrus_v0" else 3}
    )
    state = game.new_initial_state()
    rnd = random.Random(5)
    for _ in range(15):
        _random_move(state, rnd)
    copy = state.clone()
    history = str(state), state.returns(), state.legal_actions()
    moves = []
    while not copy.is_terminal() and len(moves) < 40:
        moves.append(_random_move(copy, rnd))
    assert (str(state), state.returns(), state.legal_actions()) == history
    again = state.clone()
    for move in moves:
        again.apply_action(move)
    assert str(again) == str(copy) and again.returns() == copy.returns()


def _random_move(state: Any, rnd: random.Random) -> int:
    if state.is_chance_node():
        action = rnd.choice([a for a, _ in state.chance_outcomes()])
    else:
        action = rnd.choice(state.legal_actions())
    state.apply_action(action)
    return int(action)


def test_arena_dice_are_chance_nodes_with_exact_odds() -> None:
    game = pyspiel.load_game("flockgym_arena", {"num_players": 2})
    state = game.new_initial_state()
    rnd = random.Random(1)
    while not state.is_chance_node():
        _random_move(state, rnd)
    outcomes = state.chance_outcomes()
    sides = len(outcomes)
    assert sides in (6, 8)
    assert outcomes == [(f, 1.0 / sides) for f in range(sides)]
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 0).endswith(": 1")
    with pytest.raises(ValueError) as err:
        state.apply_action(sides)
    assert str(err.value) == f"chance outcome {sides} of a d{sides}: allowed 0..{sides - 1}"
    assert state.chance_outcomes() == outcomes


def test_information_state_ignores_other_seats_hidden_cards() -> None:
    """Two Asrus deals that differ only in player_1's hand (a card swapped with
    the number pile) give player_0 the same information state and tensor."""
    game = pyspiel.load_game("flockgym_asrus", {"num_players": 3})
    state = game.new_initial_state()
    other = state.clone()
    data = other.core.env.state_dict()
    hand, pile = data["game"]["hands"][1], data["game"]["number_pile"]  # counts per number
    give = next(n for n in range(1, 16) if hand[n] > 0)
    take = next(n for n in range(1, 16) if pile[n] > 0 and n != give)
    hand[give], pile[give], hand[take], pile[take] = (
        hand[give] - 1,
        pile[give] + 1,
        hand[take] + 1,
        pile[take] - 1,
    )
    other.core.env.load_state_dict(data)
    assert other.information_state_string(1) != state.information_state_string(1)
    assert other.information_state_string(0) == state.information_state_string(0)
    assert other.information_state_tensor(0) == state.information_state_tensor(0)
    assert other.observation_string(0) == state.observation_string(0)


def test_information_state_counts_own_moves() -> None:
    game = pyspiel.load_game("flockgym_skybirds", {"num_players": 2})
    state = game.new_initial_state()
    first = state.information_state_string(state.current_player())
    assert first.startswith(f"player_{state.current_player()} moves 0 #")
    mover = state.current_player()
    state.apply_action(state.legal_actions()[0])
    assert f"player_{mover} moves 1 #" in state.information_state_string(mover)


@pytest.mark.parametrize("env_id", ["arena_v0", "skybirds_v0"])
def test_information_states_never_replay_the_game_from_its_start(
    env_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counted in env steps taken while reading (no timing): the first read
    folds the moves made since the deal once, a state that has been read folds
    its later moves as they are made (a read then steps nothing), and a clone
    read after a few moves folds those few only."""
    game = pyspiel.load_game(game_name(env_id), {"num_players": 4})
    state = game.new_initial_state()
    rnd = random.Random(2)
    raw = type(state.core.env)
    real_step = raw.step
    steps = [0]
    reading = [False]

    def counted(env: Any, action: Any) -> None:
        steps[0] += reading[0]
        real_step(env, action)

    monkeypatch.setattr(raw, "step", counted)

    def read() -> int:
        """Env steps taken while every seat's information state is read."""
        steps[0] = 0
        reading[0] = True
        for seat in range(4):
            state_or_clone[0].information_state_string(seat)
            state_or_clone[0].information_state_tensor(seat)
        reading[0] = False
        return steps[0]

    def play(moves: int) -> int:
        """``moves`` moves (and the dice they roll); returns the player moves."""
        made = 0
        target = state_or_clone[0]
        while made < moves and not target.is_terminal():
            made += not target.is_chance_node()
            _random_move(target, rnd)
        while target.is_chance_node():
            _random_move(target, rnd)
        return made

    state_or_clone = [state]
    first = play(60)
    assert first == 60
    assert read() == first  # each move since the deal, once
    play(30)
    assert read() == 0  # folded as they were made
    state_or_clone[0] = state.clone()
    few = play(5)
    assert few == 5
    assert read() == few  # the clone's own moves only
    assert read() == 0


def test_observer_is_rebuilt_for_each_state() -> None:
    """States share one observer; reading one state after another gives each its
    own observation, as a fresh env loaded with that state gives."""
    game = pyspiel.load_game("flockgym_astrobirdz", {"num_players": 3})
    a = game.new_initial_state()
    b = game.new_initial_state()
    rnd = random.Random(4)
    for _ in range(7):
        _random_move(b, rnd)
    for state in (a, b, a, b):
        env = state.core.env
        fresh = make("astrobirdz_v0", num_players=3).unwrapped
        fresh.load_state_dict(env.state_dict())
        seat = state.current_player()
        expected = fresh.observe(f"player_{seat}")["observation"]
        np.testing.assert_array_equal(state.observation_tensor(seat), expected)


def test_copy_env_leaves_the_original_alone() -> None:
    env = make("arena_v0", num_players=3).unwrapped
    env.reset(seed=9)
    saved = env.state_dict()
    other = copy_env(env)
    rnd = random.Random(0)
    for _ in range(30):
        if other.terminations[other.agent_selection]:
            break
        other.step(rnd.choice(other.legal_actions()))
    assert env.state_dict() == saved


def test_resampling_without_a_resampler_says_so() -> None:
    game = pyspiel.load_game("flockgym_asrus", {"num_players": 3})
    game.shared.resampler = None  # as for a game that registers none
    state = game.new_initial_state()
    with pytest.raises(NotImplementedError) as err:
        state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert str(err.value) == (
        "asrus_v0 registers no resampler (EnvEntry.resampler), so "
        "resample_from_infostate is not available for it"
    )


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_resampled_states_keep_what_the_seat_knows(env_id: str) -> None:
    """Through the game's registered resampler: the drawn state gives the seat
    the same information state, tensors and legal moves, differs from the true
    state (at least its generator), leaves the true state alone, and plays on."""
    if not getattr(ENVS[env_id], "resampler", None):
        pytest.skip(f"{env_id} registers no resampler")
    game = pyspiel.load_game(game_name(env_id), {**SHORT[env_id], "num_players": 3, "seed": 5})
    rnd = random.Random(5)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    checked = 0
    for _ in range(3):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                _random_move(state, rnd)
                continue
            if rnd.random() < 0.2:
                seat = state.current_player()
                before = state.core.env.state_dict()
                drawn = state.resample_from_infostate(seat, sampler)
                assert drawn.information_state_string(seat) == state.information_state_string(seat)
                assert drawn.information_state_tensor(seat) == state.information_state_tensor(seat)
                assert drawn.observation_string(seat) == state.observation_string(seat)
                assert drawn.legal_actions() == state.legal_actions()
                assert drawn.core.env.state_dict()["game"] != before["game"]
                assert state.core.env.state_dict() == before
                for _ in range(30):
                    if drawn.is_terminal():
                        break
                    _random_move(drawn, rnd)
                checked += 1
            _random_move(state, rnd)
    assert checked >= 5


MCTS_OPTIONS = {
    "arena_v0": {"num_players": 2, "max_rounds": 1},
    "asrus_v0": {"num_players": 3},
    "astrobirdz_v0": {"num_players": 2},
    "skybirds_v0": {"num_players": 2, "max_campaigns": 1},
}


@pytest.mark.filterwarnings("ignore::flockgym.openspiel.PerfectInformationWarning")
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_mcts_bot_plays_a_whole_game(env_id: str) -> None:
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game(game_name(env_id), {**MCTS_OPTIONS[env_id], "seed": 7})
    rng = np.random.RandomState(7)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=3, evaluator=evaluator, random_state=rng)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            state.apply_action(bot.step(state))
    assert sum(state.returns()) == pytest.approx(0.0)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_ismcts_bot_plays_a_whole_game(env_id: str) -> None:
    if not getattr(ENVS[env_id], "resampler", None):
        pytest.skip(f"{env_id} registers no resampler yet")
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game(game_name(env_id), {**MCTS_OPTIONS[env_id], "seed": 8})
    rng = np.random.RandomState(8)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=3, random_state=rng)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            state.apply_action(bot.step(state))
    assert sum(state.returns()) == pytest.approx(0.0)


def test_deals_follow_the_seed() -> None:
    game = pyspiel.load_game("flockgym_skybirds", {"num_players": 3, "seed": 11})
    first, second = game.new_initial_state(), game.new_initial_state()
    assert first.deal_seed == derive_seed(11, 0)
    assert second.deal_seed == derive_seed(11, 1)
    env = make("skybirds_v0", num_players=3)
    env.reset(seed=second.deal_seed)
    assert env.unwrapped.state_dict()["game"] == second.core.env.state_dict()["game"]
    assert first.clone().deal_seed == first.deal_seed


def test_pyspiel_routes_give_the_same_strings_and_tensors() -> None:
    """pyspiel's own route (its observer) and the state's Python methods agree."""
    game = pyspiel.load_game("flockgym_arena", {"num_players": 3})
    state = game.new_initial_state()
    rnd = random.Random(6)
    for _ in range(12):
        _random_move(state, rnd)
    for seat in range(3):
        assert pyspiel.State.observation_tensor(state, seat) == state.observation_tensor(seat)
        assert pyspiel.State.information_state_tensor(state, seat) == (
            state.information_state_tensor(seat)
        )
        assert state.observation_string(seat) == state.core.env.observation_string(f"player_{seat}")
        assert state.information_state_string(seat).startswith(f"player_{seat} moves ")
    with pytest.raises(ValueError) as err:
        state.observation_tensor(3)
    assert str(err.value) == "player 3 is not a seat of this game; seats: 0..2"


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_copy_env_copies_the_generator_and_what_is_bound_to_it(env_id: str) -> None:
    env = make(env_id).unwrapped
    env.reset(seed=4)
    other = copy_env(env)
    assert other.game is not env.game and other.game.rng is not env.game.rng
    assert other.game.to_dict() == env.game.to_dict()
    for name, value in vars(other.game).items():
        owner = getattr(value, "__self__", None)
        if owner is not None and owner is not other.game:
            assert owner is not env.game.rng.bit_generator, name
    saved = env.game.rng.bit_generator.state
    other.game.rng.integers(1000, size=5)
    if hasattr(other.game, "_raw"):
        other.game._raw()
    assert env.game.rng.bit_generator.state == saved


def _same_world(env: Any, seat: int, rng: np.random.Generator) -> Any:
    """A resampler that draws the world seat sees as it is (always consistent)."""
    return env


@pytest.mark.parametrize("env_id", ["arena_v0", "astrobirdz_v0"])
def test_ismcts_runs_through_a_registered_resampler(env_id: str) -> None:
    """The bridge's side of resampling: a registered resampler's world becomes a
    state whose information state is the original's, so ISMCTSBot's check holds
    and it plays a whole game (here with a resampler that keeps the world)."""
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game(game_name(env_id), {**MCTS_OPTIONS[env_id], "seed": 9})
    game.shared.resampler = _same_world
    rng = np.random.RandomState(9)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=3, random_state=rng)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
            continue
        seat = state.current_player()
        drawn = state.resample_from_infostate(seat, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        assert drawn.information_state_string(seat) == state.information_state_string(seat)
        assert drawn.legal_actions() == state.legal_actions()
        state.apply_action(bot.step(state))
    assert sum(state.returns()) == pytest.approx(0.0)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_a_new_deal_leaves_another_states_reads_alone(env_id: str) -> None:
    """State A read, state B dealt, A read again: A shows its own deal
    (the states once shared an observer that B's deal rebuilt)."""
    players = 4 if env_id != "skybirds_v0" else 3
    game = pyspiel.load_game(game_name(env_id), {**SHORT[env_id], "num_players": players})
    a = game.new_initial_state()
    before = [(a.observation_tensor(s), a.information_state_tensor(s)) for s in range(players)]
    b = game.new_initial_state()
    b.legal_actions()  # B's first use deals it
    after = [(a.observation_tensor(s), a.information_state_tensor(s)) for s in range(players)]
    assert after == before


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_a_kept_observation_vector_does_not_change(env_id: str) -> None:
    """Arrays the bridge returns are the caller's: kept, they keep their values
    while the game goes on (the Arena's once was its observer's buffer)."""
    players = 3
    game = pyspiel.load_game(game_name(env_id), {**SHORT[env_id], "num_players": players})
    state = game.new_initial_state()
    rnd = random.Random(3)
    kept: list[tuple[np.ndarray, np.ndarray]] = []
    for _ in range(40):
        if state.is_terminal():
            break
        if not state.is_chance_node():
            vector = state.observation_vector(state.current_player())
            kept.append((vector, vector.copy()))
        _random_move(state, rnd)
    assert len(kept) > 10
    for vector, copy in kept:
        np.testing.assert_array_equal(vector, copy)


def _everything(state: Any) -> tuple[Any, ...]:
    """All a caller can read of a state, for every seat."""
    return openspiel_helpers.readable(state, state.move_number())


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_an_illegal_action_changes_nothing(env_id: str) -> None:
    """A refused action leaves the state exactly as it was (strings, tensors,
    history), and the state then plays on as one that never saw it."""
    game = pyspiel.load_game(game_name(env_id), {**SHORT[env_id], "num_players": 3})
    state = game.new_initial_state()
    rnd = random.Random(8)
    for _ in range(12):
        _random_move(state, rnd)
    while state.is_chance_node():
        _random_move(state, rnd)
    twin = state.clone()
    before = _everything(state)
    legal = set(state.legal_actions())
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in legal)
    for action in (illegal, game.num_distinct_actions()):
        with pytest.raises(ValueError, match=f"action {action} is not legal for player_"):
            state.apply_action(action)
        assert _everything(state) == before
    with pytest.raises(pyspiel.SpielError):  # pyspiel's own check of -1
        state.apply_action(-1)
    assert _everything(state) == before
    move = min(legal)
    state.apply_action(move)
    twin.apply_action(move)
    assert _everything(state) == _everything(twin)


def test_an_illegal_action_names_the_legal_ones() -> None:
    game = pyspiel.load_game("flockgym_skybirds", {"num_players": 2})
    state = game.new_initial_state()
    legal = state.legal_actions()
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in legal)
    with pytest.raises(ValueError) as err:
        state.apply_action(illegal)
    seat = state.current_player()
    first = f"{legal[0]} ({state.action_to_string(seat, legal[0])})"
    assert str(err.value).startswith(
        f"action {illegal} is not legal for player_{seat} here; legal: {first}"
    )


def _perfect_information_warnings(run: Any) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run()
    return [str(w.message) for w in caught if w.category is PerfectInformationWarning]


def _mcts_bot(game: Any) -> Any:
    from open_spiel.python.algorithms import mcts

    rng = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    return mcts.MCTSBot(game, uct_c=2.0, max_simulations=2, evaluator=evaluator, random_state=rng)


def test_mcts_bot_on_a_flockgym_game_warns_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """OpenSpiel's Python MCTSBot reads hidden cards: building one on a bridged
    game warns, naming the game, the algorithm and what to use instead, once
    per process."""
    import flockgym.openspiel as bridge

    monkeypatch.setattr(bridge, "_warned_perfect_information", False)
    game = pyspiel.load_game("flockgym_astrobirdz", {"num_players": 2})
    first = _perfect_information_warnings(lambda: _mcts_bot(game))
    assert len(first) == 1
    assert first[0].startswith(
        "flockgym_astrobirdz is an imperfect-information game, but "
        "open_spiel.python.algorithms.mcts searches the state as it is"
    )
    assert "ISMCTSBot" in first[0] and "'search'" in first[0]
    bot = None

    def again() -> None:
        nonlocal bot
        bot = _mcts_bot(game)
        bot.step(game.new_initial_state())

    assert _perfect_information_warnings(again) == []


def test_an_mcts_search_warns_through_clone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot built before (or on another object) is still seen when it clones
    the state it searches."""
    import flockgym.openspiel as bridge

    game = pyspiel.load_game("flockgym_skybirds", {"num_players": 2})
    monkeypatch.setattr(bridge, "_warned_perfect_information", True)
    bot = _mcts_bot(game)
    monkeypatch.setattr(bridge, "_warned_perfect_information", False)
    found = _perfect_information_warnings(lambda: bot.step(game.new_initial_state()))
    assert len(found) == 1 and found[0].startswith("flockgym_skybirds is an imperfect")


def test_ismcts_and_plain_use_do_not_warn(monkeypatch: pytest.MonkeyPatch) -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    import flockgym.openspiel as bridge

    monkeypatch.setattr(bridge, "_warned_perfect_information", False)
    game = pyspiel.load_game("flockgym_astrobirdz", {"num_players": 2})

    def fair_use() -> None:
        rng = np.random.RandomState(1)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
        bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=20, random_state=rng)
        state = game.new_initial_state()
        for _ in range(3):  # leaves judged by random rollouts from clones of drawn worlds
            state.apply_action(bot.step(state))
        state.clone().resample_from_infostate(0, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        game.get_type()

    assert _perfect_information_warnings(fair_use) == []
