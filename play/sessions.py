"""Live games: who sits where, the moves, and what each seat is sent.

The server holds every game. A human seat is reached only with its own seat
token (handed out once, when the game is created); what it is sent is built
by :meth:`Game.seat_state` from three things: the env's ``view`` of that
seat, its legal moves as action strings when it is to act, and the move log
as :mod:`.disclosure` allows. Nothing else about the table (other hands,
the deal seed while it could reveal them) is ever put in a response.

Every request that changes a game takes the game's lock and either applies
completely or leaves the game as it was; an error inside one game (a bot or
engine failure) marks that game ``crashed`` and touches no other.

Nothing answered is lost: each move is appended to the game's journal and
forced to disk before it is applied (:class:`~.records.Journal`). A save that
fails refuses the request (507) and applies nothing (:meth:`Game.all_or_nothing`):
the move that ends a game also needs its end line and its record on disk, and
if either fails the journal is cut back and the table rebuilt as it was before
the request (a bot's random generator is not rewound: its next choice may
differ). A game whose journal cannot be started is never added. Seat tokens are
kept only as SHA-256 hashes, so after a restart (:func:`restore_games`) each
running game continues with the tokens its people hold (each journal checked
whole first, :mod:`.journals`).
"""

from __future__ import annotations

import contextlib
import hmac
import json
import os
import re
import secrets
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flockgym.bots.policies import BotSpec, BotSpecError, CheckpointError, make_participant
from flockgym.envs import Bot, FlockgymError, env_module, list_envs, make
from flockgym.envs.core.bots import bot_action
from flockgym.envs.core.rng import derive_seed

from .disclosure import is_public
from .journals import BOT_KINDS, PLAY_MODES, check_journal
from .models import ModelCatalogue
from .records import (
    FINISHED,
    JOURNAL_FORMAT,
    JOURNAL_SUFFIX,
    JOURNAL_VERSION,
    MAX_SEED_VALUE,
    GameLog,
    Journal,
    SavedGameError,
    SaveError,
    cut_torn_tail,
    game_options,
    journal_path,
    number,
    record_file_name,
    replay_record,
    save_failed,
    token_hash,
    validate_record,
    write_json_atomic,
)

MAX_SEED = 2**53 - 1
"""Seeds a page can hold exactly as a number (JavaScript numbers are doubles); larger
seeds travel as strings of digits."""
SEED_BITS = 128
"""Bits of the OS's secure generator in the deal seed of every game whose seed is not
given: too many to search for the seed that deals a hand one has seen."""
TOKEN_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What a seat token can look like (``secrets.token_urlsafe``); anything else is no seat."""
MAX_INLINE_OPTION = 20_000
"""Characters of JSON at most in an option a request gives inline (a table's rows)."""
SERVER_SET_OPTIONS = ("render_mode", "illegal_action")
"""Options the server sets itself: a request may not."""


class ApiError(Exception):
    """A request the server refuses: an HTTP status and a message naming the problem."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class Seat:
    """One seat of a game: a person (reached with ``token``) or a bot."""

    agent: str
    kind: str
    name: str
    token_hash: str | None = None
    bot: Bot | None = None
    saved: dict[str, Any] = field(default_factory=dict)

    def public(self) -> dict[str, Any]:
        return {"agent": self.agent, "kind": self.kind, "name": self.name}


def expect_object(payload: Any, where: str, allowed: tuple[str, ...]) -> dict[str, Any]:
    """``payload`` as a dict with only ``allowed`` keys; a 400 names what is wrong."""
    if not isinstance(payload, dict):
        raise ApiError(400, f"{where} must be a JSON object, got {type(payload).__name__}")
    unknown = sorted(set(payload) - set(allowed))
    if unknown:
        raise ApiError(
            400, f"{where}: unknown field(s) {', '.join(unknown)}; allowed: {', '.join(allowed)}"
        )
    return payload


def expect_int(value: Any, where: str, low: int = 0, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ApiError(400, f"{where}: {value!r:.40} is not an integer >= {low}")
    if high is not None and value > high:
        raise ApiError(400, f"{where}: {value!s:.40} is larger than {high}")
    return value


def expect_seed(value: Any) -> int:
    """A deal seed a request gives: a number up to :data:`MAX_SEED`, or a string of
    digits up to 2**128-1 (how the server sends back the seeds it draws)."""
    if isinstance(value, str):
        if not re.fullmatch(r"[0-9]{1,39}", value) or int(value) > MAX_SEED_VALUE:
            raise ApiError(
                400,
                f"seed: {value[:40]!r} is not an integer >= 0 (a string of digits: <= 2**128-1)",
            )
        return int(value)
    return expect_int(value, "seed", 0, MAX_SEED)


def seed_json(seed: int) -> int | str:
    """A seed as a page can hold it exactly: a number, or digits beyond 2**53."""
    return seed if seed <= MAX_SEED else str(seed)


@dataclass
class Mark:
    """A game as it was before a change (:meth:`Game.mark`)."""

    data: dict[str, Any]
    journal: Journal | None
    journal_size: int | None
    error: str | None
    dirty: bool


class Game:
    """One live game: the env, its seats, its saved game and its lock."""

    def __init__(
        self,
        game_id: str,
        env: Any,
        seats: list[Seat],
        seed: int,
        seed_given: bool,
        log: GameLog,
        clock: Callable[[], float],
        client: str | None = None,
    ) -> None:
        self.id = game_id
        self.env = env
        self.raw = env.unwrapped
        self.env_id: str = self.raw.env_id
        self.seats = seats
        self.seed = seed
        self.seed_given = seed_given
        self.log = log
        self.clock = clock
        self.lock = threading.Lock()
        self.last_active = clock()
        self.error: str | None = None
        self.client = client
        """The address that created the game (for the per-client cap); None once restored."""

    # -- reading --

    @property
    def status(self) -> str:
        return self.log.data["status"]

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    @property
    def move_number(self) -> int:
        return len(self.log.moves)

    def to_act(self) -> Seat | None:
        if self.finished:
            return None
        return self.seats[self.raw.seat_of(self.raw.agent_selection)]

    def seat_for(self, token: str | None) -> Seat:
        """The human seat holding ``token``; 401/403 otherwise (its hash is compared in
        constant time; a token no seat could hold is refused the same way)."""
        if not token:
            raise ApiError(401, "this request needs the X-Seat-Token header of a seat of this game")
        if TOKEN_PATTERN.fullmatch(token):
            digest = token_hash(token)
            for seat in self.seats:
                if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest):
                    return seat
        raise ApiError(403, f"that seat token is not a seat of game {self.id}")

    def seat_state(self, seat: Seat, since: int = 0) -> dict[str, Any]:
        """Everything ``seat`` is sent: its view, its legal moves, the log it may read."""
        acting = self.to_act()
        mine = acting is not None and acting.agent == seat.agent
        legal = self.raw.legal_actions(seat.agent) if mine else []
        state: dict[str, Any] = {
            "game_id": self.id,
            "env": self.env_id,
            "options": self.log.data["options"],
            "seats": [s.public() for s in self.seats],
            "agent": seat.agent,
            "status": self.status,
            "move_number": self.move_number,
            "to_act": None if acting is None else acting.agent,
            "to_act_kind": None if acting is None else acting.kind,
            "view": self.raw.view(seat.agent),
            "legal": [{"id": a, "text": self.raw.action_to_string(seat.agent, a)} for a in legal],
            "log": self.log_for(seat.agent, since),
            "seed": seed_json(self.seed) if self.seed_given or self.finished else None,
        }
        if self.finished:
            state["result"] = {
                "scores": self.log.data["scores"],
                "winners": self.log.data["winners"],
                "saved_as": None if self.log.path is None else self.log.path.name,
            }
        if self.error is not None:
            state["error"] = self.error
        return state

    def log_for(self, agent: str, since: int = 0) -> list[dict[str, Any]]:
        """The moves from number ``since`` on, each with its string only where ``agent``
        may read it (its own moves, and moves the game makes in the open)."""
        since = max(0, min(since, self.move_number))
        entries = []
        for number_, move in enumerate(self.log.moves[since:], start=since):
            shown = move["agent"] == agent or is_public(self.raw, move["action"])
            entries.append(
                {"n": number_, "agent": move["agent"], "text": move["text"] if shown else None}
            )
        return entries

    # -- changing --

    def touch(self) -> None:
        self.last_active = self.clock()

    def human_move(self, seat: Seat, payload: Any) -> None:
        """Apply ``seat``'s move; every refusal leaves the game unchanged."""
        body = expect_object(payload, "move", ("move_number", "action", "text"))
        self.check_running()
        self.check_move_number(body.get("move_number"))
        acting = self.to_act()
        assert acting is not None
        if acting.agent != seat.agent:
            raise ApiError(409, f"it is not {seat.agent}'s turn: {acting.agent} is to act")
        action = self.read_action(seat.agent, body)
        with self.all_or_nothing():
            self.apply(seat.agent, action)

    def read_action(self, agent: str, body: dict[str, Any]) -> int:
        legal = self.raw.legal_actions(agent)
        shown = ", ".join(self.raw.action_to_string(agent, a) for a in legal)
        if ("action" in body) == ("text" in body):
            raise ApiError(400, "a move gives either 'action' (an id) or 'text' (its string)")
        if "action" in body:
            action = body["action"]
            if isinstance(action, bool) or not isinstance(action, int):
                raise ApiError(400, f"action {action!r:.40} is not an integer action id")
        else:
            text = body["text"]
            if not isinstance(text, str) or len(text) > 200:
                raise ApiError(400, f"text {text!r:.40} is not an action string")
            try:
                action = self.raw.string_to_action(agent, text)
            except ValueError as err:
                raise ApiError(400, f"{err}; legal moves now: {shown}") from None
        if action not in legal:
            raise ApiError(
                400, f"illegal move {action!r:.40} for {agent}; legal moves now: {shown}"
            )
        return action

    def bot_moves(self, payload: Any) -> None:
        """Play the bot to act (``until: "human"``: every bot until a person is to act)."""
        body = expect_object(payload, "bot request", ("move_number", "until"))
        self.check_running()
        self.check_move_number(body.get("move_number"))
        until = body.get("until", "one")
        if until not in ("one", "human"):
            raise ApiError(400, f"until: {until!r:.40}; allowed: 'one', 'human'")
        acting = self.to_act()
        if acting is None or acting.kind != "bot":
            raise ApiError(409, f"no bot is to act: {acting.agent if acting else 'nobody'} is")
        with self.all_or_nothing():
            while acting is not None and acting.kind == "bot":
                self.play_bot(acting)
                acting = self.to_act()
                if until == "one":
                    break

    def play_bot(self, seat: Seat) -> None:
        assert seat.bot is not None
        try:
            observation = self.raw.observe(seat.agent)
            view = self.raw.view(seat.agent)
            action = bot_action(seat.bot, self.raw, seat.agent, observation, view)
        except Exception as err:  # a bot's failure ends this game only
            self.crash(f"{seat.name} ({seat.agent}) failed to move: {err}")
        self.apply(seat.agent, action)

    def apply(self, agent: str, action: int) -> None:
        """Apply a legal move once its journal line is on disk; a move that ends the
        game also needs its end line and record on disk. Called inside
        :meth:`all_or_nothing`, which undoes everything when a save fails."""
        text = self.raw.action_to_string(agent, action)
        if self.log.journal is not None:
            entry = {"n": self.move_number, "agent": agent, "action": int(action), "text": text}
            self.log.journal.append(entry)
        try:
            self.env.step(action)
        except Exception as err:
            self.crash(f"{agent}'s move {text} failed: {err}")
        self.log.add_move(agent, action, text)
        self.finish_if_over(strict=True)

    @contextlib.contextmanager
    def all_or_nothing(self) -> Iterator[None]:
        """Run a change of this game; if a save fails inside it (:class:`SaveError`),
        put the game back as it was before (its journal, its record, its table) and
        refuse with 507."""
        mark = self.mark()
        try:
            yield
        except SaveError as err:
            self.roll_back(mark)
            raise ApiError(507, str(err)) from None

    def mark(self) -> Mark:
        """What :meth:`roll_back` needs to undo a change."""
        journal = self.log.journal
        size = None
        if journal is not None:
            with contextlib.suppress(OSError):
                size = journal.path.stat().st_size
        data = {**self.log.data, "moves": list(self.log.moves)}
        return Mark(data, journal, size, self.error, self.log.dirty)

    def roll_back(self, mark: Mark) -> None:
        """Undo everything since ``mark``: the journal is cut back to its size then (so
        a restart replays only what was answered), the record data restored and the
        table rebuilt by replaying the moves kept (a move's effects on the table
        cannot be undone otherwise)."""
        if mark.journal is not None and mark.journal_size is not None:
            try:
                mark.journal.cut(mark.journal_size)
            except OSError as err:
                print(
                    f"flockgym serve: game {self.id}: could not cut its journal back after a "
                    f"failed save ({err.strerror}); a restart may replay a refused move",
                    file=sys.stderr,
                )
        moved = len(mark.data["moves"]) != self.move_number
        self.log.data = mark.data
        self.log.journal = mark.journal
        self.log.dirty = mark.dirty
        self.error = mark.error
        if moved:
            self.env = replay_record({**mark.data, "status": "running"})
            self.raw = self.env.unwrapped

    def finish_if_over(self, strict: bool = False) -> None:
        """End the game if the rules ended it (``strict``: see :meth:`end`)."""
        game = self.raw.game
        if game.is_over():
            self.end("over", self.scores(), list(self.raw.winners), strict=strict)
        elif self.raw.is_truncated():
            self.end("truncated", self.scores(), [], strict=strict)

    def end(
        self,
        status: str,
        scores: dict[str, Any],
        winners: list[str],
        error: str | None = None,
        because: str | None = None,
        strict: bool = False,
    ) -> None:
        """Finish the game: its end line in the journal, then the finished record.

        ``strict`` (a person's move or leaving): an end line or record that cannot
        be written raises :class:`SaveError`, and :meth:`all_or_nothing` undoes the
        request. Otherwise (a crash, an idle game expiring, a restart) the end is
        derived again from the journal at the next start, so a failed write only
        delays the record."""
        if self.log.journal is not None:
            entry: dict[str, Any] = {"end": status, "moves": self.move_number}
            entry.update(scores=scores, winners=winners, error=error, ended_because=because)
            try:
                self.log.journal.append(entry, "the end of the game")
            except SaveError:
                if strict:
                    raise
        self.log.finish(status, scores, winners, error=error)
        if because is not None:
            self.log.data["ended_because"] = because
        if strict:
            self.write_record()
        else:
            self.save_record()

    def write_record(self) -> None:
        """Write the finished record, or raise :class:`SaveError` naming the reason."""
        try:
            self.log.save()
        except OSError as err:
            raise save_failed("the record of the game", err) from None

    def save_record(self) -> None:
        """Write the finished record; a failure is reported on the console only (the
        journal still holds the game, and the next start writes it)."""
        try:
            self.log.save()
        except OSError as err:
            print(
                f"flockgym serve: could not write the record of game {self.id} "
                f"({err.strerror}); its journal keeps it",
                file=sys.stderr,
            )

    def scores(self) -> dict[str, Any]:
        return {a: number(v) for a, v in self.raw.scores.items()}

    def abandon(self, why: str = "abandoned", strict: bool = False) -> None:
        """Save the game as abandoned (``strict``: refuse with 507, the game running on,
        if that cannot be saved)."""
        if self.finished:
            return
        if not strict:
            self.end("abandoned", self.scores(), [], because=why)
            return
        with self.all_or_nothing():
            self.end("abandoned", self.scores(), [], because=why, strict=True)

    def crash(self, message: str) -> None:
        self.error = message
        self.end("crashed", self.scores(), [], error=message)
        raise ApiError(500, f"game {self.id} stopped: {message}")

    def check_running(self) -> None:
        if self.finished:
            raise ApiError(409, f"game {self.id} is {self.status}: no more moves")

    def check_move_number(self, value: Any) -> None:
        """The client's move count must be the game's: an older one is a stale move."""
        if value is None:
            raise ApiError(400, "move_number is required (the move_number of the last state seen)")
        value = expect_int(value, "move_number")
        if value != self.move_number:
            raise ApiError(
                409,
                f"stale move: sent for move {value}, but the game is at move {self.move_number}; "
                f"fetch the game again",
            )


# ---- creating games ----------------------------------------------------------------------


def check_file_options(env_id: str, options: dict[str, Any]) -> None:
    """Refuse every option that would make the server open a file a request names.

    An option the env declares with ``reads_file`` is accepted only inline (a
    list or object, e.g. a table's rows, of bounded size), never as a path: a
    path could name any file the server can read, a device that never ends, or
    a FIFO that blocks a worker for ever."""
    table = {o.name: o for o in env_module(env_id).raw_env.option_table()}
    for name in sorted(options):
        option = table.get(name)
        if option is None or not getattr(option, "reads_file", False):
            continue
        value = options[name]
        if value is None:
            continue
        if not isinstance(value, (list, dict)):
            raise ApiError(
                400,
                f"option {name}: the server opens no file a request names; give {name} "
                f"inline (a list of rows) where the game allows it, or leave it out",
            )
        if len(json.dumps(value)) > MAX_INLINE_OPTION:
            raise ApiError(
                400, f"option {name}: at most {MAX_INLINE_OPTION} characters of JSON inline"
            )


def create_game(
    payload: Any,
    catalogue: ModelCatalogue,
    data_dir: Path | None,
    clock: Callable[[], float],
    client: str | None = None,
) -> tuple[Game, dict[str, str]]:
    """A new game from a request: ``{env, options, seed, seats}`` (see docs/play.md),
    and its people's seat tokens (handed out once: the game keeps only their hashes).
    Nothing is saved yet: the store starts its journal when it takes the game."""
    body = expect_object(payload, "new game", ("env", "options", "seed", "seats"))
    env_id = body.get("env")
    if not isinstance(env_id, str) or env_id not in list_envs():
        raise ApiError(
            400, f"unknown env {env_id!r:.60}; registered envs: {', '.join(list_envs())}"
        )
    options = body.get("options", {})
    if not isinstance(options, dict):
        raise ApiError(400, f"options must be an object of env options, got {options!r:.60}")
    fixed = sorted(set(options) & set(SERVER_SET_OPTIONS))
    if fixed:
        raise ApiError(400, f"option(s) {', '.join(fixed)} are set by the server, not by a game")
    check_file_options(env_id, options)
    try:
        env = make(env_id, illegal_action="raise", **options)
    except FlockgymError as err:
        raise ApiError(400, str(err)) from None
    raw = env.unwrapped
    resolved = game_options(raw)
    seed = body.get("seed")
    seed_given = seed is not None
    seed = expect_seed(seed) if seed_given else secrets.randbits(SEED_BITS)
    seats, tokens = make_seats(body.get("seats"), raw, resolved, seed, catalogue)
    game_id = secrets.token_hex(8)
    path = None if data_dir is None else data_dir / record_file_name(env_id, game_id)
    saved_seats = [{**s.public(), **s.saved} for s in seats]
    log = GameLog(env_id, resolved, seed, saved_seats, path, source="serve")
    env.reset(seed=seed)
    game = Game(game_id, env, seats, seed, seed_given, log, clock, client)
    return game, tokens


def make_seats(
    seats: Any, raw: Any, options: dict[str, Any], seed: int, catalogue: ModelCatalogue
) -> tuple[list[Seat], dict[str, str]]:
    agents = list(raw.possible_agents)
    if seats is None:
        seats = [{"kind": "human"}] + [{"kind": "bot", "bot": "heuristic"}] * (len(agents) - 1)
    if not isinstance(seats, list) or len(seats) != len(agents):
        raise ApiError(
            400,
            f"seats must be a list of {len(agents)} seats (one per player of "
            f"num_players={len(agents)}), got {seats!r:.80}",
        )
    made = [
        make_seat(spec, index, agent, raw.env_id, options, seed, catalogue)
        for index, (agent, spec) in enumerate(zip(agents, seats, strict=True))
    ]
    if not any(s.kind == "human" for s in made):
        raise ApiError(400, "seats: at least one seat must be a person ({'kind': 'human'})")
    tokens = {}
    for seat in made:
        if seat.kind == "human":
            tokens[seat.agent] = secrets.token_urlsafe(18)
            seat.token_hash = token_hash(tokens[seat.agent])
    return made, tokens


def make_seat(
    spec: Any,
    index: int,
    agent: str,
    env_id: str,
    options: dict[str, Any],
    seed: int,
    catalogue: ModelCatalogue,
) -> Seat:
    where = f"seats[{index}]"
    body = expect_object(spec, where, ("kind", "bot", "model", "play", "name"))
    kind = body.get("kind")
    if kind == "human":
        name = body.get("name", "you")
        if not isinstance(name, str) or not 0 < len(name) <= 40:
            raise ApiError(400, f"{where}.name must be a string of 1-40 characters")
        return Seat(agent, "human", name)
    if kind != "bot":
        raise ApiError(400, f"{where}.kind: {kind!r:.40}; allowed: 'human', 'bot'")
    bot_kind = body.get("bot")
    if bot_kind not in BOT_KINDS:
        raise ApiError(400, f"{where}.bot: {bot_kind!r:.40}; allowed: {', '.join(BOT_KINDS)}")
    bot_seed = derive_seed(seed, index)
    play = body.get("play", "greedy")
    if bot_kind == "model" and play not in PLAY_MODES:
        raise ApiError(400, f"{where}.play: {play!r:.40}; allowed: greedy, sample")
    return bot_seat(
        where, agent, env_id, options, catalogue, bot_kind, body.get("model"), play, bot_seed
    )


def bot_seat(
    where: str,
    agent: str,
    env_id: str,
    options: dict[str, Any],
    catalogue: ModelCatalogue,
    bot_kind: str,
    model_id: Any,
    play: str,
    bot_seed: int,
) -> Seat:
    """A bot's seat, as a request asks for it or as a journal saved it."""
    try:
        if bot_kind == "model":
            model = catalogue.resolve(model_id)
            spec_ = BotSpec(model.id, "checkpoint", model.path, play)
            participant = make_participant(spec_, env_id, options)
            saved = {"bot": {"bot": "model", "model": model.id, "play": play}}
            name = f"{model.id}@{play}" if play != "greedy" else model.id
        else:
            participant = make_participant(bot_kind, env_id, options)
            saved, name = {"bot": {"bot": bot_kind}}, bot_kind
    except (BotSpecError, CheckpointError) as err:
        raise ApiError(400, f"{where}: {err}") from None
    except (ValueError, RecursionError, OSError) as err:  # a damaged file's bare error
        raise ApiError(400, f"{where}: the model cannot be loaded ({type(err).__name__})") from None
    return Seat(
        agent, "bot", name, bot=participant.new_bot(bot_seed), saved={**saved, "bot_seed": bot_seed}
    )


# ---- the store of live games -----------------------------------------------------------


class GameStore:
    """Live games by id: at most ``max_games``, each dropped after ``idle_seconds`` idle.

    When full, the longest-idle finished game makes room; if every game is
    still being played, a new one is refused (503) until one ends or expires.
    One client address may hold at most ``per_client`` running games and
    create at most ``per_client_per_minute`` games a minute (429 otherwise),
    so no single client fills the table.
    """

    def __init__(
        self,
        max_games: int = 100,
        idle_seconds: float = 3600.0,
        clock: Callable[[], float] = time.monotonic,
        per_client: int | None = None,
        per_client_per_minute: int | None = None,
    ) -> None:
        self.max_games = max_games
        self.idle_seconds = idle_seconds
        self.clock = clock
        self.per_client = per_client
        self.per_client_per_minute = per_client_per_minute
        self.created: dict[str, deque[float]] = {}
        self.games: dict[str, Game] = {}
        self.lock = threading.Lock()

    def add(self, game: Game, tokens: dict[str, str] | None = None) -> None:
        """Take a new game: check room and the caller's caps, then start its journal
        (with the seats' token hashes) and only then list it. Any refusal (503,
        429, 507) leaves no game and no file behind."""
        with self.lock:
            self._sweep()
            self._check_client(game.client)
            evict = self._room()
            start_journal(game)
            if evict is not None:
                del self.games[evict]
            self.games[game.id] = game
            if game.client is not None:
                self.created.setdefault(game.client, deque()).append(self.clock())
            game.finish_if_over()

    def restore(self, game: Game) -> bool:
        """List a game continued from its journal, if there is room (True if listed)."""
        with self.lock:
            if len(self.games) >= self.max_games:
                return False
            self.games[game.id] = game
            return True

    def _room(self) -> str | None:
        """The finished game to drop to make room for one more (None: room enough); 503
        if every listed game is still being played."""
        if len(self.games) < self.max_games:
            return None
        finished = [g for g in self.games.values() if g.finished]
        if not finished:
            raise ApiError(
                503,
                f"too many live games ({self.max_games}); finish one or wait until an "
                f"idle one expires ({self.idle_seconds / 60:g} minutes idle)",
            )
        return min(finished, key=lambda g: g.last_active).id

    def _check_client(self, client: str | None) -> None:
        if client is None:
            return
        if self.per_client is not None:
            running = sum(1 for g in self.games.values() if g.client == client and not g.finished)
            if running >= self.per_client:
                raise ApiError(
                    429,
                    f"this client already plays {running} running games (at most "
                    f"{self.per_client}); finish or leave one first",
                )
        if self.per_client_per_minute is not None:
            self._forget_old_creations()
            recent = self.created.get(client, deque())
            if len(recent) >= self.per_client_per_minute:
                raise ApiError(
                    429,
                    f"this client created {len(recent)} games in the last minute (at most "
                    f"{self.per_client_per_minute}); wait a little",
                )

    def get(self, game_id: str) -> Game:
        with self.lock:
            self._sweep()
            game = self.games.get(game_id)
        if game is None:
            raise ApiError(404, f"no live game {game_id[:40]!r} (finished games are in /api/saved)")
        return game

    def running(self) -> list[Game]:
        with self.lock:
            self._sweep()
            return [g for g in self.games.values() if not g.finished]

    def flush(self) -> None:
        """Write every finished game's record that is still owed (a running game's
        moves are on disk already, in its journal)."""
        with self.lock:
            games = list(self.games.values())
        for game in games:
            with game.lock:
                if game.log.dirty and game.finished:
                    game.save_record()

    def _sweep(self) -> None:
        """Drop games idle for too long; a running one is saved as abandoned first."""
        now = self.clock()
        for game_id, game in list(self.games.items()):
            if now - game.last_active < self.idle_seconds:
                continue
            if not game.lock.acquire(blocking=False):
                continue  # a request is using it right now: not idle
            try:
                game.abandon("expired while idle")
            finally:
                game.lock.release()
            del self.games[game_id]

    def _forget_old_creations(self) -> None:
        """Drop creation times over a minute old, and the clients left with none (so
        the table of clients stays as small as the last minute's)."""
        now = self.clock()
        for client in list(self.created):
            times = self.created[client]
            while times and now - times[0] >= 60:
                times.popleft()
            if not times:
                del self.created[client]


def start_journal(game: Game) -> None:
    """Write the journal header of a new game (507 if it cannot be written)."""
    path = game.log.path
    if path is None:
        return
    header = {
        "format": JOURNAL_FORMAT,
        "version": JOURNAL_VERSION,
        "game_id": game.id,
        "seed_given": game.seed_given,
        "record": game.log.data,
        "tokens": {s.agent: s.token_hash for s in game.seats if s.token_hash is not None},
    }
    try:
        game.log.journal = Journal.create(journal_path(path), header)
    except SaveError as err:
        raise ApiError(507, str(err)) from None


# ---- after a restart -----------------------------------------------------------------------


def restore_games(
    data_dir: Path | None, catalogue: ModelCatalogue, store: GameStore, say: Callable[[str], None]
) -> int:
    """Continue every game whose journal is in ``data_dir``: check the journal whole
    (:func:`~.journals.check_journal`), seat its people by their token hashes and its
    bots afresh (from their seeds), and list it.

    A journal whose game had ended is turned into its finished record; one whose
    model is gone is saved as abandoned with the reason. A journal that fails a
    check is set aside (renamed ``<name>.jsonl.refused``, kept for a person to
    look at) with a message naming it and the problem; the others are restored
    as usual. Returns the number of games continued."""
    if data_dir is None or not data_dir.is_dir():
        return 0
    continued = 0
    game_ids: set[str] = set()
    for path in sorted(data_dir.glob(f"*{JOURNAL_SUFFIX}")):
        try:
            game = restore_game(path, catalogue, store.clock, game_ids)
        except SavedGameError as err:
            say(f"not continued: {err}; {set_aside(path)}")
            continue
        except GameNotContinued as err:
            say(f"not continued: {err}")
            continue
        except Exception as err:  # a check missed something: still, keep the server up
            say(f"not continued (unexpected {type(err).__name__}): {path.name}: {err}; "
                f"{set_aside(path)}")  # fmt: skip
            continue
        if game is None:
            continue
        if store.restore(game):
            continued += 1
        else:
            game.abandon("not continued after a restart: too many live games")
    return continued


class GameNotContinued(FlockgymError):
    """A sound journal whose game cannot go on (its model is gone): saved as abandoned."""


REFUSED_SUFFIX = ".refused"


def set_aside(path: Path) -> str:
    """Rename a refused journal out of the way (never over another file); says where."""
    target = path.with_name(path.name + REFUSED_SUFFIX)
    number = 2
    while target.exists():
        target = path.with_name(f"{path.name}{REFUSED_SUFFIX}{number}")
        number += 1
    try:
        path.rename(target)
    except OSError as err:
        return f"could not set it aside ({err.strerror}): it is read again at the next start"
    return f"set aside as {target.name}"


def restore_game(
    path: Path,
    catalogue: ModelCatalogue,
    clock: Callable[[], float],
    game_ids: set[str] | None = None,
) -> Game | None:
    """The game of one journal, running again; None if it had ended (its record is
    then written and the journal removed). :class:`SavedGameError`: the journal
    failed a check; :class:`GameNotContinued`: it was sound but its model is gone."""
    checked = check_journal(path)
    header, record = checked.header, checked.record
    if game_ids is not None:
        if header["game_id"] in game_ids:
            raise SavedGameError(f"{path.name}: game_id {header['game_id']} is another journal's")
        game_ids.add(header["game_id"])
    cut_torn_tail(path)
    record_path = path.with_suffix(".json")
    if checked.ended:
        finish_journal(path, record_path, record)
        return None
    options = record["options"]
    env_id = record["env"]
    seats = []
    for index, saved in enumerate(record["seats"]):
        agent = saved["agent"]
        if saved["kind"] == "human":
            seats.append(Seat(agent, "human", saved["name"], header["tokens"][agent]))
            continue
        spec = saved["bot"]
        try:
            seat = bot_seat(
                f"seats[{index}]", agent, env_id, options, catalogue, spec["bot"],
                spec.get("model"), spec.get("play", "greedy"), saved["bot_seed"],
            )  # fmt: skip
        except ApiError as err:
            record.update(status="abandoned", ended_because=f"not continued: {err.message}")
            finish_journal(path, record_path, record)
            raise GameNotContinued(f"{path.name}: {err.message}") from None
        seats.append(seat)
    log = GameLog(env_id, options, record["seed"], record["seats"], record_path, source="serve")
    log.data.update(record)
    log.journal = Journal(path)
    game = Game(
        header["game_id"], checked.env, seats, record["seed"], header["seed_given"], log, clock
    )
    game.finish_if_over()  # the last move ended it, but its end line was never written
    return None if game.finished else game


def finish_journal(path: Path, record_path: Path, record: dict[str, Any]) -> None:
    """Write the finished record of a journal's game and remove the journal."""
    record["updated"] = record.get("updated") or record.get("started")
    validate_record(record)  # what is written here must load again
    write_json_atomic(record_path, record, indent=1)
    path.unlink(missing_ok=True)


def default_data_dir() -> Path:
    """Where saved games go unless ``--data`` says otherwise: ``runs/games``."""
    return Path(os.environ.get("FLOCKGYM_GAMES", "runs/games"))
