"""``flockgym reproduce RUN_OR_CHECKPOINT``: train again from what a training
recorded, and say whether the same weights and the same evaluation come out.

A run folder records itself (training/runs.py): ``config.yaml`` (the resolved
config, seed included), ``run.json`` (seed, command, versions, commit),
``final.zip`` and the evaluations (``progress.jsonl``, ``tournament/``). A
shipped checkpoint records less: its ``flockgym.json`` member (env, options,
network, steps, seed, commit) and the ``flockgym train`` command, commit and
wall time in the ``## <name>.zip`` section of its folder's README.md. Its
config is the file that command names as it was at the recorded commit (read
with ``git show`` in a checkout), else as it ships now (said in a warning).

The re-run is an ordinary ``flockgym train`` run into a new folder (the config
unchanged but for where it writes), so it is bit-identical on CPU exactly when
the code, the packages and the machine's arithmetic are: the recorded commit
is checked against this checkout's and a difference is a warning, not an
error (the point may be to see whether a newer commit still reproduces).

Everything is read and checked before the new folder is made: a missing
folder, a folder that is not a finished run, or damaged metadata is a
:class:`RunError` naming the file and the problem, and nothing is written.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flockgym.bots.checkpoints import MAX_MEMBER_BYTES, POLICY_MEMBER, CheckpointArchive
from flockgym.bots.shipped import find_shipped
from flockgym.common.errors import CheckpointError, ConfigError, RunError
from flockgym.common.version import git as _git
from flockgym.common.version import git_commit
from flockgym.envs.core.reader import InputError
from flockgym.training.config import FOLDER_NAME, TrainConfig, read_text, read_yaml, validate_config
from flockgym.training.runs import read_json_file, read_progress, read_state, write_json

DEFAULT_PARENT = Path("runs") / "reproduce"
RESULT_FILE = "reproduce.json"
IGNORED_KEYS = frozenset(
    {"spec", "seconds", "elapsed", "wall_seconds", "started", "finished", "provenance"}
)
"""Fields of an evaluation that name a path, a time or how it was made (the
commit, command and packages): they differ between two runs of the same
training, and say nothing about its result."""
UNKNOWN = "unknown"


@dataclass
class Recorded:
    """A training as it recorded itself: what to run again and what to compare with."""

    kind: str
    """``run`` (a run folder) or ``shipped`` (a checkpoint that ships with flockgym)."""
    source: Path
    name: str
    raw_config: dict[str, Any]
    seed: int
    commit: str
    weights: Path
    """The checkpoint whose ``policy.pth`` the re-run's ``final.zip`` must equal."""
    command: str
    config_from: str
    """Where the config was read: a file, or ``COMMIT:path`` for a shipped one."""
    wall_seconds: float | None = None
    tournament: Path | None = None
    evals: list[dict[str, Any]] = field(default_factory=list)
    steps: int | None = None
    """``--steps``: only the first this many steps are re-run."""
    notes: list[str] = field(default_factory=list)


# ---- reading what a training recorded ---------------------------------------------------


def read_recorded(text: str, steps: int | None = None) -> Recorded:
    """The recorded training ``text`` names: a run folder (or a file in one), else
    a shipped checkpoint; :class:`RunError` names the file and what is wrong."""
    path = Path(text)
    if path.is_file() and (path.parent / "config.yaml").is_file():
        path = path.parent  # final.zip or config.yaml of a run: the run
    if path.is_dir():
        return read_run(path, steps)
    shipped = path if path.is_file() else find_shipped(text, "checkpoint")
    if shipped is None:
        raise RunError(
            f"{text} does not exist: give a run folder (runs/<env>-<config>-<time>) or a "
            "shipped checkpoint (flockgym list names them, e.g. asrus/ppo_5p)"
        )
    if steps is not None:
        raise RunError(
            f"--steps needs a run folder's checkpoint of that step; {shipped} is a "
            "shipped checkpoint without them"
        )
    return read_shipped(shipped)


def read_run(run_dir: Path, steps: int | None) -> Recorded:
    """A finished run folder: its resolved config, seed, commit, final weights and
    evaluations (or, with ``steps``, its checkpoint of that step and the
    evaluations up to it), each checked to agree with the others."""
    config_path = run_dir / "config.yaml"
    if not config_path.is_file():
        raise RunError(
            f"{run_dir} is not a run folder: it has no config.yaml (a run folder is what "
            "flockgym train writes: config.yaml, run.json, final.zip, ...)"
        )
    raw = read_config_file(config_path)
    info = read_json_file(run_dir / "run.json") if (run_dir / "run.json").is_file() else None
    if info is None:
        raise RunError(f"{run_dir} has no run.json: it records the seed and commit of a run")
    seed = info.get("seed")
    if type(seed) is not int or seed != raw.get("seed"):
        raise RunError(
            f"{run_dir / 'run.json'}: seed = {seed!r:.40}, but config.yaml says seed = "
            f"{raw.get('seed')!r:.40}: the run's metadata is damaged"
        )
    commit = info.get("git_commit", UNKNOWN)
    if not isinstance(commit, str):
        raise RunError(f"{run_dir / 'run.json'}: git_commit = {commit!r:.60} is not text")
    state = read_state(run_dir)
    if state.phase != "done":
        raise RunError(
            f"{run_dir} is unfinished (state.json: phase {state.phase!r} at step "
            f"{state.step}); finish it with `flockgym train --resume {run_dir}` first"
        )
    notes = []
    if info.get("resumed"):
        notes.append(f"the run was resumed {len(info['resumed'])} time(s); a resume continues it")
    progress = [r for r in read_progress(run_dir) if r.get("kind") == "eval"]
    tournament: Path | None = run_dir / "tournament" / "tournament.json"
    weights = run_dir / "final.zip"
    if steps is not None:
        weights = run_dir / f"checkpoints/step_{steps:09d}.zip"
        if not weights.is_file():
            kept = sorted(p.name for p in (run_dir / "checkpoints").glob("step_*.zip"))
            raise RunError(
                f"--steps {steps}: {run_dir} has no checkpoint of that step; allowed: the "
                f"steps of its checkpoints ({', '.join(kept) or 'none'})"
            )
        raw["total_steps"] = steps
        progress = [r for r in progress if r["step"] <= steps]
        tournament = None  # the run's tournament is of its final step
        notes.append(f"only the first {steps} steps, compared with {weights.name}")
    elif not weights.is_file():
        raise RunError(f"{run_dir} has no final.zip: the run did not finish")
    if tournament is not None and not tournament.is_file():
        tournament = None
    speed, final_step = info.get("steps_per_second"), info.get("final_step")
    wall = None
    if isinstance(speed, (int, float)) and speed > 0 and isinstance(final_step, int):
        wall = (steps or final_step) / speed
    return Recorded(
        kind="run",
        source=run_dir,
        name=run_dir.name,
        raw_config=raw,
        seed=seed,
        commit=commit,
        weights=weights,
        command=str(info.get("command", "")),
        config_from=str(config_path),
        wall_seconds=wall,
        tournament=tournament,
        evals=progress,
        steps=steps,
        notes=notes,
    )


def read_config_file(path: Path) -> dict[str, Any]:
    """A config file as plain data (safe YAML); :class:`RunError` names the file."""
    import yaml

    try:
        raw = read_yaml(read_text(path))
    except (ConfigError, InputError) as err:
        raise RunError(f"{path} is damaged: {err}") from None
    except yaml.YAMLError as err:
        raise RunError(f"{path} is damaged: not valid YAML ({str(err)[:300]})") from None
    if not isinstance(raw, dict):
        raise RunError(f"{path} is damaged: a config is a mapping, got {type(raw).__name__}")
    return raw


TRAIN_COMMAND = re.compile(r"flockgym train ([^\s`]+\.yaml)((?: --set [^\s`]+)*)")
COMMIT = re.compile(r"commit ([0-9a-f]{40})")
WALL_TIME = re.compile(r"(\d+) min(?: (\d+) s|utes)")


def read_shipped(zip_path: Path) -> Recorded:
    """A shipped checkpoint: its metadata, and the training command, commit and
    wall time that its README section records; the command's config is read as it
    was at that commit where git can show it."""
    meta = read_checkpoint_meta(zip_path)
    readme = zip_path.parent / "README.md"
    section = readme_section(readme, zip_path.name)
    command = TRAIN_COMMAND.search(section)
    if command is None:
        raise RunError(f"{readme}: section {zip_path.name} names no `flockgym train` command")
    config_name, sets = command.group(1), command.group(2).split(" --set ")[1:]
    commit = str(meta.get("git_commit", UNKNOWN))
    stated = COMMIT.search(section)
    notes = []
    if stated and not commit.startswith(stated.group(1)):
        notes.append(f"{readme} states commit {stated.group(1)}; the checkpoint records {commit}")
    raw, config_from = shipped_config(config_name, commit, notes)
    for item in sets:
        key, _, value = item.partition("=")
        if not key.startswith("output."):
            set_value(raw, key, read_yaml(value))
    if raw.get("seed", 0) != meta["seed"]:
        raise RunError(
            f"{zip_path}: seed {meta['seed']} recorded, but {config_from} says seed "
            f"{raw.get('seed', 0)}: the command does not make this checkpoint"
        )
    if isinstance(raw.get("total_steps"), int) and meta["steps"] < raw["total_steps"]:
        notes.append(
            f"the checkpoint is of step {meta['steps']}, before the config's total_steps "
            f"{raw['total_steps']}: the re-run stops there"
        )
        raw["total_steps"] = meta["steps"]
    elif isinstance(raw.get("total_steps"), int) and meta["steps"] >= 2 * raw["total_steps"]:
        raise RunError(
            f"{zip_path}: the checkpoint is of step {meta['steps']:,}, but the recorded "
            f"command's config ({config_from}) trains {raw['total_steps']:,} steps: it is not "
            "the config that made this checkpoint, so no re-run of it can give these weights "
            "(nothing was run). Record the config that trained it in the README's "
            f"`flockgym train` command for {zip_path.name}, or reproduce a run folder, which "
            "records its own resolved config"
        )
    minutes = WALL_TIME.search(section)
    wall = None if minutes is None else int(minutes.group(1)) * 60 + int(minutes.group(2) or 0)
    return Recorded(
        kind="shipped",
        source=zip_path,
        name=f"{zip_path.parent.name}-{zip_path.stem}",
        raw_config=raw,
        seed=meta["seed"],
        commit=commit,
        weights=zip_path,
        command=command.group(0),
        config_from=config_from,
        wall_seconds=wall,
        notes=notes,
    )


def read_checkpoint_meta(path: Path) -> dict[str, Any]:
    """The ``flockgym.json`` of a checkpoint, its fields checked (policies.read_meta)."""
    from dataclasses import asdict

    from flockgym.bots.policies import read_meta

    try:
        with CheckpointArchive(path) as archive:
            return asdict(read_meta(archive))
    except CheckpointError as err:
        raise RunError(str(err)) from None


def readme_section(readme: Path, heading: str) -> str:
    """The text of the README's ``## <heading>`` section (to the next ``## ``)."""
    try:
        text = readme.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise RunError(
            f"cannot read {readme}, which records how {heading} was trained: {err}"
        ) from None
    match = re.search(rf"^## {re.escape(heading)}\s*$(.*?)(?=^## |\Z)", text, re.M | re.S)
    if match is None:
        raise RunError(f"{readme} has no section '## {heading}' recording its training")
    return match.group(1)


def shipped_config(name: str, commit: str, notes: list[str]) -> tuple[dict[str, Any], str]:
    """The config ``name`` (``configs/<game>/<file>.yaml``) as it was at ``commit``
    (``git show``, in a checkout), else as it ships now (with a note)."""
    clean = commit.removesuffix("+dirty")
    if re.fullmatch(r"[0-9a-f]{40}", clean):
        try:
            text = _git("show", f"{clean}:{name}")
        except (OSError, subprocess.SubprocessError):
            pass
        else:
            raw = read_yaml(text)
            if isinstance(raw, dict):
                return raw, f"{clean}:{name}"
    from flockgym.bots.shipped import resolve_config

    path = resolve_config(name)
    if not path.is_file():
        raise RunError(f"the recorded command's config {name} is neither in git nor shipped")
    notes.append(f"{name} read as it ships now: git cannot show it at commit {commit}")
    return read_config_file(path), str(path)


def set_value(raw: dict[str, Any], dotted: str, value: Any) -> None:
    node = raw
    parts = dotted.split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value


# ---- the re-run ------------------------------------------------------------------------


def commit_warnings(recorded: str, current: str) -> list[str]:
    """What may keep the re-run from being bit-identical, as far as the code goes."""
    if recorded == UNKNOWN or current == UNKNOWN:
        return [
            f"commit unknown (recorded {recorded}, this checkout {current}): the code may "
            "differ from the recorded run's"
        ]
    warnings = []
    if recorded.removesuffix("+dirty") != current.removesuffix("+dirty"):
        warnings.append(
            f"the run was recorded at commit {recorded}, this checkout is at {current}: "
            "a difference may be the code's"
        )
    elif recorded.endswith("+dirty") or current.endswith("+dirty"):
        warnings.append(
            f"commit {recorded} recorded, {current} here: uncommitted changes "
            "(+dirty) may make the code differ"
        )
    return warnings


def target_folder(recorded: Recorded, out: Path | None) -> Path:
    """The new run folder (``--out``, else ``runs/reproduce/<name>-<UTC time>``),
    refused if it exists."""
    if out is None:
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        name = re.sub(r"[^A-Za-z0-9._-]", "_", recorded.name).lstrip(".-") or "run"
        out = DEFAULT_PARENT / f"{name}-{stamp}"
    if out.exists():
        raise RunError(f"--out {out} exists; give a new folder for the re-run")
    if not FOLDER_NAME.fullmatch(out.name):
        raise RunError(f"--out {out}: allowed: a folder name of letters, digits, '.', '_', '-'")
    return out


def rerun_config(recorded: Recorded, out: Path) -> TrainConfig:
    """The recorded config, validated, writing to ``out`` instead."""
    raw = json.loads(json.dumps(recorded.raw_config))
    raw.setdefault("output", {})
    if not isinstance(raw["output"], dict):
        raise RunError(f"{recorded.config_from}: output is not a section")
    raw["output"]["dir"] = str(out.parent)
    raw["output"]["name"] = out.name
    try:
        return validate_config(raw)
    except ConfigError as err:
        raise RunError(f"{recorded.config_from} no longer validates: {err}") from None


def describe_plan(recorded: Recorded, config: TrainConfig, out: Path, warnings: list[str]) -> str:
    """What ``reproduce`` runs (``--dry-run`` prints it; so does the run itself)."""
    lines = [
        f"reproduce {recorded.source} ({recorded.kind}): seed {recorded.seed}, "
        f"{config.total_steps} steps of {config.env.id}, config from {recorded.config_from}",
        f"recorded command: {recorded.command or '-'}",
        f"new run folder: {out}",
        f"recorded wall time: {duration(recorded.wall_seconds)}",
        f"compares its final weights with {recorded.weights}",
    ]
    lines += [f"note: {note}" for note in recorded.notes]
    lines += [f"warning: {warning}" for warning in warnings]
    return "\n".join(lines)


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "not recorded"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


@dataclass
class Verdict:
    weights_identical: bool
    weights_detail: str
    evaluation_equal: bool | None
    evaluation_detail: list[str]

    @property
    def reproduced(self) -> bool:
        return self.weights_identical and self.evaluation_equal is not False


def reproduce(
    text: str, out: Path | None = None, steps: int | None = None, dry_run: bool = False
) -> int:
    """``flockgym reproduce``: 0 if the re-run reproduces the recorded training
    (bit-identical weights, equal evaluation), 1 if not; bad input raises
    :class:`RunError` before anything is written."""
    recorded = read_recorded(text, steps)
    out = target_folder(recorded, out)
    config = rerun_config(recorded, out)
    warnings = commit_warnings(recorded.commit, git_commit())
    print(describe_plan(recorded, config, out, warnings), flush=True)
    if dry_run:
        print(f"dry run: nothing trained; `flockgym reproduce {text}` would train as above")
        return 0
    from flockgym.training.train import train

    run_dir = train(config, config_stem=recorded.name)
    verdict = compare_runs(recorded, run_dir)
    write_json(run_dir / RESULT_FILE, result_json(recorded, run_dir, warnings, verdict))
    for warning in warnings:
        print(f"warning: {warning}")
    print(verdict_text(verdict, run_dir))
    return 0 if verdict.reproduced else 1


def compare_runs(recorded: Recorded, run_dir: Path) -> Verdict:
    identical, detail = compare_weights(recorded.weights, run_dir / "final.zip")
    differences: list[str] = []
    compared = False
    if recorded.kind == "run":
        compared = True
        mine = [r for r in read_progress(run_dir) if r.get("kind") == "eval"]
        if recorded.steps is not None:  # the re-run's last evaluation may be its own
            last = max((r["step"] for r in recorded.evals), default=-1)
            mine = [r for r in mine if r["step"] <= last]
        differences += json_differences(recorded.evals, mine, "progress.jsonl eval")
        if recorded.tournament is not None:
            theirs = read_json_file(recorded.tournament)
            new = run_dir / "tournament" / "tournament.json"
            ours = read_json_file(new) if new.is_file() else {}
            differences += json_differences(theirs, ours, "tournament")
    return Verdict(identical, detail, (not differences) if compared else None, differences)


def policy_tensors(path: Path) -> dict[str, Any]:
    """The policy weights of a checkpoint, read weights-only."""
    try:
        with CheckpointArchive(path) as archive:
            state = archive.tensors(POLICY_MEMBER, MAX_MEMBER_BYTES)
    except CheckpointError as err:
        raise RunError(str(err)) from None
    if not isinstance(state, dict):
        raise RunError(f"{path}: {POLICY_MEMBER} holds no state dict")
    return state


def compare_weights(recorded: Path, new: Path) -> tuple[bool, str]:
    """Bit for bit, tensor by tensor: ``(True, "bit-identical")`` or the first
    tensor that differs and by how much."""
    import torch

    theirs, ours = policy_tensors(recorded), policy_tensors(new)
    if theirs.keys() != ours.keys():
        only = sorted(set(theirs) ^ set(ours))
        return False, f"different tensors: {', '.join(only)[:300]}"
    for key in theirs:
        a, b = theirs[key], ours[key]
        if a.dtype != b.dtype or a.shape != b.shape:
            return False, f"{key}: {a.dtype}{tuple(a.shape)} against {b.dtype}{tuple(b.shape)}"
        bytes_a = a.detach().flatten().contiguous().view(torch.uint8)
        bytes_b = b.detach().flatten().contiguous().view(torch.uint8)
        if not torch.equal(bytes_a, bytes_b):
            diff = (a.double() - b.double()).abs().max().item()
            return False, f"{key} differs first: max abs difference {diff:.6g}"
    return True, f"bit-identical ({len(theirs)} tensors)"


def json_differences(a: Any, b: Any, where: str) -> list[str]:
    """Where two JSON values differ, field by field, paths and times aside."""
    if isinstance(a, dict) and isinstance(b, dict):
        found = []
        for key in sorted(set(a) | set(b)):
            if key in IGNORED_KEYS:
                continue
            if key not in a or key not in b:
                found.append(f"{where}.{key}: only in the {'re-run' if key in b else 'recorded'}")
            else:
                found += json_differences(a[key], b[key], f"{where}.{key}")
        return found
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{where}: {len(a)} recorded entries, {len(b)} in the re-run"]
        return [
            d
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for d in json_differences(x, y, f"{where}[{i}]")
        ]
    return [] if a == b else [f"{where}: {a!r:.80} recorded, {b!r:.80} in the re-run"]


def verdict_text(verdict: Verdict, run_dir: Path) -> str:
    if verdict.evaluation_equal is None:
        evaluation = "not compared (no evaluation recorded with the checkpoint)"
    elif verdict.evaluation_equal:
        evaluation = "equal"
    else:
        evaluation = f"differs: {'; '.join(verdict.evaluation_detail[:3])}"
    head = "REPRODUCED" if verdict.reproduced else "NOT REPRODUCED"
    return (
        f"{head}: weights {verdict.weights_detail}; evaluation {evaluation}\n"
        f"details in {run_dir / RESULT_FILE}"
    )


def result_json(
    recorded: Recorded, run_dir: Path, warnings: list[str], verdict: Verdict
) -> dict[str, Any]:
    return {
        "source": str(recorded.source),
        "kind": recorded.kind,
        "config_from": recorded.config_from,
        "recorded_commit": recorded.commit,
        "current_commit": git_commit(),
        "seed": recorded.seed,
        "run": str(run_dir),
        "warnings": warnings,
        "notes": recorded.notes,
        "weights": {
            "compared_with": str(recorded.weights),
            "bit_identical": verdict.weights_identical,
            "detail": verdict.weights_detail,
        },
        "evaluation": {"equal": verdict.evaluation_equal, "differences": verdict.evaluation_detail},
        "reproduced": verdict.reproduced,
    }
