"""Perfect recall of the bridge's information states.

Histories branch (one seat chooses differently) and then go on with the same
moves, so what the seats see may reconverge. For every seat, at every step,
the bridge's ``information_state_string`` (and tensor) must tell two histories
apart exactly when the env's own ``information_state_string`` does: the env
replays the game and names every change of the seat's view and every move of
its own, which is perfect recall by construction.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel")

from openspiel_helpers import SHORT, dice_recording_engine  # noqa: E402

from flockgym.envs import ENVS, make  # noqa: E402
from flockgym.openspiel import game_name  # noqa: E402

HIDDEN_CHOICES = {"arena_v0", "asrus_v0"}
"""Games where these runs reach choices some seats do not see (the Arena's
wishes, Asrus's hidden plays), so some pairs must not be told apart."""


class Branch:
    """A bridge state and the raw env playing the same game; the env rolls the
    dice (the Arena's), which the bridge is given as chance outcomes."""

    def __init__(self, state: Any, env: Any) -> None:
        self.state, self.env = state, env
        self.faces: list[int] = []
        self._hook()

    def _hook(self) -> None:
        game = self.env.game
        roll_die = getattr(type(game), "roll_die", None)
        if roll_die is None:
            return
        faces = self.faces

        def recorded(seat: int, sides: int, purpose: str) -> int:
            value = int(roll_die(game, seat, sides, purpose))
            faces.append(value)
            return value

        game.roll_die = recorded

    def clone(self) -> Branch:
        return Branch(self.state.clone(), self.env.clone())

    def legal(self) -> list[int]:
        return list(self.state.legal_actions())

    def done(self) -> bool:
        return bool(self.state.is_terminal())

    def play(self, action: int) -> None:
        before = len(self.faces)
        self.env.step(action)
        self.state.apply_action(action)
        for face in self.faces[before:]:
            self.state.apply_action(face - 1)
        assert not self.state.is_chance_node()

    def env_string(self, seat: int) -> str:
        return str(self.env.information_state_string(f"player_{seat}"))


def start(env_id: str, players: int, seed: int) -> Branch:
    options = {**SHORT[env_id], "num_players": players}
    game = pyspiel.load_game(game_name(env_id), {**options, "seed": seed})
    state = game.new_initial_state()
    env = make(env_id, **options, **dice_recording_engine(env_id)).unwrapped
    env.reset(seed=state.deal_seed)
    return Branch(state, env)


def compare(a: Branch, b: Branch, players: int) -> tuple[int, int]:
    """For every seat: the bridge tells a and b apart exactly when the env does.
    Returns (pairs the env tells apart, pairs it does not)."""
    apart = same = 0
    for seat in range(players):
        env_apart = a.env_string(seat) != b.env_string(seat)
        string_apart = a.state.information_state_string(seat) != (
            b.state.information_state_string(seat)
        )
        tensor_apart = a.state.information_state_tensor(seat) != (
            b.state.information_state_tensor(seat)
        )
        assert string_apart == env_apart, (seat, env_apart)
        assert tensor_apart == env_apart, (seat, env_apart)
        apart += env_apart
        same += not env_apart
    return apart, same


def branch_and_follow(
    root: Branch, players: int, rnd: random.Random, steps: int
) -> tuple[int, int]:
    """Two branches from ``root`` that differ in the mover's choice, then the
    same moves while both allow them; compared after every step."""
    legal = root.legal()
    first, second = rnd.sample(legal, 2)
    a, b = root.clone(), root.clone()
    a.play(first)
    b.play(second)
    totals = compare(a, b, players)
    for _ in range(steps):
        if a.done() or b.done():
            break
        shared = sorted(set(a.legal()) & set(b.legal()))
        if not shared:
            break
        move = rnd.choice(shared)
        a.play(move)
        b.play(move)
        apart, same = compare(a, b, players)
        totals = (totals[0] + apart, totals[1] + same)
    return totals


def recall_run(env_id: str, players: int, seed: int, branches: int, steps: int) -> tuple[int, int]:
    rnd = random.Random(seed)
    root = start(env_id, players, seed)
    totals = (0, 0)
    made = 0
    while made < branches and not root.done():
        if len(root.legal()) >= 2 and rnd.random() < 0.3:
            apart, same = branch_and_follow(root, players, rnd, steps)
            totals = (totals[0] + apart, totals[1] + same)
            made += 1
        root.play(rnd.choice(root.legal()))
    return totals


@pytest.mark.parametrize("env_id", sorted(ENVS))
def test_branching_histories_are_told_apart_as_the_env_does(env_id: str) -> None:
    players = 3
    apart, same = recall_run(env_id, players, seed=1, branches=4, steps=6)
    assert apart > 0
    if env_id in HIDDEN_CHOICES:
        assert same > 0


@pytest.mark.slow
@pytest.mark.parametrize("env_id", sorted(ENVS))
def test_branching_histories_at_every_player_count(env_id: str) -> None:
    apart = same = 0
    for players in ENVS[env_id].player_counts:
        for seed in range(4):
            a, s = recall_run(env_id, players, seed=seed, branches=6, steps=10)
            apart += a
            same += s
    print(f"{env_id}: {apart} pairs told apart, {same} pairs not, all as the env does")
    assert apart > 0


def test_a_nitro_peek_at_seat_1_or_seat_2_is_remembered() -> None:
    """Astrobirdz: the Nitro holder peeks at player_1's hand or at player_2's;
    five moves later every seat that could tell the two apart still can (the
    bridge once kept only a digest of the seat's own moves and its current
    view, so seats whose views had reconverged got one string)."""
    branch = start("astrobirdz_v0", 3, seed=0)
    rnd = random.Random(0)
    while branch.env.game.phase != 6:  # Phase.NITRO_PEEK
        branch.play(rnd.choice(branch.legal()))
    peeker = branch.state.current_player()
    targets = {branch.state.action_to_string(peeker, a): a for a in branch.legal()}
    assert sorted(targets) == ["player_1", "player_2"]
    a, b = branch.clone(), branch.clone()
    a.play(targets["player_1"])
    b.play(targets["player_2"])
    for _ in range(5):
        move = min(set(a.legal()) & set(b.legal()))
        a.play(move)
        b.play(move)
    apart = 0
    for seat in range(3):
        env_apart = a.env_string(seat) != b.env_string(seat)
        assert (
            a.state.information_state_string(seat) != b.state.information_state_string(seat)
        ) == env_apart
        apart += env_apart
    assert apart == 3


@pytest.mark.parametrize("env_id", sorted(ENVS))
def test_the_information_state_tensor_carries_the_recall_bits(env_id: str) -> None:
    """Its size is declared (observation + 64 digest bits), the perfect-recall
    observer (pyspiel's route) gives the same string and tensor, and the game
    type says both are provided."""
    from flockgym.openspiel import RECALL_BITS

    game = pyspiel.load_game(game_name(env_id), {**SHORT[env_id], "num_players": 3})
    kind = game.get_type()
    assert kind.provides_information_state_string and kind.provides_information_state_tensor
    assert game.information_state_tensor_size() == game.observation_tensor_size() + RECALL_BITS
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    for seat in range(3):
        assert observer.string_from(state, seat) == state.information_state_string(seat)
        tensor = state.information_state_tensor(seat)
        observer.set_from(state, seat)
        assert observer.tensor.tolist() == tensor
        assert pyspiel.State.information_state_tensor(state, seat) == tensor
        assert tensor[: game.observation_tensor_size()] == state.observation_tensor(seat)
        assert set(tensor[-RECALL_BITS:]) <= {0.0, 1.0}
