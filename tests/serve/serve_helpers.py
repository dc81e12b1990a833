"""Helpers of the server tests.

:class:`CheckedClient` is the test client every API test goes through: each
state a seat is sent is compared with what that seat may see at that moment
(the env's own ``view`` of it, its legal moves, a move log that shows other
seats' moves only where the game makes them in the open, no deal seed while
it could reveal hands) and with a whitelist of fields.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from flockgym.bots.checkpoints import write_checkpoint as write_zip
from flockgym.bots.policies import CheckpointMeta, env_shapes, meta_member
from flockgym.envs import entry, list_envs
from flockgym.play import ServerConfig, create_app
from flockgym.training.learners import get_learner

SMALL_OPTIONS: dict[str, dict[str, Any]] = {
    "asrus_v0": {"num_players": 3},
    "astrobirdz_v0": {"num_players": 2},
    # the shorter Great War (about 140 moves at two players) and a two-round Arena
    "skybirds_v0": {"num_players": 2, "short_game": True},
    "arena_v0": {"num_players": 2, "max_rounds": 2},
}
STATE_FIELDS = {
    "game_id", "env", "options", "seats", "agent", "status", "move_number", "to_act",
    "to_act_kind", "view", "legal", "log", "seed", "result", "error",
}  # fmt: skip
PRIVATE_MOVES: dict[str, tuple[str, ...]] = {
    "asrus_v0": ("",),  # every commitment, until the turn is revealed
    "astrobirdz_v0": ("choose ",),  # cards chosen to discard, pass or trade
    "skybirds_v0": ("give ",),  # the Aces given in a Pre-Campaign swap
    "arena_v0": ("wish ",),  # a character wish, until every seat has wished
}
"""Per env, the action strings (by prefix) no other seat may read when they are made;
every other move of another seat must be shown with its string. Written from the
rules pages, apart from the server's own table (disclosure.py)."""
SEAT_FIELDS: dict[str, set[str]] = {
    "skybirds_v0": {"agent", "hand", "pending"},
    "arena_v0": {"agent", "last_rolls", "wish", "wish_choices"},
}
"""Per env, the only fields in which two seats' views of one table may differ: the
rest is public and must be the same in every seat's view (envs not listed: not
checked this way)."""


def small_options(env_id: str) -> dict[str, Any]:
    """A short game of ``env_id``: few players (envs registered later: the fewest)."""
    return SMALL_OPTIONS.get(env_id, {"num_players": min(entry(env_id).player_counts)})


def write_checkpoint(path: Path, env_id: str, options: dict[str, Any]) -> Path:
    """An untrained policy saved the way training saves one."""
    learner = get_learner("maskable_ppo")
    size, actions, resolved = env_shapes(env_id, options)
    config = {"net_arch": [16], "activation": "tanh"}

    class Model:
        policy = learner.network(config, size, actions)

    path.parent.mkdir(parents=True, exist_ok=True)
    meta = CheckpointMeta(env_id, resolved, size, actions, "maskable_ppo", config)
    return write_zip(path, learner.network_members(Model()) | meta_member(meta))


def models_folder(root: Path) -> Path:
    """A ``--models`` folder: a loose checkpoint per env (small options) and one run folder."""
    for env_id in list_envs():
        write_checkpoint(root / "loose" / f"{env_id}.zip", env_id, small_options(env_id))
    write_checkpoint(root / "asrus-run" / "final.zip", "asrus_v0", {"num_players": 3})
    (root / "asrus-run" / "checkpoints").mkdir()
    return root


def browser_hosts() -> list[str]:
    return ["testserver", "127.0.0.1", "localhost"]


@contextlib.contextmanager
def make_client(data_dir: Path, models: list[Path], **config: Any) -> Iterator[CheckedClient]:
    app = create_app(
        ServerConfig(data_dir=data_dir, models=models, allowed_hosts=browser_hosts(), **config)
    )
    with TestClient(app, raise_server_exceptions=False) as client:
        yield CheckedClient(client, app)


class CheckedClient:
    """The API through Starlette's test client, checking every seat state it gets."""

    def __init__(self, client: TestClient, app: Any) -> None:
        self.http = client
        self.app = app
        self.states_checked = 0

    def game(self, game_id: str) -> Any:
        return self.app.state.store.games[game_id]

    def envs(self) -> list[dict[str, Any]]:
        response = self.http.get("/api/envs")
        assert response.status_code == 200, response.text
        return response.json()["envs"]

    def create(self, **body: Any) -> Any:
        return self.http.post("/api/games", json=body)

    def new_game(self, env_id: str, seats: list[dict[str, Any]] | None = None, **body: Any) -> dict:
        body.setdefault("options", small_options(env_id))
        if seats is not None:
            body["seats"] = seats
        response = self.create(env=env_id, **body)
        assert response.status_code == 201, response.text
        return response.json()

    def state(self, game_id: str, token: str, since: int = 0) -> Any:
        response = self.http.get(
            f"/api/games/{game_id}", params={"since": since}, headers={"X-Seat-Token": token}
        )
        return self.checked(response, game_id, since)

    def move(self, game_id: str, token: str, **body: Any) -> Any:
        response = self.http.post(
            f"/api/games/{game_id}/moves", json=body, headers={"X-Seat-Token": token}
        )
        return self.checked(response, game_id)

    def bot(self, game_id: str, token: str, **body: Any) -> Any:
        response = self.http.post(
            f"/api/games/{game_id}/bot", json=body, headers={"X-Seat-Token": token}
        )
        return self.checked(response, game_id)

    def checked(self, response: Any, game_id: str, since: int = 0) -> Any:
        if response.status_code == 200:
            check_seat_state(response.json(), self.game(game_id), since)
            self.states_checked += 1
        return response


def check_seat_state(state: dict[str, Any], game: Any, since: int = 0) -> None:
    """A state sent to a seat carries that seat's view and legal moves and nothing hidden."""
    assert set(state) <= STATE_FIELDS, set(state) - STATE_FIELDS
    raw, agent = game.raw, state["agent"]
    assert state["view"] == json.loads(json.dumps(raw.view(agent)))
    check_private_fields(state["view"], game, agent)
    acting = not game.finished and raw.agent_selection == agent
    legal = raw.legal_actions(agent) if acting else []
    assert state["legal"] == [{"id": a, "text": raw.action_to_string(agent, a)} for a in legal]
    moves = game.log.moves
    assert state["move_number"] == len(moves)
    assert [e["n"] for e in state["log"]] == list(range(since, len(moves)))
    for logged in state["log"]:
        move = moves[logged["n"]]
        assert logged["agent"] == move["agent"]
        private = PRIVATE_MOVES.get(game.env_id, ("",))
        if move["agent"] == agent or not move["text"].startswith(private):
            assert logged["text"] == move["text"], logged
        else:
            assert logged["text"] is None, logged
    if not (game.finished or game.seed_given):
        assert state["seed"] is None
    assert "token" not in json.dumps(state["seats"])


def check_private_fields(view: dict[str, Any], game: Any, agent: str) -> None:
    """Outside its seat's own fields a view equals every other seat's view; the seat's
    own fields hold only what is its own (Skybirds: its hand; the move it is building
    only while it is the one to act)."""
    raw = game.raw
    own = SEAT_FIELDS.get(game.env_id)
    if own is None:
        return
    for other in raw.possible_agents:
        theirs = json.loads(json.dumps(raw.view(other)))
        assert set(theirs) == set(view)
        for key in set(view) - own:
            assert view[key] == theirs[key], (key, agent, other)
    if game.env_id == "skybirds_v0":
        from flockgym.envs.skybirds.data import cards_text

        seat = raw.possible_agents.index(agent)
        assert view["hand"] == cards_text(raw.game.hands[seat])
        if view["pending"] is not None:
            assert raw.agent_selection == agent and not game.finished
    if game.env_id == "arena_v0":
        seat = raw.possible_agents.index(agent)
        wish = raw.game.wishes[seat]  # a seat's own character wish, and no other's
        assert view["wish"] == (raw.game.box.characters[wish].name if wish >= 0 else None)
        assert all(
            set(roll) == {"player", "purpose", "die", "result"} for roll in view["last_rolls"]
        )


def play_whole_game(
    client: CheckedClient,
    env_id: str,
    seats: list[dict[str, Any]],
    seed: int = 1,
    ends: tuple[str, ...] = ("over",),
    **body: Any,
) -> dict[str, Any]:
    """Create a game and play it to the end through the API: the people's seats by
    random legal moves (alternately by id and by string), the bots one request each.
    ``ends``: the statuses it may end with (``truncated`` for a game capped short)."""
    created = client.new_game(env_id, seats, seed=seed, **body)
    game_id = created["game_id"]
    tokens = {s["agent"]: s["token"] for s in created["seats"] if "token" in s}
    any_token = next(iter(tokens.values()))
    rng = random.Random(seed)
    state = client.state(game_id, any_token).json()
    while state["status"] == "running":
        if state["to_act_kind"] == "bot":
            response = client.bot(game_id, any_token, move_number=state["move_number"])
        else:
            token = tokens[state["to_act"]]
            mine = client.state(game_id, token).json()
            choice = rng.choice(mine["legal"])
            body = {"action": choice["id"]} if rng.random() < 0.5 else {"text": choice["text"]}
            response = client.move(game_id, token, move_number=mine["move_number"], **body)
        assert response.status_code == 200, response.text
        state = response.json()
    for token in tokens.values():
        final = client.state(game_id, token).json()
        assert final["status"] in ends and final["result"]["saved_as"]
    return {"game_id": game_id, "tokens": tokens, "state": state}


def skip_browser() -> bool:
    return os.environ.get("FLOCKGYM_SKIP_BROWSER") == "1"
