"""Soak: random legal play of a registered env, checking the contract at every step.

Every player count and every option sample of the env (``option_samples``) is
played in turn, one game each, until the step budget is spent. At every step:

- the mask of the agent to act is exactly the engine's ``legal_actions`` and not
  empty, and every other agent's mask is all zeros;
- every observation lies inside its declared space, every reward is finite;
- the engine's own accounting holds (``invariant_violations``: cards in exactly
  one place, points conserved, ...);
- the state goes through ``state_dict`` -> JSON -> ``load_state_dict`` into a
  second env, which then takes the same action: both must reach the same state
  (so a restored game continues identically), and from time to time the second
  env is offered an illegal action, which must be refused and change nothing;
- every game ends (termination) or is cut short by ``max_steps`` (truncation).

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


@dataclass
class SoakReport:
    """What a soak of one env did and found."""

    env_id: str
    steps: int = 0
    games: int = 0
    truncated: int = 0
    round_trips: int = 0
    illegal_probes: int = 0
    configurations: int = 0
    seconds: float = 0.0
    violations: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (
            f"{self.env_id:<16}{self.steps:>10,}{self.games:>8,}{self.truncated:>7,}"
            f"{self.round_trips:>11,}{self.illegal_probes:>8,}{self.configurations:>7}"
            f"{len(self.violations):>11,}{self.steps / max(self.seconds, 1e-9):>10,.0f}"
        )


HEADER = (
    f"{'env':<16}{'steps':>10}{'games':>8}{'trunc':>7}{'roundtrips':>11}{'probes':>8}"
    f"{'confs':>7}{'violations':>11}{'steps/s':>10}"
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

    def __init__(self, env_id: str, steps: int, seed: int = 0, max_violations: int = 20):
        self.env_id = env_id
        self.budget = steps
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.max_violations = max_violations
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
            env, twin = make(self.env_id, **options), make(self.env_id, **options)
            twin.reset(seed=0)
            self._play(env, twin, seed=self.seed * 1_000_003 + index, label=str(options))
        self.report.seconds = time.perf_counter() - start
        return self.report

    def _full(self) -> bool:
        return len(self.report.violations) >= self.max_violations

    def _flag(self, label: str, step: int, what: str) -> None:
        if not self._full():
            self.report.violations.append(f"{label} step {step}: {what}")

    def _play(self, env: Any, twin: Any, seed: int, label: str) -> None:
        raw = env.unwrapped
        env.reset(seed=seed)
        space = env.observation_space(env.possible_agents[0])
        step = 0
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, _ = env.last()
            self._check_observation(label, step, space, observation, reward)
            if terminated or truncated:
                env.step(None)
                continue
            self._check_masks(label, step, env, agent, observation)
            legal = np.flatnonzero(observation["action_mask"])
            if legal.size == 0:
                self._flag(label, step, f"{agent} to act has an empty mask")
                return
            action = int(legal[self.rng.integers(legal.size)])
            self._restore_into(twin, raw, label, step, action, observation)
            env.step(action)
            twin.step(action)
            self.report.steps += 1
            step += 1
            self._check_same(label, step, raw, twin.unwrapped)
            for problem in raw.game.invariant_violations():
                self._flag(label, step, problem)
            if self._full():
                return
        self.report.games += 1
        if raw.is_truncated():
            self.report.truncated += 1
        elif not raw.game.is_over() and raw._penalized is None:
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

    def _restore_into(
        self, twin: Any, raw: Any, label: str, step: int, action: int, observation: Any
    ) -> None:
        """Load the env's state into the twin through JSON; check it sees the same."""
        blob = json.dumps(raw.state_dict())
        twin.unwrapped.load_state_dict(json.loads(blob))
        self.report.round_trips += 1
        seen = twin.unwrapped.observe(raw.agent_selection)
        if not (
            np.array_equal(seen["observation"], observation["observation"])
            and np.array_equal(seen["action_mask"], observation["action_mask"])
        ):
            self._flag(label, step, "a restored state observes differently")
        if step % ILLEGAL_PROBE_EVERY == 0:
            self._probe_illegal(twin, label, step, observation, blob)

    def _probe_illegal(self, twin: Any, label: str, step: int, observation: Any, blob: str) -> None:
        illegal = np.flatnonzero(observation["action_mask"] == 0)
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


def soak_env(env_id: str, steps: int, seed: int = 0) -> SoakReport:
    """Soak ``env_id`` for ``steps`` applied actions (see the module docstring)."""
    return Soak(env_id, steps, seed).run()


def main(argv: list[str] | None = None) -> int:
    from .. import list_envs

    parser = argparse.ArgumentParser(description="Soak every env with random legal play.")
    parser.add_argument("--steps", type=int, default=1_000_000, help="applied actions per env")
    parser.add_argument(
        "--env", action="append", choices=list_envs(), help="env ids (default: all)"
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(HEADER)
    failed = False
    for env_id in args.env or list_envs():
        report = soak_env(env_id, args.steps, args.seed)
        print(report.line(), flush=True)
        for violation in report.violations:
            print(f"    {violation}")
        failed |= bool(report.violations)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
