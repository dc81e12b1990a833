"""Batched self-play: every game of a rollout in one process, every opponent
decision of a step in one batch.

:class:`BatchedSelfPlayVecEnv` is a stable-baselines3 ``VecEnv`` of ``n_envs``
self-play games (``vec_env: batched`` in a config). From the learner's side it
is exactly ``DummyVecEnv`` over :class:`~.selfplay.SelfPlayEnv`: game ``i``
draws its seats, opponents, bot seeds and deals from the same generator in the
same order as the ``i``-th ``SelfPlayEnv`` would (seeded ``seed + i`` by
``VecEnv.seed``), its bots make the same moves, the learner gets the same
observations, masks, rewards, ``terminal_observation`` and ``game_result``
infos, and finished games are dealt again in the same step
(``tests/training/test_train_batched.py`` compares the trajectories).

What changes is how the opponents' moves are made. A ``DummyVecEnv`` step asks
each env in turn to play its opponents one move at a time: a snapshot or
checkpoint opponent then runs the network once per move. Here the opponents
of every game move in waves: at each wave, every game waiting for an
opponent's move contributes one decision, the decisions of each policy are
made in one forward pass (:meth:`~flockgym.bots.policies.Policy.act_batch`, on float64
weights for small nets), bots that read the structured ``view`` get it and the others do
not; a bot with an ``act_on_env(env, agent, observation)`` method is called with
the raw env instead, to read only what it needs (it must move as ``act`` would).
The learner's observations and masks are built once per step, not once for the
observation and again for ``action_masks()``.

Two engines play the games:

* ``scalar`` (every registered env): one AEC env per game, the env's own
  engine, stepped through :class:`~.selfplay.SelfPlayEnv`'s own methods;
* ``vector`` (envs whose registry entry names a vector engine, e.g. Asrus): the
  engine of the env's adapter (:mod:`~.vector_engines`) plays all the games in
  numpy arrays; since its turns are simultaneous, every
  opponent of every game decides at the start of a turn in one batch (the
  vectorised heuristic bot for all heuristic seats at once, one forward pass
  per policy for all its seats, the random bot's draw per seat), and the seats
  are committed in the AEC order. With ``dealing: exact`` it deals and plays the
  scalar env's games card for card; ``dealing: fast`` deals each game in one
  generator call (the same uniform deals, other cards for a given seed).

``engine: auto`` takes the vector engine where the env has one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from flockgym.bots.policies import PolicyBot
from flockgym.envs import OptionError
from flockgym.envs.core.bots import random_legal_actions
from flockgym.envs.core.rewards import win_reward_table
from flockgym.training.selfplay import MAX_REDEALS, SelfPlayEnv, leads
from flockgym.training.vector_engines import DEALINGS, is_sequential, resolve_engine, vector_adapter


class BatchedSelfPlayVecEnv(VecEnv):
    """``n_envs`` self-play games stepped together (see the module docstring).

    ``env_kwargs`` are :class:`~.selfplay.SelfPlayEnv`'s arguments but
    ``seat_offset`` (game ``i`` starts at seat ``i``, as in ``make_vec_env``).
    ``first_index`` numbers the games from there instead of 0: a worker holding
    games 4 to 7 of a larger batch (training/parallel.py) staggers their seats as
    the whole batch would."""

    def __init__(
        self,
        n_envs: int,
        env_kwargs: dict[str, Any],
        engine: str = "auto",
        dealing: str = "exact",
        first_index: int = 0,
    ) -> None:
        if dealing not in DEALINGS:
            raise OptionError(f"dealing={dealing!r}; allowed: {', '.join(DEALINGS)}")
        self.slots = [SelfPlayEnv(seat_offset=first_index + i, **env_kwargs) for i in range(n_envs)]
        first = self.slots[0]
        super().__init__(n_envs, first.observation_space, first.action_space)
        self.engine = resolve_engine(first.env_id, engine)
        if self.engine == "vector" and first.advisor_kind != "none":
            raise OptionError(
                f"advisor={first.advisor_kind!r} with engine={self.engine!r}: the vectorised "
                "engine builds no views for the advisor; allowed with an advisor: engine='scalar'"
            )
        if self.engine == "vector" and is_sequential(first.env_id):
            self.games: ScalarGames | VectorGames = SequentialVectorGames(self.slots, dealing)
        elif self.engine == "vector":
            self.games = VectorGames(self.slots, dealing)
        else:
            self.games = ScalarGames(self.slots)
        self._actions = np.zeros(n_envs, dtype=np.int64)

    # ---- VecEnv ----------------------------------------------------------------------

    def reset(self) -> np.ndarray:
        for slot, seed in zip(self.slots, self._seeds, strict=True):
            if seed is not None:
                slot.reset_generator(seed)
        self.games.start(np.arange(self.num_envs))
        self._reset_seeds()
        self._reset_options()
        observations, masks = (array.copy() for array in self.games.learner_view())
        self.reset_infos = [{"action_mask": mask} for mask in masks]
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        rewards, terminated, truncated = self.games.step(self._actions)
        observations, masks = (array.copy() for array in self.games.learner_view())
        dones = terminated | truncated
        infos: list[dict[str, Any]] = []
        for i in range(self.num_envs):
            info = self.games.result(i) if dones[i] else {}
            info["action_mask"] = masks[i]
            info["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
            if dones[i]:
                info["terminal_observation"] = observations[i]
            infos.append(info)
        ended = np.flatnonzero(dones)
        if ended.size:
            self.games.start(ended)
            observations, masks = (array.copy() for array in self.games.learner_view())
            for i in ended.tolist():
                self.reset_infos[i] = {"action_mask": masks[i]}
        return observations, rewards.astype(np.float32), dones, infos

    def close(self) -> None:
        for slot in self.slots:
            slot.close()

    def action_masks(self) -> np.ndarray:
        """``[n_envs, A]`` bool: the learners' legal moves now (what MaskablePPO asks
        every env for through ``env_method("action_masks")``, built once per step)."""
        return self.games.learner_view()[1].copy()

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [getattr(self.slots[i], attr_name) for i in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        for i in self._get_indices(indices):
            setattr(self.slots[i], attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        chosen = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in chosen]
        return [getattr(self.slots[i], method_name)(*method_args, **method_kwargs) for i in chosen]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]


# ---- the scalar engines ----------------------------------------------------------------


class ScalarGames:
    """Every game an AEC env of its own, inside its :class:`SelfPlayEnv`; the
    opponents of all games move in waves, one decision per waiting game."""

    def __init__(self, slots: list[SelfPlayEnv]) -> None:
        self.slots = slots
        self.observations = np.zeros(
            (len(slots), *slots[0].observation_space.shape), dtype=np.float32
        )
        self.masks = np.zeros((len(slots), slots[0].action_space.n), dtype=bool)

    def start(self, indices: np.ndarray) -> None:
        """New games for the slots listed, each played up to its learner's first
        move (dealt again, as ``SelfPlayEnv.reset`` does, if it ended before)."""
        pending = [int(i) for i in indices]
        for _ in range(MAX_REDEALS):
            for i in pending:
                self.slots[i]._new_game()
            self.play_opponents(pending)
            again = []
            for i in pending:
                slot = self.slots[i]
                if slot._learner_done():
                    again.append(i)
                else:
                    slot.carried = float(slot.raw._cumulative_rewards[slot.learner])
                    self._observe(i)
            if not again:
                return
            pending = again
        slot = self.slots[pending[0]]
        raise RuntimeError(
            f"{slot.env_id}: {MAX_REDEALS} deals in a row ended before {slot.learner} moved"
        )

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The learners' moves, then the opponents' until each learner's turn or the
        game's end; (rewards, terminated, truncated) per game, as ``SelfPlayEnv.step``."""
        for slot, action in zip(self.slots, actions.tolist(), strict=True):
            slot.game.step(int(action))
        self.play_opponents(range(len(self.slots)))
        count = len(self.slots)
        rewards, terminated, truncated = (
            np.zeros(count),
            np.zeros(count, bool),
            np.zeros(count, bool),
        )
        for i, slot in enumerate(self.slots):
            rewards[i] = slot.learner_reward()
            terminated[i] = bool(slot.raw.terminations[slot.learner])
            truncated[i] = bool(slot.raw.truncations[slot.learner])
            self._observe(i)
        return rewards, terminated, truncated

    def learner_view(self) -> tuple[np.ndarray, np.ndarray]:
        return self.observations, self.masks

    def result(self, i: int) -> dict[str, Any]:
        return self.slots[i]._result()

    def _observe(self, i: int) -> None:
        slot = self.slots[i]
        observed = slot.raw.observe(slot.learner)
        self.observations[i] = slot.learner_input(observed)
        self.masks[i] = observed["action_mask"]

    def play_opponents(self, indices: Sequence[int]) -> None:
        """Waves of opponent moves until every listed game waits for its learner."""
        active = list(indices)
        while active:
            requests = [
                (i, agent) for i in active if (agent := self.slots[i]._next_opponent()) is not None
            ]
            if not requests:
                return
            for (i, _), action in zip(requests, self.decide(requests), strict=True):
                self.slots[i].game.step(int(action))
            active = [i for i, _ in requests]

    def decide(self, requests: list[tuple[int, str]]) -> np.ndarray:
        """One move per (game, agent): each policy's in one forward pass, the other
        bots one by one (with the view only for bots that read it, and only the
        action mask for bots that read nothing else of the observation)."""
        actions = np.zeros(len(requests), dtype=np.int64)
        groups: dict[tuple[int, str], list[tuple[int, np.ndarray, np.ndarray, PolicyBot]]] = {}
        for k, (i, agent) in enumerate(requests):
            slot = self.slots[i]
            bot = slot.bots[agent]
            if slot.opponents_read_observation:
                observation = slot.raw.observe(agent)
            else:
                observation = {"action_mask": slot.raw.action_mask(agent)}
            fast = getattr(bot, "act_on_env", None)
            if fast is not None:  # a bot that builds only the parts of the view it reads
                actions[k] = fast(slot.raw, agent, observation)
                continue
            view = slot.raw.view(agent) if slot.opponents_read_view else {}
            if isinstance(bot, PolicyBot):
                row = (k, bot.network_input(observation, view), observation["action_mask"], bot)
                groups.setdefault((id(bot.policy), bot.play), []).append(row)
            else:
                actions[k] = bot.act(observation, view)
        for members in groups.values():
            bots = [bot for _, _, _, bot in members]
            chosen = bots[0].policy.act_batch(
                np.stack([vector for _, vector, _, _ in members]),
                np.stack([mask for _, _, mask, _ in members]),
                bots[0].play,
                [bot.rng for bot in bots],
            )
            actions[[k for k, _, _, _ in members]] = chosen
        return actions


# ---- a vectorised engine ---------------------------------------------------------------


class VectorGames:
    """All games in one engine of the env's vector-engine adapter
    (:class:`~.vector_engines.VectorEngineAdapter`, turns simultaneous); the
    :class:`SelfPlayEnv` of each slot only makes its draws (seat, opponent, bot
    seeds, deal seed), its own AEC env stays idle."""

    def __init__(self, slots: list[SelfPlayEnv], dealing: str) -> None:
        adapter = vector_adapter(slots[0].env_id)
        self.slots = slots
        count = len(slots)
        self.engine = adapter.engine(count, dealing, slots[0].env_options)
        n = self.n = self.engine.num_players
        self.games = np.arange(count)
        self.learner_seat = np.zeros(count, dtype=np.int64)
        self.kind = [""] * count
        self.heuristic = adapter.heuristic_bot(count, n)
        self.rngs: list[list[np.random.Generator | None]] = [[None] * n for _ in range(count)]
        """Each seat's bot generator, for random and policy opponents."""
        self.planned = np.zeros((count, n), dtype=np.int64)
        """This turn's opponent moves, decided at its start (turns are simultaneous)."""
        self.decided = np.zeros(count, dtype=bool)
        self.earned = np.zeros(count)
        """What the engine paid each learner since its last move."""
        self.carried = np.zeros(count)
        self.scale = np.array([slot.reward_scale for slot in slots])
        self.win_bonus = slots[0].win_bonus
        self.relative = slots[0].relative_reward
        self.standing = np.zeros(count)
        """With ``relative_reward``: each learner's points minus the others' mean when
        it was last paid (or when its game was dealt), as :class:`SelfPlayEnv` keeps it."""
        self.committed_at = adapter.committed_columns(self.engine)
        seats = np.arange(n)
        self.committed_before = (((seats[:, None] + seats[None, :]) % n) < seats[:, None]).astype(
            np.float32
        )
        """[s, rel]: the committed flags seat ``s`` sees when it is to act."""
        self._view: tuple[np.ndarray, np.ndarray] | None = None
        self._outcome: tuple[np.ndarray, np.ndarray] | None = None
        """Winners and scores of every game, read by :meth:`result` until the games change."""

    def start(self, indices: np.ndarray) -> None:
        pending = np.sort(np.asarray(indices, dtype=np.int64))
        for _ in range(MAX_REDEALS):
            seeds = [self._draw(int(b)) for b in pending.tolist()]
            self.engine.reset_games(pending, seeds=seeds)
            if self.relative:
                self.standing[pending] = self.learner_standings()[pending]
            self.decided[pending] = False
            self.earned[pending] = 0.0
            self.advance(pending)
            ended = self.engine.done[pending]
            ready = pending[~ended]
            self.carried[ready] = self.earned[ready]
            self._view = self._outcome = None
            if not ended.any():
                return
            pending = pending[ended]
        slot = self.slots[int(pending[0])]
        raise RuntimeError(
            f"{slot.env_id}: {MAX_REDEALS} deals in a row ended before {slot.learner} moved"
        )

    def _draw(self, b: int) -> int:
        """Game ``b``'s draws for its next episode; its bots reseeded. Returns the deal's seed."""
        slot = self.slots[b]
        participant, seeds, game_seed = slot._draw_game()
        if participant.kind not in ("random", "heuristic", "policy"):
            raise OptionError(
                f"opponent {participant.name!r} ({participant.kind}) cannot be batched on the "
                "vector engine; allowed: random, heuristic and checkpoint opponents"
            )
        slot.participant = participant
        learner = slot.agents.index(slot.learner)
        self.learner_seat[b] = learner
        self.kind[b] = participant.kind
        others = np.array([s for s in range(self.n) if s != learner])
        if participant.kind == "heuristic":
            self.heuristic.reseed(np.full(others.size, b), others, seeds[others])
        else:
            from flockgym.envs.core.rng import make_rng

            for s in others.tolist():
                self.rngs[b][s] = make_rng(int(seeds[s]))
        return game_seed

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        engine, games = self.engine, self.games
        self.earned[:] = 0.0
        result = engine.step(actions.astype(np.int64))
        self.earned += result.rewards[games, self.learner_seat]
        self.decided[engine.committed == 0] = False
        self.advance(games)
        return self.learner_rewards()

    def learner_rewards(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rewards, terminated, truncated) of every game's learner after a step:
        what the engine paid it since its last move (or its lead's change), scaled,
        plus the win bonus in the games just over, as :class:`SelfPlayEnv` pays."""
        engine = self.engine
        terminated = engine.over | (engine.penalized >= 0)
        if self.relative:
            now = self.learner_standings()
            earned = now - self.standing + np.where(engine.penalized >= 0, self.earned, 0.0)
            self.standing = now
        else:
            earned = self.earned + self.carried
        rewards = earned * self.scale
        self.carried[:] = 0.0
        self._view = self._outcome = None
        if self.win_bonus:
            rewards += self.win_bonus * self.learner_win_rewards(engine.over)
        return rewards, terminated, engine.truncated.copy()

    def learner_standings(self) -> np.ndarray:
        """Each game's learner's :func:`~.selfplay.leads` now."""
        return leads(self.engine.scores(), self.learner_seat)

    def learner_win_rewards(self, over: np.ndarray) -> np.ndarray:
        """Each learner's win reward (as ``reward: win`` pays it) in the games just
        ``over``, 0 elsewhere."""
        table = win_reward_table(self.engine.winners())
        return np.where(over, table[self.games, self.learner_seat], 0.0)

    def advance(self, games: np.ndarray) -> None:
        """Commit the opponents' seats of ``games`` until each is at its learner's
        seat or over: first the seats after the learner's (their moves were decided
        at the turn's start), then, once those turns are resolved, every opponent
        move of the new turns in one batch, then the seats before the learner's;
        one engine call for each group of seats. Whenever a seat's move is decided,
        it reads the same state and its own generator, so it is the move its bot
        makes on its turn."""
        engine = self.engine
        until = np.zeros(len(self.slots), dtype=np.int64)
        while True:
            live = games[~engine.done[games]]
            behind = live[engine.committed[live] != self.learner_seat[live]]
            ready = behind[self.decided[behind]]
            if not ready.size:
                undecided = live[~self.decided[live]]
                if not undecided.size:
                    return
                self.decide(undecided)
                continue
            committed, seat = engine.committed[ready], self.learner_seat[ready]
            until[ready] = np.where(committed < seat, seat, self.n)
            result = engine.step_seats(self.planned, until, games=ready)
            self.earned[ready] += result.rewards[ready, seat]
            resolved = ready[engine.committed[ready] == 0]
            self.decided[resolved] = False

    def decide(self, games: np.ndarray) -> None:
        """Every opponent's move this turn in ``games``: the heuristic seats in one
        call of the vectorised bot, each policy's seats in one forward pass, the
        random seats by their own generators."""
        engine, n = self.engine, self.n
        masks = engine.masks()
        seats = np.tile(np.arange(n), (games.size, 1))
        opponents = seats != self.learner_seat[games][:, None]
        kinds = np.array([self.kind[b] for b in games.tolist()])
        heuristic = kinds == "heuristic"
        if heuristic.any():
            rows = np.repeat(games[heuristic], n - 1)
            at = seats[heuristic][opponents[heuristic]]
            self.planned[rows, at] = self.heuristic.act(engine.views(rows, at))
        random_games = games[kinds == "random"]
        if random_games.size:
            rows = np.repeat(random_games, n - 1)
            at = seats[kinds == "random"][opponents[kinds == "random"]]
            generators = [self.rngs[b][s] for b, s in zip(rows.tolist(), at.tolist(), strict=True)]
            self.planned[rows, at] = random_legal_actions(masks[rows, at], generators)
        policy_games = games[kinds == "policy"]
        if policy_games.size:
            self._decide_policies(policy_games, masks)
        self.decided[games] = True

    def _decide_policies(self, games: np.ndarray, masks: np.ndarray) -> None:
        groups: dict[tuple[int, str], list[tuple[int, int]]] = {}
        for b in games.tolist():
            participant = self.slots[b].participant
            assert participant is not None and participant.policy is not None
            key = (id(participant.policy), participant.play)
            groups.setdefault(key, []).extend(
                (b, s) for s in range(self.n) if s != self.learner_seat[b]
            )
        for members in groups.values():
            rows = np.array([b for b, _ in members])
            at = np.array([s for _, s in members])
            batch = self.engine.observations_of(rows, at)
            batch[:, self.committed_at] = self.committed_before[at]
            participant = self.slots[int(rows[0])].participant
            assert participant is not None and participant.policy is not None
            generators = [self.rngs[b][s] for b, s in members]
            self.planned[rows, at] = participant.policy.act_batch(
                batch, masks[rows, at], participant.play, generators
            )

    def learner_view(self) -> tuple[np.ndarray, np.ndarray]:
        if self._view is None:
            observations = self.engine.observations(self.learner_seat)
            masks = self.engine.masks(self.learner_seat, to_act_only=True).astype(bool)
            self._view = (observations, masks)
        return self._view

    def result(self, b: int) -> dict[str, Any]:
        slot = self.slots[b]
        seat = int(self.learner_seat[b])
        if self._outcome is None:  # every game's, once per step: several end at once
            self._outcome = (self.engine.winners(), self.engine.scores())
        winners = np.flatnonzero(self._outcome[0][b])
        share = 1.0 / len(winners) if seat in winners else 0.0
        return {
            "game_result": {
                "opponent": slot.opponent,
                "seat": seat,
                "win": share,
                "points": float(self._outcome[1][b, seat]),
            }
        }


class SequentialVectorGames(VectorGames):
    """All games in one engine whose seats act one at a time
    (:class:`~.vector_engines.SequentialVectorEngine`, e.g. Astrobirdz): after
    the learners' moves, the opponents move in waves, one move of every game
    waiting for an opponent per wave (the vectorised heuristic for all heuristic
    seats at once, one forward pass per policy, the random bots' draws per seat),
    until each game is at its learner's seat or over. Each opponent decides on
    its own turn from the state it sees then, with its own generator, so with
    ``dealing: exact`` the games are the scalar path's move for move."""

    def __init__(self, slots: list[SelfPlayEnv], dealing: str) -> None:
        super().__init__(slots, dealing)
        self.moves = np.zeros(len(slots), dtype=np.int64)
        self.kinds = np.full(len(slots), "", dtype=object)
        """Each game's opponent kind as an array (read at every wave)."""

    def _draw(self, b: int) -> int:
        seed = super()._draw(b)
        self.kinds[b] = self.kind[b]
        return seed

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        games = self.games
        self.earned[:] = 0.0
        result = self.engine.step(actions.astype(np.int64))
        self.earned += result.rewards[games, self.learner_seat]
        self.advance(games)
        return self.learner_rewards()

    def advance(self, games: np.ndarray) -> None:
        """Opponents' moves in waves until each of ``games`` is at its learner's
        seat or over; what each wave pays the learners is added to ``earned``."""
        engine = self.engine
        while True:
            live = games[~engine.done[games]]
            waiting = live[engine.actor[live] != self.learner_seat[live]]
            if not waiting.size:
                return
            self.moves[waiting] = self.decide_moves(waiting)
            result = engine.step(self.moves, games=waiting, check=False)
            self.earned[waiting] += result.rewards[waiting, self.learner_seat[waiting]]

    def decide_moves(self, games: np.ndarray) -> np.ndarray:
        """The move of the seat to act in each of ``games`` (an opponent's seat)."""
        engine = self.engine
        seats = engine.actor[games]
        moves = np.zeros(games.size, dtype=np.int64)
        kinds = self.kinds[games]
        heuristic = np.flatnonzero(kinds == "heuristic")
        if heuristic.size:
            moves[heuristic] = self.heuristic.act(engine.views(games[heuristic], seats[heuristic]))
        others = np.flatnonzero(kinds != "heuristic")
        if not others.size:
            return moves
        masks = engine.masks()
        rows = np.flatnonzero(kinds == "random")
        if rows.size:
            generators = [
                self.rngs[b][s]
                for b, s in zip(games[rows].tolist(), seats[rows].tolist(), strict=True)
            ]
            moves[rows] = random_legal_actions(masks[games[rows]], generators)
        groups: dict[tuple[int, str], list[int]] = {}
        for k in np.flatnonzero(kinds == "policy").tolist():
            participant = self.slots[int(games[k])].participant
            assert participant is not None and participant.policy is not None
            groups.setdefault((id(participant.policy), participant.play), []).append(k)
        for members in groups.values():
            at = np.array(members)
            b, s = games[at], seats[at]
            participant = self.slots[int(b[0])].participant
            assert participant is not None and participant.policy is not None
            generators = [self.rngs[g][t] for g, t in zip(b.tolist(), s.tolist(), strict=True)]
            moves[at] = participant.policy.act_batch(
                engine.observations_of(b, s), masks[b], participant.play, generators
            )
        return moves

    def learner_view(self) -> tuple[np.ndarray, np.ndarray]:
        if self._view is None:
            observations = self.engine.observations(self.learner_seat)
            masks = self.engine.masks(self.learner_seat).astype(bool)
            self._view = (observations, masks)
        return self._view
