"""The search bot's strength against its think budget: for each simulation
budget, the search bot against the heuristic on the same duplicate deals (at
2 players every deal is played with the seats swapped; at more, the search bot
sits alone among heuristics), with the CPU seconds of its searched moves.
``--bot ismcts`` sweeps the tree search instead of the one-move ``search``.

    python benchmarks/search_budget.py --env astrobirdz_v0 --budgets 35,345,1380 \\
        --deals 40 --out benchmarks/results/search_budget/astrobirdz_2p.json
    python benchmarks/search_budget.py --bot ismcts --env arena_v0 --budgets 40,120,400,1200 \\
        --deals 20 --out benchmarks/results/search_budget/ismcts_arena_2p.json
    python benchmarks/search_budget.py --plot benchmarks/results/search_budget/*.json \\
        --png docs/img/search_budget.png

Budgets are numbers of simulations, so the win rates repeat exactly for the
same seed (a time budget does not: how many simulations fit depends on the
load). The default 1 s a move on a free core is about ``simulations per CPU
second`` simulations (``benchmarks/search_speed.py``); the CPU seconds per
searched move measured here put each budget on a time axis. Forced moves (one
legal move) are not searched and not counted. The file is rewritten after each
budget, and a budget already in it is not played again, so a stopped sweep
resumes.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from search_speed import Timed

from flockgym.bots.policies import Participant, make_participant
from flockgym.common.version import git_commit
from flockgym.envs import ENVS
from flockgym.evaluation.tournaments import tournament


def timed(participant: Participant, bots: list[Timed]) -> Participant:
    """``participant`` whose bots are timed, each added to ``bots`` (the
    tournament plays in this process: ``jobs=1``)."""

    def new_bot(seed: int) -> Timed:
        bots.append(Timed(participant.new_bot(seed)))
        return bots[-1]

    return replace(participant, new_bot=new_bot)


BOTS = ("search", "ismcts")
"""The search bots a sweep can measure: the one-move search and the tree search."""


def measure(
    env_id: str, players: int, budget: int, deals: int, seed: int, bot: str = "search"
) -> dict[str, Any]:
    """One budget: the search bot's standing against the heuristic, and its think time."""
    options = {"num_players": players}
    bots: list[Timed] = []
    search = timed(make_participant(f"{bot}:budget={budget}", env_id, options), bots)
    heuristic = make_participant("heuristic", env_id, options)
    started = time.process_time()
    result = tournament(
        env_id,
        [search, heuristic],
        deals,
        seed,
        options,
        seating="rotate" if players == 2 else "field",
        batch=False,
    )
    row = next(s for s in result.standings if s.name == search.name)
    moves = sum(bot.moves for bot in bots)
    seconds = sum(bot.seconds for bot in bots)
    simulations = sum(bot.simulations for bot in bots)
    return {
        "budget": budget,
        "deals": deals,
        "games": row.games,
        "win_rate": row.win_rate,
        "win_rate_ci": row.win_rate_ci,
        "mean_points": row.mean_points,
        "searched_moves": moves,
        "cpu_seconds_per_move": seconds / max(1, moves),
        "simulations_per_move": simulations / max(1, moves),
        "cpu_seconds": time.process_time() - started,
    }


def sweep(args: argparse.Namespace) -> None:
    out = Path(args.out)
    players = args.players or max(2, ENVS[args.env].player_counts[0])
    saved = json.loads(out.read_text()) if out.is_file() else None
    if saved and sweep_key(saved) != (args.env, players, args.seed, args.deals, args.bot):
        raise SystemExit(
            f"{out} holds a sweep of other env, players, seed, deals or bot "
            f"({', '.join(str(v) for v in sweep_key(saved))}); give another --out"
        )
    data = saved or {
        "command": "python benchmarks/search_budget.py " + " ".join(args.argv),
        "bot": args.bot,
        "env": args.env,
        "players": players,
        "seed": args.seed,
        "deals": args.deals,
        "commit": git_commit(),
        "rows": [],
    }
    done = {row["budget"] for row in data["rows"]}
    for budget in args.budgets:
        if budget in done:
            continue
        row = measure(args.env, players, budget, args.deals, args.seed, args.bot)
        data["rows"].append(row)
        data["rows"].sort(key=lambda r: r["budget"])
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(data, indent=2) + "\n")
        print(table_row(args.env, players, row, args.bot), flush=True)


def sweep_key(data: dict[str, Any]) -> tuple[Any, ...]:
    """What makes two sweeps one: env, players, seed, deals and bot (a file saved
    before ``--bot`` existed is a sweep of the one-move search)."""
    return (data["env"], data["players"], data["seed"], data["deals"], data.get("bot", "search"))


def table_row(env_id: str, players: int, row: dict[str, Any], bot: str = "search") -> str:
    return (
        f"| {bot} | {env_id} | {players} | {row['budget']} | {row['deals']} | "
        f"{row['cpu_seconds_per_move']:.3f} | {row['simulations_per_move']:.0f} | "
        f"{row['win_rate']:.1%} ± {row['win_rate_ci']:.1%} |"
    )


def table(paths: list[Path]) -> str:
    """The Markdown table of saved sweeps."""
    lines = [
        "| bot | env | players | simulations (budget) | deals | CPU s / searched move "
        "| simulations / move (used) | search wins (95% CI) |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for path in paths:
        data = json.loads(path.read_text())
        bot = data.get("bot", "search")
        lines += [table_row(data["env"], data["players"], row, bot) for row in data["rows"]]
    return "\n".join(lines)


def plot(paths: list[Path], png: Path) -> None:
    """Win rate against CPU seconds per searched move, one line per sweep, with
    the fair share of each table drawn dashed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=100)
    for path in paths:
        data = json.loads(path.read_text())
        rows = data["rows"]
        x = [r["cpu_seconds_per_move"] for r in rows]
        y = [100 * r["win_rate"] for r in rows]
        errors = [100 * (r["win_rate_ci"] if math.isfinite(r["win_rate_ci"]) else 0) for r in rows]
        bot = data.get("bot", "search")
        label = f"{bot}, {data['env']}, {data['players']} players, {data['deals']} deals"
        style = "-" if bot == "search" else "--"
        line = ax.errorbar(x, y, yerr=errors, marker="o", capsize=3, label=label, linestyle=style)
        share = 100 / data["players"]
        ax.axhline(share, color=line[0].get_color(), linestyle=":", linewidth=1)
    goal = "goal at 2 players (Arena: 63%)"
    ax.axhline(60, color="grey", linestyle="--", linewidth=1, label=goal)
    ax.set_xscale("log")
    ax.set_xlabel("CPU seconds per searched move (log scale)")
    ax.set_ylabel("search bot's win rate against the heuristic (%)")
    ax.set_title("Search bots: strength against think time (dotted: fair share)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, metadata={"Software": None})
    plt.close(fig)


def budget_list(text: str) -> list[int]:
    """``--budgets``: simulation counts, each 1 to 100,000 (the search bot's range)."""
    try:
        budgets = [int(item) for item in text.split(",")]
    except ValueError:
        budgets = []
    if not budgets or not all(1 <= b <= 100_000 for b in budgets):
        raise argparse.ArgumentTypeError(
            f"{text!r}: allowed: simulation counts 1 to 100000, comma-separated (e.g. 35,345)"
        )
    return budgets


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", choices=sorted(ENVS), help="the game of a sweep")
    parser.add_argument(
        "--bot", choices=BOTS, default="search", help="the search bot swept (default search)"
    )
    parser.add_argument("--players", type=int, default=0, help="default: 2, or the fewest")
    parser.add_argument(
        "--budgets",
        type=budget_list,
        default=[],
        help="simulation budgets, comma-separated",
    )
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument(
        "--seed", type=int, default=2000, help="the deals (fresh: not a training seed)"
    )
    parser.add_argument("--out", help="the sweep's JSON file")
    parser.add_argument("--plot", nargs="+", type=Path, help="saved sweeps to plot and tabulate")
    parser.add_argument("--png", type=Path, help="with --plot: where the plot goes")
    args = parser.parse_args(argv)
    args.argv = argv if argv is not None else __import__("sys").argv[1:]
    if args.plot:
        print(table(args.plot))
        if args.png:
            plot(args.plot, args.png)
        return
    if not (args.env and args.budgets and args.out):
        parser.error("a sweep needs --env, --budgets and --out (or give --plot FILES)")
    sweep(args)


if __name__ == "__main__":
    main()
