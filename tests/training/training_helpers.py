"""Helpers of the training tests: tiny configs that train in seconds, and the
`env_id` fixture (re-exported by conftest.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from flockgym.envs import list_envs, make_bot
from flockgym.training.config import TrainConfig, validate_config


def heuristic_available(env_id: str) -> bool:
    """The heuristic bots arrive env by env; tests use them where they exist."""
    try:
        make_bot(env_id, "heuristic", 0)
    except (ImportError, AttributeError):
        return False
    return True


def baseline_bots(env_id: str) -> list[str]:
    return ["random", "heuristic"] if heuristic_available(env_id) else ["random"]


RANDOM_PLAY_TRUNCATES = {"skybirds_v0"}
"""Envs whose random games run into the game's own limit instead of ending: random
Skybirds players use up the tokens they would need and almost never take the
Armistice, so their Great Wars run to ``max_campaigns`` (a truncation: no winner)."""

SHORT_GAMES: dict[str, dict[str, Any]] = {
    "skybirds_v0": {"max_campaigns": 3},
    "arena_v0": {"max_rounds": 4},  # the default 40 rounds are hundreds of moves
}
"""Options that keep a training test's episodes short where random play runs long
(a random 4-player Skybirds Great War of 30 Campaigns is about 2,800 actions)."""


def winning_bot(env_id: str) -> str:
    """A bot whose games end with a winner: the heuristic where random play truncates."""
    return "heuristic" if env_id in RANDOM_PLAY_TRUNCATES else "random"


def short_options(env_id: str) -> dict[str, Any]:
    """Env options for episodes that end within a few thousand training steps."""
    return dict(SHORT_GAMES.get(env_id, {}))


def tiny_raw_config(env_id: str, out: Path, **changes: Any) -> dict[str, Any]:
    """A config dict for a run of a few thousand steps on 2 envs."""
    raw: dict[str, Any] = {
        "env": {"id": env_id, "options": {}},
        "algo": {
            "name": "maskable_ppo",
            "n_steps": 128,
            "batch_size": 128,
            "n_epochs": 2,
            "net_arch": [32, 32],
        },
        "opponents": {"pool": baseline_bots(env_id)},
        "n_envs": 2,
        "total_steps": 1024,
        "seed": 3,
        "progress_bar": False,
        "eval": {"every": 0, "games": 2, "opponents": ["random"]},
        "output": {"dir": str(out), "name": "run", "checkpoint_every": 512},
    }
    for key, value in changes.items():
        section, _, field = key.partition("__")
        if field:
            raw[section][field] = value
        else:
            raw[key] = value
    return raw


def tiny_config(env_id: str, out: Path, **changes: Any) -> TrainConfig:
    return validate_config(tiny_raw_config(env_id, out, **changes))


@pytest.fixture(params=list_envs())
def env_id(request: pytest.FixtureRequest) -> str:
    """Every registered env, one at a time."""
    return request.param


def writable(folder: Path) -> bool:
    try:
        (folder / ".probe").touch()
    except OSError:
        return False
    (folder / ".probe").unlink()
    return True


@pytest.fixture
def read_only_folder(tmp_path: Path):
    """A folder nothing can be written in: mode 0555, and, for root (whom modes do
    not stop), the immutable attribute where the file system has it."""
    folder = tmp_path / "read_only"
    folder.mkdir()
    folder.chmod(0o555)
    immutable = False
    if writable(folder):
        immutable = (
            subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode == 0
        )
    try:
        if writable(folder):
            pytest.skip("cannot make a read-only folder here")
        yield folder
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(folder)], check=False)
        folder.chmod(0o755)


class Crash(Exception):
    """Raised by :func:`crashed_run` to stop a run as a crash would."""


def crashed_run(config: TrainConfig, monkeypatch: pytest.MonkeyPatch, at_step: int) -> Path:
    """Train ``config`` until it has logged ``at_step``, then crash it; returns its
    run folder (for a resume: its last checkpoint is the one before that step)."""
    from flockgym.training import train as train_module

    log_selfplay = train_module.log_selfplay

    def crash_once_logged(model, run_dir, step, results):
        log_selfplay(model, run_dir, step, results)
        if step == at_step:
            raise Crash

    monkeypatch.setattr(train_module, "log_selfplay", crash_once_logged)
    with pytest.raises(Crash):
        train_module.train(config)
    monkeypatch.undo()
    return Path(config.output.dir) / config.output.name
