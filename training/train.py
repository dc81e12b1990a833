"""``flockgym train CONFIG``: self-play training of a mask-aware learner.

Read :func:`train` top to bottom: run folder, seeds, envs and learner, then the
loop (one learner iteration at a time; snapshots, evaluations and checkpoints
when their step comes), then the end: the final policy, evaluation, tournament
and plot.

Reproducibility: everything random is derived from ``config.seed`` here. The
envs are reset at every checkpoint with seeds derived from (seed, step), and a
checkpoint stores the weights, the optimizer, the counters and schedules, the
opponent pool and the global generators, so that a run resumed from a
checkpoint continues exactly as the uninterrupted run would have (same final
weights, on CPU).

Resuming executes nothing from the run folder: the learner is built afresh
from the run's resolved config, and the checkpoint's tensors (read
weights-only) and JSON are copied into it, after the whole checkpoint, its
snapshots and ``state.json`` have been checked and before anything in the run
folder is written.
"""

from __future__ import annotations

import errno
import json
import random
import shlex
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import torch
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import Logger, make_output_format

from flockgym.bots.checkpoints import (
    GENERATORS_MEMBER,
    RESUMABLE_MEMBERS,
    CheckpointArchive,
    CheckpointError,
    json_bytes,
    write_checkpoint,
)
from flockgym.bots.policies import (
    CheckpointMeta,
    Policy,
    env_shapes,
    load_policy,
    make_participant,
    meta_member,
    policy_participant,
    read_meta_and_learner,
)
from flockgym.common.files import OutputError, describe, remove_partial_files, write_text_atomic
from flockgym.common.progress import Progress
from flockgym.common.provenance import Clock
from flockgym.envs import entry
from flockgym.envs.core.rng import derive_seed
from flockgym.evaluation.tournaments import TournamentResult, save_result, tournament
from flockgym.training.config import TrainConfig, config_to_yaml, load_config
from flockgym.training.learners import Learner, get_learner
from flockgym.training.parallel import WorkerError
from flockgym.training.runs import (
    RunError,
    RunState,
    append_progress,
    decode_generators,
    generator_states,
    git_commit,
    log_lengths,
    new_run_dir,
    read_run_info,
    read_state,
    restore_generators,
    truncate_logs,
    update_run_info,
    write_run_info,
    write_state,
)
from flockgym.training.vec_env import make_vec_env

WRITE_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EFBIG}
"""A failing write of these kinds is the disk or the folder, not the code."""


def train(config: TrainConfig, config_stem: str = "config", resume: Path | None = None) -> Path:
    """Train as ``config`` says (or continue the run in ``resume``); return the run folder.

    ``config`` comes validated from :func:`load_config` or ``validate_config``
    (env options and bot specs included), so nothing below fails on a bad value."""
    # ---- run folder -------------------------------------------------------------------
    if resume is not None:
        run_dir = resume
        point = read_resume_point(run_dir, config)  # all checked; nothing written yet
        print(f"resuming {run_dir} from step {point.state.step} ({point.state.phase})")
        truncate_logs(run_dir, point.state.logs)  # what was logged after it is redone
        remove_partial_files(run_dir)  # a write the crash cut short
    else:
        run_dir = new_run_dir(config.output.dir, config.output.name, config.env.id, config_stem)
        point = None
    try:
        run(config, run_dir, point)
    except KeyboardInterrupt as err:
        if not getattr(err, "reported", False):
            print(f"interrupted; {continue_hint(run_dir)}")
        raise
    except OutputError as err:
        raise OutputError(f"{err}; {continue_hint(run_dir)}") from None
    except WorkerError as err:  # a batched worker died: the run resumes from its checkpoint
        raise WorkerError(f"{err}; {continue_hint(run_dir)}") from err
    except OSError as err:
        if err.errno not in WRITE_ERRNOS:
            raise
        raise OutputError(
            f"cannot write in {run_dir}: {describe(err)}; {continue_hint(run_dir)}"
        ) from None
    if (run_dir / "final.zip").is_file():
        print(play_hint(run_dir, config.env.id, config.env.options))
    return run_dir


def play_hint(run_dir: Path, env_id: str, options: dict[str, Any]) -> str:
    """How to play against the run just trained, in the terminal and in a browser,
    printed at the run's end so that the first run does not end in a dead end.

    The command carries the run's env options but ``reward`` (which only pays the
    learner): a policy plays only the table it was trained for (``num_players``
    and the options that change the observation), so the game must match it."""
    players = options.get("num_players", entry(env_id).default_players)
    opponents = str(run_dir) if players == 2 else f"{run_dir},heuristic"
    words = ["flockgym", "play", env_id, "--seat", "0", "--opponents", opponents]
    for key, value in options.items():
        if key != "reward":
            text = value if isinstance(value, str) else json.dumps(value)
            words += ["--option", f"{key}={text}"]
    terminal = " ".join(shlex.quote(word) for word in words)
    browser = f"flockgym serve --models {shlex.quote(str(run_dir.parent))}"
    seats = "in the other seat" if players == 2 else "then heuristic bots in the seats left"
    return (
        f"play against it in the terminal (you in seat 0, the run {seats}):\n"
        f"  {terminal}\n"
        f"or in a browser (pick {run_dir.parent.name}/{run_dir.name} for a seat):\n"
        f"  {browser}"
    )


def continue_hint(run_dir: Path) -> str:
    if not (run_dir / "state.json").exists():
        return "the run stopped before its first checkpoint"
    return f"continue from the last checkpoint with `flockgym train --resume {run_dir}`"


def run(config: TrainConfig, run_dir: Path, point: ResumePoint | None) -> Path:
    """The run itself, in a folder made (or checked) by :func:`train`."""
    state = point.state if point else None
    write_text_atomic(run_dir / "config.yaml", config_to_yaml(config))
    write_run_info(run_dir, config.seed, resumed=state is not None)

    # ---- seeds: everything below derives from config.seed ------------------------------
    seed_everything(config.seed, config.torch_threads)
    own_loop = get_learner(config.algo.name).custom_run()
    if own_loop is not None:
        return own_loop(config, run_dir, point)

    # ---- envs and learner --------------------------------------------------------------
    env_id, env_options = config.env.id, config.env.options
    learner = get_learner(config.algo.name)
    snapshots = list(state.snapshots) if state else []
    venv = make_vec_env(
        config.vec_env,
        config.n_envs,
        config.torch_threads,
        env_kwargs={
            "env_id": env_id,
            "env_options": env_options,
            "pool": config.opponents.pool,
            "snapshots": [str(run_dir / s) for s in snapshots],
            "snapshot_share": config.opponents.snapshot_share,
            "max_snapshots": config.opponents.max_snapshots,
            "snapshot_play": config.opponents.snapshot_play,
            "reward_scale": config.env.reward_scale,
            "win_bonus": config.env.win_bonus,
            "advisor": config.env.advisor,
            "relative_reward": config.env.relative_reward,
        },
        engine=config.batched.engine,
        dealing=config.batched.dealing,
        workers=config.batched.workers,
    )
    logger = None
    try:
        model = learner.build(
            venv,
            config.algo,
            config.seed,
            total_steps=config.total_steps,
            advice_actions=venv.action_space.n if config.env.advisor != "none" else 0,
        )
        if point is not None:
            learner.restore(model, point.learner_state)
            restore_generators(point.generators)  # after build: building reseeds the globals
        logger = RunLogger(
            str(run_dir / "tb"), [make_output_format("tensorboard", str(run_dir / "tb"))]
        )
        model.set_logger(logger)
        if point is None and config.pretrain.games:
            imitate_teacher(model, config)
        step = model.num_timesteps
        checkpoint = state.checkpoint if state else ""
        train_seconds = 0.0
        if step < config.total_steps:
            step, checkpoint, train_seconds = train_loop(
                model, learner, config, run_dir, venv, snapshots, fresh=state is None
            )
        venv.close()
        finish_run(model, learner, config, run_dir, step, checkpoint, snapshots)
        if train_seconds > 0:
            trained = step - (state.step if state else 0)
            update_run_info(
                run_dir, steps_per_second=round(trained / train_seconds, 1), final_step=step
            )
            print(f"trained {trained} steps at {trained / train_seconds:.0f} steps/s")
    finally:
        if logger is not None:
            logger.close()
        venv.close()
    print(f"run folder: {run_dir}")
    return run_dir


def imitate_teacher(model: Any, config: TrainConfig) -> None:
    """Fit a fresh learner to the teacher's games (``pretrain``), logged at step 0."""
    from flockgym.training.pretrain import pretrain

    report = pretrain(model, config)
    print(report.line())
    for name in (
        "accuracy_before",
        "accuracy_after",
        "held_out_accuracy",
        "value_loss_before",
        "value_loss_after",
        "held_out_value_loss",
        "teacher_win_rate",
    ):
        model.logger.record(f"pretrain/{name}", getattr(report, name))
    model.logger.dump(0)


def train_loop(
    model: Any,
    learner: Learner,
    config: TrainConfig,
    run_dir: Path,
    venv: Any,
    snapshots: list[str],
    fresh: bool,
) -> tuple[int, str, float]:
    """Learner iterations up to ``total_steps``, then the final checkpoint;
    returns (step, that checkpoint, seconds spent learning)."""
    with deferred_interrupts() as stop:
        episodes = EpisodeResults()
        step = steps_at_start = model.num_timesteps
        if not config.opponents.pool and not snapshots:
            # Pure self-play starts against the untrained learner.
            snapshots.append(save_snapshot(model, learner, config, run_dir, step, venv))
        if fresh and config.eval.every:
            print(evaluate_and_log(model, learner, config, run_dir, step))  # where we start from
            model.logger.dump(step)
        start_segment(model, venv, config.seed, step)
        bar = Progress(
            config.total_steps, "steps", enabled=config.progress_bar, label="train", initial=step
        )
        train_seconds = 0.0
        checkpointed = -1
        while step < config.total_steps and stop.signum is None:
            started = time.perf_counter()
            model.learn(1, callback=episodes, reset_num_timesteps=False)  # one rollout + update
            train_seconds += time.perf_counter() - started
            previous, step = step, model.num_timesteps
            bar.update(step - previous)
            log_selfplay(model, run_dir, step, episodes.pop())
            model.logger.record(
                "time/training_steps_per_second", (step - steps_at_start) / train_seconds
            )

            if crossed(previous, step, config.opponents.snapshot_every):
                snapshots.append(save_snapshot(model, learner, config, run_dir, step, venv))
            if crossed(previous, step, config.eval.every) and step < config.total_steps:
                bar.write(evaluate_and_log(model, learner, config, run_dir, step))
            model.logger.dump(step)  # before the checkpoint: it records the logs' lengths
            if (
                crossed(previous, step, config.output.checkpoint_every)
                and step < config.total_steps
            ):
                save_checkpoint(model, learner, config, run_dir, step, snapshots, "training")
                checkpointed = step
                start_segment(model, venv, config.seed, step)
        bar.close()
        if stop.signum is not None and step < config.total_steps:
            if step == steps_at_start:
                checkpointed = step  # nothing trained here: the checkpoint there is, if any
            stop_for_signal(model, learner, config, run_dir, step, snapshots, checkpointed, stop)
    checkpoint = save_checkpoint(model, learner, config, run_dir, step, snapshots, "final")
    return step, checkpoint, train_seconds


class TrainingInterrupted(KeyboardInterrupt):
    """Training stopped by Ctrl-C (SIGINT) or SIGTERM, after writing a checkpoint
    where it could; ``signum`` is the signal (the exit status is 128 + it)."""

    def __init__(self, signum: int, reported: bool = False) -> None:
        super().__init__()
        self.signum = signum
        self.reported = reported


@dataclass
class StopRequest:
    signum: int | None = None


@contextmanager
def deferred_interrupts() -> Iterator[StopRequest]:
    """Ctrl-C and SIGTERM, while training, ask the loop to stop at the end of the
    current iteration (a consistent point: no half-collected rollout, no
    half-applied update) and write a checkpoint there; a second one stops at
    once. Outside the main thread signals cannot be caught: nothing changes."""
    stop = StopRequest()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def handler(signum: int, frame: Any) -> None:
        if stop.signum is not None:
            restore()
            raise TrainingInterrupted(signum)
        stop.signum = signum
        print(
            f"\n{signal.Signals(signum).name}: stopping after this iteration to write a "
            "checkpoint (again to stop at once)",
            flush=True,
        )

    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}

    def restore() -> None:
        for s, old in previous.items():
            signal.signal(s, old)

    try:
        yield stop
    finally:
        restore()


def stop_for_signal(
    model: Any,
    learner: Learner,
    config: TrainConfig,
    run_dir: Path,
    step: int,
    snapshots: list[str],
    checkpointed: int,
    stop: StopRequest,
) -> None:
    """Write the checkpoint of ``step`` (unless one was just written) and stop,
    saying how to continue; before the first step there is nothing to resume."""
    assert stop.signum is not None
    name = signal.Signals(stop.signum).name
    if step == 0 or (not (run_dir / "state.json").exists() and checkpointed == step):
        print(
            f"{name} at step 0, before any training: nothing to resume ({run_dir} holds no "
            "checkpoint); start the run again with `flockgym train CONFIG`"
        )
        raise TrainingInterrupted(stop.signum, reported=True)
    if checkpointed != step:
        save_checkpoint(model, learner, config, run_dir, step, snapshots, "training")
    print(
        f"{name} at step {step}: checkpoint written; continue with "
        f"`flockgym train --resume {run_dir}`"
    )
    raise TrainingInterrupted(stop.signum, reported=True)


class RunLogger(Logger):
    """stable-baselines3's logger with its time figures named for what they measure.

    The pipeline calls ``learn`` once per iteration, so stable-baselines3's
    ``time/fps`` is the speed of collecting that iteration's rollout alone
    (env steps and policy inference, before the update): it is logged as
    ``time/rollout_steps_per_second``, beside the pipeline's own
    ``time/training_steps_per_second`` (learner steps per second of learning
    since the run or its resume started, rollouts and updates together)."""

    RENAMED: ClassVar[dict[str, str]] = {"time/fps": "time/rollout_steps_per_second"}

    def record(self, key: str, value: Any, exclude: Any = None) -> None:
        super().record(self.RENAMED.get(key, key), value, exclude)


def finish_run(
    model: Any,
    learner: Learner,
    config: TrainConfig,
    run_dir: Path,
    step: int,
    checkpoint: str,
    snapshots: list[str],
) -> None:
    """The end of a run: the final policy, its evaluation, the tournament and the
    plot, then ``state.json`` says ``done``. Killed on the way, ``--resume`` does
    all of it again from the final checkpoint (the logs rolled back to it)."""
    save_policy(model, learner, config, run_dir / "final.zip", step)
    print(evaluate_and_log(model, learner, config, run_dir, step))
    model.logger.dump(step)
    if config.eval.tournament_games:
        print(final_tournament(model, learner, config, run_dir, step).to_markdown())
    from flockgym.evaluation.plot import plot_run

    print(f"learning curves: {plot_run(run_dir)}")
    write_state(run_dir, RunState(step, checkpoint, "done", list(snapshots), log_lengths(run_dir)))


def final_tournament(
    model: Any, learner: Learner, config: TrainConfig, run_dir: Path, step: int
) -> TournamentResult:
    """The final policy and the evaluation opponents, every seat each, saved in
    the run folder's ``tournament/``."""
    policy = Policy(model.policy, meta_for(config, learner, step))
    final = policy_participant(
        "final", policy, config.eval.learner_play, str(run_dir / "final.zip")
    )
    players = [final] + [
        make_participant(spec, config.env.id, config.env.options) for spec in config.eval.opponents
    ]
    clock = Clock()
    result = tournament(
        config.env.id,
        players,
        config.eval.tournament_games,
        config.eval.seed,
        config.env.options,
        progress=config.progress_bar,
    )
    save_result(result, run_dir / "tournament", clock)
    return result


# ---- resuming --------------------------------------------------------------------------


@dataclass
class ResumePoint:
    """Everything a run resumes from, read and checked, not yet applied."""

    state: RunState
    learner_state: Any
    generators: Any


def read_resume_point(run_dir: Path, config: TrainConfig) -> ResumePoint:
    """``state.json``, its checkpoint (every member, weights-only) and its snapshots,
    all checked against the run's config before anything is applied or written."""
    state = read_state(run_dir)
    read_run_info(run_dir)  # a damaged run.json fails now, not after the logs are cut
    path = run_dir / state.checkpoint
    with CheckpointArchive(path) as archive:
        missing = sorted(RESUMABLE_MEMBERS - archive.names())
        if missing:
            raise CheckpointError(f"{path} is not resumable: it has no {', '.join(missing)}")
        meta, learner = read_meta_and_learner(archive)
        check_checkpoint_fits(path, meta, config, learner, state.step)
        learner_state = learner.read_state(archive, meta)
        generators = decode_generators(archive.json(GENERATORS_MEMBER))
    for snapshot in state.snapshots:
        load_policy(run_dir / snapshot, env_id=config.env.id, env_options=config.env.options)
    return ResumePoint(state, learner_state, generators)


RUN_META_KEYS = (
    "env_id",
    "env_options",
    "observation_size",
    "num_actions",
    "algo",
    "network",
    "advisor",
)
"""What a resumed run's checkpoint must share with its config."""


def check_checkpoint_fits(
    path: Path, meta: CheckpointMeta, config: TrainConfig, learner: Learner, step: int
) -> None:
    """The checkpoint was written by this run: same env, shapes, learner, network, step."""
    wanted = meta_for(config, learner, step)
    for key in RUN_META_KEYS:
        if as_json(getattr(meta, key)) != as_json(getattr(wanted, key)):
            raise RunError(
                f"{path} has {key} = {getattr(meta, key)!r:.200}, but the run's config asks "
                f"for {getattr(wanted, key)!r:.200}; a resumed run keeps its env and network"
            )
    if meta.steps != step:
        raise RunError(f"{path} is of step {meta.steps}, but state.json says step {step}")


def as_json(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples become lists)."""
    return json.loads(json.dumps(value))


def train_from_file(path: str | Path, overrides: list[str] | None = None) -> Path:
    """``flockgym train CONFIG [--set key=value ...]``."""
    config = load_config(path, overrides)
    return train(config, config_stem=Path(path).stem)


def resume_run(run_dir: str | Path, overrides: list[str] | None = None) -> Path:
    """``flockgym train --resume RUN_DIR``: continue from its newest checkpoint,
    with its own resolved config (``--set`` may change e.g. ``total_steps``)."""
    run_dir = Path(run_dir)
    moved = [o for o in overrides or [] if o.split("=", 1)[0].strip().startswith("output.")]
    if moved:
        raise RunError(
            f"--resume continues {run_dir} in place, so {', '.join(moved)} cannot apply; "
            f"copy the run folder to move it"
        )
    config = load_config(run_dir / "config.yaml", overrides)
    state = read_state(run_dir)
    if state.phase == "done" and state.step >= config.total_steps:
        raise RunError(
            f"{run_dir} finished at step {state.step}; to train on, raise total_steps "
            f"(--set total_steps=...)"
        )
    return train(config, resume=run_dir)


# ---- the pieces the loop calls ------------------------------------------------------------


def seed_everything(seed: int, torch_threads: int) -> None:
    """The global generators and torch's threads, in one place."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(torch_threads)


def start_segment(model: Any, venv: Any, seed: int, step: int) -> None:
    """Reset every env with seeds derived from (seed, step) before the next rollout.
    Done at the start and at every checkpoint, so a run resumed from the checkpoint
    at ``step`` sees exactly the games the uninterrupted run saw."""
    venv.seed(derive_seed(seed, step))
    model._last_obs = None  # learn() resets the envs when it has no last observation


def crossed(previous: int, step: int, every: int) -> bool:
    """Whether a multiple of ``every`` lies in (previous, step]; ``every=0``: never."""
    return every > 0 and step // every > previous // every


class EpisodeResults(BaseCallback):
    """Collects the finished self-play games' results (from the envs' infos)."""

    def __init__(self) -> None:
        super().__init__()
        self.results: list[dict[str, Any]] = []

    def _on_step(self) -> bool:
        for info, done in zip(self.locals["infos"], self.locals["dones"], strict=True):
            if done and "game_result" in info:
                self.results.append(info["game_result"])
        return True

    def pop(self) -> list[dict[str, Any]]:
        results, self.results = self.results, []
        return results


def log_selfplay(model: Any, run_dir: Path, step: int, results: list[dict[str, Any]]) -> None:
    """Win rate and points of the learner against each opponent in this iteration."""
    by_opponent: dict[str, list[dict[str, Any]]] = {}
    for result in results:
        by_opponent.setdefault(result["opponent"], []).append(result)
    for opponent, games in sorted(by_opponent.items()):
        win_rate = float(np.mean([g["win"] for g in games]))
        points = float(np.mean([g["points"] for g in games]))
        model.logger.record(f"selfplay/win_rate/{opponent}", win_rate)
        model.logger.record(f"selfplay/points/{opponent}", points)
        append_progress(
            run_dir,
            {
                "kind": "selfplay",
                "step": step,
                "opponent": opponent,
                "episodes": len(games),
                "win_rate": win_rate,
                "mean_points": points,
            },
        )


def evaluate_and_log(
    model: Any, learner: Learner, config: TrainConfig, run_dir: Path, step: int
) -> str:
    """The learner against each evaluation opponent, one against a field, on the
    same seeded deals every time; logged and returned as one line."""
    policy = Policy(model.policy, meta_for(config, learner, step))
    me = policy_participant("learner", policy, config.eval.learner_play)
    parts = []
    for spec in config.eval.opponents:
        opponent = make_participant(spec, config.env.id, config.env.options)
        result = tournament(
            config.env.id,
            [me, opponent],
            config.eval.games,
            config.eval.seed,
            config.env.options,
            seating="field",
        )
        mine = result.standings[0]
        model.logger.record(f"eval/win_rate/{spec}", mine.win_rate)
        model.logger.record(f"eval/points/{spec}", mine.mean_points)
        append_progress(
            run_dir,
            {
                "kind": "eval",
                "step": step,
                "opponent": spec,
                "games": mine.games,
                "win_rate": mine.win_rate,
                "win_rate_ci": mine.win_rate_ci,
                "mean_points": mine.mean_points,
                "mean_points_ci": mine.mean_points_ci,
                "num_players": result.num_players,
            },
        )
        parts.append(f"vs {spec} {mine.win_rate:.1%} ± {mine.win_rate_ci:.1%}")
    return f"step {step}: win rate " + ", ".join(parts)


def meta_for(config: TrainConfig, learner: Learner, step: int) -> CheckpointMeta:
    """What a checkpoint of this run says it was trained for."""
    size, actions, options = env_shapes(config.env.id, config.env.options)
    return CheckpointMeta(
        env_id=config.env.id,
        env_options=options,
        observation_size=size,
        num_actions=actions,
        algo=learner.name,
        network=learner.network_config(config.algo),
        steps=step,
        seed=config.seed,
        git_commit=git_commit(),
        advisor=config.env.advisor,
    )


def save_policy(
    model: Any,
    learner: Learner,
    config: TrainConfig,
    path: Path,
    step: int,
    resumable: bool = False,
) -> Path:
    """A checkpoint zip, loadable by ``load_policy``: the policy network alone
    (small), or with everything ``--resume`` needs besides (optimizer, counters,
    schedules, generator states). Written atomically."""
    members = learner.network_members(model)
    if resumable:
        members |= learner.state_members(model)
        members[GENERATORS_MEMBER] = json_bytes(generator_states())
    members |= meta_member(meta_for(config, learner, step))
    return write_checkpoint(path, members)


def save_snapshot(
    model: Any, learner: Learner, config: TrainConfig, run_dir: Path, step: int, venv: Any
) -> str:
    """Freeze the learner into the opponent pool of every env; return its path
    relative to the run folder."""
    relative = f"snapshots/step_{step:09d}.zip"
    save_policy(model, learner, config, run_dir / relative, step)
    venv.env_method("add_snapshot", str(run_dir / relative))
    return relative


def save_checkpoint(
    model: Any,
    learner: Learner,
    config: TrainConfig,
    run_dir: Path,
    step: int,
    snapshots: list[str],
    phase: str,
) -> str:
    """A resumable checkpoint, then ``state.json`` pointing at it (written last,
    atomically: a crash in between leaves the previous checkpoint in charge);
    returns the checkpoint's path in the run folder."""
    relative = f"checkpoints/step_{step:09d}.zip"
    save_policy(model, learner, config, run_dir / relative, step, resumable=True)
    write_state(run_dir, RunState(step, relative, phase, list(snapshots), log_lengths(run_dir)))
    return relative
