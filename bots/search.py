"""The search bot: it thinks at play time by playing the game out many times.

Spec: ``search`` or ``search:KEY=VALUE,KEY=VALUE`` (``docs/search.md``):

* ``budget``: ``1s`` (the default; a decimal number of seconds, at most 60) or a
  number of simulations (``200``; 1..100000). A simulation budget makes the bot
  deterministic given its seed; a time budget is a deadline on the clock: no
  simulation starts after it, so a move takes at most the budget plus one
  simulation however the load changes (the first simulation also sizes the
  candidate set), and its games do not repeat.
* ``rollout``: the policy that plays every seat in the simulations:
  ``heuristic`` (default), ``random``, or a checkpoint spec (``asrus/ppo_5p``,
  ``path/to/ckpt.zip``, ``@greedy`` or ``@sample``).
* ``method``: ``paired`` (default) or ``ucb`` (below).
* ``explore``: the UCB exploration constant of ``method=ucb`` (default 0.7; 0..10).
* ``confidence``: how many standard errors a move must beat the rollout
  policy's choice by to be played instead (default 2; 0..10).

Both methods are determinized (perfect-information) Monte Carlo: a simulation
draws a full state the seat cannot tell apart from the true one (the game's
registered resampler, ``EnvEntry.resampler``: other hands, deck order, hidden
choices, future dice), plays one candidate move in it, then the rollout policy
for every seat to the end of the game; its value is the seat's share of the win.
The candidates are the rollout policy's own choice and the other legal moves (a
seeded sample of them when the budget is small).

``method=paired`` (common random numbers): a *world* is one resampled state
and one rollout seed; every candidate still in play is played from a copy of
the same world (same deal, same dice, same rollout choices), and each is judged
on its per-world differences against the rollout policy's choice, whose
standard error is far smaller than that of two independent means. After
MIN_WORLDS worlds a candidate is dropped when it is ``confidence`` standard
errors below that choice or below the leading candidate, and the search stops
when only that choice is left or a single candidate beats it by ``confidence``
standard errors. The move played is the best mean difference if it exceeds
``confidence`` standard errors, else the rollout policy's choice.

``method=ucb`` (the first version): independent worlds, UCB1 picks the
candidate of each simulation; the move played is the best mean if it beats the
rollout policy's choice by more than ``confidence`` standard errors of the
difference (a win share's standard deviation is at most 1/2), else that choice.

A search bot needs the table: a harness shows it with ``see_table(raw_env,
agent)`` before each ``act`` (:func:`flockgym.envs.core.bots.bot_action` does
that for every bot that has the method). It reads the table only through the
resampler, which keeps what the seat sees and redraws the rest. The code
names no game: any env that registers a resampler can be searched.
"""

from __future__ import annotations

import copy
import importlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from flockgym.common.errors import BotSpecError
from flockgym.envs import ENVS, entry, make_bot
from flockgym.envs.core.bots import Bot, bot_move, legal_from_mask
from flockgym.envs.core.rng import make_rng

SEARCH_KEYS = ("budget", "rollout", "method", "explore", "confidence")
METHODS = ("paired", "ucb")
"""``paired``: every candidate on the same sampled worlds, decided on paired
differences (the default); ``ucb``: independent worlds, UCB1 over the candidates."""
DEFAULT_SECONDS = 1.0
"""Default think time a move: at most 1 s on one core, so a person can play it."""
MAX_SECONDS = 60.0
MAX_SIMULATIONS = 100_000
MAX_ROLLOUT_STEPS = 20_000
"""A rollout that has not ended after this many steps is scored as it stands."""
CONFIDENCE = 2.0
"""Default standard errors by which a move must beat the rollout policy's choice."""
CANDIDATE_VISITS = 3
"""Simulations per candidate below which the candidate set is narrowed."""
PAIRED_WORLDS = 8
"""Worlds per candidate below which a paired search narrows its candidates."""
MIN_WORLDS = 4
"""Worlds a paired search plays before it drops a candidate or stops early."""
PSEUDO_VARIANCE = 1.0
"""Added to a candidate's sum of squared deviations before its standard error is
taken: one imaginary world of the largest variance a win-share difference can
have, so that a few identical differences never give a standard error of 0."""
SETTINGS_HELP = (
    "search settings are KEY=VALUE items after 'search:', separated by commas: "
    "budget=<seconds>s (e.g. 1s, 0.1s; at most 60) or budget=<simulations> (e.g. 200; "
    "1..100000), rollout=heuristic|random|<checkpoint spec> (e.g. asrus/ppo_5p), "
    "method=paired|ucb, explore=<UCB constant 0..10>, confidence=<standard errors 0..10>"
)


@dataclass(frozen=True)
class SearchSettings:
    """A search bot's settings, as parsed from its spec."""

    seconds: float | None = DEFAULT_SECONDS
    """Think time a move (None when ``simulations`` is set)."""
    simulations: int | None = None
    """Simulations a move: the deterministic budget (None for a time budget)."""
    rollout: str = "heuristic"
    explore: float = 0.7
    confidence: float = CONFIDENCE
    """Standard errors by which a move must beat the rollout policy's choice."""
    method: str = "paired"
    """``paired`` or ``ucb`` (see :data:`METHODS`)."""

    def describe(self) -> str:
        """The settings as spec text
        (``budget=1s,rollout=heuristic,method=paired,explore=0.7,confidence=2``)."""
        budget = f"{self.simulations}" if self.simulations is not None else f"{self.seconds:g}s"
        return (
            f"budget={budget},rollout={self.rollout},method={self.method},"
            f"explore={self.explore:g},confidence={self.confidence:g}"
        )


def parse_budget(value: str) -> tuple[float | None, int | None]:
    """``1s`` -> (1.0, None); ``200`` -> (None, 200); a BotSpecError otherwise."""
    text = value.strip()
    try:
        if text.endswith("s"):
            seconds = float(text[:-1])
            if not 0 < seconds <= MAX_SECONDS or not math.isfinite(seconds):
                raise ValueError
            return seconds, None
        count = int(text)
        if not 1 <= count <= MAX_SIMULATIONS:
            raise ValueError
        return None, count
    except ValueError:
        raise BotSpecError(
            f"search budget {value!r}: allowed: <seconds>s with 0 < seconds <= {MAX_SECONDS:g} "
            f"(e.g. 1s) or a number of simulations 1..{MAX_SIMULATIONS} (e.g. 200)"
        ) from None


def parse_settings(items: list[str]) -> SearchSettings:
    """The settings of ``search:ITEM,ITEM``; a BotSpecError names a wrong key or value."""
    seconds: float | None = DEFAULT_SECONDS
    simulations: int | None = None
    rollout, explore, confidence, method = "heuristic", 0.7, CONFIDENCE, "paired"
    seen: set[str] = set()
    for item in items:
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or key not in SEARCH_KEYS:
            raise BotSpecError(
                f"search setting {item.strip()!r}: allowed keys {', '.join(SEARCH_KEYS)}; "
                f"{SETTINGS_HELP}"
            )
        if key in seen:
            raise BotSpecError(f"search setting {key} given twice; {SETTINGS_HELP}")
        seen.add(key)
        if key == "budget":
            seconds, simulations = parse_budget(value)
        elif key == "rollout":
            rollout = check_rollout(value)
        elif key == "method":
            if value not in METHODS:
                raise BotSpecError(f"search method {value!r}: allowed: {', '.join(METHODS)}")
            method = value
        elif key == "explore":
            explore = parse_number(value, key)
        else:
            confidence = parse_number(value, key)
    return SearchSettings(seconds, simulations, rollout, explore, confidence, method)


def check_rollout(value: str) -> str:
    """A rollout policy spec: any bot spec but a search (the bot spec parser checks
    that it names something, and the participant that it fits the env)."""
    if not value or value.startswith("search"):
        raise BotSpecError(
            f"search rollout {value!r}: allowed: heuristic, random or a checkpoint spec "
            "(a search cannot roll out with a search)"
        )
    return value


BASELINE_ROLLOUTS = ("heuristic", "random")


def baseline_rollout(env_id: str, rollout: str) -> Callable[[int], Bot]:
    """The bots of a baseline rollout policy; a BotSpecError for any other."""
    if rollout not in BASELINE_ROLLOUTS:
        raise BotSpecError(
            f"search rollout {rollout!r} needs its bots made by "
            "flockgym.bots.policies.make_participant; allowed here: " + ", ".join(BASELINE_ROLLOUTS)
        )
    return lambda seed: make_bot(env_id, rollout, seed)


def parse_number(value: str, key: str) -> float:
    """The UCB constant or the confidence, 0..10."""
    try:
        number = float(value)
        if not 0 <= number <= 10:
            raise ValueError
    except ValueError:
        raise BotSpecError(f"search {key} {value!r}: allowed: a number from 0 to 10") from None
    return number


def load_resampler(env_id: str) -> Callable[..., Any]:
    """The env's registered resampler; a BotSpecError when it registers none."""
    spec = entry(env_id).resampler
    if spec is None:
        searchable = [e for e, item in sorted(ENVS.items()) if item.resampler]
        raise BotSpecError(
            f"{env_id} registers no resampler (EnvEntry.resampler), so the search bot "
            f"cannot play it; envs with one: {', '.join(searchable)}"
        )
    module, name = spec.split(":")
    return getattr(importlib.import_module(module), name)


def light_copy(env: Any) -> Any:
    """A copy of a raw env whose AEC bookkeeping (agents, rewards, flags, selection)
    is its own; the engine is shared until the resampler installs a new one (it
    never changes the engine it reads), and configuration and observer are shared
    (the resampler resets the observer's caches for the new engine)."""
    other = copy.copy(env)
    for name, value in vars(env).items():
        if isinstance(value, (list, set)):
            setattr(other, name, type(value)(value))
        elif isinstance(value, dict):
            setattr(other, name, dict(value))
    return other


class SearchBot:
    """Determinized Monte Carlo search for one seat (see the module docstring)."""

    def __init__(
        self,
        env_id: str,
        env_options: dict[str, Any],
        settings: SearchSettings,
        seed: int | None = None,
        clock: Callable[[], float] = time.perf_counter,
        rollout_bots: Callable[[int], Bot] | None = None,
    ) -> None:
        """``rollout_bots`` makes the rollout policy's bots (a seed -> a bot);
        without it the rollout must be a baseline bot (``heuristic``, ``random``).
        A checkpoint's rollout comes from :func:`flockgym.bots.policies.search_factory`,
        so this module needs nothing that reads checkpoints."""
        self.settings = settings
        self.clock = clock
        """Seconds on a monotonic clock: a time budget's deadline is read on it."""
        self.rng = make_rng(seed)
        self.resample = load_resampler(env_id)
        self.rollout_bots = rollout_bots or baseline_rollout(env_id, settings.rollout)
        self.table: tuple[Any, str] | None = None
        self.last_simulations = 0
        """Simulations of the last move searched (0 for a forced move)."""

    def see_table(self, raw: Any, agent: str) -> None:
        """Show the bot the table it plays at (the raw env) and its seat."""
        self.table = (raw, agent)

    def act(self, observation: dict[str, np.ndarray], view: dict[str, Any]) -> int:
        legal = legal_from_mask(observation)
        if self.table is None:
            raise BotSpecError(
                "a search bot plays only where the harness shows it the table "
                "(see_table(raw_env, agent) before act)"
            )
        self.last_simulations = 0
        if len(legal) == 1:
            return int(legal[0])
        raw, agent = self.table
        moves = [int(a) for a in legal]
        if self.settings.method == "paired":
            return self._search_paired(raw, agent, moves, observation, view)
        return self._search_ucb(raw, agent, moves, observation, view)

    # ---- the paired search (common random numbers) ----

    def _search_paired(
        self,
        raw: Any,
        agent: str,
        legal: list[int],
        observation: dict[str, np.ndarray],
        view: dict[str, Any],
    ) -> int:
        """Every candidate played on the same sampled worlds: each world is one
        resampled state and one rollout seed, and every candidate still in play is
        played from a copy of it. A candidate's per-world difference against the
        rollout policy's move removes the luck both share (the deal, the dice, the
        rollout's choices), so its standard error is far smaller than that of two
        independent means; candidates that cannot be better are dropped, and the
        search stops once one is clearly better or none is left."""
        started = self.clock()
        base = raw.clone()
        seat = raw.possible_agents.index(agent)
        prior = int(self.rollout_bots(self._seed()).act(observation, view))
        total = self.settings.simulations
        # a time budget measures the first simulation (the rollout policy's move in
        # the first world) before it knows how many candidates fit
        active = [prior] if total is None else self._candidates(legal, prior, total, PAIRED_WORLDS)
        values: dict[int, list[float]] = {move: [] for move in legal}
        done = 0
        while total is None or (len(active) > 1 and done + len(active) <= total):
            if done and self._past_deadline(started):
                break
            world_seed = self._seed()
            world = self.resample(light_copy(base), seat, self.rng)
            for move in active:
                if done and self._past_deadline(started):
                    break  # a world left part-played: paired() pairs the worlds all played
                values[move].append(self._play_world(world, seat, move, world_seed))
                done += 1
            if total is None:
                seconds = self.settings.seconds or DEFAULT_SECONDS
                each = max(self.clock() - started, 1e-6)
                total = max(1, min(MAX_SIMULATIONS, int(seconds / each)))
                active = self._candidates(legal, prior, total, PAIRED_WORLDS)
                for move in active[1:]:
                    if self._past_deadline(started):
                        break
                    values[move].append(self._play_world(world, seat, move, world_seed))
                    done += 1
            active = self._still_in_play(active, values, prior)
        self.last_simulations = done
        return self._choose_paired(active, values, prior)

    def _play_world(self, world: Any, seat: int, move: int, world_seed: int) -> float:
        """``move`` played in a copy of ``world``, then the rollout policy seeded
        with ``world_seed`` for every seat to the end; the seat's win share."""
        sim = copy_world(world)
        rng = make_rng(world_seed)
        bots = {a: self.rollout_bots(int(rng.integers(0, 2**63))) for a in sim.possible_agents}
        return self._roll_out(sim, seat, move, bots)

    def _still_in_play(
        self, active: list[int], values: dict[int, list[float]], prior: int
    ) -> list[int]:
        """The candidates that may still beat the rollout policy's move: after
        MIN_WORLDS worlds, a candidate is dropped when its mean difference against
        that move, or against the leading candidate, is more than ``confidence``
        standard errors below zero. When the leader alone is left beside that move
        and beats it by ``confidence`` standard errors, the search is over."""
        if len(values[prior]) < MIN_WORLDS:
            return active
        z = self.settings.confidence
        others = [m for m in active if m != prior]
        if not others:
            return active
        leader = max(others, key=lambda m: paired(values[m], values[prior])[0])
        kept = [prior]
        for move in others:
            mean, error = paired(values[move], values[prior])
            if mean + z * error < 0:
                continue
            if move != leader:
                mean, error = paired(values[move], values[leader])
                if mean + z * error < 0:
                    continue
            kept.append(move)
        if len(kept) == 2:
            mean, error = paired(values[kept[1]], values[prior])
            if mean - z * error > 0:
                return [kept[1]]
        return kept

    def _choose_paired(self, active: list[int], values: dict[int, list[float]], prior: int) -> int:
        """The candidate with the best mean difference against the rollout
        policy's move, if that difference exceeds ``confidence`` standard errors;
        else the rollout policy's move."""
        others = [m for m in active if m != prior and values[m]]
        if not others:
            return prior
        best = max(others, key=lambda m: paired(values[m], values[prior])[0])
        mean, error = paired(values[best], values[prior])
        return best if mean > self.settings.confidence * error else prior

    # ---- the UCB search (independent worlds) ----

    def _search_ucb(
        self,
        raw: Any,
        agent: str,
        legal: list[int],
        observation: dict[str, np.ndarray],
        view: dict[str, Any],
    ) -> int:
        """UCB over candidate moves, one resampled rollout per simulation."""
        started = self.clock()
        base = raw.clone()
        seat = raw.possible_agents.index(agent)
        bots = {a: self.rollout_bots(self._seed()) for a in raw.possible_agents}
        prior = int(bots[agent].act(observation, view))
        visits: dict[int, int] = {}
        values: dict[int, float] = {}
        total = self.settings.simulations
        candidates = self._candidates(legal, prior, total)
        done = 0
        while (total is None or done < total) and not (done and self._past_deadline(started)):
            move = self._select(candidates, visits, values, done)
            value = self._simulate(base, seat, agent, move, bots)
            visits[move] = visits.get(move, 0) + 1
            values[move] = values.get(move, 0.0) + value
            done += 1
            if total is None:  # a time budget: as many as the first one says fit
                seconds = self.settings.seconds or DEFAULT_SECONDS
                each = max(self.clock() - started, 1e-6)
                total = max(1, min(MAX_SIMULATIONS, int(seconds / each)))
                candidates = self._candidates(legal, prior, total)
        self.last_simulations = done
        return self._choose(visits, values, prior)

    def _past_deadline(self, started: float) -> bool:
        """Whether a time budget's deadline (``started`` plus the budget) has come:
        no simulation starts after it. A simulation budget has none."""
        if self.settings.simulations is not None:
            return False
        return self.clock() - started >= (self.settings.seconds or DEFAULT_SECONDS)

    def _seed(self) -> int:
        return int(self.rng.integers(0, 2**63))

    def _candidates(
        self, legal: list[int], prior: int, total: int | None, each: int = CANDIDATE_VISITS
    ) -> list[int]:
        """Every legal move, or the rollout policy's choice and a seeded sample of
        the others when the budget gives fewer than ``each`` simulations each."""
        if total is None or total >= each * len(legal):
            return [prior, *[a for a in legal if a != prior]]
        others = [a for a in legal if a != prior]
        keep = max(1 if total >= 2 else 0, total // each - 1)
        picked = self.rng.permutation(np.asarray(others, dtype=np.int64))[:keep]
        return [prior, *sorted(int(a) for a in picked)]

    def _select(
        self, candidates: list[int], visits: dict[int, int], values: dict[int, float], done: int
    ) -> int:
        """The first untried candidate, else the best UCB1 score."""
        for move in candidates:
            if move not in visits:
                return move
        log_total = math.log(max(done, 1))
        explore = self.settings.explore

        def score(move: int) -> float:
            n = visits[move]
            return values[move] / n + explore * math.sqrt(log_total / n)

        return max(candidates, key=score)

    def _simulate(self, base: Any, seat: int, agent: str, move: int, bots: dict[str, Bot]) -> float:
        """One determinization: resample, play ``move``, roll out; the seat's win share."""
        sim = self.resample(light_copy(base), seat, self.rng)
        return self._roll_out(sim, seat, move, bots)

    @staticmethod
    def _roll_out(sim: Any, seat: int, move: int, bots: dict[str, Bot]) -> float:
        """Play ``move`` in ``sim``, then ``bots`` to the end; the seat's win share."""
        sim.step(move)
        steps = 0
        while sim.agents and steps < MAX_ROLLOUT_STEPS:
            current = sim.agent_selection
            if sim.terminations[current] or sim.truncations[current]:
                sim.step(None)
                continue
            bot = bots[current]
            sim.step(bot_move(bot, sim, current))
            steps += 1
        return win_share(sim.game, seat)

    def _choose(self, visits: dict[int, int], values: dict[int, float], prior: int) -> int:
        """The best mean, if it beats the rollout policy's choice by more than
        ``confidence`` standard errors of the difference (a win share's standard
        deviation is at most 1/2); else the rollout policy's choice. Without the
        test, a few noisy simulations of a poor move can outvote a good one."""

        def mean(move: int) -> float:
            return values[move] / visits[move]

        best = max(visits, key=lambda m: (mean(m), visits[m], m == prior))
        if best == prior or prior not in visits:
            return best
        margin = self.settings.confidence * 0.5 * math.sqrt(1 / visits[best] + 1 / visits[prior])
        return best if mean(best) - mean(prior) > margin else prior


def copy_world(world: Any) -> Any:
    """A copy of a resampled raw env to play one candidate in: its own AEC
    bookkeeping (:func:`light_copy`) and its own engine (a deep copy, generator
    included, so every candidate meets the same dice and draws)."""
    other = light_copy(world)
    other.game = copy.deepcopy(world.game)
    other._on_new_game()
    return other


def paired(values: list[float], reference: list[float]) -> tuple[float, float]:
    """Mean and standard error of the per-world differences ``values - reference``
    over the worlds both were played on (the first ``len(values)``); the sum of
    squared deviations is padded by PSEUDO_VARIANCE (see there)."""
    n = min(len(values), len(reference))
    if n == 0:
        return 0.0, math.inf
    diffs = [values[i] - reference[i] for i in range(n)]
    mean = sum(diffs) / n
    squares = sum((d - mean) ** 2 for d in diffs) + PSEUDO_VARIANCE
    return mean, math.sqrt(squares / n / n)


def win_share(game: Any, seat: int) -> float:
    """``seat``'s share of the win: 1/k when it is one of k seats with the best
    score (the engine's winners once over; the score sheet of a cut-short game)."""
    if game.is_over():
        winners = game.winners()
    else:
        scores = game.scores()
        best = max(scores)
        winners = [s for s, v in enumerate(scores) if v == best]
    return 1.0 / len(winners) if seat in winners else 0.0
