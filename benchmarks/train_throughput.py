"""Learner steps per second of self-play training on each rollout path, in one run.

Every path trains sb3-contrib's MaskablePPO from the same config, the same seed
and the same opponents (the config's pool, plus a frozen snapshot of the
untrained learner in the pool with the config's ``snapshot_share``, so that a
policy opponent is timed too):

* ``DummyVecEnv (today)``: ``vec_env: DummyVecEnv`` with sb3-contrib's own
  ``MaskableActorCriticPolicy`` (its masking, torch's tanh, the per-parameter
  Adam), one torch thread, and the snapshot's forward in torch, float32, dense,
  one observation at a time, on 8 envs (the shipped configs' shape then, with
  the config's steps per iteration): the path as it was before batching, the
  reference of every ratio; when the config has another shape, the same
  numerics at the config's shape too;
* ``batched, scalar engine``: ``vec_env: batched`` with ``engine: scalar``: the
  games' own AEC envs, every opponent decision of a step in one batch, the
  learner's :class:`~flockgym.training.maskable.PlainMaskablePolicy` (masked
  forward and evaluation as plain tensor ops, numpy's tanh, sparse wide first
  layers, fused Adam), small opponents on float64 weights;
* ``batched, vector engine`` (Asrus; Astrobirdz when the config's options are
  the ones its engine plays, e.g. ``--set env.options.berzerkerbirdz=false
  --set env.options.trump_rules=false``): ``engine: vector`` with ``dealing:
  exact`` (the same games as the other two paths for a seed), and ``dealing:
  fast`` with ``--fast``;
* with ``--workers N``, the batched paths again with ``batched.workers: N``:
  the same games split over N processes that play at once;
* with ``--update-threads N``, today's path and the batched paths again with
  ``algo.update_threads: N`` (the PPO update on N torch threads, the rollout on
  one);
* ``the config as it is``: the config's own ``vec_env``, engine, workers and
  threads, what ``flockgym train`` runs (with ``--only-config``, the one path);
* with ``--baseline REF``, the config as it is at git commit ``REF`` (its own
  config file, trained by its own code): a subprocess imports that commit's
  ``flockgym`` from a temporary worktree (``benchmarks/baseline_tree.py``) and
  trains its slices in turn with the other paths, so that "before" and "after"
  a change are measured in one run.

The paths train in ``--rounds`` interleaved slices of whole learner iterations
(rollout + update), so that a change of load on a shared machine falls on all
of them alike. Time is this process's CPU time (``time.process_time``) and that
of the path's worker processes: waiting for a core is not counted. ``wall/s``
is learner steps per second of wall time, what a path with workers or update
threads gains on a machine whose cores are free (on a busy one, less).
``rollout`` is the share of the CPU time spent collecting rollouts (the rest is
the PPO update). After the same number of learner steps each path's policy is
evaluated against the config's evaluation opponents on the same seeded deals:
a faster path must learn as well.

    python benchmarks/train_throughput.py [--games asrus,astrobirdz] [--iterations 24]
                                          [--rounds 3] [--eval-games 100] [--fast]
                                          [--n-envs N --n-steps M] [--workers N]
                                          [--update-threads N] [--only-config]
                                          [--set KEY=VALUE] [--baseline REF] [--json FILE]
    python benchmarks/train_throughput.py --table FILE   # a saved run's tables

``--games`` takes asrus (``configs/quickstart.yaml``), astrobirdz, skybirds and
arena (``configs/<game>/ppo.yaml``). ``--json`` saves the run; the figures
docs/scale.md states are rendered from such a file with ``--table``.

``--set KEY=VALUE`` changes the config of every path, the baseline's too (e.g.
``--set algo.update_threads=1``, so that a config that changed that key
compares code with code). ``--n-envs`` / ``--n-steps`` change the config of
every path alike but today's
(e.g. 64 envs of 32 steps: the same 2,048 learner steps per iteration and the
same update, more games side by side).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from baseline_tree import checkout_commit  # benchmarks/: the script's own folder
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from flockgym.training import maskable, sparse, vector_engines
from flockgym.training.config import TrainConfig, load_config
from flockgym.training.learners import get_learner
from flockgym.training.train import meta_for, save_policy, seed_everything, start_segment
from flockgym.training.vector_engines import resolve_engine, vector_engine_problem

try:  # this tree's package layout
    from flockgym.bots.policies import Policy, make_participant, policy_participant
    from flockgym.evaluation.tournaments import tournament
    from flockgym.training.vec_env import make_vec_env
except ModuleNotFoundError:  # a baseline tree from before the package split
    from flockgym.training.evaluate import tournament  # type: ignore[no-redef]
    from flockgym.training.policies import (  # type: ignore[no-redef]
        Policy,
        make_participant,
        policy_participant,
    )
    from flockgym.training.selfplay import make_vec_env  # type: ignore[no-redef]

CONFIG_FILES = {
    "asrus": "quickstart.yaml",
    "astrobirdz": "astrobirdz/ppo.yaml",
    "skybirds": "skybirds/ppo.yaml",
    "arena": "arena/ppo.yaml",
}
"""Each game's shipped config, relative to the configs folder."""

CONFIGS = {
    game: Path(__file__).resolve().parent.parent / "configs" / name
    for game, name in CONFIG_FILES.items()
}


@dataclass
class PathSpec:
    name: str
    vec_env: str
    engine: str = "scalar"
    dealing: str = "exact"
    today: bool = False
    """sb3-contrib's own policy class and every opponent forward in torch."""
    workers: int = 1
    """Processes playing the games (``batched.workers``)."""
    torch_threads: int = 1
    """The learner's torch threads (``torch_threads``)."""
    shape: tuple[int, int] | None = None
    """``n_envs`` x ``n_steps`` of this path (None: the config's)."""
    update_threads: int | None = None
    """Torch threads of the PPO update alone (``algo.update_threads``)."""


@dataclass
class Trainer:
    """One path's model and envs, and what it has spent so far."""

    spec: PathSpec
    model: Any
    venv: Any
    seconds: float = 0.0
    rollout_seconds: float = 0.0
    wall_seconds: float = 0.0
    slices: list[float] = field(default_factory=list)

    @property
    def steps(self) -> int:
        return int(self.model.num_timesteps)

    @property
    def per_second(self) -> float:
        return self.steps / max(self.seconds, 1e-9)

    @property
    def per_wall_second(self) -> float:
        return self.steps / max(self.wall_seconds, 1e-9)

    def cpu_seconds(self) -> float:
        """CPU time of this process and of the path's worker processes."""
        return time.process_time() + sum(
            process_cpu(p.pid) for p in getattr(self.venv.venv, "processes", [])
        )


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of a live process, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


TODAY_ENVS = 8
"""``n_envs`` of both configs when training had only the ``DummyVecEnv`` path (of
256 steps each): today's path runs 8 envs with the config's steps per iteration."""


def today_shape(config: TrainConfig) -> tuple[int, int]:
    """Today's 8 envs, each with an eighth of the config's rollout (or the
    config's own shape where the rollout does not split in eight)."""
    rollout = config.n_envs * config.algo.n_steps
    if rollout % TODAY_ENVS:
        return config.n_envs, config.algo.n_steps
    return TODAY_ENVS, rollout // TODAY_ENVS


def paths_for(
    config: TrainConfig, fast: bool, workers: int = 1, update_threads: int = 1
) -> list[PathSpec]:
    """Today's path first (the ratios' reference), then every faster path at the
    config's shape, the config's own settings last."""
    threads = update_threads if update_threads > 1 else None
    shape, today = (config.n_envs, config.algo.n_steps), today_shape(config)
    paths = [PathSpec("DummyVecEnv (today)", "DummyVecEnv", today=True, shape=today)]
    if threads:
        name = f"today, update on {threads} threads"
        paths.append(PathSpec(name, "DummyVecEnv", today=True, shape=today, update_threads=threads))
    if shape != today:
        paths.append(PathSpec(f"today's, at {shape[0]} x {shape[1]}", "DummyVecEnv", today=True))
    paths.append(PathSpec("batched, scalar engine", "batched", "scalar"))
    if workers > 1:
        name = f"batched, scalar, {workers} workers"
        paths.append(PathSpec(name, "batched", "scalar", workers=workers))
        if threads:
            name = f"same, update on {threads} threads"
            paths.append(
                PathSpec(name, "batched", "scalar", workers=workers, update_threads=threads)
            )
        else:
            name = f"same, {workers} torch threads"
            paths.append(
                PathSpec(name, "batched", "scalar", workers=workers, torch_threads=workers)
            )
    if plays_vector_engine(config):
        paths.append(PathSpec("batched, vector engine", "batched", "vector"))
        if threads:
            name = f"same, update on {threads} threads"
            paths.append(PathSpec(name, "batched", "vector", update_threads=threads))
        if fast:
            paths.append(PathSpec("batched, vector, fast deals", "batched", "vector", "fast"))
        if workers > 1:
            name = f"batched, vector, {workers} workers"
            paths.append(PathSpec(name, "batched", "vector", workers=workers))
    return [*paths, as_configured(config)]


def plays_vector_engine(config: TrainConfig) -> bool:
    """Whether the env has a vectorised engine (of either kind: Asrus's
    simultaneous turns, Astrobirdz's sequential ones) that plays the config's
    env options (Astrobirdz's: without Berzerkerbirdz, rule cards or passing)."""
    env_id = config.env.id
    # a baseline commit's flockgym (this script runs in its subprocess too) may
    # predate sequential engines: there every registered engine is simultaneous
    registered = getattr(
        vector_engines, "registered_vector_engine", vector_engines.has_vector_engine
    )
    return registered(env_id) and not vector_engine_problem(env_id, config.env.options, "exact")


def as_configured(config: TrainConfig) -> PathSpec:
    """The config's own rollout settings: what ``flockgym train`` runs."""
    engine = resolve_engine(config.env.id, config.batched.engine)
    if config.vec_env != "batched":
        engine = "scalar"
    return PathSpec(
        "the config as it is",
        config.vec_env,
        engine,
        config.batched.dealing,
        workers=config.batched.workers if config.vec_env == "batched" else 1,
        torch_threads=config.torch_threads,
        update_threads=config.algo.update_threads,
    )


@contextlib.contextmanager
def todays_numerics(today: bool) -> Iterator[None]:
    """For today's path, the snapshot opponent's forward as before: in float32 (no
    float64 actor), through torch's tanh, every first layer dense."""
    saved = maskable.FLOAT64_MAX_PARAMETERS, maskable.NUMPY_TANH, sparse.WIDE_LAYER
    if today:
        maskable.FLOAT64_MAX_PARAMETERS, maskable.NUMPY_TANH, sparse.WIDE_LAYER = (
            0,
            False,
            sys.maxsize,
        )
    try:
        yield
    finally:
        maskable.FLOAT64_MAX_PARAMETERS, maskable.NUMPY_TANH, sparse.WIDE_LAYER = saved


@contextlib.contextmanager
def torch_threads(count: int) -> Iterator[None]:
    """The learner's torch threads for one path's slice (the benchmark's own: 1)."""
    saved = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(saved)


def build(config: TrainConfig, spec: PathSpec, snapshot: str) -> Trainer:
    learner = get_learner(config.algo.name)
    algo = config.algo.model_copy(update={"update_threads": spec.update_threads})
    if spec.shape is not None:
        config = config.model_copy(update={"n_envs": spec.shape[0]})
        algo = algo.model_copy(update={"n_steps": spec.shape[1]})
    seed_everything(config.seed, 1)
    venv = make_vec_env(
        spec.vec_env,
        config.n_envs,
        1,
        env_kwargs={
            "env_id": config.env.id,
            "env_options": config.env.options,
            "pool": config.opponents.pool,
            "snapshots": [snapshot],
            "snapshot_share": config.opponents.snapshot_share,
            "max_snapshots": config.opponents.max_snapshots,
            "snapshot_play": config.opponents.snapshot_play,
            "reward_scale": config.env.reward_scale,
        },
        engine=spec.engine,
        dealing=spec.dealing,
        workers=spec.workers,
    )
    policy_class = MaskableActorCriticPolicy if spec.today else None
    model = learner.build(venv, algo, config.seed, policy_class=policy_class)
    model.set_logger(quiet_logger())
    start_segment(model, venv, config.seed, 0)
    trainer = Trainer(spec, model, venv)
    collect = model.collect_rollouts

    def timed_collect(*args: Any, **kwargs: Any) -> Any:
        started = trainer.cpu_seconds()
        try:
            return collect(*args, **kwargs)
        finally:
            trainer.rollout_seconds += trainer.cpu_seconds() - started

    model.collect_rollouts = timed_collect
    return trainer


def quiet_logger() -> Any:
    from stable_baselines3.common.logger import Logger

    return Logger(folder=None, output_formats=[])


def initial_snapshot(config: TrainConfig, folder: Path) -> str:
    """The untrained learner (the seed's weights, as every path starts from), frozen."""
    learner = get_learner(config.algo.name)
    seed_everything(config.seed, 1)
    venv = make_vec_env(
        "DummyVecEnv",
        1,
        1,
        {"env_id": config.env.id, "env_options": config.env.options, "pool": ["random"]},
    )
    model = learner.build(venv, config.algo, config.seed)
    path = folder / f"{config.env.id}_snapshot.zip"
    save_policy(model, learner, config, path, 0)
    venv.close()
    return str(path)


def train_slice(trainer: Trainer, iterations: int) -> None:
    with todays_numerics(trainer.spec.today), torch_threads(trainer.spec.torch_threads):
        started, wall = trainer.cpu_seconds(), time.perf_counter()
        for _ in range(iterations):
            trainer.model.learn(1, reset_num_timesteps=False)
        spent = trainer.cpu_seconds() - started
        trainer.wall_seconds += time.perf_counter() - wall
    trainer.seconds += spent
    trainer.slices.append((trainer.model.n_steps * trainer.model.n_envs * iterations) / spent)


def evaluate(config: TrainConfig, trainer: Trainer, games: int) -> dict[str, tuple[float, float]]:
    """Win rate (and its 95% half-width) against each evaluation opponent, one
    against a field, on the config's seeded evaluation deals."""
    learner = get_learner(config.algo.name)
    policy = Policy(trainer.model.policy, meta_for(config, learner, trainer.steps))
    me = policy_participant("learner", policy, config.eval.learner_play)
    rates = {}
    for spec in config.eval.opponents:
        opponent = make_participant(spec, config.env.id, config.env.options)
        result = tournament(
            config.env.id,
            [me, opponent],
            games,
            config.eval.seed,
            config.env.options,
            seating="field",
        )
        rates[spec] = (result.standings[0].win_rate, result.standings[0].win_rate_ci)
    return rates


def game_config(game: str, args: argparse.Namespace, configs: Path | None = None) -> TrainConfig:
    """The game's shipped config (from ``configs``, default this checkout's) with
    the benchmark's overrides. Today's path predates advised policies
    (env.advisor): every path trains without the advice, so that all of them
    run the same experiment."""
    overrides = ["env.advisor=none", "pretrain.games=0"]
    if args.n_envs:
        overrides.append(f"n_envs={args.n_envs}")
    if args.n_steps:
        overrides.append(f"algo.n_steps={args.n_steps}")
    overrides += args.set
    path = CONFIGS[game] if configs is None else configs / CONFIG_FILES[game]
    return load_config(path, overrides)


def record(trainer: Trainer) -> dict[str, Any]:
    """What a path spent and made so far, as the run's JSON keeps it."""
    return {
        "name": trainer.spec.name,
        "steps": trainer.steps,
        "cpu_seconds": trainer.seconds,
        "wall_seconds": trainer.wall_seconds,
        "rollout_seconds": trainer.rollout_seconds,
        "slices": trainer.slices,
    }


class RemoteTrainer:
    """The config as it is at another commit, trained by that commit's code in a
    subprocess (``--serve``) one slice per request while this process waits."""

    def __init__(self, game: str, args: argparse.Namespace, tree: Any) -> None:
        import baseline_tree

        command = [sys.executable, str(Path(__file__).resolve()), "--serve", game]
        command += ["--n-envs", str(args.n_envs), "--n-steps", str(args.n_steps)]
        command += [f"--set={item}" for item in args.set]
        self.tree, self.name = tree, f"the config as it is {tree.label}"
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=baseline_tree.baseline_env(tree),
            cwd=tree.path_entry,
        )
        hello = self.receive()
        baseline_tree.check_imported(tree, hello["imported_from"])
        self.state: dict[str, Any] = {}

    def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the baseline subprocess ({self.tree.ref}) ended unexpectedly")
        return json.loads(line)

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        return self.receive()

    def train_slice(self, iterations: int) -> None:
        self.state = self.ask({"cmd": "slice", "iterations": iterations})

    def evaluate(self, games: int) -> dict[str, list[float]]:
        return self.ask({"cmd": "evaluate", "games": games})["rates"]

    def record(self) -> dict[str, Any]:
        return {**self.state, "name": self.name}

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=120)


def serve(game: str, args: argparse.Namespace) -> None:
    """``--serve GAME``: train the config as it is of the ``flockgym`` this process
    imports (its own config file), one slice or evaluation per request line."""
    import baseline_tree

    import flockgym.configs

    print(json.dumps({"imported_from": baseline_tree.imported_from()}), flush=True)
    config = game_config(game, args, Path(flockgym.configs.__file__).resolve().parent)
    with tempfile.TemporaryDirectory() as folder:
        trainer = build(config, as_configured(config), initial_snapshot(config, Path(folder)))
        for line in sys.stdin:
            request = json.loads(line)
            if request["cmd"] == "slice":
                train_slice(trainer, request["iterations"])
                print(json.dumps(record(trainer)), flush=True)
            else:
                rates = evaluate(config, trainer, request["games"])
                print(json.dumps({"rates": rates}), flush=True)
        trainer.venv.close()


def run_game(game: str, args: argparse.Namespace, folder: Path, tree: Any) -> dict[str, Any]:
    """Every path of one game's config, interleaved, then evaluated: the run's record."""
    config = game_config(game, args)
    if args.only_config:
        specs = [as_configured(config)]
    else:
        specs = paths_for(config, args.fast, args.workers, args.update_threads)
    snapshot = initial_snapshot(config, folder)
    trainers = [build(config, spec, snapshot) for spec in specs]
    remote = RemoteTrainer(game, args, tree) if tree is not None else None
    per_slice = max(1, args.iterations // args.rounds)
    try:
        for _ in range(args.rounds):
            for trainer in trainers:
                train_slice(trainer, per_slice)
            if remote is not None:
                remote.train_slice(per_slice)
        rows = []
        for trainer in trainers:
            rows.append({**record(trainer), "eval": evaluate(config, trainer, args.eval_games)})
            trainer.venv.close()
        if remote is not None:
            rows.insert(0, {**remote.record(), "eval": remote.evaluate(args.eval_games)})
    finally:
        if remote is not None:
            remote.close()
    iteration = config.algo.n_steps * config.n_envs
    return {
        "game": game,
        "config": str(CONFIGS[game].relative_to(CONFIGS[game].parents[1])),
        "env": config.env.id,
        "options": config.env.options,
        "shape": f"{config.n_envs} envs x {config.algo.n_steps} steps = {iteration} learner "
        f"steps per iteration, {per_slice * args.rounds} iterations per path in "
        f"{args.rounds} interleaved rounds",
        "opponents": f"{config.opponents.pool} + an untrained snapshot (share "
        f"{config.opponents.snapshot_share})",
        "eval": f"{args.eval_games} games vs each of {config.eval.opponents}",
        "rows": rows,
    }


def game_table(result: dict[str, Any]) -> str:
    """One game's paths in Markdown; ratios to the first row (the baseline when
    there is one, else today's path)."""
    rows = result["rows"]
    first = rows[0]
    cpu0 = first["steps"] / first["cpu_seconds"]
    wall0 = first["steps"] / first["wall_seconds"]
    lines = [
        f"| path | steps per CPU-second | x first | steps/s (wall) | x first (wall) | rollout "
        f"| eval win rate ({result['eval']}) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for row in rows:
        cpu = row["steps"] / row["cpu_seconds"]
        wall = row["steps"] / row["wall_seconds"]
        rates = ", ".join(
            f"vs {name} {rate:.1%} ± {ci:.1%}" for name, (rate, ci) in row["eval"].items()
        )
        lines.append(
            f"| {row['name']} | {cpu:,.0f} | {cpu / cpu0:.2f}x | {wall:,.0f} | "
            f"{wall / wall0:.2f}x | {row['rollout_seconds'] / row['cpu_seconds']:.0%} | {rates} |"
        )
    return "\n".join(lines) + "\n"


def run_line(run: dict[str, Any]) -> str:
    """Which run a table is from: its command, date, commit and the machine's load."""
    load = run.get("load_average")
    load_text = "" if load is None else f", load average {load[0]:.1f} at its end"
    return f"One run of `{run['command']}` ({run['date']}, commit {run['commit']}{load_text}):"


def table(run: dict[str, Any]) -> str:
    """Every game of a saved run, one Markdown table each under its config."""
    parts = [run_line(run) + "\n"]
    for result in run["games"]:
        parts.append(
            f"{result['env']} ({result['config']}, {result['options']}): {result['shape']}.\n\n"
            + game_table(result)
        )
    return "\n".join(parts)


def print_game(result: dict[str, Any]) -> None:
    print(
        f"\n{result['env']} ({result['config']}, {result['options']}): {result['shape']}; "
        f"opponents {result['opponents']}; eval {result['eval']}"
    )
    rows = result["rows"]
    cpu0 = rows[0]["steps"] / rows[0]["cpu_seconds"]
    wall0 = rows[0]["steps"] / rows[0]["wall_seconds"]
    header = f"{'path':36s} {'steps':>7s} {'CPU s':>7s} {'steps/s':>8s} {'x first':>8s} "
    header += f"{'rollout':>8s} {'per round (steps/s)':>24s} {'wall/s':>7s} {'x wall':>7s}"
    print(header + "  eval win rate after the same steps")
    for row in rows:
        cpu = row["steps"] / row["cpu_seconds"]
        wall = row["steps"] / row["wall_seconds"]
        rates = ", ".join(
            f"vs {name} {rate:.1%} ± {ci:.1%}" for name, (rate, ci) in row["eval"].items()
        )
        rounds = " ".join(f"{s:.0f}" for s in row["slices"])
        print(
            f"{row['name']:36s} {row['steps']:7d} {row['cpu_seconds']:7.1f} {cpu:8.0f} "
            f"{cpu / cpu0:7.2f}x {row['rollout_seconds'] / row['cpu_seconds']:7.0%} "
            f"{rounds:>24s} {wall:7.0f} {wall / wall0:6.2f}x  {rates}"
        )


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games",
        default="asrus,astrobirdz",
        help=f"comma-separated: {', '.join(CONFIGS)}",
    )
    parser.add_argument("--iterations", type=int, default=24, help="learner iterations per path")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved slices per path")
    parser.add_argument("--eval-games", type=int, default=100, help="evaluation deals per opponent")
    parser.add_argument("--fast", action="store_true", help="also the vector engine's fast deals")
    parser.add_argument("--n-envs", type=int, default=0, help="override the configs' n_envs")
    parser.add_argument("--n-steps", type=int, default=0, help="override the configs' n_steps")
    parser.add_argument(
        "--workers", type=int, default=1, help="also the batched paths in this many processes"
    )
    parser.add_argument(
        "--update-threads",
        type=int,
        default=1,
        help="also the paths with the PPO update on this many torch threads",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config value on every path, the baseline's too (repeatable), "
        "e.g. --set algo.update_threads=1",
    )
    parser.add_argument(
        "--only-config", action="store_true", help="only the config as it is (and --baseline)"
    )
    parser.add_argument(
        "--baseline", metavar="REF", help="also the config as it is at this git commit"
    )
    parser.add_argument("--json", metavar="FILE", help="save the run here")
    parser.add_argument("--table", metavar="FILE", help="print a saved run's tables and exit")
    parser.add_argument("--serve", metavar="GAME", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.update_threads < 1:
        parser.error(f"--update-threads {args.update_threads}: allowed: 1 (no such paths) or more")
    if args.workers < 1:
        parser.error(f"--workers {args.workers}: allowed: 1 (no worker paths) or more")
    args.games = [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = [g for g in args.games if g not in CONFIGS]
    if unknown:
        parser.error(f"unknown game(s) {', '.join(unknown)}; allowed: {', '.join(CONFIGS)}")
    if args.baseline:
        import baseline_tree

        try:
            baseline_tree.resolve_commit(args.baseline)
        except ValueError as err:
            parser.error(str(err))
    return args


def main() -> None:
    args = parse_args()
    if args.serve:
        serve(args.serve, args)
        return
    if args.table:
        print(table(json.loads(Path(args.table).read_text())), end="")
        return
    print(
        f"train_throughput: pid {os.getpid()}, one torch thread (unless a path names more); "
        "CPU time of this process "
        "(and of a path's worker processes); wall/s: learner steps per second of wall time"
    )
    started = time.perf_counter()
    with contextlib.ExitStack() as stack, tempfile.TemporaryDirectory() as folder:
        tree = None
        if args.baseline:
            import baseline_tree

            tree = stack.enter_context(baseline_tree.baseline_tree(args.baseline))
        results = []
        for game in args.games:
            results.append(run_game(game, args, Path(folder), tree))
            print_game(results[-1])
    run = {
        "command": " ".join(["python benchmarks/train_throughput.py", *sys.argv[1:]]),
        "commit": checkout_commit(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "wall_seconds": time.perf_counter() - started,
        "load_average": os.getloadavg(),
        "baseline": args.baseline,
        "games": results,
    }
    print(f"\n{table(run)}\nwhole run: {run['wall_seconds']:.0f} s of wall time")
    if args.json:
        Path(args.json).write_text(json.dumps(run, indent=1) + "\n")
        print(f"saved {args.json}")


if __name__ == "__main__":
    main()
