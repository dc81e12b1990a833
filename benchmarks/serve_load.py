"""Load test of ``flockgym serve``: concurrent games played through the HTTP API.

Starts ``flockgym serve`` as its own process on a free loopback port, then
plays ``--games`` games at once from this process (asyncio + httpx): every
seat is a person's seat played by a random client bot, so every move is two
requests (the acting seat's state, then its move). With ``--server-bots`` the
other seats are the server's heuristic bots instead, played in one request
(``until: "human"``). It prints moves per second, requests per second and
the latency percentiles of each kind of request, the errors, next to the
same games played in-process through the AEC loop in the same run (the peer:
what the HTTP layer costs). Every move the server answers is in its game's
journal on disk first, so the figures include that write. Traffic goes to
127.0.0.1 only; every request has a timeout and the whole run a deadline.
``--moves N`` stops each game after N moves (then leaves it): a short run.

    python benchmarks/serve_load.py                       # 50 games of astrobirdz_v0, 4 players
    python benchmarks/serve_load.py --games 200 --moves 30   # 200 games at once, a short run
    python benchmarks/serve_load.py --env asrus_v0 --players 5 --games 50
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import httpx

from flockgym.envs import make

REQUEST_TIMEOUT = 60.0
RUN_DEADLINE = 900.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(port: int, data: Path, max_games: int) -> subprocess.Popen:
    """The server, its caps raised for this run: every game comes from one client."""
    command = [
        sys.executable, "-m", "flockgym.cli", "serve", "--port", str(port),
        "--data", str(data), "--max-games", str(max_games),
        "--games-per-client", str(max_games), "--games-per-minute", str(max_games),
        "--max-connections", str(max_games + 50),
    ]  # fmt: skip
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/envs", timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            time.sleep(0.2)
    server.kill()
    raise SystemExit("the server did not start within 60 s")


class Recorder:
    """Latency of every request by kind, and the moves applied."""

    def __init__(self) -> None:
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.moves = 0
        self.errors: list[str] = []

    async def call(self, kind: str, request) -> dict:
        start = time.perf_counter()
        response = await request
        self.latency[kind].append(time.perf_counter() - start)
        if response.status_code >= 400:
            self.errors.append(f"{kind} {response.status_code}: {response.text[:200]}")
            raise RuntimeError(self.errors[-1])
        return response.json()


async def play_one(
    client: httpx.AsyncClient,
    rec: Recorder,
    env_id: str,
    players: int,
    seed: int,
    bots: bool,
    max_moves: int | None = None,
) -> None:
    rng = random.Random(seed)
    seats = [{"kind": "human"}] + [
        {"kind": "bot", "bot": "heuristic"} if bots else {"kind": "human"}
    ] * (players - 1)
    body = {"env": env_id, "options": {"num_players": players}, "seed": seed, "seats": seats}
    created = await rec.call("create", client.post("/api/games", json=body))
    game = created["game_id"]
    tokens = {s["agent"]: s["token"] for s in created["seats"] if "token" in s}
    seen = dict.fromkeys(tokens, 0)

    async def state_of(agent: str) -> dict:
        request = client.get(
            f"/api/games/{game}",
            params={"since": seen[agent]},
            headers={"X-Seat-Token": tokens[agent]},
        )
        state = await rec.call("state", request)
        seen[agent] = state["move_number"]
        return state

    state = await state_of("player_0")
    while state["status"] == "running":
        if max_moves is not None and state["move_number"] >= max_moves:
            request = client.delete(
                f"/api/games/{game}", headers={"X-Seat-Token": tokens["player_0"]}
            )
            await rec.call("leave", request)
            return
        before = state["move_number"]
        if state["to_act_kind"] == "bot":
            request = client.post(
                f"/api/games/{game}/bot",
                params={"since": before},
                json={"move_number": before, "until": "human"},
                headers={"X-Seat-Token": tokens[state["agent"]]},
            )
            state = await rec.call("bot", request)
        else:
            actor = state["to_act"]
            if state["agent"] != actor:
                state = await state_of(actor)
            move = rng.choice(state["legal"])
            request = client.post(
                f"/api/games/{game}/moves",
                params={"since": before},
                json={"move_number": before, "action": move["id"]},
                headers={"X-Seat-Token": tokens[actor]},
            )
            state = await rec.call("move", request)
        seen[state["agent"]] = state["move_number"]
        rec.moves += state["move_number"] - before


async def play_all(
    port: int, env_id: str, players: int, games: int, bots: bool, max_moves: int | None = None
) -> tuple:
    rec = Recorder()
    # Idle connections are dropped before the server's 5 s keep-alive ends them, so a
    # request never races the server closing its connection.
    limits = httpx.Limits(
        max_connections=games, max_keepalive_connections=games, keepalive_expiry=3.0
    )
    async with httpx.AsyncClient(
        base_url=f"http://127.0.0.1:{port}", timeout=REQUEST_TIMEOUT, limits=limits
    ) as client:
        start = time.perf_counter()
        tasks = [
            play_one(client, rec, env_id, players, 1000 + g, bots, max_moves) for g in range(games)
        ]
        results = await asyncio.wait_for(
            asyncio.gather(*tasks, return_exceptions=True), RUN_DEADLINE
        )
        seconds = time.perf_counter() - start
    failed = [r for r in results if isinstance(r, Exception)]
    return rec, seconds, failed


def in_process_moves_per_second(env_id: str, players: int, games: int) -> float:
    """The same random games through the AEC loop with nothing in between (the peer)."""
    env = make(env_id, num_players=players)
    raw = env.unwrapped
    moves, start = 0, time.perf_counter()
    for g in range(games):
        rng = random.Random(1000 + g)
        env.reset(seed=1000 + g)
        while not (raw.game.is_over() or raw.is_truncated()):
            agent = raw.agent_selection
            env.step(rng.choice(raw.legal_actions(agent)))
            raw.view(agent)  # the server builds each acting seat's view too
            moves += 1
    return moves / (time.perf_counter() - start)


def cpu_seconds(pid: int | None = None) -> float:
    """User + system CPU seconds of a process (this one by default), from /proc."""
    if pid is None:
        usage = os.times()
        return usage.user + usage.system
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="astrobirdz_v0")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=50, help="games played at once (default 50)")
    parser.add_argument(
        "--server-bots", action="store_true", help="other seats: the server's heuristic bots"
    )
    parser.add_argument(
        "--moves", type=int, default=None, help="leave each game after this many moves"
    )
    args = parser.parse_args(argv)
    if not 1 <= args.games <= 500:
        parser.error("--games must be 1..500")
    port = free_port()
    with tempfile.TemporaryDirectory() as data:
        server = start_server(port, Path(data), max_games=args.games + 10)
        try:
            rec, seconds, failed = asyncio.run(
                play_all(port, args.env, args.players, args.games, args.server_bots, args.moves)
            )
            server_cpu = cpu_seconds(server.pid)
        finally:
            server.terminate()
            server.wait(20)
        saved = len(list(Path(data).glob("*.json")))
        journals = len(list(Path(data).glob("*.jsonl")))
    client_cpu = cpu_seconds()
    peer = in_process_moves_per_second(args.env, args.players, min(args.games, 20))
    requests = sum(len(v) for v in rec.latency.values())
    every = [x for v in rec.latency.values() for x in v]
    seats = (
        "client bots in every seat" if not args.server_bots else "1 client seat + server heuristics"
    )
    print(
        f"flockgym serve load test: {args.games} concurrent games of {args.env} "
        f"({args.players} players, {seats}) on 127.0.0.1, {os.cpu_count()} cores"
    )
    short = "" if args.moves is None else f" (each left after {args.moves} moves)"
    print(
        f"  games played without error {args.games - len(failed)}/{args.games}{short}, "
        f"saved records {saved}, journals left {journals}"
    )
    print(f"  moves {rec.moves} in {seconds:.1f} s: {rec.moves / seconds:,.0f} moves/s")
    print(f"  requests {requests}: {requests / seconds:,.0f} requests/s")
    print(
        f"  CPU: server {server_cpu:.1f} s ({server_cpu / requests * 1000:.1f} ms a request), "
        f"load-test clients {client_cpu:.1f} s, over {seconds:.1f} s of wall time"
    )
    print("  latency (ms)      count     p50     p95     p99     max")
    for kind, values in [*sorted(rec.latency.items()), ("all", every)]:
        ms = [v * 1000 for v in values]
        print(
            f"    {kind:<12} {len(ms):>9} {percentile(ms, 50):>7.1f} {percentile(ms, 95):>7.1f} "
            f"{percentile(ms, 99):>7.1f} {max(ms):>7.1f}"
        )
    print(
        f"  peer: the same games in-process through the AEC loop: {peer:,.0f} moves/s "
        f"(HTTP play runs at {rec.moves / seconds / peer:.1%} of it)"
    )
    print(f"  errors: {len(rec.errors)} of {requests} requests answered with an error status")
    for error in rec.errors[:5]:
        print(f"  error: {error}")
    unanswered = [f for f in failed if not str(f).startswith(tuple(rec.latency))]
    if unanswered:
        print(f"  games stopped by a client-side error: {len(unanswered)}")
        for error in unanswered[:5]:
            print(f"  client error: {type(error).__name__}: {str(error)[:200]}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
