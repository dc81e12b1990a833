"""One-field fuzzers over saved games and server journals.

Every case changes one field of a sound file (deletes it, or gives it another
value: other types, out-of-range numbers, 401- and 5,000-digit integers, NaN,
Infinity, long strings, deep nesting, a near value such as the number plus one)
or removes or repeats one line of a journal. Each case is then used the way the
product uses such a file, and classified:

- ``refused``: a loader refused it with a :class:`SavedGameError` (a named error);
- ``accepted``: it loaded, and every later use worked (or refused it by name);
- ``bare``: something raised another exception (a traceback for the user);
- ``broken``: it was accepted, and a later use failed: a record that does not
  load or replay, a continued game whose next move or state fails.

The pass condition is 0 ``bare`` and 0 ``broken``.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import random
import shutil
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from script_loader import load_script

from flockgym.play import records
from flockgym.play.models import ModelCatalogue
from flockgym.play.records import (
    SavedGameError,
    journal_path,
    load_record,
    replay_record,
)
from flockgym.play.replay import replay_terminal
from flockgym.play.saved_index import SavedGames
from flockgym.play.sessions import GameStore, create_game, restore_games

SAVED_LISTING = load_script("saved_listing")
"""benchmarks/saved_listing.py, whose ``played_record`` plays the records fuzzed here."""

PLACEHOLDER = "\u0000fuzz\u0000"
DEEP = "[" * 100 + "]" * 100
RAW_VALUES = [
    "null", "true", "false", "0", "-1", "1", "2", "1.5", "-0.0", "1e308", "9" * 401,
    "9" * 5000, "NaN", "Infinity", "-Infinity", '""', '"x"', '"' + "x" * 300 + '"',
    '"' + "h" * 5000 + '"', "[]", "{}", DEEP, '{"a": 1}', '"player_9"', '"over"',
    '"../../etc/passwd"',
]  # fmt: skip
"""Replacement values, as JSON text (some are not JSON Python writes: digits past its
limit, NaN, Infinity)."""

SMALL_GAMES = {
    "asrus_v0": {"num_players": 3},
    "astrobirdz_v0": {"num_players": 2},
    "skybirds_v0": {"num_players": 2, "short_game": True},
    "arena_v0": {"num_players": 2, "max_rounds": 2},
}


def near_values(value: Any) -> list[str]:
    """Values close to ``value`` (the same type, slightly off), as JSON text."""
    if isinstance(value, bool):
        return [json.dumps(not value)]
    if isinstance(value, int):
        return [json.dumps(v) for v in (value + 1, value - 1, -value - 1, value * 2 + 7)]
    if isinstance(value, float):
        return [json.dumps(v) for v in (value + 1, -value - 1)]
    if isinstance(value, str):
        return [json.dumps(v) for v in (value + "x", value[:-1], value.upper())]
    if isinstance(value, list) and value:
        return [json.dumps(value[:-1]), json.dumps(value + value[-1:])]
    if isinstance(value, dict) and value:
        return [json.dumps(dict(list(value.items())[:-1]))]
    return []


def sampled(items: list[Any], keep_all: bool) -> list[int]:
    """Indices of a list to change: all of a short one, else the first two, the
    middle and the last (a long move list repeats itself)."""
    if keep_all or len(items) <= 6:
        return list(range(len(items)))
    return sorted({0, 1, len(items) // 2, len(items) - 1})


def paths(value: Any, prefix: tuple[Any, ...] = (), keep_all: bool = False) -> Iterator[tuple]:
    """Every field below ``value``: a path of keys and indices."""
    if isinstance(value, dict):
        for key in value:
            yield (*prefix, key)
            yield from paths(value[key], (*prefix, key), keep_all)
    elif isinstance(value, list):
        for index in sampled(value, keep_all):
            yield (*prefix, index)
            yield from paths(value[index], (*prefix, index), keep_all)


def get(value: Any, path: tuple) -> Any:
    for key in path:
        value = value[key]
    return value


def changed_texts(value: Any, path: tuple) -> Iterator[tuple[str, str]]:
    """``(what, JSON text)`` for every one-field change of ``value`` at ``path``."""
    parent, key = get(value, path[:-1]), path[-1]
    removed = copy.deepcopy(value)
    target = get(removed, path[:-1])
    del target[key]
    yield "removed", json.dumps(removed)
    for raw in RAW_VALUES + near_values(parent[key]):
        one = copy.deepcopy(value)
        get(one, path[:-1])[key] = PLACEHOLDER
        text = json.dumps(one).replace(json.dumps(PLACEHOLDER), raw)
        yield raw[:20], text


@dataclass
class Tally:
    """The outcome of a fuzzing run, and the first few failing cases."""

    counts: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    def add(self, outcome: str, case: str) -> None:
        self.counts[outcome] += 1
        if outcome in ("bare", "broken") and len(self.failures) < 20:
            self.failures.append(f"{outcome}: {case}")

    @property
    def cases(self) -> int:
        return sum(self.counts.values())


# ---- saved records ---------------------------------------------------------------------


def played_record(env_id: str, seed: int) -> dict[str, Any]:
    """A finished record of a game of random legal moves, as the server saves one
    (made by the saved-listing benchmark's own function), as plain JSON data."""
    return json.loads(json.dumps(SAVED_LISTING.played_record(seed, env_id, SMALL_GAMES[env_id])))


def use_record(folder: Path, name: str) -> None:
    """Everything the product does with a saved game once it loads: the server's
    listing, the record and its frames, and ``flockgym replay`` (each may refuse it
    by name; anything else escapes)."""
    record = load_record(folder / name)
    saved = SavedGames(folder, lambda text: None)
    saved.listing()
    with contextlib.suppress(SavedGameError):
        saved.record(name)
        for moves in (0, min(1, len(record["moves"]))):
            saved.frame(name, moves)
    with contextlib.suppress(SavedGameError):  # the whole replay, every check, and its story
        replay_terminal(folder / name, stdout=io.StringIO())


def fuzz_records(
    folder: Path, bases: list[dict[str, Any]], limit: int | None = None, seed: int = 0
) -> Tally:
    """Every one-field change of every base record (``limit``: a random sample)."""
    cases = [
        (index, path, what, text)
        for index, base in enumerate(bases)
        for path in paths(base)
        for what, text in changed_texts(base, path)
    ]
    if limit is not None:
        cases = random.Random(seed).sample(cases, min(limit, len(cases)))
    tally = Tally()
    folder.mkdir(parents=True, exist_ok=True)
    for index, path, what, text in cases:
        case = f"record {index} {'.'.join(map(str, path))} = {what}"
        name = "case.json"
        (folder / name).write_text(text)
        tally.add(record_outcome(folder, name), case)
    return tally


def record_outcome(folder: Path, name: str) -> str:
    try:
        load_record(folder / name)
    except SavedGameError:
        return "refused"
    except Exception:
        return "bare"
    try:
        use_record(folder, name)
    except Exception:
        return "broken"
    return "accepted"


# ---- server journals -------------------------------------------------------------------


def new_game(store: GameStore, folder: Path, env_id: str, seed: int) -> Any:
    seats = [{"kind": "human"}] + [{"kind": "bot", "bot": "heuristic"}] * (
        SMALL_GAMES[env_id]["num_players"] - 1
    )
    body = {"env": env_id, "options": SMALL_GAMES[env_id], "seed": seed, "seats": seats}
    game, _ = create_game(body, ModelCatalogue([], None), folder, store.clock)
    store.add(game)
    return game


def play_moves(game: Any, count: int, rng: random.Random) -> None:
    """``count`` moves: the person's at random, the bots' through the server."""
    for _ in range(count):
        if game.finished:
            return
        acting = game.to_act()
        if acting.kind == "bot":
            game.bot_moves({"move_number": game.move_number})
        else:
            action = rng.choice(game.raw.legal_actions(acting.agent))
            game.human_move(acting, {"move_number": game.move_number, "action": action})


def base_journals(
    folder: Path, seed: int = 0, envs: tuple[str, ...] = tuple(SMALL_GAMES)
) -> list[str]:
    """Journals the server wrote, per game: one running (a few moves in), one left by
    its person and one played to the end (its end line kept, as after a crash
    before the record was written). Returns their texts."""
    texts = []
    store = GameStore()
    keep = records.Journal.remove
    records.Journal.remove = lambda self: None  # keep the journals of ended games
    try:
        for env_id in envs:
            rng = random.Random(seed)
            running = new_game(store, folder, env_id, seed)
            play_moves(running, 6, rng)
            left = new_game(store, folder, env_id, seed + 1)
            play_moves(left, 4, rng)
            left.abandon("left by a person", strict=True)
            ended = new_game(store, folder, env_id, seed + 2)
            play_moves(ended, 100_000, rng)
            for game in (running, left, ended):
                texts.append(journal_path(game.log.path).read_text())
    finally:
        records.Journal.remove = keep
    return texts


def journal_cases(text: str) -> Iterator[tuple[str, str]]:
    """Every one-field change of a journal's lines, and each line removed or repeated."""
    lines = [json.loads(line) for line in text.splitlines()]
    rows = [json.dumps(line) for line in lines]
    for number in sampled(lines, False):
        rest = rows[:number] + rows[number + 1 :]
        yield f"line {number + 1} removed", "".join(r + "\n" for r in rest)
        again = rows[: number + 1] + rows[number:]
        yield f"line {number + 1} repeated", "".join(r + "\n" for r in again)
        for path in paths(lines[number]):
            for what, line in changed_texts(lines[number], path):
                changed = [*rows[:number], line, *rows[number + 1 :]]
                where = ".".join(map(str, path))
                yield f"line {number + 1} {where} = {what}", "".join(r + "\n" for r in changed)


def fuzz_journals(folder: Path, bases: list[str], limit: int | None = None, seed: int = 0) -> Tally:
    cases = [
        (index, what, text)
        for index, base in enumerate(bases)
        for what, text in journal_cases(base)
    ]
    if limit is not None:
        cases = random.Random(seed).sample(cases, min(limit, len(cases)))
    tally = Tally()
    for index, what, text in cases:
        tally.add(journal_outcome(folder / "case", text), f"journal {index} {what}")
    return tally


NAME = "20260101-120000-fuzz_v0-00000000"


def journal_outcome(folder: Path, text: str) -> str:
    """Restore one journal as a server start does, then use what came of it."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / f"{NAME}.jsonl").write_text(text)
    said: list[str] = []
    store = GameStore()
    try:
        restore_games(folder, ModelCatalogue([], None), store, said.append)
    except Exception:
        return "bare"
    if any("unexpected" in line for line in said):
        return "bare"
    if any("set aside" in line for line in said):
        return "refused"
    try:
        for game in list(store.games.values()):
            use_game(game)
        for path in folder.glob("*.json"):
            replay_record(load_record(path))
    except Exception:
        return "broken"
    return "accepted"


def use_game(game: Any) -> None:
    """A continued game answers every seat, takes its next move and ends as a record
    that loads and replays."""
    for seat in game.seats:
        if seat.kind == "human":
            game.seat_state(seat)
    play_moves(game, 2, random.Random(0))
    game.abandon("left by a person", strict=True)
    replay_record(load_record(game.log.path))
