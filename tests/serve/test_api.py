"""The HTTP API through Starlette's test client: whole games of every env, hot
seat, models, every bad request, and what each seat is sent."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from serve_helpers import (
    CheckedClient,
    make_client,
    play_whole_game,
    small_options,
    write_checkpoint,
)

from flockgym.envs import list_envs
from flockgym.play import load_record, replay_record
from flockgym.play.sessions import GameStore

HUMAN = {"kind": "human"}
HEURISTIC = {"kind": "bot", "bot": "heuristic"}
RANDOM = {"kind": "bot", "bot": "random"}


def seats_for(env_id: str, first: dict, rest: dict) -> list[dict]:
    players = small_options(env_id)["num_players"]
    return [first] + [rest] * (players - 1)


@pytest.mark.parametrize("env_id", list_envs())
def test_a_whole_game_of_every_env_is_saved_and_replays(client: CheckedClient, env_id: str):
    bots = next(e for e in client.envs() if e["id"] == env_id)["bots"]
    rest = HEURISTIC if "heuristic" in bots else RANDOM
    played = play_whole_game(client, env_id, seats_for(env_id, HUMAN, rest), seed=5)
    name = played["state"]["result"]["saved_as"]
    record = load_record(client.app.state.store.games[played["game_id"]].log.path)
    assert record["status"] == "over" and record["seed"] == 5
    assert record["scores"] == played["state"]["result"]["scores"]
    replay_record(record)  # every string, the scores and the winners replay exactly
    listed = client.http.get("/api/saved").json()["games"]
    assert [g["name"] for g in listed] == [name]
    assert client.http.get(f"/api/saved/{name}").json()["moves"] == record["moves"]
    assert client.states_checked > len(record["moves"])


def test_hot_seat_every_seat_a_person(client: CheckedClient):
    seats = [HUMAN, HUMAN]
    played = play_whole_game(client, "astrobirdz_v0", seats, seed=2)
    assert len(played["tokens"]) == 2


def test_asrus_moves_stay_hidden_from_the_other_seats(client: CheckedClient):
    created = client.new_game("asrus_v0", [HUMAN, HUMAN, HUMAN], seed=4)
    tokens = [s["token"] for s in created["seats"]]
    gid = created["game_id"]
    first = client.state(gid, tokens[0]).json()
    choice = first["legal"][0]
    client.move(gid, tokens[0], move_number=0, action=choice["id"])
    seen_by_1 = client.state(gid, tokens[1]).json()
    assert seen_by_1["log"] == [{"n": 0, "agent": "player_0", "text": None}]
    seen_by_0 = client.state(gid, tokens[0]).json()
    assert seen_by_0["log"][0]["text"] == choice["text"]
    assert client.state(gid, tokens[0], since=1).json()["log"] == []


def test_the_deal_seed_is_not_sent_while_it_could_reveal_hands(client: CheckedClient):
    created = client.new_game("astrobirdz_v0", [HUMAN, HEURISTIC])
    state = client.state(created["game_id"], created["seats"][0]["token"]).json()
    assert state["seed"] is None
    given = client.new_game("astrobirdz_v0", [HUMAN, HEURISTIC], seed=9)
    assert client.state(given["game_id"], given["seats"][0]["token"]).json()["seed"] == 9


def test_models_from_the_models_folders_play(client: CheckedClient, models_dir: Path):
    envs = {e["id"]: e for e in client.envs()}
    ids = {m["id"] for m in envs["asrus_v0"]["models"]}
    assert {"models/asrus-run", "models/loose/asrus_v0.zip"} <= ids
    assert "shipped/asrus/ppo_5p.zip" in ids
    model = {"kind": "bot", "bot": "model", "model": "models/asrus-run"}
    sample = {"kind": "bot", "bot": "model", "model": "models/loose/asrus_v0.zip", "play": "sample"}
    played = play_whole_game(client, "asrus_v0", [model, HUMAN, sample], seed=3)
    seats = played["state"]["seats"]
    assert [s["name"] for s in seats] == [
        "models/asrus-run",
        "you",
        "models/loose/asrus_v0.zip@sample",
    ]


def test_the_shipped_checkpoint_plays_at_its_own_table(client: CheckedClient):
    shipped = {"kind": "bot", "bot": "model", "model": "shipped/asrus/ppo_5p.zip"}
    created = client.new_game("asrus_v0", [HUMAN, shipped, HEURISTIC, RANDOM, shipped], options={})
    token = created["seats"][0]["token"]
    state = client.state(created["game_id"], token).json()
    response = client.move(created["game_id"], token, move_number=0, action=state["legal"][0]["id"])
    state = response.json()
    response = client.bot(created["game_id"], token, move_number=1, until="human")
    assert response.status_code == 200, response.text
    assert response.json()["to_act"] == "player_0" and response.json()["move_number"] == 5


def test_a_whole_astrobirdz_game_against_the_heuristic_and_the_shipped_bot(
    client: CheckedClient,
):
    """What `make play` offers a person: Astrobirdz against the heuristic and a checkpoint."""
    envs = {e["id"]: e for e in client.envs()}
    assert "shipped/astrobirdz/ppo_4p.zip" in {m["id"] for m in envs["astrobirdz_v0"]["models"]}
    shipped = {"kind": "bot", "bot": "model", "model": "shipped/astrobirdz/ppo_4p.zip"}
    seats = [HUMAN, shipped, HEURISTIC, shipped]
    played = play_whole_game(client, "astrobirdz_v0", seats, seed=4, options={"num_players": 4})
    names = [s["name"] for s in played["state"]["seats"]]
    assert names[1] == names[3] == "shipped/astrobirdz/ppo_4p.zip" and names[2] == "heuristic"


def test_both_search_bots_are_offered_and_the_tree_search_takes_a_seat(client: CheckedClient):
    """Every game registers a resampler, so the form offers the one-move search and
    the tree search; an ``ismcts`` seat plays its moves and is saved as such."""
    for env in client.envs():
        assert env["bots"] == ["random", "heuristic", "search", "ismcts"]
    ismcts = {"kind": "bot", "bot": "ismcts"}
    created = client.new_game("astrobirdz_v0", [HUMAN, ismcts], options={"num_players": 2})
    token, gid = created["seats"][0]["token"], created["game_id"]
    state = client.state(gid, token).json()
    while state["to_act"] != "player_1":
        response = client.move(gid, token, move_number=state["move_number"],
                               action=state["legal"][0]["id"])  # fmt: skip
        state = response.json()
    response = client.bot(gid, token, move_number=state["move_number"], until="human")
    assert response.status_code == 200, response.text
    assert response.json()["move_number"] > state["move_number"]
    assert [s["name"] for s in response.json()["seats"]] == ["you", "ismcts"]


def test_a_link_out_of_a_models_folder_is_not_listed(tmp_path: Path):
    outside = write_checkpoint(tmp_path / "outside" / "a.zip", "asrus_v0", {"num_players": 3})
    folder = tmp_path / "models"
    folder.mkdir()
    os.symlink(outside, folder / "link.zip")
    os.symlink(outside.parent, folder / "linked-folder")
    with make_client(tmp_path / "games", [folder], shipped=None) as client:
        assert all(not e["models"] for e in client.envs())
        response = client.create(
            env="asrus_v0",
            options={"num_players": 3},
            seats=[HUMAN, {"kind": "bot", "bot": "model", "model": "models/link.zip"}, RANDOM],
        )
        assert response.status_code == 400 and "unknown model" in response.json()["error"]


# ---- bad requests ------------------------------------------------------------------


BAD_NEW_GAMES = [
    ({"env": "chess_v0"}, 400, "unknown env 'chess_v0'; registered envs: arena_v0, asrus_v0"),
    ({"env": 3}, 400, "unknown env 3"),
    ({"env": "asrus_v0", "options": {"num_player": 3}}, 400, "unknown option(s) num_player"),
    ({"env": "asrus_v0", "options": {"num_players": 2}}, 400, "allowed values: 3, 4, 5"),
    ({"env": "asrus_v0", "options": []}, 400, "options must be an object"),
    ({"env": "asrus_v0", "options": {"render_mode": "human"}}, 400, "set by the server"),
    ({"env": "asrus_v0", "seed": -1}, 400, "seed: -1 is not an integer >= 0"),
    ({"env": "asrus_v0", "seed": "x"}, 400, "seed: 'x'"),
    ({"env": "asrus_v0", "seed": 2**60}, 400, "larger than"),
    ({"env": "asrus_v0", "colour": 1}, 400, "unknown field(s) colour"),
    ({"env": "asrus_v0", "seats": [HUMAN]}, 400, "seats must be a list of 5 seats"),
    ({"env": "asrus_v0", "seats": [RANDOM] * 5}, 400, "at least one seat must be a person"),
    ({"env": "asrus_v0", "seats": [HUMAN, {"kind": "alien"}, RANDOM, RANDOM, RANDOM]}, 400,
     "seats[1].kind: 'alien'; allowed: 'human', 'bot'"),
    ({"env": "asrus_v0", "seats": [HUMAN, {"kind": "bot", "bot": "x"}, RANDOM, RANDOM, RANDOM]},
     400, "seats[1].bot: 'x'; allowed: random, heuristic, search, ismcts, model"),
    ({"env": "asrus_v0", "seats": [HUMAN, {"kind": "bot", "bot": "model",
      "model": "../../etc/passwd"}, RANDOM, RANDOM, RANDOM]}, 400, "unknown model '../../etc"),
    ({"env": "asrus_v0", "seats": [HUMAN, {"kind": "bot", "bot": "model",
      "model": "/tmp/x.zip"}, RANDOM, RANDOM, RANDOM]}, 400, "unknown model '/tmp/x.zip'"),
    ({"env": "asrus_v0", "options": {"num_players": 3}, "seats": [HUMAN, {"kind": "bot",
      "bot": "model", "model": "shipped/asrus/ppo_5p.zip"}, RANDOM]}, 400,
     "checkpoint was trained for asrus_v0"),
    ({"env": "asrus_v0", "seats": [HUMAN, {"kind": "bot", "bot": "model", "play": "wild",
      "model": "shipped/asrus/ppo_5p.zip"}, RANDOM, RANDOM, RANDOM]}, 400, "play: 'wild'"),
]  # fmt: skip


@pytest.mark.parametrize(("body", "status", "message"), BAD_NEW_GAMES)
def test_bad_new_games_are_refused_with_a_message(client, body, status, message):
    response = client.create(**body)
    assert response.status_code == status
    assert message in response.json()["error"]
    assert client.app.state.store.games == {}


def test_malformed_requests(client: CheckedClient):
    http = client.http
    response = http.post(
        "/api/games", content=b"{nope", headers={"content-type": "application/json"}
    )
    assert response.status_code == 400 and "not valid JSON" in response.json()["error"]
    response = http.post("/api/games", content=b"env=asrus_v0")
    assert response.status_code == 415 and "Content-Type: application/json" in response.text
    response = http.post("/api/games", json=[1, 2])
    assert response.status_code == 400 and "must be a JSON object" in response.json()["error"]
    response = http.post(
        "/api/games", content=b"x" * 70_000, headers={"content-type": "application/json"}
    )
    assert response.status_code == 413
    assert http.get("/api/nothing").status_code == 404
    assert http.get("/api/games/0123456789abcdef").status_code == 404
    assert http.get("/static/../app.py").status_code == 404
    assert http.get("/static/%2e%2e/app.py").status_code == 404
    assert http.get("/", headers={"host": "evil.example"}).status_code == 400
    page = http.get("/")
    assert (
        page.status_code == 200 and "script-src 'self'" in page.headers["content-security-policy"]
    )


def test_bad_moves_leave_the_game_unchanged(client: CheckedClient):
    created = client.new_game("astrobirdz_v0", [HUMAN, HUMAN], seed=1)
    gid = created["game_id"]
    tokens = {s["agent"]: s["token"] for s in created["seats"]}
    other = client.new_game("astrobirdz_v0", [HUMAN, RANDOM], seed=1)
    state = client.state(gid, tokens["player_0"]).json()
    actor = state["to_act"]
    idle = "player_1" if actor == "player_0" else "player_0"
    before = json.dumps(client.game(gid).raw.state_dict(), sort_keys=True)
    legal = client.state(gid, tokens[actor]).json()["legal"]
    illegal_id = next(a for a in range(200) if a not in {m["id"] for m in legal})
    n = state["move_number"]
    cases = [
        (tokens[actor], {"move_number": n, "action": illegal_id}, 400, "illegal move"),
        (tokens[actor], {"move_number": n, "action": 10**6}, 400, "illegal move"),
        (tokens[actor], {"move_number": n, "action": True}, 400, "not an integer action id"),
        (tokens[actor], {"move_number": n, "text": "banana"}, 400, "cannot read action 'banana'"),
        (tokens[actor], {"move_number": n, "text": "x" * 300}, 400, "not an action string"),
        (tokens[actor], {"move_number": n}, 400, "either 'action'"),
        (tokens[actor], {"move_number": n, "action": 1, "text": "R1"}, 400, "either 'action'"),
        (tokens[actor], {"action": legal[0]["id"]}, 400, "move_number is required"),
        (tokens[actor], {"move_number": n + 3, "action": legal[0]["id"]}, 409, "stale move"),
        (tokens[actor], {"move_number": n, "action": 1, "why": 1}, 400, "unknown field(s) why"),
        (tokens[idle], {"move_number": n, "action": legal[0]["id"]}, 409, "is not player_"),
        (other["seats"][0]["token"], {"move_number": n, "action": 0}, 403, "not a seat of game"),
        ("", {"move_number": n, "action": 0}, 401, "X-Seat-Token"),
    ]
    for token, body, status, message in cases:
        response = client.http.post(
            f"/api/games/{gid}/moves", json=body, headers={"X-Seat-Token": token}
        )
        assert response.status_code == status, (body, response.text)
        assert message in response.json()["error"], (body, response.text)
    bot = client.bot(gid, tokens[actor], move_number=n)
    assert bot.status_code == 409 and "no bot is to act" in bot.json()["error"]
    assert json.dumps(client.game(gid).raw.state_dict(), sort_keys=True) == before
    assert client.game(gid).move_number == n
    response = client.move(gid, tokens[actor], move_number=n, action=legal[0]["id"])
    assert response.status_code == 200
    stale = client.move(gid, tokens[actor], move_number=n, action=legal[0]["id"])
    assert stale.status_code in (409,) and stale.json()["error"]


def test_a_finished_or_left_game_takes_no_more_moves(client: CheckedClient):
    created = client.new_game("astrobirdz_v0", [HUMAN, RANDOM], seed=1)
    gid, token = created["game_id"], created["seats"][0]["token"]
    left = client.http.delete(f"/api/games/{gid}", headers={"X-Seat-Token": token})
    assert left.status_code == 200 and left.json()["status"] == "abandoned"
    response = client.bot(gid, token, move_number=0)
    assert response.status_code == 409 and "is abandoned" in response.json()["error"]
    name = left.json()["result"]["saved_as"]
    record = client.http.get(f"/api/saved/{name}").json()
    assert record["status"] == "abandoned" and record["ended_because"] == "left by a person"


def test_a_running_game_is_not_served_as_a_saved_game(client: CheckedClient):
    created = client.new_game("astrobirdz_v0", [HUMAN, RANDOM], seed=1)
    path = client.game(created["game_id"]).log.path
    response = client.http.get(f"/api/saved/{path.name}")
    assert response.status_code == 409 and "still being played" in response.json()["error"]
    assert client.http.get(f"/api/saved/{path.name}/frames/0").status_code == 409
    assert client.http.get("/api/saved").json()["games"] == []
    assert client.http.get("/api/saved/..%2Fx.json").status_code == 404
    assert client.http.get("/api/saved/.hidden.json").status_code == 400


def test_saved_game_frames_replay_every_view(client: CheckedClient):
    played = play_whole_game(client, "astrobirdz_v0", [HUMAN, HEURISTIC], seed=8)
    name = played["state"]["result"]["saved_as"]
    record = client.http.get(f"/api/saved/{name}").json()
    last = len(record["moves"])
    first = client.http.get(f"/api/saved/{name}/frames/0").json()
    assert first["next"] == record["moves"][0] and set(first["views"]) == {"player_0", "player_1"}
    final = client.http.get(f"/api/saved/{name}/frames/{last}").json()
    assert final["next"] is None and final["views"]["player_0"]["over"] is True
    assert client.http.get(f"/api/saved/{name}/frames/{last + 1}").status_code == 400


# ---- limits and failures ---------------------------------------------------------------


def test_live_games_are_bounded_and_expire_when_idle(tmp_path: Path):
    now = [0.0]
    with make_client(tmp_path / "games", [], max_games=2, idle_seconds=60) as client:
        store: GameStore = client.app.state.store
        store.clock = lambda: now[0]
        a = client.new_game("astrobirdz_v0", [HUMAN, RANDOM], seed=1)
        client.game(a["game_id"]).clock = store.clock
        client.new_game("astrobirdz_v0", [HUMAN, RANDOM], seed=2)
        full = client.create(env="astrobirdz_v0", options={"num_players": 2})
        assert full.status_code == 503 and "too many live games (2)" in full.json()["error"]
        now[0] = 61.0
        client.new_game("astrobirdz_v0", [HUMAN, RANDOM], seed=3)
        gone = client.http.get(f"/api/games/{a['game_id']}", headers={"X-Seat-Token": "x"})
        assert gone.status_code == 404
        games = tmp_path / "games"
        saved = [json.loads(p.read_text())["status"] for p in games.glob("*.json")]
        assert sorted(saved) == ["abandoned", "abandoned"]
        assert len(list(games.glob("*.jsonl"))) == 1  # the running game: its journal


def test_a_crashing_game_does_not_take_the_others_down(client: CheckedClient):
    broken = client.new_game("astrobirdz_v0", [RANDOM, HUMAN], seed=1)
    healthy = client.new_game("astrobirdz_v0", [RANDOM, HUMAN], seed=1)

    class Broken:
        def act(self, observation, view):
            raise RuntimeError("the bot's network is on fire")

    client.game(broken["game_id"]).seats[0].bot = Broken()
    token = broken["seats"][1]["token"]
    response = client.bot(broken["game_id"], token, move_number=0)
    assert response.status_code == 500 and "on fire" in response.json()["error"]
    state = client.state(broken["game_id"], token).json()
    assert state["status"] == "crashed" and "on fire" in state["error"]
    ok = client.bot(healthy["game_id"], healthy["seats"][1]["token"], move_number=0)
    assert ok.status_code == 200 and ok.json()["move_number"] == 1


# ---- the games drawn since: Skybirds and the Arena -----------------------------------------


def test_skybirds_swap_choices_stay_with_the_two_hands(client: CheckedClient):
    """The Aces given in a Pre-Campaign swap are read only by the one who swapped; the
    token used, the opponent chosen, every Squadron and pass are read by every seat."""
    created = client.new_game("skybirds_v0", [HUMAN, HUMAN, HUMAN], options={"num_players": 3})
    gid = created["game_id"]
    tokens = {s["agent"]: s["token"] for s in created["seats"]}
    game = client.game(gid)
    game.env.reset(seed=3, options={"tokens": {"player_0": {"A3": "front"}}})
    made: list[str] = []
    state = client.state(gid, tokens["player_0"]).json()
    while len(made) < 3 or state["view"]["phase"] == "pre_campaign":
        actor = state["to_act"]
        mine = client.state(gid, tokens[actor]).json()
        texts = [m["text"] for m in mine["legal"]]
        wanted = next(
            (t for t in texts if t == "use A3" or t.startswith(("target ", "give "))), texts[0]
        )
        if actor == "player_0":
            made.append(wanted)
        move = next(m for m in mine["legal"] if m["text"] == wanted)
        response = client.move(
            gid, tokens[actor], move_number=mine["move_number"], action=move["id"]
        )
        assert response.status_code == 200, response.text
        state = response.json()
    assert made[0] == "use A3" and made[1].startswith("target ") and made[2].startswith("give ")
    for agent, token in tokens.items():
        log = {e["n"]: e["text"] for e in client.state(gid, token).json()["log"]}
        seen = [log[n] for n, m in enumerate(game.log.moves) if m["agent"] == "player_0"]
        if agent == "player_0":
            assert seen[:3] == made[:3]
        else:
            assert seen[0] == "use A3" and seen[1] == made[1] and seen[2] is None
    assert state["view"]["phase"] == "dogfight"


@pytest.mark.parametrize("env_id", ["skybirds_v0", "arena_v0"])
def test_hot_seat_views_differ_only_in_each_seats_own_fields(client: CheckedClient, env_id: str):
    """Every seat a person: each state sent is checked against every other seat's view
    (see check_private_fields), a whole game long."""
    # random people rarely end a Great War: two Campaigns, then the cap truncates it
    options = {"num_players": 2, "max_campaigns": 2} if env_id == "skybirds_v0" else None
    played = play_whole_game(
        client, env_id, [HUMAN, HUMAN], seed=6, ends=("over", "truncated"),
        options=options or small_options(env_id),
    )  # fmt: skip
    assert len(played["tokens"]) == 2 and client.states_checked > 20


def test_the_new_games_have_card_notes_and_drawn_tables(client: CheckedClient):
    envs = {e["id"]: e for e in client.envs()}
    assert envs["skybirds_v0"]["renderer"] == "skybirds"
    assert envs["arena_v0"]["renderer"] == "arena"
    sky = dict(map(tuple, envs["skybirds_v0"]["help"]))
    assert "G Roland Garros" in sky and "Armistice (8/8 VP, ribbon 1)" in sky
    assert "wild" in sky["B3 (3/2 VP, ribbon 1-2-3)"]
    arena = dict(map(tuple, envs["arena_v0"]["help"]))
    assert arena["Halfpipe Hall (red gym)"] == "+4 to one challenge roll"
    assert arena["Stunt Die"] == "an extra die for a challenge roll"
    assert "wormhole" in arena["Nebula Slide"]


def test_a_saved_game_name_that_is_no_name_is_refused_saying_what_a_name_is(
    client: CheckedClient,
):
    """A hidden file or another kind of file is refused with a 400 that says what
    a saved game's name looks like; a name with a slash matches no route at all."""
    allowed = (
        "a saved game's name is letters, digits, '_', '.' and '-' (not first) ending "
        "in .json; GET /api/saved lists them"
    )
    for name in (".hidden.json", "x.txt", "-x.json"):
        response = client.http.get(f"/api/saved/{name}")
        assert (response.status_code, response.json()) == (
            400,
            {"error": f"{name!r} is not the name of a saved game: {allowed}"},
        )
    response = client.http.get("/api/saved/..%2Fx.json")
    assert (response.status_code, response.json()) == (404, {"error": "Not Found"})


def test_the_form_offers_game_options_not_training_settings(client: CheckedClient):
    """A person sets up a game: the reward and the step cap shape a learner's
    episode, so the form's options (GET /api/envs) leave them out."""
    for env in client.envs():
        names = [option["name"] for option in env["options"]]
        assert "num_players" in names
        assert not {"reward", "max_steps", "render_mode", "illegal_action"} & set(names), names
