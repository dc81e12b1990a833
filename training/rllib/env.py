"""Any flockgym AEC env as an RLlib ``MultiAgentEnv``: every seat an agent.

:class:`FlockgymMultiAgentEnv` follows the AEC turn order: after ``reset`` and
after every ``step`` exactly one agent, the one to act, gets an observation
(``{"observation", "action_mask"}``, the env's own dict), and ``step`` takes
exactly that agent's action. Rewards are per agent and exact: an agent's
reward is everything the game paid it since its previous move (PettingZoo's
``_cumulative_rewards``), handed over with its next observation, and at the
end of the game every agent in play gets what is left, with its final
observation and ``terminateds["__all__"]`` (``truncateds`` instead when the
``max_steps`` cap or an engine limit cut the game short: nobody won). Points
scored before an agent's first move are paid with its second reward, so an
agent's episode return is exactly its game result.

Illegal actions: RLlib's env checker (and any learner that ignores masks)
takes random unmasked actions, so the adapter builds the env with its
``illegal_action="penalize"`` option unless the options say otherwise: an
illegal action ends the game at once, -1 to the offender and 0 to the others
(the penalty is in the reward, the action is not mapped to a legal one, so a
learner is never rewarded for a move it did not choose). Each one is counted
in the agent's ``infos["illegal_actions"]`` and in :attr:`illegal_actions`;
masked training takes none (a test checks it).

Seating: each episode, a :class:`SeatingPlan` says who holds each seat: an
RLlib module id (the learning policy, a frozen snapshot of it) for the seats
RLlib plays, or a fixed flockgym bot (random, heuristic, a checkpoint) for the
seats this adapter plays itself, between the RLlib agents' turns, the way
:class:`~flockgym.training.selfplay.SelfPlayEnv` does. Bot seats are not
agents of that episode. Why the adapter and not an RLModule per bot: a bot's
decision reads the env's ``view`` (the heuristic reads the table, not the
observation vector), which an RLModule only sees through the observation
space; and a bot run here costs no forward pass and no batch slot. The plan
of the next episode is drawn before RLlib creates the episode's agents, so the
policy mapping function reads it from the episode (``seating_of``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from flockgym.envs import Bot, OptionError, make
from flockgym.envs.core.rewards import win_rewards
from flockgym.envs.core.rng import make_rng

LEARNER = "learner"
"""Module id of the learning policy."""
SNAPSHOT_PREFIX = "snapshot_"
MAX_REDEALS = 100
SEATING_KEY = "flockgym_seating"
"""Where the episode's seating is kept in RLlib's ``episode.custom_data``."""


def snapshot_module(slot: int) -> str:
    return f"{SNAPSHOT_PREFIX}{slot}"


class SeatingPlan:
    """Who holds each seat in an episode, drawn from the env's generator.

    The learner's seat rotates from episode to episode. Then, as in the SB3
    path's opponent pool: with probability ``selfplay_share`` every seat is the
    learner (true self-play, every seat learning); else, once snapshots exist,
    with probability ``snapshot_share`` (always when the pool is empty) one
    snapshot module holds every other seat; else one bot of ``pool`` does.
    With neither pool nor snapshots, every seat is the learner.
    """

    def __init__(
        self,
        pool: list[str],
        selfplay_share: float = 0.0,
        snapshot_share: float = 0.5,
        snapshots: int = 0,
    ) -> None:
        self.pool = list(pool)
        self.selfplay_share = selfplay_share
        self.snapshot_share = snapshot_share
        self.snapshots = snapshots
        """Snapshot modules filled so far (``snapshot_0`` .. ``snapshot_{n-1}``)."""

    def draw(self, rng: np.random.Generator, agents: list[str], episode: int) -> dict[str, str]:
        """``{agent: module id or bot label}`` for one episode."""
        learner = agents[episode % len(agents)]
        others = [a for a in agents if a != learner]
        if rng.random() < self.selfplay_share or (not self.pool and not self.snapshots):
            holder = LEARNER
        elif self.snapshots and (not self.pool or rng.random() < self.snapshot_share):
            holder = snapshot_module(int(rng.integers(self.snapshots)))
        else:
            holder = self.pool[int(rng.integers(len(self.pool)))]
        return {learner: LEARNER} | dict.fromkeys(others, holder)


def number_option(
    config: dict[str, Any], key: str, default: float, minimum: float, open_min: bool = False
) -> float:
    """``config[key]`` as a finite float of at least (or, ``open_min``, above)
    ``minimum``; an ``OptionError`` naming the key and the allowed values otherwise."""
    value = config.get(key, default)
    bound = f"> {minimum}" if open_min else f">= {minimum}"
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    if ok and math.isfinite(value) and (value > minimum if open_min else value >= minimum):
        return float(value)
    raise OptionError(f"env_config: {key} = {value!r:.40}; allowed: a finite number {bound}")


def is_module(holder: str) -> bool:
    return holder == LEARNER or holder.startswith(SNAPSHOT_PREFIX)


class FlockgymMultiAgentEnv(MultiAgentEnv):
    """A flockgym AEC env for RLlib (see the module docstring).

    ``config`` (RLlib's ``env_config``): ``env_id``; ``env_options`` (env
    options, ``illegal_action`` defaults to ``"penalize"`` here); ``pool``
    (bot specs for the bot seats, default none); ``selfplay_share``,
    ``snapshot_share``, ``snapshots`` (see :class:`SeatingPlan`);
    ``reward_scale`` (every reward is multiplied by it, default 1);
    ``win_bonus`` (added at a game's end times each agent's win reward, default 0).
    """

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 (gymnasium's attribute)
    KEYS = frozenset(
        {"env_id", "env_options", "pool", "selfplay_share", "snapshot_share", "snapshots"}
        | {"reward_scale", "win_bonus"}
    )

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        unknown = sorted(set(config) - self.KEYS)
        if unknown or "env_id" not in config:
            missing = "" if "env_id" in config else ", no env_id"
            raise OptionError(
                f"env_config: unknown keys {unknown or '-'}{missing}; allowed: "
                f"{', '.join(sorted(self.KEYS))} (env_id required)"
            )
        from flockgym.bots.policies import make_participant

        self.env_id = config["env_id"]
        self.env_options = {"illegal_action": "penalize", **dict(config.get("env_options") or {})}
        self.game = make(self.env_id, **self.env_options)
        self.raw = self.game.unwrapped
        self.possible_agents = list(self.raw.possible_agents)
        self.agents = list(self.possible_agents)
        self.observation_spaces = {a: self.raw.observation_space(a) for a in self.possible_agents}
        self.action_spaces = {a: self.raw.action_space(a) for a in self.possible_agents}
        pool = list(config.get("pool") or [])
        self.participants = {
            spec: make_participant(spec, self.env_id, self.env_options) for spec in pool
        }
        self.plan = SeatingPlan(
            pool,
            float(config.get("selfplay_share", 0.0)),
            float(config.get("snapshot_share", 0.5)),
            int(config.get("snapshots", 0)),
        )
        self.reward_scale = number_option(config, "reward_scale", 1.0, minimum=0.0, open_min=True)
        self.win_bonus = number_option(config, "win_bonus", 0.0, minimum=0.0)
        # Seeded, so that a seating drawn before the first seeded reset is too.
        self.rng = make_rng(0)
        self.episode = 0
        self.next_seating: dict[str, str] | None = None
        self.seating: dict[str, str] = dict.fromkeys(self.possible_agents, LEARNER)
        self.bots: dict[str, Bot] = {}
        self.bots_read_view = False
        self.to_act: str | None = None
        self.started: set[str] = set()
        self.carried: dict[str, float] = {}
        self.illegal_actions = 0
        self.episode_illegal = 0
        self.done = True
        self.last_result: dict[str, Any] = {}

    # ---- seating ------------------------------------------------------------------------

    def set_snapshots(self, count: int) -> None:
        """How many snapshot modules hold a policy now (the learner says so)."""
        self.plan.snapshots = count

    def plan_next_episode(self) -> dict[str, str]:
        """Draw the next episode's seating now (before ``reset``), so that RLlib
        can map its agents to modules when it creates the episode."""
        if self.next_seating is None:
            self.next_seating = self.plan.draw(self.rng, self.possible_agents, self.episode)
            self.episode += 1
        return dict(self.next_seating)

    # ---- MultiAgentEnv API ----------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """A new game; ``seed`` restarts this env's generator (seatings, deals, bots)."""
        if seed is not None:
            # A seating drawn already stays: RLlib has mapped its agents by it.
            self.rng = make_rng(seed)
        self.seating = self.plan_next_episode()
        self.next_seating = None
        self.agents = [a for a in self.possible_agents if is_module(self.seating[a])]
        for _ in range(MAX_REDEALS):
            self._new_game()
            self._play_bots()
            if not self._game_done():
                break
        else:
            raise RuntimeError(
                f"{self.env_id}: {MAX_REDEALS} deals in a row ended before an RLlib agent moved"
            )
        self.started = set()
        self.carried = dict.fromkeys(self.agents, 0.0)
        self.episode_illegal = 0
        self.done = False
        observations, _ = self._turn_outputs()
        return observations, {a: {} for a in observations}

    def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """The acting agent's move, then the bot seats' until an RLlib agent is to
        act (its observation and reward are returned) or the game is over."""
        agent = self._check_action_dict(action_dict)
        action = action_dict[agent]
        mask = self.raw.observe(agent)["action_mask"]
        legal = isinstance(action, int | np.integer) and 0 <= action < len(mask) and mask[action]
        if not legal:
            self.illegal_actions += 1
            self.episode_illegal += 1
        # An illegal action goes to the env as given: its 'penalize' option ends the game.
        self.game.step(int(action) if isinstance(action, np.integer) else action)
        self._play_bots()
        infos: dict[str, Any] = {agent: {"illegal_actions": self.episode_illegal}}
        if self._game_done():
            return self._end_outputs(infos)
        observations, rewards = self._turn_outputs()
        for other in observations:
            infos.setdefault(other, {})
        false = {"__all__": False}
        return observations, rewards, false, dict(false), infos

    # ---- internals ----------------------------------------------------------------------------

    def _check_action_dict(self, action_dict: Any) -> str:
        if self.done:
            raise RuntimeError("step() after the game ended; call reset() first")
        if not isinstance(action_dict, dict) or set(action_dict) != {self.to_act}:
            given = sorted(action_dict) if isinstance(action_dict, dict) else action_dict
            raise ValueError(
                f"action_dict with agents {given!r:.120}: allowed: exactly the agent to act, "
                f"{{{self.to_act!r}: action}} (turns are sequential)"
            )
        assert self.to_act is not None
        return self.to_act

    def _new_game(self) -> None:
        seeds = self.rng.integers(2**63, size=len(self.possible_agents))
        self.bots = {
            agent: self.participants[holder].new_bot(int(seeds[i]))
            for i, (agent, holder) in enumerate(self.seating.items())
            if not is_module(holder)
        }
        self.bots_read_view = any(
            self.participants[h].reads_view for h in self.seating.values() if not is_module(h)
        )
        self.game.reset(seed=int(self.rng.integers(2**63)))

    def _play_bots(self) -> None:
        """Step bot seats (and agents already done) until an RLlib agent is to act
        or the game is over."""
        while not self._game_done():
            agent = self.game.agent_selection
            if self.raw.terminations[agent] or self.raw.truncations[agent]:
                self.game.step(None)
            elif agent in self.bots:
                observation = self.raw.observe(agent)
                view = self.raw.view(agent) if self.bots_read_view else {}
                self.game.step(self.bots[agent].act(observation, view))
            else:
                self.to_act = agent
                return

    def _game_done(self) -> bool:
        raw = self.raw
        return all(raw.terminations[a] or raw.truncations[a] for a in raw.possible_agents)

    def _reward_since_last_move(self, agent: str) -> float:
        return float(self.raw._cumulative_rewards[agent]) * self.reward_scale

    def _turn_outputs(self) -> tuple[dict[str, Any], dict[str, float]]:
        """The observation of the agent to act and its reward since its last move
        (before its first move: kept, and paid with the next one)."""
        agent = self.to_act
        assert agent is not None
        reward = self._reward_since_last_move(agent)
        if agent not in self.started:
            self.started.add(agent)
            self.carried[agent] += reward
            return {agent: self.raw.observe(agent)}, {}
        reward += self.carried[agent]
        self.carried[agent] = 0.0
        return {agent: self.raw.observe(agent)}, {agent: reward}

    def _end_outputs(self, infos: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Every agent of the episode: its final observation, what it is still owed,
        done; ``truncateds`` when nobody won (the step cap, an engine limit)."""
        self.done = True
        self.to_act = None
        truncated = any(self.raw.truncations[a] for a in self.raw.possible_agents) and not any(
            self.raw.terminations[a] for a in self.raw.possible_agents
        )
        observations, rewards = {}, {}
        bonus = self._win_bonuses()
        for agent in self.agents:
            observations[agent] = self.raw.observe(agent)
            rewards[agent] = self._reward_since_last_move(agent) + self.carried[agent]
            rewards[agent] += bonus[self.possible_agents.index(agent)]
            infos.setdefault(agent, {})
        self.last_result = self._result()
        terminateds = dict.fromkeys(self.agents, not truncated) | {"__all__": not truncated}
        truncateds = dict.fromkeys(self.agents, truncated) | {"__all__": truncated}
        return observations, rewards, terminateds, truncateds, infos

    def _win_bonuses(self) -> list[float]:
        """``win_bonus`` times each seat's win reward (none after a truncation:
        ``winners`` is empty then)."""
        seats = [self.possible_agents.index(agent) for agent in self.raw.winners]
        return [self.win_bonus * r for r in win_rewards(len(self.possible_agents), seats)]

    def _result(self) -> dict[str, Any]:
        """The finished game: who held each seat, the learner's win share per
        learner seat, the opponents' label, illegal actions."""
        winners = list(getattr(self.raw, "winners", []) or [])
        learner_seats = [a for a, h in self.seating.items() if h == LEARNER]
        opponents = {h for h in self.seating.values() if h != LEARNER}
        label = "self" if not opponents else opponents.pop()
        if label.startswith(SNAPSHOT_PREFIX):
            label = "snapshot"
        wins = [
            (1.0 / len(winners) if a in winners else 0.0) for a in learner_seats if winners
        ] or [0.0]
        return {
            "opponent": label,
            "win": float(np.mean(wins)),
            "illegal_actions": self.episode_illegal,
            "truncated": not winners,
        }


def seating_of(episode: Any) -> dict[str, str]:
    """The seating an RLlib episode was created with (see :func:`policy_mapping`)."""
    try:
        return episode.custom_data.get(SEATING_KEY, {})
    except AttributeError:
        # RLlib's ``episode.cut()`` calls the mapping function while building the
        # successor chunk, before its custom data exists; it keeps the agents'
        # modules of the chunk it continues, whatever this returns.
        return {}


def policy_mapping(agent_id: str, episode: Any, **kwargs: Any) -> str:
    """RLlib's policy mapping function: the module the episode's seating gives
    ``agent_id`` (the learner where it says nothing, as in the env checker)."""
    return seating_of(episode).get(agent_id, LEARNER)
