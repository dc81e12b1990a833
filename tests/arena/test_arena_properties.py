"""Property tests over many random Arena games (2-6 players, every option
sample): the mask is exactly the independent oracle's legal set, every card,
medal card, gym power card, trophy and medal is in exactly one place (the
engine's invariants, and a recount here), the observation kept up to date
step by step equals one built from scratch, state dicts round-trip at every
step of sampled games (and a refused one changes nothing), and every game ends
or is truncated. The fast run plays a few hundred games; ``make test-slow``
(``HYPOTHESIS_PROFILE=thorough``) thousands."""

from __future__ import annotations

import json

import numpy as np
import pytest
from arena_oracle import legal_strings
from hypothesis import given, settings
from hypothesis import strategies as st

from flockgym.envs import StateDictError, arena_v0
from flockgym.envs.arena.data import default_box
from flockgym.envs.arena.observer import ArenaObserver

BOX = default_box()
SAMPLES = arena_v0.raw_env.option_samples
PLAYERS = st.sampled_from([2, 3, 4, 5, 6])
SEEDS = st.integers(0, 2**31 - 1)
SAMPLE = st.sampled_from(range(len(SAMPLES)))
EXAMPLES = settings().max_examples
"""Examples of the loaded hypothesis profile (40 fast, 1000 thorough); the
heaviest checks take a share of them."""


def recount(raw) -> list[str]:
    """The accounting redone from the view alone (independent of the engine's
    own invariant check)."""
    v = raw.view("player_0")
    problems = []
    names = [c.name for c in BOX.cards]
    places = list(v["cards"].values())
    if sorted(v["cards"]) != sorted(names):
        problems.append("card list")
    held = [c for p in v["players"].values() for c in p["maneuvers"] + p["worlds"]]
    if sorted(held) != sorted(n for n, where in v["cards"].items() if where.startswith("player")):
        problems.append("held cards do not match the card places")
    on_spaces = [s["card"] for s in v["board"]["spaces"] if s.get("card")]
    if sorted(on_spaces) != sorted(n for n, w in v["cards"].items() if w.startswith("space")):
        problems.append("cards on spaces do not match the card places")
    if len([p for p in places if p.startswith("space")]) > len(BOX.maneuver_spaces) + len(
        BOX.world_spaces
    ):
        problems.append("more cards on the board than spaces")
    trophies = v["supply"] + sum(p["trophies"] + p["star_cluster_trophies"]
                                 for p in v["players"].values())  # fmt: skip
    trophies += sum(s["gym_trophies"] for s in v["board"]["spaces"] if s["kind"] == "gym")
    if trophies != BOX.trophies:
        problems.append(f"trophies add up to {trophies}")
    for i, medal in enumerate(("bronze", "silver", "gold")):
        count = v["medal_supply"][medal] + sum(medal in p["medals"] for p in v["players"].values())
        if count != BOX.medal_supply[i]:
            problems.append(f"{medal} medals add up to {count}")
    medal_places = list(v["medal_card_places"].values())
    stack = sum(1 for w in medal_places if w == "stack")
    if stack != v["medal_stack"]:
        problems.append("medal stack count")
    return problems


def play(players: int, seed: int, sample: int, check_every_step) -> tuple[int, object]:
    env = arena_v0.env(num_players=players, **SAMPLES[sample])
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        check_every_step(env, agent, observation)
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(legal[rng.integers(legal.size)]))
        steps += 1
    return steps, env


def check_mask_and_accounting(env, agent, observation):
    raw = env.unwrapped
    view = raw.view(agent)
    legal = {
        raw.action_to_string(agent, int(a)) for a in np.flatnonzero(observation["action_mask"])
    }
    expected = legal_strings(view, BOX)
    assert legal == expected, (
        f"{agent} phase {view['phase']} task {view['task']}: env only {sorted(legal - expected)}, "
        f"oracle only {sorted(expected - legal)}"
    )
    assert raw.arena.invariant_violations() == []
    assert recount(raw) == []
    for other in env.possible_agents:
        if other != agent:
            assert not env.observe(other)["action_mask"].any()


@settings(max_examples=max(10, EXAMPLES // 2))
@given(players=PLAYERS, seed=SEEDS, sample=SAMPLE)
def test_masks_are_exact_and_everything_adds_up(players, seed, sample):
    _, env = play(players, seed, sample, check_mask_and_accounting)
    raw = env.unwrapped
    assert raw.arena.is_over() or raw.is_truncated()
    if raw.arena.is_over():
        assert raw.winners and all(env.terminations.values())


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_many_games_end_and_add_up(players):
    """40 quick games per player count (short ones under max_rounds 3 or 1, the
    rest in full): each ends by its rules, winners are the seats the rules name."""
    for game in range(40):
        sample = game % len(SAMPLES)
        _, env = play(players, 7919 * game + players, sample, lambda e, a, o: None)
        raw = env.unwrapped
        assert raw.arena.is_over(), (players, game)
        assert raw.arena.invariant_violations() == [] and recount(raw) == []
        worlds = {a: len(p["worlds"]) for a, p in raw.view("player_0")["players"].items()}
        won = {a: p["worlds_won"] for a, p in raw.view("player_0")["players"].items()}
        reason = raw.view("player_0")["win_reason"]
        if reason == "most worlds at time":
            assert raw.winners == [a for a, w in worlds.items() if w == max(worlds.values())]
        elif reason == "five worlds":
            counted = won if raw.arena.config.fifth_world == "won" else worlds
            assert len(raw.winners) == 1 and counted[raw.winners[0]] == 5  # wins at the fifth
        else:
            assert reason == "three worlds defended" and len(raw.winners) == 1


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_thousands_of_games_masks_exact(players):
    for game in range(400):
        play(players, 104729 * game + players, game % len(SAMPLES), check_mask_and_accounting)


# ---- the observation kept up to date equals one built from scratch ------------------------


def check_observation_from_scratch(env, agent, observation):
    raw = env.unwrapped
    fresh = ArenaObserver(raw.box, raw.num_players)
    for seat, other in enumerate(env.possible_agents):
        kept = env.observe(other)["observation"]
        assert np.array_equal(kept, fresh.encode(raw.arena, seat)), (other, raw.arena.version)


@settings(max_examples=max(5, EXAMPLES // 8))
@given(players=PLAYERS, seed=SEEDS, sample=SAMPLE)
def test_incremental_observation_equals_a_fresh_one(players, seed, sample):
    play(players, seed, sample, check_observation_from_scratch)


# ---- state dicts ---------------------------------------------------------------------------------


def check_round_trip(env, agent, observation):
    raw = env.unwrapped
    blob = json.loads(json.dumps(raw.state_dict()))
    twin = arena_v0.env(num_players=raw.num_players, **{
        k: raw.options[k] for k in ("max_rounds", "world_challenge", "dark_matter", "data")
    })  # fmt: skip
    twin.reset(seed=1)
    twin.unwrapped.load_state_dict(blob)
    assert twin.unwrapped.state_dict() == blob
    other = twin.observe(agent)
    assert np.array_equal(other["observation"], observation["observation"])
    assert np.array_equal(other["action_mask"], observation["action_mask"])


@given(players=st.sampled_from([2, 4, 6]), seed=SEEDS)
def test_state_dict_round_trip_at_every_step(players, seed):
    play(players, seed, 3, check_round_trip)  # max_rounds 1: short games, every step


def corrupt(blob, path, value):
    d = json.loads(json.dumps(blob))
    target = d["game"]
    for key in path[:-1]:
        target = target[key]
    if value is DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return d


DELETE = object()
CORRUPTIONS = [
    (["positions", 1], 99, r"game.positions\[1\]: must be an integer -1..49"),
    (["positions"], [0, 0], r"game.positions: must be a list of 4 entries"),
    (["trophies", 0], "2", r"game.trophies\[0\]: must be an integer"),
    (["trophies", 0], 39, r"game.supply: trophies add up to"),
    (["characters", 2], "Nobody", r"game.characters\[2\]: 'Nobody' is not a character"),
    (["characters", 1], None, r"game.characters: every seat has a character after setup"),
    (["forms", 0], "dragon", r"game.forms\[0\]: must be one of"),
    (["card_holder", 0], 7, r"game.card_holder\[0\]: must be an integer -3..3"),
    (["card_holder", 3], -2, r"game.card_space\[3\]|game.space_item"),
    (["medal_stack"], [], r"game.medal_holder\[\d+\]: in the stack exactly when"),
    (["medal_supply", 2], 2, r"game.medal_supply\[2\]: gold medals add up to"),
    (["gym_cards", 0], 9, r"game.gym_cards\[0\]: must be an integer 0..2"),
    (["phase"], "dancing", r"game.phase: must be one of"),
    (["task"], "no_such_task", r"game.task: must be one of"),
    (["actor"], 9, r"game.actor: must be an integer -1..3"),
    (["rng"], {"bit_generator": "MT19937"}, r"rng state must be a PCG64"),
    (["dark", 0], 9, r"game.dark\[0\]: must be an integer 0..3"),
    (["roll_log"], [[0, "movement", 6, 9]], r"game.roll_log\[0\]: must be \[seat, purpose"),
    (["over"], "no", r"game.over: must be true or false"),
    (["winners"], [0], r"game.winners: empty \(and win_reason ''\) while the game goes on"),
    (["config"], {"num_players": 4, "max_rounds": 0}, r"game.config: max_rounds=0"),
    (["lost_turns", 1], 1, r"game.upside_down\[1\]: a fingerboard is upside down exactly"),
    (["defended", 0], 2, r"game.defended\[0\]: only a world can be permanently defended"),
    (["first_turn"], DELETE, r"game.first_turn: missing"),
]  # fmt: skip


@pytest.mark.parametrize(("path", "value", "message"), CORRUPTIONS)
def test_a_malformed_state_names_the_field_and_changes_nothing(path, value, message):
    env = arena_v0.env(num_players=4)
    env.reset(seed=3)
    rng = np.random.default_rng(1)
    for _ in range(30):
        obs = env.last()[0]
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    blob = env.unwrapped.state_dict()
    before = json.dumps(blob, sort_keys=True)
    with pytest.raises(StateDictError, match=message):
        env.unwrapped.load_state_dict(corrupt(blob, path, value))
    assert json.dumps(env.unwrapped.state_dict(), sort_keys=True) == before
