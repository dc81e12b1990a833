"""Masked DQN and masked QR-DQN: stable-baselines3's DQN and sb3-contrib's QR-DQN
taught the action mask, as the learners ``masked_dqn`` and ``masked_qrdqn``.

Neither library masks: a Q-learner that picks or bootstraps from an illegal
move learns the value of a move it can never make. Three places change, and
nothing else of the libraries' algorithms:

* **acting**: exploration draws uniformly among the legal moves (per env, from
  numpy's global generator, which checkpoints save), and the greedy move is the
  legal move of highest Q value (QR-DQN: of highest mean quantile);
* **the replay buffer** stores, beside each transition, the legal mask of its
  next state (all illegal when the game ended there: a finished game is worth
  nothing more, also when it ended at a round cap);
* **the bootstrap target** takes its max (DQN) or its greedy action (QR-DQN)
  over the next state's legal moves only.

The training loop calls ``learn`` once per iteration (training/train.py), so
the libraries' schedules, which read the progress of the current ``learn``
call, would see none of the run: the exploration rate here falls with the
model's step count over ``exploration_fraction`` of the run, and resumes with it.

A resumable checkpoint holds, besides the Q network (``policy.pth``, what play
and evaluation load), the target network, Adam's state and the filled part of
the replay buffer as tensors (``optimizer.pth``), and the counters as JSON
(``learner.json``): a resumed run goes on with the very buffer, target network
and generators of the uninterrupted one, so its final weights are the same.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Annotated, Any, ClassVar, Literal, NamedTuple

import numpy as np
import torch
from gymnasium import spaces
from pydantic import ConfigDict, Field
from sb3_contrib import QRDQN
from sb3_contrib.common.utils import quantile_huber_loss
from stable_baselines3 import DQN
from stable_baselines3.common.buffers import ReplayBuffer

from flockgym.bots.checkpoints import (
    LEARNER_MEMBER,
    MAX_MEMBER_BYTES,
    OPTIMIZER_MEMBER,
    POLICY_MEMBER,
    CheckpointArchive,
    CheckpointError,
    check_state_dict,
    json_bytes,
    tensor_bytes,
)
from flockgym.training.learners import (
    ACTIVATIONS,
    COUNT,
    EPISODE_FIELDS,
    FINITE,
    FLAG,
    MAX_LOSS_WEIGHT,
    MAX_NETWORK_PARAMETERS,
    POSITIVE,
    AlgoParams,
    Learner,
    activation_problems,
    episode_counters,
    field_problems,
    layer_sizes_problem,
    mlp_problems,
    net_arch_field,
    optimizer_problems,
    restore_episode_buffers,
    weights_bytes,
)

STATE_VERSION = 1
MAX_BUFFER_BYTES = MAX_MEMBER_BYTES // 2
"""Largest replay buffer: it is saved in every resumable checkpoint, whose members
may not inflate past :data:`~flockgym.bots.checkpoints.MAX_MEMBER_BYTES` (half of it leaves
room for the optimizer and the target network)."""
MAX_QUANTILES = 1000
REPLAY_KEYS = (
    "observations",
    "next_observations",
    "actions",
    "rewards",
    "dones",
    "timeouts",
    "next_masks",
)
"""The replay buffer's arrays, as a checkpoint stores them (the filled rows)."""


# ---- the algorithms ------------------------------------------------------------------


class MaskedReplaySamples(NamedTuple):
    """stable-baselines3's ``ReplayBufferSamples`` and the next states' legal masks."""

    observations: torch.Tensor
    actions: torch.Tensor
    next_observations: torch.Tensor
    dones: torch.Tensor
    rewards: torch.Tensor
    next_masks: torch.Tensor


class MaskedReplayBuffer(ReplayBuffer):
    """stable-baselines3's replay buffer with each transition's next legal mask
    (``next_masks``, written by the algorithm before each ``add``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        assert isinstance(self.action_space, spaces.Discrete)
        shape = (self.buffer_size, self.n_envs, int(self.action_space.n))
        self.next_masks = np.zeros(shape, dtype=bool)

    def _get_samples(self, batch_inds: np.ndarray, env: Any = None) -> MaskedReplaySamples:  # type: ignore[override]
        # As ReplayBuffer._get_samples (one env drawn per row, timeouts not done),
        # with the masks of the same rows.
        env_indices = np.random.randint(0, high=self.n_envs, size=(len(batch_inds),))
        done = self.dones[batch_inds, env_indices] * (1 - self.timeouts[batch_inds, env_indices])
        data = (
            self.observations[batch_inds, env_indices, :],
            self.actions[batch_inds, env_indices, :],
            self.next_observations[batch_inds, env_indices, :],
            done.reshape(-1, 1),
            self.rewards[batch_inds, env_indices].reshape(-1, 1),
            self.next_masks[batch_inds, env_indices, :],
        )
        return MaskedReplaySamples(*map(self.to_torch, data))


def legal_uniform(masks: np.ndarray) -> np.ndarray:
    """One legal action per row, uniformly, from numpy's global generator (saved
    and restored with every checkpoint, so a resumed run draws the same)."""
    scores = np.random.random_sample(masks.shape) * masks
    return scores.argmax(axis=1)


def masked_argmax(values: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """The legal action of highest value per row (row 0 if none is legal)."""
    return values.masked_fill(~masks, -torch.inf).argmax(dim=1)


class MaskedActing:
    """What both algorithms share: masked exploration and greedy moves, and the
    next masks written into the replay buffer beside each transition."""

    env: Any
    num_timesteps: int
    exploration_rate: float
    replay_buffer: MaskedReplayBuffer
    policy: Any

    def q_values(self, observations: torch.Tensor) -> torch.Tensor:
        """(batch, actions) Q values of the online network."""
        raise NotImplementedError

    def env_masks(self) -> np.ndarray:
        """The legal moves of every env now, ``(n_envs, actions)`` bool."""
        return np.stack(self.env.env_method("action_masks")).astype(bool)

    def _sample_action(
        self, learning_starts: int, action_noise: Any = None, n_envs: int = 1
    ) -> tuple[np.ndarray, np.ndarray]:
        masks = self.env_masks()
        if self.num_timesteps < learning_starts:
            actions = legal_uniform(masks)
        else:
            actions = self.greedy(self._last_obs, masks)  # type: ignore[attr-defined]
            explore = np.random.random_sample(n_envs) < self.exploration_rate
            actions = np.where(explore, legal_uniform(masks), actions)
        return actions, actions

    def greedy(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The legal move of highest Q value for each row."""
        with torch.no_grad():
            values = self.q_values(torch.as_tensor(observations, dtype=torch.float32))
        return masked_argmax(values, torch.as_tensor(masks)).numpy()

    def _store_transition(
        self,
        replay_buffer: MaskedReplayBuffer,
        buffer_action: np.ndarray,
        new_obs: np.ndarray,
        reward: np.ndarray,
        dones: np.ndarray,
        infos: list[dict[str, Any]],
    ) -> None:
        # The envs' masks now are those of new_obs; a game that ended has no
        # legal move left (its next observation is the terminal one).
        masks = self.env_masks()
        masks[np.asarray(dones, dtype=bool)] = False
        replay_buffer.next_masks[replay_buffer.pos] = masks
        super()._store_transition(  # type: ignore[misc]
            replay_buffer, buffer_action, new_obs, reward, dones, infos
        )


class StepExploration:
    """The exploration rate from ``start`` down to ``end`` over the first ``fraction``
    of ``total_steps``, read from the model's step count (as learners.StepLinearDecay)."""

    def __init__(
        self, model: Any, start: float, end: float, fraction: float, total_steps: int
    ) -> None:
        self.model, self.start, self.end = model, start, end
        self.span = max(1.0, fraction * total_steps)

    def __call__(self, _progress_remaining: float) -> float:
        done = min(1.0, self.model.num_timesteps / self.span)
        return self.start + (self.end - self.start) * done


class MaskedDQN(MaskedActing, DQN):
    """stable-baselines3's DQN, masked (see module doc)."""

    def q_values(self, observations: torch.Tensor) -> torch.Tensor:
        return self.policy.q_net(observations)

    def train(self, gradient_steps: int, batch_size: int = 100) -> None:
        # DQN.train, with the max of the target over the next state's legal moves.
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        losses = []
        for _ in range(gradient_steps):
            data = self.replay_buffer.sample(batch_size)
            with torch.no_grad():
                next_q = self.q_net_target(data.next_observations)
                next_q = next_q.masked_fill(~data.next_masks, -torch.inf).max(dim=1).values
                next_q = torch.where(torch.isfinite(next_q), next_q, 0.0).reshape(-1, 1)
                target = data.rewards + (1 - data.dones) * self.gamma * next_q
            current = torch.gather(self.q_net(data.observations), 1, data.actions.long())
            loss = torch.nn.functional.smooth_l1_loss(current, target)
            losses.append(loss.item())
            self.policy.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
            self.policy.optimizer.step()
        self._n_updates += gradient_steps
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/loss", float(np.mean(losses)))


class MaskedQRDQN(MaskedActing, QRDQN):
    """sb3-contrib's QR-DQN, masked (see module doc)."""

    def q_values(self, observations: torch.Tensor) -> torch.Tensor:
        return self.policy.quantile_net(observations).mean(dim=1)

    def train(self, gradient_steps: int, batch_size: int = 100) -> None:
        # QRDQN.train, with the greedy next action among the next state's legal moves.
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        losses = []
        for _ in range(gradient_steps):
            data = self.replay_buffer.sample(batch_size)
            with torch.no_grad():
                next_quantiles = self.quantile_net_target(data.next_observations)
                best = masked_argmax(next_quantiles.mean(dim=1), data.next_masks)
                index = best.reshape(-1, 1, 1).expand(batch_size, self.n_quantiles, 1)
                next_quantiles = next_quantiles.gather(dim=2, index=index).squeeze(dim=2)
                # A finished game (no legal move) is worth nothing more.
                alive = data.next_masks.any(dim=1, keepdim=True)
                next_quantiles = torch.where(alive, next_quantiles, 0.0)
                target = data.rewards + (1 - data.dones) * self.gamma * next_quantiles
            actions = data.actions[..., None].long().expand(batch_size, self.n_quantiles, 1)
            current = torch.gather(self.quantile_net(data.observations), 2, actions).squeeze(2)
            loss = quantile_huber_loss(current, target, sum_over_quantiles=True)
            losses.append(loss.item())
            self.policy.optimizer.zero_grad()
            loss.backward()
            if self.max_grad_norm is not None:
                torch.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
            self.policy.optimizer.step()
        self._n_updates += gradient_steps
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/loss", float(np.mean(losses)))


# ---- the learners -------------------------------------------------------------------


class MaskedDQNParams(AlgoParams):
    """Hyperparameters of the masked DQN (stable-baselines3's names and meanings;
    steps are learner steps, summed over the envs)."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    name: Literal["masked_dqn"] = Field("masked_dqn", description="this learner")
    learning_rate: float = Field(1e-4, gt=0, le=1, description="Adam step size (constant)")
    buffer_size: int = Field(
        20_000,
        ge=1,
        description="transitions the replay buffer keeps (saved in every resumable checkpoint)",
    )
    learning_starts: int = Field(
        1000, ge=0, description="steps of uniform legal moves before the first update"
    )
    batch_size: int = Field(64, ge=1, description="transitions per gradient step")
    gamma: float = Field(0.99, ge=0, le=1, description="discount factor")
    tau: float = Field(1.0, gt=0, le=1, description="target network update rate (1: copy)")
    train_freq: int = Field(4, ge=1, description="env steps (of every env at once) between updates")
    gradient_steps: int = Field(1, ge=1, description="gradient steps per update")
    target_update_interval: int = Field(
        2000, ge=1, description="learner steps between target network updates"
    )
    exploration_fraction: float = Field(
        0.2, gt=0, le=1, description="share of total_steps over which epsilon falls"
    )
    exploration_initial_eps: float = Field(1.0, ge=0, le=1, description="epsilon at step 0")
    exploration_final_eps: float = Field(0.05, ge=0, le=1, description="epsilon at the end")
    max_grad_norm: float = Field(
        10.0, gt=0, le=MAX_LOSS_WEIGHT, description="gradient clipping norm"
    )
    net_arch: list[Annotated[int, Field(ge=1)]] = net_arch_field(
        f"the Q network (at most {MAX_NETWORK_PARAMETERS:,} parameters)"
    )
    activation: Literal["tanh", "relu"] = Field("relu", description="hidden layer activation")


class MaskedQRDQNParams(MaskedDQNParams):
    """Hyperparameters of the masked QR-DQN: the masked DQN's and the quantiles."""

    name: Literal["masked_qrdqn"] = Field("masked_qrdqn", description="this learner")  # type: ignore[assignment]
    n_quantiles: int = Field(
        25, ge=1, le=MAX_QUANTILES, description="quantiles of each action's return"
    )
    max_grad_norm: float | None = Field(  # type: ignore[assignment]
        None, gt=0, le=MAX_LOSS_WEIGHT, description="gradient clipping norm (None: none)"
    )


@dataclass
class MaskedDQNState:
    """A resumable checkpoint's state, checked, not yet applied."""

    q_net: dict[str, torch.Tensor]
    target: dict[str, torch.Tensor]
    optimizer: dict[str, Any]
    replay: dict[str, torch.Tensor]
    counters: dict[str, Any]


class MaskedDQNLearner(Learner):
    """The masked DQN on the observation vector (see module doc)."""

    name = "masked_dqn"
    params_model: ClassVar[type[AlgoParams]] = MaskedDQNParams
    algorithm: ClassVar[type[Any]] = MaskedDQN
    unused_keys: ClassVar[dict[str, str]] = {
        "pretrain": "imitation before training is built for maskable_ppo only",
    }

    # ---- config ----------------------------------------------------------------------

    def check(self, params: Any, n_envs: int, observation_size: int, num_actions: int) -> list[str]:
        problems = []
        per_step = buffer_bytes_per_step(observation_size, num_actions)
        if params.buffer_size * per_step > MAX_BUFFER_BYTES:
            problems.append(
                f"algo.buffer_size = {params.buffer_size:,} would need a "
                f"{params.buffer_size * per_step / 2**20:,.0f} MiB replay buffer (observation "
                f"{observation_size}, {num_actions} actions), saved in every checkpoint; "
                f"allowed: at most {MAX_BUFFER_BYTES // per_step:,}"
            )
        if params.buffer_size < n_envs:
            problems.append(
                f"algo.buffer_size = {params.buffer_size} is less than n_envs = {n_envs}; "
                f"allowed: at least {n_envs} (one transition of every env)"
            )
        if params.exploration_final_eps > params.exploration_initial_eps:
            problems.append(
                f"algo.exploration_final_eps = {params.exploration_final_eps} is above "
                f"algo.exploration_initial_eps = {params.exploration_initial_eps}; allowed: "
                "at most that (epsilon falls)"
            )
        problems += self.network_problems(
            self.network_config(params), observation_size, num_actions, "algo."
        )
        return problems

    def network_config(self, params: Any) -> dict[str, Any]:
        return {"net_arch": list(params.net_arch), "activation": params.activation}

    def network_problems(
        self, config: Any, observation_size: int, num_actions: int, prefix: str = ""
    ) -> list[str]:
        keys = set(self.network_config(self.params_model()))
        if not isinstance(config, dict) or set(config) != keys:
            return [
                f"{prefix.rstrip('.') or 'network'} = {config!r:.80}: allowed: a mapping of "
                f"{', '.join(sorted(keys))}"
            ]
        if problem := layer_sizes_problem(config["net_arch"], prefix):
            return [problem]
        quantiles = config.get("n_quantiles", 1)
        if type(quantiles) is not int or not 1 <= quantiles <= MAX_QUANTILES:
            problems = activation_problems(config["activation"], prefix)
            return [*problems, f"{prefix}n_quantiles = {quantiles!r:.40}: allowed: 1 to 1000"]
        return mlp_problems(
            config,
            observation_size,
            num_actions,
            prefix,
            lambda arch, size, actions: q_parameter_count(arch, size, actions * quantiles),
        )

    # ---- the model -------------------------------------------------------------------

    def build(
        self,
        env: Any,
        params: Any,
        seed: int,
        total_steps: int | None = None,
        advice_actions: int = 0,
    ) -> Any:
        """The masked algorithm on ``env``; epsilon falls over
        ``exploration_fraction`` of ``total_steps`` (the library's own schedule
        when ``total_steps`` is not given)."""
        model = self.algorithm(
            "MlpPolicy",
            env,
            learning_rate=params.learning_rate,
            buffer_size=params.buffer_size,
            learning_starts=params.learning_starts,
            batch_size=params.batch_size,
            tau=params.tau,
            gamma=params.gamma,
            train_freq=params.train_freq,
            gradient_steps=params.gradient_steps,
            replay_buffer_class=MaskedReplayBuffer,
            target_update_interval=params.target_update_interval,
            exploration_fraction=params.exploration_fraction,
            exploration_initial_eps=params.exploration_initial_eps,
            exploration_final_eps=params.exploration_final_eps,
            policy_kwargs=self.policy_kwargs(self.network_config(params)),
            seed=seed,
            device="cpu",
            verbose=0,
            max_grad_norm=params.max_grad_norm,
        )
        if total_steps is not None and total_steps >= 1:
            model.exploration_schedule = StepExploration(
                model,
                params.exploration_initial_eps,
                params.exploration_final_eps,
                params.exploration_fraction,
                total_steps,
            )
        model.exploration_rate = model.exploration_schedule(1.0)
        return model

    @staticmethod
    def policy_kwargs(config: dict[str, Any]) -> dict[str, Any]:
        kwargs = {
            "net_arch": list(config["net_arch"]),
            "activation_fn": ACTIVATIONS[config["activation"]],
        }
        if "n_quantiles" in config:
            kwargs["n_quantiles"] = config["n_quantiles"]
        return kwargs

    @staticmethod
    def online(policy: Any) -> torch.nn.Module:
        """The network that acts (and that play loads): DQN's q_net."""
        return policy.q_net

    @staticmethod
    def target(policy: Any) -> torch.nn.Module:
        return policy.q_net_target

    # ---- the policy network alone ------------------------------------------------------

    def network(
        self,
        config: dict[str, Any],
        observation_size: int,
        num_actions: int,
        advice_actions: int = 0,
    ) -> torch.nn.Module:
        """An untrained policy (online and target networks and Adam, as the
        library builds it), its weights drawn without touching torch's global
        generator (loading an opponent mid-run does not change training)."""
        policy_class = self.algorithm.policy_aliases["MlpPolicy"]
        with torch.random.fork_rng(devices=[]):
            policy = policy_class(
                observation_space=spaces.Box(-np.inf, np.inf, (observation_size,), np.float32),
                action_space=spaces.Discrete(num_actions),
                lr_schedule=lambda _: 1e-4,
                **self.policy_kwargs(config),
            )
        return policy.eval()

    def load_network(
        self,
        archive: CheckpointArchive,
        config: dict[str, Any],
        observation_size: int,
        num_actions: int,
        advice_actions: int = 0,
    ) -> torch.nn.Module:
        policy = self.network(config, observation_size, num_actions)
        online = self.online(policy)
        expected = online.state_dict()
        count = self.count(config, observation_size, num_actions)
        state = archive.tensors(POLICY_MEMBER, weights_bytes(count, len(expected)))
        check_state_dict(archive.path, POLICY_MEMBER, state, expected)
        online.load_state_dict(state)
        self.target(policy).load_state_dict(state)
        return policy

    def count(self, config: dict[str, Any], observation_size: int, num_actions: int) -> int:
        outputs = num_actions * config.get("n_quantiles", 1)
        return q_parameter_count(config["net_arch"], observation_size, outputs)

    def action_logits(self, network: torch.nn.Module, observations: np.ndarray) -> np.ndarray:
        """The Q values (QR-DQN: mean quantiles): greedy play takes the legal move
        of highest value; ``sample`` play draws from their softmax."""
        with torch.no_grad():
            obs = torch.as_tensor(observations, dtype=torch.float32)
            return self.policy_q_values(network, obs).numpy()

    def policy_q_values(self, policy: Any, observations: torch.Tensor) -> torch.Tensor:
        return policy.q_net(observations)

    # ---- checkpoints -----------------------------------------------------------------

    def network_members(self, model: Any) -> dict[str, bytes]:
        return {POLICY_MEMBER: tensor_bytes(self.online(model.policy).state_dict())}

    def state_members(self, model: Any) -> dict[str, bytes]:
        buffer = model.replay_buffer
        rows = buffer.buffer_size if buffer.full else buffer.pos
        replay = {key: torch.from_numpy(getattr(buffer, key)[:rows].copy()) for key in REPLAY_KEYS}
        tensors = {
            "optimizer": model.policy.optimizer.state_dict(),
            "target": self.target(model.policy).state_dict(),
            "replay": replay,
        }
        counters = {
            "format": self.state_format,
            "version": STATE_VERSION,
            "num_timesteps": int(model.num_timesteps),
            "n_calls": int(model._n_calls),
            "n_updates": int(model._n_updates),
            "episode_num": int(model._episode_num),
            "exploration_rate": float(model.exploration_rate),
            "replay_pos": int(buffer.pos),
            "replay_full": bool(buffer.full),
            "replay_rows": int(buffer.buffer_size),
            "n_envs": int(buffer.n_envs),
            **episode_counters(model),
        }
        return {OPTIMIZER_MEMBER: tensor_bytes(tensors), LEARNER_MEMBER: json_bytes(counters)}

    @property
    def state_format(self) -> str:
        return f"flockgym-{self.name.replace('_', '-')}-state"

    def read_state(self, archive: CheckpointArchive, meta: Any) -> MaskedDQNState:
        where = archive.path
        fresh = self.network(meta.network, meta.input_size, meta.num_actions)
        online = self.online(fresh).state_dict()
        count = self.count(meta.network, meta.input_size, meta.num_actions)
        q_net = archive.tensors(POLICY_MEMBER, weights_bytes(count, len(online)))
        check_state_dict(where, POLICY_MEMBER, q_net, online)
        counters = archive.json(LEARNER_MEMBER)
        problems = self.counter_problems(counters)
        if not problems and counters["num_timesteps"] != meta.steps:
            problems = [f"num_timesteps = {counters['num_timesteps']}, not the step {meta.steps}"]
        if problems:
            raise CheckpointError(f"{where}: {LEARNER_MEMBER}: " + "; ".join(problems))
        transitions = counters["replay_rows"] * counters["n_envs"]
        per_step = buffer_bytes_per_step(meta.input_size, meta.num_actions)
        bound = 3 * weights_bytes(count, 2 * len(online)) + transitions * per_step + 2**20
        tensors = archive.tensors(OPTIMIZER_MEMBER, min(bound, MAX_MEMBER_BYTES))
        if not isinstance(tensors, dict) or set(tensors) != {"optimizer", "target", "replay"}:
            raise CheckpointError(
                f"{where}: {OPTIMIZER_MEMBER}: allowed: a mapping of optimizer, target and replay"
            )
        check_state_dict(where, f"{OPTIMIZER_MEMBER} target", tensors["target"], online)
        holder = SimpleNamespace(
            optimizer=fresh.optimizer, parameters=self.online(fresh).parameters
        )
        problems = optimizer_problems(tensors["optimizer"], holder)
        problems += replay_problems(tensors["replay"], counters, meta.input_size, meta.num_actions)
        if problems:
            raise CheckpointError(f"{where}: {OPTIMIZER_MEMBER}: " + "; ".join(problems))
        return MaskedDQNState(
            q_net, tensors["target"], tensors["optimizer"], tensors["replay"], counters
        )

    def counter_problems(self, counters: Any) -> list[str]:
        """``learner.json``: every field present, of its type and range."""
        fields = {
            "num_timesteps": COUNT,
            "n_calls": COUNT,
            "n_updates": COUNT,
            "episode_num": COUNT,
            "exploration_rate": FINITE,
            "replay_pos": COUNT,
            "replay_full": FLAG,
            "replay_rows": POSITIVE,
            "n_envs": POSITIVE,
            **EPISODE_FIELDS,
        }
        problems = field_problems(counters, self.state_format, STATE_VERSION, fields)
        if not problems and counters["replay_pos"] >= counters["replay_rows"]:
            problems.append(f"replay_pos = {counters['replay_pos']}: not below replay_rows")
        return problems

    def restore(self, model: Any, state: MaskedDQNState) -> None:
        """Apply ``state``. A run resumed with another ``algo.buffer_size`` or
        ``n_envs`` keeps the newest transitions that fit its buffer (see
        :func:`repack`); with the same ones the buffer is copied as it was."""
        buffer = model.replay_buffer
        counters = state.counters
        self.online(model.policy).load_state_dict(state.q_net)
        self.target(model.policy).load_state_dict(state.target)
        model.policy.optimizer.load_state_dict(state.optimizer)
        replay = {key: state.replay[key].numpy() for key in REPLAY_KEYS}
        pos, full = counters["replay_pos"], counters["replay_full"]
        if (counters["replay_rows"], counters["n_envs"]) != (buffer.buffer_size, buffer.n_envs):
            replay, pos, full = repack(replay, pos, full, buffer.buffer_size, buffer.n_envs)
        for key, array in replay.items():
            getattr(buffer, key)[: len(array)] = array
        buffer.pos, buffer.full = pos, full
        model.num_timesteps = counters["num_timesteps"]
        model._num_timesteps_at_start = counters["num_timesteps"]
        model._n_calls = counters["n_calls"]
        model._n_updates = counters["n_updates"]
        model._episode_num = counters["episode_num"]
        model.exploration_rate = counters["exploration_rate"]
        restore_episode_buffers(model, counters)


class MaskedQRDQNLearner(MaskedDQNLearner):
    """The masked QR-DQN on the observation vector (see module doc)."""

    name = "masked_qrdqn"
    params_model = MaskedQRDQNParams
    algorithm = MaskedQRDQN

    def network_config(self, params: Any) -> dict[str, Any]:
        return {**super().network_config(params), "n_quantiles": params.n_quantiles}

    @staticmethod
    def online(policy: Any) -> torch.nn.Module:
        return policy.quantile_net

    @staticmethod
    def target(policy: Any) -> torch.nn.Module:
        return policy.quantile_net_target

    def policy_q_values(self, policy: Any, observations: torch.Tensor) -> torch.Tensor:
        return policy.quantile_net(observations).mean(dim=1)


# ---- checks and sizes -----------------------------------------------------------------


def replay_problems(
    replay: Any, counters: dict[str, Any], observation_size: int, num_actions: int
) -> list[str]:
    """The saved replay buffer: every array, of the shape and type the counters
    and the network's shapes say, the observations and rewards finite."""
    if not isinstance(replay, dict) or set(replay) != set(REPLAY_KEYS):
        return [f"replay: allowed: a mapping of {', '.join(REPLAY_KEYS)}"]
    rows = counters["replay_rows"] if counters["replay_full"] else counters["replay_pos"]
    n = counters["n_envs"]
    expected = {
        "observations": ((rows, n, observation_size), torch.float32),
        "next_observations": ((rows, n, observation_size), torch.float32),
        "actions": ((rows, n, 1), torch.int64),
        "rewards": ((rows, n), torch.float32),
        "dones": ((rows, n), torch.float32),
        "timeouts": ((rows, n), torch.float32),
        "next_masks": ((rows, n, num_actions), torch.bool),
    }
    for key, (shape, dtype) in expected.items():
        tensor = replay[key]
        if not isinstance(tensor, torch.Tensor) or tuple(tensor.shape) != shape:
            return [f"replay.{key}: allowed: a tensor of shape {shape}"]
        if tensor.dtype != dtype:
            return [f"replay.{key}: allowed: {dtype} numbers, not {tensor.dtype}"]
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            return [f"replay.{key}: allowed: finite numbers"]
    actions = replay["actions"]
    if actions.numel() and not bool(((actions >= 0) & (actions < num_actions)).all()):
        return [f"replay.actions: allowed: 0 to {num_actions - 1}"]
    return []


def repack(
    replay: dict[str, np.ndarray], pos: int, full: bool, rows: int, n_envs: int
) -> tuple[dict[str, np.ndarray], int, bool]:
    """A saved replay buffer (``(saved rows, saved envs, ...)`` arrays, the next
    row to write ``pos``) laid out again as ``rows`` rows of ``n_envs``: its
    transitions oldest first, the newest that fill whole rows kept. Returns the
    arrays of the filled rows, the next row to write and whether all are filled."""
    saved_rows = len(replay["rewards"])
    order = np.r_[pos:saved_rows, 0:pos] if full else np.arange(saved_rows)
    flat = {key: a[order].reshape(-1, *a.shape[2:]) for key, a in replay.items()}
    count = len(flat["rewards"])
    kept = min(count, rows * n_envs) // n_envs
    laid = {
        key: a[count - kept * n_envs :].reshape(kept, n_envs, *a.shape[1:])
        for key, a in flat.items()
    }
    return laid, kept % rows, kept == rows


def q_parameter_count(net_arch: list[int], observation_size: int, outputs: int) -> int:
    """Weights and biases of one Q network: an MLP of ``net_arch`` to ``outputs``."""
    sizes = [observation_size, *net_arch, outputs]
    return sum(n_in * n_out + n_out for n_in, n_out in itertools.pairwise(sizes))


def buffer_bytes_per_step(observation_size: int, num_actions: int) -> int:
    """Bytes one transition takes in the replay buffer: two float32 observations,
    the next mask (one byte an action), an int64 action and three float32 numbers."""
    return 8 * observation_size + num_actions + 8 + 12
