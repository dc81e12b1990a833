"""Imitation before reinforcement: fit the learner to a teacher bot's moves.

With ``pretrain.games`` set, a fresh run first plays that many games in which
a teacher bot (``pretrain.teacher``, the heuristic by default) takes the
learner's seat against opponents drawn from ``opponents.pool``, exactly as the
learner will play them: the same self-play env, seat rotation, reward,
``reward_scale`` and ``win_bonus``. The policy head is then fit to the
teacher's moves (behaviour cloning: the cross-entropy of the masked policy on
the teacher's action) and the value head to the returns of those games, and
PPO starts from there.

Why: in games where the untrained learner almost never wins against the bot it
must beat (the Arena, Astrobirdz at 4 players), PPO spends most of a run
rediscovering what the heuristic already does, and the win bonus it is paid is
nearly always the loser's. A learner that starts at the teacher's level plays
games it can win from its first rollout; the value head is fit too, so that
PPO's first advantages are not the noise of an untrained critic that would
undo the cloned policy.

Everything is derived from the run's seed (the games from the env's generator,
the teacher's seeds, the minibatch order from a torch generator of its own), so
a run with pretraining is as reproducible as one without. Pretraining happens
once, before the first update; an interrupted run resumes from its checkpoints,
every one of them after it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from flockgym.bots.policies import make_participant
from flockgym.envs.core.rng import make_rng
from flockgym.training.selfplay import SelfPlayEnv

SEED_SALT = 0x5EED_C10E
"""Mixed into the run's seed so the teacher's games are not the training
envs' first games (those are seeded from the run's seed itself)."""


@dataclass
class Demonstrations:
    """The teacher's decisions at the learner's seat, one row each."""

    observations: np.ndarray  # float32 [N, observation size]
    masks: np.ndarray  # bool [N, actions]
    actions: np.ndarray  # int64 [N]
    returns: np.ndarray  # float32 [N]: the learner's return from that decision on
    game: np.ndarray  # int64 [N]: which game (0, 1, ...) the decision is from
    games: int
    won: float  # the teacher's share of wins


@dataclass
class PretrainReport:
    """What pretraining did, for the run's log."""

    decisions: int
    games: int
    held_out_games: int
    teacher_win_rate: float
    accuracy_before: float
    accuracy_after: float
    held_out_accuracy: float
    value_loss_before: float
    value_loss_after: float
    held_out_value_loss: float

    def line(self) -> str:
        held_out = (
            f"; on {self.held_out_games} held-out games {self.held_out_accuracy:.1%}, value "
            f"loss {self.held_out_value_loss:.3f}"
            if self.held_out_games
            else ""
        )
        return (
            f"pretrained on {self.decisions:,} moves of {self.games} teacher games (teacher won "
            f"{self.teacher_win_rate:.1%}): matches the teacher's move {self.accuracy_before:.1%}"
            f" -> {self.accuracy_after:.1%}, value loss {self.value_loss_before:.3f} -> "
            f"{self.value_loss_after:.3f}{held_out}"
        )


def learner_seat_env(config: Any) -> SelfPlayEnv:
    """The run's self-play env before any snapshot exists: the config's env,
    opponents' pool, reward shaping and advice, one game at a time."""
    return SelfPlayEnv(
        config.env.id,
        config.env.options,
        config.opponents.pool,
        reward_scale=config.env.reward_scale,
        win_bonus=config.env.win_bonus,
        advisor=config.env.advisor,
        relative_reward=config.env.relative_reward,
    )


def play_learner_game(
    env: SelfPlayEnv, choose: Callable[[np.ndarray], int], gamma: float
) -> tuple[np.ndarray, float]:
    """One game at the learner's seat of ``env``, each move ``choose(vector)`` of
    the learner's input (with its advice, if advised): the discounted returns of
    its steps and the learner's win share. A player other than the learner (a
    teacher, a searcher) plays its games through this, so its rows line up with
    what PPO sees."""
    vector, _ = env.reset()
    rewards = []
    while True:
        vector, reward, terminated, truncated, info = env.step(int(choose(vector)))
        rewards.append(reward)
        if terminated or truncated:
            return discounted_returns(np.asarray(rewards), gamma), info["game_result"]["win"]


def collect_demonstrations(config: Any) -> Demonstrations:
    """``config.pretrain.games`` games with the teacher in the learner's seat."""
    env = learner_seat_env(config)
    teacher = make_participant(config.pretrain.teacher, config.env.id, config.env.options)
    rng = make_rng(config.seed ^ SEED_SALT)
    env.reset_generator(int(rng.integers(2**63)))
    rows: list[tuple[np.ndarray, np.ndarray, int]] = []
    returns: list[np.ndarray] = []
    won = 0.0
    for _game in range(config.pretrain.games):
        bot = teacher.new_bot(int(rng.integers(2**63)))

        def teach(vector: np.ndarray, bot: Any = bot) -> int:
            observation = env.raw.observe(env.learner)
            view = env.raw.view(env.learner) if teacher.reads_view else {}
            action = int(bot.act(observation, view))
            rows.append((vector, observation["action_mask"], action))
            return action

        game_returns, win = play_learner_game(env, teach, config.algo.gamma)
        returns.append(game_returns)
        won += win
    observations, masks, actions = zip(*rows, strict=True)
    game = np.repeat(np.arange(len(returns)), [len(r) for r in returns])
    return Demonstrations(
        np.asarray(observations, dtype=np.float32),
        np.asarray(masks, dtype=bool),
        np.asarray(actions, dtype=np.int64),
        np.concatenate(returns).astype(np.float32),
        game,
        config.pretrain.games,
        won / config.pretrain.games,
    )


def discounted_returns(rewards: np.ndarray, gamma: float) -> np.ndarray:
    """``G_t = r_t + gamma G_{t+1}``: what PPO's value head estimates at each move."""
    out = np.zeros(len(rewards), dtype=np.float64)
    running = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        running = float(rewards[t]) + gamma * running
        out[t] = running
    return out


def pretrain(model: Any, config: Any) -> PretrainReport:
    """Collect the teacher's games and fit ``model.policy`` to them (see module doc).

    With 10 games or more, the last tenth is held out of the fit and measured
    alone: how well the imitation carries to games it has not seen."""
    demos = collect_demonstrations(config)
    held_out_games = demos.games // 10
    fitted = demos.game < demos.games - held_out_games
    tensors = as_tensors(demos, fitted)
    policy = model.policy
    before = measure(policy, tensors)
    fit(policy, tensors, config)
    after = measure(policy, tensors)
    held_out = measure(policy, as_tensors(demos, ~fitted)) if held_out_games else (0.0, 0.0)
    return PretrainReport(
        int(fitted.sum()),
        demos.games - held_out_games,
        held_out_games,
        demos.won,
        before[0],
        after[0],
        held_out[0],
        before[1],
        after[1],
        held_out[1],
    )


def as_tensors(demos: Demonstrations, rows: np.ndarray) -> tuple[torch.Tensor, ...]:
    """(observations, masks, actions, returns) of the chosen rows."""
    return tuple(
        torch.as_tensor(part[rows])
        for part in (demos.observations, demos.masks, demos.actions, demos.returns)
    )


def fit(policy: Any, tensors: tuple[torch.Tensor, ...], config: Any) -> None:
    """Minibatch Adam on the cloning loss plus ``vf_coef`` times the value loss,
    with its own optimizer (PPO's starts fresh) and its own shuffling generator."""
    settings = config.pretrain
    observations, masks, actions, returns = tensors
    optimizer = torch.optim.Adam(policy.parameters(), lr=settings.learning_rate)
    order_generator = torch.Generator().manual_seed(config.seed ^ SEED_SALT)
    policy.set_training_mode(True)
    for _ in range(settings.epochs):
        order = torch.randperm(len(actions), generator=order_generator)
        for start in range(0, len(order), settings.batch_size):
            rows = order[start : start + settings.batch_size]
            values, log_prob, _ = policy.evaluate_actions(
                observations[rows], actions[rows], masks[rows]
            )
            value_loss = torch.nn.functional.mse_loss(values.flatten(), returns[rows])
            loss = -log_prob.mean() + config.algo.vf_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), config.algo.max_grad_norm)
            optimizer.step()
    policy.set_training_mode(False)


@torch.no_grad()
def measure(policy: Any, tensors: tuple[torch.Tensor, ...]) -> tuple[float, float]:
    """(share of moves where the greedy policy plays the teacher's, value MSE)."""
    observations, masks, actions, returns = tensors
    greedy, values, _ = policy(observations, deterministic=True, action_masks=masks)
    accuracy = float((greedy == actions).float().mean())
    return accuracy, float(torch.nn.functional.mse_loss(values.flatten(), returns))
