"""Throughput of every registered flockgym env beside its peers, in one run.

Each env plays random legal games through the AEC loop the way a training
loop drives it: ``agent_iter`` / ``last()`` (observation and action mask built
at every step) / ``step``. The peers run the same kind of loop in the same
process, each on its fastest documented path:

* PettingZoo's ``connect_four_v3`` and ``leduc_holdem_v4``: the AEC loop above,
  exactly as the flockgym envs run it;
* OpenSpiel's ``oh_hell`` (4 players) with ``information_state_tensor`` and
  ``backgammon`` with ``observation_tensor`` computed for the player to act at
  every decision; chance nodes (deals, dice) are sampled with OpenSpiel's own
  ``pyspiel.sample_action`` over ``state.chance_outcomes()`` and are not
  counted as steps;
* RLCard's ``doudizhu`` (the climbing game PettingZoo dropped): ``env.step``,
  which builds the state's features and legal actions at every step.

Every loop draws its moves from Python's ``random`` (one ``random.Random`` per
slice, seeded): numpy's scalar draws cost a microsecond or two a call, a
sizeable share of a fast peer's step. Ratios are taken against the peers
measured in this same run, so machine load cancels out.

Each runner reports two rates: steps per second of wall time, and steps per
CPU-second of its process (``time.process_time``): every runner is
single-threaded, so the second is the rate per core, which waiting for a core
on a shared machine does not lower. The goals are judged on the rate per core.

    python benchmarks/throughput.py [--seconds 6] [--rounds 3] [--env asrus_v0 ...]
                                    [--baseline REF] [--numpy-draws] [--json FILE]
    python benchmarks/throughput.py --table FILE   # a saved run's tables, in Markdown
    python benchmarks/throughput.py --summary FILE # the README's sentence for it

Each env plays ``--rounds`` interleaved slices of its time, so that a change of
load on a shared machine falls on the peers and the envs alike. With
``--baseline REF`` the envs of git commit ``REF`` (e.g. the code before a
change) are measured too, in a subprocess importing that commit's code from a
temporary worktree (``benchmarks/baseline_tree.py``), their slices interleaved
with the others'. ``--json`` saves the run (the figures docs/scale.md states
are rendered from such a file with ``--table``).

Needs the ``bench`` extra (pygame-ce for PettingZoo's classic envs, rlcard for
leduc and doudizhu, open-spiel for oh_hell and backgammon); a peer that
cannot be imported is reported and skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from baseline_tree import checkout_commit  # benchmarks/: the script's own folder

from flockgym.envs import entry, list_envs, make

BENCH_OPTIONS: dict[str, dict[str, Any]] = {
    "asrus_v0": {"num_players": 5},
    "astrobirdz_v0": {"num_players": 4},
    "arena_v0": {"num_players": 4},
    "skybirds_v0": {"num_players": 4},
}
"""The configuration each env is measured at (others: their default players)."""

GOALS: dict[str, list[tuple[str, float]]] = {
    "asrus_v0": [("connect_four_v3", 6.0)],
    "astrobirdz_v0": [("open_spiel oh_hell 4p", 4.0)],
    "arena_v0": [("open_spiel backgammon", 1.5)],
    "skybirds_v0": [("connect_four_v3", 3.0), ("rlcard doudizhu", 10.0)],
}
"""Speed goals: at least this many times the named peer's steps per
CPU-second, in one run."""

PEERS = [
    "connect_four_v3",
    "leduc_holdem_v4",
    "open_spiel oh_hell 4p",
    "open_spiel backgammon",
    "rlcard doudizhu",
]


@dataclass
class Measurement:
    name: str
    steps: int
    games: int
    seconds: float
    """Wall time."""
    cpu_seconds: float
    """CPU time of the process that played (one thread)."""

    @property
    def steps_per_second(self) -> float:
        return self.steps / max(self.seconds, 1e-9)

    @property
    def steps_per_cpu_second(self) -> float:
        return self.steps / max(self.cpu_seconds, 1e-9)

    @property
    def games_per_second(self) -> float:
        return self.games / max(self.seconds, 1e-9)

    @property
    def steps_per_game(self) -> float:
        return self.steps / max(1, self.games)


class Clock:
    """Wall and CPU time of one slice, started at construction."""

    def __init__(self, seconds: float) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        self.deadline = self.wall + seconds

    def running(self) -> bool:
        return time.perf_counter() < self.deadline

    def measurement(self, name: str, steps: int, games: int) -> Measurement:
        return Measurement(
            name,
            steps,
            games,
            time.perf_counter() - self.wall,
            time.process_time() - self.cpu,
        )


def run_aec(name: str, make_env: Callable[[], Any], seconds: float, seed: int = 0) -> Measurement:
    """Random legal games through the AEC loop for about ``seconds``."""
    env = make_env()
    draw = random.Random(seed)
    steps = games = 0
    clock = Clock(seconds)
    while clock.running():
        env.reset(seed=seed + games)
        for _agent in env.agent_iter():
            observation, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(int(draw.choice(np.flatnonzero(observation["action_mask"]))))
            steps += 1
        games += 1
    return clock.measurement(name, steps, games)


def run_open_spiel_oh_hell(seconds: float, seed: int = 0, numpy_draws: bool = False) -> Measurement:
    """OpenSpiel oh_hell, 4 players: random play, information state tensor per decision."""
    import pyspiel

    game = pyspiel.load_game("oh_hell", {"players": 4})
    name = "open_spiel oh_hell 4p" + (NUMPY_SUFFIX if numpy_draws else "")
    play = play_open_spiel_numpy if numpy_draws else play_open_spiel
    return play(name, game, "information_state_tensor", seconds, seed)


def run_open_spiel_backgammon(
    seconds: float, seed: int = 0, numpy_draws: bool = False
) -> Measurement:
    """OpenSpiel backgammon (a roll-and-move board game, the Arena's nearest peer):
    random play, observation tensor per decision, dice sampled as chance nodes."""
    import pyspiel

    game = pyspiel.load_game("backgammon")
    name = "open_spiel backgammon" + (NUMPY_SUFFIX if numpy_draws else "")
    play = play_open_spiel_numpy if numpy_draws else play_open_spiel
    return play(name, game, "observation_tensor", seconds, seed)


NUMPY_SUFFIX = " (numpy draws)"
"""The label of a peer measured the slower way (``--numpy-draws``)."""


def play_open_spiel_numpy(
    name: str, game: Any, tensor: str, seconds: float, seed: int
) -> Measurement:
    """:func:`play_open_spiel` with numpy's draws, as this benchmark sampled
    before: chance nodes by ``Generator.choice(p=...)`` over the outcomes' odds,
    moves by ``Generator.integers``; kept to measure what that costs a peer."""
    rng = np.random.default_rng(seed)
    steps = games = 0
    clock = Clock(seconds)
    while clock.running():
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probs)))
                continue
            getattr(state, tensor)(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            steps += 1
        games += 1
    return clock.measurement(name, steps, games)


def play_open_spiel(name: str, game: Any, tensor: str, seconds: float, seed: int) -> Measurement:
    """Random legal games of an OpenSpiel ``game`` for ``seconds``: chance nodes
    sampled by OpenSpiel's own ``sample_action`` (its C++ sampler over the
    outcomes' odds, given a uniform number), the ``tensor`` method (the
    observation a learner reads) called for the player to act at every decision."""
    import pyspiel

    sample_action = pyspiel.sample_action
    draw = random.Random(seed)
    steps = games = 0
    clock = Clock(seconds)
    while clock.running():
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_action(state.chance_outcomes(), draw.random())[0])
                continue
            getattr(state, tensor)(state.current_player())
            state.apply_action(draw.choice(state.legal_actions()))
            steps += 1
        games += 1
    return clock.measurement(name, steps, games)


def run_rlcard_doudizhu(seconds: float, seed: int = 0) -> Measurement:
    """RLCard's doudizhu (3 players): random legal actions; RLCard builds each
    state's features (observation and legal actions) at every step."""
    import rlcard

    env = rlcard.make("doudizhu", config={"seed": seed})
    draw = random.Random(seed)
    steps = games = 0
    clock = Clock(seconds)
    while clock.running():
        state, _player = env.reset()
        while not env.is_over():
            state, _player = env.step(draw.choice(list(state["legal_actions"])))
            steps += 1
        games += 1
    return clock.measurement("rlcard doudizhu", steps, games)


Runner = Callable[[float, int], Measurement]
"""Plays for about the given seconds from the given seed and measures."""


def peer_runners(numpy_draws: bool = False) -> list[Runner]:
    """The peers that can be imported here (with ``numpy_draws``, the OpenSpiel
    peers a second time, drawing with numpy as this benchmark did before)."""
    runners: list[Runner] = []
    try:
        from pettingzoo.classic import connect_four_v3

        runners.append(partial(run_aec, "connect_four_v3", connect_four_v3.env))
    except ImportError as err:
        print(f"skipped connect_four_v3: {err}")
    try:
        from pettingzoo.classic import leduc_holdem_v4

        runners.append(partial(run_aec, "leduc_holdem_v4", leduc_holdem_v4.env))
    except ImportError as err:
        print(f"skipped leduc_holdem_v4: {err}")
    try:
        import pyspiel  # noqa: F401 - only to know whether it is installed

        runners.append(run_open_spiel_oh_hell)
        runners.append(run_open_spiel_backgammon)
        if numpy_draws:
            runners.append(partial(run_open_spiel_oh_hell, numpy_draws=True))
            runners.append(partial(run_open_spiel_backgammon, numpy_draws=True))
    except ImportError as err:
        print(f"skipped open_spiel oh_hell and backgammon: {err}")
    try:
        import rlcard  # noqa: F401 - only to know whether it is installed

        runners.append(run_rlcard_doudizhu)
    except ImportError as err:
        print(f"skipped rlcard doudizhu: {err}")
    return runners


def env_label(env_id: str) -> str:
    """``asrus_v0 5p``: the env and the table it is measured at."""
    options = BENCH_OPTIONS.get(env_id, {"num_players": entry(env_id).default_players})
    return f"{env_id} {options.get('num_players')}p"


def flockgym_runner(env_id: str) -> Runner:
    options = BENCH_OPTIONS.get(env_id, {"num_players": entry(env_id).default_players})
    return partial(run_aec, env_label(env_id), lambda: make(env_id, **options))


class BaselineServer:
    """This script in a subprocess that imports another commit's ``flockgym``
    (``--serve``): it plays one env's slice per request, while this process
    waits, so that its slices take turns with the others like any runner's."""

    def __init__(self, tree: Any) -> None:
        import baseline_tree

        self.tree = tree
        self.process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=baseline_tree.baseline_env(tree),
            cwd=tree.path_entry,
        )
        hello = self.receive()
        baseline_tree.check_imported(tree, hello["imported_from"])
        self.env_ids: list[str] = hello["envs"]

    def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the baseline subprocess ({self.tree.ref}) ended unexpectedly")
        return json.loads(line)

    def runner(self, env_id: str) -> Runner:
        def run(seconds: float, seed: int) -> Measurement:
            assert self.process.stdin is not None
            request = {"env": env_id, "seconds": seconds, "seed": seed}
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
            reply = self.receive()
            reply["name"] = f"{reply['name']} {self.tree.label}"
            return Measurement(**reply)

        return run

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)


def serve() -> None:
    """``--serve``: say where flockgym was imported from and which envs it has,
    then play one slice per request line, one JSON measurement per reply line."""
    import baseline_tree

    hello = {"imported_from": baseline_tree.imported_from(), "envs": list_envs()}
    print(json.dumps(hello), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        m = flockgym_runner(request["env"])(request["seconds"], request["seed"])
        print(json.dumps(asdict(m)), flush=True)


def measure_interleaved(runners: list[Runner], seconds: float, rounds: int) -> list[Measurement]:
    """Each runner in turn for seconds/rounds, ``rounds`` times over, summed.

    Interleaving spreads a change in machine load (other processes on a shared
    machine) over every env alike, where back-to-back blocks would let it land
    on one side of a ratio."""
    totals: dict[int, Measurement] = {}
    for round_ in range(rounds):
        for index, runner in enumerate(runners):
            m = runner(seconds / rounds, 1000 * round_)
            total = totals.setdefault(index, Measurement(m.name, 0, 0, 0.0, 0.0))
            total.steps += m.steps
            total.games += m.games
            total.seconds += m.seconds
            total.cpu_seconds += m.cpu_seconds
    return [totals[i] for i in range(len(runners))]


def ratios(run: dict[str, Any]) -> list[dict[str, Any]]:
    """Every env (and baseline env) against every peer measured, per core and
    per wall second, with the goal where there is one."""
    by_name = {m["name"]: m for m in run["measurements"]}
    rows = []
    for env_id, name in run["envs"]:
        for peer in [p for p in PEERS if p in by_name]:
            m, p = by_name[name], by_name[peer]
            goal = dict(GOALS.get(env_id, [])).get(peer)
            cpu = (m["steps"] / m["cpu_seconds"]) / (p["steps"] / p["cpu_seconds"])
            wall = (m["steps"] / m["seconds"]) / (p["steps"] / p["seconds"])
            rows.append({"env": name, "peer": peer, "cpu": cpu, "wall": wall, "goal": goal})
    return rows


def run_line(run: dict[str, Any]) -> str:
    """Which run a table is from: its command, date, commit and the machine's load."""
    load = run.get("load_average")
    load_text = "" if load is None else f", load average {load[0]:.1f} at its end"
    return f"One run of `{run['command']}` ({run['date']}, commit {run['commit']}{load_text}):"


def table(run: dict[str, Any]) -> str:
    """The run's two tables in Markdown: rates, then each env's ratios to the
    peers with a goal (and, for a baseline env, to the same env of this run)."""
    lines = [
        run_line(run),
        "",
        "| env | steps per CPU-second | steps/s (wall) | games/s (wall) | steps/game |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for m in run["measurements"]:
        lines.append(
            f"| {m['name']} | {m['steps'] / m['cpu_seconds']:,.0f} | "
            f"{m['steps'] / m['seconds']:,.0f} | {m['games'] / m['seconds']:,.1f} | "
            f"{m['steps'] / max(1, m['games']):,.1f} |"
        )
    lines += ["", "| env | peer | x peer (per core) | x peer (wall) | goal |"]
    lines.append("| --- | --- | ---: | ---: | --- |")
    for row in ratios(run):
        if row["goal"] is None:
            continue
        verdict = "met" if row["cpu"] >= row["goal"] else "not met"
        lines.append(
            f"| {row['env']} | {row['peer']} | {row['cpu']:.2f}x | {row['wall']:.2f}x | "
            f">= {row['goal']:g}x: {verdict} |"
        )
    baselines = run.get("baseline_envs", [])
    if baselines:
        by_name = {m["name"]: m for m in run["measurements"]}
        lines += ["", f"| env | x {run['baseline']} (per core) | x {run['baseline']} (wall) |"]
        lines.append("| --- | ---: | ---: |")
        for name, base_name in baselines:
            m, b = by_name[name], by_name[base_name]
            cpu = (m["steps"] / m["cpu_seconds"]) / (b["steps"] / b["cpu_seconds"])
            wall = (m["steps"] / m["seconds"]) / (b["steps"] / b["seconds"])
            lines.append(f"| {name} | {cpu:.2f}x | {wall:.2f}x |")
    return "\n".join(lines) + "\n"


def summary(run: dict[str, Any]) -> str:
    """The README's sentence for a saved run: each env's and peer's steps per
    CPU-second (the baseline's rows left out)."""
    baseline = {name for _, name in run.get("baseline_envs", [])}
    rates = [
        f"{m['name']} {m['steps'] / m['cpu_seconds']:,.0f}"
        for m in run["measurements"]
        if m["name"] not in baseline and not m["name"].endswith(NUMPY_SUFFIX)
    ]
    return f"steps per CPU-second ({run['date']}): " + ", ".join(rates) + "."


def print_run(run: dict[str, Any]) -> None:
    print(f"\n{'env':<34}{'steps/CPU-s':>12}{'steps/s':>11}{'games/s':>10}{'steps/game':>12}")
    for m in run["measurements"]:
        print(
            f"{m['name']:<34}{m['steps'] / m['cpu_seconds']:>12,.0f}"
            f"{m['steps'] / m['seconds']:>11,.0f}{m['games'] / m['seconds']:>10,.1f}"
            f"{m['steps'] / max(1, m['games']):>12,.1f}"
        )
    print("\nratios (same run; per core = steps per CPU-second, wall = steps per second):")
    for row in ratios(run):
        goal = row["goal"]
        verdict = (
            ""
            if goal is None
            else f"  goal >= {goal:g}x: {'met' if row['cpu'] >= goal else 'NOT met'}"
        )
        print(
            f"  {row['env']} / {row['peer']}: {row['cpu']:.2f}x per core, "
            f"{row['wall']:.2f}x wall{verdict}"
        )
    measured = {m["name"] for m in run["measurements"]}
    for name in sorted({p for goals in GOALS.values() for p, _ in goals} - measured):
        print(f"  (peer {name} not measured)")
    print("\n" + table(run))


def measure(args: argparse.Namespace, tree: Any | None) -> dict[str, Any]:
    """One interleaved run of the envs, their baseline (with ``tree``) and the peers."""
    env_ids = args.env or list_envs()
    runners = [flockgym_runner(e) for e in env_ids]
    envs = [[e, env_label(e)] for e in env_ids]
    server = BaselineServer(tree) if tree is not None else None
    baseline_envs = []
    if server is not None:
        for env_id in [e for e in env_ids if e in server.env_ids]:
            runners.append(server.runner(env_id))
            name = f"{env_label(env_id)} {tree.label}"
            envs.append([env_id, name])
            baseline_envs.append([env_label(env_id), name])
    runners += peer_runners(args.numpy_draws)
    try:
        results = measure_interleaved(runners, args.seconds, max(1, args.rounds))
    finally:
        if server is not None:
            server.close()
    return {
        "command": " ".join(["python benchmarks/throughput.py", *sys.argv[1:]]),
        "commit": checkout_commit(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "seconds": args.seconds,
        "rounds": args.rounds,
        "load_average": os.getloadavg(),
        "baseline": tree.ref if tree is not None else None,
        "envs": envs,
        "baseline_envs": baseline_envs,
        "measurements": [asdict(m) for m in results],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description="Steps per second of every env and its peers.")
    parser.add_argument("--seconds", type=float, default=6.0, help="time per env")
    parser.add_argument(
        "--rounds", type=int, default=3, help="interleaved rounds the time is split into"
    )
    parser.add_argument(
        "--env", action="append", choices=list_envs(), help="env ids (default: all)"
    )
    parser.add_argument(
        "--baseline", metavar="REF", help="also the envs of this git commit, e.g. d29430e"
    )
    parser.add_argument(
        "--numpy-draws",
        action="store_true",
        help="also the OpenSpiel peers with numpy's draws (Generator.choice for chance "
        "nodes), as measured before, to show what that costs them",
    )
    parser.add_argument("--json", metavar="FILE", help="save the run here")
    parser.add_argument("--table", metavar="FILE", help="print a saved run's tables and exit")
    parser.add_argument("--summary", metavar="FILE", help="print a saved run's summary and exit")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve()
        return
    if args.table:
        print(table(json.loads(Path(args.table).read_text())), end="")
        return
    if args.summary:
        print(summary(json.loads(Path(args.summary).read_text())))
        return
    if args.seconds <= 0 or args.rounds < 1:
        parser.error(f"--seconds {args.seconds} --rounds {args.rounds}: allowed: > 0 and >= 1")
    if args.baseline:
        import baseline_tree

        try:
            baseline_tree.resolve_commit(args.baseline)
        except ValueError as err:
            parser.error(str(err))
        with baseline_tree.baseline_tree(args.baseline) as tree:
            run = measure(args, tree)
    else:
        run = measure(args, None)
    print_run(run)
    if args.json:
        Path(args.json).write_text(json.dumps(run, indent=1) + "\n")
        print(f"saved {args.json}")


if __name__ == "__main__":
    main()
