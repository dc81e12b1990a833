"""What a request cannot make the server do: open a file it names, quote a file or
a Python exception, read an endless body, take a seat with a malformed token,
hand out seats past its caps, or answer off loopback without its access token;
and the deal seeds it draws are 128 bits of the OS's secure generator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from serve_helpers import CheckedClient, make_client

from flockgym.envs import env_module
from flockgym.play.sessions import SEED_BITS, GameStore

HUMAN = {"kind": "human"}
RANDOM = {"kind": "bot", "bot": "random"}
SECRET = "s3cr3t-do-not-show-8c1f"


def secret_files(tmp_path: Path) -> list[Path]:
    """Files a request might name: YAML, CSV, JSON and a password-like file, each
    holding the secret string."""
    folder = tmp_path / "private"
    folder.mkdir()
    files = []
    for name, text in [
        ("box.yaml", f"secret: {SECRET}\n"),
        ("table.csv", f"column,rank\n{SECRET},1\n"),
        ("table.json", json.dumps([{"column": SECRET}])),
        ("passwd", f"root:x:0:0:{SECRET}:/root:/bin/sh\n"),
    ]:
        path = folder / name
        path.write_text(text)
        files.append(path)
    return files


def file_options() -> list[tuple[str, str]]:
    """Every (env, option) whose option reads a file: found through ``reads_file``."""
    found = []
    for env_id in ("arena_v0", "skybirds_v0"):
        for option in env_module(env_id).raw_env.option_table():
            if getattr(option, "reads_file", False):
                found.append((env_id, option.name))
    return found


def test_the_options_that_read_files_are_declared():
    assert file_options() == [("arena_v0", "data"), ("skybirds_v0", "aerodrome")]


@pytest.mark.parametrize(("env_id", "option"), file_options())
def test_an_option_naming_a_file_is_refused_unread(
    client: CheckedClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env_id: str, option: str
):
    opened: list[str] = []
    real_open = open

    def spy_open(file, *args, **kwargs):
        opened.append(str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", spy_open)
    for path in [*secret_files(tmp_path), Path("/dev/zero"), Path("/etc/passwd")]:
        for value in (str(path), path.name, f"../{path.name}"):
            response = client.create(env=env_id, options={"num_players": 2, option: value})
            assert response.status_code == 400, response.text
            error = response.json()["error"]
            assert error == (
                f"option {option}: the server opens no file a request names; give {option} "
                f"inline (a list of rows) where the game allows it, or leave it out"
            )
            assert SECRET not in response.text and str(tmp_path) not in response.text
    assert not [f for f in opened if "private" in f or f.startswith("/dev") or "passwd" in f]
    assert client.app.state.store.games == {}


def test_an_inline_aerodrome_is_accepted_and_bounded(client: CheckedClient):
    from flockgym.envs.skybirds.env import CUSTOM_AERODROME

    rows = list(CUSTOM_AERODROME)
    created = client.new_game(
        "skybirds_v0", [HUMAN, RANDOM], options={"num_players": 2, "aerodrome": rows}
    )
    game = client.game(created["game_id"])
    assert game.log.data["options"]["aerodrome"] == json.loads(json.dumps(rows))
    huge = [*rows, {"column": "Z" * 500, "note": "x" * 20_000}]
    response = client.create(
        env="skybirds_v0", options={"num_players": 2, "aerodrome": huge}, seats=[HUMAN, RANDOM]
    )
    assert response.status_code == 400
    assert response.json()["error"] == "option aerodrome: at most 20000 characters of JSON inline"


def test_no_error_quotes_an_exception_or_a_server_path(client: CheckedClient):
    def boom(*args, **kwargs):
        raise RuntimeError(f"secret internals {SECRET} at /srv/flockgym/app.py")

    client.app.state.catalogue.for_env = boom
    response = client.http.get("/api/envs")
    assert response.status_code == 500
    assert response.json() == {
        "error": "internal error of the server (its console has the details)"
    }


# ---- malformed requests: a 4xx with a message, never a 500 ------------------------------


def test_a_number_of_5000_digits_is_a_400(client: CheckedClient):
    for field in ("seed", "env"):
        body = f'{{"env": "asrus_v0", "{field}": {"9" * 5000}}}'.encode()
        response = client.http.post(
            "/api/games", content=body, headers={"content-type": "application/json"}
        )
        assert response.status_code == 400
        assert response.json()["error"] == (
            "request body holds a number too long to be one the API uses"
        )
    created = client.new_game("astrobirdz_v0", [HUMAN, RANDOM], seed=1)
    gid, token = created["game_id"], created["seats"][0]["token"]
    body = b'{"move_number": ' + b"1" * 5000 + b', "action": 0}'
    response = client.http.post(
        f"/api/games/{gid}/moves",
        content=body,
        headers={"content-type": "application/json", "X-Seat-Token": token},
    )
    assert response.status_code == 400 and "number too long" in response.json()["error"]
    assert client.game(gid).move_number == 0


@pytest.mark.parametrize("depth", [17, 1000, 30_000])
def test_deep_nesting_is_a_400(client: CheckedClient, depth: int):
    body = ('{"env": "asrus_v0", "options": ' + "[" * depth + "]" * depth + "}").encode()
    response = client.http.post(
        "/api/games", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json()["error"] == "request body nests deeper than 16 levels"


def test_nan_and_infinity_are_not_json(client: CheckedClient):
    for constant in ("NaN", "Infinity", "-Infinity"):
        body = f'{{"env": "asrus_v0", "seed": {constant}}}'.encode()
        response = client.http.post(
            "/api/games", content=body, headers={"content-type": "application/json"}
        )
        assert response.status_code == 400
        assert response.json()["error"] == (
            f"request body is not valid JSON: {constant} is not a JSON number"
        )


def test_odd_seat_tokens_are_refused_as_no_seat(client: CheckedClient):
    created = client.new_game("astrobirdz_v0", [HUMAN, RANDOM], seed=1)
    gid = created["game_id"]
    for token in ["é" * 24, "tøken", "a" * 65, "abc def", "x" * 5000, "\u00ff\u00fe"]:
        header = token.encode("utf-8") if not token.isascii() else token
        response = client.http.get(f"/api/games/{gid}", headers={"X-Seat-Token": header})
        assert response.status_code == 403, (token, response.text)
        assert response.json()["error"] == f"that seat token is not a seat of game {gid}"


@pytest.mark.parametrize(
    "since", ["-1", "1.5", "²", "١", "1e3", "0x10", "9" * 10, "", " 1", "nan", "1%00"]
)
def test_odd_since_values_are_a_400(client: CheckedClient, since: str):
    created = client.new_game("astrobirdz_v0", [HUMAN, RANDOM], seed=1)
    gid, token = created["game_id"], created["seats"][0]["token"]
    response = client.http.get(
        f"/api/games/{gid}", params={"since": since}, headers={"X-Seat-Token": token}
    )
    assert response.status_code == 400
    assert response.json()["error"] == f"since={since!r:.20} must be a move number 0..999999999"


def test_since_past_the_end_is_an_empty_log(client: CheckedClient):
    created = client.new_game("astrobirdz_v0", [HUMAN, RANDOM], seed=1)
    state = client.state(created["game_id"], created["seats"][0]["token"], since=999_999_999)
    assert state.status_code == 200 and state.json()["log"] == []


# ---- caps per client ------------------------------------------------------------------------


def test_one_client_cannot_fill_the_table(tmp_path: Path):
    with make_client(tmp_path / "games", [], games_per_client=2) as client:
        made = [client.new_game("astrobirdz_v0", [HUMAN, RANDOM]) for _ in range(2)]
        third = client.create(env="astrobirdz_v0", options={"num_players": 2})
        assert third.status_code == 429
        assert third.json()["error"] == (
            "this client already plays 2 running games (at most 2); finish or leave one first"
        )
        assert len(client.app.state.store.games) == 2
        token = made[0]["seats"][0]["token"]
        client.http.delete(f"/api/games/{made[0]['game_id']}", headers={"X-Seat-Token": token})
        assert client.create(env="astrobirdz_v0", options={"num_players": 2}).status_code == 201


def test_game_creation_is_rate_limited_per_client(tmp_path: Path):
    now = [0.0]
    with make_client(tmp_path / "games", [], games_per_client_minute=3) as client:
        store: GameStore = client.app.state.store
        store.clock = lambda: now[0]
        for _ in range(3):
            client.new_game("astrobirdz_v0", [HUMAN, RANDOM])
        refused = client.create(env="astrobirdz_v0", options={"num_players": 2})
        assert refused.status_code == 429
        assert refused.json()["error"] == (
            "this client created 3 games in the last minute (at most 3); wait a little"
        )
        now[0] = 60.0
        assert client.create(env="astrobirdz_v0", options={"num_players": 2}).status_code == 201


# ---- seeds ----------------------------------------------------------------------------------


def test_deal_seeds_are_128_bits_from_the_secure_generator(
    client: CheckedClient, monkeypatch: pytest.MonkeyPatch
):
    drawn: list[int] = []
    import secrets

    real = secrets.randbits

    def spy(bits: int) -> int:
        drawn.append(bits)
        return real(bits)

    monkeypatch.setattr("flockgym.play.sessions.secrets.randbits", spy)
    created = client.new_game("astrobirdz_v0", [HUMAN, RANDOM])
    assert drawn == [SEED_BITS] == [128]
    game = client.game(created["game_id"])
    token = created["seats"][0]["token"]
    left = client.http.delete(f"/api/games/{game.id}", headers={"X-Seat-Token": token}).json()
    # a seed above 2**53 travels as digits, and deals the same game again
    assert left["seed"] == (str(game.seed) if game.seed > 2**53 - 1 else game.seed)
    again = client.new_game("astrobirdz_v0", [HUMAN, RANDOM], seed=str(game.seed))
    assert client.game(again["game_id"]).seed == game.seed
    assert (
        client.game(again["game_id"]).raw.view("player_0")["hand"]
        == (game.raw.view("player_0")["hand"])
    )


def test_every_seed_bit_changes_the_deal(client: CheckedClient):
    """All 128 bits go into the deal: seeds differing only in bit 100 deal other hands."""
    base = 2**127 + 12345
    hands = []
    for seed in (base, base ^ (1 << 100)):
        created = client.new_game("astrobirdz_v0", [HUMAN, RANDOM], seed=str(seed))
        hands.append(client.game(created["game_id"]).raw.view("player_0")["hand"])
    assert hands[0] != hands[1]


@pytest.mark.parametrize(
    ("seed", "message"),
    [
        ("1" * 40, "seed: '1111111111111111111111111111111111111111' is not an integer >= 0"),
        (str(2**128), "is not an integer >= 0 (a string of digits: <= 2**128-1)"),
        ("12a", "seed: '12a' is not an integer >= 0"),
        (2**53, "seed: 9007199254740992 is larger than 9007199254740991"),
    ],
)
def test_bad_seeds_are_refused(client: CheckedClient, seed, message):
    response = client.create(env="asrus_v0", seed=seed)
    assert response.status_code == 400 and message in response.json()["error"]


# ---- off loopback: the access token ----------------------------------------------------------


def test_an_access_token_guards_every_api_request(tmp_path: Path, models_dir: Path):
    token = "T" * 16 + "-access_token"
    with make_client(tmp_path / "games", [], access_token=token) as client:
        http = client.http
        refused = http.get("/api/envs")
        assert refused.status_code == 401
        assert refused.json()["error"] == (
            "this server needs its access token: open the address it printed at start "
            "(/?access=TOKEN), or send the X-Access-Token header"
        )
        assert http.post("/api/games", json={"env": "asrus_v0"}).status_code == 401
        assert http.get("/api/envs", headers={"X-Access-Token": "T" * 16}).status_code == 401
        assert (
            http.get("/api/envs", headers={"X-Access-Token": ("ü" * 20).encode()}).status_code
            == 401
        )
        assert http.get("/").status_code == 200  # the page itself, which holds no game
        assert http.get("/api/envs", headers={"X-Access-Token": token}).status_code == 200
        wrong = http.get("/?access=nope", follow_redirects=False)
        assert wrong.status_code == 403
        entry = http.get(f"/?access={token}", follow_redirects=False)
        assert entry.status_code == 303 and entry.headers["location"] == "/"
        cookie = entry.headers["set-cookie"]
        assert "httponly" in cookie.lower() and "samesite=strict" in cookie.lower()
        assert http.get("/api/envs").status_code == 200  # the cookie now carries it
        assert client.app.state.store.games == {}


def test_no_error_names_a_folder_of_the_server(tmp_path: Path, models_dir: Path):
    data = tmp_path / "games"
    with make_client(data, [models_dir]) as client:
        created = client.new_game("astrobirdz_v0", [RANDOM, HUMAN], seed=1)
        gid, token = created["game_id"], created["seats"][1]["token"]

        class Broken:
            def act(self, observation, view):
                raise RuntimeError(f"cannot read {models_dir}/loose/x.zip nor {data}/a.json")

        client.game(gid).seats[0].bot = Broken()
        response = client.bot(gid, token, move_number=0)
        assert response.status_code == 500
        assert response.json()["error"] == (
            f"game {gid} stopped: random (player_0) failed to move: cannot read "
            f"models/loose/x.zip nor <data folder>/a.json"
        )


@pytest.mark.parametrize("frame", ["9" * 5000, "-1", "1.5", "²", "x"])
def test_odd_frame_numbers_are_a_400(client: CheckedClient, frame: str):
    response = client.http.get(f"/api/saved/x.json/frames/{frame}")
    assert response.status_code == 400
    assert response.json()["error"] == f"frame {frame[:20]!r} must be a move number 0..999999999"


def test_an_odd_game_id_is_a_404_with_a_message(client: CheckedClient):
    response = client.http.get("/api/games/" + "é" * 50, headers={"X-Seat-Token": "a"})
    assert response.status_code == 404
    assert response.json()["error"] == (
        f"no live game {'é' * 40!r} (finished games are in /api/saved)"
    )
