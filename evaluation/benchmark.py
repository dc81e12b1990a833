"""``flockgym benchmark SPEC.yaml``: learners x games x seeds at one budget,
each final policy measured against a fixed ladder, aggregated over seeds.

A benchmark is a grid read from a YAML spec (:class:`BenchmarkSpec`): every
learner (a ``flockgym train`` config) is trained on every game for every seed,
``budget`` learner steps each, then its final policy plays ``eval_deals``
duplicate deals against each rung of the reference ladder (:data:`LADDER`):
the random bot, the heuristic bot and the shipped bot of that game and table
size where one exists. A run's score against a rung is its win rate there:
alone among that bot at a table of more than 2, both seats of every deal at 2.

The scores are aggregated over seeds and games with rliable (Agarwal et al.,
"Deep RL at the Edge of the Statistical Precipice", 2021): the interquartile
mean with 95% stratified bootstrap intervals, the probability that one
learner's run beats another's, and performance profiles (the share of runs
scoring above each win rate), written as ``report.md``, ``benchmark.json`` and
PNG plots in the output folder.

Resumable: every run is an ordinary run folder under ``OUT/runs/``. A finished
run is skipped, a run cut short is continued from its newest checkpoint
(``flockgym train --resume``), a run folder that never reached its first
checkpoint is started again, and a run's evaluation is saved beside it and not
played twice. A run folder trained with another config than the spec now gives
is an error, never silently reused.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import math
import os
import re
import shutil
import sys
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from flockgym.bots.shipped import game_folder, shipped_checkpoints
from flockgym.common.errors import ConfigError, RunError
from flockgym.common.files import write_text_atomic
from flockgym.common.progress import Progress, format_seconds
from flockgym.common.provenance import Clock, cpu_seconds
from flockgym.common.version import git_commit
from flockgym.envs import list_envs, make
from flockgym.envs.core.reader import read_json
from flockgym.evaluation import benchmark_stats as bs
from flockgym.evaluation.tournaments import TournamentResult, tournament
from flockgym.training.config import (
    TrainConfig,
    apply_override,
    config_to_yaml,
    read_yaml,
    read_yaml_file,
)

RESULT_FORMAT = "flockgym-benchmark"
RESULT_VERSION = 2
"""2: scores normalised by the fair share, per-game tables, seeded bootstrap."""
EVAL_FILE = "benchmark_eval.json"
"""A run's ladder evaluation, saved in its run folder."""
TRAIN_FILE = "benchmark_train.json"
"""The wall seconds the benchmark spent training a run (summed over resumes)."""
LADDER = ("random", "heuristic", "shipped")
"""The reference ladder every final policy meets, weakest first; ``shipped`` is
the game's shipped bot at that table size, on the games that have one."""
MAX_RUNS = 10_000
"""Most runs one grid may hold (learners x games x seeds)."""
MAX_BUDGET = 1_000_000_000
MAX_DEALS = 100_000
MAX_CURVE_POINTS = 100
CURVE_FILE = "benchmark_curve.json"
"""A run's ladder evaluations at its curve points, saved in its run folder."""
OWNED_KEYS = ("env.id", "env.options", "total_steps", "seed", "output", "progress_bar", "eval")
"""Config keys the benchmark sets itself in every run (a learner's or game's
``set`` may not touch them)."""


# ---- the spec -------------------------------------------------------------------------


class SpecSection(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GameSpec(SpecSection):
    """One game of the grid: an env at one table size."""

    env: str = Field(description="registered env id, e.g. asrus_v0")
    options: dict[str, Any] = Field(
        default_factory=dict, description="env options, e.g. {num_players: 4, reward: score}"
    )
    set: dict[str, Any] = Field(
        default_factory=dict,
        description="config overrides for this game's runs, e.g. {env.reward_scale: 0.05}",
    )


class LearnerSpec(SpecSection):
    """One learner of the grid: a ``flockgym train`` config and overrides."""

    name: str = Field(
        pattern=r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$",
        description="the learner's label in the report and its runs' folder name",
    )
    config: str = Field(description="a flockgym train config, relative to the spec's folder")
    set: dict[str, Any] = Field(
        default_factory=dict,
        description="config overrides for this learner's runs, e.g. {algo.n_steps: 64}",
    )


class BenchmarkSpec(SpecSection):
    """A benchmark grid (the keys of a spec file)."""

    name: str = Field(
        pattern=r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$",
        description="the benchmark's name (the default output folder runs/benchmark/<name>)",
    )
    budget: int = Field(ge=1, le=MAX_BUDGET, description="learner steps per run (total_steps)")
    seeds: list[int] = Field(
        min_length=1, description="training seeds, each run once per learner and game"
    )
    games: list[GameSpec] = Field(min_length=1, description="the games (env and options)")
    learners: list[LearnerSpec] = Field(min_length=1, description="the learners")
    eval_deals: int = Field(
        100, ge=2, le=MAX_DEALS, description="duplicate deals per ladder rung and run"
    )
    eval_seed: int = Field(
        20_260_101,
        ge=0,
        le=2**63 - 1,
        description="seed of the evaluation deals (not a training seed's)",
    )
    bootstrap_reps: int = Field(
        2000, ge=100, le=100_000, description="bootstrap resamples of every interval"
    )
    checkpoint_every: int | None = Field(
        None,
        ge=1,
        le=MAX_BUDGET,
        description="steps between resumable checkpoints of a run (default: the "
        "learner config's output.checkpoint_every)",
    )
    curve_points: int | None = Field(
        None,
        ge=2,
        le=MAX_CURVE_POINTS,
        description="points of each run's sample-efficiency curve: the ladder played "
        "at budget x k / curve_points learner steps, k = 1..curve_points, from the "
        "run's checkpoints (default: none, the final policy only)",
    )

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        """The spec's keys; ``curve_points`` only where it is set, so a grid saved
        before curves existed still equals the spec it ran."""
        data = super().model_dump(**kwargs)
        if data.get("curve_points") is None:
            data.pop("curve_points", None)
        return data

    @field_validator("seeds")
    @classmethod
    def distinct_seeds(cls, seeds: list[int]) -> list[int]:
        if any(s < 0 for s in seeds) or len(set(seeds)) != len(seeds):
            raise ValueError(f"allowed: distinct integers >= 0, got {seeds}")
        return seeds


SPEC_SECTIONS: dict[str, type[SpecSection]] = {
    "": BenchmarkSpec,
    "games": GameSpec,
    "learners": LearnerSpec,
}


def spec_errors(err: ValidationError) -> str:
    """Each problem on one line: the key (``games[1].options``), what was given
    and what is allowed (an unknown key lists the known ones)."""
    lines = []
    for problem in err.errors():
        loc = problem["loc"]
        key = ""
        for part in loc:
            key += f"[{part}]" if isinstance(part, int) else (f".{part}" if key else str(part))
        if problem["type"] == "extra_forbidden":
            section = SPEC_SECTIONS[str(loc[0]) if len(loc) > 1 else ""]
            lines.append(f"unknown key {key}; allowed keys here: {', '.join(section.model_fields)}")
        elif problem["type"] == "missing":
            section = SPEC_SECTIONS[str(loc[0]) if len(loc) > 1 else ""]
            field = section.model_fields[str(loc[-1])]
            lines.append(f"missing key {key} ({field.description})")
        else:
            lines.append(f"{key} = {problem['input']!r:.80}: {problem['msg']}{expected_at(loc)}")
    return "; ".join(lines)


def expected_at(loc: tuple[Any, ...]) -> str:
    """What belongs at ``loc``, for a value of the wrong shape: an item of games or
    learners is a mapping with its section's keys; a top-level key, its description."""
    if len(loc) == 2 and isinstance(loc[1], int) and str(loc[0]) in SPEC_SECTIONS:
        keys = ", ".join(SPEC_SECTIONS[str(loc[0])].model_fields)
        return f" (each item of {loc[0]} is a mapping with keys {keys})"
    if len(loc) == 1 and str(loc[0]) in BenchmarkSpec.model_fields:
        return f" ({loc[0]}: {BenchmarkSpec.model_fields[str(loc[0])].description})"
    return ""


def load_spec(path: str | Path) -> BenchmarkSpec:
    """Read and check a spec file: its keys and values, every env id and every
    learner config (each run's resolved config is validated too, before any run
    starts, by :func:`plan_runs`)."""
    path = Path(path)
    raw = read_yaml_file(path, "spec")
    if not isinstance(raw, dict):
        raise ConfigError(
            f"{path}: a benchmark spec is a mapping of keys, got {type(raw).__name__}"
        )
    try:
        spec = BenchmarkSpec.model_validate(raw)
    except ValidationError as err:
        raise ConfigError(f"{path}: invalid benchmark spec: {spec_errors(err)}") from None
    problems = spec_problems(spec)
    if problems:
        raise ConfigError(f"{path}: invalid benchmark spec: {'; '.join(problems)}")
    return spec


def spec_problems(spec: BenchmarkSpec) -> list[str]:
    """What the models cannot see: known env ids, distinct names, keys the
    benchmark owns, and the grid's size."""
    problems = []
    envs = list_envs()
    for i, game in enumerate(spec.games):
        if game.env not in envs:
            problems.append(f"games[{i}].env = {game.env!r}: allowed: {', '.join(envs)}")
    labels = [game_label(g) for g in spec.games if g.env in envs]
    problems += [f"games: {label} is listed twice" for label in duplicates(labels)]
    names = [learner.name for learner in spec.learners]
    problems += [f"learners: the name {name!r} is used twice" for name in duplicates(names)]
    for where, sets in [(f"games[{i}].set", g.set) for i, g in enumerate(spec.games)] + [
        (f"learners[{i}].set", learner.set) for i, learner in enumerate(spec.learners)
    ]:
        for key in sets:
            owned = [k for k in OWNED_KEYS if key == k or key.startswith(f"{k}.")]
            if owned:
                problems.append(
                    f"{where}: {key} is set by the benchmark for every run (budget, seeds, "
                    f"games, eval_deals); keys it owns: {', '.join(OWNED_KEYS)}"
                )
    problems += curve_problems(spec)
    runs = len(spec.learners) * len(spec.games) * len(spec.seeds)
    if runs > MAX_RUNS:
        problems.append(f"the grid has {runs} runs; allowed: at most {MAX_RUNS}")
    return problems


def curve_problems(spec: BenchmarkSpec) -> list[str]:
    """The curve's points must fall on checkpoints: ``curve_points`` divides the
    budget, and a given ``checkpoint_every`` is at most the points' spacing (a
    checkpoint is written at the end of the rollout that crosses each multiple
    of it, so one follows every point within that many steps and a rollout)."""
    points = spec.curve_points
    if points is None:
        return []
    if spec.budget % points:
        top = min(spec.budget, MAX_CURVE_POINTS)
        divisors = [n for n in range(2, top + 1) if not spec.budget % n]
        return [
            f"curve_points = {points}: it must divide budget = {spec.budget} (the points are "
            f"budget x k / curve_points steps); allowed here: "
            f"{', '.join(map(str, divisors[:12])) or 'none (change the budget)'}"
        ]
    spacing = spec.budget // points
    if spec.checkpoint_every is not None and spec.checkpoint_every > spacing:
        return [
            f"checkpoint_every = {spec.checkpoint_every}: with curve_points = {points} the points "
            f"are {spacing} steps apart and each needs a checkpoint after it; allowed: at most "
            f"{spacing} (a divisor of {spacing} puts one at the end of the rollout that crosses "
            f"each point), or no checkpoint_every (then it is {spacing})"
        ]
    return []


def curve_steps(spec: BenchmarkSpec) -> list[int]:
    """The learner steps of the curve's points, the last the budget (the final policy)."""
    if spec.curve_points is None:
        return []
    return [spec.budget * k // spec.curve_points for k in range(1, spec.curve_points + 1)]


def duplicates(items: list[str]) -> list[str]:
    return sorted({x for x in items if items.count(x) > 1})


def game_label(game: GameSpec) -> str:
    """``asrus_v0-5p``: a game's name in the report and its runs' folder name."""
    return f"{game.env}-{num_players(game)}p"


def num_players(game: GameSpec) -> int:
    """The table size the game's options give (the env's default when unset)."""
    env = make(game.env, **game.options)
    try:
        return len(env.possible_agents)
    finally:
        env.close()


# ---- the runs -------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """One cell of the grid: a learner trained on a game from a seed."""

    learner: str
    game: str
    seed: int
    config: TrainConfig
    run_dir: Path

    @property
    def label(self) -> str:
        return f"{self.learner} / {self.game} / seed {self.seed}"


def run_config(
    spec: BenchmarkSpec, spec_dir: Path, learner: LearnerSpec, game: GameSpec, seed: int, out: Path
) -> TrainConfig:
    """The learner's config with the game's env, the spec's budget and the seed:
    what ``flockgym train`` would run, validated as it would be."""
    from flockgym.training.config import validate_config

    path = spec_dir / learner.config
    try:
        raw = read_yaml_file(path, "learner config")
    except ConfigError as err:
        raise ConfigError(f"learner {learner.name}: {err}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"learner {learner.name}: {path} is not a config (a mapping)")
    raw.setdefault("env", {})
    raw["env"]["id"] = game.env
    raw["env"]["options"] = dict(game.options)
    for key, value in {**game.set, **learner.set}.items():
        apply_override(raw, f"{key}={json.dumps(value)}")
    raw["total_steps"] = spec.budget
    raw["seed"] = seed
    raw["progress_bar"] = False
    # The run's own evaluation is the cheapest there is; the benchmark measures.
    raw["eval"] = {"every": 0, "games": 2, "opponents": ["random"], "tournament_games": 0}
    output: dict[str, Any] = {
        "dir": str(out / "runs" / learner.name / game_label(game)),
        "name": f"seed{seed}",
    }
    spacing = spec.budget // spec.curve_points if spec.curve_points else None
    output["checkpoint_every"] = (
        spec.checkpoint_every or spacing or raw.get("output", {}).get("checkpoint_every", 100_000)
    )
    raw["output"] = output
    try:
        return validate_config(raw)
    except ConfigError as err:
        raise ConfigError(f"learner {learner.name} ({path}) on {game_label(game)}: {err}") from None


def plan_runs(spec: BenchmarkSpec, spec_dir: Path, out: Path) -> list[Run]:
    """Every run of the grid, its config validated, learner by learner."""
    runs = []
    for learner in spec.learners:
        for game in spec.games:
            for seed in spec.seeds:
                config = run_config(spec, spec_dir, learner, game, seed, out)
                run_dir = Path(config.output.dir) / str(config.output.name)
                runs.append(Run(learner.name, game_label(game), seed, config, run_dir))
    return runs


RunStatus = Literal["new", "restart", "resume", "trained", "evaluated"]


def run_status(run: Run, ladder: list[str], spec: BenchmarkSpec) -> RunStatus:
    """Where a run stands: ``new`` (no folder), ``restart`` (a folder without a
    checkpoint yet), ``resume`` (cut short), ``trained`` (not yet measured),
    ``evaluated`` (nothing to do). A folder of another config is an error."""
    from flockgym.training.runs import read_state

    if not run.run_dir.exists():
        return "new"
    saved = run.run_dir / "config.yaml"
    if saved.is_file() and portable(read_yaml_file(saved, "run config")) != portable(
        read_yaml(config_to_yaml(run.config))
    ):
        raise RunError(
            f"{run.run_dir} was trained with another config than the spec now gives "
            f"({run.label}); move it away, or give another --out"
        )
    if not (run.run_dir / "state.json").is_file():
        return "restart"
    state = read_state(run.run_dir)
    trained_for = saved_budget(saved) if saved.is_file() else state.step
    if trained_for > run.config.total_steps:
        raise RunError(
            f"{run.run_dir} was trained for {trained_for} steps, past the spec's budget "
            f"{run.config.total_steps} ({run.label}); give another --out"
        )
    if not state.finished or state.step < run.config.total_steps:
        return "resume"
    if read_evaluation(run, ladder, spec) is None or curve_missing(run, ladder, spec):
        return "trained"
    return "evaluated"


def saved_budget(saved: Path) -> int:
    """The budget a run folder was trained for, from its saved config: a finished
    run stops at the end of its last rollout, a little past the budget, so its
    step count alone cannot say whether a smaller budget was asked for."""
    raw = read_yaml_file(saved, "run config")
    steps = raw.get("total_steps") if isinstance(raw, dict) else None
    if not isinstance(steps, int):
        raise RunError(f"{saved} has no total_steps; move the run away, or give another --out")
    return steps


def portable(raw: Any) -> Any:
    """A resolved config (as read from YAML) without ``output.dir`` and
    ``total_steps``: a benchmark folder moved or copied elsewhere still holds the
    same runs, and a larger budget trains them on."""
    if isinstance(raw, dict):
        raw.pop("total_steps", None)
        if isinstance(raw.get("output"), dict):
            raw["output"].pop("dir", None)
    return raw


def train_run(run: Run, status: RunStatus, log: Path) -> None:
    """Train (or resume, or start again) one run, its output in ``log``."""
    from flockgym.training.train import train

    if status == "restart":  # nothing resumable was written: start it again
        shutil.rmtree(run.run_dir)
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a") as stream, contextlib.redirect_stdout(stream):
        print(f"---- {time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} UTC: {status}")
        train(
            run.config, config_stem=run.learner, resume=run.run_dir if status == "resume" else None
        )


# ---- the ladder -----------------------------------------------------------------------


def ladder_specs(env_id: str, players: int) -> dict[str, str]:
    """The rungs a game's policies meet: ``{"random": "random", "heuristic":
    "heuristic", "shipped": "<game>/ppo_<N>p"}``, the last where it is shipped."""
    rungs = {"random": "random", "heuristic": "heuristic"}
    name = f"{game_folder(env_id)}/ppo_{players}p"
    if name in shipped_checkpoints():
        rungs["shipped"] = name
    return rungs


def evaluate_run(run: Run, spec: BenchmarkSpec) -> dict[str, Any]:
    """The run's final policy against every rung: its win rate and mean points
    (field seating at a table of more than 2, every seat at 2)."""

    started = time.monotonic()
    evaluation = {
        "eval_deals": spec.eval_deals,
        "eval_seed": spec.eval_seed,
        "step": read_state_step(run),
        "scores": ladder_scores(run, run.run_dir / "final.zip", spec),
        "seconds": round(time.monotonic() - started, 3),
    }
    write_text_atomic(run.run_dir / EVAL_FILE, json.dumps(evaluation, indent=2) + "\n")
    return evaluation


def ladder_scores(run: Run, policy: Path, spec: BenchmarkSpec) -> dict[str, Any]:
    """``policy`` (a checkpoint of the run) against every rung: its win rate and
    mean points on the spec's deals (field seating at a table of more than 2,
    every seat at 2)."""
    from flockgym.bots.policies import make_participant

    env_id, options = run.config.env.id, run.config.env.options
    players = num_players(GameSpec(env=env_id, options=options))
    scores = {}
    for rung, bot in ladder_specs(env_id, players).items():
        result = tournament(
            env_id,
            [
                make_participant(str(policy), env_id, options, name="final"),
                make_participant(bot, env_id, options),
            ],
            spec.eval_deals,
            spec.eval_seed,
            options,
            seating="field" if players > 2 else "rotate",
        )
        scores[rung] = rung_score(result, bot)
    return scores


# ---- the sample-efficiency curve --------------------------------------------------------

CHECKPOINT_NAME = re.compile(r"step_(\d{9,15})\.zip")


def checkpoint_steps(run: Run) -> list[int]:
    """The steps of the run's saved checkpoints, up to the step it reached."""
    from flockgym.training.runs import read_state

    reached = read_state(run.run_dir).step
    found = [CHECKPOINT_NAME.fullmatch(p.name) for p in (run.run_dir / "checkpoints").iterdir()]
    return sorted(int(m[1]) for m in found if m is not None and int(m[1]) <= reached)


def curve_plan(run: Run, spec: BenchmarkSpec) -> list[tuple[int, int]]:
    """Each curve point's planned step and the checkpoint that stands for it: the
    first saved at or after that step (training checkpoints at every multiple of
    checkpoint_every, at the end of the rollout that crosses it; the last point
    is the final policy's)."""
    saved = checkpoint_steps(run)
    plan = []
    for step in curve_steps(spec):
        later = [s for s in saved if s >= step]
        if not later:
            raise RunError(
                f"{run.run_dir} has no checkpoint at or after step {step} for its curve "
                f"(checkpoints at {', '.join(map(str, saved)) or 'none'}); the run folder "
                "lacks the checkpoints of its curve: move it away, or give another --out"
            )
        plan.append((step, later[0]))
    return plan


def read_curve(run: Run, ladder: list[str], spec: BenchmarkSpec) -> dict[str, Any]:
    """The run's saved curve points, ``{checkpoint step: scores}``, where they
    were played on this spec's deals against every rung; else none."""
    try:
        saved = read_json(run.run_dir / CURVE_FILE, "saved curve")
    except (OSError, ValueError):
        return {}
    if not (
        isinstance(saved, dict)
        and saved.get("eval_deals") == spec.eval_deals
        and saved.get("eval_seed") == spec.eval_seed
        and isinstance(saved.get("points"), dict)
    ):
        return {}
    return {
        step: scores
        for step, scores in saved["points"].items()
        if isinstance(scores, dict) and sorted(scores) == sorted(ladder)
    }


def curve_missing(run: Run, ladder: list[str], spec: BenchmarkSpec) -> bool:
    """Whether a curve point of the run is still to be played."""
    if spec.curve_points is None:
        return False
    final = read_state_step(run)
    done = read_curve(run, ladder, spec)
    return any(c != final and str(c) not in done for _, c in curve_plan(run, spec))


def read_state_step(run: Run) -> int:
    from flockgym.training.runs import read_state

    return read_state(run.run_dir).step


def evaluate_curve(
    run: Run, ladder: list[str], spec: BenchmarkSpec, final: dict[str, Any]
) -> list[dict[str, Any]]:
    """The run's curve: the ladder at each point's checkpoint. A point already
    played (saved in the run folder, written after every point) is not played
    again, so a crashed benchmark resumes where it stopped; the point of the
    final checkpoint is the final policy's evaluation."""
    end = read_state_step(run)
    done = read_curve(run, ladder, spec)
    points = []
    for step, checkpoint in curve_plan(run, spec):
        if checkpoint == end:
            scores = final["scores"]
        elif str(checkpoint) in done:
            scores = done[str(checkpoint)]
        else:
            path = run.run_dir / "checkpoints" / f"step_{checkpoint:09d}.zip"
            scores = done[str(checkpoint)] = ladder_scores(run, path, spec)
            record = {"eval_deals": spec.eval_deals, "eval_seed": spec.eval_seed, "points": done}
            write_text_atomic(run.run_dir / CURVE_FILE, json.dumps(record, indent=2) + "\n")
        points.append({"step": step, "checkpoint_step": checkpoint, "scores": scores})
    return points


def rung_score(result: TournamentResult, bot: str) -> dict[str, Any]:
    """What the report keeps of one tournament: the final policy's row."""
    row = next(s for s in result.standings if s.name == "final")
    return {
        "bot": bot,
        "win_rate": row.win_rate,
        "win_rate_ci": row.win_rate_ci,
        "mean_points": row.mean_points,
        "games": row.games,
    }


def read_evaluation(run: Run, ladder: list[str], spec: BenchmarkSpec) -> dict[str, Any] | None:
    """The run's saved evaluation if it is this spec's (same deals, every rung), else None."""
    path = run.run_dir / EVAL_FILE
    try:
        saved = read_json(path, "saved evaluation")
    except (OSError, ValueError):
        return None
    same = (
        isinstance(saved, dict)
        and saved.get("eval_deals") == spec.eval_deals
        and saved.get("eval_seed") == spec.eval_seed
        and isinstance(saved.get("scores"), dict)
        and sorted(saved["scores"]) == sorted(ladder)
    )
    return saved if same else None


# ---- aggregation ----------------------------------------------------------------------


@contextlib.contextmanager
def numpy_global_seed(seed: int) -> Iterator[None]:
    """rliable's performance profiles draw from numpy's global generator: seed
    it for the report to repeat, and give the caller's state back."""
    state = np.random.get_state()
    np.random.seed(seed % 2**32)
    try:
        yield
    finally:
        np.random.set_state(state)


def players_in(game: str) -> int:
    """The table size of a game label (``asrus_v0-5p``: 5)."""
    match = re.fullmatch(r".+-(\d+)p", game)
    if match is None:
        raise RunError(f"game label {game!r} does not end in -<players>p")
    return int(match[1])


def normalised(win_rate: float, players: int) -> float:
    """A win rate as a share of the way from the fair share ``1/n`` (0) to
    winning every game (1): ``(win - 1/n) / (1 - 1/n)``. Raw win rates of 5-
    and 4-seat games are not one scale (an equal player wins 20% and 25%), so
    the aggregates pool these instead."""
    fair = 1.0 / players
    return (win_rate - fair) / (1.0 - fair)


def score_matrices(
    rows: list[dict[str, Any]], rung: str, key: str = "normalised"
) -> tuple[dict[str, np.ndarray], list[str]]:
    """``{learner: (seeds x games) scores}`` against ``rung`` (``key``:
    ``normalised`` or ``win_rate``), over the games that have that rung, and
    those games' labels (``rows``: benchmark.json's runs)."""
    games = sorted({r["game"] for r in rows if rung in r["scores"]})
    learners = list(dict.fromkeys(r["learner"] for r in rows))
    seeds = sorted({r["seed"] for r in rows})
    matrices = {}
    for learner in learners:
        cells = {}
        for r in rows:
            if r["learner"] == learner and r["game"] in games:
                win = r["scores"][rung]["win_rate"]
                score = normalised(win, players_in(r["game"])) if key == "normalised" else win
                cells[(r["seed"], r["game"])] = score
        matrices[learner] = np.array([[cells[(s, g)] for g in games] for s in seeds])
    return matrices, games


def aggregate(rows: list[dict[str, Any]], spec: BenchmarkSpec, out: Path) -> dict[str, Any]:
    """The aggregates against every rung (:func:`aggregate_rung`) and the IQM
    plot, from the runs as benchmark.json records them (so a saved grid is
    aggregated again without its run folders)."""
    ladder = sorted({rung for r in rows for rung in r["scores"]}, key=LADDER.index)
    result: dict[str, Any] = {"method": BOOTSTRAP_METHOD, "score": SCORE}
    for rung in ladder:
        result[rung] = aggregate_rung(rows, spec, out, rung)
    result["iqm_plot"] = plot_iqm(result, ladder, out / "iqm.png").name
    if rows and all(r.get("curve") for r in rows):
        result["curves"] = {rung: aggregate_curve(rows, spec, out, rung) for rung in ladder}
    return result


def curve_tensors(
    rows: list[dict[str, Any]], rung: str
) -> tuple[dict[str, np.ndarray], list[str], list[int]]:
    """``{learner: (seeds x games x steps) normalised scores}`` at the curve
    points against ``rung``, those games' labels and the points' planned steps."""
    games = sorted({r["game"] for r in rows if rung in r["scores"]})
    learners = list(dict.fromkeys(r["learner"] for r in rows))
    seeds = sorted({r["seed"] for r in rows})
    steps = [point["step"] for point in rows[0]["curve"]]
    cells = {}
    for r in rows:
        if r["game"] in games:
            if [point["step"] for point in r["curve"]] != steps:
                raise RunError(f"the runs' curves have different points ({r['run_dir']})")
            cells[(r["learner"], r["seed"], r["game"])] = [
                normalised(point["scores"][rung]["win_rate"], players_in(r["game"]))
                for point in r["curve"]
            ]
    tensors = {
        learner: np.array([[cells[(learner, s, g)] for g in games] for s in seeds])
        for learner in learners
    }
    return tensors, games, steps


def aggregate_curve(
    rows: list[dict[str, Any]], spec: BenchmarkSpec, out: Path, rung: str
) -> dict[str, Any]:
    """The sample-efficiency curves against one rung: at every point, the IQM
    over all runs and games, and each game's mean over seeds, each with its
    95% stratified bootstrap interval (the benchmark's seeded resampling; the
    intervals rliable's ``get_interval_estimates`` gives on the same
    resamples), plotted with rliable's ``plot_sample_efficiency_curve``."""
    tensors, games, steps = curve_tensors(rows, rung)
    seed, reps = spec.eval_seed, spec.bootstrap_reps
    iqm = {
        k: bs.curve_interval(t, bs.iqm_steps, reps, seed, f"curve {rung} {k}")
        for k, t in tensors.items()
    }
    per_game = {
        game: {
            k: bs.curve_interval(
                t[:, j : j + 1], bs.mean_steps, reps, seed, f"curve {rung} {k} {game}"
            )
            for k, t in tensors.items()
        }
        for j, game in enumerate(games)
    }
    plot = plot_curves(steps, games, iqm, per_game, rung, out / f"curve_{rung}.png")
    return {
        "steps": steps,
        "most_steps_past_point": max(
            p["checkpoint_step"] - p["step"] for r in rows for p in r["curve"]
        ),
        "games": games,
        "iqm": {k: v[0] for k, v in iqm.items()},
        "iqm_ci": {k: v[1] for k, v in iqm.items()},
        "per_game": {
            game: {k: {"mean": v[0], "ci": v[1]} for k, v in cells.items()}
            for game, cells in per_game.items()
        },
        "plot": plot.name,
    }


Curve = tuple[list[float], list[list[float]]]


def plot_curves(
    steps: list[int],
    games: list[str],
    iqm: dict[str, Curve],
    per_game: dict[str, dict[str, Curve]],
    rung: str,
    path: Path,
) -> Path:
    """The curves against one rung as a PNG: the IQM over games, then each game,
    every learner with its interval band (rliable's ``plot_sample_efficiency_curve``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from rliable import plot_utils

    panels = [("IQM over games", iqm)] + [(f"{g} (mean over seeds)", per_game[g]) for g in games]
    fig, axes = plt.subplots(1, len(panels), figsize=(4.5 * len(panels), 3.8), squeeze=False)
    for ax, (title, curves) in zip(axes[0], panels, strict=True):
        plot_utils.plot_sample_efficiency_curve(
            np.array(steps),
            {k: np.array(v[0]) for k, v in curves.items()},
            {k: np.array(v[1]) for k, v in curves.items()},
            algorithms=list(curves),
            xlabel="learner steps",
            ylabel=f"normalised score vs {rung}",
            ax=ax,
            labelsize="medium",
            ticklabelsize="small",
        )
        ax.axhline(0.0, color="grey", linewidth=0.8)
        ax.set_title(title, fontsize="medium")
    axes[0][0].legend(
        [
            plt.Line2D([0], [0], color=line.get_color())
            for line in axes[0][0].get_lines()[: len(iqm)]
        ],
        list(iqm),
        fontsize="small",
        loc="best",
    )
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


BOOTSTRAP_METHOD = (
    "stratified bootstrap (each game's runs resampled with replacement within that game, "
    "as rliable's StratifiedBootstrap), percentile intervals, its own numpy generator seeded "
    "by eval_seed and the interval's label"
)
SCORE = "fair-share normalised win rate (win rate - 1/n) / (1 - 1/n), n the table's seats"
COVERAGE_SIMS = 200
"""Simulated grids behind each stated coverage of the IQM interval."""


def aggregate_rung(
    rows: list[dict[str, Any]], spec: BenchmarkSpec, out: Path, rung: str
) -> dict[str, Any]:
    """IQM with stratified bootstrap intervals, probability of improvement and
    performance profiles against one rung (every interval seeded by the spec's
    eval_seed, so the same runs give the same report); its profile plot in ``out``."""
    from rliable import library as rly

    matrices, games = score_matrices(rows, rung)
    raw, _ = score_matrices(rows, rung, "win_rate")
    seed, reps = spec.eval_seed, spec.bootstrap_reps
    iqm = {k: bs.iqm_interval(m, reps, seed, f"iqm {rung} {k}") for k, m in matrices.items()}
    poi = {
        f"{a},{b}": bs.improvement_interval(
            matrices[a], matrices[b], reps, seed, f"poi {rung} {a} {b}"
        )
        for a in matrices
        for b in matrices
        if a != b
    }
    coverage = {
        k: bs.iqm_coverage(
            m, reps, COVERAGE_SIMS, int(bs.label_rng(seed, f"cov {rung} {k}").integers(2**32))
        )
        for k, m in matrices.items()
    }
    per_game = {
        learner: {
            game: {
                "win_rate": float(raw[learner][:, j].mean()),
                "normalised": list(
                    bs.mean_interval(m[:, j], reps, seed, f"game {rung} {learner} {game}")
                ),
            }
            for j, game in enumerate(games)
        }
        for learner, m in matrices.items()
    }
    taus = np.linspace(-0.5, 1.0, 151)
    with numpy_global_seed(seed), warnings.catch_warnings():
        # rliable draws its profile bands from numpy's global generator (seeded
        # here) and arch warns on the RandomState it is handed
        warnings.filterwarnings("ignore", "random_state is deprecated", FutureWarning)
        profiles, profile_cis = rly.create_performance_profile(matrices, taus, reps=reps)
    plot = plot_profiles(profiles, profile_cis, taus, rung, out / f"profile_{rung}.png")
    return {
        "games": games,
        "iqm": {k: v[0] for k, v in iqm.items()},
        "iqm_ci": {k: v[1] for k, v in iqm.items()},
        "iqm_ci_coverage": coverage,
        "probability_of_improvement": {k: v[0] for k, v in poi.items()},
        "probability_of_improvement_ci": {k: v[1] for k, v in poi.items()},
        "per_game": per_game,
        "profile_plot": plot.name,
    }


def plot_profiles(
    profiles: dict[str, np.ndarray],
    cis: dict[str, np.ndarray],
    taus: np.ndarray,
    rung: str,
    path: Path,
) -> Path:
    """The performance profiles against one rung, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from rliable import plot_utils

    fig, ax = plt.subplots(figsize=(6, 4))
    plot_utils.plot_performance_profiles(
        profiles,
        taus,
        performance_profile_cis=cis,
        ax=ax,
        xlabel=f"normalised score against {rung} (tau; 0 = fair share, 1 = every game won)",
        ylabel="fraction of runs with score > tau",
    )
    ax.legend(ax.get_lines(), list(profiles), loc="upper right")
    ax.set_title(f"Performance profiles against {rung}")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def plot_iqm(result: dict[str, Any], ladder: list[str], path: Path) -> Path:
    """The IQM normalised score of every learner against every rung, with its interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    learners = list(result[ladder[0]]["iqm"])
    fig, axes = plt.subplots(1, len(ladder), figsize=(4 * len(ladder), 0.6 * len(learners) + 1.5))
    for ax, rung in zip(np.atleast_1d(axes), ladder, strict=True):
        for y, learner in enumerate(learners):
            low, high = result[rung]["iqm_ci"][learner]
            ax.barh(y, high - low, left=low, height=0.6, alpha=0.6)
            ax.plot([result[rung]["iqm"][learner]] * 2, [y - 0.3, y + 0.3], color="black")
        ax.set_yticks(range(len(learners)), learners if rung == ladder[0] else [""] * len(learners))
        ax.axvline(0.0, color="grey", linewidth=0.8)
        ax.set_xlim(-0.5, 1)
        ax.set_xlabel(f"IQM normalised score vs {rung}")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


# ---- the report -----------------------------------------------------------------------


def per_game_table(rows: list[dict[str, Any]]) -> list[str]:
    """Mean win rate (and its spread over seeds) per learner, game and rung."""
    lines = [
        "| learner | game | rung | bot | mean win rate over seeds | min - max |",
        "| --- | --- | --- | --- | ---: | ---: |",
    ]
    cells: dict[tuple[str, str, str], list[float]] = {}
    bots: dict[tuple[str, str, str], str] = {}
    for r in rows:
        for rung, score in r["scores"].items():
            cells.setdefault((r["learner"], r["game"], rung), []).append(score["win_rate"])
            bots[(r["learner"], r["game"], rung)] = score["bot"]
    for (learner, game, rung), rates in cells.items():
        lines.append(
            f"| {learner} | {game} | {rung} | {bots[(learner, game, rung)]} | "
            f"{np.mean(rates):.1%} | {min(rates):.1%} - {max(rates):.1%} |"
        )
    return lines


def run_commits(rows: list[dict[str, Any]]) -> str:
    """Which commits trained the runs, as each run folder recorded it."""
    counts: dict[str, int] = {}
    for r in rows:
        commit = r.get("commit") or "not recorded"
        counts[commit] = counts.get(commit, 0) + 1
    if list(counts) == ["not recorded"]:
        return (
            "The runs' own commits are not in this file (saved before the benchmark recorded "
            "them; each run folder's run.json names its commit)."
        )
    parts = [f"{commit[:12]} ({plural(n, 'run')})" for commit, n in counts.items()]
    return f"The runs were trained at commit {', '.join(parts)}."


def rung_games_table(rung_result: dict[str, Any], rung: str) -> list[str]:
    """The aggregate's games one by one: each learner's mean normalised score
    over seeds on each game against ``rung``, its 95% bootstrap interval over
    seeds, and the mean raw win rate."""
    games = rung_result["games"]
    lines = [
        f"Against {rung}, game by game (mean normalised score over seeds [95% interval], "
        "mean win rate):",
        "",
        "| learner | " + " | ".join(games) + " |",
        "| --- | " + " | ".join("---:" for _ in games) + " |",
    ]
    for learner, cells in rung_result["per_game"].items():
        texts = []
        for game in games:
            mean, (low, high) = cells[game]["normalised"]
            texts.append(f"{mean:+.2f} [{low:+.2f}, {high:+.2f}] ({cells[game]['win_rate']:.1%})")
        lines.append(f"| {learner} | " + " | ".join(texts) + " |")
    return lines


def report_markdown(
    spec: BenchmarkSpec, result: dict[str, Any], heading: str = "#", images: str = ""
) -> str:
    """report.md: what ran, what it cost, the per-game scores, the aggregates and
    the plots. ``heading`` is the title's level (a page that quotes the report
    gives ``###``); ``images`` is prepended to the plots' file names (their folder
    as the quoting page sees it)."""
    agg = result["aggregate"]
    ladder = [rung for rung in LADDER if rung in agg]
    train_total = sum(r["train_seconds"] or 0.0 for r in result["runs"])
    eval_total = sum(r["eval_seconds"] or 0.0 for r in result["runs"])
    lines = [
        f"{heading} Benchmark {spec.name}",
        "",
        f"Generated by `flockgym benchmark` at commit {result['commit']}: "
        f"{plural(len(spec.learners), 'learner')} x {plural(len(spec.games), 'game')} x "
        f"{plural(len(spec.seeds), 'seed')} "
        f"({', '.join(map(str, spec.seeds))}), {spec.budget:,} learner steps per run; each "
        f"final policy played {spec.eval_deals} duplicate deals (seed {spec.eval_seed}) "
        "against each rung of the ladder (alone among that bot at a table of more than 2, "
        "both seats at 2). Training took "
        f"{result['train_seconds']:.0f} s of wall time in this invocation. Over all "
        f"{len(result['runs'])} runs, as each run folder records it: training "
        f"{format_seconds(train_total)}, evaluation {format_seconds(eval_total)} of wall time. "
        + run_commits(result["runs"]),
        "",
        f"{heading}# Aggregates over seeds and games (rliable)",
        "",
        "Each run's score against a rung is its win rate normalised by the table's fair "
        "share n seats give an equal player, (win rate - 1/n) / (1 - 1/n): 0 is the fair "
        "share at any table size, 1 every game won, below 0 less than the fair share (raw "
        "win rates of 5- and 4-seat games are not one scale). Interquartile mean (IQM) of "
        f"the runs' scores, 95% stratified bootstrap intervals ({spec.bootstrap_reps} "
        f"resamples){method_note(agg)}:",
        "",
        "| learner | " + " | ".join(f"vs {rung}" for rung in ladder) + " |",
        "| --- | " + " | ".join("---:" for _ in ladder) + " |",
    ]
    for learner in agg[ladder[0]]["iqm"]:
        cells = [
            f"{agg[r]['iqm'][learner]:+.2f} [{agg[r]['iqm_ci'][learner][0]:+.2f}, "
            f"{agg[r]['iqm_ci'][learner][1]:+.2f}]"
            for r in ladder
        ]
        lines.append(f"| {learner} | " + " | ".join(cells) + " |")
    for rung in ladder:
        lines += ["", *rung_games_table(agg[rung], rung)]
    if any(agg[r]["probability_of_improvement"] for r in ladder):
        lines += [
            "",
            "Probability of improvement, P(a run of X beats a run of Y) on the same game:",
            "",
            "| X, Y | " + " | ".join(f"vs {rung}" for rung in ladder) + " |",
            "| --- | " + " | ".join("---:" for _ in ladder) + " |",
        ]
        for pair in agg[ladder[0]]["probability_of_improvement"]:
            cells = [
                f"{agg[r]['probability_of_improvement'][pair]:.2f} "
                f"[{agg[r]['probability_of_improvement_ci'][pair][0]:.2f}, "
                f"{agg[r]['probability_of_improvement_ci'][pair][1]:.2f}]"
                for r in ladder
            ]
            lines.append(f"| {pair.replace(',', ', ')} | " + " | ".join(cells) + " |")
    lines += ["", f"![IQM]({images}{agg['iqm_plot']})", ""]
    lines += [
        f"![performance profile against {r}]({images}{agg[r]['profile_plot']})" for r in ladder
    ]
    if "curves" in agg:
        lines += ["", *curves_section(agg["curves"], ladder, heading, images)]
    lines += ["", f"{heading}# Per game, raw win rates", ""] + result["per_game"] + [""]
    return "\n".join(lines)


def curves_section(
    curves: dict[str, Any], ladder: list[str], heading: str, images: str
) -> list[str]:
    """The sample-efficiency curves: the IQM at every point with its interval,
    one table per rung, and the plots (the IQM and each game's mean)."""
    steps = curves[ladder[0]]["steps"]
    lines = [
        f"{heading}# Sample-efficiency curves",
        "",
        "Each run's checkpoints at "
        + ", ".join(f"{s:,}" for s in steps)
        + " learner steps (the first saved at or after each, at most "
        f"{curves[ladder[0]].get('most_steps_past_point', 0):,} steps after it; the last is "
        "the final policy) played the same deals against each rung. The IQM of the "
        "normalised scores over all runs and games at each point, with the same seeded "
        "stratified bootstrap's 95% intervals (each point's runs resampled within each "
        "game); the plots add each game's mean over seeds:",
    ]
    for rung in ladder:
        curve = curves[rung]
        lines += [
            "",
            f"Against {rung}:",
            "",
            "| learner | " + " | ".join(f"{s:,} steps" for s in steps) + " |",
            "| --- | " + " | ".join("---:" for _ in steps) + " |",
        ]
        for learner, points in curve["iqm"].items():
            lows, highs = curve["iqm_ci"][learner]
            cells = [
                f"{v:+.2f} [{lo:+.2f}, {hi:+.2f}]"
                for v, lo, hi in zip(points, lows, highs, strict=True)
            ]
            lines.append(f"| {learner} | " + " | ".join(cells) + " |")
    lines.append("")
    lines += [
        f"![sample-efficiency curves against {rung}]({images}{curves[rung]['plot']})"
        for rung in ladder
    ]
    return lines


def method_note(agg: dict[str, Any]) -> str:
    """How the intervals were drawn and their coverage measured by simulation,
    where the result records it (a grid saved before it did keeps its text)."""
    if "method" not in agg:
        return ""
    rungs = [rung for rung in LADDER if rung in agg]
    rates = [rate for rung in rungs for rate in agg[rung]["iqm_ci_coverage"].values()]
    return (
        f"; method: {agg['method']}. Measured coverage of these IQM intervals, by "
        f"simulation ({COVERAGE_SIMS} grids of this shape drawn from each game's runs as "
        f"the population, the share of intervals holding its IQM): {min(rates):.0%} to "
        f"{max(rates):.0%} over the learners and rungs (each in benchmark.json), so read "
        "them as narrower than a nominal 95% where that falls short"
    )


def read_saved(saved: Path, versions: tuple[int, ...] = (RESULT_VERSION,)) -> dict[str, Any]:
    """A saved ``benchmark.json`` of one of ``versions``, or a RunError saying what it is."""
    try:
        result = read_json(saved, "saved grid")
    except (OSError, ValueError) as err:
        raise RunError(f"cannot read the saved grid {saved}: {err}") from None
    if not isinstance(result, dict) or result.get("format") != RESULT_FORMAT:
        raise RunError(f"{saved}: not a {RESULT_FORMAT} version {RESULT_VERSION} file")
    if result.get("version") not in versions:
        raise RunError(
            f"{saved}: a {RESULT_FORMAT} version {result.get('version')} file; this flockgym "
            f"renders version {RESULT_VERSION} (python -m flockgym.evaluation.benchmark "
            f"--recompute {saved} aggregates its runs again)"
        )
    return result


def saved_report(saved: Path, heading: str = "#", images: str = "") -> str:
    """The report of a saved ``benchmark.json``, rendered again (a page that
    states a grid's results quotes this, and a test checks the quote)."""
    result = read_saved(saved)
    spec = BenchmarkSpec.model_validate(result["spec"])
    return report_markdown(spec, result, heading, images)


def recompute(saved: Path) -> Path:
    """Aggregate a saved grid's runs again with this version's statistics (its
    per-run scores are all the aggregates need; nothing is trained or played)
    and rewrite its ``benchmark.json``, ``report.md`` and plots in place."""

    clock = Clock()
    result = read_saved(saved, (1, RESULT_VERSION))
    spec = BenchmarkSpec.model_validate(result["spec"])
    rows = result["runs"]
    result["version"] = RESULT_VERSION
    result["per_game"] = per_game_table(rows)
    result["aggregate"] = aggregate(rows, spec, saved.parent)
    result["recomputed"] = clock.record()
    write_text_atomic(saved, json.dumps(result, indent=2, default=finite) + "\n")
    write_text_atomic(saved.parent / "report.md", report_markdown(spec, result))
    write_text_atomic(saved.parent / RUNS_CSV, runs_csv(rows))
    if any(r.get("curve") for r in rows):
        write_text_atomic(saved.parent / CURVES_CSV, curves_csv(rows))
    return saved


# ---- the command ----------------------------------------------------------------------


def benchmark(spec_path: str | Path, out: str | Path | None = None, progress: bool = True) -> Path:
    """Run the grid of ``spec_path`` into ``out`` (default
    ``runs/benchmark/<name>``): train what is not trained, measure what is not
    measured, and write report.md, benchmark.json and the plots."""

    clock = Clock()
    spec_path = Path(spec_path)
    spec = load_spec(spec_path)
    out = Path(out) if out is not None else Path("runs") / "benchmark" / spec.name
    runs = plan_runs(spec, spec_path.parent, out)  # every config checked before a run starts
    ladders = {r.run_dir: list(ladder_specs(r.config.env.id, players_of(r))) for r in runs}
    out.mkdir(parents=True, exist_ok=True)
    statuses = {r.run_dir: run_status(r, ladders[r.run_dir], spec) for r in runs}
    done_before = sum(status == "evaluated" for status in statuses.values())
    # Runs finished by an earlier call count as done from the start, so the rate
    # and the time left are those of the runs this call trains and measures.
    meter = Progress(
        len(runs), "runs", enabled=progress, label=f"benchmark {spec.name}", initial=done_before
    )
    evaluations: dict[Path, dict[str, Any]] = {}
    curves: dict[Path, list[dict[str, Any]]] = {}
    started = time.monotonic()
    trained_now = 0.0
    for r in runs:
        status = statuses[r.run_dir]
        if status in ("new", "restart", "resume"):
            # an evaluation saved before is of an older policy (a budget trained on)
            (r.run_dir / EVAL_FILE).unlink(missing_ok=True)
            t0, cpu0 = time.monotonic(), cpu_seconds()
            train_run(r, status, out / "logs" / f"{r.learner}-{r.game}-seed{r.seed}.log")
            seconds, cpu = time.monotonic() - t0, cpu_seconds() - cpu0
            trained_now += seconds
            fresh = status == "restart"
            before = 0.0 if fresh else recorded(r.run_dir, TRAIN_FILE, "seconds")
            before_cpu = 0.0 if fresh else recorded(r.run_dir, TRAIN_FILE, "cpu_seconds")
            record = {
                "seconds": round((before or 0.0) + seconds, 3),
                "cpu_seconds": round((before_cpu or 0.0) + cpu, 3),
            }
            write_text_atomic(r.run_dir / TRAIN_FILE, json.dumps(record) + "\n")
        saved = read_evaluation(r, ladders[r.run_dir], spec)
        evaluations[r.run_dir] = saved if saved is not None else evaluate_run(r, spec)
        if spec.curve_points is not None:
            curves[r.run_dir] = evaluate_curve(r, ladders[r.run_dir], spec, evaluations[r.run_dir])
        if status != "evaluated":
            meter.update(1)
    meter.close()
    rows = [
        {
            "learner": r.learner,
            "game": r.game,
            "seed": r.seed,
            "run_dir": r.run_dir.relative_to(out).as_posix(),
            "status_before": statuses[r.run_dir],
            "train_seconds": recorded(r.run_dir, TRAIN_FILE, "seconds"),
            "train_cpu_seconds": recorded(r.run_dir, TRAIN_FILE, "cpu_seconds"),
            "steps_per_second": recorded(r.run_dir, "run.json", "steps_per_second"),
            "eval_seconds": evaluations[r.run_dir].get("seconds"),
            "scores": evaluations[r.run_dir]["scores"],
            "commit": recorded_text(r.run_dir, "run.json", "git_commit"),
            "config": config_to_yaml(r.config),
        }
        | ({"curve": curves[r.run_dir]} if r.run_dir in curves else {})
        for r in runs
    ]
    result = {
        "format": RESULT_FORMAT,
        "version": RESULT_VERSION,
        "spec": spec.model_dump(),
        "commit": git_commit(),
        "spec_file": spec_path.as_posix(),
        "provenance": clock.record(),
        "train_seconds": round(trained_now, 1),
        "wall_seconds": time.monotonic() - started,
        "runs": rows,
        "per_game": per_game_table(rows),
        "aggregate": aggregate(rows, spec, out),
    }
    write_text_atomic(out / "benchmark.json", json.dumps(result, indent=2, default=finite) + "\n")
    write_text_atomic(out / "report.md", report_markdown(spec, result))
    write_text_atomic(out / RUNS_CSV, runs_csv(rows))
    if curves:
        write_text_atomic(out / CURVES_CSV, curves_csv(rows))
    return out


RUNS_CSV = "runs.csv"
RUNS_CSV_COLUMNS = (
    "learner", "game", "players", "seed", "rung", "bot", "win_rate", "normalised",
    "mean_points", "games", "commit", "train_seconds", "eval_seconds",
)  # fmt: skip


def runs_csv(rows: list[dict[str, Any]]) -> str:
    """Runs x rungs, one row each, for pandas: the run, the rung, its raw and
    normalised score, and what the run cost."""

    stream = io.StringIO()
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(RUNS_CSV_COLUMNS)
    for r in rows:
        players = players_in(r["game"])
        for rung, score in r["scores"].items():
            writer.writerow(
                [
                    r["learner"], r["game"], players, r["seed"], rung, score["bot"],
                    repr(float(score["win_rate"])),
                    repr(normalised(score["win_rate"], players)),
                    "" if score.get("mean_points") is None else repr(float(score["mean_points"])),
                    score.get("games", ""), r.get("commit") or "",
                    r.get("train_seconds") or "", r.get("eval_seconds") or "",
                ]
            )  # fmt: skip
    return stream.getvalue()


CURVES_CSV = "curves.csv"
CURVES_CSV_COLUMNS = (
    "learner", "game", "players", "seed", "step", "checkpoint_step", "rung", "bot",
    "win_rate", "normalised", "mean_points", "games",
)  # fmt: skip


def curves_csv(rows: list[dict[str, Any]]) -> str:
    """Runs x rungs x curve points, one row each, for pandas: the planned step,
    the checkpoint played there, and its raw and normalised score."""

    stream = io.StringIO()
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(CURVES_CSV_COLUMNS)
    for r in rows:
        players = players_in(r["game"])
        for point in r.get("curve", []):
            for rung, score in point["scores"].items():
                writer.writerow(
                    [
                        r["learner"], r["game"], players, r["seed"], point["step"],
                        point["checkpoint_step"], rung, score["bot"],
                        repr(float(score["win_rate"])),
                        repr(normalised(score["win_rate"], players)),
                        "" if score.get("mean_points") is None
                        else repr(float(score["mean_points"])),
                        score.get("games", ""),
                    ]
                )  # fmt: skip
    return stream.getvalue()


def recorded_text(run_dir: Path, name: str, key: str) -> str | None:
    """A text a run folder's JSON file records (the run's commit), or None."""
    try:
        value = read_json(run_dir / name, "run file").get(key)
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, str) else None


def recorded(run_dir: Path, name: str, key: str) -> float | None:
    """A number a run folder's JSON file records (None where it does not):
    what a run cost, kept across invocations."""
    try:
        value = read_json(run_dir / name, "run record").get(key)
    except (OSError, ValueError, AttributeError):
        return None
    return float(value) if isinstance(value, int | float) else None


def players_of(run: Run) -> int:
    return num_players(GameSpec(env=run.config.env.id, options=run.config.env.options))


def finite(value: Any) -> Any:
    """JSON for numpy scalars; NaN (an interval of one value) as null."""
    value = float(value)
    return None if not math.isfinite(value) else value


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


# ---- a page that quotes a saved grid ---------------------------------------------------

QUOTE = re.compile(r"<!-- benchmark report: (?P<saved>\S+) -->\n(?P<body>.*?)<!-- end -->", re.S)


def quoted_reports(page: Path, root: Path) -> list[tuple[str, str]]:
    """Each quote of a saved grid in ``page`` (``<!-- benchmark report:
    SAVED.json -->`` ... ``<!-- end -->``, the path from ``root``): what it
    says, and what the saved file renders."""
    return [
        (match["body"], quote_body(page, root, match["saved"]))
        for match in QUOTE.finditer(page.read_text())
    ]


def quote_body(page: Path, root: Path, saved: str) -> str:
    """The report of ``root / saved`` as ``page`` quotes it: its title two levels
    down, its plots named from the page's folder."""
    folder = (root / saved).parent
    images = os.path.relpath(folder, page.parent).replace(os.sep, "/") + "/"
    return saved_report(root / saved, "###", images)


def rewrite_quotes(page: Path, root: Path) -> bool:
    """Render every quote of ``page`` again from its saved file; True if it changed."""
    text = page.read_text()
    new = QUOTE.sub(
        lambda m: (
            f"<!-- benchmark report: {m['saved']} -->\n"
            f"{quote_body(page, root, m['saved'])}<!-- end -->"
        ),
        text,
    )
    if new != text:
        page.write_text(new)
    return new != text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m flockgym.evaluation.benchmark",
        description="Rewrite the quoted benchmark reports of a page (docs/benchmark.md) "
        "from the saved benchmark.json each quote names; with --recompute, first aggregate "
        "a saved grid's runs again with this version's statistics.",
    )
    parser.add_argument("pages", nargs="*", type=Path)
    parser.add_argument("--root", type=Path, default=Path("."), help="where quoted paths start")
    parser.add_argument(
        "--recompute",
        type=Path,
        action="append",
        default=[],
        metavar="SAVED.json",
        help="aggregate this saved grid's per-run scores again (no training, no games) and "
        "rewrite its benchmark.json, report.md and plots",
    )
    args = parser.parse_args(argv)
    if not args.pages and not args.recompute:
        parser.error("give a page to rewrite, or --recompute SAVED.json")
    for saved in args.recompute:
        try:
            print(f"{recompute(saved)}: recomputed")
        except RunError as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
    for page in args.pages:
        try:
            changed = rewrite_quotes(page, args.root)
        except (RunError, OSError) as err:
            print(f"error: {page}: {err}", file=sys.stderr)
            return 2
        print(f"{page}: {'rewritten' if changed else 'unchanged'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
