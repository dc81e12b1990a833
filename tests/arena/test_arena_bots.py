"""The Arena heuristic bot: legal and deterministic everywhere, the decisions its
docstring promises in set-up scenarios, and a clear win over random bots."""

from __future__ import annotations

import numpy as np
import pytest

from flockgym.envs import RandomBot, arena_v0, make_bot
from flockgym.envs.arena.bots import ArenaHeuristicBot, Roller, View
from flockgym.envs.core.play import play_game

QUIET = ["Skyboardzerka", "Sandboardzerka", "Hoverboardzerka", "Magboardzerka", "Wakeboardzerka",
         "Jetboardzerka"]  # fmt: skip
"""Characters whose bonuses (medal, gym trophy, ...) leave these scenarios' numbers alone."""


def scenario(players=2, **options):
    opts = {"positions": {f"player_{s}": 0 for s in range(players)}, "first_player": "player_0",
            "turn": 2, "trophies": {f"player_{s}": 0 for s in range(players)},
            "characters": {f"player_{s}": QUIET[s] for s in range(players)}}  # fmt: skip
    for key, value in options.items():
        if isinstance(value, dict) and isinstance(opts.get(key), dict):
            opts[key] = {**opts[key], **value}
        else:
            opts[key] = value
    env = arena_v0.env(num_players=players)
    env.reset(seed=0, options=opts)
    return env


def decide(env) -> str:
    agent = env.agent_selection
    raw = env.unwrapped
    action = ArenaHeuristicBot(0).act(env.observe(agent), raw.view(agent))
    return raw.action_to_string(agent, action)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_heuristic_plays_legal_deterministic_games(players):
    runs = []
    for _ in range(2):
        env = arena_v0.env(num_players=players)
        bots = {a: ArenaHeuristicBot(7) for a in env.possible_agents}
        record = play_game(env, bots, seed=11 + players)
        runs.append((record.moves, record.winners))
        assert record.winners
    assert runs[0] == runs[1]


def test_registry_gives_the_heuristic():
    assert isinstance(make_bot("arena_v0", "heuristic", seed=0), ArenaHeuristicBot)


def test_challenges_a_maneuver_it_can_win_and_spends_to_tip_the_roll():
    # Spacefreeze Cryo Blast needs 15: 4d6 makes it 44% of the time; +2 per trophy
    env = scenario(dice=[2], positions={"player_0": 9}, board={"11": "Spacefreeze Cryo Blast"},
                   trophies={"player_0": 3})  # fmt: skip
    assert decide(env) == "spend 0"  # landing on 11 already: no need to spend on the move
    env.step(env.unwrapped.string_to_action("player_0", "spend 0"))
    assert decide(env) == "challenge maneuver Spacefreeze Cryo Blast"
    env.step(
        env.unwrapped.string_to_action("player_0", "challenge maneuver Spacefreeze Cryo Blast")
    )
    spend = decide(env)
    assert spend.startswith("spend ") and int(spend.split()[1]) >= 1


def test_exact_chances_with_medals():
    env = scenario(medals={"player_0": ["gold"]})
    v = View(env.unwrapped.view("player_0"))
    assert Roller(v, "player_0").at_least(16) == 1.0  # gold: every die reads 4 or more
    env = scenario()
    v = View(env.unwrapped.view("player_0"))
    assert round(Roller(v, "player_0").at_least(15), 4) == 0.4437


def test_trains_when_short_of_trophies():
    env = scenario(dice=[1], positions={"player_0": 7})  # onto the gym on space 8
    assert env.unwrapped.view("player_0")["phase"] == "action"
    assert decide(env) == "train"


def test_turns_berzerkerbirdz_before_rolling():
    env = scenario(
        gym_powers={"player_0": ["Zoominium Refinery"]},
        gyms=["Zoominium Refinery", "Halfpipe Hall", "Fortress Dome", "Speed Ring"],
    )
    assert decide(env) == "use Zoominium Refinery"


def test_defends_a_world_with_its_trophies():
    env = scenario(dice=[2], positions={"player_0": 9, "player_1": 11},
                   worlds={"player_1": ["Tidewell"]}, trophies={"player_1": 4})  # fmt: skip
    raw = env.unwrapped
    env.step(raw.string_to_action("player_0", "challenge player_1 world Tidewell"))
    assert env.agent_selection == "player_1"
    spend = decide(env)
    assert spend.startswith("spend ") and int(spend.split()[1]) >= 2


def test_picks_the_leaders_world_and_hits_the_leader():
    env = scenario(3, dice=[2, 5], positions={"player_0": 10},
                   worlds={"player_1": ["Hoverion"], "player_2": ["Glacius", "Tidewell"]},
                   forms={"player_0": "berzerkerbirdz"})  # fmt: skip
    env.step(env.unwrapped.string_to_action("player_0", "slide"))  # Nebula Slide 5
    assert decide(env) in ("pick Glacius", "pick Tidewell")


@pytest.mark.parametrize(("players", "games", "at_least"), [(2, 16, 0.85), (4, 12, 0.6)])
def test_beats_random_clearly(players, games, at_least):
    env = arena_v0.env(num_players=players)
    wins = 0.0
    for game in range(games):
        hero = game % players
        bots = {
            f"player_{s}": ArenaHeuristicBot(game) if s == hero else RandomBot(100 + game * 7 + s)
            for s in range(players)
        }
        record = play_game(env, bots, seed=500 + game)
        if f"player_{hero}" in record.winners:
            wins += 1.0 / len(record.winners)
    assert wins / games >= at_least


def test_bot_reads_only_the_observation_and_view():
    env = scenario(dice=[3], positions={"player_0": 17}, trophies={"player_0": 2})
    agent = env.agent_selection
    obs, view = env.observe(agent), env.unwrapped.view(agent)
    del env  # nothing else is needed
    action = ArenaHeuristicBot(1).act(obs, view)
    assert obs["action_mask"][action] == 1
    assert np.flatnonzero(obs["action_mask"]).size > 1


def test_slides_at_most_its_limit_in_one_turn():
    # Holding nothing, the Nebula Slide can only give its 6 (a whole new turn from
    # any space): without a limit the heuristic slides again and again.
    from flockgym.envs.arena.bots import SLIDES_PER_TURN

    env = scenario(dice=[2], positions={"player_0": 10})
    raw = env.unwrapped
    bot = ArenaHeuristicBot(0)
    observation, view = env.observe("player_0"), raw.view("player_0")
    assert raw.action_to_string("player_0", bot.act(observation, view)) == "slide"
    bot.slides = ((view["turn"], view["on_turn"]), SLIDES_PER_TURN)
    assert raw.action_to_string("player_0", bot.act(observation, view)) != "slide"
    bot.slides = ((view["turn"] - 1, view["on_turn"]), SLIDES_PER_TURN)  # an earlier turn's
    assert raw.action_to_string("player_0", bot.act(observation, view)) == "slide"


def test_a_turn_of_new_turns_from_the_slide_ends():
    """A position from a real 4-player game: player_3 holds nothing, others hold
    no trophies or worlds, so its slide rolls can only give the 6; its new turn
    starts next to a slide end. Before the limit it slid for 20,000 steps."""
    import json
    from pathlib import Path

    from flockgym.envs.arena.bots import SLIDES_PER_TURN

    state = json.loads((Path(__file__).parent / "slide_loop_state.json").read_text())
    env = arena_v0.env(num_players=4)
    env.reset(seed=0)
    env.unwrapped.load_state_dict(state)
    raw = env.unwrapped
    assert env.agent_selection == "player_3" and raw.game.new_turns == 1
    bot = ArenaHeuristicBot(0)
    slides = 0
    for _ in range(500):
        if env.agent_selection != "player_3":
            break
        action = bot.act(env.observe("player_3"), raw.view("player_3"))
        slides += raw.action_to_string("player_3", action) == "slide"
        env.step(action)
    assert env.agent_selection != "player_3", "player_3's turn never ended"
    assert slides == SLIDES_PER_TURN  # it slid to the limit, then stayed
