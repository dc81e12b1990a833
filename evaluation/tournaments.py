"""Tournaments in the duplicate format, with confidence intervals and ratings.

Every deal (a seeded ``reset``) is replayed at several tables, so that luck of
the cards cancels out: with ``seating="rotate"`` the participants are laid
around the table in order and every rotation of that arrangement is played, so
each participant plays every hand from every seat equally often (DouZero
evaluates Dou Dizhu the same way, swapping sides on each deal). With
``seating="field"`` (two participants) the first takes one seat, in turn each
seat, and the second fills all the others: "one against a field".

Per participant we report the win rate (ties share the win) and the mean game
points, each with a 95% confidence interval computed over deals (the unit that
is independent; the games of one deal are not), and an Elo rating fitted
(Bradley-Terry, maximum likelihood) to the pairwise results of every game
between seats of different participants: each winner beat each non-winner,
winners drew with each other (the rating follows winning, the objective).
"""

from __future__ import annotations

import json
import math
import multiprocessing
import signal
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from flockgym.bots.policies import Participant, PolicyBot, unique_names
from flockgym.common.files import make_folder, write_text_atomic
from flockgym.common.progress import Progress
from flockgym.common.provenance import Clock
from flockgym.envs import make
from flockgym.envs.core.bots import bot_action
from flockgym.envs.core.play import play_game
from flockgym.envs.core.rng import derive_seed
from flockgym.evaluation.vector_tournament import VectorBlock, resolve_tournament_engine

Seating = Literal["rotate", "field"]
Z95 = 1.959964
"""Normal quantile of a two-sided 95% interval (deals number in the tens or more)."""
ELO_MEAN = 1500.0


@dataclass
class Standing:
    """One participant's results in a tournament."""

    name: str
    spec: str
    games: int
    win_rate: float
    win_rate_ci: float
    mean_points: float
    mean_points_ci: float
    elo: float


@dataclass
class TournamentResult:
    """Everything a tournament measured, JSON- and Markdown-ready.

    ``partial`` marks a tournament interrupted before its end: it holds the first
    ``deals`` of the ``deals_planned`` deals, each played at every table, exactly
    what a tournament of ``deals`` deals would have measured."""

    env_id: str
    env_options: dict[str, Any]
    options_given: dict[str, Any]
    seating: str
    deals: int
    tables_per_deal: int
    seed: int
    num_players: int
    standings: list[Standing]
    partial: bool = False
    deals_planned: int = 0
    no_winner: int = 0
    """Games that ended without a winner: cut off by a step cap (``max_steps``)
    or a rule's own limit (e.g. Skybirds' ``max_campaigns``). They count as
    played, with no win for anyone: a high count says the table rarely finishes."""

    def __post_init__(self) -> None:
        self.deals_planned = self.deals_planned or self.deals

    @property
    def games(self) -> int:
        return self.deals * self.tables_per_deal

    def to_json(self) -> dict[str, Any]:
        data = {**asdict(self), "games": self.games}
        for row in data["standings"]:  # no interval of a single deal: null, not NaN
            for key, value in row.items():
                if isinstance(value, float) and not math.isfinite(value):
                    row[key] = None
        return data

    def to_markdown(self) -> str:
        options = ", ".join(f"{k}={v}" for k, v in sorted(self.options_given.items()))
        lines = []
        if self.partial:
            lines += [
                f"**Partial result**: interrupted after {self.deals} of {self.deals_planned} "
                "deals (the deals finished, each at every table).",
                "",
            ]
        lines += [
            f"**{self.env_id}** ({options or 'default options'}), {self.num_players} seats, "
            f"seating `{self.seating}`: {self.deals} deals x {self.tables_per_deal} tables = "
            f"{self.games} games, seed {self.seed}. Equal players would each win "
            f"{1 / self.num_players:.1%} of their games."
            + (
                f" {self.no_winner} of the games ended without a winner (cut off by a "
                "step or round cap)."
                if self.no_winner
                else ""
            ),
            "",
            "| player | games | win rate (95% CI) | mean points (95% CI) | Elo |",
            "| --- | ---: | ---: | ---: | ---: |",
        ]
        for s in sorted(self.standings, key=lambda s: -s.elo):
            lines.append(
                f"| {s.name} | {s.games} | {s.win_rate:.1%} ± {s.win_rate_ci:.1%} | "
                f"{s.mean_points:.1f} ± {s.mean_points_ci:.1f} | {s.elo:.0f} |"
            )
        return "\n".join(lines) + "\n"


# ---- seating -------------------------------------------------------------------------


def seating_tables(
    num_seats: int, num_participants: int, seating: Seating
) -> list[tuple[int, ...]]:
    """The tables every deal is played at: tuples of participant indices by seat.

    ``rotate``: participant ``(s + r + j) mod k`` in seat ``s``, over every table
    rotation ``r`` and participant shift ``j``; every participant then sits in
    every seat equally often. Identical tables are played once when they all
    repeat equally often (e.g. A B A B at four seats needs only two tables).
    """
    if seating == "field":
        if num_participants != 2:
            raise ValueError(f"seating 'field' needs exactly 2 players, got {num_participants}")
        return [
            tuple(0 if s == focus else 1 for s in range(num_seats)) for focus in range(num_seats)
        ]
    tables = [
        tuple(((s + r) % num_seats + j) % num_participants for s in range(num_seats))
        for r in range(num_seats)
        for j in range(num_participants)
    ]
    counts = Counter(tables)
    if len(set(counts.values())) == 1:
        return list(dict.fromkeys(tables))
    return tables


# ---- playing -------------------------------------------------------------------------


class TournamentInterrupted(KeyboardInterrupt):
    """Ctrl-C during a tournament: ``result`` holds the deals finished so far
    (``partial=True``), or is None when not even one deal was finished."""

    def __init__(self, result: TournamentResult | None) -> None:
        super().__init__()
        self.result = result


GameOutcome = tuple[tuple[int, ...], tuple[float, ...], tuple[bool, ...]]
"""One game: the participant in each seat, each seat's points, which seats won."""


@dataclass
class DealTally:
    """One deal's sums over its tables, per participant."""

    wins: np.ndarray
    points: np.ndarray
    seat_games: np.ndarray
    pair_wins: np.ndarray
    tables_left: int
    no_winner: int = 0
    games: list[GameOutcome] = field(default_factory=list)
    """Each game as it was tallied (in the order the games finished): what a
    comparison needs beyond the sums, e.g. full finishing orders for ratings."""

    @classmethod
    def empty(cls, participants: int, tables: int) -> DealTally:
        k = participants
        return cls(np.zeros(k), np.zeros(k), np.zeros(k), np.zeros((k, k)), tables)


@dataclass
class Schedule:
    """What every worker needs to play any deal of a tournament (inherited by
    forked workers, not sent to them)."""

    env_id: str
    env_options: dict[str, Any]
    participants: list[Participant]
    tables: list[tuple[int, ...]]
    seating: str
    seed: int
    batch: bool
    engine: str = "scalar"
    """``vector``: the blocks are played on the env's vectorised engine
    (:mod:`.vector_tournament`); ``scalar``: one AEC env per game."""

    def deal_blocks(self, deals: int) -> list[range]:
        """The deals in blocks of about :data:`GAMES_PER_BLOCK` games: the unit of
        work of a process, and of one batched lockstep. Blocks depend only on the
        tournament, never on ``jobs``, so every process count plays the very same
        batches and gets the same results."""
        size = max(1, GAMES_PER_BLOCK // len(self.tables))
        return [range(start, min(start + size, deals)) for start in range(0, deals, size)]


GAMES_PER_BLOCK = 120
"""Games played side by side in one lockstep: the policies' batches are about
this many games' decisions at a time (a few hundred kilobytes of observations)."""
PROGRESS_SECONDS = 5.0


def tournament(
    env_id: str,
    participants: Sequence[Participant],
    deals: int,
    seed: int = 0,
    env_options: dict[str, Any] | None = None,
    seating: Seating = "rotate",
    progress: bool = False,
    jobs: int = 1,
    batch: bool = True,
    engine: str = "auto",
) -> TournamentResult:
    """Play ``deals`` seeded deals at every table of the seating; summarise.

    The games of a block of deals are played side by side, and the decisions of
    every seat a trained policy holds are taken in one forward pass per policy
    (``batch=False`` plays one game after the other, as ``play_game`` does, for
    comparison). ``engine='auto'`` plays the blocks on the env's vectorised
    engine where it has one that can seat every participant (the same games;
    ``'scalar'`` never does, ``'vector'`` insists). ``jobs`` processes share
    the blocks; the results are the same for every ``jobs``. ``progress`` shows
    a bar on a terminal and a line every few seconds elsewhere. Ctrl-C raises
    :class:`TournamentInterrupted` holding the deals finished so far, marked
    partial.
    """
    if deals < 2:
        raise ValueError(f"a tournament needs at least 2 deals for its 95% intervals, got {deals}")
    if len(participants) < 2:
        names = ", ".join(p.name for p in participants) or "none"
        raise ValueError(
            f"a tournament needs at least 2 participants, got {len(participants)} ({names}); "
            "to measure a bot, seat it with others (e.g. its spec and random), or use "
            "seating 'field' with one opponent"
        )
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    env_options = dict(env_options or {})
    env = make(env_id, **env_options)
    agents = list(env.possible_agents)
    tables = seating_tables(len(agents), len(participants), seating)
    schedule = make_schedule(
        env_id, env_options, list(participants), tables, seating, seed, batch, engine
    )
    tallies: dict[int, DealTally] = {}
    meter = Progress(deals * len(tables), "games", enabled=progress, label=f"eval {env_id}")
    try:
        for block_tallies in play_blocks(schedule, deals, jobs):
            tallies.update(block_tallies)
            meter.update(len(block_tallies) * len(tables))
    except KeyboardInterrupt:
        meter.close()
        done = finished_prefix(tallies)
        partial = (
            summarise(schedule, env, tallies, done, deals, partial=True) if done >= 1 else None
        )
        raise TournamentInterrupted(partial) from None
    meter.close()
    return summarise(schedule, env, tallies, deals, deals)


def make_schedule(
    env_id: str,
    env_options: dict[str, Any],
    participants: list[Participant],
    tables: list[tuple[int, ...]],
    seating: str,
    seed: int,
    batch: bool = True,
    engine: str = "auto",
) -> Schedule:
    """The schedule of a tournament, its engine resolved (``auto``: the env's
    vectorised engine where it seats every participant): what :func:`tournament`
    plays, and what :mod:`~flockgym.evaluation.compare` plays in windows."""
    kinds = [p.kind for p in participants]
    resolved = resolve_tournament_engine(env_id, env_options, kinds, engine) if batch else "scalar"
    return Schedule(env_id, env_options, participants, tables, seating, seed, batch, resolved)


def finished_prefix(tallies: dict[int, DealTally]) -> int:
    """How many deals 0, 1, 2, ... in a row are finished at every table."""
    done = 0
    while done in tallies and tallies[done].tables_left == 0:
        done += 1
    return done


def summarise(
    schedule: Schedule,
    env: Any,
    tallies: dict[int, DealTally],
    deals: int,
    planned: int,
    partial: bool = False,
) -> TournamentResult:
    """The standings of deals ``0 .. deals-1``."""
    participants = schedule.participants
    rows = [tallies[d] for d in range(deals)]
    wins = np.array([r.wins for r in rows])
    points = np.array([r.points for r in rows])
    seat_games = np.array([r.seat_games for r in rows])
    pair_wins = np.sum([r.pair_wins for r in rows], axis=0)
    names = unique_names([p.name for p in participants])
    elo = bradley_terry_elo(pair_wins)
    standings = []
    for i, participant in enumerate(participants):
        win_rate, win_ci = mean_and_ci(wins[:, i] / seat_games[:, i])
        mean_points, points_ci = mean_and_ci(points[:, i] / seat_games[:, i])
        standings.append(
            Standing(
                names[i],
                participant.spec,
                int(seat_games[:, i].sum()),
                win_rate,
                win_ci,
                mean_points,
                points_ci,
                elo[i],
            )
        )
    # Neither the rendering nor which engine plays (the compiled engines play as the
    # Python ones, checked decision by decision) changes a result: not recorded.
    resolved = {
        k: v for k, v in env.unwrapped.options.items() if k not in ("render_mode", "engine")
    }
    return TournamentResult(
        schedule.env_id,
        resolved,
        schedule.env_options,
        schedule.seating,
        deals,
        len(schedule.tables),
        schedule.seed,
        len(env.possible_agents),
        standings,
        partial=partial,
        deals_planned=planned,
        no_winner=sum(r.no_winner for r in rows),
    )


# ---- the blocks, in this process or in several -----------------------------------------

_SCHEDULE: Schedule | None = None
"""The tournament a forked worker plays (set before the workers are forked)."""


def play_blocks(schedule: Schedule, deals: int, jobs: int) -> Iterator[dict[int, DealTally]]:
    """The tallies of every block of deals, in deal order: played here, or by
    ``jobs`` forked processes (each with one torch thread)."""
    blocks = schedule.deal_blocks(deals)
    jobs = min(jobs, len(blocks))
    if jobs == 1 or "fork" not in multiprocessing.get_all_start_methods():
        with one_torch_thread():
            for block in blocks:
                yield play_block(schedule, block)
        return
    global _SCHEDULE
    _SCHEDULE = schedule
    context = multiprocessing.get_context("fork")
    pool = context.Pool(jobs, initializer=_init_worker)
    try:
        # Ordered: the deals arrive as a prefix, so an interrupt keeps deals 0..n-1.
        yield from pool.imap(_play_block_in_worker, [(b.start, b.stop) for b in blocks])
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()
        _SCHEDULE = None


def _init_worker() -> None:
    """A worker leaves Ctrl-C to the parent (which keeps the finished deals), and
    runs torch on one thread, like every other worker and like ``jobs=1``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def _play_block_in_worker(bounds: tuple[int, int]) -> dict[int, DealTally]:
    assert _SCHEDULE is not None, "worker started without a tournament"
    return play_block(_SCHEDULE, range(*bounds))


@contextmanager
def one_torch_thread() -> Iterator[None]:
    """torch on one thread while the tournament plays here (as in the workers, so
    that every ``jobs`` computes the same numbers; a small policy gains nothing
    from more). torch is not imported for it: bots without policies never need it."""
    torch = sys.modules.get("torch")
    if torch is None:
        yield
        return
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


# ---- one block: its games side by side ------------------------------------------------


@dataclass(eq=False)
class LiveGame:
    """One game of a block in progress: its env, its bots, where it goes in the tally."""

    raw: Any
    bots: dict[str, Any]
    reads_view: dict[str, bool]
    deal: int
    table: tuple[int, ...]


Waiting = dict[LiveGame, tuple[str, np.ndarray, np.ndarray]]
"""Games waiting for a policy seat's move: (agent, network input, action mask)."""


def new_game(schedule: Schedule, env: Any, deal: int, t: int, reset: bool = True) -> LiveGame:
    """The game of ``deal`` at table ``t``: the deal's shuffle, each seat's bot seeded
    by (seed, deal, table, seat), as every engine and every process seats them."""
    raw = env.unwrapped
    agents = list(raw.possible_agents)
    table = schedule.tables[t]
    bots, reads_view = {}, {}
    for s, (agent, p) in enumerate(zip(agents, table, strict=True)):
        participant = schedule.participants[p]
        bots[agent] = participant.new_bot(derive_seed(schedule.seed, deal, t, s))
        reads_view[agent] = participant.reads_view
    if reset:
        raw.reset(seed=derive_seed(schedule.seed, deal))
    return LiveGame(raw, bots, reads_view, deal, table)


def play_block(schedule: Schedule, block: range) -> dict[int, DealTally]:
    """Every table of every deal in ``block``; their tallies by deal."""
    k = len(schedule.participants)
    tallies = {deal: DealTally.empty(k, len(schedule.tables)) for deal in block}
    if schedule.engine == "vector":
        return play_vector_block(schedule, block, tallies)
    if not schedule.batch:
        env = make(schedule.env_id, **schedule.env_options)
        for deal in block:
            for t in range(len(schedule.tables)):
                game = new_game(schedule, env, deal, t, reset=False)
                record = play_game(env, game.bots, seed=derive_seed(schedule.seed, deal))
                agents = list(env.possible_agents)
                tally_game(record.winners, record.scores, agents, game.table, tallies[deal])
                tallies[deal].tables_left -= 1
        return tallies
    games = [
        new_game(schedule, make(schedule.env_id, **schedule.env_options), deal, t)
        for deal in block
        for t in range(len(schedule.tables))
    ]
    waiting: Waiting = {}
    for game in games:
        advance(game, waiting, tallies)
    while waiting:
        waiting = decide_in_batches(waiting, tallies)
    return tallies


def play_vector_block(
    schedule: Schedule, block: range, tallies: dict[int, DealTally]
) -> dict[int, DealTally]:
    """The block's games on the vectorised engine, tallied as the scalar ones are."""
    games = VectorBlock(schedule, block)
    games.play()
    agents = list(make(schedule.env_id, **schedule.env_options).possible_agents)
    for deal, t, winners, points in games.results():
        scores = {agents[s]: value for s, value in points.items()}
        tally_game([agents[s] for s in winners], scores, agents, schedule.tables[t], tallies[deal])
        tallies[deal].tables_left -= 1
    return tallies


def advance(game: LiveGame, waiting: Waiting, tallies: dict[int, DealTally]) -> None:
    """Play ``game`` on until a policy seat is to move (it then waits in
    ``waiting`` for its batch, with its network input: an advised policy's
    advisor is asked here) or the game is over (it is tallied)."""
    raw = game.raw
    while raw.agents:
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            raw.step(None)
            continue
        bot = game.bots[agent]
        act_on_table = getattr(bot, "act_on_table", None)
        if act_on_table is not None and not isinstance(bot, PolicyBot):
            # a compiled bot on a compiled engine: its move without the view
            action = act_on_table(raw, agent)
            if action is not None:
                raw.step(int(action))
                continue
        observation = raw.observe(agent)
        view = raw.view(agent) if game.reads_view[agent] else {}
        if isinstance(bot, PolicyBot):
            vector = bot.network_input(observation, view)
            waiting[game] = (agent, vector, observation["action_mask"])
            return
        raw.step(bot_action(bot, raw, agent, observation, view))
    tally(game, tallies[game.deal])


def decide_in_batches(waiting: Waiting, tallies: dict[int, DealTally]) -> Waiting:
    """One forward pass per policy (and play mode) for every waiting decision;
    each seat samples with its own generator. Returns the next waiting set."""
    groups: dict[tuple[int, str], list[tuple[LiveGame, str, np.ndarray, np.ndarray]]]
    groups = defaultdict(list)
    for game, (agent, vector, mask) in waiting.items():
        bot = game.bots[agent]
        groups[(id(bot.policy), bot.play)].append((game, agent, vector, mask))
    following: Waiting = {}
    for rows in groups.values():
        bots = [game.bots[agent] for game, agent, _, _ in rows]
        actions = bots[0].policy.act_batch(
            np.stack([vector for _, _, vector, _ in rows]),
            np.stack([mask for _, _, _, mask in rows]),
            play=bots[0].play,
            rngs=[bot.rng for bot in bots],
        )
        for (game, _, _, _), action in zip(rows, actions, strict=True):
            game.raw.step(int(action))
            advance(game, following, tallies)
    return following


def tally(game: LiveGame, deal: DealTally) -> None:
    """Add a finished game to its deal's sums."""
    raw = game.raw
    tally_game(list(raw.winners), dict(raw.scores), list(raw.possible_agents), game.table, deal)
    deal.tables_left -= 1


def tally_game(
    winners_list: list[str],
    scores: dict[str, float],
    agents: list[str],
    table: tuple[int, ...],
    deal: DealTally,
) -> None:
    """Add one game to the per-deal sums and the pairwise comparison counts."""
    winners = set(winners_list)
    share = 1.0 / len(winners) if winners else 0.0
    deal.no_winner += 0 if winners else 1
    deal.games.append(
        (table, tuple(float(scores[a]) for a in agents), tuple(a in winners for a in agents))
    )
    for agent, p in zip(agents, table, strict=True):
        deal.wins[p] += share if agent in winners else 0.0
        deal.points[p] += scores[agent]
        deal.seat_games[p] += 1
    # Pairwise, for the ratings: each winner beat each non-winner; winners drew.
    won = [(agent in winners, p) for agent, p in zip(agents, table, strict=True)]
    pair_wins = deal.pair_wins
    for i, (won_i, p) in enumerate(won):
        for won_j, q in won[i + 1 :]:
            if p == q or not (won_i or won_j):
                continue
            if won_i and won_j:
                pair_wins[p, q] += 0.5
                pair_wins[q, p] += 0.5
            elif won_i:
                pair_wins[p, q] += 1
            else:
                pair_wins[q, p] += 1


# ---- statistics ------------------------------------------------------------------------


def mean_and_ci(values: np.ndarray) -> tuple[float, float]:
    """Mean and 95% half-width (normal approximation) of per-deal values."""
    mean = float(np.mean(values))
    if values.size < 2:
        return mean, float("nan")
    return mean, float(Z95 * np.std(values, ddof=1) / math.sqrt(values.size))


def bradley_terry_elo(pair_wins: np.ndarray, prior: float = 0.5, iters: int = 2000) -> list[float]:
    """Elo ratings (mean 1500) fitted to pairwise results ``pair_wins[i, j]``
    (times i finished above j; draws count half to each).

    Maximum likelihood of the Bradley-Terry model, by Hunter's MM updates. A
    ``prior`` of one virtual draw between every pair keeps a participant that
    won every comparison at a finite rating.
    """
    k = pair_wins.shape[0]
    if k == 1:
        return [ELO_MEAN]
    wins = pair_wins + prior * (1 - np.eye(k))
    games = wins + wins.T
    strength = np.ones(k)
    for _ in range(iters):
        denom = (games / (strength[:, None] + strength[None, :])).sum(axis=1)
        updated = wins.sum(axis=1) / denom
        updated /= np.exp(np.mean(np.log(updated)))
        if np.allclose(updated, strength, rtol=1e-10, atol=0):
            strength = updated
            break
        strength = updated
    return [float(ELO_MEAN + 400 * math.log10(s)) for s in strength]


# ---- output ------------------------------------------------------------------------------


RESULT_FILES = ("tournament.json", "tournament.md")


def save_result(
    result: TournamentResult, out_dir: str | Path, clock: Clock | None = None
) -> tuple[Path, Path]:
    """Write ``tournament.json`` and ``tournament.md`` into ``out_dir`` (atomically),
    the JSON with its provenance (commit, command, packages, and the CPU and wall
    seconds since ``clock`` started: the tournament's own)."""
    out = make_folder(Path(out_dir))
    json_path, md_path = (out / name for name in RESULT_FILES)
    provenance = (clock or Clock()).record()
    if clock is None:  # no start known: no cost to state
        provenance["wall_seconds"] = provenance["cpu_seconds"] = None
    data = {**result.to_json(), "provenance": provenance}
    write_text_atomic(json_path, json.dumps(data, indent=2) + "\n")
    write_text_atomic(md_path, result.to_markdown())
    return json_path, md_path
