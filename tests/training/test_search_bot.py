"""The search bot (``flockgym.training.search``): its spec and settings, clear
errors, determinism given its seed, legal play to the end in every env with a
tiny budget, and a win over the random bot in a small seeded match."""

from __future__ import annotations

import json

import pytest

from flockgym.envs import ENVS, list_envs, make
from flockgym.envs.core.play import play_game
from flockgym.training.errors import BotSpecError
from flockgym.training.policies import make_participant, parse_spec, parse_specs
from flockgym.training.search import SearchBot, SearchSettings, parse_settings


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
