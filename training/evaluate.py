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
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
from tqdm import tqdm

from flockgym.envs import make
from flockgym.envs.core.play import play_game

from .files import make_folder, write_text_atomic
from .policies import Participant, unique_names

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
    """Everything a tournament measured, JSON- and Markdown-ready."""

    env_id: str
    env_options: dict[str, Any]
    options_given: dict[str, Any]
    seating: str
    deals: int
    tables_per_deal: int
    seed: int
    num_players: int
    standings: list[Standing]

    @property
    def games(self) -> int:
        return self.deals * self.tables_per_deal

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "games": self.games}

    def to_markdown(self) -> str:
        options = ", ".join(f"{k}={v}" for k, v in sorted(self.options_given.items()))
        lines = [
            f"**{self.env_id}** ({options or 'default options'}), {self.num_players} seats, "
            f"seating `{self.seating}`: {self.deals} deals x {self.tables_per_deal} tables = "
            f"{self.games} games, seed {self.seed}. Equal players would each win "
            f"{1 / self.num_players:.1%} of their games.",
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


def tournament(
    env_id: str,
    participants: list[Participant],
    deals: int,
    seed: int = 0,
    env_options: dict[str, Any] | None = None,
    seating: Seating = "rotate",
    progress: bool = False,
) -> TournamentResult:
    """Play ``deals`` seeded deals at every table of the seating; summarise."""
    if deals < 2:
        raise ValueError(f"a tournament needs at least 2 deals for its 95% intervals, got {deals}")
    env_options = dict(env_options or {})
    env = make(env_id, **env_options)
    agents = list(env.possible_agents)
    tables = seating_tables(len(agents), len(participants), seating)
    k = len(participants)
    wins = np.zeros((deals, k))
    points = np.zeros((deals, k))
    seat_games = np.zeros((deals, k))
    pair_wins = np.zeros((k, k))
    # disable=None: a bar on a terminal only, not in logs.
    bar = tqdm(
        total=deals * len(tables), unit="game", disable=None if progress else True, leave=False
    )
    for deal in range(deals):
        deal_seed = derive_seed(seed, deal)
        for t, table in enumerate(tables):
            seeds = [derive_seed(seed, deal, t, s) for s in range(len(agents))]
            bots = {
                a: participants[p].new_bot(seeds[s])
                for s, (a, p) in enumerate(zip(agents, table, strict=True))
            }
            record = play_game(env, bots, seed=deal_seed)
            tally_game(record, agents, table, wins[deal], points[deal], seat_games[deal], pair_wins)
            bar.update()
    bar.close()
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
    resolved = {k: v for k, v in env.unwrapped.options.items() if k != "render_mode"}
    return TournamentResult(
        env_id, resolved, env_options, seating, deals, len(tables), seed, len(agents), standings
    )


def tally_game(
    record: Any,
    agents: list[str],
    table: tuple[int, ...],
    wins: np.ndarray,
    points: np.ndarray,
    seat_games: np.ndarray,
    pair_wins: np.ndarray,
) -> None:
    """Add one game to the per-deal sums and the pairwise comparison counts."""
    winners = set(record.winners)
    share = 1.0 / len(winners) if winners else 0.0
    for agent, p in zip(agents, table, strict=True):
        wins[p] += share if agent in winners else 0.0
        points[p] += record.scores[agent]
        seat_games[p] += 1
    # Pairwise, for the ratings: each winner beat each non-winner; winners drew.
    won = [(agent in winners, p) for agent, p in zip(agents, table, strict=True)]
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


def derive_seed(seed: int, *keys: int) -> int:
    """An independent 63-bit seed for each ``keys`` path below ``seed``."""
    state = np.random.SeedSequence([seed, *keys]).generate_state(2, np.uint32)
    return int((int(state[0]) << 31) ^ int(state[1]))


# ---- output ------------------------------------------------------------------------------


RESULT_FILES = ("tournament.json", "tournament.md")


def save_result(result: TournamentResult, out_dir: str | Path) -> tuple[Path, Path]:
    """Write ``tournament.json`` and ``tournament.md`` into ``out_dir`` (atomically)."""
    out = make_folder(Path(out_dir))
    json_path, md_path = (out / name for name in RESULT_FILES)
    write_text_atomic(json_path, json.dumps(result.to_json(), indent=2) + "\n")
    write_text_atomic(md_path, result.to_markdown())
    return json_path, md_path
