"""The Starlette app of ``flockgym serve``: the page, its static files and the JSON API.

Routes (every error is JSON ``{"error": message}`` with a 4xx or 5xx status):

| method | path | what |
| --- | --- | --- |
| GET | ``/`` | the page |
| GET | ``/static/...`` | the page's CSS and JavaScript (this package's ``static/`` only) |
| GET | ``/api/envs`` | every registered env: options table, bots, models, drawn table |
| GET | ``/api/rules/{env}`` | the env's how-to-play page ``{env, markdown}`` (package data) |
| GET | ``/api/games`` | the games being played (no tokens): after a restart, where to go back |
| POST | ``/api/games`` | a new game ``{env, options, seed, seats}``: its seats' tokens |
| GET | ``/api/games/{id}?since=N`` | the state a seat is sent (header ``X-Seat-Token``) |
| POST | ``/api/games/{id}/moves`` | the seat's move ``{move_number, action}`` (or ``text``) |
| POST | ``/api/games/{id}/bot`` | the bot to act moves ``{move_number, until: "one" or "human"}`` |
| DELETE | ``/api/games/{id}`` | leave the game (saved as abandoned) |
| GET | ``/api/saved`` | finished saved games, newest first |
| GET | ``/api/saved/{name}`` | one finished saved game |
| GET | ``/api/saved/{name}/frames/{k}`` | every seat's view after ``k`` moves of it |

Requests carry JSON (``Content-Type: application/json``), which browsers do
not send across sites without asking; the ``Host`` header must name this
server (so a page elsewhere cannot reach it through DNS tricks), and the page
runs under a content security policy that allows only this server's files.
A server with an access token (required off loopback) answers an API request
only with that token, in the ``X-Access-Token`` header or the cookie that
``/?access=TOKEN`` sets. Bodies are read up to :data:`MAX_BODY` bytes and
within :data:`BODY_SECONDS`; no error quotes a file or a Python exception.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import re
import sys
import traceback
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flockgym.common.errors import MissingExtraError

try:  # the web packages are the optional ``play`` extra: say so, not a traceback
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles
except ModuleNotFoundError as err:
    missing = (err.name or "starlette").split(".")[0]
    raise MissingExtraError(missing, "flockgym's play server", extra="play") from err

from flockgym.envs import entry, env_module, list_envs, make_bot

from .cards_help import how_to_play, special_cards_help
from .models import ModelCatalogue, shipped_checkpoints
from .records import FINISHED, RECORD_NAME, SavedGameError, journal_path, token_hash
from .saved_index import SavedGames
from .sessions import (
    SERVER_SET_OPTIONS,
    ApiError,
    Game,
    GameStore,
    Seat,
    create_game,
    restore_games,
)

STATIC = Path(__file__).parent / "static"


def console(text: str) -> None:
    """A line on the server's console (warnings about files; never sent to a client)."""
    print(f"flockgym serve: {text}", file=sys.stderr, flush=True)


MAX_BODY = 64_000
"""Bytes; every valid request is far smaller. Reading stops at this many."""
BODY_SECONDS = 10.0
"""Seconds a client has to send a request's body (a slow client is cut off)."""
MAX_DEPTH = 16
"""Nesting of a request's JSON at most; every valid request nests less than 6 deep."""
ACCESS_COOKIE = "flockgym_access"
SINCE = re.compile(r"[0-9]{1,9}")
LOCAL_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]"]
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


@dataclass
class ServerConfig:
    """What a server needs: where games are saved, which models it may load, its limits."""

    data_dir: Path | None
    models: list[Path] = field(default_factory=list)
    shipped: Path | None = field(default_factory=shipped_checkpoints)
    max_games: int = 100
    idle_seconds: float = 3600.0
    allowed_hosts: list[str] = field(default_factory=lambda: list(LOCAL_HOSTS))
    access_token: str | None = None
    """Required on every API request when set (always set off loopback)."""
    games_per_client: int | None = 20
    """Running games one client address may hold at once (None: no cap)."""
    games_per_client_minute: int | None = 30
    """Games one client address may create in a minute (None: no cap)."""
    body_seconds: float = BODY_SECONDS


class AccessToken:
    """ASGI middleware: every ``/api/`` request must carry the access token.

    ``GET /?access=TOKEN`` stores it in an HTTP-only, same-site cookie and
    goes on to the page, so the address printed at start is all a person needs;
    programs send the ``X-Access-Token`` header. Only the token's hash is kept."""

    def __init__(self, app: Any, token: str | None) -> None:
        self.app = app
        self.digest = None if token is None else token_hash(token)

    def holds(self, token: str | None) -> bool:
        if self.digest is None:
            return True
        if not token or not re.fullmatch(r"[A-Za-z0-9_-]{1,128}", token):
            return False
        return hmac.compare_digest(self.digest, token_hash(token))

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or self.digest is None:
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        if scope["path"] == "/" and "access" in request.query_params:
            given = request.query_params["access"]
            if not self.holds(given):
                await error_response(403, "that access token is not this server's")(
                    scope, receive, send
                )
                return
            response = RedirectResponse("/", status_code=303)
            response.set_cookie(ACCESS_COOKIE, given, httponly=True, samesite="strict")
            await response(scope, receive, send)
            return
        if scope["path"].startswith("/api/"):
            given = request.headers.get("x-access-token") or request.cookies.get(ACCESS_COOKIE)
            if not self.holds(given):
                message = (
                    "this server needs its access token: open the address it printed at "
                    "start (/?access=TOKEN), or send the X-Access-Token header"
                )
                await error_response(401, message)(scope, receive, send)
                return
        await self.app(scope, receive, send)


class SecurityHeaders:
    """ASGI middleware adding :data:`SECURITY_HEADERS` to every response."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.headers = [(k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *self.headers]
            await send(message)

        await self.app(scope, receive, send_with_headers)


def renderer_of(env_id: str) -> str | None:
    """The drawn table of an env (``static/games/<game>.js``), or None for the generic one."""
    name = env_id.rsplit("_", 1)[0]
    return name if (STATIC / "games" / f"{name}.js").is_file() else None


def as_json(value: Any) -> Any:
    return json.loads(json.dumps(value))


TRAINING_OPTIONS = ("reward", "max_steps")
"""Options that shape a learner's episode (its reward, a step cap), not the game a
person plays: the new-game form does not offer them (POST /api/games still takes
them, for a script that wants them)."""


def option_json(option: Any) -> dict[str, Any]:
    return {
        "name": option.name,
        "default": as_json(option.default),
        "doc": option.doc,
        "choices": None if option.choices is None else [as_json(c) for c in option.choices],
        "allowed": option.allowed,
    }


def has_heuristic(env_id: str) -> bool:
    try:
        make_bot(env_id, "heuristic", 0)
    except (ImportError, AttributeError):
        return False
    return True


def env_catalogue(catalogue: ModelCatalogue) -> dict[str, Any]:
    """What the new-game form offers for every registered env."""
    envs = []
    for env_id in list_envs():
        item = entry(env_id)
        table = env_module(env_id).raw_env.option_table()
        envs.append(
            {
                "id": env_id,
                "summary": item.summary,
                "player_counts": list(item.player_counts),
                "default_players": item.default_players,
                "options": [
                    option_json(o)
                    for o in table
                    if o.name not in SERVER_SET_OPTIONS + TRAINING_OPTIONS
                ],
                "bots": ["random", "heuristic", *(["search", "ismcts"] if item.resampler else [])]
                if has_heuristic(env_id)
                else ["random"],
                "models": [m.to_json() for m in catalogue.for_env(env_id)],
                "renderer": renderer_of(env_id),
                "help": special_cards_help(env_id),
            }
        )
    return {"envs": envs}


# ---- request helpers -----------------------------------------------------------------


async def read_body(request: Request, seconds: float = BODY_SECONDS) -> bytes:
    """The request's body, read up to :data:`MAX_BODY` bytes (413 as soon as it is
    longer, or says it is) and within ``seconds`` (408 for a client that is slower)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and len(declared) < 20 and int(declared) > MAX_BODY:
        raise ApiError(413, f"request body of {int(declared)} bytes; at most {MAX_BODY}")
    chunks: list[bytes] = []
    size = 0

    async def read() -> None:
        nonlocal size
        async for chunk in request.stream():
            size += len(chunk)
            if size > MAX_BODY:
                raise ApiError(
                    413, f"request body of more than {MAX_BODY} bytes; at most {MAX_BODY}"
                )
            chunks.append(chunk)

    try:
        await asyncio.wait_for(read(), seconds)
    except asyncio.TimeoutError:
        raise ApiError(408, f"the request body did not arrive within {seconds:g} s") from None
    return b"".join(chunks)


def depth_of(value: Any) -> int:
    """How deep ``value`` nests lists and objects (counted without recursion)."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, depth)
            todo.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


def parse_json(body: bytes) -> Any:
    """``body`` as JSON, or a 400 naming what is wrong (never an exception's text)."""

    def constant(name: str) -> Any:
        raise ApiError(400, f"request body is not valid JSON: {name} is not a JSON number")

    try:
        value = json.loads(body, parse_constant=constant) if body else {}
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        why = err.msg if isinstance(err, json.JSONDecodeError) else "not UTF-8"
        raise ApiError(400, f"request body is not valid JSON: {why}") from None
    except RecursionError:
        raise ApiError(400, f"request body nests deeper than {MAX_DEPTH} levels") from None
    except ValueError:  # an integer of thousands of digits (Python refuses to read it)
        raise ApiError(400, "request body holds a number too long to be one the API uses") from None
    if depth_of(value) > MAX_DEPTH:
        raise ApiError(400, f"request body nests deeper than {MAX_DEPTH} levels")
    return value


async def read_json(request: Request, seconds: float = BODY_SECONDS) -> Any:
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise ApiError(415, "send the request body as JSON (Content-Type: application/json)")
    return parse_json(await read_body(request, seconds))


def since_of(request: Request) -> int:
    text = request.query_params.get("since", "0")
    if not SINCE.fullmatch(text):
        raise ApiError(400, f"since={text!r:.20} must be a move number 0..999999999")
    return int(text)


def error_response(status: int, message: str) -> JSONResponse:
    """``{"error": message}``; a body refused as too large or too slow also closes the
    connection, so the rest of it is never read."""
    headers = {"Connection": "close"} if status in (408, 413) else None
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def create_app(config: ServerConfig) -> Starlette:
    """The app: routes above, one store of live games, one model catalogue."""
    store = GameStore(
        config.max_games,
        config.idle_seconds,
        per_client=config.games_per_client,
        per_client_per_minute=config.games_per_client_minute,
    )
    catalogue = ModelCatalogue(config.models, config.shipped, warn=console)
    continued = restore_games(config.data_dir, catalogue, store, console)
    saved = SavedGames(config.data_dir, console)

    def in_game(
        request: Request, change: Callable[[Game, Seat], None] | None = None
    ) -> dict[str, Any]:
        """Find the game and the caller's seat, apply ``change`` under the game's lock,
        and return the state that seat is sent.

        Reading a state runs on the event loop itself: it takes well under a
        millisecond, and handing it to a thread would cost more than it does.
        A change runs in a worker thread: its journal line is forced to disk
        (some milliseconds of waiting, without the interpreter's lock), and the
        loop answers other games meanwhile. Creating a game (which may load a
        model) and reading saved games run in worker threads too."""
        game = store.get(request.path_params["game_id"])
        since = since_of(request)
        with game.lock:
            seat = game.seat_for(request.headers.get("x-seat-token"))
            game.touch()
            if change is not None:
                change(game, seat)
            return game.seat_state(seat, since)

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    async def envs(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(env_catalogue, catalogue))

    async def rules(request: Request) -> Response:
        env_id = request.path_params["env_id"]
        if env_id not in list_envs():  # the registry, never a path from the request
            raise ApiError(404, f"no env {env_id!r:.60}; envs: {', '.join(list_envs())}")
        text = await run_in_threadpool(how_to_play, env_id)
        return JSONResponse({"env": env_id, "markdown": text})

    async def new_game(request: Request) -> Response:
        payload = await read_json(request, config.body_seconds)
        client = request.client.host if request.client else None

        def build() -> dict[str, Any]:
            game, tokens = create_game(payload, catalogue, config.data_dir, store.clock, client)
            store.add(game, tokens)
            seats = [
                {**s.public(), **({"token": tokens[s.agent]} if s.agent in tokens else {})}
                for s in game.seats
            ]
            return {"game_id": game.id, "seats": seats}

        return JSONResponse(await run_in_threadpool(build), status_code=201)

    async def running_games(request: Request) -> Response:
        games = [
            {
                "game_id": g.id,
                "env": g.env_id,
                "seats": [s.public() for s in g.seats],
                "move_number": g.move_number,
                "started": g.log.data.get("started"),
            }
            for g in store.running()
        ]
        return JSONResponse({"games": games})

    async def game_state(request: Request) -> Response:
        if store.get(request.path_params["game_id"]).lock.locked():
            # a move of this game is being written: wait for it in a thread, not on the loop
            return JSONResponse(await run_in_threadpool(in_game, request))
        return JSONResponse(in_game(request))

    async def move(request: Request) -> Response:
        payload = await read_json(request, config.body_seconds)
        change = lambda g, s: g.human_move(s, payload)  # noqa: E731
        return JSONResponse(await run_in_threadpool(in_game, request, change))

    async def bot(request: Request) -> Response:
        payload = await read_json(request, config.body_seconds)
        change = lambda g, s: g.bot_moves(payload)  # noqa: E731
        return JSONResponse(await run_in_threadpool(in_game, request, change))

    async def leave(request: Request) -> Response:
        change = lambda g, s: g.abandon("left by a person", strict=True)  # noqa: E731
        return JSONResponse(await run_in_threadpool(in_game, request, change))

    def saved_path(name: str) -> Path:
        if config.data_dir is None:
            raise ApiError(404, "this server saves no games (started without a data folder)")
        if not RECORD_NAME.fullmatch(name):
            raise ApiError(
                400,
                f"{name!r:.60} is not the name of a saved game: a saved game's name is "
                "letters, digits, '_', '.' and '-' (not first) ending in .json; "
                "GET /api/saved lists them",
            )
        path = config.data_dir / name
        if path.resolve().parent != config.data_dir.resolve():
            raise ApiError(404, f"no saved game {name!r:.60}")
        if not path.is_file():
            if journal_path(path).is_file():
                raise ApiError(
                    409, f"game {name} is still being played: its record is shown after it"
                )
            raise ApiError(404, f"no saved game {name!r:.60}")
        return path

    def finished_record(name: str) -> dict[str, Any]:
        path = saved_path(name)
        try:
            record, _ = saved.record(path.name)
        except SavedGameError as err:
            raise ApiError(422, saved.without_folder(str(err))) from None
        if record["status"] not in FINISHED:
            raise ApiError(409, f"game {name} is still being played: its record is shown after it")
        return record

    def saved_list() -> dict[str, Any]:
        return {"games": saved.listing()}

    def frame(name: str, moves: int) -> dict[str, Any]:
        record = finished_record(name)
        if not 0 <= moves <= len(record["moves"]):
            raise ApiError(400, f"frame {moves}: the game has frames 0..{len(record['moves'])}")
        try:
            return saved.frame(name, moves)
        except SavedGameError as err:
            raise ApiError(
                422, f"{name} does not replay: {saved.without_folder(str(err))}"
            ) from None

    async def saved_games(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(saved_list))

    async def saved_game(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(finished_record, request.path_params["name"]))

    async def saved_frame(request: Request) -> Response:
        params = request.path_params
        if not SINCE.fullmatch(params["moves"]):
            raise ApiError(
                400, f"frame {params['moves'][:20]!r} must be a move number 0..999999999"
            )
        moves = int(params["moves"])
        return JSONResponse(await run_in_threadpool(frame, params["name"], moves))

    def scrub(message: str) -> str:
        """``message`` without this machine's folders: a model's or the data folder's
        absolute path becomes its label (a checkpoint or bot error may name a file)."""
        folders = [(label, Path(root)) for label, root in catalogue.roots]
        if config.data_dir is not None:
            folders.append(("<data folder>", config.data_dir))
        folders += [(".", Path.cwd()), ("~", Path.home())]
        forms = {
            (str(f), label)
            for label, folder in folders
            for f in (folder.resolve(), folder.absolute())
        }
        for form, label in sorted(forms, key=lambda pair: -len(pair[0])):  # the deepest first
            if len(form) > 1:
                message = message.replace(form, label)
        return message

    async def api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return error_response(exc.status, scrub(exc.message))

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return error_response(exc.status_code, str(exc.detail))

    async def server_error(request: Request, exc: Exception) -> Response:
        # The console gets the traceback; the client only that it was the server's fault.
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
        return error_response(500, "internal error of the server (its console has the details)")

    routes = [
        Route("/", index),
        Route("/api/envs", envs),
        Route("/api/rules/{env_id}", rules),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games", running_games, methods=["GET"]),
        Route("/api/games/{game_id}", game_state, methods=["GET"]),
        Route("/api/games/{game_id}", leave, methods=["DELETE"]),
        Route("/api/games/{game_id}/moves", move, methods=["POST"]),
        Route("/api/games/{game_id}/bot", bot, methods=["POST"]),
        Route("/api/saved", saved_games),
        Route("/api/saved/{name}", saved_game),
        Route("/api/saved/{name}/frames/{moves}", saved_frame),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        store.flush()  # the moves of the last second of every running game

    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[
            Middleware(TrustedHostMiddleware, allowed_hosts=config.allowed_hosts),
            Middleware(SecurityHeaders),
            Middleware(AccessToken, token=config.access_token),
        ],
        exception_handlers={
            ApiError: api_error,
            HTTPException: http_error,
            Exception: server_error,
        },
    )
    app.state.store = store
    app.state.catalogue = catalogue
    app.state.saved = saved
    app.state.continued = continued
    return app
