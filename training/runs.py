"""Run folders: self-describing, resumable.

::

    runs/<env>-<config>-<UTC time>/
      config.yaml        the resolved config (every default filled in)
      run.json           seed, command, package versions, git commit, speed
      state.json         what --resume needs: the step, the phase, the newest
                         checkpoint, the opponent pool's snapshots, the length of
                         each log file at that checkpoint
      checkpoints/       step_<N>.zip, resumable: weights, optimizer, counters,
                         generator states, flockgym.json (tensors and JSON only)
      snapshots/         step_<N>.zip, frozen learners in the opponent pool
      final.zip          the policy at the end of training
      progress.jsonl     evaluation and self-play results over steps
      tb/                TensorBoard logs
      tournament/        the final tournament (JSON + Markdown), if configured
      learning_curves.png

Every path ``state.json`` names is checked to be a file of this folder (the
pattern ``checkpoints/step_<N>.zip``, no link leading out of it) before
anything is opened; a resumed run truncates its logs to their length at the
checkpoint, so nothing logged after it (progress records, TensorBoard events)
appears twice.
"""

from __future__ import annotations

import base64
import binascii
import importlib.metadata
import json
import os
import platform
import random
import re
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from flockgym.common.errors import RunError
from flockgym.common.files import OutputError, append_line, describe, make_folder, write_text_atomic
from flockgym.common.version import git_commit
from flockgym.envs.core.reader import InputError, parse_json, read_bytes, read_json

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


STATE_FORMAT = "flockgym-run-state"
STATE_VERSION = 2
PHASES = ("training", "final", "done")
"""``training``: the checkpoint is mid-run; ``final``: training is over, the final
policy, evaluation, tournament and plot may be unfinished (``--resume`` does
them); ``done``: the run is complete (``--resume`` with a higher total_steps
trains on)."""
CHECKPOINT_PATH = re.compile(r"checkpoints/step_[0-9]{9,15}\.zip")
SNAPSHOT_PATH = re.compile(r"snapshots/step_[0-9]{9,15}\.zip")
LOG_PATH = re.compile(r"progress\.jsonl|tb/events\.out\.tfevents\.[A-Za-z0-9._-]{1,200}")
MAX_STATE_BYTES = 1 << 20
MAX_PROGRESS_BYTES = 1 << 30
"""The largest ``progress.jsonl`` read (1 GiB: a line a rollout, about 200 bytes)."""


@dataclass
class RunState:
    """What a resumed run continues from (``state.json``)."""

    step: int
    checkpoint: str
    phase: str = "training"
    snapshots: list[str] = field(default_factory=list)
    logs: dict[str, int] = field(default_factory=dict)
    """Byte length of each log file when the checkpoint was written."""

    @property
    def finished(self) -> bool:
        return self.phase == "done"


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
    if Path(parent).resolve() != run_dir.resolve().parent:
        raise RunError(f"run folder {run_dir} is not a folder of output.dir {parent}")
    for sub in ("checkpoints", "snapshots"):
        make_folder(run_dir / sub)
    return run_dir


def write_run_info(run_dir: Path, seed: int, resumed: bool) -> None:
    """``run.json``: who made this run and with what (appends each resume)."""
    path = run_dir / "run.json"
    info = read_run_info(run_dir)
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
    info = read_run_info(run_dir)
    info.update(values)
    write_json(run_dir / "run.json", info)


def read_run_info(run_dir: Path) -> dict[str, Any]:
    """``run.json`` ({} before it is written); :class:`RunError` if it is damaged."""
    path = run_dir / "run.json"
    if not path.exists():
        return {}
    try:
        info = read_json(path, "run record", MAX_STATE_BYTES)
    except InputError as err:
        raise RunError(f"{path} is damaged ({err}); cannot continue the run") from None
    if not isinstance(info, dict):
        raise RunError(f"{path} is not a JSON object; cannot continue the run")
    return info


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


# ---- state for --resume ---------------------------------------------------------------


def read_state(run_dir: Path) -> RunState:
    """The state a run resumes from, every field checked and every path confined
    to the run folder; :class:`RunError` names the field and what is allowed."""
    path = run_dir / "state.json"
    if not path.is_file():
        raise RunError(
            f"{run_dir} has no state.json: not a run folder, or the run stopped "
            "before its first checkpoint"
        )
    data = read_json_file(path)
    if data.get("format") != STATE_FORMAT or data.get("version") != STATE_VERSION:
        raise RunError(
            f"{path} is not a run state of this flockgym (format {data.get('format')!r:.40}, "
            f"version {data.get('version')!r:.20}; allowed: {STATE_FORMAT!r} {STATE_VERSION}). "
            "Runs of older versions kept stable-baselines3 saves, which cannot be loaded "
            "without running code from them: start a new run (its final.zip still plays)"
        )
    fields = {"format", "version", "step", "phase", "checkpoint", "snapshots", "logs"}
    unknown, missing = sorted(set(data) - fields), sorted(fields - set(data))
    if unknown or missing:
        raise RunError(
            f"{path}: unknown fields {unknown or '-'}, missing fields {missing or '-'}; "
            f"allowed: {', '.join(sorted(fields))}"
        )
    step, phase = data["step"], data["phase"]
    if type(step) is not int or step < 0:
        raise RunError(f"{path}: step = {step!r:.40}: allowed: an integer >= 0")
    if phase not in PHASES:
        raise RunError(f"{path}: phase = {phase!r:.40}: allowed: {', '.join(PHASES)}")
    checkpoint = confined(run_dir, "checkpoint", data["checkpoint"], CHECKPOINT_PATH)
    if checkpoint != f"checkpoints/step_{step:09d}.zip":
        raise RunError(f"{path}: checkpoint = {checkpoint!r} is not the one of step {step}")
    snapshots = data["snapshots"]
    if not isinstance(snapshots, list):
        raise RunError(f"{path}: snapshots = {snapshots!r:.80}: allowed: a list of files")
    snapshots = [
        confined(run_dir, f"snapshots[{i}]", item, SNAPSHOT_PATH)
        for i, item in enumerate(snapshots)
    ]
    logs = data["logs"]
    if not isinstance(logs, dict) or not all(
        type(size) is int and size >= 0 for size in logs.values()
    ):
        raise RunError(f"{path}: logs = {logs!r:.80}: allowed: file names and their lengths")
    for name in logs:
        confined(run_dir, f"logs[{name!r:.80}]", name, LOG_PATH, must_exist=False)
    return RunState(step, checkpoint, phase, snapshots, logs)


def read_json_file(path: Path) -> dict[str, Any]:
    """A small JSON object file; :class:`RunError` names what is wrong with it."""
    try:
        data = read_json(path, "run state", MAX_STATE_BYTES)
    except InputError as err:
        raise RunError(f"{path} is not a run state ({err}); cannot resume") from None
    if not isinstance(data, dict):
        raise RunError(f"{path} is not a run state (not a JSON object); cannot resume")
    return data


EXAMPLES = {
    CHECKPOINT_PATH: "checkpoints/step_000001024.zip",
    SNAPSHOT_PATH: "snapshots/step_000001024.zip",
    LOG_PATH: "progress.jsonl or tb/events.out.tfevents.<...>",
}


def confined(
    run_dir: Path, key: str, relative: Any, pattern: re.Pattern[str], must_exist: bool = True
) -> str:
    """``relative``, checked to name a file of the run folder: it matches ``pattern``
    (so no absolute path, no ``..``), no link leads out of the folder, and it exists."""
    where = f"{run_dir / 'state.json'}: {key} = {relative!r:.200}"
    if not isinstance(relative, str) or not pattern.fullmatch(relative):
        raise RunError(f"{where}: allowed: a file of the run folder, like {EXAMPLES[pattern]}")
    path = run_dir / relative
    real = path.resolve()
    if not real.is_relative_to(run_dir.resolve()):
        raise RunError(f"{where}: {path} is a link out of the run folder (to {real}); refused")
    if must_exist and not path.is_file():
        raise RunError(f"{where}: the file is missing from {run_dir}")
    return relative


def write_state(run_dir: Path, state: RunState) -> None:
    data = {"format": STATE_FORMAT, "version": STATE_VERSION, **asdict(state)}
    write_json(run_dir / "state.json", data)


def write_json(path: Path, data: Any) -> None:
    """Write atomically: a crash mid-write leaves the previous file intact."""
    write_text_atomic(path, json.dumps(data, indent=2) + "\n")


# ---- logs: their lengths at a checkpoint, and back to them on resume ------------------


def log_files(run_dir: Path) -> list[str]:
    """The run's append-only logs, relative to it: progress.jsonl and the
    TensorBoard event files."""
    names = ["progress.jsonl"] if (run_dir / "progress.jsonl").is_file() else []
    names += sorted(f"tb/{p.name}" for p in (run_dir / "tb").glob("events.out.tfevents.*"))
    return names


def log_lengths(run_dir: Path) -> dict[str, int]:
    """Byte length of every log now (written after the logs were flushed)."""
    return {name: (run_dir / name).stat().st_size for name in log_files(run_dir)}


def truncate_logs(run_dir: Path, lengths: dict[str, int]) -> None:
    """Cut every log back to its length at the checkpoint, and remove event files
    made after it: a resumed run logs those steps again, once."""
    for name in log_files(run_dir):
        path = run_dir / name
        try:
            if name not in lengths:
                path.unlink()
            elif path.stat().st_size > lengths[name]:
                os.truncate(path, lengths[name])
        except OSError as err:
            reason = describe(err)
            raise OutputError(f"cannot roll back {path} to the checkpoint: {reason}") from None


# ---- generator states ------------------------------------------------------------------


def generator_states() -> dict[str, Any]:
    """The global generators the learner draws from (torch: action sampling;
    numpy: minibatch shuffling; Python: for completeness), as compact JSON."""
    version, words, gauss = random.getstate()
    kind, keys, pos, has_gauss, cached = np.random.get_state()
    return {
        "python": [version, b64(np.array(words, dtype=np.uint64)), gauss],
        "numpy": [kind, b64(keys), int(pos), int(has_gauss), float(cached)],
        "torch": b64(torch.get_rng_state().numpy()),
    }


def decode_generators(states: Any) -> tuple[Any, Any, torch.Tensor]:
    """The states of :func:`generator_states`, decoded and tried on throwaway
    generators (so a bad one fails here, before anything is applied)."""
    try:
        version, words, gauss = states["python"]
        python = (version, tuple(int(w) for w in unb64(words, np.uint64)), gauss)
        random.Random().setstate(python)
        kind, keys, pos, has_gauss, cached = states["numpy"]
        numpy = (kind, unb64(keys, np.uint32), pos, has_gauss, cached)
        np.random.RandomState().set_state(numpy)
        torch_state = torch.from_numpy(unb64(states["torch"], np.uint8))
        torch.Generator().set_state(torch_state)
    except (KeyError, TypeError, ValueError, RuntimeError, OverflowError, binascii.Error) as err:
        raise RunError(f"generators.json does not hold generator states ({err})") from None
    return python, numpy, torch_state


def restore_generators(decoded: tuple[Any, Any, torch.Tensor]) -> None:
    python, numpy, torch_state = decoded
    random.setstate(python)
    np.random.set_state(numpy)
    torch.set_rng_state(torch_state)


def b64(array: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(array).tobytes()).decode()


def unb64(text: str, dtype: Any) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text, validate=True), dtype=dtype).copy()


# ---- progress records -----------------------------------------------------------------


def append_progress(run_dir: Path, record: dict[str, Any]) -> None:
    append_line(run_dir / "progress.jsonl", json.dumps(record))


def read_progress(run_dir: Path) -> list[dict[str, Any]]:
    """The records of ``progress.jsonl``; a last line cut short by a crash is
    skipped, any other damaged line is a :class:`RunError` naming it."""
    path = run_dir / "progress.jsonl"
    if not path.exists():
        return []
    try:
        blob = read_bytes(path, "progress log", MAX_PROGRESS_BYTES)
    except InputError as err:
        raise RunError(str(err)) from None
    lines = blob.decode("utf-8", errors="replace").splitlines()
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = parse_json(line, f"{path} line {number}")
        except InputError:
            if number == len(lines):
                break  # a write cut short: the run resumes from before it
            raise RunError(f"{path} line {number} is not a JSON record") from None
        if not isinstance(record, dict) or not {"kind", "step", "opponent"} <= set(record):
            raise RunError(f"{path} line {number} is not a progress record")
        records.append(record)
    return records
