"""What several benchmark scripts share: a bot wrapper timing searched moves,
the interleaved rounds of an engines-side-by-side run and its table, and the
printing and saving of a run (the saved JSON is what the docs' figures are
checked against, so its format lives here once)."""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported when run: scripts that only save a run stay light
    from throughput import Measurement


class Timed:
    """A bot wrapper that adds up the CPU time and simulations of searched moves."""

    def __init__(self, bot: Any) -> None:
        self.bot, self.seconds, self.moves, self.simulations = bot, 0.0, 0, 0

    def see_table(self, raw: Any, agent: str) -> None:
        self.bot.see_table(raw, agent)

    def act(self, observation: Any, view: Any) -> int:
        started = time.process_time()
        action = int(self.bot.act(observation, view))
        if self.bot.last_simulations:
            self.seconds += time.process_time() - started
            self.moves += 1
            self.simulations += self.bot.last_simulations
        return action


def add_run_arguments(
    parser: argparse.ArgumentParser, summary_help: str = "print a saved run's sentence"
) -> None:
    """``--json FILE`` (save the run there) and ``--summary FILE`` (print a saved run's summary)."""
    parser.add_argument("--json", metavar="FILE", help="save the run here")
    parser.add_argument("--summary", metavar="FILE", help=summary_help)


def print_saved(summary: Callable[[dict[str, Any]], str], path: str | Path) -> None:
    """Print the summary of the run saved at ``path``."""
    print(summary(json.loads(Path(path).read_text())))


def print_and_save(
    run: dict[str, Any], summary: Callable[[dict[str, Any]], str], path: str | Path | None
) -> None:
    """Print ``run``'s summary and, when ``path`` is given, save the run there."""
    print(summary(run))
    if path:
        Path(path).write_text(json.dumps(run, indent=1) + "\n")
        print(f"saved {path}")


def run_loop(name: str, new_game: Callable[[int], Any], seconds: float, seed: int) -> Measurement:
    """Random legal games driven from Python for about ``seconds``."""
    from throughput import Clock  # benchmarks/: the script's own folder

    draw = random.Random(seed)
    steps = games = 0
    clock = Clock(seconds)
    while clock.running():
        game = new_game(seed + games)
        while not game.is_over():
            legal = game.legal_actions()
            game.apply_action(legal[draw.randrange(len(legal))])
            steps += 1
        games += 1
    return clock.measurement(name, steps, games)


def measure_rounds(
    runners: list[Callable[[float, int], Measurement]],
    peer: str,
    players: int,
    seconds: float,
    rounds: int,
) -> dict[str, Any]:
    """Every runner ``rounds`` times, interleaved; totals and ratios to the
    peer and to the runner named ``python engine``."""
    slices: dict[str, list[Measurement]] = {}
    for r in range(rounds):
        for runner in runners:
            m = runner(seconds / rounds, r)
            slices.setdefault(m.name, []).append(m)
    totals = {}
    for name, parts in slices.items():
        steps = sum(p.steps for p in parts)
        cpu = sum(p.cpu_seconds for p in parts)
        totals[name] = {
            "steps": steps,
            "games": sum(p.games for p in parts),
            "cpu_seconds": cpu,
            "steps_per_cpu_second": steps / cpu,
        }
    peer_rate = totals[peer]["steps_per_cpu_second"]
    python = totals["python engine"]["steps_per_cpu_second"]
    for row in totals.values():
        row["over_peer"] = row["steps_per_cpu_second"] / peer_rate
        row["over_python_engine"] = row["steps_per_cpu_second"] / python
    return {
        "peer": peer,
        "players": players,
        "seconds_per_runner": seconds,
        "rounds": rounds,
        "runners": totals,
        "slices": {name: [asdict(p) for p in parts] for name, parts in slices.items()},
    }


def rounds_table(result: dict[str, Any]) -> str:
    """The Markdown table of a :func:`measure_rounds` result."""
    lines = [
        "| engine | steps per CPU-second | over the Python engine | over " + result["peer"] + " |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name, row in result["runners"].items():
        lines.append(
            f"| {name} | {row['steps_per_cpu_second']:,.0f} | "
            f"{row['over_python_engine']:.2f}x | {row['over_peer']:.2f}x |"
        )
    return "\n".join(lines)


def rounds_script(
    runners: list[Callable[[float, int], Measurement]], peer: str, players: int, doc: str
) -> tuple[Callable[[float, int], dict[str, Any]], Callable[..., None]]:
    """The ``measure(seconds, rounds)`` and ``main(argv=None)`` of an
    engines-side-by-side script (its runners, its peer, its player count)."""

    def measure(seconds: float, rounds: int) -> dict[str, Any]:
        """Every runner ``rounds`` times, interleaved; totals and ratios to the peer."""
        return measure_rounds(runners, peer, players, seconds, rounds)

    def main(argv: list[str] | None = None) -> None:
        rounds_main(doc.splitlines()[0], measure, argv)

    return measure, main


def rounds_main(
    description: str,
    measure: Callable[[float, int], dict[str, Any]],
    argv: list[str] | None = None,
) -> None:
    """The command line of an engines-side-by-side script: measure, print the
    table, save the run (``--json``), or print a saved run's table (``--table``)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per runner")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved slices per runner")
    parser.add_argument("--json", type=Path, help="save the run here")
    parser.add_argument("--table", type=Path, help="print a saved run's table and stop")
    args = parser.parse_args(argv)
    if args.table:
        print(rounds_table(json.loads(args.table.read_text())))
        return
    result = measure(args.seconds, args.rounds)
    print(rounds_table(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
