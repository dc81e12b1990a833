"""The Starlette app of ``flockgym serve``: the page, its static files and the JSON API.

Routes (every error is JSON ``{"error": message}`` with a 4xx or 5xx status):

| method | path | what |
| --- | --- | --- |
| GET | ``/`` | the page |
| GET | ``/static/...`` | the page's CSS and JavaScript (this package's ``static/`` only) |
| GET | ``/api/envs`` | every registered env: options table, bots, models, drawn table |
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
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from flockgym.envs import entry, env_module, list_envs, make_bot

from .cards_help import special_cards_help
from .models import ModelCatalogue, shipped_checkpoints
from .records import FINISHED, RECORD_NAME, SavedGameError, load_record, replay_record
from .sessions import SERVER_SET_OPTIONS, ApiError, Game, GameStore, Seat, create_game

STATIC = Path(__file__).parent / "static"
MAX_BODY = 64_000
"""Bytes; every valid request is far smaller."""
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
                "options": [option_json(o) for o in table if o.name not in SERVER_SET_OPTIONS],
                "bots": ["random", "heuristic"] if has_heuristic(env_id) else ["random"],
                "models": [m.to_json() for m in catalogue.for_env(env_id)],
                "renderer": renderer_of(env_id),
                "help": special_cards_help(env_id),
            }
        )
    return {"envs": envs}


# ---- request helpers -----------------------------------------------------------------


async def read_json(request: Request) -> Any:
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise ApiError(415, "send the request body as JSON (Content-Type: application/json)")
    body = await request.body()
    if len(body) > MAX_BODY:
        raise ApiError(413, f"request body of {len(body)} bytes; at most {MAX_BODY}")
    try:
        return json.loads(body) if body else {}
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ApiError(400, f"request body is not valid JSON: {err}") from None


def since_of(request: Request) -> int:
    text = request.query_params.get("since", "0")
    if not text.isdigit() or len(text) > 9:
        raise ApiError(400, f"since={text!r:.20} must be a move number >= 0")
    return int(text)


def error_response(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def create_app(config: ServerConfig) -> Starlette:
    """The app: routes above, one store of live games, one model catalogue."""
    store = GameStore(config.max_games, config.idle_seconds)
    catalogue = ModelCatalogue(config.models, config.shipped)

    def in_game(
        request: Request, change: Callable[[Game, Seat], None] | None = None
    ) -> dict[str, Any]:
        """Find the game and the caller's seat, apply ``change`` under the game's lock,
        and return the state that seat is sent.

        Called on the event loop itself, not in a worker thread: a move takes about
        a millisecond, and under many concurrent games handing each one to a thread
        cost more (the threads' turns at the interpreter) than the move itself.
        Creating a game (which may load a model) and reading saved games run in
        worker threads."""
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

    async def new_game(request: Request) -> Response:
        payload = await read_json(request)

        def build() -> dict[str, Any]:
            game = create_game(payload, catalogue, config.data_dir, store.clock)
            store.add(game)
            game.log.save(force=True)
            seats = [{**s.public(), **({"token": s.token} if s.token else {})} for s in game.seats]
            return {"game_id": game.id, "seats": seats}

        return JSONResponse(await run_in_threadpool(build), status_code=201)

    async def game_state(request: Request) -> Response:
        return JSONResponse(in_game(request))

    async def move(request: Request) -> Response:
        payload = await read_json(request)
        return JSONResponse(in_game(request, lambda g, s: g.human_move(s, payload)))

    async def bot(request: Request) -> Response:
        payload = await read_json(request)
        return JSONResponse(in_game(request, lambda g, s: g.bot_moves(payload)))

    async def leave(request: Request) -> Response:
        return JSONResponse(in_game(request, lambda g, s: g.abandon("left by a person")))

    def saved_path(name: str) -> Path:
        if config.data_dir is None:
            raise ApiError(404, "this server saves no games (started without a data folder)")
        if not RECORD_NAME.fullmatch(name):
            raise ApiError(400, f"{name!r:.60} is not the name of a saved game")
        path = config.data_dir / name
        if path.resolve().parent != config.data_dir.resolve() or not path.is_file():
            raise ApiError(404, f"no saved game {name!r:.60}")
        return path

    def finished_record(name: str) -> dict[str, Any]:
        try:
            record = load_record(saved_path(name))
        except SavedGameError as err:
            raise ApiError(422, str(err)) from None
        if record["status"] not in FINISHED:
            raise ApiError(409, f"game {name} is still being played: its record is shown after it")
        return record

    def saved_list() -> dict[str, Any]:
        if config.data_dir is None or not config.data_dir.is_dir():
            return {"games": []}
        games = []
        names = sorted((p.name for p in config.data_dir.glob("*.json")), reverse=True)
        for name in [n for n in names if RECORD_NAME.fullmatch(n)][:200]:
            try:
                record = load_record(config.data_dir / name)
            except SavedGameError:
                continue
            if record["status"] in FINISHED:
                games.append(
                    {
                        "name": name,
                        "env": record["env"],
                        "status": record["status"],
                        "started": record.get("started"),
                        "moves": len(record["moves"]),
                        "seats": [s["name"] for s in record["seats"]],
                        "scores": record["scores"],
                        "winners": record["winners"],
                    }
                )
        return {"games": games}

    def frame(name: str, moves: int) -> dict[str, Any]:
        record = finished_record(name)
        if not 0 <= moves <= len(record["moves"]):
            raise ApiError(400, f"frame {moves}: the game has frames 0..{len(record['moves'])}")
        try:
            env = replay_record(record, upto=moves)
        except SavedGameError as err:
            raise ApiError(422, f"{name} does not replay: {err}") from None
        raw = env.unwrapped
        done = moves == len(record["moves"])
        return {
            "name": name,
            "move_number": moves,
            "moves": len(record["moves"]),
            "views": {a: raw.view(a) for a in raw.possible_agents},
            "next": None if done else record["moves"][moves],
            "to_act": None if done else record["moves"][moves]["agent"],
        }

    async def saved_games(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(saved_list))

    async def saved_game(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(finished_record, request.path_params["name"]))

    async def saved_frame(request: Request) -> Response:
        params = request.path_params
        return JSONResponse(await run_in_threadpool(frame, params["name"], params["moves"]))

    async def api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return error_response(exc.status, exc.message)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return error_response(exc.status_code, str(exc.detail))

    async def server_error(request: Request, exc: Exception) -> Response:
        return error_response(500, f"internal error: {type(exc).__name__}: {exc}")

    routes = [
        Route("/", index),
        Route("/api/envs", envs),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{game_id}", game_state, methods=["GET"]),
        Route("/api/games/{game_id}", leave, methods=["DELETE"]),
        Route("/api/games/{game_id}/moves", move, methods=["POST"]),
        Route("/api/games/{game_id}/bot", bot, methods=["POST"]),
        Route("/api/saved", saved_games),
        Route("/api/saved/{name}", saved_game),
        Route("/api/saved/{name}/frames/{moves:int}", saved_frame),
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
        ],
        exception_handlers={
            ApiError: api_error,
            HTTPException: http_error,
            Exception: server_error,
        },
    )
    app.state.store = store
    app.state.catalogue = catalogue
    return app
