"""The tree search bot: information-set Monte Carlo tree search (ISMCTS).

Spec: ``ismcts`` or ``ismcts:KEY=VALUE,KEY=VALUE`` (``docs/search.md``):

* ``budget``: ``1s`` (the default) or a number of simulations (``200``), as for
  the one-move search bot (:mod:`flockgym.bots.search`); a simulation budget
  makes the bot deterministic given its seed, and N simulations are N.
* ``rollout``: ``heuristic`` (default), ``random`` or a checkpoint spec: the
  policy that plays a new leaf to the end when no value network judges it.
* ``prior``: a checkpoint spec (``skybirds/ppo_2p``, ``path/to/ckpt.zip``) whose
  policy is the prior of PUCT selection and whose value head judges leaves
  (AlphaZero's use of a network); without it, UCB1 and rollouts.
* ``value``: ``auto`` (default: the prior's value head when a prior is given,
  else rollouts), ``net`` or ``rollout``.
* ``explore``: the exploration constant (default 0.7 for UCB1, 1.5 for PUCT; 0..10).
* ``widen``: progressive widening, ``off`` or the exponent ``alpha`` (default
  0.5): a node visited ``n`` times considers its ``ceil(2 * n**alpha)`` best moves
  (by the prior, else the rollout policy's choice first and then a seeded
  order), so a node with hundreds of moves is searched deep rather than wide.
* ``batch``: simulations whose leaves the network judges in one forward pass
  (default 8; 1..256). The simulations of a batch descend one after the other
  with a virtual loss (a visit that counts nothing) on every edge they pass, so
  they spread over the tree; without a network the batch is 1.

Single-observer ISMCTS (Cowling, Powley and Whitehouse 2012): every simulation
samples one world the searching seat cannot tell apart from the true one (the
game's registered resampler) and descends one tree, whose nodes are keyed by
the actions played since the root, choosing only among the moves legal in that
world; a move's selection statistic counts how often it was *available*, not
how often its parent was visited. A leaf is judged by the value network or a
rollout; the win share of every seat is backed up, and each node's mover
maximises its own. The move played is the root's most visited.

The world a simulation plays in is its own (the resampler returns a new engine),
so nothing is copied per simulation beyond the resample itself.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from flockgym.bots.search import (
    DEFAULT_SECONDS,
    MAX_ROLLOUT_STEPS,
    MAX_SIMULATIONS,
    baseline_rollout,
    check_rollout,
    light_copy,
    load_resampler,
    parse_budget,
    win_share,
)
from flockgym.common.errors import BotSpecError
from flockgym.envs.core.bots import Bot, bot_move, legal_from_mask
from flockgym.envs.core.rng import make_rng

ISMCTS_KEYS = ("budget", "rollout", "prior", "value", "explore", "widen", "batch")
VALUES = ("auto", "net", "rollout")
UCB_EXPLORE = 0.7
PUCT_EXPLORE = 1.5
DEFAULT_WIDEN = 0.5
WIDEN_SCALE = 2.0
"""Progressive widening keeps ``ceil(WIDEN_SCALE * visits**alpha)`` moves of a node."""
DEFAULT_BATCH = 8
MAX_BATCH = 256
ISMCTS_HELP = (
    "ismcts settings are KEY=VALUE items after 'ismcts:', separated by commas: "
    "budget=<seconds>s (e.g. 1s) or budget=<simulations> (e.g. 200), "
    "rollout=heuristic|random|<checkpoint spec>, prior=<checkpoint spec>, "
    "value=auto|net|rollout, explore=<0..10>, widen=off|<exponent 0.1..1>, batch=<1..256>"
)


@dataclass(frozen=True)
class IsmctsSettings:
    """An ISMCTS bot's settings, as parsed from its spec."""

    seconds: float | None = DEFAULT_SECONDS
    simulations: int | None = None
    rollout: str = "heuristic"
    prior: str | None = None
    """A checkpoint spec: the policy prior (PUCT) and, by default, the leaf value."""
    value: str = "auto"
    explore: float | None = None
    """None: UCB_EXPLORE without a prior, PUCT_EXPLORE with one."""
    widen: float | None = DEFAULT_WIDEN
    """The progressive widening exponent; None: every legal move at every node."""
    batch: int = DEFAULT_BATCH

    @property
    def exploration(self) -> float:
        if self.explore is not None:
            return self.explore
        return PUCT_EXPLORE if self.prior else UCB_EXPLORE

    def uses_net_value(self) -> bool:
        """Whether leaves are judged by the prior's value head rather than rollouts."""
        return self.value == "net" or (self.value == "auto" and self.prior is not None)

    def describe(self) -> str:
        budget = f"{self.simulations}" if self.simulations is not None else f"{self.seconds:g}s"
        widen = "off" if self.widen is None else f"{self.widen:g}"
        prior = f",prior={self.prior}" if self.prior else ""
        return (
            f"budget={budget},rollout={self.rollout}{prior},value={self.value},"
            f"explore={self.exploration:g},widen={widen},batch={self.batch}"
        )


def parse_ismcts_settings(items: Sequence[str]) -> IsmctsSettings:
    """The settings of ``ismcts:ITEM,ITEM``; a BotSpecError names a wrong key or value."""
    values: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or key not in ISMCTS_KEYS:
            raise BotSpecError(
                f"ismcts setting {item.strip()!r}: allowed keys {', '.join(ISMCTS_KEYS)}; "
                f"{ISMCTS_HELP}"
            )
        if key in values or (key == "budget" and "simulations" in values):
            raise BotSpecError(f"ismcts setting {key} given twice; {ISMCTS_HELP}")
        values.update(_parse_item(key, value))
    settings = IsmctsSettings(**values)
    if settings.value == "net" and not settings.prior:
        raise BotSpecError("ismcts value=net needs prior=<checkpoint spec> (the value network)")
    return settings


def _parse_item(key: str, value: str) -> dict[str, Any]:
    """One setting as IsmctsSettings fields."""
    if key == "budget":
        seconds, simulations = parse_budget(value)
        return {"seconds": seconds, "simulations": simulations}
    if key == "rollout":
        if value.startswith("ismcts"):
            raise BotSpecError(f"ismcts rollout {value!r}: a search cannot roll out with a search")
        return {"rollout": check_rollout(value)}
    if key == "prior":
        if not value or value.startswith(("search", "ismcts")) or value in ("random", "heuristic"):
            raise BotSpecError(
                f"ismcts prior {value!r}: allowed: a checkpoint spec "
                "(path/to/ckpt.zip, a run folder or a shipped checkpoint's name)"
            )
        return {"prior": value}
    if key == "value":
        if value not in VALUES:
            raise BotSpecError(f"ismcts value {value!r}: allowed: {', '.join(VALUES)}")
        return {"value": value}
    if key == "explore":
        return {"explore": _number(value, key, 0.0, 10.0)}
    if key == "widen":
        return {"widen": None if value == "off" else _number(value, key, 0.1, 1.0)}
    try:
        batch = int(value)
        if not 1 <= batch <= MAX_BATCH:
            raise ValueError
    except ValueError:
        raise BotSpecError(f"ismcts batch {value!r}: allowed: 1..{MAX_BATCH}") from None
    return {"batch": batch}


def _number(value: str, key: str, low: float, high: float) -> float:
    try:
        number = float(value)
        if not low <= number <= high:
            raise ValueError
    except ValueError:
        allowed = "off or " if key == "widen" else ""
        raise BotSpecError(
            f"ismcts {key} {value!r}: allowed: {allowed}a number from {low:g} to {high:g}"
        ) from None
    return number


class Evaluator(Protocol):
    """A network that judges positions: for observation vectors ``[B, D]`` and
    masks ``[B, A]``, the policy's probabilities ``[B, A]`` (zero off the mask)
    and each position's value for the seat to move as its expected RL reward
    (``[B]``; None when the network has no value head)."""

    def __call__(
        self, observations: np.ndarray, masks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray | None]: ...


# ---- the tree ---------------------------------------------------------------------


@dataclass
class Node:
    """An information-set node: the actions played since the root lead here
    (``children`` by action). ``visits`` and ``value`` are the edge into it:
    how often a simulation took that action and the win share it brought the
    seat that took it; ``available`` how often the action was legal (and
    considered) when a simulation passed its parent."""

    visits: int = 0
    value: float = 0.0
    available: int = 0
    children: dict[int, Node] = field(default_factory=dict)
    prior: np.ndarray | None = None
    """The network's probabilities for the mover here (set on the first visit)."""
    order: dict[int, float] = field(default_factory=dict)
    """Without a prior, the rank of each move for widening (lower first)."""
    favourite: int | None = None
    """Without a prior, the rollout policy's move here (first in the widening order)."""

    def child(self, action: int) -> Node:
        node = self.children.get(action)
        if node is None:
            node = self.children[action] = Node()
        return node


def widened(count: int, visits: int, alpha: float | None) -> int:
    """How many moves a node visited ``visits`` times considers out of ``count``."""
    if alpha is None:
        return count
    return max(1, min(count, math.ceil(WIDEN_SCALE * max(visits, 1) ** alpha)))


def ucb_score(child: Node, explore: float, fpu: float) -> float:
    """UCB1 with availability counts (ISMCTS); an untried move scores infinity."""
    if child.visits == 0:
        return math.inf
    return child.value / child.visits + explore * math.sqrt(
        math.log(max(child.available, 1)) / child.visits
    )


def puct_score(child: Node, prior: float, explore: float, fpu: float) -> float:
    """AlphaZero's PUCT with the availability count standing for the parent's visits."""
    mean = child.value / child.visits if child.visits else fpu
    return mean + explore * prior * math.sqrt(max(child.available, 1)) / (1 + child.visits)


@dataclass
class Simulation:
    """One simulation in flight: its world, the edges it took (node, action,
    the seat that moved), the leaf it reached, and every seat's win share."""

    world: Any
    path: list[tuple[Node, int, int]]
    leaf: Node
    mover: int = -1
    shares: list[float] | None = None
    observation: dict[str, np.ndarray] | None = None


class IsmctsBot:
    """Single-observer information-set MCTS for one seat (see the module docstring)."""

    def __init__(
        self,
        env_id: str,
        env_options: dict[str, Any],
        settings: IsmctsSettings,
        seed: int | None = None,
        clock: Callable[[], float] = time.perf_counter,
        rollout_bots: Callable[[int], Bot] | None = None,
        evaluator: Evaluator | None = None,
    ) -> None:
        """``rollout_bots`` makes the rollout policy's bots (a seed -> a bot;
        default: a baseline bot); ``evaluator`` is the prior's network
        (:func:`flockgym.bots.policies.ismcts_factory` builds both from the
        spec, so this module reads no checkpoint)."""
        if settings.prior and evaluator is None:
            raise BotSpecError(
                "ismcts prior= needs its network (build the bot with make_participant)"
            )
        self.settings = settings
        self.clock = clock
        self.rng = make_rng(seed)
        self.resample = load_resampler(env_id)
        self.rollout_bots = rollout_bots or baseline_rollout(env_id, settings.rollout)
        self.evaluator = evaluator
        self.table: tuple[Any, str] | None = None
        self.last_simulations = 0
        self.last_visits: dict[int, int] = {}
        """The root's visit counts of the last move searched (the policy target of
        expert iteration); empty for a forced move."""
        self.root: Node | None = None

    def see_table(self, raw: Any, agent: str) -> None:
        """Show the bot the table it plays at (the raw env) and its seat."""
        self.table = (raw, agent)

    def act(self, observation: dict[str, np.ndarray], view: dict[str, Any]) -> int:
        legal = [int(a) for a in legal_from_mask(observation)]
        if self.table is None:
            raise BotSpecError(
                "a search bot plays only where the harness shows it the table "
                "(see_table(raw_env, agent) before act)"
            )
        self.last_simulations = 0
        self.last_visits = {}
        if len(legal) == 1:
            return legal[0]
        raw, agent = self.table
        root = self.search(raw, agent)
        self.last_visits = {a: root.children[a].visits for a in legal if a in root.children}
        return best_move(root, legal)

    # ---- the search ----

    def search(self, raw: Any, agent: str) -> Node:
        """Grow a tree from the seat's information set at ``raw`` within the budget."""
        started = self.clock()
        base = raw.clone()
        seat = raw.possible_agents.index(agent)
        self.bots = {a: self.rollout_bots(self._seed()) for a in raw.possible_agents}
        self.seats = {a: s for s, a in enumerate(raw.possible_agents)}
        self.players = len(raw.possible_agents)
        self.root = root = Node()
        total = self.settings.simulations
        batch = self.settings.batch if self.evaluator is not None else 1
        done = 0
        while total is None or done < total:
            if done and self._past_deadline(started):
                break
            # the root's prior first, alone: a batch would otherwise stop at the root
            size = batch if root.prior is not None or self.evaluator is None else 1
            size = size if total is None else min(size, total - done)
            flights = [self._descend(root, base, seat) for _ in range(size)]
            self._judge(flights)
            for flight in flights:
                self._back_up(flight)
            done += size
        self.last_simulations = done
        return root

    def _descend(self, root: Node, base: Any, seat: int) -> Simulation:
        """Sample a world, walk the tree in it to a new node or the end, and
        put a virtual visit on every edge taken."""
        world = self.resample(light_copy(base), seat, self.rng)
        node = root
        path: list[tuple[Node, int, int]] = []
        while True:
            if self._over(world):
                return Simulation(world, path, node, shares=self._shares(world))
            mover = self.seats[world.agent_selection]
            legal = world.game.legal_actions()
            if self.evaluator is not None and node.prior is None:
                return self._leaf(world, path, node, mover)
            action, new = self._select(node, world, legal)
            world.step(action)
            child = node.children[action]
            child.visits += 1  # the virtual loss: counted now, valued at backup
            path.append((node, action, mover))
            node = child
            if new and self.evaluator is None:
                return Simulation(world, path, node, shares=self._roll_out(world))

    def _leaf(
        self, world: Any, path: list[tuple[Node, int, int]], node: Node, mover: int
    ) -> Simulation:
        agent = world.possible_agents[mover]
        flight = Simulation(world, path, node, mover)
        flight.observation = world.observe(agent)
        return flight

    def _select(self, node: Node, world: Any, legal: list[int]) -> tuple[int, bool]:
        """The move to take at ``node`` in ``world`` and whether it is new to the tree."""
        candidates = self._candidates(node, world, legal)
        explore = self.settings.exploration
        fpu = 1.0 / self.players
        best, best_score = candidates[0], -math.inf
        for action in candidates:
            child = node.child(action)
            child.available += 1
            if node.prior is not None:
                score = puct_score(child, float(node.prior[action]), explore, fpu)
            else:
                score = ucb_score(child, explore, fpu)
            if score > best_score:
                best, best_score = action, score
        return best, node.children[best].visits == 0

    def _candidates(self, node: Node, world: Any, legal: list[int]) -> list[int]:
        """The moves legal in this world that progressive widening lets in, best
        first: by the prior, else the rollout policy's move and a seeded order."""
        keep = widened(
            len(legal), sum(c.visits for c in node.children.values()), self.settings.widen
        )
        if keep >= len(legal) and node.prior is None:
            return legal
        if node.prior is not None:
            prior = node.prior
            ranked = sorted(legal, key=lambda a: (-prior[a], a))
        else:
            if node.favourite is None:
                agent = world.agent_selection
                node.favourite = int(bot_move(self.bots[agent], world, agent))
            for action in legal:
                if action not in node.order:
                    node.order[action] = float(self.rng.random())
            node.order[node.favourite] = -1.0
            ranked = sorted(legal, key=lambda a: node.order[a])
        return ranked[:keep]

    def _judge(self, flights: list[Simulation]) -> None:
        """The network's prior and value for every leaf of the batch, in one pass;
        rollouts where the value is not the network's."""
        waiting = [f for f in flights if f.shares is None]
        if not waiting:
            return
        assert self.evaluator is not None
        observations = np.stack([f.observation["observation"] for f in waiting])  # type: ignore[index]
        masks = np.stack([f.observation["action_mask"] for f in waiting])  # type: ignore[index]
        priors, values = self.evaluator(observations.astype(np.float32), masks)
        use_net = self.settings.uses_net_value() and values is not None
        for i, flight in enumerate(waiting):
            if flight.leaf.prior is None:
                flight.leaf.prior = np.asarray(priors[i], dtype=np.float64)
            if use_net:
                assert values is not None
                flight.shares = self._net_shares(flight.mover, float(values[i]))
            else:
                flight.shares = self._roll_out(flight.world)

    def _net_shares(self, mover: int, reward: float) -> list[float]:
        """Every seat's win share from the mover's expected win reward (+1 for a
        sole win, -1/(n-1) for a loss): the mover's share, the rest split evenly."""
        n = self.players
        share = min(1.0, max(0.0, (reward * (n - 1) + 1.0) / n))
        rest = (1.0 - share) / (n - 1)
        return [share if s == mover else rest for s in range(n)]

    def _back_up(self, flight: Simulation) -> None:
        """Credit each edge's mover with its win share (its visit was counted going down)."""
        assert flight.shares is not None
        for node, action, mover in flight.path:
            node.children[action].value += flight.shares[mover]

    # ---- worlds ----

    def _over(self, world: Any) -> bool:
        agent = world.agent_selection
        return (
            not world.agents
            or world.terminations.get(agent, False)
            or world.truncations.get(agent, False)
        )

    def _shares(self, world: Any) -> list[float]:
        return [win_share(world.game, s) for s in range(self.players)]

    def _roll_out(self, world: Any) -> list[float]:
        """The rollout policy plays every seat to the end; each seat's win share."""
        steps = 0
        while world.agents and steps < MAX_ROLLOUT_STEPS:
            agent = world.agent_selection
            if world.terminations[agent] or world.truncations[agent]:
                world.step(None)
                continue
            world.step(bot_move(self.bots[agent], world, agent))
            steps += 1
        return self._shares(world)

    def _past_deadline(self, started: float) -> bool:
        if self.settings.simulations is not None:
            return False
        return self.clock() - started >= (self.settings.seconds or DEFAULT_SECONDS)

    def _seed(self) -> int:
        return int(self.rng.integers(0, 2**63))


def best_move(root: Node, legal: list[int]) -> int:
    """The most visited legal move at the root (ties: the better mean, then the lower id)."""

    def key(action: int) -> tuple[int, float, int]:
        child = root.children.get(action)
        if child is None or child.visits == 0:
            return (0, 0.0, -action)
        return (child.visits, child.value / child.visits, -action)

    return max(legal, key=key)


def visit_distribution(visits: dict[int, int], num_actions: int) -> np.ndarray:
    """The root's visit counts as a probability vector over every action id."""
    target = np.zeros(num_actions, dtype=np.float64)
    for action, count in visits.items():
        target[action] = count
    total = target.sum()
    return target / total if total else target


__all__ = [
    "ISMCTS_KEYS",
    "MAX_SIMULATIONS",
    "Evaluator",
    "IsmctsBot",
    "IsmctsSettings",
    "Node",
    "best_move",
    "parse_ismcts_settings",
    "visit_distribution",
    "widened",
]
