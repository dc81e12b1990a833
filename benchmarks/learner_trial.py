"""The trial that chose flockgym's second learner family: candidate learners
trained on the same games, budget and seeds, each final policy measured with
``flockgym eval`` against the reference ladder (random, heuristic), and the
CPU seconds each training took.

    python benchmarks/learner_trial.py --out benchmarks/results/learner_trial \\
        --runs runs/learner_trial --learners masked_dqn,masked_qrdqn,maskable_ppo \\
        --games asrus_v0:5,astrobirdz_v0:4 --steps 30000 --seeds 0,1 --deals 50

Each learner trains from ``benchmarks/specs/learners/<name>.yaml`` with the
game's ``set`` of ``benchmarks/specs/full.yaml`` (reward scale, win bonus), in
a process of its own: its CPU seconds (user and system, the process and its
children) are read from ``getrusage``. The policies then play ``--deals``
duplicate deals (seed 20260101, no training seed) alone among a field of each
rung. Writes ``trial.json`` (every run and the summary per learner) and
``trial.md`` in ``--out``; the run folders and their evaluations go to
``--runs``, where a run already finished is not trained again.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "benchmarks" / "specs"
EVAL_SEED = 20260101
RUNGS = ("random", "heuristic")


def game_sets() -> dict[str, dict[str, Any]]:
    """Each game's config overrides in the full spec (reward scale, win bonus)."""
    spec = yaml.safe_load((SPECS / "full.yaml").read_text())
    return {game["env"]: dict(game.get("set", {})) for game in spec["games"]}


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def flockgym(*args: str) -> None:
    """A ``flockgym`` command in a process of its own (its output to ours)."""
    command = [sys.executable, "-m", "flockgym.cli", *args]
    subprocess.run(command, check=True, stdout=sys.stderr)


def train_run(learner: str, env: str, players: int, seed: int, steps: int, runs: Path) -> dict:
    """Train one run (unless finished); its steps, CPU and wall seconds."""
    run = runs / learner / f"{env}-{players}p" / f"seed{seed}"
    record = run.parent / f"seed{seed}.cost.json"
    if (run / "final.zip").is_file() and record.is_file():
        return json.loads(record.read_text())
    sets = {
        "env.id": env,
        "env.options": json.dumps({"num_players": players, "reward": "score"}),
        "total_steps": steps,
        "seed": seed,
        "progress_bar": "false",
        "eval.every": 0,
        "eval.tournament_games": 0,
        "output.dir": str(run.parent),
        "output.name": run.name,
        "output.checkpoint_every": steps,
        **game_sets()[env],
    }
    args = ["train", str(SPECS / "learners" / f"{learner}.yaml")]
    for key, value in sets.items():
        args += ["--set", f"{key}={value}"]
    cpu, wall = children_cpu(), time.perf_counter()
    flockgym(*args)
    cost = {
        "steps": steps,
        "cpu_seconds": round(children_cpu() - cpu, 2),
        "wall_seconds": round(time.perf_counter() - wall, 2),
    }
    record.write_text(json.dumps(cost) + "\n")
    return cost


def evaluate(run: Path, env: str, players: int, rung: str, deals: int) -> dict:
    """``flockgym eval``: the run's final policy alone among a field of ``rung``."""
    folder = run / f"trial_eval_{rung}"
    if not (folder / "tournament.json").is_file():
        flockgym(
            "eval", "--env", env, "--players", f"{run / 'final.zip'},{rung}",
            "--seating", "field", "--option", f"num_players={players}",
            "--games", str(deals), "--seed", str(EVAL_SEED), "--out", str(folder),
            "--no-progress",
        )  # fmt: skip
    mine = json.loads((folder / "tournament.json").read_text())["standings"]
    me = next(s for s in mine if s["spec"].endswith("final.zip"))
    return {
        "win_rate": round(me["win_rate"], 4),
        "win_rate_ci": round(me["win_rate_ci"], 4),
        "mean_points": round(me["mean_points"], 2),
        "games": me["games"],
    }


def summary(runs: list[dict]) -> dict[str, dict]:
    """Per learner: mean win rate against each rung over games and seeds, CPU
    seconds in all, and the win rate against the heuristic per CPU-hour."""
    out: dict[str, dict] = {}
    for learner in dict.fromkeys(r["learner"] for r in runs):
        mine = [r for r in runs if r["learner"] == learner]
        cpu = sum(r["cpu_seconds"] for r in mine)
        row = {f"win_rate_{rung}": mean(r[rung]["win_rate"] for r in mine) for rung in RUNGS}
        row["cpu_seconds"] = round(cpu, 1)
        row["cpu_seconds_per_1000_steps"] = round(1000 * cpu / sum(r["steps"] for r in mine), 2)
        row["runs"] = len(mine)
        out[learner] = row
    return out


def mean(values: Any) -> float:
    values = list(values)
    return round(sum(values) / len(values), 4)


def markdown(trial: dict) -> str:
    lines = [
        f"Trial: {trial['steps']:,} learner steps per run, seeds {trial['seeds']}, "
        f"{trial['deals']} deals per rung (seed {EVAL_SEED}, alone among the rung's bots).",
        "",
        "| learner | game | seed | CPU s | vs random | vs heuristic |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for r in trial["runs"]:
        lines.append(
            f"| {r['learner']} | {r['env']} {r['players']}p | {r['seed']} | {r['cpu_seconds']:.0f} "
            f"| {r['random']['win_rate']:.1%} | {r['heuristic']['win_rate']:.1%} |"
        )
    lines += [
        "",
        "| learner | runs | mean vs random | mean vs heuristic | CPU s in all "
        "| CPU s / 1,000 steps |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, s in trial["summary"].items():
        lines.append(
            f"| {name} | {s['runs']} | {s['win_rate_random']:.1%} | {s['win_rate_heuristic']:.1%} "
            f"| {s['cpu_seconds']:,.0f} | {s['cpu_seconds_per_1000_steps']:.2f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="trial.json and trial.md")
    parser.add_argument("--runs", type=Path, default=Path("runs/learner_trial"))
    parser.add_argument("--learners", default="masked_dqn,masked_qrdqn")
    parser.add_argument("--games", default="asrus_v0:5", help="env:players,...")
    parser.add_argument("--steps", type=int, default=30000)
    parser.add_argument("--seeds", default="0,1")
    parser.add_argument("--deals", type=int, default=50)
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    games = [(g.split(":")[0], int(g.split(":")[1])) for g in args.games.split(",")]
    runs = []
    for env, players in games:
        for seed in seeds:
            for learner in args.learners.split(","):
                cost = train_run(learner, env, players, seed, args.steps, args.runs)
                run = args.runs / learner / f"{env}-{players}p" / f"seed{seed}"
                scores = {rung: evaluate(run, env, players, rung, args.deals) for rung in RUNGS}
                runs.append(
                    {"learner": learner, "env": env, "players": players, "seed": seed}
                    | cost
                    | scores
                )
                print(json.dumps(runs[-1]), flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    trial = {
        "command": " ".join(["python", "benchmarks/learner_trial.py", *sys.argv[1:]]),
        "steps": args.steps,
        "seeds": seeds,
        "deals": args.deals,
        "eval_seed": EVAL_SEED,
        "runs": runs,
        "summary": summary(runs),
    }
    (args.out / "trial.json").write_text(json.dumps(trial, indent=2) + "\n")
    (args.out / "trial.md").write_text(markdown(trial))
    print(markdown(trial))


if __name__ == "__main__":
    main()
