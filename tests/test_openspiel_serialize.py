"""Serialization of the bridged games and states.

OpenSpiel's own ``random_sim_test`` with ``serialize=True`` (which round-trips
``serialize_game_and_state`` at every early and every power-of-two move), a
continuation test (serialized mid-game, read back by every route, both copies
played on with the same moves and compared at every step), pickling of games
and states, and the refusals of tampered text.
"""

from __future__ import annotations

import base64
import pickle
import random
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel")

from openspiel_helpers import ENV_IDS, SHORT, readable  # noqa: E402

import flockgym.openspiel as bridge  # noqa: E402
from flockgym.envs import ENVS  # noqa: E402
from flockgym.envs.core.errors import StateDictError  # noqa: E402
from flockgym.openspiel import game_name  # noqa: E402


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_openspiels_random_sim_test_with_serialization(env_id: str) -> None:
    players = min(ENVS[env_id].player_counts)
    game = pyspiel.load_game(game_name(env_id), {**SHORT[env_id], "num_players": players})
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_openspiels_random_sim_test_at_every_player_count(env_id: str) -> None:
    for players in ENVS[env_id].player_counts:
        params = {**SHORT[env_id], "num_players": players, "seed": players}
        game = pyspiel.load_game(game_name(env_id), params)
        pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def snapshot(state: Any) -> tuple[Any, ...]:
    return readable(state, state.is_terminal())


def copies(game: Any, state: Any) -> list[Any]:
    """The state read back by every route: pyspiel's game-and-state text, the
    game's (checking) deserialize_state, and pickle."""
    _, by_pyspiel = pyspiel.deserialize_game_and_state(
        pyspiel.serialize_game_and_state(game, state)
    )
    by_game = game.deserialize_state(state.serialize())
    by_pickle = pickle.loads(pickle.dumps(state))
    return [by_pyspiel, by_game, by_pickle]


def next_move(state: Any, rnd: random.Random) -> int:
    if state.is_chance_node():
        return int(rnd.choice([a for a, _ in state.chance_outcomes()]))
    return int(rnd.choice(state.legal_actions()))


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_a_serialized_state_plays_on_as_the_original(env_id: str) -> None:
    """Serialized at several points of a game (chance nodes included), each
    copy then plays the original's moves and reads the same at every step."""
    game = pyspiel.load_game(game_name(env_id), {**SHORT[env_id], "num_players": 3, "seed": 2})
    state = game.new_initial_state()
    rnd = random.Random(2)
    checked = 0
    for cut in (0, 7, 23):
        while len(state.history()) < cut and not state.is_terminal():
            state.apply_action(next_move(state, rnd))
        followers = copies(game, state)
        original = state.clone()
        for follower in followers:
            assert snapshot(follower) == snapshot(original)
        for _ in range(25):
            if original.is_terminal():
                break
            move = next_move(original, rnd)
            original.apply_action(move)
            for follower in followers:
                follower.apply_action(move)
                assert snapshot(follower) == snapshot(original)
                checked += 1
    assert checked > 100


def test_a_chance_node_serializes_with_its_pending_roll() -> None:
    game = pyspiel.load_game("flockgym_arena", {"num_players": 2})
    state = game.new_initial_state()
    for seat in (0, 1):
        state.apply_action(state.string_to_action(seat, "wish Spaceboardzerka"))
    assert state.is_chance_node()
    state.apply_action(2)  # player_0's roll-off die; player_1's is pending
    for copy in copies(game, state):
        assert copy.is_chance_node()
        assert copy.chance_outcomes() == state.chance_outcomes()
        copy.apply_action(4)
        assert not copy.is_chance_node()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_games_pickle_and_their_classes_are_found_by_name(env_id: str) -> None:
    params = {**SHORT[env_id], "num_players": 3, "seed": 4}
    game = pyspiel.load_game(game_name(env_id), params)
    copy = pickle.loads(pickle.dumps(game))
    assert copy.to_string() == game.to_string()
    assert copy.get_type().short_name == game_name(env_id)
    assert (
        copy.new_initial_state().deal_seed
        == pyspiel.load_game(game_name(env_id), params).new_initial_state().deal_seed
    )
    cls = bridge.GAMES[env_id]
    assert getattr(bridge, cls.__name__) is cls
    assert pickle.loads(pickle.dumps(cls)) is cls
    assert (
        pyspiel.deserialize_game_and_state(
            pyspiel.serialize_game_and_state(game, game.new_initial_state())
        )[0].to_string()
        == game.to_string()
    )


def _payload(state: Any) -> tuple[str, str]:
    head, _, encoded = state.serialize().rpartition("__dict__=")
    return head, encoded


class _Runs:
    """A pickled object whose loading would call ``print``."""

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return print, ("code ran",)


def test_deserialize_state_runs_no_code_from_the_text() -> None:
    game = pyspiel.load_game("flockgym_skybirds", {"num_players": 2})
    state = game.new_initial_state()
    head, _ = _payload(state)
    evil = base64.b64encode(pickle.dumps({"core": _Runs()})).decode()
    with pytest.raises(StateDictError) as err:
        game.deserialize_state(head + "__dict__=" + evil)
    assert str(err.value) == (
        "a serialized flockgym state may hold only flockgym.openspiel.SavedCore; "
        "it names builtins.print"
    )
    with pytest.raises(StateDictError, match="three lines"):
        game.deserialize_state("history=\nmove_number=0")


def _tampered(state: Any, change: Any) -> str:
    head, encoded = _payload(state)
    core = pickle.loads(base64.b64decode(encoded))["core"]  # our own text, in a test
    data = __import__("json").loads(core)
    change(data)
    saved = bridge.SavedCore(__import__("json").dumps(data))
    return head + "__dict__=" + base64.b64encode(pickle.dumps({"core": saved})).decode()


def test_tampered_fields_are_refused_by_name() -> None:
    game = pyspiel.load_game("flockgym_asrus", {"num_players": 3})
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])

    def negative_moves(data: dict[str, Any]) -> None:
        data["moves"][0] = -1

    with pytest.raises(StateDictError) as err:
        game.deserialize_state(_tampered(state, negative_moves))
    assert str(err.value) == (
        "serialized state field moves=[-1, 0, 0] is not allowed; allowed: 3 integers >= 0"
    )

    def short_digests(data: dict[str, Any]) -> None:
        data["digests"] = data["digests"][:2]

    with pytest.raises(StateDictError, match="serialized state field digests="):
        game.deserialize_state(_tampered(state, short_digests))

    def pending_without_dice(data: dict[str, Any]) -> None:
        data["pending"] = {"action": 0, "faces": [], "seat": 0, "sides": 6, "purpose": "x"}

    with pytest.raises(StateDictError, match="serialized state field pending="):
        game.deserialize_state(_tampered(state, pending_without_dice))
    four = pyspiel.load_game("flockgym_asrus", {"num_players": 4})
    with pytest.raises(StateDictError):
        four.deserialize_state(state.serialize())
