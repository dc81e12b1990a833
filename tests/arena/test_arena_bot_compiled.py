"""The compiled heuristic bot (``native/arena_bot.hpp``) makes the Python bot's
move at every decision.

Games at every player count and every option set are played by the Python
engine; at each decision the Python bot (:class:`.bots.ArenaHeuristicBot`,
from the seat's view and mask) and the compiled bot (from the compiled twin of
the game) are both asked, and must agree. The move played is the bot's, or
now and then a random legal one, so the games also reach positions the bot
would not steer into. Each seat keeps its own pair of bots all game, so the
slide count per turn is compared too. ``test_many_games_agree`` (slow) plays
2,000 games.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from flockgym.envs import arena_v0
from flockgym.envs.arena.bots import ArenaHeuristicBot
from flockgym.envs.arena.native import CompiledArenaBot, CompiledArenaGame
from flockgym.envs.arena.observer import bot_view
from flockgym.envs.arena.rules import ArenaConfig, ArenaGame
from flockgym.envs.core.bots import bot_move
from flockgym.envs.core.rng import make_rng
from tests.arena.test_arena_compiled import other_box
from tests.compiled_helpers import require_compiled

require_compiled("arena")

OPTION_SETS = [
    {"world_challenge": w, "dark_matter": d, "nova_invazorz": v, "fifth_world": f}
    for w, d, v, f in itertools.product(
        ("offset", "printed"), ("two", "medals"), ("turn_back", "become"), ("held", "won")
    )
]


def play_both_bots(config: ArenaConfig, seed: int, random_share: float) -> tuple[int, set[str]]:
    """One game with both bots asked at every decision; returns the decisions
    compared and the tasks met (the table picks)."""
    game = ArenaGame.new(config, make_rng(seed))
    twin = CompiledArenaGame.from_python(game)
    agents = [f"player_{i}" for i in range(config.num_players)]
    python_bots = [ArenaHeuristicBot(seed * 7 + i) for i in range(config.num_players)]
    compiled_bots = [CompiledArenaBot(bot.rng) for bot in python_bots]
    picker = np.random.default_rng(seed)
    size = game.layout.size
    decisions, tasks = 0, set()
    while not game.is_over():
        seat = game.current_player()
        view = bot_view(game, seat, agents)
        ours = compiled_bots[seat].act_in(twin)
        theirs = python_bots[seat].act({"action_mask": game.legal_mask(size)}, view)
        where = f"seed {seed}, {config}, decision {decisions}: {view['phase']} {view['task']}"
        assert ours == theirs, where
        decisions += 1
        tasks.add(game.task)
        legal = game.legal_actions()
        action = theirs if picker.random() >= random_share else legal[picker.integers(len(legal))]
        game.apply_action(action)
        twin.apply_action(action)
    return decisions, tasks


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_every_decision_agrees(players: int) -> None:
    """32 games per player count (160 in all, over 35,000 decisions), every
    option set twice, bot-only and partly random play."""
    decisions, tasks = 0, set()
    for game in range(32):
        config = ArenaConfig(num_players=players, **OPTION_SETS[game % len(OPTION_SETS)])
        made, met = play_both_bots(config, 1000 * players + game, (game % 4) * 0.15)
        decisions += made
        tasks |= met
    assert decisions > 3000
    assert {"slide_return", "slide_gym", "wormhole_place"} & tasks  # table picks were met


@pytest.mark.parametrize("players", [2, 4])
def test_another_box_decides_the_same(players: int, tmp_path) -> None:
    """Option ``data`` (other dice, trophy value, medal levels): both bots read
    every number from the box."""
    data = other_box(tmp_path)
    for game in range(6):
        options = OPTION_SETS[(3 * game + players) % len(OPTION_SETS)]
        config = ArenaConfig(num_players=players, max_rounds=20, data=data, **options)
        play_both_bots(config, 77 * game + players, (game % 3) * 0.2)


def first_position(task: str, options: dict[str, str]) -> ArenaGame:
    """A game at its first decision of ``task``, reached by random play."""
    for seed in range(2000):
        game = ArenaGame.new(ArenaConfig(num_players=4, **options), make_rng(seed))
        picker = np.random.default_rng(seed)
        while not game.is_over():
            if game.task == task:
                return game
            legal = game.legal_actions()
            game.apply_action(legal[picker.integers(len(legal))])
    raise AssertionError(f"no {task} decision in 2,000 random games")


def test_the_bot_chooses_a_character_under_nova_invazorz_become() -> None:
    """Nova Debris Field with ``nova_invazorz="become"``: the Invazorz picks the
    Berzerkerbirdz to become (the bot used to fail on it: no space to pick)."""
    game = first_position("nova_become", {"nova_invazorz": "become"})
    seat = game.current_player()
    agents = [f"player_{i}" for i in range(4)]
    mask = game.legal_mask(game.layout.size)
    choice = ArenaHeuristicBot(0).act({"action_mask": mask}, bot_view(game, seat, agents))
    assert choice in game.legal_actions()
    assert game.layout.to_string(seat, choice).startswith("become ")
    compiled = CompiledArenaBot(make_rng(0)).act_in(CompiledArenaGame.from_python(game))
    assert compiled == choice


def test_ties_go_to_the_lowest_action_id() -> None:
    """Among equally good spaces the first in id order wins (the compiled bot
    reads the legal actions sorted; Python's set order is not a rule)."""
    game = first_position("slide_gym", {})
    seat = game.current_player()
    agents = [f"player_{i}" for i in range(4)]
    legal = game.legal_actions()
    view = bot_view(game, seat, agents)
    for space in view["board"]["spaces"]:
        if space["kind"] == "gym":
            space["gym_power_cards"], space["gym_trophies"] = 1, 1  # every gym as good
    choice = ArenaHeuristicBot(0).act({"action_mask": game.legal_mask(game.layout.size)}, view)
    assert choice == min(legal)


def test_on_the_compiled_engine_the_env_asks_the_compiled_bot() -> None:
    """``act_on_table`` and ``act_on_env`` answer from the compiled engine, the
    move :meth:`act` makes from the view; on the Python engine act_on_table
    says None (the caller asks :meth:`act`)."""
    compiled_env = arena_v0.raw_env(num_players=3, engine="compiled", max_rounds=6)
    python_env = arena_v0.raw_env(num_players=3, engine="python", max_rounds=6)
    for env in (compiled_env, python_env):
        env.reset(seed=4)
    fast = {a: ArenaHeuristicBot(i) for i, a in enumerate(compiled_env.possible_agents)}
    slow = {a: ArenaHeuristicBot(i) for i, a in enumerate(python_env.possible_agents)}
    assert slow["player_0"].act_on_table(python_env, python_env.agent_selection) is None
    steps = 0
    while compiled_env.agents and steps < 400:
        agent = compiled_env.agent_selection
        if compiled_env.terminations[agent] or compiled_env.truncations[agent]:
            compiled_env.step(None)
            python_env.step(None)
            continue
        observation = compiled_env.observe(agent)
        ours = (
            fast[agent].act_on_env(compiled_env, agent, observation)
            if steps % 2
            else bot_move(fast[agent], compiled_env, agent)
        )
        theirs = bot_move(slow[agent], python_env, agent)
        assert ours == theirs, steps
        compiled_env.step(ours)
        python_env.step(theirs)
        steps += 1
    assert not compiled_env.agents and steps > 30  # a whole game


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_many_games_agree(players: int) -> None:
    """400 games per player count (2,000 in all), every option set."""
    for game in range(400):
        config = ArenaConfig(num_players=players, **OPTION_SETS[game % len(OPTION_SETS)])
        play_both_bots(config, 50_000 * players + game, (game % 5) * 0.1)
