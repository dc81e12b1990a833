"""Saved games: one JSON file per game, written by the server and by terminal play.

A saved game holds everything needed to play the game again exactly: the env
id, its options, the deal seed, who sat where, and every action with its id
and its string, then the final scores and winners. Replaying it (a fresh env,
``reset(seed)``, the actions in order) must reproduce every action string and
the final result; :func:`replay_record` checks that at each step, so a saved
game is also a regression case, like a golden playthrough::

    {
      "format": "flockgym-game", "version": 1,
      "env": "astrobirdz_v0",
      "options": {"num_players": 2, "berzerkerbirdz": true, ...},
      "seed": 7,
      "seats": [{"agent": "player_0", "kind": "human", "name": "you"},
                {"agent": "player_1", "kind": "bot", "name": "heuristic",
                 "bot": {"bot": "heuristic"}, "bot_seed": 123}],
      "moves": [{"agent": "player_0", "action": 58, "text": "guess 4"}, ...],
      "status": "over",
      "scores": {"player_0": 31, "player_1": 54},
      "winners": ["player_1"],
      "started": "2026-01-01T12:00:00Z", "updated": "2026-01-01T12:09:30Z",
      "source": "serve"
    }

``status`` is ``running`` (saved mid-game), ``over`` (ended by the rules),
``truncated`` (cut short by ``max_steps``), ``abandoned`` (left, or expired
while idle) or ``crashed`` (stopped by an error, named in ``error``).

While the server plays a game, the game is kept in an append-only journal
beside it (``<name>.jsonl``, :class:`Journal`): a header line (the record
above without moves, the game id and the seats' token hashes), a line per
move written and forced to disk before the move is applied, and an end
line. When the game ends its record is written as above and the journal
removed; after a crash or a restart, the journal is all it takes to continue.
This module imports no torch: replaying needs only the envs.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import math
import os
import re
import stat
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flockgym.envs import FlockgymError, list_envs, make

RECORD_FORMAT = "flockgym-game"
RECORD_VERSION = 1
STATUSES = ("running", "over", "truncated", "abandoned", "crashed")
FINISHED = ("over", "truncated", "abandoned", "crashed")
"""Statuses of a game nobody plays any more (its whole record may be shown)."""
MAX_RECORD_BYTES = 20_000_000
"""A saved game of any flockgym env is far smaller; larger files are refused unread."""
RECORD_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,120}\.json")
"""File names the server writes and accepts back (no folders, no dot files)."""
SERVER_OPTIONS = ("render_mode",)
"""Env options that belong to how a program shows the game, not to the game: never saved."""


JOURNAL_FORMAT = "flockgym-game-journal"
JOURNAL_VERSION = 1
JOURNAL_SUFFIX = ".jsonl"
MAX_SEED_VALUE = 2**128 - 1
"""The largest deal seed a record may hold (the server draws 128-bit seeds)."""
MAX_BOT_SEED = 2**63 - 1
"""Bots are seeded with :func:`~flockgym.envs.core.rng.derive_seed`'s 63-bit seeds."""
MAX_ACTION = 2**31 - 1
"""Action ids are indices into an action space far smaller than this."""
MAX_SCORE = 1e12
"""Scores of every game are far smaller; larger ones are no game's."""
MAX_TEXT = 1_000
"""Characters at most in an action string, a seat's name, a time or a message."""
TEXT_FIELDS = ("started", "updated", "error", "ended_because", "source")
"""Optional string fields of a record."""


class SavedGameError(FlockgymError):
    """A saved game cannot be read, or does not replay as recorded."""


class SaveError(FlockgymError):
    """A game could not be written to disk (a full disk, a read-only folder).

    The message names the system's reason but no path: it is sent to clients."""


def token_hash(token: str) -> str:
    """The SHA-256 of a seat token, as saved: a journal never holds a token itself."""
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


def utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def game_options(raw_env: Any) -> dict[str, Any]:
    """The options of a built env as saved: every option, JSON types, no render mode."""
    return json.loads(
        json.dumps({k: v for k, v in raw_env.options.items() if k not in SERVER_OPTIONS})
    )


class GameLog:
    """The saved game of one game being played: add moves, then finish.

    ``path`` (optional) is rewritten atomically by :meth:`save`, so a crash at
    any moment leaves the last complete record on disk. While the game runs,
    a save is skipped when the last one is under ``save_every`` seconds old
    (the file is then at most that far behind; a finished game is always
    written at once, indented for reading). The server gives its games a
    :class:`Journal` instead: each move is on disk before it is applied, and
    only the finished record is written here.
    """

    save_every = 1.0

    def __init__(
        self,
        env_id: str,
        options: dict[str, Any],
        seed: int,
        seats: list[dict[str, Any]],
        path: Path | None = None,
        source: str = "serve",
    ) -> None:
        self.path = path
        self.journal: Journal | None = None
        self.saved_at = -self.save_every
        self.dirty = False
        self.data: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "env": env_id,
            "options": options,
            "seed": seed,
            "seats": seats,
            "moves": [],
            "status": "running",
            "scores": None,
            "winners": [],
            "started": utc_now(),
            "updated": utc_now(),
            "source": source,
        }

    @property
    def moves(self) -> list[dict[str, Any]]:
        return self.data["moves"]

    def add_move(self, agent: str, action: int, text: str) -> None:
        self.moves.append({"agent": agent, "action": int(action), "text": text})
        self.dirty = True

    def finish(
        self,
        status: str,
        scores: dict[str, float] | None,
        winners: list[str],
        error: str | None = None,
    ) -> None:
        if status not in STATUSES:
            raise ValueError(f"status {status!r}; allowed: {', '.join(STATUSES)}")
        self.data["status"] = status
        self.data["scores"] = None if scores is None else {a: number(v) for a, v in scores.items()}
        self.data["winners"] = list(winners)
        if error is not None:
            self.data["error"] = error
        self.dirty = True

    def save(self, force: bool = False) -> None:
        """Write the record (atomically) if this log has a path (see the class docstring).

        With a journal, a running game is already on disk move by move: only the
        finished record is written, and the journal is removed once it is."""
        if self.path is None:
            return
        running = self.data["status"] == "running"
        if self.journal is not None:
            if running:
                return
            self.data["updated"] = utc_now()
            write_json_atomic(self.path, self.data, indent=1)
            self.journal.remove()
            self.journal = None
            self.saved_at, self.dirty = time.monotonic(), False
            return
        now = time.monotonic()
        if running and not force and now - self.saved_at < self.save_every:
            return
        self.data["updated"] = utc_now()
        write_json_atomic(self.path, self.data, indent=None if running else 1)
        self.saved_at, self.dirty = now, False


def number(value: float) -> float | int:
    """A score as JSON shows it best: whole numbers as ints."""
    value = float(value)
    return int(value) if value.is_integer() else value


def write_json_atomic(path: Path, data: dict[str, Any], indent: int | None = 1) -> None:
    """Write ``data`` to ``path`` through a temporary file, forced to disk, and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(handle, "w") as out:
            out.write(json.dumps(data, indent=indent))
            out.write("\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


# ---- the journal of a running game ------------------------------------------------------


def append_line(path: Path, line: bytes) -> None:
    """Append ``line`` to ``path`` and force it to disk before returning.

    A write that fails half way is cut off again, so the journal never holds a
    partial line in its middle (a torn last line, from a power cut, is ignored
    when the journal is read)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        start = os.lseek(fd, 0, os.SEEK_END)
        try:
            if os.write(fd, line) != len(line):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            getattr(os, "fdatasync", os.fsync)(fd)
        except OSError:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, start)
            raise
    finally:
        os.close(fd)


def sync_folder(folder: Path) -> None:
    """Force a folder's entries (a file just created or renamed) to disk, where the
    system allows it."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def save_failed(what: str, err: OSError) -> SaveError:
    """A :class:`SaveError` for ``what`` naming the system's reason (never a path)."""
    reason = err.strerror or type(err).__name__
    return SaveError(f"the server could not save {what} ({reason}); nothing was changed")


class Journal:
    """The append-only journal of one running game (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def create(cls, path: Path, header: dict[str, Any]) -> Journal:
        """Write a new journal holding ``header``; :class:`SaveError` leaves no file."""
        line = (json.dumps(header, separators=(",", ":")) + "\n").encode()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            os.close(fd)
        except OSError as err:
            raise save_failed("the new game", err) from None
        journal = cls(path)
        try:
            append_line(path, line)
        except OSError as err:
            journal.remove()
            raise save_failed("the new game", err) from None
        sync_folder(path.parent)
        return journal

    def append(self, entry: dict[str, Any], what: str = "the move") -> None:
        """Add ``entry`` as one line, on disk when this returns; else :class:`SaveError`."""
        line = (json.dumps(entry, separators=(",", ":")) + "\n").encode()
        try:
            append_line(self.path, line)
        except OSError as err:
            raise save_failed(what, err) from None

    def cut(self, size: int) -> None:
        """Cut the journal back to ``size`` bytes, on disk when this returns (a change
        refused after its lines were written is undone this way)."""
        fd = os.open(self.path, os.O_WRONLY)
        try:
            os.ftruncate(fd, size)
            getattr(os, "fdatasync", os.fsync)(fd)
        finally:
            os.close(fd)

    def remove(self) -> None:
        with contextlib.suppress(OSError):
            self.path.unlink()


def journal_path(record_path: Path) -> Path:
    """The journal kept beside the record ``record_path`` while its game runs."""
    return record_path.with_suffix(JOURNAL_SUFFIX)


def cut_torn_tail(path: Path) -> None:
    """Cut a journal's torn last line (a write a crash cut short), so the lines a
    continued game appends start on a line of their own."""
    data = path.read_bytes()
    keep = data.rfind(b"\n") + 1
    if keep and keep == len(data):
        last = data[data.rfind(b"\n", 0, keep - 1) + 1 : keep]
        try:
            json.loads(last)
        except (ValueError, RecursionError):
            keep = data.rfind(b"\n", 0, keep - 1) + 1
    if keep != len(data):
        with path.open("r+b") as handle:
            handle.truncate(keep)
            handle.flush()
            os.fsync(handle.fileno())


def read_journal(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any] | None]:
    """The header, the moves and the end line (or None) of a journal.

    A torn last line (a write cut by a crash: no newline, or not JSON) is
    dropped; anything else that is not a journal is a :class:`SavedGameError`."""
    text = read_bounded(path)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    elif lines:
        lines.pop()  # the last line has no newline: a write cut short
    entries = []
    for index, line in enumerate(lines):
        try:
            entries.append(parse_json(line))
        except SavedGameError as err:
            if index == len(lines) - 1:
                break
            raise SavedGameError(f"{path.name}: line {index + 1} is {err}") from None
    if not entries or not isinstance(entries[0], dict):
        raise SavedGameError(f"{path.name}: no journal header")
    header = entries[0]
    if header.get("format") != JOURNAL_FORMAT or header.get("version") != JOURNAL_VERSION:
        raise SavedGameError(f"{path.name}: not a flockgym game journal")
    record = header.get("record")
    try:
        validate_record(record)
    except SavedGameError as err:
        raise SavedGameError(f"{path.name}: {err}") from None
    tokens = header.get("tokens")
    if not isinstance(tokens, dict) or not all(
        isinstance(v, str) and re.fullmatch(r"[0-9a-f]{64}", v) for v in tokens.values()
    ):
        raise SavedGameError(f"{path.name}: tokens must map agents to SHA-256 hashes")
    if not isinstance(header.get("game_id"), str):
        raise SavedGameError(f"{path.name}: no game_id")
    moves: list[dict[str, Any]] = []
    end = None
    for index, entry in enumerate(entries[1:], start=2):
        if end is not None:
            raise SavedGameError(f"{path.name}: line {index} follows the end of the game")
        if isinstance(entry, dict) and "end" in entry:
            end = entry
            continue
        if not isinstance(entry, dict) or entry.get("n") != len(moves):
            raise SavedGameError(f"{path.name}: line {index} is not move {len(moves)}")
        move = {k: entry.get(k) for k in ("agent", "action", "text")}
        try:
            check_moves([move])
        except SavedGameError:
            raise SavedGameError(f"{path.name}: line {index} is not a move") from None
        moves.append(move)
    return header, moves, end


def record_file_name(env_id: str, game_id: str) -> str:
    """``20260101-120000-astrobirdz_v0-1a2b3c4d.json``: sorted by time, unique by game."""
    return f"{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}-{env_id}-{game_id[:8]}.json"


# ---- reading ----------------------------------------------------------------------------


def read_bounded(path: Path) -> str:
    """The text of ``path`` if it is a regular file of at most :data:`MAX_RECORD_BYTES`,
    checked on the opened file before reading (a FIFO or a device is never read)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise SavedGameError(f"saved game {path} does not exist") from None
    except OSError as err:
        raise SavedGameError(f"saved game {path} cannot be read ({err.strerror})") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise SavedGameError(f"{path} is not a regular file: not a saved game")
    with os.fdopen(fd, "rb") as handle:
        if info.st_size > MAX_RECORD_BYTES:
            raise SavedGameError(
                f"{path} is larger than {MAX_RECORD_BYTES} bytes: not a saved game"
            )
        data = handle.read(MAX_RECORD_BYTES + 1)
    if len(data) > MAX_RECORD_BYTES:
        raise SavedGameError(f"{path} is larger than {MAX_RECORD_BYTES} bytes: not a saved game")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise SavedGameError(f"{path} is not UTF-8 text: not a saved game") from None


def parse_json(text: str) -> Any:
    """``text`` as strict JSON (no NaN or Infinity); :class:`SavedGameError` says why not
    (a syntax error, a number of thousands of digits, nesting deeper than Python's stack)."""
    try:
        return json.loads(text, parse_constant=refuse_constant)
    except json.JSONDecodeError as err:
        raise SavedGameError(f"not JSON: {err}") from None
    except (ValueError, RecursionError) as err:
        if isinstance(err, RecursionError):
            why = "nested too deeply"
        elif "integer string conversion" in str(err):
            why = "it holds a number of thousands of digits"
        else:
            why = str(err)[:120]
        raise SavedGameError(f"not JSON: {why}") from None


def load_record(path: str | Path) -> dict[str, Any]:
    """Read and check a saved game; :class:`SavedGameError` names what is wrong."""
    path = Path(path)
    text = read_bounded(path)
    try:
        data = parse_json(text)
    except SavedGameError as err:
        raise SavedGameError(f"{path} is not a JSON saved game: {str(err)[10:]}") from None
    try:
        return validate_record(data)
    except SavedGameError as err:
        raise SavedGameError(f"{path}: {err}") from None


def refuse_constant(name: str) -> Any:
    """JSON has no NaN or Infinity (Python's reader accepts them): refuse them."""
    raise ValueError(f"{name} is not a JSON number")


def validate_record(data: Any) -> dict[str, Any]:
    """``data`` if it has the shape of a saved game (see the module docstring)."""
    if not isinstance(data, dict):
        raise SavedGameError(f"a saved game is a JSON object, got {type(data).__name__}")
    if data.get("format") != RECORD_FORMAT or data.get("version") != RECORD_VERSION:
        raise SavedGameError(
            f"not a flockgym saved game (format {data.get('format')!r}, version "
            f"{data.get('version')!r}); expected format {RECORD_FORMAT!r} version {RECORD_VERSION}"
        )
    env_id = data.get("env")
    if env_id not in list_envs():
        raise SavedGameError(f"env: {env_id!r} is not registered; envs: {', '.join(list_envs())}")
    if not isinstance(data.get("options"), dict):
        raise SavedGameError("options: must be an object of env options")
    seed = data.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED_VALUE:
        raise SavedGameError(f"seed: {seed!r:.60} is not an integer in 0..2**128-1")
    server_set = sorted(set(data["options"]) & set(SERVER_OPTIONS))
    if server_set:
        raise SavedGameError(f"options: {', '.join(server_set)} is never saved with a game")
    agents = check_seats(data.get("seats"))
    check_moves(data.get("moves"), agents)
    if data.get("status") not in STATUSES:
        raise SavedGameError(f"status: {data.get('status')!r:.60}; allowed: {', '.join(STATUSES)}")
    check_result_fields(data, agents)
    for key in TEXT_FIELDS:
        if key in data and not is_text(data[key], allow_none=key in ("error", "ended_because")):
            raise SavedGameError(f"{key}: must be a string of at most {MAX_TEXT} characters")
    return data


def check_result_fields(data: dict[str, Any], agents: list[str]) -> None:
    """``scores`` (null, or a number for every seat) and ``winners`` (seats, once each)."""
    if "scores" not in data:
        raise SavedGameError(
            "scores: missing; a saved game holds null or an object of agent: number"
        )
    scores = data["scores"]
    if scores is not None:
        if not isinstance(scores, dict) or sorted(scores) != sorted(agents):
            raise SavedGameError(
                f"scores: must be null or an object with a number for each of {', '.join(agents)}"
            )
        for agent, value in scores.items():
            if not is_number(value):
                raise SavedGameError(
                    f"scores.{agent}: {value!s:.40} is not a number between "
                    f"-{MAX_SCORE:.0e} and {MAX_SCORE:.0e}"
                )
    winners = data.get("winners")
    if (
        not isinstance(winners, list)
        or not all(isinstance(w, str) and w in agents for w in winners)
        or len(set(winners)) != len(winners)
    ):
        raise SavedGameError(f"winners: must be a list of seats ({', '.join(agents)}), each once")


def is_number(value: Any) -> bool:
    """A finite JSON number of at most :data:`MAX_SCORE` in size (an integer of
    hundreds of digits is compared as an integer: it has no float)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if isinstance(value, int):
        return -MAX_SCORE <= value <= MAX_SCORE
    return math.isfinite(value) and abs(value) <= MAX_SCORE


def is_text(value: Any, allow_none: bool = False) -> bool:
    if value is None:
        return allow_none
    return isinstance(value, str) and len(value) <= MAX_TEXT


def is_int(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def check_seats(seats: Any) -> list[str]:
    """The agents of a record's seats, each checked (see the module docstring)."""
    if not isinstance(seats, list) or not seats:
        raise SavedGameError("seats: must be a non-empty list of seats")
    for index, seat in enumerate(seats):
        if not isinstance(seat, dict):
            raise SavedGameError(f"seats[{index}]: must be an object")
        if seat.get("agent") != f"player_{index}":
            raise SavedGameError(
                f"seats[{index}].agent: {seat.get('agent')!r:.60}, expected player_{index}"
            )
        if seat.get("kind") not in ("human", "bot"):
            raise SavedGameError(
                f"seats[{index}].kind: {seat.get('kind')!r:.60}; allowed: human, bot"
            )
        name = seat.get("name")
        if not isinstance(name, str) or not 0 < len(name) <= MAX_TEXT:
            raise SavedGameError(
                f"seats[{index}].name: must be a string of 1-{MAX_TEXT} characters"
            )
        if seat["kind"] == "bot":
            check_bot_seat(seat, f"seats[{index}]")
    return [seat["agent"] for seat in seats]


def check_bot_seat(seat: dict[str, Any], where: str) -> None:
    """A bot's seat names the bot (an object of strings) and its 63-bit seed."""
    bot = seat.get("bot")
    if not isinstance(bot, dict) or not bot or not all(is_text(v) for v in bot.values()):
        raise SavedGameError(
            f"{where}.bot: must be an object of strings naming the bot (e.g. "
            f'{{"bot": "heuristic"}})'
        )
    if not is_int(seat.get("bot_seed"), 0, MAX_BOT_SEED):
        raise SavedGameError(
            f"{where}.bot_seed: {seat.get('bot_seed')!s:.40} is not an integer in 0..2**63-1"
        )


def check_moves(moves: Any, agents: list[str] | None = None) -> None:
    """Each move is ``{agent: a seat, action: an integer, text: a string}``."""
    if not isinstance(moves, list):
        raise SavedGameError("moves: must be a list of {agent, action, text}")
    for index, move in enumerate(moves):
        where = f"moves[{index}]"
        if not isinstance(move, dict):
            raise SavedGameError(f"{where}: {move!r:.60} is not {{agent, action, text}}")
        agent = move.get("agent")
        if not isinstance(agent, str) or (agents is not None and agent not in agents):
            seats = "a seat id" if agents is None else ", ".join(agents)
            raise SavedGameError(f"{where}.agent: {agent!r:.60} is not a seat ({seats})")
        if not is_int(move.get("action"), 0, MAX_ACTION):
            raise SavedGameError(
                f"{where}.action: {move.get('action')!s:.40} is not an integer in 0..{MAX_ACTION}"
            )
        if not is_text(move.get("text")):
            raise SavedGameError(f"{where}.text: must be a string of at most {MAX_TEXT} characters")


# ---- replaying --------------------------------------------------------------------------


def build_env(record: dict[str, Any], render_mode: str | None = None) -> Any:
    """A fresh env with the record's options, dealt from its seed, with one seat per
    player."""
    try:
        env = make(record["env"], render_mode=render_mode, **record["options"])
        env.reset(seed=record["seed"])
    except (FlockgymError, TypeError, ValueError) as err:
        raise SavedGameError(f"options: cannot build {record['env']}: {err}") from None
    except Exception as err:  # the options are data from a file: no error of theirs is bare
        raise SavedGameError(
            f"options: cannot build {record['env']}: {type(err).__name__}: {str(err)[:200]}"
        ) from None
    agents = list(env.unwrapped.possible_agents)
    if [seat["agent"] for seat in record["seats"]] != agents:
        raise SavedGameError(
            f"seats: {len(record['seats'])} seats, but the options make a game of "
            f"{len(agents)} players"
        )
    return env


def replay_record(
    record: dict[str, Any],
    on_step: Callable[[Any, int, dict[str, Any]], None] | None = None,
    render_mode: str | None = None,
    upto: int | None = None,
) -> Any:
    """Play the record's moves on a fresh env and return it.

    At every move the agent must be the one to act, the action legal and its
    string the recorded one; after the last move a finished game must end with
    the recorded scores and winners. Anything else is a :class:`SavedGameError`
    naming the move. ``on_step(env, index, move)`` runs before each move;
    ``upto`` stops after that many moves (without the final check).
    """
    replay = Replay(record, render_mode)
    replay.advance(len(record["moves"]) if upto is None else upto, on_step)
    if upto is None:
        check_result(record, replay.raw)
    return replay.env


class Replay:
    """A record's game played again move by move, each move checked (see
    :func:`replay_record`); :meth:`advance` goes on from where it stopped, so a
    viewer stepping through a game replays each move once."""

    def __init__(self, record: dict[str, Any], render_mode: str | None = None) -> None:
        self.record = record
        self.env = build_env(record, render_mode)
        self.raw = self.env.unwrapped
        self.done = 0

    def advance(
        self, upto: int, on_step: Callable[[Any, int, dict[str, Any]], None] | None = None
    ) -> None:
        """Play the moves up to number ``upto`` (not before :attr:`done`)."""
        for index in range(self.done, min(upto, len(self.record["moves"]))):
            move = self.record["moves"][index]
            try:
                self.check_move(index, move)
                if on_step is not None:
                    on_step(self.env, index, move)
                self.env.step(move["action"])
            except SavedGameError:
                raise
            except Exception as err:  # the record is data: the env's error names the move
                raise SavedGameError(
                    f"moves[{index}]: {move['text']:.60} fails: {type(err).__name__}: "
                    f"{str(err)[:200]}"
                ) from None
            self.done = index + 1

    def check_move(self, index: int, move: dict[str, Any]) -> None:
        raw = self.raw
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            raise SavedGameError(f"moves[{index}]: the game was already over")
        if move["agent"] != agent:
            raise SavedGameError(f"moves[{index}]: recorded for {move['agent']}, but {agent} acts")
        if move["action"] not in raw.legal_actions(agent):
            raise SavedGameError(
                f"moves[{index}]: action {move['action']!s:.40} ({move['text']:.60}) is not "
                f"legal here"
            )
        text = raw.action_to_string(agent, move["action"])
        if text != move["text"]:
            raise SavedGameError(
                f"moves[{index}]: action {move['action']} reads {text!r} now, recorded "
                f"{move['text']!r:.60}"
            )


def check_result(record: dict[str, Any], raw: Any) -> None:
    """A record saved as over (or truncated) must end that way, with its scores and winners."""
    status = record["status"]
    if status not in ("over", "truncated"):
        return
    ended = raw.game.is_over() if status == "over" else raw.is_truncated()
    if not ended:
        raise SavedGameError(f"status: recorded {status!r}, but the moves do not end the game")
    scores = {a: number(v) for a, v in raw.scores.items()}
    if record["scores"] != scores:
        raise SavedGameError(f"scores: recorded {record['scores']}, replayed {scores}")
    if record["winners"] != list(raw.winners):
        raise SavedGameError(f"winners: recorded {record['winners']}, replayed {raw.winners}")
