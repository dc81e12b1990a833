"""The batched form (flockgym.envs.core.batched.BatchedGames) against the AEC env.

For every game and player count a batch of K games and K envs reset with the
batch's seeds play the same random legal actions side by side: the same player
to act, mask, observation of the player to act and rewards at every decision,
the same end, and after the batch's auto-reset the same next deal as the env's
``reset()`` without a seed. Then the protocol's refusals: bad shapes, dtypes,
illegal actions (naming the game, the action and the legal ones, with no game
changed) and options a batch cannot play.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from compiled_helpers import require_compiled
from hypothesis import given, settings
from hypothesis import strategies as st

from flockgym.envs import ENVS, OptionError, env_module, make
from flockgym.envs.core.batched import BatchedActionError, BatchedGames

GAMES = sorted(ENVS)
CASES = [(env_id, players) for env_id in GAMES for players in ENVS[env_id].player_counts]


@pytest.fixture(autouse=True)
def _compiled_engines() -> None:
    for env_id in GAMES:
        require_compiled(env_id.removesuffix("_v0"))


def env_answers(env: Any) -> tuple[int, np.ndarray, np.ndarray]:
    """The env's player to act, its mask and its observation (as ``last``)."""
    observation = env.last()[0]
    seat = env.unwrapped.seat_of(env.agent_selection)
    return seat, observation["action_mask"], observation["observation"]


def play_side_by_side(
    env_id: str, players: int, seed: int, k: int = 3, after_reset: int = 5, **options: Any
) -> int:
    """Play a batch of ``k`` games beside ``k`` envs until every game has ended
    once and ``after_reset`` more decisions were compared; returns the decisions
    compared."""
    batch = BatchedGames(env_id, k, seed=seed, num_players=players, **options)
    envs = [make(env_id, num_players=players, engine="compiled", **options) for _ in range(k)]
    for env, game_seed in zip(envs, batch.seeds, strict=True):
        env.reset(seed=game_seed)
    draws = np.random.default_rng(seed)
    ended = np.zeros(k, dtype=bool)
    compared, extra = 0, 0
    while extra < after_reset:
        players_now = batch.current_players()
        masks, observations = batch.masks(), batch.observations()
        for i, env in enumerate(envs):
            seat, mask, observation = env_answers(env)
            where = f"{env_id} {players}p game {i}, decision {compared}"
            assert players_now[i] == seat, where
            assert np.array_equal(masks[i], mask), where
            assert np.array_equal(observations[i], observation), where
        actions = batch.sample_actions(draws)
        rewards, finished = batch.step(actions)
        for i, env in enumerate(envs):
            env.step(int(actions[i]))
            raw = env.unwrapped
            expected = [raw.rewards[agent] for agent in raw.possible_agents]
            assert rewards[i].tolist() == expected, f"{env_id} {players}p game {i} rewards"
            done = any(raw.terminations.values()) or any(raw.truncations.values())
            assert bool(finished[i]) == done, f"{env_id} {players}p game {i} end"
            assert bool(batch.truncated[i]) == any(raw.truncations.values())
            if done:
                env.reset()  # the next deal, from the game's own generator
        ended |= finished
        compared += 1
        extra += int(ended.all())
    return compared


@pytest.mark.parametrize(("env_id", "players"), CASES)
def test_batch_plays_as_the_env(env_id: str, players: int) -> None:
    assert play_side_by_side(env_id, players, seed=players) > 5


def option_cases(all_counts: bool) -> list[tuple[str, int, dict[str, Any]]]:
    """(env, players, options) of every option sample the env accepts (the
    engine option left to the batch), at the default player count or at every count."""
    cases = []
    for env_id in GAMES:
        raw = env_module(env_id).raw_env
        counts = ENVS[env_id].player_counts if all_counts else [ENVS[env_id].default_players]
        for players in counts:
            for sample in raw.option_samples_for(players):
                options = {k: v for k, v in sample.items() if k != "engine"}
                try:
                    raw(num_players=players, **options)
                except OptionError:
                    continue  # a sample this player count does not allow (as the soak skips it)
                cases.append((env_id, players, options))
    return cases


@pytest.mark.parametrize(("env_id", "players", "options"), option_cases(all_counts=False))
def test_batch_plays_every_option_sample_as_the_env(
    env_id: str, players: int, options: dict[str, Any]
) -> None:
    play_side_by_side(env_id, players, seed=21, k=2, **options)


@pytest.mark.slow
@pytest.mark.parametrize(("env_id", "players", "options"), option_cases(all_counts=True))
def test_batch_plays_many_games_of_every_sample_as_the_env(
    env_id: str, players: int, options: dict[str, Any]
) -> None:
    play_side_by_side(env_id, players, seed=players, k=12, after_reset=200, **options)


@pytest.mark.parametrize("env_id", GAMES)
@pytest.mark.parametrize("reward", ["rank", "score"])
def test_batch_pays_the_env_reward_modes(env_id: str, reward: str) -> None:
    players = ENVS[env_id].default_players
    play_side_by_side(env_id, players, seed=11, k=2, reward=reward)


@pytest.mark.parametrize("env_id", GAMES)
def test_batch_truncates_at_max_steps(env_id: str) -> None:
    """``max_steps`` cuts a game as the env does (no end reward) and the next
    deal follows."""
    play_side_by_side(env_id, ENVS[env_id].default_players, seed=5, k=2, after_reset=40,
                      max_steps=25)  # fmt: skip


@pytest.mark.parametrize("env_id", GAMES)
def test_batch_matches_the_python_engine(env_id: str) -> None:
    """The first decisions against the reference engine itself."""
    batch = BatchedGames(env_id, 2, seed=3)
    envs = [make(env_id, engine="python") for _ in range(2)]
    for env, game_seed in zip(envs, batch.seeds, strict=True):
        env.reset(seed=game_seed)
    draws = np.random.default_rng(3)
    for _ in range(30):
        masks, observations = batch.masks(), batch.observations()
        for i, env in enumerate(envs):
            seat, mask, observation = env_answers(env)
            assert batch.current_players()[i] == seat
            assert np.array_equal(masks[i], mask) and np.array_equal(observations[i], observation)
        actions = batch.sample_actions(draws)
        batch.step(actions)
        for env, action in zip(envs, actions, strict=True):
            env.step(int(action))


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**63 - 1))
def test_any_seed_deals_as_the_env(seed: int) -> None:
    """Game i of a batch seeded ``seed`` opens as the env reset with ``seeds[i]``."""
    for env_id in GAMES:
        batch = BatchedGames(env_id, 2, seed=seed)
        for i, game_seed in enumerate(batch.seeds):
            env = make(env_id, engine="compiled")
            env.reset(seed=game_seed)
            seat, mask, observation = env_answers(env)
            assert batch.current_players()[i] == seat
            assert np.array_equal(batch.masks()[i], mask)
            assert np.array_equal(batch.observations()[i], observation)


@pytest.mark.parametrize("env_id", GAMES)
def test_reset_mid_game_deals_as_the_env_reset(env_id: str) -> None:
    """``reset()`` without a seed deals each game's next game from its
    generator as it stands, as ``env.reset()`` does mid-game."""
    batch = BatchedGames(env_id, 2, seed=8)
    envs = [make(env_id, engine="compiled") for _ in range(2)]
    draws = np.random.default_rng(8)
    for env, game_seed in zip(envs, batch.seeds, strict=True):
        env.reset(seed=game_seed)
    for _ in range(7):
        actions = batch.sample_actions(draws)
        batch.step(actions)
        for env, action in zip(envs, actions, strict=True):
            env.step(int(action))
    batch.reset()
    for i, env in enumerate(envs):
        env.reset()
        seat, mask, observation = env_answers(env)
        assert batch.current_players()[i] == seat
        assert np.array_equal(batch.masks()[i], mask)
        assert np.array_equal(batch.observations()[i], observation)
        assert batch.steps_played()[i] == 0


def test_same_seed_same_games_and_reset() -> None:
    a, b = BatchedGames("astrobirdz_v0", 4, seed=9), BatchedGames("astrobirdz_v0", 4, seed=9)
    assert a.seeds == b.seeds and len(set(a.seeds)) == 4
    assert np.array_equal(a.observations(), b.observations())
    first = a.observations().copy()
    a.step(a.sample_actions(np.random.default_rng(0)))
    a.reset(seed=9)
    assert np.array_equal(a.observations(), first)
    a.reset()  # from each game's generator: the next deals, not the first again
    assert not np.array_equal(a.observations(), first)


def test_play_random_plays_the_steps_asked() -> None:
    for env_id in GAMES:
        batch = BatchedGames(env_id, 3, seed=1)
        played, ended = batch.play_random(20_000, seed=2)
        assert played == 20_000 and ended >= 1
        assert batch.play_random(200, seed=2, observe=False)[0] == 200
        assert batch.masks().sum(axis=1).min() >= 1  # every game still has a move


def test_an_illegal_action_names_it_and_changes_nothing() -> None:
    batch = BatchedGames("skybirds_v0", 3, seed=4, num_players=3)
    before = (batch.observations().copy(), batch.rng_states(), batch.steps_played())
    actions = batch.sample_actions(np.random.default_rng(0))
    illegal = int(np.flatnonzero(batch.masks()[2] == 0)[0])
    actions[2] = illegal
    refusal = rf"game 2: action {illegal} is not legal.*allowed"
    with pytest.raises(BatchedActionError, match=refusal):
        batch.step(actions)
    assert np.array_equal(batch.observations(), before[0])
    assert batch.rng_states() == before[1]
    assert np.array_equal(batch.steps_played(), before[2])
    actions[2] = batch.num_actions  # out of range
    with pytest.raises(BatchedActionError, match=f"action {batch.num_actions} is not legal"):
        batch.step(actions)


def test_bad_arrays_are_refused() -> None:
    batch = BatchedGames("asrus_v0", 2, seed=0)
    with pytest.raises(BatchedActionError, match=r"shape \(2,\)"):
        batch.step([0, 0, 0])
    with pytest.raises(BatchedActionError, match="must be integers"):
        batch.step(np.array([0.5, 1.0]))
    with pytest.raises(OptionError, match="int8 array of shape"):
        batch.masks(out=np.zeros((2, batch.num_actions), dtype=np.int32))
    out = np.zeros((2, batch.num_actions), dtype=np.int8)
    assert batch.masks(out=out) is out and out.any()


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"engine": "python"}, "engine='python'.*allowed: engine='compiled'"),
        ({"illegal_action": "penalize"}, "illegal_action"),
        ({"render_mode": "ansi"}, "render_mode"),
        ({"no_such_option": 1}, "unknown option"),
    ],
)
def test_unsupported_options_are_refused(options: dict[str, Any], named: str) -> None:
    with pytest.raises(OptionError, match=named):
        BatchedGames("asrus_v0", 2, seed=0, **options)


@pytest.mark.parametrize("n", [0, -1, 1.5, True])
def test_bad_game_counts_are_refused(n: Any) -> None:
    with pytest.raises(OptionError, match="number of games"):
        BatchedGames("asrus_v0", n)


def test_sample_actions_draws_uniformly_among_the_legal() -> None:
    """Only legal actions, each about equally often (scipy's chi-square test)."""
    stats = pytest.importorskip("scipy.stats")
    batch = BatchedGames("asrus_v0", 2, seed=0)
    masks = np.zeros((2, batch.num_actions), dtype=np.int8)
    masks[0, [3, 7, 9]] = 1
    masks[1, [0, batch.num_actions - 1]] = 1
    rng = np.random.default_rng(1)
    picks = np.stack([batch.sample_actions(rng, masks) for _ in range(6000)])
    for row, legal in enumerate([[3, 7, 9], [0, batch.num_actions - 1]]):
        assert set(picks[:, row].tolist()) == set(legal)
        counts = [int((picks[:, row] == a).sum()) for a in legal]
        assert stats.chisquare(counts).pvalue > 0.001, counts


def test_sample_actions_gives_0_where_nobody_acts() -> None:
    batch = BatchedGames("asrus_v0", 3, seed=0)
    masks = np.zeros((3, batch.num_actions), dtype=np.int8)
    masks[1, 5] = 1
    assert batch.sample_actions(np.random.default_rng(0), masks).tolist() == [0, 5, 0]
    masks[1, 5] = 0
    assert batch.sample_actions(np.random.default_rng(0), masks).tolist() == [0, 0, 0]


def test_batches_in_threads_play_as_alone() -> None:
    """The work runs without the GIL: two batches in two threads play the
    same games as one after the other."""
    from concurrent.futures import ThreadPoolExecutor

    def play(seed: int) -> list[dict[str, Any]]:
        batch = BatchedGames("astrobirdz_v0", 8, seed=seed)
        batch.play_random(30_000, seed=seed)
        draws = np.random.default_rng(seed)
        for _ in range(50):
            batch.step(batch.sample_actions(draws))
        return batch.rng_states()

    alone = [play(seed) for seed in (1, 2)]
    with ThreadPoolExecutor(2) as pool:
        together = list(pool.map(play, (1, 2)))
    assert together == alone


def test_a_missing_compiled_engine_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the env falls back to its Python engine, the batch says why it cannot play."""
    from flockgym.envs.asrus import env as asrus_env

    monkeypatch.setattr(asrus_env, "native_available", lambda: False)
    with pytest.raises(OptionError, match="not playing its compiled engine"):
        BatchedGames("asrus_v0", 2, seed=0)
