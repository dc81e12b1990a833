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
"""

from __future__ import annotations

import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flockgym.envs import Bot, FlockgymError, list_envs, make

from ..evaluate import derive_seed
from ..policies import BotSpec, BotSpecError, CheckpointError, make_participant
from .disclosure import is_public
from .models import ModelCatalogue
from .records import FINISHED, GameLog, game_options, number, record_file_name

MAX_SEED = 2**53 - 1
"""Seeds a page can hold exactly (JavaScript numbers are doubles)."""
BOT_KINDS = ("random", "heuristic", "model")
PLAY_MODES = ("greedy", "sample")
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
    token: str | None = None
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
        raise ApiError(400, f"{where}: {value} is larger than {high}")
    return value


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
        """The human seat holding ``token``; 401/403 otherwise."""
        if not token:
            raise ApiError(401, "this request needs the X-Seat-Token header of a seat of this game")
        for seat in self.seats:
            if seat.token is not None and secrets.compare_digest(seat.token, token):
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
            "seed": self.seed if self.seed_given or self.finished else None,
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
            shown = move["agent"] == agent or is_public(self.env_id, move["text"])
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
        while acting is not None and acting.kind == "bot":
            self.play_bot(acting)
            acting = self.to_act()
            if until == "one":
                break

    def play_bot(self, seat: Seat) -> None:
        assert seat.bot is not None
        try:
            observation = self.raw.observe(seat.agent)
            action = int(seat.bot.act(observation, self.raw.view(seat.agent)))
        except Exception as err:  # a bot's failure ends this game only
            self.crash(f"{seat.name} ({seat.agent}) failed to move: {err}")
        self.apply(seat.agent, action)

    def apply(self, agent: str, action: int) -> None:
        text = self.raw.action_to_string(agent, action)
        try:
            self.env.step(action)
        except Exception as err:
            self.crash(f"{agent}'s move {text} failed: {err}")
        self.log.add_move(agent, action, text)
        self.finish_if_over()
        self.log.save()

    def finish_if_over(self) -> None:
        game = self.raw.game
        if game.is_over():
            self.log.finish("over", self.scores(), list(self.raw.winners))
        elif self.raw.is_truncated():
            self.log.finish("truncated", self.scores(), [])

    def scores(self) -> dict[str, Any]:
        return {a: number(v) for a, v in self.raw.scores.items()}

    def abandon(self, why: str = "abandoned") -> None:
        if not self.finished:
            self.log.finish("abandoned", self.scores(), [], error=None)
            self.log.data["ended_because"] = why
            self.log.save()

    def crash(self, message: str) -> None:
        self.error = message
        self.log.finish("crashed", self.scores(), [], error=message)
        self.log.save()
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


def create_game(
    payload: Any, catalogue: ModelCatalogue, data_dir: Path | None, clock: Callable[[], float]
) -> Game:
    """A new game from a request: ``{env, options, seed, seats}`` (see docs/play.md).
    Nothing is saved yet: the caller saves it once the store has taken it."""
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
    try:
        env = make(env_id, illegal_action="raise", **options)
    except FlockgymError as err:
        raise ApiError(400, str(err)) from None
    raw = env.unwrapped
    resolved = game_options(raw)
    seed = body.get("seed")
    seed_given = seed is not None
    seed = expect_int(seed, "seed", 0, MAX_SEED) if seed_given else secrets.randbelow(2**32)
    seats = make_seats(body.get("seats"), raw, resolved, seed, catalogue)
    game_id = secrets.token_hex(8)
    path = None if data_dir is None else data_dir / record_file_name(env_id, game_id)
    saved_seats = [{**s.public(), **s.saved} for s in seats]
    log = GameLog(env_id, resolved, seed, saved_seats, path, source="serve")
    env.reset(seed=seed)
    game = Game(game_id, env, seats, seed, seed_given, log, clock)
    game.finish_if_over()
    return game


def make_seats(
    seats: Any, raw: Any, options: dict[str, Any], seed: int, catalogue: ModelCatalogue
) -> list[Seat]:
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
    return made


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
        return Seat(agent, "human", name, token=secrets.token_urlsafe(18))
    if kind != "bot":
        raise ApiError(400, f"{where}.kind: {kind!r:.40}; allowed: 'human', 'bot'")
    bot_kind = body.get("bot")
    if bot_kind not in BOT_KINDS:
        raise ApiError(400, f"{where}.bot: {bot_kind!r:.40}; allowed: {', '.join(BOT_KINDS)}")
    bot_seed = derive_seed(seed, index)
    try:
        if bot_kind == "model":
            play = body.get("play", "greedy")
            if play not in PLAY_MODES:
                raise ApiError(400, f"{where}.play: {play!r:.40}; allowed: greedy, sample")
            model = catalogue.resolve(body.get("model"))
            spec_ = BotSpec(model.id, "checkpoint", model.path, play)
            participant = make_participant(spec_, env_id, options)
            saved = {"bot": {"bot": "model", "model": model.id, "play": play}}
            name = f"{model.id}@{play}" if play != "greedy" else model.id
        else:
            participant = make_participant(bot_kind, env_id, options)
            saved, name = {"bot": {"bot": bot_kind}}, bot_kind
    except (BotSpecError, CheckpointError) as err:
        raise ApiError(400, f"{where}: {err}") from None
    return Seat(
        agent, "bot", name, bot=participant.new_bot(bot_seed), saved={**saved, "bot_seed": bot_seed}
    )


# ---- the store of live games -----------------------------------------------------------


class GameStore:
    """Live games by id: at most ``max_games``, each dropped after ``idle_seconds`` idle.

    When full, the longest-idle finished game makes room; if every game is
    still being played, a new one is refused (503) until one ends or expires.
    """

    def __init__(
        self,
        max_games: int = 100,
        idle_seconds: float = 3600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_games = max_games
        self.idle_seconds = idle_seconds
        self.clock = clock
        self.games: dict[str, Game] = {}
        self.lock = threading.Lock()

    def add(self, game: Game) -> None:
        with self.lock:
            self._sweep()
            if len(self.games) >= self.max_games:
                finished = [g for g in self.games.values() if g.finished]
                if not finished:
                    raise ApiError(
                        503,
                        f"too many live games ({self.max_games}); finish one or wait until an "
                        f"idle one expires ({self.idle_seconds / 60:g} minutes idle)",
                    )
                oldest = min(finished, key=lambda g: g.last_active)
                del self.games[oldest.id]
            self.games[game.id] = game

    def get(self, game_id: str) -> Game:
        with self.lock:
            self._sweep()
            game = self.games.get(game_id)
        if game is None:
            raise ApiError(404, f"no live game {game_id!r:.40} (finished games are in /api/saved)")
        return game

    def flush(self) -> None:
        """Write every game's record now (at shutdown: saves skipped while throttled)."""
        with self.lock:
            games = list(self.games.values())
        for game in games:
            with game.lock:
                if game.log.dirty:
                    game.log.save(force=True)

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


def default_data_dir() -> Path:
    """Where saved games go unless ``--data`` says otherwise: ``runs/games``."""
    return Path(os.environ.get("FLOCKGYM_GAMES", "runs/games"))
