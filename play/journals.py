"""A server journal checked whole before a restart continues its game or writes its record.

A journal (see :mod:`.records`) is the server's own file, but a disk, an editor
or a half-finished copy can damage it. Before anything is built from one, every
field is checked against what the server writes and what the game's engine
asserts: the header's record (as :func:`~.records.validate_record`), the game
id, the seats as the server seats them (a person's name of 1-40 characters; a
bot's kind, model and play mode among the allowed ones, its name the one the
server gives it, its seed the one derived from the deal seed), a token hash for
every person and no one else, the end line (a finished status, the move count,
scores and winners of the seats), no option naming a file; then every move is
replayed (the options must build the env, the seats agree with its players,
each move's text match its action) and a game that ended by the rules must end
so, with the scores and winners its end line holds.

Anything else is a :class:`~.records.SavedGameError` naming the journal and the
field, and the server sets the journal aside (it never becomes a record that
then fails to load, and the other journals are restored as usual).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flockgym.envs.core.rng import derive_seed

from .records import (
    FINISHED,
    MAX_TEXT,
    Replay,
    SavedGameError,
    check_result,
    is_int,
    is_number,
    is_text,
    number,
    read_journal,
    validate_record,
)
from .saved_index import check_no_file_options

BOT_KINDS = ("random", "heuristic", "search", "ismcts", "model")
PLAY_MODES = ("greedy", "sample")
MAX_HUMAN_NAME = 40
"""Characters of a person's name at most (as a new game is refused otherwise)."""
GAME_ID = re.compile(r"[0-9a-f]{16}")
"""A game id as the server draws it (``secrets.token_hex(8)``)."""
END_FIELDS = ("end", "moves", "scores", "winners", "error", "ended_because")


@dataclass
class CheckedJournal:
    """A journal that passed every check: its header, its game's record (``status``
    ``running`` unless it ended) and the env with every kept move replayed."""

    path: Path
    header: dict[str, Any]
    record: dict[str, Any]
    ended: bool
    env: Any


def bot_name(spec: dict[str, Any]) -> str:
    """The name the server gives a bot seat (see :func:`.sessions.bot_seat`)."""
    if spec["bot"] != "model":
        return str(spec["bot"])
    play = spec.get("play", "greedy")
    return spec["model"] if play == "greedy" else f"{spec['model']}@{play}"


def check_server_seats(record: dict[str, Any], tokens: dict[str, Any]) -> None:
    """The seats as the server seats them, and a token hash for exactly its people."""
    humans = []
    for index, seat in enumerate(record["seats"]):
        where = f"seats[{index}]"
        if seat["kind"] == "human":
            if not 0 < len(seat["name"]) <= MAX_HUMAN_NAME:
                raise SavedGameError(
                    f"{where}.name: a person's name has 1-{MAX_HUMAN_NAME} characters"
                )
            humans.append(seat["agent"])
            continue
        check_bot_spec(seat, where)
        expected = derive_seed(record["seed"], index)
        if seat["bot_seed"] != expected:
            raise SavedGameError(
                f"{where}.bot_seed: {seat['bot_seed']}, but the deal seed gives this seat "
                f"{expected}"
            )
    if not humans:
        raise SavedGameError("seats: no person sits at this game")
    if not isinstance(tokens, dict) or sorted(tokens) != sorted(humans):
        raise SavedGameError(
            f"tokens: must hold a SHA-256 hash for each person's seat ({', '.join(humans)})"
        )


def check_bot_spec(seat: dict[str, Any], where: str) -> None:
    spec = seat["bot"]
    kind = spec.get("bot")
    if kind not in BOT_KINDS:
        raise SavedGameError(f"{where}.bot.bot: {kind!r:.60}; allowed: {', '.join(BOT_KINDS)}")
    allowed = {"bot", "model", "play"} if kind == "model" else {"bot"}
    extra = sorted(set(spec) - allowed)
    if extra:
        raise SavedGameError(f"{where}.bot: unknown field(s) {', '.join(extra)[:80]}")
    if kind == "model" and (not is_text(spec.get("model")) or not spec["model"]):
        raise SavedGameError(f"{where}.bot.model: must be a model id")
    if kind == "model" and spec.get("play", "greedy") not in PLAY_MODES:
        raise SavedGameError(
            f"{where}.bot.play: {spec.get('play')!r:.60}; allowed: {', '.join(PLAY_MODES)}"
        )
    if seat["name"] != bot_name(spec):
        raise SavedGameError(
            f"{where}.name: {seat['name']!r:.60}, but the server names this bot "
            f"{bot_name(spec)!r:.60}"
        )


def check_header(header: dict[str, Any]) -> None:
    game_id = header.get("game_id")
    if not isinstance(game_id, str) or not GAME_ID.fullmatch(game_id):
        raise SavedGameError(f"game_id: {game_id!r:.40} is not 16 hexadecimal digits")
    if not isinstance(header.get("seed_given"), bool):
        raise SavedGameError("seed_given: must be true or false")
    record = header["record"]
    if record["status"] != "running" or record["moves"] or record["scores"] is not None:
        raise SavedGameError("record: the header holds the game as it started (running, no moves)")
    check_server_seats(record, header["tokens"])
    check_no_file_options(record)


def check_end(end: dict[str, Any], agents: list[str], moves: int) -> None:
    """The end line: a finished status, the move count, the seats' scores and winners."""
    extra = sorted(set(end) - set(END_FIELDS))
    if extra:
        raise SavedGameError(f"end line: unknown field(s) {', '.join(extra)[:80]}")
    status = end["end"]
    if status not in FINISHED:
        raise SavedGameError(f"end line: end {status!r:.40}; allowed: {', '.join(FINISHED)}")
    count = end.get("moves")
    counts = (moves - 1, moves) if status == "crashed" else (moves,)
    if not is_int(count, 0, moves) or count not in counts:
        raise SavedGameError(f"end line: moves {count!s:.40}, but the journal holds {moves} moves")
    scores = end.get("scores")
    if scores is not None and (
        not isinstance(scores, dict)
        or sorted(scores) != sorted(agents)
        or not all(is_number(v) for v in scores.values())
    ):
        raise SavedGameError("end line: scores must be null or a number for each seat")
    winners = end.get("winners", [])
    if (
        not isinstance(winners, list)
        or not all(isinstance(w, str) and w in agents for w in winners)
        or len(set(winners)) != len(winners)
    ):
        raise SavedGameError(f"end line: winners must be seats ({', '.join(agents)}), each once")
    for key in ("error", "ended_because"):
        if not is_text(end.get(key), allow_none=True):
            raise SavedGameError(
                f"end line: {key} must be null or a string of at most {MAX_TEXT} characters"
            )


def ended_record(record: dict[str, Any], end: dict[str, Any], moves: list[Any]) -> dict[str, Any]:
    """The finished record a journal's end line makes."""
    ended = {**record, "moves": moves[: end["moves"]], "status": end["end"]}
    ended["scores"] = end.get("scores")
    ended["winners"] = end.get("winners") or []
    for key in ("error", "ended_because"):
        if end.get(key) is not None:
            ended[key] = end[key]
    ended["updated"] = ended.get("updated") or ended.get("started")
    return ended


def check_replayed_end(record: dict[str, Any], raw: Any) -> None:
    """A game saved as over or truncated must end that way with its scores and winners;
    one left (abandoned) must not have ended, and its scores are the table's."""
    status = record["status"]
    if status in ("over", "truncated"):
        check_result(record, raw)
    elif status == "abandoned":
        if raw.game.is_over():
            raise SavedGameError("end line: abandoned, but the moves end the game")
        scores = {a: number(v) for a, v in raw.scores.items()}
        if record["scores"] is not None and record["scores"] != scores:
            raise SavedGameError(f"end line: scores {record['scores']}, replayed {scores}")
        if record["winners"]:
            raise SavedGameError("end line: an abandoned game has no winners")


def check_journal(path: Path) -> CheckedJournal:
    """The journal at ``path`` checked whole (see the module docstring)."""
    header, moves, end = read_journal(path)
    try:
        check_header(header)
        record = {**header["record"], "moves": moves}
        agents = [seat["agent"] for seat in record["seats"]]
        if end is not None:
            check_end(end, agents, len(moves))
            record = ended_record(record, end, moves)
        validate_record(record)
        replay = Replay(record)
        replay.advance(len(record["moves"]))
        if end is not None:
            check_replayed_end(record, replay.raw)
    except SavedGameError as err:
        raise SavedGameError(f"{path.name}: {err}") from None
    return CheckedJournal(path, header, record, end is not None, replay.env)
