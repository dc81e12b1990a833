"""How far the Arena heuristic can be beaten: a Monte Carlo improvement of it.

The shipped Arena bots and every variant of the heuristic tried so far stop at
about 55% of 2-player games against the heuristic (docs/training.md), short of
the 65% a trained bot is asked for. Whether more is there to be had at all, in
a game this bound to its dice, is what this script measures: the *searcher*
plays the heuristic's move unless playouts say another legal move wins more
often, and it meets the heuristic in the duplicate format (every deal once with
the searcher in each seat).

At each of its decisions with more than one legal move the searcher

1. plays every legal move in ``--first`` playouts (the same dice seeds for
   every move, so that the moves are compared on the same luck), each a copy
   of the game with dice of its own (never the game's own generator: the
   searcher does not see the dice to come) and the face-down medal stack
   reshuffled, played to its end by heuristic bots in every seat;
2. plays the heuristic's move and the two best others in ``--second`` more;
3. leaves the heuristic's move only for one whose win share over all its
   playouts is more than ``--margin`` above the heuristic move's.

With ``--phases`` it searches only at decisions of those phases (the others
take the heuristic's move), which measures where the headroom lies.

It prints the searcher's win rate with its 95% interval (over the deals), and
per phase how often it left the heuristic's move. A bot it is not: a 2-player game costs
about half a minute of playouts per core.

    python benchmarks/arena_headroom.py [--deals 60] [--start 0] [--players 2]
                                        [--first 6] [--second 18] [--margin 0.1]
                                        [--phases action,move,...] [--jobs 2]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field

import numpy as np

from flockgym.envs.arena.bots import ArenaHeuristicBot
from flockgym.envs.arena.observer import game_view
from flockgym.envs.arena.phases import PHASE_NAMES
from flockgym.envs.arena.rules import ArenaConfig, ArenaGame
from flockgym.envs.core.aec import agent_name
from flockgym.envs.core.rng import rng_to_dict
from flockgym.evaluation.tournaments import mean_and_ci

CANDIDATES = 2
"""Moves besides the heuristic's kept for the second round of playouts."""
PLAYOUT_SEEDS = 10_000
"""The searcher's playout seeds in deal ``d`` come from a generator seeded with
this plus ``d`` (other numbers than the deals' own seeds)."""
PLAYOUT_CAP = 5000
"""Decisions after which a playout is scored as a draw: a guard only, since
heuristic games end within a few hundred (none of the 2-player run's
playouts reached it)."""


@dataclass(frozen=True)
class Search:
    """How many playouts, and how sure the searcher must be to leave the heuristic."""

    players: int
    first: int
    second: int
    margin: float
    phases: frozenset[str] = frozenset(PHASE_NAMES)
    """The phases whose decisions are searched."""


@dataclass
class DealResult:
    """One game of the searcher in one seat of one deal."""

    deal: int
    seat: int
    win_share: float
    decisions: Counter[str] = field(default_factory=Counter)
    """Per searched phase: decisions with more than one legal move."""
    overruled: Counter[str] = field(default_factory=Counter)
    """Per phase: decisions where the searcher left the heuristic's move."""


def agent_names(players: int) -> list[str]:
    return [agent_name(seat) for seat in range(players)]


def heuristic_move(bot: ArenaHeuristicBot, game: ArenaGame, agents: list[str]) -> int:
    """The bot's move from the view and mask the env would give it."""
    seat = game.current_player()
    observation = {"action_mask": game.legal_mask(game.layout.size)}
    return bot.act(observation, game_view(game, seat, agents))


def unseen_copy(game: ArenaGame, seed: int) -> ArenaGame:
    """The game as its players see it, with dice of its own: a copy whose
    generator is seeded anew and whose face-down medal stack is reshuffled
    (during the character wishes there is no board yet: the new generator deals it)."""
    state = game.to_dict()
    dice = np.random.default_rng(seed)
    if state["gym_at"]:
        stack = list(state["medal_stack"])
        dice.shuffle(stack)
        state["medal_stack"] = stack
    state["rng"] = rng_to_dict(dice)
    return ArenaGame.from_dict(state)


def win_share(game: ArenaGame, seat: int) -> float:
    winners = game.winners()
    return 1.0 / len(winners) if seat in winners else 0.0


def playout(game: ArenaGame, seat: int, agents: list[str]) -> float:
    """``seat``'s win share once heuristic bots in every seat finish the game."""
    bots = [ArenaHeuristicBot(seed=0) for _ in agents]
    for _ in range(PLAYOUT_CAP):
        if game.is_over():
            return win_share(game, seat)
        game.apply_action(heuristic_move(bots[game.current_player()], game, agents))
    return 0.5


def wins_after(game: ArenaGame, move: int, seeds: np.ndarray, agents: list[str]) -> float:
    """Total win share of the mover over one playout per seed after ``move``."""
    seat = game.current_player()
    total = 0.0
    for seed in seeds.tolist():
        copy = unseen_copy(game, seed)
        copy.apply_action(move)
        total += playout(copy, seat, agents)
    return total


def searched_move(
    game: ArenaGame, advised: int, search: Search, rng: np.random.Generator, agents: list[str]
) -> int:
    """The heuristic's move ``advised``, or another that playouts show to be better."""
    legal = game.legal_actions()
    first = rng.integers(0, 2**31, size=search.first)
    totals = {move: wins_after(game, move, first, agents) for move in legal}
    others = sorted((m for m in legal if m != advised), key=lambda m: -totals[m])[:CANDIDATES]
    second = rng.integers(0, 2**31, size=search.second)
    for move in [advised, *others]:
        totals[move] += wins_after(game, move, second, agents)
    playouts = search.first + search.second
    best = max(others, key=lambda m: totals[m])
    if totals[best] / playouts > totals[advised] / playouts + search.margin:
        return best
    return advised


def play_deal(deal: int, seat: int, search: Search) -> DealResult:
    """Deal ``deal`` with the searcher in ``seat`` and the heuristic in the others."""
    agents = agent_names(search.players)
    game = ArenaGame.new(ArenaConfig(num_players=search.players), np.random.default_rng(deal))
    bots = [ArenaHeuristicBot(seed=deal * 10 + s) for s in range(search.players)]
    rng = np.random.default_rng(PLAYOUT_SEEDS + deal)
    result = DealResult(deal, seat, 0.0)
    while not game.is_over():
        mover = game.current_player()
        move = heuristic_move(bots[mover], game, agents)
        if mover == seat and len(game.legal_actions()) > 1:
            phase = game_view(game, seat, agents)["phase"]
            if phase in search.phases:
                searched = searched_move(game, move, search, rng, agents)
                result.decisions[phase] += 1
                result.overruled[phase] += searched != move
                move = searched
        game.apply_action(move)
    result.win_share = win_share(game, seat)
    return result


def interval(results: list[DealResult]) -> float:
    """Half-width of the 95% interval of the win rate over the deals, as
    ``flockgym eval`` takes it: in the duplicate format a deal's games (one per
    seat) share its luck, so the deals, not the games, are the samples."""
    per_deal: dict[int, list[float]] = {}
    for result in results:
        per_deal.setdefault(result.deal, []).append(result.win_share)
    means = np.array([sum(shares) / len(shares) for shares in per_deal.values()])
    return mean_and_ci(means)[1]


def progress(result: DealResult, done: int, total: int, seconds: float) -> None:
    """One line per finished game on stderr: a long run can be followed, and
    stopped with the games so far on record."""
    print(
        f"game {done}/{total}: deal {result.deal} seat {result.seat} "
        f"win share {result.win_share:g} ({seconds:.0f} s)",
        file=sys.stderr,
        flush=True,
    )


def searched_phases(search: Search) -> str:
    if search.phases == frozenset(PHASE_NAMES):
        return ""
    return ", searching " + ",".join(p for p in PHASE_NAMES if p in search.phases)


def phase_set(text: str) -> frozenset[str]:
    """``--phases``: comma-separated phase names, each checked."""
    names = frozenset(part.strip() for part in text.split(",") if part.strip())
    unknown = sorted(names - set(PHASE_NAMES[:-1]))
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown phase(s) {', '.join(unknown) or '(none given)'}; allowed: "
            + ", ".join(PHASE_NAMES[:-1])
        )
    return names


def report(results: list[DealResult], search: Search, seconds: float) -> None:
    shares = [r.win_share for r in results]
    rate = sum(shares) / len(shares)
    print(
        f"searcher vs heuristic, {search.players} players, {len(results)} games "
        f"({len(results) // search.players} deals x {search.players} seats), "
        f"playouts {search.first} + {search.second}, margin {search.margin}"
        f"{searched_phases(search)}: "
        f"win rate {rate:.1%} ± {interval(results):.1%} "
        f"(an equal player: {1 / search.players:.1%}); {seconds:.0f} s"
    )
    decisions = sum((r.decisions for r in results), Counter())
    overruled = sum((r.overruled for r in results), Counter())
    print(f"{'phase':<18}{'decisions':>10}{'overruled':>10}")
    for phase, count in decisions.most_common():
        print(f"{phase:<18}{count:>10}{overruled[phase]:>10}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=60)
    parser.add_argument("--start", type=int, default=0, help="first deal's seed")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--first", type=int, default=6, help="playouts per legal move")
    parser.add_argument("--second", type=int, default=18, help="more for the best moves")
    parser.add_argument("--margin", type=float, default=0.1)
    parser.add_argument(
        "--phases",
        type=phase_set,
        default=frozenset(PHASE_NAMES),
        help="search only at decisions of these phases (comma-separated; default all)",
    )
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    search = Search(args.players, args.first, args.second, args.margin, args.phases)
    games = [(deal, seat) for deal in range(args.start, args.start + args.deals)
             for seat in range(args.players)]  # fmt: skip
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(play_deal, deal, seat, search) for deal, seat in games]
        results = []
        for future in as_completed(futures):
            results.append(future.result())
            progress(results[-1], len(results), len(games), time.perf_counter() - started)
    results.sort(key=lambda r: (r.deal, r.seat))
    report(results, search, time.perf_counter() - started)


if __name__ == "__main__":
    main()
