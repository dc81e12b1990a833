"""benchmarks/arena_headroom.py, the Monte Carlo searcher that measures how far
the Arena heuristic can be beaten: its playouts never see the game's own dice
or the face-down medal stack's order, leave the game untouched, and it keeps
the heuristic's move unless the playouts clear its margin."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from arena_helpers import game as scenario_game

from flockgym.envs import arena_v0
from flockgym.envs.arena.bots import ArenaHeuristicBot
from flockgym.envs.arena.rules import ArenaConfig, ArenaGame
from flockgym.envs.core.aec import agent_name
from flockgym.envs.core.play import play_game

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "arena_headroom.py"


@pytest.fixture(scope="module")
def headroom() -> ModuleType:
    spec = importlib.util.spec_from_file_location("arena_headroom", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def a_game(players: int = 2, deal: int = 3) -> ArenaGame:
    return ArenaGame.new(ArenaConfig(num_players=players), np.random.default_rng(deal))


def played_into(game: ArenaGame, moves: int, agents: list[str], headroom: ModuleType) -> None:
    """A few heuristic moves, so that the game is under way."""
    bots = [ArenaHeuristicBot(seed=seat) for seat in range(len(agents))]
    for _ in range(moves):
        game.apply_action(headroom.heuristic_move(bots[game.current_player()], game, agents))


def test_a_playout_copy_has_dice_of_its_own_and_the_same_table(headroom):
    game = a_game()
    before = game.to_dict()
    copy = headroom.unseen_copy(game, seed=11)
    state = copy.to_dict()
    assert state["rng"] != before["rng"]
    assert sorted(state["medal_stack"]) == sorted(before["medal_stack"])
    unchanged = {k for k in before if k not in ("rng", "medal_stack")}
    assert {k: state[k] for k in unchanged} == {k: before[k] for k in unchanged}
    # the game's own next dice are not the copy's
    ours = [game.rng.integers(1, 7) for _ in range(20)]
    theirs = [copy.rng.integers(1, 7) for _ in range(20)]
    assert ours != theirs


def test_playouts_leave_the_game_as_it_was(headroom):
    agents = headroom.agent_names(2)
    game = a_game()
    played_into(game, 12, agents, headroom)
    before = game.to_dict()
    seeds = np.arange(3)
    for move in game.legal_actions():
        share = headroom.wins_after(game, move, seeds, agents)
        assert 0.0 <= share <= len(seeds)
    assert game.to_dict() == before


def test_the_same_seed_plays_out_the_same(headroom):
    agents = headroom.agent_names(2)
    game = a_game()
    move = game.legal_actions()[0]
    seeds = np.array([5, 6, 7, 8])
    assert headroom.wins_after(game, move, seeds, agents) == headroom.wins_after(
        game, move, seeds, agents
    )


def test_a_margin_no_playout_can_clear_keeps_the_heuristic_move(headroom):
    agents = headroom.agent_names(2)
    game = a_game()
    played_into(game, 6, agents, headroom)
    while len(game.legal_actions()) < 2:
        played_into(game, 1, agents, headroom)
    advised = headroom.heuristic_move(ArenaHeuristicBot(seed=0), game, agents)
    search = headroom.Search(players=2, first=1, second=1, margin=1.0)
    chosen = headroom.searched_move(game, advised, search, np.random.default_rng(0), agents)
    assert chosen == advised


def test_a_searcher_that_never_overrules_plays_the_heuristic_game_of_the_deal(headroom):
    """With a margin no playout can clear, the searcher's game is the heuristic's
    own game of the deal, move for move, played here through the env: the same
    result, and a searched decision at each of the seat's moves with a choice."""
    deal, seat = 2, 1
    env = arena_v0.env(num_players=2)
    bots = {agent_name(s): ArenaHeuristicBot(seed=deal * 10 + s) for s in range(2)}
    choices = []

    def count_choices(env, agent, action):
        if agent == agent_name(seat) and np.count_nonzero(env.unwrapped.action_mask(agent)) > 1:
            choices.append(action)

    play_game(env, bots, seed=deal, on_step=count_choices)
    winners = env.unwrapped.game.winners()
    expected = 1.0 / len(winners) if seat in winners else 0.0

    search = headroom.Search(players=2, first=1, second=1, margin=1.0)
    result = headroom.play_deal(deal, seat, search)
    assert result.win_share == expected
    assert sum(result.decisions.values()) == len(choices) > 0
    assert sum(result.overruled.values()) == 0


def last_action_of_the_game() -> ArenaGame:
    """player_0's action in the last round, the game's last decision: player_1's
    fingerboard is upside down (it loses its turn), then time decides. player_0
    has rolled 2 from space 9 onto space 11, where Thruster Twist (challenge 10)
    lies and player_1 stands with the world Tidewell and 2 trophies; player_0
    holds three maneuvers, no world, and a Halfpipe Hall card (+4 to a challenge)."""
    g = scenario_game(
        dice=[2],
        positions={0: 9, 1: 11},
        board={11: "Thruster Twist"},
        cards={0: ["Kickflip Kaboom", "Riptide Roll", "Polarity Pop"], 1: ["Tidewell"]},
        trophies={1: 2},
        gym_powers={0: ["Halfpipe Hall"]},
        max_rounds=2,
        wait=False,
    )
    g.lost_turns[1], g.upside_down[1] = 1, True
    return g


def finish(game: ArenaGame, move: int, dice: list[int], agents: list[str], headroom) -> list[int]:
    """The winners once ``move`` is made in a copy of ``game`` and heuristic bots
    play on with the forced ``dice`` (then the copy's own)."""
    copy = ArenaGame.from_dict(game.to_dict())
    copy.apply_action(move)
    copy.forced = list(dice)
    bots = [ArenaHeuristicBot(seed=seat) for seat in range(len(agents))]
    while not copy.is_over():
        copy.apply_action(headroom.heuristic_move(bots[copy.current_player()], copy, agents))
    return copy.winners()


def test_the_searcher_overrules_a_heuristic_move_that_loses_the_game(headroom):
    """In the last action of the game the heuristic takes the sure fourth maneuver
    (its action values ignore the +4 card and the end of the game), which loses
    0 worlds to 1 whatever the dice; the searcher challenges player_1 for Tidewell,
    which wins the game when player_0 rolls higher (here 6s against 1s)."""
    agents = headroom.agent_names(2)
    g = last_action_of_the_game()
    maneuver = g.string_to_action(0, "challenge maneuver Thruster Twist")
    world = g.string_to_action(0, "challenge player_1 world Tidewell")
    assert g.actor == 0
    assert sorted(g.legal_actions()) == sorted([maneuver, world, g.string_to_action(0, "end")])

    advised = headroom.heuristic_move(ArenaHeuristicBot(seed=0), g, agents)
    assert advised == maneuver
    assert headroom.wins_after(g, maneuver, np.arange(20), agents) == 0.0
    assert finish(g, maneuver, [], agents, headroom) == [1]

    search = headroom.Search(players=2, first=6, second=18, margin=0.1)  # the script's defaults
    chosen = headroom.searched_move(g, advised, search, np.random.default_rng(0), agents)
    assert chosen == world
    assert finish(g, world, [6, 6, 6, 6, 1, 1, 1, 1], agents, headroom) == [0]


def test_the_interval_is_taken_over_deals(headroom):
    """Two deals, the searcher winning both seats of one and neither of the
    other: deal means 1 and 0, mean 0.5, sd 0.7071, half-width 1.96 x 0.5."""
    results = [headroom.DealResult(d, s, float(d == 0)) for d in (0, 1) for s in (0, 1)]
    assert headroom.interval(results) == pytest.approx(1.96 * 0.5, rel=1e-4)


def test_a_searcher_limited_to_some_phases_searches_only_there(headroom):
    """``--phases``: decisions of other phases take the heuristic's move and are
    not counted; with a margin no playout clears, the game is the heuristic's."""
    search = headroom.Search(players=2, first=1, second=1, margin=1.0, phases=frozenset({"corner"}))
    result = headroom.play_deal(2, 1, search)
    assert dict(result.decisions) == {"corner": 1}
    assert sum(result.overruled.values()) == 0
    everywhere = headroom.play_deal(2, 1, headroom.Search(2, 1, 1, 1.0))
    assert result.win_share == everywhere.win_share
    assert set(everywhere.decisions) > {"corner"}
    assert sum(everywhere.overruled.values()) == 0


def test_phase_names_are_checked(headroom):
    assert headroom.phase_set("move, action") == frozenset({"move", "action"})
    refused = argparse.ArgumentTypeError
    with pytest.raises(refused, match=r"unknown phase\(s\) flying; allowed: corner, pre_roll"):
        headroom.phase_set("move,flying")
    with pytest.raises(refused, match="none given"):
        headroom.phase_set(" , ")
