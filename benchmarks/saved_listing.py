"""The server's saved games: listing them and stepping through one, cached against
reading everything on every request.

Fills a temporary data folder with ``--records`` finished records (whole games of
4-player Skybirds with random legal moves, about 190 KB each as the server writes
them), then, in one run:

- the listing as the server made it before its index (the peer): every record
  read and checked on every request;
- ``GET /api/saved`` through the app: the first request (reads every record once)
  and the next ones (each a look at the folder, records read once per version);
- stepping through one game frame by frame (what ``GET /api/saved/{name}/frames/{k}``
  computes for k = 0..N, every seat's view as JSON, without the HTTP layer)
  against the peer: a fresh replay up to k for every frame.

The listing's peer runs in-process while the app's listing goes through HTTP
(Starlette's test client), which only counts against the index.

    python benchmarks/saved_listing.py --json benchmarks/results/saved_listing.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")

from starlette.testclient import TestClient  # noqa: E402

from flockgym.envs import make  # noqa: E402
from flockgym.envs.core.rng import derive_seed  # noqa: E402
from flockgym.play import ServerConfig, create_app  # noqa: E402
from flockgym.play.records import (  # noqa: E402
    FINISHED,
    RECORD_NAME,
    GameLog,
    game_options,
    load_record,
    replay_record,
    write_json_atomic,
)

OPTIONS = {"num_players": 4}


def played_record(
    seed: int, env_id: str = "skybirds_v0", options: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A finished record of a game of random legal moves, as the server saves one
    (by default a 4-player Skybirds game; the record fuzzer's tests play others)."""
    env = make(env_id, illegal_action="raise", **(OPTIONS if options is None else options))
    env.reset(seed=seed)
    raw = env.unwrapped
    seats = [{"agent": "player_0", "kind": "human", "name": "you"}]
    for index, agent in enumerate(raw.possible_agents[1:], start=1):
        seats.append({"agent": agent, "kind": "bot", "name": "random", "bot": {"bot": "random"},
                      "bot_seed": derive_seed(seed, index)})  # fmt: skip
    log = GameLog(env_id, game_options(raw), seed, seats)
    rng = random.Random(seed)
    while not (raw.game.is_over() or raw.is_truncated()):
        agent = raw.agent_selection
        action = rng.choice(raw.legal_actions(agent))
        text = raw.action_to_string(agent, action)
        env.step(action)
        log.add_move(agent, action, text)
    status = "over" if raw.game.is_over() else "truncated"
    log.finish(status, dict(raw.scores), list(raw.winners) if status == "over" else [])
    return log.data


def fill(folder: Path, count: int, distinct: int = 5) -> list[str]:
    """``count`` record files (``distinct`` games, each saved under several names)."""
    games = [played_record(seed) for seed in range(distinct)]
    names = []
    for index in range(count):
        name = f"20260101-{index:06d}-skybirds_v0-{index:08x}.json"
        write_json_atomic(folder / name, games[index % distinct], indent=1)
        names.append(name)
    return names


def listing_by_reading_everything(folder: Path) -> list[dict[str, Any]]:
    """The peer: the listing as the server made it before its index."""
    games = []
    names = sorted((p.name for p in folder.glob("*.json")), reverse=True)
    for name in [n for n in names if RECORD_NAME.fullmatch(n)][:200]:
        record = load_record(folder / name)
        if record["status"] in FINISHED:
            games.append({"name": name, "moves": len(record["moves"])})
    return games


def frame_by_replaying(record: dict[str, Any], moves: int) -> str:
    """The peer: a frame as the server made it before, replaying from the start."""
    raw = replay_record(record, upto=moves).unwrapped
    return json.dumps({"views": {a: raw.view(a) for a in raw.possible_agents}})


def timed(run: Any, repeat: int = 1) -> float:
    """Seconds per call of ``run``."""
    start = time.perf_counter()
    for _ in range(repeat):
        run()
    return (time.perf_counter() - start) / repeat


def measure(records: int, repeat: int, frames: int) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="saved-listing-"))
    try:
        names = fill(folder, records)
        size = sum((folder / n).stat().st_size for n in names) / len(names)
        peer = timed(lambda: listing_by_reading_everything(folder), repeat)
        app = create_app(ServerConfig(data_dir=folder, shipped=None, allowed_hosts=["testserver"]))
        with TestClient(app) as client:

            def listing() -> None:
                response = client.get("/api/saved")
                assert response.status_code == 200 and len(response.json()["games"]) == records

            cold = timed(listing)
            warm = timed(listing, repeat)
            record = load_record(folder / names[0])
            steps = min(frames, len(record["moves"]))
            saved = app.state.saved
            frames_peer = timed(lambda: [frame_by_replaying(record, k) for k in range(steps + 1)])
            frames_cached = timed(
                lambda: [json.dumps(saved.frame(names[0], k)) for k in range(steps + 1)]
            )
        return {
            "records": records,
            "record_kb": round(size / 1000, 1),
            "cores": os.cpu_count(),
            "listing": {
                "peer_seconds": peer,
                "first_seconds": cold,
                "next_seconds": warm,
                "speedup": peer / warm,
            },
            "frames": {
                "frames": steps + 1,
                "peer_seconds": frames_peer,
                "cached_seconds": frames_cached,
                "speedup": frames_peer / frames_cached,
            },
        }
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def summary(run: dict[str, Any]) -> str:
    listing, frames = run["listing"], run["frames"]
    return (
        f"{run['records']} saved games of {run['record_kb']:.0f} KB on {run['cores']} cores: "
        f"listing by reading every record {listing['peer_seconds']:.2f} s a request; "
        f"GET /api/saved first {listing['first_seconds']:.2f} s, then "
        f"{1000 * listing['next_seconds']:.1f} ms ({listing['speedup']:.0f}x); stepping "
        f"through {frames['frames']} frames {frames['cached_seconds']:.2f} s against "
        f"{frames['peer_seconds']:.2f} s replaying each from the start "
        f"({frames['speedup']:.0f}x)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5, help="requests timed (default 5)")
    parser.add_argument("--frames", type=int, default=300, help="frames stepped (default 300)")
    parser.add_argument("--json", type=Path, help="save the run here")
    args = parser.parse_args(argv)
    run = measure(args.records, args.repeat, args.frames)
    print(summary(run))
    if args.json:
        args.json.write_text(json.dumps(run, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
