"""The vector Asrus engine and bot against the scalar ones, turn by turn.

Every test plays the same games both ways: ``B`` games of :class:`VectorAsrus`
and ``B`` scalar envs seeded alike (or loaded with the same state), given the
same actions. After every step it compares the whole game state
(``to_game(b).to_dict()`` against the scalar engine's ``to_dict()``, the
generator's state included, so every card dealt and drawn), every seat's
observation and mask, the rewards, the termination and truncation flags, and
at the end the winners. The vector heuristic bot is compared decision by
decision with the scalar bot reading each seat's view.

The games cover every player count with every option sample of
``raw_env.option_samples`` (which between them take every value of every game
option), random option sets drawn by hypothesis over every option (refused
sets must be refused alike), every reward mode, ``illegal_action="penalize"``
with illegal actions thrown in, ``max_steps`` caps that cut turns short,
whole-turn steps against the parallel env, auto-reset, scenarios and loaded
mid-turn states. A few hundred games in the fast run, thousands under
``@pytest.mark.slow``.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from flockgym.envs.asrus import vector_bots
from flockgym.envs.asrus.bots import AsrusHeuristicBot
from flockgym.envs.asrus.env import parallel_env, raw_env
from flockgym.envs.asrus.vector import VectorAsrus
from flockgym.envs.asrus.vector_bots import VectorHeuristicBot, python_sum
from flockgym.envs.core.errors import IllegalActionError, OptionError
from flockgym.envs.core.rewards import rank_rewards, win_rewards


def constructible(options: dict[str, Any]) -> bool:
    try:
        raw_env(**options)
    except OptionError:
        return False
    return True


SAMPLE_CONFIGS = [
    dict(sample, num_players=n)
    for n in raw_env.player_counts
    for sample in raw_env.option_samples_for(n)
    if constructible(dict(sample, num_players=n))
]
"""Every player count with every option sample it can be dealt with."""
SAMPLE_IDS = [
    f"{c['num_players']}p-" + ("-".join(f"{k}={v}" for k, v in c.items() if k != "num_players")
                               or "defaults")
    for c in SAMPLE_CONFIGS
]  # fmt: skip


# ---- playing both engines side by side -----------------------------------------


def same(actual: Any, expected: Any, what: str = "") -> None:
    """Exact equality of two arrays (numpy's detailed report only on a failure)."""
    if not np.array_equal(actual, expected):
        np.testing.assert_array_equal(actual, expected, err_msg=what)


class Twin:
    """The same ``B`` games in the vector engine and in ``B`` scalar AEC envs."""

    def __init__(self, options: dict[str, Any], seeds: list[int], auto_reset: bool = False):
        self.options = options
        self.vector = VectorAsrus(len(seeds), auto_reset=auto_reset, **options)
        self.vector.reset(seeds)
        self.scalar = [raw_env(**options) for _ in seeds]
        for env, seed in zip(self.scalar, seeds, strict=True):
            env.reset(seed=seed)
        self.agents = self.scalar[0].possible_agents

    def scalar_done(self, b: int) -> bool:
        env = self.scalar[b]
        first = self.agents[0]
        return bool(env.terminations[first] or env.truncations[first])

    def check(self) -> None:
        """Everything the two engines show must be equal, now."""
        v = self.vector
        observations = v.observations()
        aec_masks = v.masks(to_act_only=True)
        legal = v.masks()
        current = v.current_players()
        rows = np.arange(v.num_games)
        seat_rows = np.maximum(current, 0)
        same(v.observations(current), observations[rows, seat_rows], "observations(seats)")
        same(v.masks(current), legal[rows, seat_rows], "masks(seats)")
        games, seats = np.repeat(rows, v.num_players), np.tile(np.arange(v.num_players), len(rows))
        pairs = np.random.default_rng(len(rows)).permutation(games.size)
        same(
            v.observations_of(games[pairs], seats[pairs]),
            observations[games[pairs], seats[pairs]],
            "observations_of(games, seats)",
        )
        scores, winners = v.scores(), v.winners()
        for b, env in enumerate(self.scalar):
            done = self.scalar_done(b)
            assert bool(v.done[b]) == done, f"game {b}: done {v.done[b]} vs {done}"
            assert v.to_game(b).to_dict() == env.game.to_dict(), f"game {b} state differs"
            expected_seat = -1 if done else env.seat_of(env.agent_selection)
            assert current[b] == expected_seat
            seen = [env.observe(agent) for agent in self.agents]
            same(observations[b], [o["observation"] for o in seen], f"game {b} observations")
            same(aec_masks[b], [o["action_mask"] for o in seen], f"game {b} AEC masks")
            want = np.zeros_like(legal[b]) if done else env.game.legal_masks()
            same(legal[b], want, f"game {b} legal masks")
            same(scores[b], env.game.scores(), f"game {b} scores")
            expected_winners = [env.seat_of(a) for a in env.winners]
            assert np.flatnonzero(winners[b]).tolist() == expected_winners

    def step(self, rng: np.random.Generator, illegal_rate: float = 0.0) -> None:
        """One AEC step in every live game: a random legal action, or now and then
        (``illegal_rate``) an illegal one; then compare what the step paid."""
        v = self.vector
        current = v.current_players()
        actions = np.full(v.num_games, -1)
        masks = v.masks(current)
        live = np.flatnonzero(current >= 0)
        for b in live:
            actions[b] = pick(masks[b], rng, illegal_rate)
        result = v.step(actions)
        for b in live:
            env = self.scalar[b]
            env.step(int(actions[b]))
            self.compare_step(b, result)
        assert not result.rewards[current < 0].any()

    def compare_step(self, b: int, result: Any) -> None:
        env = self.scalar[b]
        first = self.agents[0]
        same(result.rewards[b], [env.rewards[a] for a in self.agents], f"game {b} rewards")
        assert bool(result.terminated[b]) == env.terminations[first]
        assert bool(result.truncated[b]) == env.truncations[first]

    def play(self, rng: np.random.Generator, illegal_rate: float = 0.0) -> int:
        """Play every game to its end, checking every step; returns the steps."""
        steps = 0
        self.check()
        while not self.vector.done.all():
            self.step(rng, illegal_rate)
            self.check()
            steps += 1
        return steps


def pick(mask: np.ndarray, rng: np.random.Generator, illegal_rate: float = 0.0) -> int:
    """A random legal action of ``mask``, or with ``illegal_rate`` an illegal one
    (a masked-out id, or one out of range)."""
    if rng.random() < illegal_rate:
        illegal = [*np.flatnonzero(mask == 0).tolist(), 195, -1, 10**6]
        return int(illegal[rng.integers(len(illegal))])
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(legal.size)])


def seeds_for(base: int, count: int) -> list[int]:
    return [base * 1000 + i for i in range(count)]


# ---- every option sample, seat by seat ------------------------------------------


@pytest.mark.parametrize("options", SAMPLE_CONFIGS, ids=SAMPLE_IDS)
def test_option_samples_match_the_scalar_engine_step_by_step(options):
    index = SAMPLE_CONFIGS.index(options)
    twin = Twin(options, seeds_for(index, 5))
    twin.play(np.random.default_rng(index))


@pytest.mark.slow
@pytest.mark.parametrize("options", SAMPLE_CONFIGS, ids=SAMPLE_IDS)
def test_thousands_of_games_match_the_scalar_engine(options):
    index = SAMPLE_CONFIGS.index(options)
    for batch in range(4):
        twin = Twin(options, seeds_for(100 + 10 * index + batch, 25))
        twin.play(np.random.default_rng([index, batch]))


@pytest.mark.parametrize("reward", ["win", "score", "rank"])
@pytest.mark.parametrize("players", [3, 5, 8])
def test_every_reward_mode_pays_as_the_aec_env(reward, players):
    options = {"num_players": players, "reward": reward, "rounds": 2}
    twin = Twin(options, seeds_for(players, 6))
    twin.play(np.random.default_rng(players))


@pytest.mark.parametrize("players", [3, 6, 9])
def test_penalize_ends_games_as_the_aec_env(players):
    options = {"num_players": players, "illegal_action": "penalize", "reward": "score"}
    twin = Twin(options, seeds_for(40 + players, 12))
    twin.play(np.random.default_rng(players), illegal_rate=0.02)
    assert (twin.vector.penalized >= 0).any()  # some games did end on a penalty


@pytest.mark.parametrize("max_steps", [1, 7, 13, 61])
def test_max_steps_truncates_as_the_aec_env(max_steps):
    options = {"num_players": 5, "max_steps": max_steps, "reward": "score", "rounds": 2}
    twin = Twin(options, seeds_for(max_steps, 5))
    twin.play(np.random.default_rng(max_steps))
    assert twin.vector.truncated.any() and (twin.vector.truncated | twin.vector.over).all()


# ---- dealing="fast": the same rules on the vector engine's own deals -----------------

DEALT = ("rng", "hands", "specials", "number_pile", "special_pile", "destination",
         "destination_card")  # fmt: skip
"""What a deal decides: the only state where the two dealings may differ."""


def load_scalar(env: Any, game: Any) -> None:
    """Put a game into a scalar env through its public state dict (as JSON: a
    state dict is JSON, and the loader checks its types as JSON gives them)."""
    state = env.state_dict()
    state["game"] = game.to_dict()
    env.load_state_dict(json.loads(json.dumps(state)))


class FastTwin(Twin):
    """A :class:`Twin` whose vector engine deals with ``dealing="fast"``: each
    scalar game is loaded with the vector engine's deal, and again whenever a
    new round is dealt (after checking that everything but the deal agrees and
    that the deal is a valid one); every rule in between is compared as usual."""

    def __init__(self, options: dict[str, Any], seeds: list[int]) -> None:
        self.options = options
        self.vector = VectorAsrus(len(seeds), dealing="fast", **options)
        self.vector.reset(seeds)
        self.scalar = [raw_env(**options) for _ in seeds]
        for b, env in enumerate(self.scalar):
            env.reset(seed=0)
            load_scalar(env, self.vector.to_game(b))
        self.agents = self.scalar[0].possible_agents

    def step(self, rng: np.random.Generator, illegal_rate: float = 0.0) -> None:
        rounds = self.vector.round.copy()
        super().step(rng, illegal_rate)
        for b in np.flatnonzero((self.vector.round != rounds) & ~self.vector.done):
            mine, theirs = self.vector.to_game(b), self.scalar[b].game
            assert mine.invariant_violations() == []
            assert sum(mine.hands[0]) == self.vector.config.hand_size
            ours, scalar = mine.to_dict(), theirs.to_dict()
            assert {k: v for k, v in ours.items() if k not in DEALT} == {
                k: v for k, v in scalar.items() if k not in DEALT
            }
            load_scalar(self.scalar[b], mine)


@pytest.mark.parametrize("options", SAMPLE_CONFIGS[::2], ids=SAMPLE_IDS[::2])
def test_fast_dealing_plays_the_same_rules(options):
    index = SAMPLE_CONFIGS.index(options)
    FastTwin(options, seeds_for(800 + index, 4)).play(np.random.default_rng(index))


@pytest.mark.slow
@pytest.mark.parametrize("options", SAMPLE_CONFIGS, ids=SAMPLE_IDS)
def test_fast_dealing_plays_the_same_rules_in_many_games(options):
    index = SAMPLE_CONFIGS.index(options)
    FastTwin(options, seeds_for(900 + index, 40)).play(np.random.default_rng(index))


def test_fast_dealing_is_decided_by_each_games_own_seed():
    together = VectorAsrus(4, dealing="fast", num_players=5)
    together.reset([1, 2, 3, 4])
    alone = VectorAsrus(1, dealing="fast", num_players=5)
    alone.reset([3])
    assert together.to_game(2).to_dict() == alone.to_game(0).to_dict()
    again = VectorAsrus(4, dealing="fast", num_players=5)
    again.reset([1, 2, 3, 4])
    assert [g.to_dict() for g in map(again.to_game, range(4))] == [
        g.to_dict() for g in map(together.to_game, range(4))
    ]


def test_fast_dealing_deals_every_card_alike():
    """Over 4,000 deals each copy of each number reaches the first hand and the
    destination as often as chance says (12/64 and 1/64 of the time)."""
    games = 4000
    vector = VectorAsrus(games, dealing="fast", num_players=5)
    vector.reset(list(range(games)))
    deck = np.array([0] + [raw_env().config.number_counts[x] for x in range(1, 16)])
    in_hand = vector.holdings[:, 0, 1:16].sum(axis=0) / (games * deck[1:])
    assert np.all(np.abs(in_hand - 12 / 64) < 0.02)
    destination = np.bincount(vector.destination, minlength=16)[1:] / (games * deck[1:])
    assert np.all(np.abs(destination - 1 / 64) < 0.02)
    specials = vector.holdings[:, 0, 16:21].sum(axis=0) / (games * 2)
    assert np.all(np.abs(specials - 2 / 10) < 0.02)


def test_an_unknown_dealing_is_refused():
    with pytest.raises(OptionError, match="dealing='quick' is not allowed"):
        VectorAsrus(2, dealing="quick")


# ---- random option sets over every option -----------------------------------------


@st.composite
def any_options(draw: Any) -> dict[str, Any]:
    """An option set over every option of the env, valid or not."""
    options: dict[str, Any] = {"num_players": draw(st.integers(3, 9))}
    maybe = {
        "hand_size": st.integers(1, 14),
        "specials_per_player": st.integers(0, 4),
        "starting_points": st.integers(1, 120),
        "rounds": st.one_of(st.none(), st.integers(1, 3)),
        "target": st.integers(1, 300),
        "elimination": st.booleans(),
        "jokers": st.booleans(),
        "removed_numbers": st.lists(st.integers(1, 15), max_size=6),
        "retrogrades": st.sampled_from(["once", "cancel"]),
        "retrograde_deposit": st.sampled_from(["closest", "farthest"]),
        "majority_ties": st.sampled_from(["none", "all"]),
        "reward": st.sampled_from(["win", "score", "rank"]),
        "illegal_action": st.sampled_from(["raise", "penalize"]),
        "max_steps": st.integers(1, 400),
    }
    for name, strategy in maybe.items():
        if draw(st.booleans()):
            options[name] = draw(strategy)
    if options.get("rounds", 1) is None:
        options["max_steps"] = min(options.get("max_steps", 300), 300)  # a target may take long
    return options


def refusal(build: Any) -> str | None:
    try:
        build()
    except OptionError as err:
        return str(err)
    return None


def play_random_options(options: dict[str, Any], seed: int) -> None:
    """Both engines refuse the same option sets with the same message; the
    others play alike, illegal actions included under ``penalize``."""
    scalar_refusal = refusal(lambda: raw_env(**options))
    assert refusal(lambda: VectorAsrus(3, **options)) == scalar_refusal
    assume(scalar_refusal is None)
    twin = Twin(options, [seed, seed + 1, seed + 2])
    rate = 0.01 if options.get("illegal_action") == "penalize" else 0.0
    twin.play(np.random.default_rng(seed), illegal_rate=rate)


@settings(max_examples=25)
@given(options=any_options(), seed=st.integers(0, 2**32 - 1))
def test_random_option_sets_match_the_scalar_engine(options, seed):
    play_random_options(options, seed)


@pytest.mark.slow
@settings(max_examples=600)
@given(options=any_options(), seed=st.integers(0, 2**32 - 1))
def test_many_random_option_sets_match_the_scalar_engine(options, seed):
    play_random_options(options, seed)


# ---- whole turns against the parallel env -----------------------------------------


def play_turns_against_parallel(options: dict[str, Any], seeds: list[int], rng: Any) -> None:
    """``step_turn`` against ``parallel_env().step``: the same observations
    (the parallel env shows nobody committed), masks, rewards and flags."""
    vector = VectorAsrus(len(seeds), **options)
    vector.reset(seeds)
    envs = [parallel_env(**options) for _ in seeds]
    for env, seed in zip(envs, seeds, strict=True):
        env.reset(seed=seed)
    agents = envs[0].possible_agents
    lo, hi = envs[0]._aec.observer.offsets["committed"]
    penalize = options.get("illegal_action") == "penalize"
    while not vector.done.all():
        masks = vector.masks()
        live = np.flatnonzero(~vector.done)
        actions = np.zeros((vector.num_games, vector.num_players), dtype=np.int64)
        for b in live:
            for s in range(vector.num_players):
                actions[b, s] = pick(masks[b, s], rng, 0.01 if penalize else 0.0)
        result = vector.step_turn(actions)
        observations = vector.observations()
        observations[:, :, lo:hi] = 0.0
        after = vector.masks()
        for b in live:
            seen, rewards, terms, truncs, _ = envs[b].step(
                {a: int(actions[b, s]) for s, a in enumerate(agents)}
            )
            assert vector.to_game(b).to_dict() == envs[b].game.to_dict()
            for s, agent in enumerate(agents):
                same(observations[b, s], seen[agent]["observation"])
                same(after[b, s], seen[agent]["action_mask"])
            same(result.rewards[b], [rewards[a] for a in agents])
            assert bool(result.terminated[b]) == terms[agents[0]]
            assert bool(result.truncated[b]) == truncs[agents[0]]
            assert bool(vector.done[b]) == (not envs[b].agents)


@pytest.mark.parametrize("options", SAMPLE_CONFIGS[::3], ids=SAMPLE_IDS[::3])
def test_whole_turns_match_the_parallel_env(options):
    index = SAMPLE_CONFIGS.index(options)
    play_turns_against_parallel(options, seeds_for(300 + index, 4), np.random.default_rng(index))


@pytest.mark.parametrize(
    "extra",
    [
        {"max_steps": 7},
        {"max_steps": 33},
        {"illegal_action": "penalize", "reward": "score"},
        {"reward": "rank", "rounds": 2},
    ],
)
def test_whole_turns_cut_short_or_penalized_as_the_parallel_env(extra):
    options = {"num_players": 5, **extra}
    play_turns_against_parallel(options, seeds_for(7, 8), np.random.default_rng(1))


def test_whole_turn_needs_a_turn_start():
    vector = VectorAsrus(2, num_players=3)
    vector.reset([1, 2])
    vector.step(vector.masks(vector.current_players()).argmax(axis=1))
    with pytest.raises(OptionError, match="commit the rest with step"):
        vector.step_turn(np.zeros((2, 3), dtype=np.int64))


# ---- several seats at once: step_seats against step() seat by seat ------------------


@pytest.mark.parametrize(
    "extra",
    [
        {"reward": "score"},
        {"reward": "rank", "rounds": 2},
        {"max_steps": 9, "reward": "score"},
        {"illegal_action": "penalize", "reward": "win"},
    ],
)
@pytest.mark.parametrize("players", [3, 5])
def test_several_seats_at_once_commit_as_seat_by_seat(extra, players):
    """``step_seats`` commits what as many ``step`` calls commit: every game's
    state, the summed rewards and the flags agree after every call, with random
    spans (none, some, the rest of the turn), caps and penalties."""
    options = {"num_players": players, **extra}
    seeds = seeds_for(players * 10 + len(extra), 8)
    batch, single = (VectorAsrus(len(seeds), **options) for _ in range(2))
    batch.reset(seeds)
    single.reset(seeds)
    rng = np.random.default_rng(players)
    rate = 0.03 if "illegal_action" in extra else 0.0
    while not batch.done.all():
        masks = batch.masks()
        actions = np.zeros((batch.num_games, players), dtype=np.int64)
        for b in range(batch.num_games):
            for seat in range(players):
                actions[b, seat] = pick(masks[b, seat], rng, rate) if masks[b].any() else 0
        until = batch.committed + rng.integers(0, players + 1 - batch.committed)
        result = batch.step_seats(actions, until)
        rewards = np.zeros_like(result.rewards)
        left = until - single.committed
        while True:
            behind = np.flatnonzero(~single.done & (left > 0))
            if not behind.size:
                break
            seat_actions = actions[np.arange(batch.num_games), single.committed]
            rewards += single.step(seat_actions, games=behind).rewards
            left[behind] -= 1
        same(result.rewards, rewards, "summed rewards")
        same(batch.done, single.done, "done")
        same(batch.penalized, single.penalized, "penalized")
        same(batch.truncated, single.truncated, "truncated")
        for b in range(batch.num_games):
            assert batch.to_game(b).to_dict() == single.to_game(b).to_dict(), f"game {b}"
        same(batch.observations(), single.observations(), "observations")
    if "max_steps" in extra:
        assert batch.truncated.any()
    if rate:
        assert (batch.penalized >= 0).any()


def test_several_seats_refuse_a_bad_span_or_an_illegal_action_and_change_nothing():
    vector = VectorAsrus(2, num_players=4)
    vector.reset([5, 6])
    vector.step(vector.masks(vector.current_players()).argmax(axis=1))
    before = [vector.to_game(b).to_dict() for b in range(2)]
    actions = vector.masks().argmax(axis=2)
    with pytest.raises(OptionError, match=r"until\[0\]=0: game 0 has 1 seat\(s\) committed"):
        vector.step_seats(actions, [0, 4])
    with pytest.raises(OptionError, match=r"allowed: 1\.\.4"):
        vector.step_seats(actions, [5, 4])
    actions[1, 2] = int(np.flatnonzero(vector.masks()[1, 2] == 0)[0])
    with pytest.raises(IllegalActionError, match="player_2 of game 1"):
        vector.step_seats(actions, [4, 4])
    assert [vector.to_game(b).to_dict() for b in range(2)] == before


# ---- auto-reset, scenarios, loaded states ------------------------------------------


@pytest.mark.parametrize(
    "extra",
    [{"reward": "rank"}, {"max_steps": 25, "reward": "score"}, {"illegal_action": "penalize"}],
)
def test_auto_reset_deals_the_next_game_from_the_same_generator(extra):
    """A finished game (by the rules, the cap or a penalty) is dealt again from
    its generator, as the AEC env's ``reset()`` without a seed; the final
    observations, scores and winners come back."""
    options = {"num_players": 4, **extra}
    rate = 0.01 if "illegal_action" in extra else 0.0
    seeds = seeds_for(5, 6)
    vector = VectorAsrus(len(seeds), auto_reset=True, **options)
    vector.reset(seeds)
    envs = [raw_env(**options) for _ in seeds]
    for env, seed in zip(envs, seeds, strict=True):
        env.reset(seed=seed)
    agents = envs[0].possible_agents
    rng = np.random.default_rng(0)
    finished = 0
    while finished < 3 * len(seeds):
        current = vector.current_players()
        assert (current >= 0).all()  # nobody is ever left done
        masks = vector.masks(current)
        actions = np.array([pick(masks[b], rng, rate) for b in range(len(seeds))])
        result = vector.step(actions)
        for b, env in enumerate(envs):
            env.step(int(actions[b]))
            same(result.rewards[b], [env.rewards[a] for a in agents])
            if env.terminations[agents[0]] or env.truncations[agents[0]]:
                assert result.terminated[b] == env.terminations[agents[0]]
                assert result.truncated[b] == env.truncations[agents[0]]
                for s, agent in enumerate(agents):
                    final = env.observe(agent)["observation"]
                    same(result.final_observations[b, s], final)
                same(result.final_scores[b], env.game.scores())
                winners = [env.seat_of(a) for a in env.winners]
                assert np.flatnonzero(result.final_winners[b]).tolist() == winners
                env.reset()
                finished += 1
            assert vector.to_game(b).to_dict() == env.game.to_dict()


def test_scenarios_deal_as_the_scalar_reset_options():
    scenario = {
        "hands": {"player_0": ["1", "15", "8"], "player_1": ["2", "3", "4"]},
        "specials": {"player_0": ["M", "C"], "player_2": []},
        "destination": "9",
        "stones": {"player_1": 3},
        "deposit": 7,
    }
    options = {"num_players": 3, "rounds": 2}
    twin = Twin(options, [1, 2, 3])
    twin.vector.reset([11, 12, 13], scenarios=[scenario, None, scenario])
    for env, seed, setup in zip(twin.scalar, [11, 12, 13], [scenario, {}, scenario], strict=True):
        env.reset(seed=seed, options=setup)
    twin.play(np.random.default_rng(3))


def test_an_impossible_scenario_changes_nothing():
    vector = VectorAsrus(2, num_players=3)
    vector.reset([1, 2])
    before = [vector.to_game(b).to_dict() for b in range(2)]
    with pytest.raises(OptionError, match="impossible Asrus scenario"):
        vector.reset(scenarios={"hands": {"player_0": ["1", "1"]}})
    assert [vector.to_game(b).to_dict() for b in range(2)] == before


@pytest.mark.parametrize("players", [3, 5, 8])
def test_loaded_mid_turn_states_continue_alike(players):
    """Scalar games played part-way (mid-turn too) and loaded into the vector
    engine continue exactly as the scalar games do."""
    options = {"num_players": players, "rounds": 2, "jokers": True, "max_steps": 150}
    rng = np.random.default_rng(players)
    twin = Twin(options, seeds_for(60 + players, 8))
    for b, env in enumerate(twin.scalar):
        for _ in range(int(rng.integers(0, 40)) + b):
            if twin.scalar_done(b):
                break
            env.step(pick(env.observe(env.agent_selection)["action_mask"], rng))
    twin.vector.load_games([env.game for env in twin.scalar], [env.steps for env in twin.scalar])
    twin.play(rng)


# ---- the heuristic bot ---------------------------------------------------------------


def compare_bots(options: dict[str, Any], seeds: list[int], rng: Any, bot_share: float) -> int:
    """Games where each seat plays its bot's move (or, now and then, a random one,
    for variety); at every turn every seat's vector decision must equal that of
    a scalar bot seeded alike reading the seat's view. Halfway through, some
    seats get new bots (``reseed``). Returns the decisions compared."""
    vector = VectorAsrus(len(seeds), **options)
    vector.reset(seeds)
    envs = [raw_env(**options) for _ in seeds]
    for env, seed in zip(envs, seeds, strict=True):
        env.reset(seed=seed)
    n = vector.num_players
    bot_seeds = np.arange(len(seeds) * n).reshape(len(seeds), n) + 10 * seeds[0]
    bot = VectorHeuristicBot(len(seeds), n, seeds=bot_seeds)
    scalar_bots = [[AsrusHeuristicBot(seed=int(x)) for x in row] for row in bot_seeds]
    compared = turns = 0
    while not vector.done.all():
        live = np.flatnonzero(~vector.done)
        games, seats = np.repeat(live, n), np.tile(np.arange(n), live.size)
        decided = bot.act(vector.views(games, seats)).reshape(live.size, n)
        masks = vector.masks()
        actions = np.zeros((vector.num_games, n), dtype=np.int64)
        for i, b in enumerate(live):
            env = envs[b]
            for s, agent in enumerate(env.possible_agents):
                view = env.view(agent)
                wanted = scalar_bots[b][s].act({"action_mask": masks[b, s]}, view)
                assert decided[i, s] == wanted, f"game {b} seat {s}: {view}"
                compared += 1
                use_bot = rng.random() < bot_share
                actions[b, s] = wanted if use_bot else pick(masks[b, s], rng)
        vector.step_turn(actions)
        for b in live:
            for s in range(n):
                envs[b].step(int(actions[b, s]))
            assert vector.to_game(b).to_dict() == envs[b].game.to_dict()
        turns += 1
        if turns == 3:  # new bots in seat 1 of every game, as a new episode makes
            fresh = 99 + np.arange(len(seeds))
            bot.reseed(np.arange(len(seeds)), np.ones(len(seeds), dtype=np.int64), fresh)
            for b, seed in enumerate(fresh):
                scalar_bots[b][1] = AsrusHeuristicBot(seed=int(seed))
    return compared


@pytest.mark.parametrize("options", SAMPLE_CONFIGS[::2], ids=SAMPLE_IDS[::2])
def test_vector_bot_decides_as_the_scalar_bot(options):
    index = SAMPLE_CONFIGS.index(options)
    compare_bots(options, seeds_for(500 + index, 5), np.random.default_rng(index), 0.8)


@pytest.mark.slow
@pytest.mark.parametrize("options", SAMPLE_CONFIGS, ids=SAMPLE_IDS)
def test_vector_bot_decides_as_the_scalar_bot_in_thousands_of_games(options):
    index = SAMPLE_CONFIGS.index(options)
    for share in (1.0, 0.5):
        rng = np.random.default_rng([index, int(share * 10)])
        compare_bots(options, seeds_for(700 + index, 30), rng, share)


def test_vector_bot_refuses_a_seat_with_no_legal_action():
    vector = VectorAsrus(1, num_players=3)
    vector.reset([0])
    view = vector.views(np.array([0]), np.array([0]))
    empty = view._replace(mask=np.zeros_like(view.mask))
    with pytest.raises(ValueError, match="allows no action"):
        VectorHeuristicBot(1, 3).act(empty)


def test_bot_draws_are_each_generators_next_numbers():
    """The draws come a block at a time but in each generator's own order, also
    for a bot asked twice in one call."""
    bot = VectorHeuristicBot(2, 3, seeds=np.arange(6).reshape(2, 3))
    games, seats = np.array([1, 0, 1, 1]), np.array([2, 0, 2, 0])
    first, second = bot._uniform(games, seats), bot._uniform(games, seats)
    expected = {key: np.random.default_rng(seed).random(8).tolist()
                for key, seed in {(1, 2): 5, (0, 0): 0, (1, 0): 3}.items()}  # fmt: skip
    assert first.tolist() == [expected[1, 2][0], expected[0, 0][0], expected[1, 2][1],
                              expected[1, 0][0]]  # fmt: skip
    assert second.tolist() == [expected[1, 2][2], expected[0, 0][1], expected[1, 2][3],
                               expected[1, 0][1]]  # fmt: skip


def test_python_sum_adds_as_the_interpreter_does():
    """Rows built to lose precision in plain addition (huge and tiny terms that
    cancel): the bot's sum equals ``sum()`` of this Python exactly."""
    rng = np.random.default_rng(0)
    rows = rng.random((400, 15)) * 10.0 ** rng.integers(-12, 12, size=(400, 15))
    rows[::3] *= np.where(rng.random((134, 15)) < 0.5, -1.0, 1.0)
    rows[:, 7] = np.where(rng.random(400) < 0.3, 0.0, rows[:, 7])
    expected = [sum(row.tolist()) for row in rows]
    assert python_sum(rows).tolist() == expected


def neumaier_sum(values: list[float]) -> float:
    """CPython 3.12's float ``sum()``: Neumaier's compensated summation."""
    total, compensation = 0.0, 0.0
    for x in values:
        step = total + x
        if abs(total) >= abs(x):
            compensation += (total - step) + x
        else:
            compensation += (x - step) + total
        total = step
    return total + compensation if compensation else total


def plain_sum(values: list[float]) -> float:
    """CPython's float ``sum()`` before 3.12: left to right."""
    total = 0.0
    for x in values:
        total += x
    return total


def test_python_sum_both_interpreter_rules(monkeypatch):
    """Both branches (this interpreter uses one), against their rules written out."""
    rng = np.random.default_rng(1)
    rows = rng.random((300, 15)) * 10.0 ** rng.integers(-10, 10, size=(300, 15))
    rows[::2] *= -1.0
    for compensated, rule in ((False, plain_sum), (True, neumaier_sum)):
        monkeypatch.setattr(vector_bots, "COMPENSATED_SUM", compensated)
        expected = [rule(row.tolist()) for row in rows]
        assert python_sum(rows).tolist() == expected


@pytest.mark.parametrize("mode", ["win", "rank"])
@pytest.mark.parametrize("players", [3, 4, 7, 9])
def test_final_rewards_are_the_core_reward_functions(mode, players):
    """Thousands of final scores, many tied: the batched results are exactly
    ``core.rewards``' floats."""
    vector = VectorAsrus(3000, num_players=players, reward=mode)
    rng = np.random.default_rng(players)
    vector.points[:] = rng.integers(0, 4, size=vector.points.shape) * rng.integers(1, 3)
    got = vector._final_rewards(np.arange(3000))
    for b, points in enumerate(vector.points.tolist()):
        best = max(points)
        winners = [s for s, p in enumerate(points) if p == best]
        want = win_rewards(players, winners) if mode == "win" else rank_rewards(points)
        assert got[b].tolist() == want


# ---- clear errors ---------------------------------------------------------------


def test_render_mode_is_not_covered_and_says_so():
    with pytest.raises(OptionError, match="render_mode='ansi' is not covered by the vector"):
        VectorAsrus(4, render_mode="ansi")


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"num_player": 5}, "unknown option"),
        ({"num_players": 6, "specials_per_player": 4}, "specials_per_player=4 is impossible"),
        ({"retrogrades": "twice"}, "allowed values"),
    ],
)
def test_refused_options_name_the_problem(options, fragment):
    with pytest.raises(OptionError, match=fragment):
        VectorAsrus(2, **options)


def test_bad_calls_name_the_problem():
    with pytest.raises(OptionError, match="num_games"):
        VectorAsrus(0)
    vector = VectorAsrus(3, num_players=4)
    with pytest.raises(RuntimeError, match="call reset"):
        vector.step([0, 0, 0])
    with pytest.raises(OptionError, match="one seed per game"):
        vector.reset([1, 2])
    with pytest.raises(OptionError, match="seed"):
        vector.reset([1, 2, -5])
    vector.reset([1, 2, 3])
    with pytest.raises(OptionError, match=r"shape \(3,\)"):
        vector.step([[0, 0, 0]])
    with pytest.raises(OptionError, match="integer action ids"):
        vector.step([0.5, 1.0, 2.0])
    with pytest.raises(OptionError, match="scenarios must be one dict"):
        vector.reset(scenarios=[{}, {}])
    with pytest.raises(OptionError, match=r"indices 0\.\.2"):
        vector.reset_games([3])


def test_an_illegal_action_names_game_seat_and_legal_moves_and_changes_nothing():
    vector = VectorAsrus(3, num_players=4)
    vector.reset([1, 2, 3])
    before = [vector.to_game(b).to_dict() for b in range(3)]
    masks = vector.masks(vector.current_players())
    actions = masks.argmax(axis=1)
    actions[1] = int(np.flatnonzero(masks[1] == 0)[0])
    with pytest.raises(IllegalActionError, match="player_0 of game 1; legal actions: ") as err:
        vector.step(actions)
    assert len(err.value.legal) == int(masks[1].sum())
    assert [vector.to_game(b).to_dict() for b in range(3)] == before
