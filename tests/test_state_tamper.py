"""Tampered state dicts: refused with a clear error, or loaded into a game that plays on.

A state dict comes from disk or from a user. Each case takes the state of a
random game of a registered env (every player count, option samples, a random
moment) and changes one field: a type swap, a huge, negative or fractional
number, a NaN string, a list of the wrong length, a nested dict, None, another
id, a removed key. ``load_state_dict`` must then either raise a
:class:`FlockgymError` (a ``ValueError``) and leave the env as it was, or load
a state that plays on: every seat observed, legal moves stepped to the end (or
``PLAY_ON`` steps), and the state dict round trip exact. No bare
``TypeError``/``KeyError``/``OverflowError``/``IndexError`` may escape.
"""

from __future__ import annotations

import copy
import json
import random
import re
import traceback
from dataclasses import dataclass
from typing import Any

import pytest
from fuzz_helpers import KeyPath, get_at, paths_into, play_random

from flockgym.envs import ENVS, list_envs, make
from flockgym.envs.arena.phases import MOVE
from flockgym.envs.core.errors import FlockgymError, StateDictError

PLAY_ON = 400
"""Steps a loaded tampered state is played on (or to its end)."""

HUGE = 10**5000
NESTED_995: Any = 0
for _ in range(995):
    NESTED_995 = [NESTED_995]
SPECIALS: tuple[Any, ...] = (
    None,
    True,
    False,
    -1,
    -(2**63),
    2**64,
    2**4000,
    HUGE,
    -HUGE,
    0.5,
    1e308,
    float("nan"),
    float("-inf"),
    "NaN",
    "nan",
    "",
    "x",
    [],
    [0],
    {},
    {"a": {"b": [1]}},
    1_000_000,
    NESTED_995,
)
"""Values put in place of a field, whatever the field was."""
RAW_TEXTS = ("9" * 5000, "-" + "9" * 5000, "1." + "0" * 5000, "[" * 995 + "]" * 995, "1e400")
"""JSON texts put in place of a field's value in the state's JSON text (read
with ``load_state_json``): what ``json.loads`` cannot read or nests too deep."""
TEXT_SHARE = 0.05
"""The share of cases changed in the JSON text rather than in the dict."""


def mutations(value: Any, rng: random.Random) -> list[tuple[str, Any]]:
    """Candidate replacements for ``value`` that keep its neighbourhood plausible:
    nearby ids, a changed length, a swapped type; plus the generic SPECIALS."""
    out: list[tuple[str, Any]] = [(f"special {safe_repr(s)}", s) for s in SPECIALS]
    if isinstance(value, bool):
        out.append(("flip", not value))
        out.append(("as int", int(value)))
    elif isinstance(value, int):
        out += [("+1", value + 1), ("-1", value - 1), ("negate", -value), ("as str", str(value))]
        out += [("as float", float(value)), ("x1000", value * 1000 + 7)]
    elif isinstance(value, float):
        out += [("as int", int(value)), ("neg", -value - 1.0), ("inf str", "Infinity")]
    elif isinstance(value, str):
        out += [("upper", value.upper()), ("suffix", value + "_"), ("as int", 3)]
    elif isinstance(value, list):
        out += [("drop last", value[:-1]), ("append copy", value + value[-1:])]
        out += [("append 0", [*value, 0]), ("reverse", value[::-1]), ("as dict", {"0": value})]
        if value:
            out.append(("double", value + value))
        if len(value) > 1:
            i, j = rng.sample(range(len(value)), 2)
            swapped = list(value)
            swapped[i], swapped[j] = swapped[j], swapped[i]
            out.append((f"swap {i} {j}", swapped))
            out.append(("nested", [value]))
    elif isinstance(value, dict) and value:
        key = rng.choice(sorted(value, key=str))
        out += [(f"drop key {key}", {k: v for k, v in value.items() if k != key})]
        out += [("extra key", {**value, "zz_extra": 1}), ("as list", list(value.values()))]
    return out


def tamper(state: dict[str, Any], rng: random.Random) -> tuple[dict[str, Any] | str, str]:
    """A copy of ``state`` with one field changed (or, for :data:`TEXT_SHARE` of
    the cases, its JSON text with one value's text changed), and what was changed."""
    data = copy.deepcopy(state)
    paths = [p for p in paths_into(data) if p]
    path = rng.choice(paths)
    if rng.random() < TEXT_SHARE:
        marker = "TAMPER_MARK_51c2"
        get_at(data, path[:-1])[path[-1]] = marker
        text = rng.choice(RAW_TEXTS)
        return json.dumps(data).replace(f'"{marker}"', text, 1), f"{_show(path)}: text {text[:12]}"
    parent = get_at(data, path[:-1])
    old = parent[path[-1]]
    roll = rng.random()
    if roll < 0.08 and isinstance(parent, dict):
        del parent[path[-1]]
        return data, f"{_show(path)}: removed"
    if roll < 0.16:
        # another value of the same dict: swaps ids, seats, fields of the same kind
        other = get_at(data, rng.choice(paths))
        parent[path[-1]] = copy.deepcopy(other)
        return data, f"{_show(path)}: value of another field {safe_repr(other)}"
    name, new = rng.choice(mutations(old, rng))
    parent[path[-1]] = new
    return data, f"{_show(path)}: {name}"


def safe_repr(value: Any) -> str:
    """A short repr that also works for ints past Python's 4300-digit str limit."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"<{value.bit_length()}-bit int>"
    try:
        return f"{value!r:.40}"
    except (ValueError, RecursionError):
        return f"<unprintable {type(value).__name__}>"


def _show(path: KeyPath) -> str:
    return "".join(f"[{k!r}]" for k in path)


@dataclass
class Outcome:
    """How one tampered load ended."""

    kind: str  # "refused", "loaded", "bare" (a non-flockgym exception) or "broke"
    detail: str = ""


def _where(err: BaseException) -> str:
    """The innermost project frame of a traceback (file:line), for reports."""
    frames = [f for f in traceback.extract_tb(err.__traceback__) if "/envs/" in f.filename]
    if not frames:
        return "?"
    last = frames[-1]
    return f"{'/'.join(last.filename.split('/')[-2:])}:{last.lineno}"


def play_on(env: Any, rng: random.Random, steps: int) -> None:
    """Observe every seat, step random legal moves to the end or ``steps`` moves,
    and check the state dict round trip; any exception is the caller's failure."""
    raw = env.unwrapped
    for agent in raw.possible_agents:  # the words view (what a play server shows)
        raw.view(agent)
    raw.clone()
    for _ in range(steps):
        for agent in raw.possible_agents:
            raw.observe(agent)
            raw.action_mask(agent)
        if not raw.agents:
            break
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            raw.step(None)
            continue
        legal = raw.legal_actions(agent)
        assert legal, f"{agent} to act has no legal action"
        mask = raw.action_mask(agent)
        assert sorted(int(i) for i in mask.nonzero()[0]) == sorted(legal)
        action = rng.choice(legal)
        raw.action_to_string(agent, action)
        raw.step(action)
    for agent in raw.possible_agents:
        raw.view(agent)
    saved = json.loads(json.dumps(raw.state_dict()))
    fresh = make(raw.env_id, **{k: v for k, v in raw.options.items() if k != "render_mode"})
    fresh.unwrapped.load_state_dict(saved)
    assert json.loads(json.dumps(fresh.unwrapped.state_dict())) == saved


def try_tampered(env: Any, data: dict[str, Any] | str, rng: random.Random) -> Outcome:
    """Load ``data`` (a dict, or a JSON text) into ``env``; classify the result
    (see :class:`Outcome`)."""
    raw = env.unwrapped
    before = json.dumps(raw.state_dict())
    try:
        if isinstance(data, str):
            raw.load_state_json(data)
        else:
            raw.load_state_dict(data)
    except FlockgymError as err:
        if json.dumps(raw.state_dict()) != before:
            return Outcome("broke", f"refused ({err}) but the env changed")
        if not str(err):
            return Outcome("broke", f"refused with an empty {type(err).__name__}")
        return Outcome("refused", str(err))
    except Exception as err:
        return Outcome("bare", f"{type(err).__name__} at {_where(err)}: {err!s:.120}")
    try:
        play_on(env, rng, PLAY_ON)
    except Exception as err:
        return Outcome("broke", f"loaded, then {type(err).__name__} at {_where(err)}: {err!s:.120}")
    return Outcome("loaded")


def sample_state(env_id: str, num_players: int, rng: random.Random) -> tuple[Any, dict[str, Any]]:
    """An env and the JSON state dict of a random game of it at a random moment."""
    raw_cls = type(make(env_id, num_players=num_players).unwrapped)
    samples = [{}, *raw_cls.option_samples_for(num_players)]
    options = {**rng.choice(samples), "num_players": num_players}
    try:
        env = make(env_id, **options)
    except FlockgymError:  # a sample this seat count refuses (as the soak skips it)
        env = make(env_id, num_players=num_players)
    env.reset(seed=rng.randrange(2**31))
    raw = env.unwrapped
    moves = rng.choice((0, 1, rng.randrange(2, 30), rng.randrange(30, 400), 3000))
    play_random(raw, rng, moves)
    return env, json.loads(json.dumps(raw.state_dict()))


def run_cases(env_id: str, seed: int, states: int, per_state: int) -> dict[str, list[str]]:
    """Tamper ``per_state`` times with each of ``states`` random states of
    ``env_id`` (player counts in turn); the outcomes by kind, with details."""
    rng = random.Random(seed)
    counts = ENVS[env_id].player_counts
    found: dict[str, list[str]] = {"refused": [], "loaded": [], "bare": [], "broke": []}
    for i in range(states):
        env, state = sample_state(env_id, counts[i % len(counts)], rng)
        target = make(env_id, **{k: v for k, v in env.unwrapped.options.items()
                                 if k != "render_mode"})  # fmt: skip
        target.unwrapped.load_state_dict(copy.deepcopy(state))
        for _ in range(per_state):
            data, what = tamper(state, rng)
            outcome = try_tampered(target, data, rng)
            found[outcome.kind].append(f"{what} -> {outcome.detail}")
            if outcome.kind != "refused":
                target.unwrapped.load_state_dict(copy.deepcopy(state))
    return found


def _assert_clean(found: dict[str, list[str]]) -> None:
    bad = found["bare"] + found["broke"]
    assert not bad, f"{len(bad)} tampered loads failed, e.g.:\n" + "\n".join(bad[:12])


@pytest.mark.parametrize("env_id", list_envs())
def test_tampered_state_dicts_are_refused_or_play_on(env_id: str) -> None:
    found = run_cases(env_id, seed=2026, states=8, per_state=25)
    _assert_clean(found)
    assert len(found["refused"]) + len(found["loaded"]) == 8 * 25


@pytest.mark.slow
@pytest.mark.parametrize("env_id", list_envs())
@pytest.mark.parametrize("seed", range(4))
def test_tampered_state_dicts_thoroughly(env_id: str, seed: int) -> None:
    found = run_cases(env_id, seed=seed, states=60, per_state=80)
    _assert_clean(found)


# ---- the fixes, one by one ------------------------------------------------------------


def _state_where(env_id: str, wanted: Any, seed: int = 0, **options: Any) -> tuple[Any, dict]:
    """An env and its JSON state at the first moment ``wanted(raw_env)`` holds
    in a seeded random game (the test fails if it never does)."""
    rng = random.Random(seed)
    env = make(env_id, **options)
    env.reset(seed=seed)
    raw = env.unwrapped
    for _ in range(5000):
        if wanted(raw):
            return env, json.loads(json.dumps(raw.state_dict()))
        assert raw.agents, "the game ended before the wanted moment"
        raw.step(rng.choice(raw.legal_actions(raw.agent_selection)))
    raise AssertionError("the wanted moment never came")


def _refused(env: Any, data: dict[str, Any], message: str) -> None:
    """``data`` is refused with exactly ``message`` and the env is unchanged."""
    raw = env.unwrapped
    before = json.dumps(raw.state_dict())
    with pytest.raises(StateDictError) as caught:
        raw.load_state_dict(data)
    assert str(caught.value) == message
    assert json.dumps(raw.state_dict()) == before


@pytest.mark.parametrize("env_id", list_envs())
def test_an_int_past_the_digit_limit_is_refused_naming_the_field(env_id: str) -> None:
    env, state = _state_where(env_id, lambda raw: True)
    state["game"]["rng"]["uinteger"] = 10**5000
    _refused(env, state, "state dict is not JSON data: game.rng.uinteger: an integer of "
             "16610 bits is too large")  # fmt: skip


@pytest.mark.parametrize("env_id", list_envs())
def test_non_json_values_are_refused_naming_the_field(env_id: str) -> None:
    env, state = _state_where(env_id, lambda raw: True)
    for value, problem in (
        ({1, 2}, "options.reward: a set is not JSON data"),
        ({1: "x"}, "options.reward: key 1 is not a string"),
    ):
        data = copy.deepcopy(state)
        data["options"]["reward"] = value
        _refused(env, data, f"state dict is not JSON data: {problem}")


@pytest.mark.parametrize("env_id", list_envs())
def test_state_dict_loads_as_it_is_without_a_json_round_trip(env_id: str) -> None:
    """``state_dict()`` holds tuples (options such as Asrus' ``removed_numbers``):
    the JSON check takes them as lists, so the dict loads as it is."""
    raw_cls = type(make(env_id).unwrapped)
    n = ENVS[env_id].default_players
    for options in (dict(o) for o in raw_cls.option_samples_for(n)):
        try:
            env = make(env_id, **{**options, "num_players": n})
        except FlockgymError:
            continue
        env, _ = _state_where(env_id, lambda raw: raw.steps >= 5, **{**options, "num_players": n})
        raw = env.unwrapped
        saved = json.dumps(raw.state_dict())
        raw.load_state_dict(raw.state_dict())
        assert json.dumps(raw.state_dict()) == saved


def test_a_hostile_nesting_is_refused_without_recursion() -> None:
    env, state = _state_where("asrus_v0", lambda raw: True)
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    data = copy.deepcopy(state)
    data["game"]["pending"] = deep
    shown = ("game.pending" + "[0]" * 63)[:57]
    _refused(env, data, f"state dict is not JSON data: {shown}...: nested deeper than 64 levels")


@pytest.mark.parametrize("env_id", list_envs())
def test_rng_numbers_out_of_range_are_refused(env_id: str) -> None:
    env, state = _state_where(env_id, lambda raw: True)
    for key, value, allowed in (
        ("uinteger", -1, "an integer in 0..4294967295"),
        ("has_uint32", 2, "an integer in 0..1"),
    ):
        data = copy.deepcopy(state)
        data["game"]["rng"][key] = value
        with pytest.raises(
            StateDictError, match=f"rng.{key}: {value} is not allowed; expected {allowed}"
        ):
            env.unwrapped.load_state_dict(data)


@pytest.mark.parametrize("env_id", list_envs())
def test_an_unhashable_agent_id_is_refused(env_id: str) -> None:
    env, state = _state_where(env_id, lambda raw: True)
    data = copy.deepcopy(state)
    data["aec"]["agents"][0] = ["player_0"]
    with pytest.raises(StateDictError, match=r"^aec.agents: \[\['player_0'\]"):
        env.unwrapped.load_state_dict(data)
    data = copy.deepcopy(state)
    data["aec"]["agent_selection"] = {"a": 1}
    with pytest.raises(StateDictError, match=r"^aec.agent_selection: \{'a': 1\} is not an agent"):
        env.unwrapped.load_state_dict(data)


def _arena_after_challenge(raw: Any) -> bool:
    return raw.arena.last_challenge is not None


def test_arena_last_challenge_is_checked_field_by_field() -> None:
    env, state = _state_where("arena_v0", _arena_after_challenge, num_players=3)
    record = state["game"]["last_challenge"]
    total = record["total"]
    cases = [
        ("total", "7", f"game.last_challenge.total: '7' is not allowed; expected {total} "
         "(the dice and the modifier)"),
        ("total", total + 1, f"game.last_challenge.total: {total + 1} is not allowed; expected "
         f"{total} (the dice and the modifier)"),
        ("success", not record["success"], f"game.last_challenge.success: "
         f"{not record['success']!r} is not allowed; expected one of {record['success']!r}"),
        ("dice", [], "game.last_challenge.dice: [] is not allowed; expected a list of 1..104 dice"),
        ("challenger", 3, "game.last_challenge.challenger: 3 is not allowed; expected an "
         "integer in 0..2"),
    ]  # fmt: skip
    for key, value, message in cases:
        data = copy.deepcopy(state)
        data["game"]["last_challenge"][key] = value
        _refused(env, data, message)
    data = copy.deepcopy(state)
    del data["game"]["last_challenge"]["success"]
    with pytest.raises(
        StateDictError, match=r"^game.last_challenge: missing field\(s\) \['success'\]"
    ):
        env.unwrapped.load_state_dict(data)


def test_arena_stopped_and_forced_target_must_fit_the_phase() -> None:
    env, state = _state_where(
        "arena_v0", lambda raw: raw.arena.phase == MOVE and raw.arena.steps_left, num_players=4
    )
    data = copy.deepcopy(state)
    data["game"]["stopped"] = True
    _refused(env, data, "game.stopped: true only after a move stopped early (phase action or "
             "a challenge, entered, no steps left, no forced target)")  # fmt: skip
    data = copy.deepcopy(state)
    data["game"]["forced_target"] = (state["game"]["turn_seat"] + 1) % 4
    _refused(env, data, "game.forced_target: a player other than the one on turn, only in "
             "phase action or a challenge")  # fmt: skip


def test_arena_config_naming_another_box_is_refused_before_it_is_read(
    tmp_path: Any, monkeypatch: Any
) -> None:
    from flockgym.envs.arena import data as arena_data

    env, state = _state_where("arena_v0", lambda raw: True, num_players=2)
    other = tmp_path / "other.yaml"
    other.write_text(arena_data.DEFAULT_PATH.read_text())
    opened: list[str] = []
    real_read = arena_data.read_option_file
    monkeypatch.setattr(
        arena_data,
        "read_option_file",
        lambda path, *a, **k: opened.append(path) or real_read(path, *a, **k),
    )
    data = copy.deepcopy(state)
    data["game"]["config"]["data"] = str(other)
    with pytest.raises(
        StateDictError, match=r"^game.config: saved Arena config .* differs from this env's"
    ):
        env.unwrapped.load_state_dict(data)
    assert opened == []
    data["game"]["config"]["data"] = None
    data["game"]["config"]["num_players"] = 2.0
    _refused(env, data, "game.config: num_players=2.0 is not allowed; allowed: 2..6")


def test_skybirds_config_aerodrome_may_not_name_a_file(tmp_path: Any) -> None:
    env, state = _state_where("skybirds_v0", lambda raw: True, num_players=2)
    data = copy.deepcopy(state)
    data["game"]["config"]["aerodrome"] = "table.json"
    _refused(env, data, "game.config.aerodrome must be a list of table rows, got 'table.json'")
    data = copy.deepcopy(state)
    data["game"]["config"]["num_players"] = 2.0
    _refused(env, data, "game.config: num_players=2.0 is not allowed; allowed: 2, 3, 4")


def test_astrobirdz_config_age_too_large_for_a_float_loads_as_an_int() -> None:
    """A whole-number age of any size is an age (the rules only compare ages);
    checking it once raised a bare OverflowError."""
    env, state = _state_where("astrobirdz_v0", lambda raw: True, num_players=2)
    data = copy.deepcopy(state)
    data["game"]["config"]["ages"] = [2**4000, 1]
    data["options"]["ages"] = None
    with pytest.raises(StateDictError) as caught:
        env.unwrapped.load_state_dict(data)
    assert "OverflowError" not in type(caught.value).__name__


# ---- state JSON text and the invariants a loaded state must keep ----------------------


@pytest.mark.parametrize("env_id", list_envs())
def test_state_json_round_trips_through_the_reader(env_id: str) -> None:
    env, state = _state_where(env_id, lambda raw: raw.steps >= 3)
    other = make(env_id, **{k: v for k, v in env.unwrapped.options.items() if k != "render_mode"})
    other.unwrapped.load_state_json(json.dumps(state))
    assert json.loads(json.dumps(other.unwrapped.state_dict())) == state


@pytest.mark.parametrize("env_id", list_envs())
def test_state_json_past_the_digit_and_depth_limits_is_named(env_id: str) -> None:
    """``json.loads`` of these raises a bare ValueError (Python's 4,300-digit
    limit) or RecursionError; the reader names the limit, and nothing changes."""
    env, state = _state_where(env_id, lambda raw: True)
    raw = env.unwrapped
    before = json.dumps(raw.state_dict())
    text = json.dumps(state)
    digits = text.replace('"steps": ', '"steps": ' + "9" * 5000, 1)
    deep = text.replace('"steps": ', '"steps": ' + "[" * 995 + "]" * 995 + ', "x": ', 1)
    for bad, message in (
        (digits, "state JSON: a number of 5,00"),
        (deep, "state JSON: nested deeper than 64 levels; allowed: at most 64"),
        ("[1, 2]", "state JSON: a state is a JSON object, got list"),
        ("{", "state JSON is not valid JSON (line 1, column 2"),
    ):
        with pytest.raises(StateDictError, match=re.escape(message)):
            raw.load_state_json(bad)
        assert json.dumps(raw.state_dict()) == before


@pytest.mark.parametrize("env_id", list_envs())
def test_an_option_nested_995_deep_is_an_option_error(env_id: str) -> None:
    """Its repr in the message raised a bare RecursionError."""
    deep: Any = 0
    for _ in range(995):
        deep = [deep]
    with pytest.raises(FlockgymError, match=r"max_steps=<a list too large to show>"):
        make(env_id, max_steps=deep)


def test_astrobirdz_scores_loaded_past_the_start_bound_play_on_and_load_again() -> None:
    """A score of 1,000,000 (the most a scenario may start with) loaded, and the
    state it played into was refused by the same reader."""
    env, state = _state_where("astrobirdz_v0", lambda raw: raw.steps >= 3, num_players=2)
    data = copy.deepcopy(state)
    data["game"]["scores"][0] = 1_000_000
    assert try_tampered(env, data, random.Random(3)).kind == "loaded"
    turn = state["game"]["turn"]
    data["game"]["scores"][0] = top = 1_000_000 + turn * 351
    assert try_tampered(env, data, random.Random(3)).kind == "loaded"
    data["game"]["scores"][0] = top + 1
    with pytest.raises(StateDictError, match=rf"allowed: a whole number 0..{top} \(1,000,000"):
        env.unwrapped.load_state_dict(data)


def test_astrobirdz_turn_points_bound_holds_under_every_rule_card() -> None:
    from flockgym.envs.astrobirdz import data

    assert data.MAX_TURN_POINTS == 351
    assert all(
        data.turn_points_bound(card.effect) <= data.MAX_TURN_POINTS
        for card in (*data.rule_cards(False), *data.rule_cards(True), data.NO_RULE)
    )


def test_arena_upside_down_is_checked_in_the_wish_phase_too() -> None:
    """Before the characters are given the check was skipped: the state loaded,
    and the state it played into was refused by the same reader."""
    env, state = _state_where("arena_v0", lambda raw: raw.steps == 0, num_players=3)
    assert state["game"]["characters"] == [None, None, None]
    for key, value, message in (
        ("upside_down", [False, False, True], "game.upside_down[2]: a fingerboard is upside "
         "down exactly while a turn is to be lost"),
        ("lost_turns", [0, 1, 0], "game.upside_down[1]: a fingerboard is upside "
         "down exactly while a turn is to be lost"),
        ("roll_cards", [[0], [], []], "game.roll_cards[0]: medal dice added must be held, "
         "once each"),
    ):  # fmt: skip
        data = copy.deepcopy(state)
        data["game"][key] = value
        _refused(env, data, message)


def test_arena_roll_log_sides_are_those_of_the_box() -> None:
    """A d17 in the log passed (the bound was any die up to 20) and broke the
    observation, whose table has the box's own dice."""
    env, state = _state_where("arena_v0", lambda raw: len(raw.arena.roll_log) >= 8, num_players=3)
    data = copy.deepcopy(state)
    data["game"]["roll_log"][7][2:] = [17, 17]
    _refused(env, data, "game.roll_log[7]: must be [seat, purpose, sides 2..8 (this box's "
             "dice), result 1..sides], got [2, 'maneuver challenge', 17, 17]")  # fmt: skip


def main() -> None:
    """Count the outcomes of many tampered loads per env (a measurement, not a
    test): ``python tests/test_state_tamper.py --states 100 --per-state 100``."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--states", type=int, default=100)
    parser.add_argument("--per-state", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    totals: dict[str, int] = {}
    for env_id in list_envs():
        found = run_cases(env_id, args.seed, args.states, args.per_state)
        counts = {kind: len(lines) for kind, lines in found.items()}
        print(env_id, counts)
        for line in (found["bare"] + found["broke"])[:10]:
            print("   ", line)
        totals = {kind: totals.get(kind, 0) + n for kind, n in counts.items()}
    print("total", totals, sum(totals.values()), "cases")


if __name__ == "__main__":
    main()
