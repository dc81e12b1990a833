"""``flockgym compare A B``: a paired verdict between two agents on duplicate deals.

Both agents play the very same deals from the very same seats, so the luck of
the cards cancels out of their difference:

* at 2 players A and B swap seats on each deal: the deal is played at the two
  tables of ``flockgym eval --seating rotate --players A,B`` (the same games,
  seeded the same way);
* at k players A sits alone among a field (default the heuristic in every other
  seat; ``field`` names one spec for all, or one per other seat, laid from the
  seat after A's onwards), in each seat in turn: the tables of
  ``flockgym eval --seating field --players A,<field>``; then B takes A's place
  at the same tables, the field bots seeded exactly as they were against A.

Both are played by the tournament machinery of :mod:`.tournaments` (its blocks,
processes and vectorised engine), so ``jobs`` changes nothing but the time.
Each deal gives one paired observation (:mod:`.compare_stats`): the verdict is
the win-rate and mean-points differences with 95% intervals over deals, the
Elo difference from the mean deal score, the likelihood of superiority, and
with ``sprt`` a sequential test that stops at the first deal where it can
decide. Ratings from full finishing orders (a Plackett-Luce model, from the
``openskill`` library) stand beside the Bradley-Terry Elo ``flockgym eval`` fits.

The result records the commit, package versions, a hash of the resolved
arguments, the seed and every deal's seed, so the same command gives the same
``compare.json`` (apart from its ``created`` time).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import math
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from flockgym.bots.policies import BotSpec, Participant, make_participant, parse_spec
from flockgym.common.errors import MissingExtraError
from flockgym.common.files import append_line, make_folder, write_text_atomic
from flockgym.common.progress import Progress
from flockgym.common.provenance import Clock
from flockgym.common.version import git_commit
from flockgym.envs import FlockgymError, make
from flockgym.envs.core.reader import read_text
from flockgym.envs.core.rng import derive_seed
from flockgym.evaluation import compare_stats as stats
from flockgym.evaluation import sprt as sequential
from flockgym.evaluation.tournaments import (
    DealTally,
    Schedule,
    bradley_terry_elo,
    make_schedule,
    play_blocks,
    seating_tables,
)

RESULT_FILES = ("compare.json", "compare.md", "deals.csv")
RESULT_FORMAT = "flockgym-compare"
RESULT_VERSION = 1
DEFAULT_FIELD = "heuristic"
DEFAULT_MAX_DEALS = 2000
SPRT_MIN_DEALS = sequential.MIN_DECISIVE
"""The fewest deals a sequential test may be capped at: it decides nothing
before this many decisive deals (:data:`.sprt.MIN_DECISIVE`)."""


# ---- the request ------------------------------------------------------------------------


@dataclass(frozen=True)
class CompareRequest:
    """The arguments that decide a comparison's numbers (``jobs``, ``engine``
    and the output folder change only its time and place)."""

    env_id: str
    options: dict[str, Any]
    a: str
    b: str
    field: tuple[str, ...] = ()
    deals: int | None = 100
    sprt: tuple[float, float] | None = None
    alpha: float = 0.05
    beta: float = 0.05
    max_deals: int = DEFAULT_MAX_DEALS
    seed: int = 0
    elo_model: str = "normalized"


MAX_DEALS = 100_000
"""Most deals a comparison may play (every deal block is built up front), as a
config's ``eval.games`` and the command line's ``--deals``."""


def check_request(request: CompareRequest) -> None:
    """Refuse a request that cannot run, naming the argument and what is allowed
    (before anything is made or played)."""
    if request.sprt is None:
        if request.deals is None or not 2 <= request.deals <= MAX_DEALS:
            raise FlockgymError(
                f"--deals {request.deals}: must be an integer from 2 to {MAX_DEALS} (the 95% "
                "intervals are computed over deals), or give --sprt ELO0,ELO1"
            )
        return
    if request.deals is not None:
        raise FlockgymError("give either --deals N or --sprt ELO0,ELO1, not both")
    elo0, elo1 = request.sprt
    if not (math.isfinite(elo0) and math.isfinite(elo1) and elo0 < elo1):
        raise FlockgymError(
            f"--sprt {elo0:g},{elo1:g}: needs two finite Elo differences with ELO0 < ELO1 "
            "(e.g. --sprt 0,20)"
        )
    if request.elo_model not in sequential.ELO_MODELS:
        raise FlockgymError(
            f"--elo-model {request.elo_model}: allowed {', '.join(sequential.ELO_MODELS)}"
        )
    for name, value in (("--alpha", request.alpha), ("--beta", request.beta)):
        if not 0.0 < value < 0.5:
            raise FlockgymError(f"{name} {value:g}: must be an error rate in (0, 0.5)")
    if not SPRT_MIN_DEALS <= request.max_deals <= MAX_DEALS:
        raise FlockgymError(
            f"--max-deals {request.max_deals}: must be an integer from {SPRT_MIN_DEALS} to "
            f"{MAX_DEALS} (the test decides nothing before {SPRT_MIN_DEALS} decisive deals)"
        )


@dataclass
class Setup:
    """A request made concrete: the env's resolved options, the participants and
    the schedules the tournament machinery plays."""

    request: CompareRequest
    num_players: int
    resolved_options: dict[str, Any]
    schedules: list[Schedule]
    field_names: list[str] = field(default_factory=list)

    @property
    def mode(self) -> str:
        return "swap" if self.num_players == 2 else "field"

    @property
    def tables(self) -> int:
        return len(self.schedules[0].tables)


def prepare(request: CompareRequest, engine: str = "auto") -> Setup:
    """Check the request against the env (options, bot specs, field size) and
    build the schedules; every error is raised before a folder is made."""
    check_request(request)
    env = make(request.env_id, **request.options)
    n = len(env.possible_agents)
    resolved = {k: v for k, v in env.unwrapped.options.items() if k != "render_mode"}
    env.close()
    a = make_participant(request.a, request.env_id, request.options, name=f"A: {request.a}")
    b = make_participant(request.b, request.env_id, request.options, name=f"B: {request.b}")
    if n == 2:
        if request.field:
            raise FlockgymError(
                f"--field {','.join(request.field)}: a 2-player game has no field (A and B "
                "swap seats on each deal); --field applies from 3 players"
            )
        tables = seating_tables(2, 2, "rotate")
        schedules = [schedule(request, [a, b], tables, engine)]
        return Setup(request, n, resolved, schedules)
    field_specs = list(request.field) or [DEFAULT_FIELD]
    if len(field_specs) not in (1, n - 1):
        raise FlockgymError(
            f"--field names {len(field_specs)} specs; allowed: 1 (every other seat) or "
            f"{n - 1} (one per other seat of this {n}-player game)"
        )
    if len(field_specs) == 1:
        field_specs *= n - 1
    distinct = list(dict.fromkeys(field_specs))
    field_players = [
        make_participant(spec, request.env_id, request.options, name=spec) for spec in distinct
    ]
    tables = field_tables(n, [1 + distinct.index(spec) for spec in field_specs])
    schedules = [schedule(request, [x, *field_players], tables, engine) for x in (a, b)]
    return Setup(request, n, resolved, schedules, field_specs)


def field_tables(num_seats: int, field_index: list[int]) -> list[tuple[int, ...]]:
    """Participant 0 in each seat in turn, the field's ``field_index[j]`` in the
    ``j``-th seat after it: with one field participant these are exactly
    ``seating_tables(n, 2, 'field')``, the tables ``flockgym eval`` plays."""
    tables = []
    for focus in range(num_seats):
        table = [0] * num_seats
        for j, index in enumerate(field_index):
            table[(focus + 1 + j) % num_seats] = index
        tables.append(tuple(table))
    return tables


def schedule(
    request: CompareRequest, players: list[Participant], tables: list[tuple[int, ...]], engine: str
) -> Schedule:
    """A tournament schedule as :func:`~flockgym.evaluation.tournaments.tournament`
    builds it."""
    return make_schedule(
        request.env_id, dict(request.options), players, tables, "compare", request.seed, True,
        engine,
    )  # fmt: skip


@dataclass
class WindowSchedule(Schedule):
    """A schedule that plays only its blocks from deal ``first`` on: a sequential
    test plays the tournament a few blocks at a time, the very blocks (and so
    the very games) of the whole tournament. ``deals_per_block`` (0: the
    tournament's own blocks) cuts blocks of that many deals instead, for bots
    played one game at a time, whose games do not depend on the blocks (each
    seat's bot is seeded by deal, table and seat)."""

    first: int = 0
    deals_per_block: int = 0

    def deal_blocks(self, deals: int) -> list[range]:
        size = self.deals_per_block
        blocks = (
            [range(start, min(start + size, deals)) for start in range(0, deals, size)]
            if size
            else super().deal_blocks(deals)
        )
        return [block for block in blocks if block.start >= self.first]


def window(base: Schedule, first: int, deals_per_block: int = 0) -> WindowSchedule:
    fields = {k: v for k, v in base.__dict__.items() if k not in ("first", "deals_per_block")}
    return WindowSchedule(**fields, first=first, deals_per_block=deals_per_block)


ONE_BY_ONE_KINDS = frozenset({"random", "heuristic", "custom"})
"""Participants (:attr:`Participant.kind`) whose bots decide each game's moves on
their own, seeded per game (``custom``: the search bots and any bot that is not
a policy): the games of a block do not depend on which other games share it.
A policy's decisions are batched across the games of a block."""


def sprt_deals_per_block(setup: Setup) -> int:
    """Blocks of one deal for a sequential test of bots that decide one game at
    a time (a search bot takes up to seconds a move: the test looks after every
    deal rather than after a tournament block of 60, and a stopped test resumes
    at any deal), else the tournament's blocks (a network's batched decisions
    and the vector engine play a block together)."""
    schedule = setup.schedules[0]
    one_by_one = all(p.kind in ONE_BY_ONE_KINDS for s in setup.schedules for p in s.participants)
    return 1 if schedule.engine == "scalar" and one_by_one else 0


def whole_blocks(setup: Setup, deals: int, played: int, per_block: int) -> int:
    """The deals of ``played`` that fill whole blocks: a run stopped between two
    deals of a block plays that block again from its start."""
    starts = [b.start for b in window(setup.schedules[0], 0, per_block).deal_blocks(deals)]
    return max([start for start in starts if start <= played], default=0)


# ---- playing ------------------------------------------------------------------------------


@dataclass
class DealPair:
    """One deal's paired outcome: A's and B's win rate and mean points per game,
    and each schedule's tally (for the ratings)."""

    a_win: float
    b_win: float
    a_points: float
    b_points: float
    tallies: list[DealTally]


def pair_deal(setup: Setup, tallies: list[DealTally]) -> DealPair:
    """Swap mode: participants 0 and 1 of one tally; field mode: participant 0
    of A's tally and of B's."""
    if setup.mode == "swap":
        (t,) = tallies
        games = t.seat_games
        return DealPair(
            t.wins[0] / games[0],
            t.wins[1] / games[1],
            t.points[0] / games[0],
            t.points[1] / games[1],
            tallies,
        )
    ta, tb = tallies
    return DealPair(
        ta.wins[0] / ta.seat_games[0],
        tb.wins[0] / tb.seat_games[0],
        ta.points[0] / ta.seat_games[0],
        tb.points[0] / tb.seat_games[0],
        tallies,
    )


def play_deals(
    setup: Setup,
    deals: int,
    jobs: int,
    blocks_at_once: int | None,
    meter: Progress,
    start_deal: int = 0,
    deals_per_block: int = 0,
) -> Iterator[DealPair]:
    """Deals ``start_deal``, ``start_deal + 1``, ... in order, each paired;
    ``blocks_at_once`` blocks are played at a time (all of them when None), so
    that a sequential test that stops early does not play all ``deals``."""
    blocks = window(setup.schedules[0], start_deal, deals_per_block).deal_blocks(deals)
    step = len(blocks) if blocks_at_once is None else blocks_at_once
    for start in range(0, len(blocks), step):
        stop = blocks[min(start + step, len(blocks)) - 1].stop
        first = blocks[start].start
        per_schedule = []
        for base in setup.schedules:
            tallies: dict[int, DealTally] = {}
            for block in play_blocks(window(base, first, deals_per_block), stop, jobs):
                tallies.update(block)
                meter.update(len(block) * setup.tables)
            per_schedule.append(tallies)
        for deal in range(first, stop):
            yield pair_deal(setup, [tallies[deal] for tallies in per_schedule])


# ---- the journal of played deals ---------------------------------------------------------------

JOURNAL_FILE = "deals.jsonl"
JOURNAL_FORMAT = "flockgym-compare-deals"
JOURNAL_LINE_BYTES = 16_384
"""A generous bound on one deal's line (a few hundred bytes at 2 players), for
the size cap the journal is read under."""


def tally_json(tally: DealTally) -> dict[str, Any]:
    """A deal's tally as JSON types (floats round-trip exactly through JSON)."""
    return {
        "wins": tally.wins.tolist(),
        "points": tally.points.tolist(),
        "seat_games": tally.seat_games.tolist(),
        "pair_wins": tally.pair_wins.tolist(),
        "tables_left": tally.tables_left,
        "no_winner": tally.no_winner,
        "games": [[list(seats), list(points), list(won)] for seats, points, won in tally.games],
    }


def tally_from_json(data: dict[str, Any]) -> DealTally:
    return DealTally(
        np.array(data["wins"], dtype=float),
        np.array(data["points"], dtype=float),
        np.array(data["seat_games"], dtype=float),
        np.array(data["pair_wins"], dtype=float),
        int(data["tables_left"]),
        int(data["no_winner"]),
        [(tuple(seats), tuple(points), tuple(won)) for seats, points, won in data["games"]],
    )


class DealJournal:
    """The deals a comparison has played, in ``deals.jsonl`` beside its results:
    a header line naming the comparison's config hash, then one line per deal
    as it is paired. A comparison stopped (Ctrl-C, a crash, the end of a
    session) and run again with the same folder plays on from its last deal;
    a journal of another comparison is refused, not mixed in."""

    def __init__(self, folder: Path, setup: Setup) -> None:
        self.path = Path(folder) / JOURNAL_FILE
        self.config_hash = config_hash(config_json(setup))

    def played(self) -> list[DealPair]:
        """The deals the journal holds (none when there is no journal yet)."""
        if not self.path.is_file():
            return []
        limit = JOURNAL_LINE_BYTES * (MAX_DEALS + 1)
        lines = read_text(self.path, "compare journal", limit).splitlines()
        try:
            header = json.loads(lines[0]) if lines else {}
        except json.JSONDecodeError:
            header = {}
        if not isinstance(header, dict) or header.get("format") != JOURNAL_FORMAT:
            raise FlockgymError(
                f"{self.path} is not a comparison's journal of deals (its first line must be "
                f'{{"format": "{JOURNAL_FORMAT}", ...}}): give another --out, or move the file away'
            )
        if header.get("config_hash") != self.config_hash:
            raise FlockgymError(
                f"{self.path} holds the deals of another comparison (config hash "
                f"{str(header.get('config_hash'))[:16]}, this one {self.config_hash[:16]}): "
                "give another --out, or the same arguments to resume it"
            )
        pairs = []
        for line in lines[1:]:
            try:
                data = json.loads(line)
            except json.JSONDecodeError:
                break  # a line cut short by a stop mid-write: that deal is played again
            tallies = [tally_from_json(t) for t in data["tallies"]]
            pairs.append(
                DealPair(data["a_win"], data["b_win"], data["a_points"], data["b_points"], tallies)
            )
        return pairs

    def keep(self, deals: int) -> None:
        """Cut the journal to its first ``deals`` deals (a block cut short, a
        line half-written), so the deals played next follow on."""
        if not self.path.is_file():
            return
        lines = read_text(self.path, "compare journal", JOURNAL_LINE_BYTES * (MAX_DEALS + 1))
        kept = lines.splitlines()[: 1 + deals]
        write_text_atomic(self.path, "".join(line + "\n" for line in kept))

    def add(self, pair: DealPair) -> None:
        """Append one deal (the header first, for a new journal), flushed to disk."""
        if not self.path.is_file():
            header = {"format": JOURNAL_FORMAT, "config_hash": self.config_hash}
            append_line(self.path, json.dumps(header))
        row = {
            "a_win": pair.a_win,
            "b_win": pair.b_win,
            "a_points": pair.a_points,
            "b_points": pair.b_points,
            "tallies": [tally_json(t) for t in pair.tallies],
        }
        append_line(self.path, json.dumps(row))


# ---- the result ------------------------------------------------------------------------------


@dataclass
class SprtOutcome:
    """Where the sequential test stopped, what it decided, and the
    stopping-aware estimates (:func:`.sprt.analytics`)."""

    elo0: float
    elo1: float
    elo_model: str
    alpha: float
    beta: float
    lower: float
    upper: float
    llr: float
    decision: str
    """``H1`` (A is at least ``elo1`` stronger), ``H0`` (at most ``elo0``), or
    ``none``: ``max_deals`` were played without a decision."""
    max_deals: int
    min_decisive: int
    decisive_deals: int
    estimate: dict[str, float]
    """The median-unbiased Elo and its 95% interval given how the test stopped
    (logistic and normalised), and the likelihood of superiority."""


def compare(
    request: CompareRequest,
    jobs: int = 1,
    engine: str = "auto",
    progress: bool = False,
    setup: Setup | None = None,
    journal: DealJournal | None = None,
) -> dict[str, Any]:
    """Play the comparison and return its result (the ``compare.json`` object).
    With a ``journal``, every deal is written to it as it is paired, and the
    deals it already holds (a run stopped by Ctrl-C, a crash or a session's
    end) are not played again: the result is the uninterrupted run's."""
    setup = setup or prepare(request, engine)
    sprt = request.sprt
    planned = request.max_deals if sprt else int(request.deals or 0)
    pairs: list[DealPair] = journal.played() if journal is not None else []
    games_a_deal = setup.tables * len(setup.schedules)
    meter = Progress(
        planned * games_a_deal,
        "games",
        enabled=progress,
        label=f"compare {request.env_id}",
        initial=len(pairs) * games_a_deal,
    )
    outcome = None
    clock = Clock()

    def played(blocks_at_once: int | None, per_block: int) -> Iterator[DealPair]:
        for pair in play_deals(setup, planned, jobs, blocks_at_once, meter, len(pairs), per_block):
            if journal is not None:
                journal.add(pair)
            yield pair

    per_block = sprt_deals_per_block(setup) if sprt else 0
    del pairs[whole_blocks(setup, planned, len(pairs), per_block) :]
    if journal is not None:
        journal.keep(len(pairs))
    if sprt is None:
        pairs += list(played(None, 0))
    else:
        bounds = sequential.sprt_bounds(request.alpha, request.beta)
        test = sequential.Sequential(sprt[0], sprt[1], bounds, request.elo_model)
        decision = ""
        before, pairs = pairs, []
        for pair in before:  # the deals a stopped run played, up to its decision
            pairs.append(pair)
            decision = test.add(0.5 + (pair.a_win - pair.b_win) / 2.0)
            if decision:
                break
        for pair in [] if decision else played(jobs, per_block):
            pairs.append(pair)
            decision = test.add(0.5 + (pair.a_win - pair.b_win) / 2.0)
            if decision:
                break
        scores = [0.5 + (p.a_win - p.b_win) / 2.0 for p in pairs]
        estimate = sequential.analytics(
            np.array(scores), sprt[0], sprt[1], request.alpha, request.beta, request.elo_model
        )
        outcome = SprtOutcome(
            sprt[0], sprt[1], request.elo_model, request.alpha, request.beta, *bounds, test.llr,
            decision or "none", planned, test.min_decisive, test.decisive, estimate.__dict__,
        )  # fmt: skip
    meter.close()
    return result_json(setup, pairs, outcome, jobs) | {"provenance": clock.record()}


def result_json(
    setup: Setup, pairs: list[DealPair], sprt: SprtOutcome | None, jobs: int
) -> dict[str, Any]:
    """Everything measured, with what reproduces it."""
    request = setup.request
    a_win = np.array([p.a_win for p in pairs])
    b_win = np.array([p.b_win for p in pairs])
    a_points = np.array([p.a_points for p in pairs])
    b_points = np.array([p.b_points for p in pairs])
    scores = stats.deal_scores(a_win - b_win)
    wins, draws, losses = stats.deal_record(scores)
    win_diff, win_ci = stats.paired_difference(a_win - b_win)
    points_diff, points_ci = stats.paired_difference(a_points - b_points)
    elo = stats.elo_estimate(scores)
    config = config_json(setup)
    verdict = {
        "win_rate_diff": win_diff,
        "win_rate_diff_ci": win_ci,
        "mean_points_diff": points_diff,
        "mean_points_diff_ci": points_ci,
        "score": elo.score,
        "elo_diff": elo.elo,
        "elo_diff_low": elo.low,
        "elo_diff_high": elo.high,
        "deal_wins": wins,
        "deal_draws": draws,
        "deal_losses": losses,
        "los": stats.likelihood_of_superiority(wins, losses),
        "intervals": "fixed-n t intervals over deals",
    }
    if sprt is not None:
        # A test that stops when its LLR is extreme biases every fixed-n
        # figure: the Elo and LOS are the stopping-aware ones, and the other
        # intervals are not given.
        estimate = sprt.estimate
        verdict |= {
            "win_rate_diff_ci": None,
            "mean_points_diff_ci": None,
            "elo_diff": estimate["elo"],
            "elo_diff_low": estimate["low"],
            "elo_diff_high": estimate["high"],
            "los": estimate["los"],
            "intervals": "stopping-aware (median-unbiased, fishtest's SPRT analytics)",
        }
    warning = stats.small_sample_warning(len(pairs))
    return {
        "format": RESULT_FORMAT,
        "version": RESULT_VERSION,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "config": config,
        "config_hash": config_hash(config),
        "commit": git_commit(),
        "versions": package_versions(),
        "jobs": jobs,
        "engine": setup.schedules[0].engine,
        "mode": setup.mode,
        "num_players": setup.num_players,
        "tables_per_deal": setup.tables,
        "deals": len(pairs),
        "games": len(pairs) * setup.tables * len(setup.schedules),
        "seed": request.seed,
        "deal_seeds": [derive_seed(request.seed, deal) for deal in range(len(pairs))],
        "verdict": verdict,
        "warnings": [] if warning is None else [warning],
        "sprt": None if sprt is None else sprt.__dict__,
        "standings": standings(setup, a_win, b_win, a_points, b_points, pairs),
        "ratings": plackett_luce(setup, pairs),
        "per_deal": [
            [p.a_win, p.b_win, p.a_points, p.b_points] for p in pairs
        ],  # columns: see PER_DEAL_COLUMNS
        "per_deal_columns": list(PER_DEAL_COLUMNS),
    }


PER_DEAL_COLUMNS = ("a_win_rate", "b_win_rate", "a_mean_points", "b_mean_points")


def standings(
    setup: Setup,
    a_win: np.ndarray,
    b_win: np.ndarray,
    a_points: np.ndarray,
    b_points: np.ndarray,
    pairs: list[DealPair],
) -> list[dict[str, Any]]:
    """A's and B's own win rate and mean points (95% CIs over deals) and the
    Bradley-Terry Elo ``flockgym eval`` fits, over A, B and the field."""
    names, pair_wins = pairwise_counts(setup, pairs)
    elo = bradley_terry_elo(pair_wins)
    rows = []
    for i, (spec, win, points) in enumerate(
        ((setup.request.a, a_win, a_points), (setup.request.b, b_win, b_points))
    ):
        win_rate, win_ci = stats.mean_and_ci(win)
        mean_points, points_ci = stats.mean_and_ci(points)
        rows.append(
            {
                "name": "AB"[i],
                "spec": spec,
                "win_rate": win_rate,
                "win_rate_ci": win_ci,
                "mean_points": mean_points,
                "mean_points_ci": points_ci,
                "elo": elo[i] if setup.mode == "swap" else None,
            }
        )
    for name in names[2:]:  # the field: its paired figures are A's and B's
        rows.append({"name": "field", "spec": name, "elo": None})
    return rows


def pairwise_counts(setup: Setup, pairs: list[DealPair]) -> tuple[list[str], np.ndarray]:
    """Pairwise win counts over A, B and the distinct field specs (one index
    each), summed over both schedules as :func:`~.tournaments.tally_game` counts them."""
    field_specs = list(dict.fromkeys(setup.field_names))
    names = [setup.request.a, setup.request.b, *field_specs]
    index_of = [[0, 1]] if setup.mode == "swap" else [[0], [1]]
    for mapping in index_of:
        mapping.extend(2 + i for i in range(len(field_specs)))
    total = np.zeros((len(names), len(names)))
    for pair in pairs:
        for mapping, tally in zip(index_of, pair.tallies, strict=True):
            local = tally.pair_wins
            for i in range(local.shape[0]):
                for j in range(local.shape[0]):
                    total[mapping[i], mapping[j]] += local[i, j]
    return names, total


def seat_identities(setup: Setup) -> list[str]:
    """Who a Plackett-Luce rating is kept for: A, B, and in field mode each
    field seat by its place after the focus seat (the same bot in two places
    is two identities: a rating model cannot seat one player twice)."""
    ids = ["A", "B"]
    if setup.mode == "field":
        ids += [f"field +{j + 1}: {spec}" for j, spec in enumerate(setup.field_names)]
    return ids


def plackett_luce(setup: Setup, pairs: list[DealPair]) -> dict[str, Any]:
    """Ratings from every game's full finishing order (winners first, then by
    points; equal places tie), updated game by game in deal and table order by
    openskill's Plackett-Luce model from its default prior, with no drift
    between games (``tau=0``: the bots do not change). It is an online Bayesian
    rating (Weng and Lin): its uncertainty shrinks slowly, so the later games
    weigh more than the earlier ones; the paired verdict is the measurement,
    these ratings the view from every seat's place in the finishing order."""
    try:
        from openskill.models import PlackettLuce
    except ModuleNotFoundError:
        raise MissingExtraError("openskill", "flockgym compare's ratings") from None
    model = PlackettLuce(tau=0.0)
    ids = seat_identities(setup)
    ratings = {name: model.rating(name=name) for name in ids}
    for pair in pairs:
        for s, tally in enumerate(pair.tallies):
            for table, points, won in sorted(tally.games):
                people = [identity(setup, s, table, seat) for seat in range(len(table))]
                keys = [(w, p) for w, p in zip(won, points, strict=True)]
                ranks = [float(sum(other > key for other in keys)) for key in keys]
                teams = [[ratings[name]] for name in people]
                updated = model.rate(teams, ranks=ranks)
                for name, (rating,) in zip(people, updated, strict=True):
                    ratings[name] = rating
    # A and B meet head to head only at 2 players; in a field they never share
    # a table, and a rating model's "A beats B" would be a second, different
    # Elo beside the paired one: it is not given.
    a_beats_b = (
        model.predict_win([[ratings["A"]], [ratings["B"]]])[0] if setup.mode == "swap" else None
    )
    return {
        "model": "openskill PlackettLuce, prior mu 25, sigma 25/3, tau 0, game by game",
        "players": [
            {
                "name": name,
                "mu": ratings[name].mu,
                "sigma": ratings[name].sigma,
                "ordinal": ratings[name].ordinal(),
            }
            for name in ids
        ],
        "a_beats_b": a_beats_b,
    }


def identity(setup: Setup, schedule_index: int, table: tuple[int, ...], seat: int) -> str:
    """The rating identity of ``seat`` at ``table`` of schedule ``schedule_index``."""
    p = table[seat]
    if setup.mode == "swap":
        return "AB"[p]
    if p == 0:
        return "AB"[schedule_index]
    focus = table.index(0)
    j = (seat - focus) % len(table) - 1
    return f"field +{j + 1}: {setup.field_names[j]}"


# ---- provenance ------------------------------------------------------------------------------


def config_json(setup: Setup) -> dict[str, Any]:
    """The resolved arguments that decide the numbers: the env and all its
    options, the players (a checkpoint with the sha256 of its file), the deals
    or the test, the seed."""
    request = setup.request
    return {
        "env": request.env_id,
        "options": setup.resolved_options,
        "a": player_json(request.a),
        "b": player_json(request.b),
        "field": [player_json(spec) for spec in setup.field_names],
        "deals": request.deals,
        "sprt": None if request.sprt is None else list(request.sprt),
        "alpha": request.alpha if request.sprt else None,
        "beta": request.beta if request.sprt else None,
        "max_deals": request.max_deals if request.sprt else None,
        "seed": request.seed,
    }


def player_json(spec_text: str) -> dict[str, Any]:
    spec: BotSpec = parse_spec(spec_text)
    row: dict[str, Any] = {"spec": spec.text}
    if spec.path is not None:
        row["sha256"] = hashlib.sha256(spec.path.read_bytes()).hexdigest()
    return row


def config_hash(config: dict[str, Any]) -> str:
    """sha256 of the canonical JSON (sorted keys, no spaces) of ``config``."""
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def package_versions() -> dict[str, str]:
    """flockgym, numpy, openskill, and torch when it was loaded (by a checkpoint)."""
    names = ["flockgym", "numpy", "openskill"] + (["torch"] if "torch" in sys.modules else [])
    versions = {"python": sys.version.split()[0]}
    for name in names:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


# ---- output ------------------------------------------------------------------------------


def finite_or_none(value: Any) -> Any:
    """JSON has no infinity or NaN: an unbounded or undefined figure is null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: finite_or_none(v) for k, v in value.items()}
    if isinstance(value, list):
        return [finite_or_none(v) for v in value]
    return value


def to_markdown(result: dict[str, Any]) -> str:
    """The report: what was played, the verdict, the test, the ratings."""
    config, verdict = result["config"], result["verdict"]
    a, b = config["a"]["spec"], config["b"]["spec"]
    options = ", ".join(f"{k}={v}" for k, v in sorted(config["options"].items()))
    if result["mode"] == "swap":
        how = "A and B swap seats on each deal"
    else:
        field_text = ", ".join(row["spec"] for row in config["field"])
        how = f"A, then B, alone in each seat among a field of {field_text}"
    sprt = result["sprt"]
    lines = [
        f"# {a} (A) against {b} (B) on {config['env']}",
        "",
        f"{result['num_players']} seats ({options}); {how}: {result['deals']} deals x "
        f"{result['tables_per_deal']} tables per player = {result['games']} games, "
        f"seed {result['seed']}.",
        "",
        *(f"**Warning**: {text}." for text in result.get("warnings", [])),
        *([""] if result.get("warnings") else []),
    ]
    if sprt is None:
        lines += [
            "| A - B (95% CI: t intervals, paired over deals) | value |",
            "| --- | ---: |",
            f"| win rate | {signed_pct(verdict['win_rate_diff'])} ± "
            f"{pct(verdict['win_rate_diff_ci'])} |",
            f"| mean points | {signed(verdict['mean_points_diff'], 2)} ± "
            f"{num(verdict['mean_points_diff_ci'], 2)} |",
            f"| Elo (logistic) | {signed(verdict['elo_diff'], 1)} "
            f"[{signed(verdict['elo_diff_low'], 1)}, {signed(verdict['elo_diff_high'], 1)}] |",
        ]
    else:
        estimate = sprt["estimate"]
        lines += [
            "| A - B after the sequential test | value |",
            "| --- | ---: |",
            f"| win rate (mean over deals) | {signed_pct(verdict['win_rate_diff'])} |",
            f"| mean points (mean over deals) | {signed(verdict['mean_points_diff'], 2)} |",
            f"| Elo (logistic; median-unbiased, 95% CI given the stop) | "
            f"{signed(estimate['elo'], 1)} [{signed(estimate['low'], 1)}, "
            f"{signed(estimate['high'], 1)}] |",
            f"| normalised Elo (the same estimate) | {signed(estimate['nelo'], 1)} "
            f"[{signed(estimate['nelo_low'], 1)}, {signed(estimate['nelo_high'], 1)}] |",
        ]
    lines += [
        f"| deals won / drawn / lost by A | {verdict['deal_wins']} / {verdict['deal_draws']} "
        f"/ {verdict['deal_losses']} |",
        f"| likelihood of superiority | {pct(verdict['los'], 2)} |",
    ]
    if sprt is not None:
        lines += ["", sprt_sentence(sprt, result["deals"])]
    field_mode = result["mode"] == "field"
    lines += [
        "",
        "| player | win rate (95% CI) | mean points (95% CI) |"
        + ("" if field_mode else " Elo (Bradley-Terry) |"),
        "| --- | ---: | ---: |" + ("" if field_mode else " ---: |"),
    ]
    for row in result["standings"]:
        if row["name"] == "field":
            continue
        lines.append(
            f"| {row['name']}: {row['spec']} | {pct(row['win_rate'])} ± {pct(row['win_rate_ci'])}"
            f" | {num(row['mean_points'], 2)} ± {num(row['mean_points_ci'], 2)} |"
            + ("" if field_mode else f" {row['elo']:.0f} |")
        )
    ratings = result["ratings"]
    if field_mode:
        head = (
            f"Plackett-Luce ratings from full finishing orders ({ratings['model']}); A and B "
            "never share a table, so the one Elo difference between them is the paired one "
            "above:"
        )
    else:
        head = (
            f"Plackett-Luce ratings from full finishing orders ({ratings['model']}); "
            f"A beats B head to head with probability {pct(ratings['a_beats_b'])}:"
        )
    lines += [
        "",
        head,
        "",
        "| player | mu | sigma | ordinal (mu - 3 sigma) |",
        "| --- | ---: | ---: | ---: |",
    ]
    for row in ratings["players"]:
        lines.append(
            f"| {row['name']} | {row['mu']:.2f} | {row['sigma']:.2f} | {row['ordinal']:.2f} |"
        )
    lines += [
        "",
        f"commit {result['commit']}, config hash {result['config_hash'][:16]}, "
        + ", ".join(f"{k} {v}" for k, v in result["versions"].items()),
    ]
    return "\n".join(lines) + "\n"


def sprt_sentence(sprt: dict[str, Any], deals: int) -> str:
    """What the sequential test asked, decided and when."""
    unit = "normalised Elo" if sprt["elo_model"] == "normalized" else "logistic Elo"
    decisions = {
        "H1": f"H1 accepted: A is at least {sprt['elo1']:g} {unit} stronger than B",
        "H0": f"H0 accepted: A is at most {sprt['elo0']:g} {unit} stronger than B",
        "none": f"no decision after the cap of {sprt['max_deals']} deals",
    }
    return (
        f"SPRT of H0: {sprt['elo0']:g} against H1: {sprt['elo1']:g} ({unit}, fishtest's GSPRT "
        f"over deal scores), error rates alpha={sprt['alpha']:g} (accepting H1 when H0 "
        f"holds), beta={sprt['beta']:g} (accepting H0 when H1 holds): "
        f"**{decisions[sprt['decision']]}** after {deals} deals, {sprt['decisive_deals']} of "
        f"them decisive (LLR {sprt['llr']:.3f}, bounds [{sprt['lower']:.3f}, "
        f"{sprt['upper']:.3f}]; no decision before {sprt['min_decisive']} decisive deals). "
        "The Elo above is the stopping-aware estimate: a fixed-n interval after a sequential "
        "stop is biased."
    )


def pct(value: float | None, decimals: int = 1) -> str:
    return "n/a" if value is None else f"{value:.{decimals}%}"


def signed_pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.1%}"


def num(value: float | None, decimals: int) -> str:
    return "n/a" if value is None else f"{value:.{decimals}f}"


def signed(value: float | None, decimals: int) -> str:
    """A signed figure; null (an unbounded Elo) reads as infinity's sign unknown."""
    return "unbounded" if value is None else f"{value:+.{decimals}f}"


def deals_csv(result: dict[str, Any]) -> str:
    """Every deal as a row for pandas: its index, seed, A's and B's win rate and
    mean points, and A's deal score."""
    lines = ["deal,seed," + ",".join(result["per_deal_columns"]) + ",score"]
    for index, (seed, row) in enumerate(zip(result["deal_seeds"], result["per_deal"], strict=True)):
        score = 0.5 + (row[0] - row[1]) / 2.0
        values = [repr(float(v)) for v in (*row, score)]
        lines.append(",".join([str(index), str(seed), *values]))
    return "\n".join(lines) + "\n"


def save(result: dict[str, Any], out_dir: Path) -> tuple[Path, Path, str]:
    """Write ``compare.json``, ``compare.md`` and ``deals.csv``; return the
    first two's paths and the Markdown."""
    out = make_folder(Path(out_dir))
    json_path, md_path, csv_path = (out / name for name in RESULT_FILES)
    write_text_atomic(csv_path, deals_csv(result))
    clean = finite_or_none(result)
    markdown = to_markdown(result)  # from the raw figures: an unbounded Elo reads +inf
    write_text_atomic(json_path, json.dumps(clean, indent=2) + "\n")
    write_text_atomic(md_path, markdown)
    return json_path, md_path, markdown
