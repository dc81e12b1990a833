"""Soak: legal play of a registered env, checking the contract at every step.

Every player count and every option sample of the env (``option_samples``) is
played in turn, one game each, until the step budget is spent. The tables
take turns: random bots at every seat, the env's heuristic bot at every seat
(random play never ends some games, e.g. Skybirds at its default options, so
their natural end is checked only here), and a mix of both. Each game also
draws how often its env is observed: at every step, or only every few steps
(between two, random seats act from ``legal_actions`` without observing, so an
observer that goes stale between calls shows). At every step:

- the mask of the agent to act is exactly the engine's ``legal_actions`` and not
  empty, and every other agent's mask is all zeros;
- every reward is finite and, at every observed step, every observation lies
  inside its declared space;
- the engine's own accounting holds (``invariant_violations``: cards in exactly
  one place, points conserved, ...);
- the state goes through ``state_dict`` -> JSON -> ``load_state_dict`` into a
  second env, which then takes the same action: both must reach the same state
  (so a restored game continues identically), and from time to time the second
  env is offered an illegal action, which must be refused and change nothing;
- at every observed step, every seat's observation (vector and mask) equals
  the second env's, just loaded from the state: an observation is a function
  of the state and the seat, whatever was observed before;
- every game ends (termination) or is cut short by ``max_steps`` or a rule's
  limit (truncation); the report counts natural ends and truncations.

    python -m flockgym.envs.core.soak [--steps 1000000] [--env asrus_v0 ...]
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import IllegalActionError, OptionError

ILLEGAL_PROBE_EVERY = 17
"""Offer the restored twin an illegal action every this many steps."""
TABLES = ("random", "heuristic", "mixed")
"""The kinds of table the games take turns at (see the module docstring)."""
CADENCES = (1, 1, 3, 7)
"""How often a game's env is observed (every this many steps), drawn per game."""


@dataclass
class SoakReport:
    """What a soak of one env did and found."""

    env_id: str
    steps: int = 0
    games: int = 0
    ended: int = 0
    """Games that ended by the rules (the others were truncated)."""
    truncated: int = 0
    heuristic_games: int = 0
    """Games with at least one heuristic seat."""
    heuristic_ended: int = 0
    round_trips: int = 0
    observation_checks: int = 0
    """Seat observations compared with those of the env loaded from the state."""
    illegal_probes: int = 0
    configurations: int = 0
    seconds: float = 0.0
    violations: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (
            f"{self.env_id:<16}{self.steps:>11,}{self.games:>8,}{self.ended:>7,}"
            f"{self.truncated:>7,}{self.heuristic_games:>8,}{self.heuristic_ended:>8,}"
            f"{self.round_trips:>11,}{self.observation_checks:>11,}{self.illegal_probes:>8,}"
            f"{self.configurations:>6}{len(self.violations):>6,}"
            f"{self.steps / max(self.seconds, 1e-9):>9,.0f}"
        )


HEADER = (
    f"{'env':<16}{'steps':>11}{'games':>8}{'ended':>7}{'trunc':>7}{'h.games':>8}"
    f"{'h.ended':>8}{'roundtrips':>11}{'obs.checks':>11}{'probes':>8}{'confs':>6}"
    f"{'viol.':>6}{'steps/s':>9}"
)
LEGEND = (
    "ended: games ended by the rules; trunc: cut short (max_steps or a rule's limit); "
    "h.games / h.ended: games with heuristic seats / of those, ended by the rules; "
    "obs.checks: seat observations compared with a fresh load of the state"
)


def configurations(env_id: str) -> list[dict[str, Any]]:
    """Every (player count x option sample) the env accepts."""
    from .. import ENVS, make

    env_class = make(env_id).unwrapped.__class__
    found = []
    for players in ENVS[env_id].player_counts:
        for options in env_class.option_samples_for(players):
            if accepts(env_id, players, options):
                found.append({"num_players": players, **options})
    return found


def accepts(env_id: str, players: int, options: dict[str, Any]) -> bool:
    """Whether the env can be built with these options at ``players`` seats."""
    from .. import make

    try:
        make(env_id, num_players=players, **options)
    except OptionError:
        return False
    return True


class Soak:
    """One env's soak; :meth:`run` plays until the budget is spent."""

    def __init__(
        self,
        env_id: str,
        steps: int,
        seed: int = 0,
        max_violations: int = 20,
        tables: tuple[str, ...] = TABLES,
    ):
        unknown = sorted(set(tables) - set(TABLES))
        if not tables or unknown:
            raise OptionError(f"soak tables {list(tables)}: allowed: some of {list(TABLES)}")
        self.env_id = env_id
        self.budget = steps
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.max_violations = max_violations
        self.tables = tables
        self.report = SoakReport(env_id)

    def run(self) -> SoakReport:
        from .. import make

        start = time.perf_counter()
        confs = configurations(self.env_id)
        self.report.configurations = len(confs)
        for index in itertools.count():
            if self.report.steps >= self.budget or self._full():
                break
            options = confs[index % len(confs)]
            # the table kind shifts by one at each pass over the configurations, so
            # every configuration is played at every kind of table
            table = self.tables[(index + index // len(confs)) % len(self.tables)]
            env, twin = make(self.env_id, **options), make(self.env_id, **options)
            twin.reset(seed=0)
            game_seed = self.seed * 1_000_003 + index
            label = f"{options} {table} table"
            self._play(env, twin, seed=game_seed, label=label, table=table)
        self.report.seconds = time.perf_counter() - start
        return self.report

    def _full(self) -> bool:
        return len(self.report.violations) >= self.max_violations

    def _flag(self, label: str, step: int, what: str) -> None:
        if not self._full():
            self.report.violations.append(f"{label} step {step}: {what}")

    def _seat_bots(self, agents: list[str], table: str, seed: int) -> dict[str, Any]:
        """The heuristic bot of each heuristic seat (the other seats play random
        legal moves from the soak's own generator). A mixed table has at least
        one seat of each kind."""
        from .. import make_bot

        if table == "random":
            heuristic: list[str] = []
        elif table == "heuristic":
            heuristic = list(agents)
        else:
            flips = self.rng.random(len(agents)) < 0.5
            flips[0], flips[1] = True, False
            heuristic = [a for a, flip in zip(agents, flips, strict=True) if flip]
        return {
            a: make_bot(self.env_id, "heuristic", seed=seed + i) for i, a in enumerate(heuristic)
        }

    def _play(self, env: Any, twin: Any, seed: int, label: str, table: str = "random") -> None:
        raw = env.unwrapped
        env.reset(seed=seed)
        bots = self._seat_bots(env.possible_agents, table, seed)
        cadence = int(self.rng.choice(CADENCES))
        label = f"{label}, observed every {cadence} step(s)"
        space = env.observation_space(env.possible_agents[0])
        step = 0
        for agent in env.agent_iter():
            observed = step % cadence == 0
            observation, reward, terminated, truncated, _ = env.last(observe=observed)
            if observed:
                self._check_observation(label, step, space, observation, reward)
            elif not math.isfinite(reward):
                self._flag(label, step, f"reward {reward}")
            if terminated or truncated:
                env.step(None)
                continue
            if observed:
                self._check_masks(label, step, env, agent, observation)
                legal = np.flatnonzero(observation["action_mask"])
            else:
                legal = np.asarray(raw.legal_actions(agent))
            if legal.size == 0:
                self._flag(label, step, f"{agent} to act has no legal action")
                return
            if agent in bots:
                seen = observation if observed else env.observe(agent)
                action = int(bots[agent].act(seen, raw.view(agent)))
            else:
                action = int(legal[self.rng.integers(legal.size)])
            self._restore_into(twin, raw, label, step, observed)
            env.step(action)
            twin.step(action)
            self.report.steps += 1
            step += 1
            self._check_same(label, step, raw, twin.unwrapped)
            for problem in raw.game.invariant_violations():
                self._flag(label, step, problem)
            if self._full():
                return
        self._count_end(raw, label, step, bool(bots))

    def _count_end(self, raw: Any, label: str, step: int, heuristic: bool) -> None:
        """Count the game: ended by the rules, or truncated (or flag it)."""
        self.report.games += 1
        self.report.heuristic_games += heuristic
        if raw.is_truncated():
            self.report.truncated += 1
        elif raw.game.is_over():
            self.report.ended += 1
            self.report.heuristic_ended += heuristic
        elif raw._penalized is None:
            self._flag(label, step, "the agents are done but the game is neither over nor cut")

    def _check_observation(
        self, label: str, step: int, space: Any, observation: Any, reward: float
    ) -> None:
        if not space.contains(observation):
            vector = observation["observation"]
            self._flag(
                label,
                step,
                f"observation outside its space (min {vector.min()}, max {vector.max()})",
            )
        if not math.isfinite(reward):
            self._flag(label, step, f"reward {reward}")

    def _check_masks(self, label: str, step: int, env: Any, agent: str, observation: Any) -> None:
        raw = env.unwrapped
        legal = raw.legal_actions(agent)
        mask = observation["action_mask"]
        if sorted(np.flatnonzero(mask).tolist()) != sorted(legal):
            self._flag(label, step, f"{agent}'s mask differs from legal_actions()")
        for other in env.agents:
            if other != agent and env.observe(other)["action_mask"].any():
                self._flag(label, step, f"{other} has a mask while {agent} is to act")

    def _restore_into(self, twin: Any, raw: Any, label: str, step: int, observed: bool) -> None:
        """Load the env's state into the twin through JSON; at an observed step,
        check that every seat observes there what it observes in the env."""
        blob = json.dumps(raw.state_dict())
        twin.unwrapped.load_state_dict(json.loads(blob))
        self.report.round_trips += 1
        if observed:
            for agent in raw.possible_agents:
                seen, fresh = raw.observe(agent), twin.unwrapped.observe(agent)
                self.report.observation_checks += 1
                if not (
                    np.array_equal(seen["observation"], fresh["observation"])
                    and np.array_equal(seen["action_mask"], fresh["action_mask"])
                ):
                    where = np.flatnonzero(seen["observation"] != fresh["observation"])[:8]
                    self._flag(
                        label,
                        step,
                        f"{agent} observes differently from a fresh load of the state "
                        f"(vector entries {where.tolist()})",
                    )
        if step % ILLEGAL_PROBE_EVERY == 0:
            self._probe_illegal(twin, label, step, raw.action_mask(raw.agent_selection), blob)

    def _probe_illegal(self, twin: Any, label: str, step: int, mask: Any, blob: str) -> None:
        illegal = np.flatnonzero(mask == 0)
        if illegal.size == 0 or twin.unwrapped.options["illegal_action"] != "raise":
            return
        self.report.illegal_probes += 1
        try:
            twin.step(int(illegal[self.rng.integers(illegal.size)]))
        except IllegalActionError:
            pass
        else:
            self._flag(label, step, "an illegal action was accepted")
        if json.dumps(twin.unwrapped.state_dict()) != blob:
            self._flag(label, step, "a refused illegal action changed the state")

    def _check_same(self, label: str, step: int, raw: Any, twin_raw: Any) -> None:
        if json.dumps(raw.state_dict()) != json.dumps(twin_raw.state_dict()):
            self._flag(label, step, "a restored state continued differently")


def soak_env(
    env_id: str, steps: int, seed: int = 0, tables: tuple[str, ...] = TABLES
) -> SoakReport:
    """Soak ``env_id`` for ``steps`` applied actions at the given kinds of table
    (see the module docstring)."""
    return Soak(env_id, steps, seed, tables=tables).run()


def main(argv: list[str] | None = None) -> int:
    from .. import list_envs

    parser = argparse.ArgumentParser(
        description="Soak every env with legal play of random and heuristic bots."
    )
    parser.add_argument("--steps", type=int, default=1_000_000, help="applied actions per env")
    parser.add_argument(
        "--env", action="append", choices=list_envs(), help="env ids (default: all)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--table",
        action="append",
        choices=TABLES,
        help="kinds of table to play, in turn (default: all)",
    )
    args = parser.parse_args(argv)
    print(LEGEND)
    print(HEADER)
    failed = False
    for env_id in args.env or list_envs():
        report = soak_env(env_id, args.steps, args.seed, tuple(args.table or TABLES))
        print(report.line(), flush=True)
        for violation in report.violations:
            print(f"    {violation}")
        failed |= bool(report.violations)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
