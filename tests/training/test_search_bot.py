"""The search bot (``flockgym.bots.search``): its spec and settings, clear
errors, determinism given its seed, legal play to the end in every env with a
tiny budget, and a win over the random bot in a small seeded match."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from flockgym.bots.policies import make_participant, parse_spec, parse_specs
from flockgym.bots.search import (
    SearchBot,
    SearchSettings,
    copy_world,
    light_copy,
    paired,
    parse_settings,
)
from flockgym.common.errors import BotSpecError
from flockgym.envs import ENVS, list_envs, make
from flockgym.envs.core.play import play_game


def test_a_bare_search_spec_has_the_default_settings() -> None:
    spec = parse_spec("search")
    assert spec.kind == "search"
    assert spec.search == SearchSettings(1.0, None, "heuristic", 0.7, 2.0, "paired")


def test_settings_parse_budget_in_seconds_or_simulations() -> None:
    assert parse_spec("search:budget=0.25s").search == SearchSettings(0.25, None, "heuristic", 0.7)
    assert parse_spec("search:budget=200,rollout=random,explore=1.5").search == SearchSettings(
        None, 200, "random", 1.5
    )


def test_a_list_of_specs_keeps_the_search_settings_together() -> None:
    specs = parse_specs("search:budget=200,rollout=random,heuristic,random")
    assert [s.text for s in specs] == ["search:budget=200,rollout=random", "heuristic", "random"]
    assert [s.kind for s in specs] == ["search", "heuristic", "random"]
    assert [s.text for s in parse_specs("heuristic,search")] == ["heuristic", "search"]


def test_the_same_bot_spec_may_appear_twice_with_other_settings() -> None:
    """``search:budget=10,search:budget=20`` is two searches (the second
    ``search:`` starts a spec; it was once read as a setting of the first)."""
    specs = parse_specs("search:budget=10,search:budget=20,rollout=random,heuristic")
    assert [s.text for s in specs] == [
        "search:budget=10",
        "search:budget=20,rollout=random",
        "heuristic",
    ]
    assert [s.search.simulations for s in specs[:2]] == [10, 20]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("search:depth=3", "allowed keys budget, rollout, method, explore, confidence"),
        ("search:budget", "allowed keys budget, rollout, method, explore, confidence"),
        ("search:budget=0s", "<seconds>s with 0 < seconds <= 60"),
        ("search:budget=61s", "<seconds>s with 0 < seconds <= 60"),
        ("search:budget=0", "simulations 1..100000"),
        ("search:budget=fast", "simulations 1..100000"),
        ("search:budget=1s,budget=2s", "search setting budget given twice"),
        ("search:rollout=search", "a search cannot roll out with a search"),
        ("search:rollout=nothing", "unknown bot spec 'nothing'"),
        ("search:explore=-1", "search explore '-1': allowed: a number from 0 to 10"),
        ("search:confidence=11", "search confidence '11': allowed: a number from 0 to 10"),
        ("search:method=mcts", "search method 'mcts': allowed: paired, ucb"),
    ],
)
def test_a_wrong_setting_is_refused_naming_what_is_allowed(text: str, names: str) -> None:
    with pytest.raises(BotSpecError) as err:
        parse_spec(text)
    assert names in str(err.value)


def test_settings_describe_themselves_as_spec_text() -> None:
    settings = parse_settings(["budget=50", "rollout=random"])
    assert settings.describe() == (
        "budget=50,rollout=random,method=paired,explore=0.7,confidence=2"
    )
    assert parse_settings(["method=ucb"]).method == "ucb"


def test_a_search_bot_needs_the_table() -> None:
    env = make("astrobirdz_v0", num_players=2)
    env.reset(seed=0)
    raw = env.unwrapped
    bot = SearchBot("astrobirdz_v0", {"num_players": 2}, SearchSettings(None, 5), seed=0)
    agent = raw.agent_selection
    with pytest.raises(BotSpecError, match="see_table"):
        bot.act(raw.observe(agent), raw.view(agent))


def play(env_id: str, players: list[str], seed: int, budget: int = 4) -> tuple[list, dict]:
    """One game, the first seat a search bot of ``budget`` simulations, the
    others ``players``; its moves and scores."""
    n = ENVS[env_id].player_counts[0]
    options = {"num_players": n, "max_steps": 4000}
    env = make(env_id, **options)
    specs = [f"search:budget={budget}", *players][:n]
    specs += [players[-1]] * (n - len(specs))
    bots = {
        agent: make_participant(spec, env_id, options).new_bot(seed * 10 + i)
        for i, (agent, spec) in enumerate(zip(env.possible_agents, specs, strict=True))
    }
    record = play_game(env, bots, seed=seed)
    return record.moves, record.scores


@pytest.mark.parametrize("env_id", list_envs())
def test_it_plays_legal_moves_to_the_end_and_repeats_given_its_seed(env_id: str) -> None:
    """play_game steps only legal moves (the env raises otherwise); the same
    seeds give the same game, move for move."""
    first = play(env_id, ["random"], seed=1, budget=2)
    again = play(env_id, ["random"], seed=1, budget=2)
    assert first[0], "the game has moves"
    assert json.dumps(first) == json.dumps(again)


def test_it_beats_the_random_bot_in_a_small_seeded_match() -> None:
    """Astrobirdz at 2 players, 6 seeded games with 8 simulations a move: the
    search bot wins 5 of them (exact, since everything is seeded)."""
    wins = 0
    for seed in range(6):
        _, scores = play("astrobirdz_v0", ["random"], seed=seed, budget=8)
        wins += scores["player_0"] > scores["player_1"]
    assert wins == 5


def test_paired_differences_give_their_mean_and_padded_standard_error() -> None:
    """Differences 1, 1, 0, 0 over four worlds: mean 0.5, squared deviations 1
    plus the padding 1, standard error sqrt(2 / 16); only shared worlds count."""
    mean, error = paired([1.0, 1.0, 0.5, 0.5], [0.0, 0.0, 0.5, 0.5, 1.0])
    assert mean == 0.5
    assert error == math.sqrt(2 / 16)
    assert paired([], [1.0]) == (0.0, math.inf)


@pytest.mark.parametrize("env_id", list_envs())
def test_every_copy_of_a_world_plays_out_the_same(env_id: str) -> None:
    """Common random numbers: two copies of one resampled world, rolled out with
    the same seed, give the same game move for move (same dice and draws)."""
    n = ENVS[env_id].player_counts[0]
    env = make(env_id, num_players=n)
    env.reset(seed=3)
    raw = env.unwrapped
    bot = SearchBot(env_id, {"num_players": n}, SearchSettings(None, 4), seed=0)
    seat = raw.possible_agents.index(raw.agent_selection)
    world = bot.resample(light_copy(raw.clone()), seat, bot.rng)

    def moves_of(sim: object) -> list[int]:
        moves: list[int] = []
        original = sim.step  # type: ignore[attr-defined]

        def step(action: int | None) -> None:
            if action is not None:
                moves.append(int(action))
            original(action)

        sim.step = step  # type: ignore[attr-defined]
        return moves

    games = []
    for _ in range(2):
        sim = copy_world(world)
        moves = moves_of(sim)
        bots = {a: bot.rollout_bots(7) for a in sim.possible_agents}
        legal = [int(a) for a in np.flatnonzero(sim.observe(sim.agent_selection)["action_mask"])]
        share = bot._roll_out(sim, seat, legal[0], bots)
        games.append((moves, share, sim.game.scores()))
    assert games[0][0], "the world plays on"
    assert games[0] == games[1]
    assert world.agents, "the world itself is not played"


def values_for(pairs: dict[int, list[float]]) -> dict[int, list[float]]:
    return {move: list(v) for move, v in pairs.items()}


def test_candidates_that_cannot_beat_the_rollout_move_are_dropped() -> None:
    """After four worlds: move 1 loses every world to the rollout's move 0 (mean
    -1, error sqrt(1/16)), so it is dropped; move 2 ties it and stays; move 3,
    which wins every world, is the leader and, with move 2 beaten by it, alone
    left: the search is over and plays it."""
    bot = SearchBot("astrobirdz_v0", {"num_players": 2}, SearchSettings(None, 40), seed=0)
    values = {0: [0.0] * 4, 1: [-1.0] * 4, 2: [0.0] * 4}
    assert bot._still_in_play([0, 1, 2], values_for(values), prior=0) == [0, 2]
    values[3] = [1.0] * 4
    assert bot._still_in_play([0, 1, 2, 3], values_for(values), prior=0) == [3]
    assert bot._choose_paired([3], values_for(values), prior=0) == 3
    # before MIN_WORLDS worlds nothing is dropped
    short = {move: v[:3] for move, v in values.items()}
    assert bot._still_in_play([0, 1, 2, 3], short, prior=0) == [0, 1, 2, 3]
    # a lead within the margin plays the rollout policy's move
    close = {0: [0.0] * 4, 2: [1.0, 0.0, 0.0, 0.0]}
    assert bot._choose_paired([0, 2], close, prior=0) == 0


def test_a_paired_search_is_deterministic_and_stops_early() -> None:
    """Astrobirdz at 2 players, seed 5, 100 simulations: the search seat's first
    four moves and simulation counts, twice the same; the first search stops at
    56 simulations, and the fourth leaves the heuristic's move (55) for 56 after
    47 simulations (exact, since everything is seeded)."""
    runs = []
    for _ in range(2):
        env = make("astrobirdz_v0", num_players=2)
        env.reset(seed=5)
        raw = env.unwrapped
        bot = SearchBot("astrobirdz_v0", {"num_players": 2}, SearchSettings(None, 100), seed=9)
        heuristic = make_participant("heuristic", "astrobirdz_v0", {"num_players": 2}).new_bot(1)
        record: list[tuple[int, int]] = []
        while len(record) < 4:
            agent = raw.agent_selection
            if agent == "player_0":
                bot.see_table(raw, agent)
                move = int(bot.act(raw.observe(agent), raw.view(agent)))
                record.append((move, bot.last_simulations))
            else:
                move = int(heuristic.act(raw.observe(agent), raw.view(agent)))
            raw.step(move)
        runs.append(record)
    assert runs[0] == runs[1] == [(55, 56), (10, 0), (116, 0), (56, 47)]


class SlowingClock:
    """A fake clock that a simulation advances: the first takes ``first`` seconds,
    every later one ``later`` (the machine got busy after the bot sized its search)."""

    def __init__(self, first: float, later: float) -> None:
        self.now, self.first, self.later, self.calls = 0.0, first, later, 0

    def __call__(self) -> float:
        return self.now

    def simulated(self) -> None:
        self.now += self.first if self.calls == 0 else self.later
        self.calls += 1


@pytest.mark.parametrize("method", ["paired", "ucb"])
def test_a_time_budget_is_a_deadline_on_the_clock(method: str) -> None:
    """A 1 s budget whose first simulation took 0.01 s sizes the search for about a
    hundred; when each later one takes 0.3 s, the move still ends by the deadline
    plus one simulation (1.3 s on the fake clock), not after 30 s."""
    clock = SlowingClock(first=0.01, later=0.3)
    settings = SearchSettings(1.0, None, rollout="random", method=method, confidence=0.0)
    bot = SearchBot("astrobirdz_v0", {"num_players": 2}, settings, seed=3, clock=clock)
    simulate = "_play_world" if method == "paired" else "_simulate"
    run = getattr(bot, simulate)

    def timed(*args):
        value = run(*args)
        clock.simulated()
        return value

    setattr(bot, simulate, timed)
    env = make("astrobirdz_v0", num_players=2)
    env.reset(seed=5)
    raw = env.unwrapped
    while len(raw.legal_actions(raw.agent_selection)) < 2:
        raw.step(raw.legal_actions(raw.agent_selection)[0])
    agent = raw.agent_selection
    bot.see_table(raw, agent)
    move = int(bot.act(raw.observe(agent), raw.view(agent)))
    assert move in raw.legal_actions(agent)
    assert 1.0 <= clock.now <= 1.0 + 0.3, clock.now
    assert bot.last_simulations == clock.calls
