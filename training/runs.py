"""Run folders: self-describing, resumable.

::

    runs/<env>-<config>-<UTC time>/
      config.yaml        the resolved config (every default filled in)
      run.json           seed, command, package versions, git commit, speed
      state.json         what --resume needs: the step, the newest checkpoint,
                         the opponent pool's snapshots, the random generators
      checkpoints/       step_<N>.zip, resumable (learner zip + flockgym.json)
      snapshots/         step_<N>.zip, frozen learners in the opponent pool
      final.zip          the policy at the end of training
      progress.jsonl     evaluation and self-play results over steps
      tb/                TensorBoard logs
      tournament/        the final tournament (JSON + Markdown), if configured
      learning_curves.png
"""

from __future__ import annotations

import base64
import importlib.metadata
import json
import os
import platform
import random
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import torch

PACKAGES = (
    "flockgym",
    "torch",
    "stable-baselines3",
    "sb3-contrib",
    "gymnasium",
    "pettingzoo",
    "numpy",
    "pydantic",
)


class RunError(ValueError):
    """A run folder cannot be created or resumed."""


@dataclass
class RunState:
    """What a resumed run continues from (``state.json``)."""

    step: int
    checkpoint: str
    snapshots: list[str] = field(default_factory=list)
    rng: dict[str, Any] = field(default_factory=dict)
    finished: bool = False


def new_run_dir(parent: str, name: str | None, env_id: str, config_stem: str) -> Path:
    """A fresh run folder; an explicit ``name`` that already exists is an error."""
    if name is None:
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        name = f"{env_id}-{config_stem}-{stamp}"
        run_dir = Path(parent) / name
        suffix = 2
        while run_dir.exists():
            run_dir = Path(parent) / f"{name}-{suffix}"
            suffix += 1
    else:
        run_dir = Path(parent) / name
        if run_dir.exists():
            raise RunError(
                f"run folder {run_dir} exists; resume it with --resume {run_dir}, "
                "or choose another output.name"
            )
    for sub in ("checkpoints", "snapshots"):
        (run_dir / sub).mkdir(parents=True)
    return run_dir


def write_run_info(run_dir: Path, seed: int, resumed: bool) -> None:
    """``run.json``: who made this run and with what (appends each resume)."""
    path = run_dir / "run.json"
    info = json.loads(path.read_text()) if path.exists() else {}
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    if not info:
        info = {
            "seed": seed,
            "started": now,
            "command": command_line(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpu_count": os.cpu_count(),
            "versions": package_versions(),
            "git_commit": git_commit(),
        }
    if resumed:
        info.setdefault("resumed", []).append(
            {"at": now, "command": command_line(), "git_commit": git_commit()}
        )
    write_json(path, info)


def update_run_info(run_dir: Path, **values: Any) -> None:
    path = run_dir / "run.json"
    info = json.loads(path.read_text())
    info.update(values)
    write_json(path, info)


def command_line() -> str:
    return " ".join([Path(sys.argv[0]).name, *sys.argv[1:]])


def package_versions() -> dict[str, str]:
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def _git(*args: str) -> str:
    """Output of a git command run in the source tree (raises if git fails)."""
    source = Path(__file__).resolve().parent
    done = subprocess.run(
        ["git", *args], cwd=source, capture_output=True, text=True, check=True, timeout=10
    )
    return done.stdout.strip()


@lru_cache(maxsize=1)
def git_commit() -> str:
    """The source tree's commit, ``+dirty`` if tracked files differ from it (read
    once per process: a run is credited to the code it started with)."""
    try:
        commit = _git("rev-parse", "HEAD")
        dirty = _git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return commit + ("+dirty" if dirty else "")


# ---- state for --resume ---------------------------------------------------------------


def read_state(run_dir: Path) -> RunState:
    """The state a run resumes from; :class:`RunError` if it is unreadable or
    names a checkpoint or snapshot that is not in the folder."""
    path = run_dir / "state.json"
    if not path.is_file():
        raise RunError(
            f"{run_dir} has no state.json: not a run folder, or the run stopped "
            "before its first checkpoint"
        )
    try:
        state = RunState(**json.loads(path.read_text()))
    except (json.JSONDecodeError, TypeError) as err:
        raise RunError(f"{path} is not a run state ({err}); cannot resume") from None
    missing = [f for f in (state.checkpoint, *state.snapshots) if not (run_dir / f).is_file()]
    if missing:
        raise RunError(f"{path} names files missing from {run_dir}: {', '.join(missing)}")
    return state


def write_state(run_dir: Path, state: RunState) -> None:
    write_json(run_dir / "state.json", asdict(state))


def write_json(path: Path, data: Any) -> None:
    """Write atomically: a crash mid-write leaves the previous file intact."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    tmp.replace(path)


def rng_states() -> dict[str, Any]:
    """The global generators the learner draws from (torch: action sampling;
    numpy: minibatch shuffling; Python: for completeness), as compact JSON."""
    version, words, gauss = random.getstate()
    kind, keys, pos, has_gauss, cached = np.random.get_state()
    return {
        "python": [version, b64(np.array(words, dtype=np.uint64)), gauss],
        "numpy": [kind, b64(keys), int(pos), int(has_gauss), float(cached)],
        "torch": b64(torch.get_rng_state().numpy()),
    }


def restore_rng_states(states: dict[str, Any]) -> None:
    version, words, gauss = states["python"]
    random.setstate((version, tuple(int(w) for w in unb64(words, np.uint64)), gauss))
    kind, keys, pos, has_gauss, cached = states["numpy"]
    np.random.set_state((kind, unb64(keys, np.uint32), pos, has_gauss, cached))
    torch.set_rng_state(torch.from_numpy(unb64(states["torch"], np.uint8)))


def b64(array: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(array).tobytes()).decode()


def unb64(text: str, dtype: Any) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype=dtype).copy()


# ---- progress records -----------------------------------------------------------------


def append_progress(run_dir: Path, record: dict[str, Any]) -> None:
    with (run_dir / "progress.jsonl").open("a") as out:
        out.write(json.dumps(record) + "\n")


def read_progress(run_dir: Path) -> list[dict[str, Any]]:
    path = run_dir / "progress.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def truncate_progress(run_dir: Path, step: int) -> None:
    """Drop records after ``step``: a resumed run writes them again."""
    kept = [r for r in read_progress(run_dir) if r["step"] <= step]
    path = run_dir / "progress.jsonl"
    if path.exists():
        path.write_text("".join(json.dumps(r) + "\n" for r in kept))
