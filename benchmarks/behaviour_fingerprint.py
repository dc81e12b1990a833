"""Fingerprints of what the package does, taken through the command line only, so
that a change that moves code (a new package layout, an engine swapped for an
identical one) can show it changed nothing users see:

- a duplicate tournament in every game (heuristic, random and, in Asrus, a shipped
  checkpoint): the SHA-256 of ``tournament.json`` without its provenance (commit,
  command line, versions and seconds differ from run to run by design);
- a short training run (the quick start's config, shortened): the SHA-256 of the
  checkpoint's weights and optimizer state, tensor by tensor, and of
  its generators;
- a saved game's replay: the SHA-256 of ``flockgym replay --show tables``'s output.

    python benchmarks/behaviour_fingerprint.py --json FILE --label before  # the old tree
    python benchmarks/behaviour_fingerprint.py --json FILE --label after --compare before

``--label`` saves the fingerprints under that name (with the commit) in FILE;
``--compare LABEL`` exits 1 and names each fingerprint that differs from LABEL's.
The saved pair of the package move is ``benchmarks/results/behaviour_fingerprint.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from saved_listing import played_record  # benchmarks/: the script's own folder

TOURNAMENTS = {
    "asrus_v0": ["heuristic,random,asrus/ppo_5p", "num_players=5"],
    "astrobirdz_v0": ["heuristic,random", "num_players=3"],
    "skybirds_v0": ["heuristic,random", "num_players=4"],
    "arena_v0": ["heuristic,random", "num_players=2"],
}
TRAINING = [
    "total_steps=4096",
    "n_envs=64",
    "eval.every=4096",
    "eval.games=4",
    "eval.tournament_games=2",
    "output.checkpoint_every=4096",
]


def flockgym(*args: str, cwd: Path) -> str:
    """The command line's output (its executable beside this Python's)."""
    command = [str(Path(sys.executable).with_name("flockgym")), *args]
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def tournament_fingerprint(env_id: str, players: str, option: str, folder: Path) -> str:
    out = folder / env_id
    flockgym("eval", "--env", env_id, "--players", players, "--games", "6", "--seed", "11",
             "--option", option, "--out", str(out), "--no-progress", cwd=folder)  # fmt: skip
    result = json.loads((out / "tournament.json").read_text())
    result.pop("provenance", None)
    return digest(json.dumps(result, sort_keys=True).encode())


def tensors_digest(blob: bytes) -> str:
    """A digest of a torch state (weights or optimizer) by its tensors' bytes and
    its other values, independent of how the file was zipped."""
    import torch

    state = torch.load(io.BytesIO(blob), weights_only=True, map_location="cpu")
    hasher = hashlib.sha256()

    def feed(value: Any, key: str) -> None:
        if isinstance(value, torch.Tensor):
            hasher.update(f"{key}:{value.dtype}:{tuple(value.shape)}".encode())
            hasher.update(value.detach().contiguous().numpy().tobytes())
        elif isinstance(value, dict):
            for name in sorted(value, key=str):
                feed(value[name], f"{key}/{name}")
        elif isinstance(value, (list, tuple)):
            for index, item in enumerate(value):
                feed(item, f"{key}/{index}")
        else:
            hasher.update(f"{key}={value!r}".encode())

    feed(state, "")
    return hasher.hexdigest()


def training_fingerprints(folder: Path) -> dict[str, str]:
    config = Path(__file__).resolve().parent.parent / "configs" / "quickstart.yaml"
    overrides = [item for pair in TRAINING for item in ("--set", pair)]
    flockgym("train", str(config), *overrides, "--set", f"output.dir={folder / 'runs'}",
             cwd=folder)  # fmt: skip
    checkpoint = next((folder / "runs").glob("*/checkpoints/step_*.zip"))
    with zipfile.ZipFile(checkpoint) as archive:
        return {
            "training weights": tensors_digest(archive.read("policy.pth")),
            "training optimizer": tensors_digest(archive.read("optimizer.pth")),
            "training generators": digest(archive.read("generators.json")),
        }


def replay_fingerprint(folder: Path) -> str:
    record = folder / "saved.json"
    saved = played_record(5)
    saved["started"] = saved["updated"] = "2026-01-01T00:00:00Z"  # the replay prints them
    record.write_text(json.dumps(saved))
    return digest(flockgym("replay", record.name, "--show", "tables", cwd=folder).encode())


def fingerprints() -> dict[str, str]:
    folder = Path(tempfile.mkdtemp(prefix="fingerprint-"))
    try:
        found = {
            f"tournament {env_id}": tournament_fingerprint(env_id, players, option, folder)
            for env_id, (players, option) in TOURNAMENTS.items()
        }
        found.update(training_fingerprints(folder))
        found["replay skybirds_v0"] = replay_fingerprint(folder)
        return found
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, required=True, help="the saved fingerprints")
    parser.add_argument("--label", required=True, help="save this run under LABEL")
    parser.add_argument("--compare", metavar="LABEL", help="compare with LABEL's fingerprints")
    args = parser.parse_args()
    found = fingerprints()
    for name, value in found.items():
        print(f"{name:24} {value}")
    runs = json.loads(args.json.read_text()) if args.json.exists() else {}
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True)
    runs[args.label] = {"commit": commit.stdout.strip(), "fingerprints": found}
    args.json.write_text(json.dumps(runs, indent=1) + "\n")
    if args.compare:
        saved = runs[args.compare]["fingerprints"]
        differ = [name for name in found if saved.get(name) != found[name]]
        for name in differ:
            print(f"DIFFERS: {name}")
        print(f"{len(found) - len(differ)} of {len(found)} fingerprints identical")
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
