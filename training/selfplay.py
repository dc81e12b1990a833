"""Self-play as a single-agent gymnasium env: the learner's seat, the others' bots inside.

Each episode the learner takes one seat (rotating from episode to episode) and
one opponent drawn from the pool fills every other seat. The opponents move
inside :meth:`SelfPlayEnv.step`, so from the learner's side a step is "my move,
then everyone else's until it is my turn again or the game is over".

The learner's reward for a step is everything the AEC env paid it since its
previous move, read the way ``env.last()`` reads it (``_cumulative_rewards``),
including the final result when the game ends on another player's move. So the
learner's episode return is exactly its game result (a test checks it). The
bug this avoids: ending the episode on the winner's move, so the losers never
see their -1 (PettingZoo's SB3 action-mask tutorial, PettingZoo issue #1147).

The observation is the env's observation vector; the mask is offered through
``action_masks()``, as sb3-contrib's MaskablePPO expects, and in ``info`` as
``info["action_mask"]`` after every reset and step.

It is public: bring your own learner with

    import gymnasium
    import flockgym.training  # registers flockgym/<game>-selfplay-v<k>

    env = gymnasium.make("flockgym/asrus-selfplay-v0", opponents=["heuristic"], num_players=5)

(:func:`selfplay_env` is the same without Gymnasium's registry). A learner that
does not read masks passes ``illegal_action="penalize"``: an illegal move then
ends the game with -1 to the learner instead of raising, so Gymnasium's and
stable-baselines3's ``check_env`` and unmasked algorithms run.

The env draws its table as text (``render_mode="ansi"``) and draws no image. A
render mode it lacks is refused with :class:`RenderModeError`, which is an
:class:`~flockgym.envs.OptionError` and a ``TypeError``: stable-baselines3's
``make_vec_env("flockgym/<game>-selfplay-v0", n_envs=...)`` asks for
``render_mode="rgb_array"`` first and, on a ``TypeError`` alone, builds the env
again without one, so its default path works.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

from flockgym.bots.advice import Advisor, check_advisor
from flockgym.bots.policies import Participant, make_participant, policy_participant, shared_policy
from flockgym.envs import Bot, OptionError, list_envs, make
from flockgym.envs.core.rewards import win_rewards
from flockgym.envs.core.rng import make_rng

SNAPSHOT = "snapshot"
"""Label of snapshot opponents in the per-opponent statistics."""

MAX_REDEALS = 100
RENDER_MODES = (None, "ansi")
"""The self-play env's render modes: none, or the table as text from the learner's seat."""


class RenderModeError(OptionError, TypeError):
    """A ``render_mode`` the self-play env does not draw. Also a ``TypeError``
    because that is what stable-baselines3's ``make_vec_env`` catches to build
    the env again without its default ``render_mode="rgb_array"``."""


class OpponentPool:
    """What one self-play env draws its opponents from: fixed participants (bots,
    checkpoints) and the newest frozen snapshots of the learner."""

    def __init__(self, fixed: list[Participant], snapshot_share: float, max_snapshots: int) -> None:
        self.fixed = fixed
        self.snapshots: list[Participant] = []
        self.snapshot_share = snapshot_share
        self.max_snapshots = max_snapshots

    def add_snapshot(self, participant: Participant) -> None:
        self.snapshots = [*self.snapshots, participant][-self.max_snapshots :]

    def draw(self, rng: np.random.Generator) -> tuple[str, Participant]:
        """(statistics label, participant) of the next episode's opponents."""
        use_snapshot = self.snapshots and (not self.fixed or rng.random() < self.snapshot_share)
        if use_snapshot:
            return SNAPSHOT, self.snapshots[int(rng.integers(len(self.snapshots)))]
        chosen = self.fixed[int(rng.integers(len(self.fixed)))]
        return chosen.name, chosen


class SelfPlayEnv(gym.Env):
    """One seat of a flockgym AEC env for a single-agent learner (see module doc).

    ``seat_offset`` staggers the seat rotation of parallel copies, so that a
    vector of envs covers every seat from the first episodes.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        env_id: str,
        env_options: dict[str, Any],
        pool: list[str],
        snapshots: Sequence[str] = (),
        snapshot_share: float = 0.5,
        max_snapshots: int = 5,
        snapshot_play: str = "sample",
        seat_offset: int = 0,
        reward_scale: float = 1.0,
        win_bonus: float = 0.0,
        advisor: str = "none",
        relative_reward: bool = False,
        render_mode: str | None = None,
    ) -> None:
        if render_mode not in RENDER_MODES:
            raise RenderModeError(
                f"render_mode={render_mode!r}; allowed: {', '.join(map(repr, RENDER_MODES))} "
                "(the table as text; no image is drawn)"
            )
        check_advisor(advisor)
        check_relative_reward(relative_reward, env_options)
        self.render_mode = render_mode
        self.game = make(env_id, **{**env_options, "render_mode": render_mode})
        self.raw = self.game.unwrapped
        self.env_id = env_id
        self.env_options = dict(env_options)
        self.agents = list(self.raw.possible_agents)
        space = self.raw.observation_space(self.agents[0])
        self.action_space = self.raw.action_space(self.agents[0])
        self.advisor_kind = advisor
        self.advisor: Advisor | None = None
        self.observation_space = advised_space(space["observation"], self.action_space, advisor)
        self.snapshot_play = snapshot_play
        self.pool = OpponentPool(
            [make_participant(spec, env_id, env_options) for spec in pool],
            snapshot_share,
            max_snapshots,
        )
        for path in snapshots:
            self.add_snapshot(path)
        self.seat_offset = seat_offset
        self.reward_scale = reward_scale
        self.win_bonus = win_bonus
        self.relative_reward = relative_reward
        self.standing = 0.0
        """With ``relative_reward``: the learner's points minus the others' mean when it
        was last paid (or when the game began)."""
        self.rng = make_rng(None)
        self.episode = 0
        self.learner = self.agents[0]
        self.opponent = ""
        self.participant: Participant | None = None
        self.bots: dict[str, Bot] = {}
        self.opponents_read_view = True
        self.opponents_read_observation = True
        self.carried = 0.0

    def add_snapshot(self, path: str) -> None:
        """Put the frozen policy at ``path`` into this env's opponent pool."""
        policy = shared_policy(path)
        policy.check_env(self.env_id, self.env_options)
        self.pool.add_snapshot(policy_participant(Path(path).stem, policy, self.snapshot_play))

    # ---- gymnasium API -------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """A new game: the next seat for the learner, fresh opponents, a new deal.
        ``seed`` restarts this env's generator (deals, seats, opponents, their moves)."""
        super().reset(seed=seed)
        if seed is not None:
            self.reset_generator(seed)
        for _ in range(MAX_REDEALS):
            self._new_game()
            self._play_opponents()
            if not self._learner_done():
                # Points scored before the learner's first move are paid with it.
                self.carried = float(self.raw._cumulative_rewards[self.learner])
                return self._observation(), {"action_mask": self.action_masks()}
        raise RuntimeError(
            f"{self.env_id}: {MAX_REDEALS} deals in a row ended before {self.learner} moved"
        )

    def reset_generator(self, seed: int) -> None:
        """Restart this env's generator (deals, seats, opponents, their moves) and
        its seat rotation, as ``reset(seed=seed)`` does."""
        self.rng = make_rng(seed)
        self.episode = 0

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """The learner's move, then the opponents' until it is its turn or the game ends."""
        self.game.step(int(action))  # zeroes the learner's cumulative reward first
        self._play_opponents()
        reward = self.learner_reward()
        terminated = bool(self.raw.terminations[self.learner])
        truncated = bool(self.raw.truncations[self.learner])
        info = self._result() if terminated or truncated else {}
        info["action_mask"] = self.action_masks()
        return self._observation(), reward, terminated, truncated, info

    def learner_reward(self) -> float:
        """What the learner earned since its last move (scaled), plus the win bonus
        once its game is over (the batched vec env pays the same). With
        ``relative_reward``, what it earned is the change in its lead over the
        others' mean points."""
        if self.relative_reward:
            now = self.learner_standing()
            earned, self.standing = now - self.standing, now
            if self.raw._penalized is not None:  # an illegal move ended it: the env's penalty
                earned += float(self.raw._cumulative_rewards[self.learner])
        else:
            earned = float(self.raw._cumulative_rewards[self.learner]) + self.carried
        reward = earned * self.reward_scale
        self.carried = 0.0
        if self.win_bonus and self.raw.terminations[self.learner]:
            seats = [self.agents.index(agent) for agent in self.raw.winners]
            reward += (
                self.win_bonus
                * win_rewards(len(self.agents), seats)[self.agents.index(self.learner)]
            )
        return reward

    def learner_standing(self) -> float:
        """The learner's :func:`leads` in its game now."""
        scores = self.raw.scores
        points = np.array([[scores[agent] for agent in self.agents]], dtype=np.float64)
        return float(leads(points, np.array([self.agents.index(self.learner)]))[0])

    def action_masks(self) -> np.ndarray:
        """Legal moves of the learner now (MaskablePPO reads this before each step)."""
        return self.raw.observe(self.learner)["action_mask"].astype(bool)

    def render(self) -> str | None:
        """The table from the learner's seat (``render_mode="ansi"``)."""
        if self.render_mode is None:
            return None
        return self.raw._render_text(self.agents.index(self.learner))

    # ---- internals -------------------------------------------------------------------

    def _new_game(self) -> None:
        self.participant, seeds, game_seed = self._draw_game()
        self.bots = {
            agent: self.participant.new_bot(int(seeds[i]))
            for i, agent in enumerate(self.agents)
            if agent != self.learner
        }
        if self.advisor_kind != "none":
            # The learner's seat seed is drawn for every seat and used by no bot.
            seed = int(seeds[self.agents.index(self.learner)])
            self.advisor = Advisor(self.env_id, self.advisor_kind, int(self.action_space.n), seed)
        self.opponents_read_view = self.participant.reads_view
        self.opponents_read_observation = self.participant.reads_observation
        self.game.reset(seed=game_seed)
        self.standing = self.learner_standing() if self.relative_reward else 0.0

    def _draw_game(self) -> tuple[Participant, np.ndarray, int]:
        """The next episode's draws from this env's generator, in their order: the
        learner's seat (rotating), the opponent, one bot seed per seat, the deal's
        seed. Batched self-play (:mod:`.batched`) makes the same draws."""
        n = len(self.agents)
        self.learner = self.agents[(self.seat_offset + self.episode) % n]
        self.episode += 1
        self.opponent, participant = self.pool.draw(self.rng)
        seeds = self.rng.integers(2**63, size=n)
        return participant, seeds, int(self.rng.integers(2**63))

    def _play_opponents(self) -> None:
        """Step the other seats until the learner is to act or is done."""
        while (agent := self._next_opponent()) is not None:
            self.game.step(self._opponent_move(agent))

    def _opponent_move(self, agent: str) -> int:
        """An opponent's move. A bot with ``act_on_table`` (a compiled heuristic on
        a compiled engine) answers from the engine itself, the same move without
        building the observation and the view; the others are asked as usual,
        with a view only where one of them reads it."""
        bot = self.bots[agent]
        act_on_table = getattr(bot, "act_on_table", None)
        action = act_on_table(self.raw, agent) if act_on_table is not None else None
        if action is None:
            observation = self.raw.observe(agent)
            view = self.raw.view(agent) if self.opponents_read_view else {}
            action = bot.act(observation, view)
        return int(action)

    def _next_opponent(self) -> str | None:
        """The opponent to move now (stepping past agents already done), or None
        once it is the learner's turn or the learner is done."""
        while not self._learner_done():
            agent = self.game.agent_selection
            if agent == self.learner:
                return None
            if not (self.raw.terminations[agent] or self.raw.truncations[agent]):
                return agent
            self.game.step(None)
        return None

    def _learner_done(self) -> bool:
        return bool(self.raw.terminations[self.learner] or self.raw.truncations[self.learner])

    def _observation(self) -> np.ndarray:
        return self.learner_input(self.raw.observe(self.learner))

    def learner_input(self, observed: dict[str, np.ndarray]) -> np.ndarray:
        """The learner's observation vector, followed by its advisor's move when it
        has one (asked here, once per decision: call it once per step)."""
        if self.advisor is None:
            return observed["observation"]
        view = self.raw.view(self.learner) if observed["action_mask"].any() else {}
        return self.advisor.network_input(observed, view)

    def _result(self) -> dict[str, Any]:
        """The finished game from the learner's side, for per-opponent statistics."""
        winners = self.raw.winners
        share = 1.0 / len(winners) if self.learner in winners else 0.0
        return {
            "game_result": {
                "opponent": self.opponent,
                "seat": self.agents.index(self.learner),
                "win": share,
                "points": float(self.raw.scores[self.learner]),
            }
        }


def leads(points: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """Each game's ``seats[g]`` points minus the mean of the other players'
    points (``points`` is ``[games, players]``): what ``relative_reward`` pays
    the changes of. Zero-sum, as a win reward is: points an opponent scores
    cost the player, and points taken from an opponent count twice at two
    players. The self-play env and the vectorised engine both call this, so
    that they pay the very same floats."""
    mine = points[np.arange(len(points)), seats]
    return mine - (points.sum(axis=1) - mine) / (points.shape[1] - 1)


def check_relative_reward(relative_reward: bool, env_options: dict[str, Any]) -> None:
    """``relative_reward`` pays changes of points, so the env must pay points too
    (``reward: score``): on a win or rank reward it would mean nothing."""
    if not isinstance(relative_reward, bool):
        raise OptionError(
            f"relative_reward must be a bool, got {relative_reward!r} "
            f"({type(relative_reward).__name__}); allowed: True, False"
        )
    if relative_reward and env_options.get("reward") != "score":
        raise OptionError(
            f"relative_reward=True with reward={env_options.get('reward', 'win')!r}: "
            "a relative reward pays changes of points; allowed with it: reward='score'"
        )


def advised_space(observation: gym.spaces.Box, actions: Any, advisor: str) -> gym.spaces.Box:
    """The learner's observation space: the env's, with one more entry in [0, 1]
    per action when an advisor's one-hot move follows it."""
    if advisor == "none":
        return observation
    count = int(actions.n)
    low = np.concatenate([observation.low, np.zeros(count, dtype=observation.dtype)])
    high = np.concatenate([observation.high, np.ones(count, dtype=observation.dtype)])
    return gym.spaces.Box(low, high, dtype=observation.dtype)


def selfplay_env(
    env_id: str,
    opponents: Sequence[str] = ("random", "heuristic"),
    *,
    reward_scale: float = 1.0,
    win_bonus: float = 0.0,
    relative_reward: bool = False,
    render_mode: str | None = None,
    **env_options: Any,
) -> SelfPlayEnv:
    """The self-play env of ``env_id`` for a single-agent learner (what
    ``gymnasium.make("flockgym/<game>-selfplay-v<k>", ...)`` builds).

    ``opponents`` are bot specs (``random``, ``heuristic``, a checkpoint, a
    shipped bot's name); one is drawn per episode and fills every other seat.
    ``reward_scale``, ``win_bonus`` and ``relative_reward`` shape the learner's
    reward as the config keys of the same names do (docs/training.md).
    The keyword arguments left are env options (``num_players``, ``reward``,
    ``illegal_action``, game options), checked by the env itself.
    """
    if isinstance(opponents, str):
        raise OptionError(
            f"opponents={opponents!r}: allowed: a list of bot specs, e.g. ['heuristic']"
        )
    if not opponents:
        raise OptionError("opponents=[]: allowed: at least one bot spec, e.g. ['random']")
    return SelfPlayEnv(
        env_id,
        env_options,
        pool=list(opponents),
        reward_scale=reward_scale,
        win_bonus=win_bonus,
        relative_reward=relative_reward,
        render_mode=render_mode,
    )


def gymnasium_id(env_id: str) -> str:
    """``asrus_v0`` -> ``flockgym/asrus-selfplay-v0``."""
    name, version = env_id.rsplit("_", 1)
    return f"flockgym/{name}-selfplay-{version}"


def register_selfplay_envs() -> None:
    """Register every env's self-play env with Gymnasium (done by importing
    ``flockgym.training``); registering again replaces nothing."""
    registry = gym.envs.registration.registry
    for env_id in list_envs():
        gym_id = gymnasium_id(env_id)
        if gym_id not in registry:
            gym.register(
                id=gym_id,
                entry_point="flockgym.training.selfplay:selfplay_env",
                kwargs={"env_id": env_id},
            )
