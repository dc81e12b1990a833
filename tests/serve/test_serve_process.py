"""``flockgym serve`` as its own process on 127.0.0.1: killed with SIGKILL it loses
no answered move; its connections are capped and timed; a body is cut off at its
cap while it arrives, and a slow one after its deadline; without the ``play``
extra it names the extra."""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

HUMAN = {"kind": "human"}
HEURISTIC = {"kind": "bot", "bot": "heuristic"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def server(data: Path, *extra: str) -> Iterator[tuple[subprocess.Popen, str]]:
    """A ``flockgym serve`` process on a free loopback port, stopped (by its pid) after."""
    port = free_port()
    command = [
        sys.executable, "-m", "flockgym.cli", "serve", "--port", str(port),
        "--data", str(data), *extra,
    ]  # fmt: skip
    process = subprocess.Popen(
        command, cwd=data.parent, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/api/games", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the server did not start: {process.stdout.read()}")
            time.sleep(0.2)
        yield process, url
    finally:
        if process.poll() is None:
            process.terminate()
        process.wait(20)


def test_sigkill_loses_no_answered_move(tmp_path: Path):
    data = tmp_path / "games"
    answered: dict[str, dict] = {}
    with server(data) as (process, url), httpx.Client(base_url=url, timeout=30) as http:
        for seed, seats in [(1, [HUMAN, HEURISTIC]), (2, [HUMAN, HUMAN]), (3, [HUMAN, HEURISTIC])]:
            body = {"env": "astrobirdz_v0", "options": {"num_players": 2}, "seed": seed}
            created = http.post("/api/games", json={**body, "seats": seats}).json()
            tokens = {s["agent"]: s["token"] for s in created["seats"] if "token" in s}
            gid = created["game_id"]
            for _ in range(4 + seed):
                any_token = next(iter(tokens.values()))
                state = http.get(f"/api/games/{gid}", headers={"X-Seat-Token": any_token}).json()
                n = state["move_number"]
                if state["to_act_kind"] == "bot":
                    response = http.post(
                        f"/api/games/{gid}/bot",
                        json={"move_number": n},
                        headers={"X-Seat-Token": any_token},
                    )
                else:
                    token = tokens[state["to_act"]]
                    mine = http.get(f"/api/games/{gid}", headers={"X-Seat-Token": token}).json()
                    response = http.post(
                        f"/api/games/{gid}/moves",
                        json={"move_number": n, "action": mine["legal"][-1]["id"]},
                        headers={"X-Seat-Token": token},
                    )
                assert response.status_code == 200, response.text
            final = response.json()
            answered[gid] = {"tokens": tokens, "moves": final["move_number"], "log": final["log"]}
        process.send_signal(signal.SIGKILL)
        process.wait(20)
    assert process.returncode == -signal.SIGKILL
    with server(data) as (_, url), httpx.Client(base_url=url, timeout=30) as http:
        listed = {g["game_id"]: g["move_number"] for g in http.get("/api/games").json()["games"]}
        assert listed == {gid: game["moves"] for gid, game in answered.items()}
        for gid, game in answered.items():
            for token in game["tokens"].values():
                state = http.get(f"/api/games/{gid}", headers={"X-Seat-Token": token}).json()
                assert state["move_number"] == game["moves"] and state["status"] == "running"
            token = next(iter(game["tokens"].values()))
            state = http.get(f"/api/games/{gid}", headers={"X-Seat-Token": token}).json()
            seen = http.get(
                f"/api/games/{gid}", headers={"X-Seat-Token": game["tokens"][state["agent"]]}
            ).json()
            assert [e["n"] for e in seen["log"]] == list(range(game["moves"]))
            if state["to_act_kind"] == "bot":
                more = http.post(
                    f"/api/games/{gid}/bot",
                    json={"move_number": game["moves"]},
                    headers={"X-Seat-Token": token},
                )
            else:
                token = game["tokens"][state["to_act"]]
                mine = http.get(f"/api/games/{gid}", headers={"X-Seat-Token": token}).json()
                more = http.post(
                    f"/api/games/{gid}/moves",
                    json={"move_number": game["moves"], "action": mine["legal"][0]["id"]},
                    headers={"X-Seat-Token": token},
                )
            assert more.status_code == 200 and more.json()["move_number"] == game["moves"] + 1


def read_all(sock: socket.socket, seconds: float = 5.0) -> bytes:
    """What the server sends until it closes the connection (or ``seconds`` pass)."""
    sock.settimeout(seconds)
    data = b""
    with contextlib.suppress(OSError):
        while chunk := sock.recv(65536):
            data += chunk
    return data


def closed_by_server(sock: socket.socket, seconds: float) -> bool:
    sock.settimeout(seconds)
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False
    except OSError:
        return True


def test_connections_are_capped_and_idle_ones_timed_out(tmp_path: Path):
    data = tmp_path / "games"
    with server(data, "--max-connections", "3", "--request-seconds", "1") as (_, url):
        port = int(url.rsplit(":", 1)[1])
        idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]
        time.sleep(0.2)
        with socket.create_connection(("127.0.0.1", port)) as extra:
            refused = read_all(extra)
        assert refused.startswith(b"HTTP/1.1 503 ")
        assert refused.endswith(b'{"error": "too many open connections; try again shortly"}')
        # a slow client trickling its request's head is cut off like an idle one
        slow = idle[0]
        slow.sendall(b"GET /api/games HTTP/1.1\r\n")
        start = time.monotonic()
        for _ in range(10):
            time.sleep(0.2)
            with contextlib.suppress(OSError):
                slow.sendall(b"X-Slow: 1\r\n")
        assert all(closed_by_server(s, 3) for s in idle)
        assert time.monotonic() - start < 4
        for s in idle:
            s.close()
        assert httpx.get(f"{url}/api/games", timeout=10).status_code == 200


def head_answer(port: int, size: int, complete: bool = True, pieces: int = 1) -> bytes:
    """The answer to a request whose head is ``size`` bytes, sent in ``pieces``."""
    start = b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: "
    end = b"\r\nConnection: close\r\n\r\n" if complete else b""
    head = start + b"a" * (size - len(start) - len(end)) + end
    assert len(head) == size
    with socket.create_connection(("127.0.0.1", port)) as sock:
        step = -(-size // pieces)
        for offset in range(0, size, step):
            with contextlib.suppress(OSError):
                sock.sendall(head[offset : offset + step])
            time.sleep(0.05 if pieces > 1 else 0)
        return read_all(sock)


def test_a_request_head_over_16_kib_is_refused(tmp_path: Path):
    """Whole or in pieces, a head over 16,384 bytes is answered 431 (a whole head of
    up to some 64 KB sent at once used to pass); one of 16,384 is served."""
    with server(tmp_path / "games") as (_, url):
        port = int(url.rsplit(":", 1)[1])
        for size, complete, pieces in [(20_000, False, 1), (16_385, True, 1), (60_000, True, 1),
                                       (200_000, True, 1), (30_000, True, 7)]:  # fmt: skip
            answer = head_answer(port, size, complete, pieces)
            assert answer.startswith(b"HTTP/1.1 431 "), (size, answer[:80])
            assert answer.endswith(b'"request head larger than 16384 bytes; at most 16384"}')
        for pieces in (1, 5):
            assert head_answer(port, 16_384, pieces=pieces).startswith(b"HTTP/1.1 200 ")
        # a large head right behind a small request, in one write (pipelining)
        small = b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        large = b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 20_000
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(small + large + b"\r\n\r\n")
            answer = read_all(sock)
        assert answer.startswith(b"HTTP/1.1 200 ") and b"HTTP/1.1 431 " in answer, answer[-200:]


def test_a_streamed_body_is_cut_off_at_the_cap(tmp_path: Path):
    with server(tmp_path / "games") as (_, url):
        port = int(url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(
                b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            )
            chunk = b"2000\r\n" + b" " * 0x2000 + b"\r\n"
            sent = 0
            sock.settimeout(5)
            with contextlib.suppress(OSError):
                while sent < 50_000_000:
                    sock.sendall(chunk)
                    sent += 0x2000
            answer = read_all(sock)
        assert answer.startswith(b"HTTP/1.1 413 ")
        assert b"request body of more than 64000 bytes; at most 64000" in answer
        assert sent < 8_000_000, sent  # the server stopped reading: only socket buffers filled


def test_a_slow_body_is_cut_off_after_its_deadline(tmp_path: Path):
    with server(tmp_path / "games", "--request-seconds", "1") as (_, url):
        port = int(url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(
                b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"env": '
            )
            start = time.monotonic()
            answer = read_all(sock, 10)
        assert answer.startswith(b"HTTP/1.1 408 ")
        assert b"the request body did not arrive within 1 s" in answer
        assert time.monotonic() - start < 5


@pytest.mark.parametrize("module", ["starlette", "uvicorn"])
def test_serve_without_the_play_extra_names_it(tmp_path: Path, module: str):
    code = (
        f"import sys; sys.modules[{module!r}] = None\n"
        "from flockgym.cli import main\n"
        "sys.exit(main(['serve', '--port', '1', '--data', 'games']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr == (
        f"flockgym serve: error: flockgym serve needs the 'play' extra, and {module} is not "
        f"installed; install it from the flockgym clone with: "
        f"pip install -c constraints.txt '.[play]'\n"
    )
    assert not (tmp_path / "games").exists()


@pytest.mark.parametrize("module", ["flockgym.play.app", "flockgym.play.server"])
def test_importing_the_server_without_starlette_names_the_play_extra(module: str):
    code = (
        "import sys; sys.modules['starlette'] = None\n"
        "from flockgym.common.errors import MissingExtraError\n"
        "try:\n"
        f"    import {module}\n"
        "except MissingExtraError as err:\n"
        "    print(err.extra, err.module, err, sep='|')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout == (
        "play|starlette|flockgym's play server needs the 'play' extra, and starlette is not "
        "installed; install it from the flockgym clone with: "
        "pip install -c constraints.txt '.[play]'\n"
    )
