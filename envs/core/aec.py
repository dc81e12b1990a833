"""The AEC base class every flockgym env derives from.

It implements the contract of ``docs/api.md`` once, for all games: agents
``player_0..player_{n-1}``, dict observations with an exact ``int8`` action
mask, validated options, deterministic seeding, the three reward modes, the
``raise``/``penalize`` treatment of illegal actions, action strings,
``scores``, ``view``, text rendering and a JSON ``state_dict`` round trip.

A game subclass supplies the rules engine and the observation encoding through
the hooks marked "game hook" below; it never re-implements the AEC bookkeeping.
"""

from __future__ import annotations

import json
import math
import operator
from abc import abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from .errors import FlockgymError, IllegalActionError, OptionError, StateDictError
from .game import NO_PLAYER, GameEngine
from .options import Option, common_options, resolve_options
from .reader import InputError, parse_json
from .rewards import rank_rewards, score_deltas, win_rewards
from .rng import copy_rng, generator_in_state, make_rng
from .validate import json_problem, short_repr

STATE_FORMAT = "flockgym-state"
STATE_VERSION = 2
MAX_STEPS_SAVED = 10**12
"""The most applied actions a saved state may count (a game is far shorter)."""


def as_json(value: Any) -> Any:
    """``value`` as it comes back from JSON (tuples become lists), for comparing
    saved options with live ones."""
    return json.loads(json.dumps(value))


def _json_snapshot(data: dict[str, Any]) -> Any:
    """A copy of ``data`` as JSON gives it back; a :class:`StateDictError` names
    the first field that is not JSON data (an int past Python's digit limit, a
    non-string key or an object; tuples are taken as lists, as ``state_dict()``
    gives options). ``json.dumps`` does the work at C
    speed; the field-by-field walk runs only when the copy differs. NaN and
    infinities pass here: the game's own checks refuse them by field."""
    try:
        copy = json.loads(json.dumps(data))
    except (TypeError, ValueError, RecursionError):
        copy = None
    if copy is None or copy != data:  # NaN != NaN: the walk tells that case apart
        problem = json_problem(data, floats_ok=True)
        if problem is not None or copy is None:
            raise StateDictError(f"state dict is not JSON data: {problem or 'not serialisable'}")
    return copy


def _saved_json(value: Any) -> Any:
    """A saved option as JSON gives it back, or a marker that equals no option
    when it cannot be JSON at all (an int past Python's digit limit, an object)."""
    try:
        return as_json(value)
    except (TypeError, ValueError, RecursionError):
        return _NOT_JSON


_NOT_JSON = object()


def agent_name(seat: int) -> str:
    """Agent id of a seat: seat order is agent order."""
    return f"player_{seat}"


def check_seed(seed: Any) -> None:
    """Refuse a seed NumPy would reject or silently reinterpret (``'abc'``, ``1.5``,
    ``True``, a negative number), naming what is allowed."""
    if seed is None:
        return
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise OptionError(f"seed {seed!r:.60} is not allowed; allowed: an integer >= 0 or None")


def finite_number(value: Any, field: str) -> float:
    """A saved reward as a float; a ``StateDictError`` names the field otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise StateDictError(f"{field}: {short_repr(value)} is not a number")
    try:
        number = float(value)
    except OverflowError:
        raise StateDictError(f"{field}: {short_repr(value)} is too large") from None
    if not math.isfinite(number):
        raise StateDictError(f"{field}: {short_repr(value)} is not a finite number")
    return number


def strict_bool(value: Any, field: str) -> bool:
    """A saved flag; only ``true``/``false`` are accepted."""
    if not isinstance(value, bool):
        raise StateDictError(f"{field}: {short_repr(value)} is not true or false")
    return value


class FlockAECEnv(AECEnv):
    """Shared AEC machinery; see the module docstring.

    Class attributes a game sets: ``env_id``, ``player_counts``,
    ``default_players``, ``default_max_steps`` (the default of the common
    ``max_steps`` cap: far above any normal game), ``game_options`` (its own
    :class:`Option` rows), ``option_samples`` (a spread of game-option dicts
    covering every option value, which the soak and the observation-bounds tests
    play) and ``metadata``.
    """

    env_id: ClassVar[str] = ""
    player_counts: ClassVar[Sequence[int]] = ()
    default_players: ClassVar[int] = 2
    default_max_steps: ClassVar[int | None] = 100_000
    game_options: ClassVar[Sequence[Option]] = ()
    option_samples: ClassVar[tuple[dict[str, Any], ...]] = ({},)
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"],
        "name": "flockgym_base",
        # True only where PettingZoo's aec_to_parallel works: every agent acts once a
        # cycle, in seat order from player_0, and its mask is set while it waits. An
        # AEC env here masks all but the agent to act, so none of them may say True.
        "is_parallelizable": False,
    }

    # ---- construction -------------------------------------------------------

    def __init__(self, **options: Any) -> None:
        super().__init__()
        self.options: dict[str, Any] = resolve_options(self.option_table(), options)
        self._check_option_combination()
        self.num_players: int = self.options["num_players"]
        self.max_steps: int | None = self.options["max_steps"]
        self.render_mode: str | None = self.options["render_mode"]
        self.possible_agents = [agent_name(s) for s in range(self.num_players)]
        self._seat_of = {a: s for s, a in enumerate(self.possible_agents)}
        self.num_actions = self._num_actions()
        obs_size = self._observation_size()
        low, high = self._observation_bounds()
        self._obs_space = spaces.Dict(
            {
                "observation": spaces.Box(low=low, high=high, shape=(obs_size,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(self.num_actions,), dtype=np.int8),
            }
        )
        self._act_space = spaces.Discrete(self.num_actions)
        self.observation_spaces = dict.fromkeys(self.possible_agents, self._obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, self._act_space)
        self.game: GameEngine | None = None
        self._penalized: int | None = None
        self._live = False
        """True while the game runs and nobody is done (no end, cap or penalty):
        then every agent is in ``agents`` with no termination or truncation, and
        ``step``/``last`` skip the checks that only matter once it ends. Set by
        the deal and a load, cleared by ``_finish_if_over`` and ``_penalize``."""
        cls = type(self)
        self._plain_observe = (
            cls.observe is FlockAECEnv.observe and cls.action_mask is FlockAECEnv.action_mask
        )
        """``last`` builds the observation inline unless a subclass overrides
        ``observe`` or ``action_mask`` (then it calls them, as PettingZoo does)."""
        self._rewards_nonzero = True
        self._steps = 0
        self._history_start: tuple[str, Any, Any] | None = None
        self._history: list[tuple[str, Any]] = []

    @classmethod
    def option_samples_for(cls, num_players: int) -> tuple[dict[str, Any], ...]:
        """The option samples to play at ``num_players`` seats: ``option_samples``
        (the soak and the bounds test skip any the env refuses at that count),
        and a game may add samples whose values depend on the seats (one age
        per seat, say) by overriding this."""
        return cls.option_samples

    @classmethod
    def option_table(cls) -> list[Option]:
        """Every option this env accepts: the common ones, then the game's."""
        common = common_options(cls.player_counts, cls.default_players, cls.default_max_steps)
        return common + list(cls.game_options)

    # ---- game hooks ---------------------------------------------------------

    @abstractmethod
    def _num_actions(self) -> int:
        """Size of the Discrete action space for this configuration (game hook)."""

    @abstractmethod
    def _observation_size(self) -> int:
        """Length of the observation vector for this configuration (game hook)."""

    def _observation_bounds(self) -> tuple[float, float]:
        """Bounds of every observation entry (game hook; default 0..1)."""
        return 0.0, 1.0

    @abstractmethod
    def _new_game(self, rng: np.random.Generator, scenario: dict[str, Any]) -> GameEngine:
        """Deal a new game from ``rng``, set up by the ``reset`` options (game hook)."""

    @abstractmethod
    def _game_from_dict(self, data: dict[str, Any]) -> GameEngine:
        """Rebuild an engine saved by ``GameEngine.to_dict`` (game hook)."""

    def _engine_from_python(self, game: GameEngine) -> GameEngine:
        """This env's engine in the state of ``game``, a Python engine a resampler
        drew from a valid state in this process (game hook). A game overrides
        it to skip the loader's checks, which the search would pay once per
        simulation; this default goes through the checked loader."""
        return self._game_from_dict(game.to_dict())

    @abstractmethod
    def _encode_observation(self, seat: int) -> np.ndarray:
        """Observation vector of ``seat`` (game hook). May return a cached array;
        the base copies it before handing it out."""

    @abstractmethod
    def view(self, agent: str) -> dict[str, Any]:
        """What ``agent`` may see, as JSON types (game hook)."""

    @abstractmethod
    def _render_text(self, seat: int | None) -> str:
        """Text table from ``seat``'s point of view, or all of it for ``None`` (game hook)."""

    def _on_new_game(self) -> None:
        """Called after ``reset`` and ``load_state_dict`` (game hook: drop caches that
        belong to the previous game object)."""

    def _check_option_combination(self) -> None:
        """Refuse option sets that are fine one by one but make a game impossible
        (game hook: raise :class:`OptionError` naming the options and why).
        ``self.options`` holds every option, validated alone, when it is called."""

    # ---- PettingZoo API -----------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game. ``seed`` reseeds; without it the previous game's
        generator continues, so a sequence of resets is reproducible from the
        first seed. ``options`` sets up a scenario (see the game's docs)."""
        check_seed(seed)
        if options is not None and not isinstance(options, dict):
            raise OptionError(
                f"reset options must be a dict (or None), got {type(options).__name__} "
                f"{options!r:.60}"
            )
        if seed is not None:
            rng = make_rng(int(seed))
        elif self.game is not None:
            # A copy: if the deal fails, the previous game and its generator are untouched.
            rng = copy_rng(self.game.rng)
        else:
            rng = make_rng(None)
        self._deal_from(rng, dict(options or {}))

    def _deal_from(self, rng: np.random.Generator, scenario: dict[str, Any]) -> None:
        """The new game of :meth:`reset`, dealt from ``rng`` (and remembered as the
        start of the history :meth:`information_state_string` replays)."""
        # The generator's state (a dict of ints), not a copy of the generator:
        # building a generator costs more than reading its state, and only
        # information_state_string ever replays the deal (see _replay_start).
        start = ("deal", rng.bit_generator.state, dict(scenario))
        self.game = self._new_game(rng, dict(scenario))
        self._history_start, self._history = start, []
        self._penalized = None
        self._steps = 0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self._rewards_nonzero = True
        self._live = True
        self._on_new_game()
        self._finish_if_over(self.game.scores())
        self.agent_selection = self._selection_after(0)

    def step(self, action: Any) -> None:
        """PettingZoo's ``step``: the running game's path first (the hot loop of
        training and the benchmarks), each check made once; the general path
        (dead steps, penalties, a game that ended) is :meth:`_step_general`."""
        if not self._live:
            self._step_general(action)
            return
        agent = self.agent_selection
        game = self.game
        assert game is not None  # live implies a dealt game
        seat = self._seat_of[agent]
        num_actions = self.num_actions
        self._cumulative_rewards[agent] = 0.0  # before the checks, as PettingZoo's envs do
        if (
            type(action) is int  # the common case; others go through the full checks
            and 0 <= action < num_actions
            and game.is_legal_id(action, num_actions)
        ):
            action_id: int = action
        else:
            checked = self._validated_action_id(agent, action)
            if checked is None:
                self._step_general(action)  # the penalty: the general path
                return
            action_id = checked
        rewards_set = True
        if self.options["reward"] == "score":
            before = game.scores()
            game.apply_action(action_id)
            self._steps += 1
            deltas = score_deltas(before, game.scores())
            self.rewards = {a: deltas[s] for s, a in enumerate(self.possible_agents)}
        else:
            game.apply_action(action_id)
            self._steps += 1
            if self._rewards_nonzero:
                self.rewards = dict.fromkeys(self.agents, 0.0)
            else:
                rewards_set = False
        max_steps = self.max_steps
        if (
            game.is_over()
            or (max_steps is not None and self._steps >= max_steps)
            or game.is_truncated()
        ):
            self._finish_if_over(game.scores())
            rewards_set = True
        self._history.append((agent, action))
        next_seat = game.current_player()
        if next_seat == NO_PLAYER or self._penalized is not None:
            next_seat = (seat + 1) % self.num_players
        self.agent_selection = self.possible_agents[next_seat]
        if rewards_set:
            self._rewards_nonzero = any(self.rewards.values())
            if self._rewards_nonzero:
                self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _step_general(self, action: Any) -> None:
        """``step`` with every check: a dead agent's step, an illegal action, a
        game that is over or cut short (the path the running game bypasses)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            self._history.append((agent, None))
            return
        game = self._require_game()
        seat = self._seat_of[agent]
        self._cumulative_rewards[agent] = 0.0
        action_id = self._validated_action_id(agent, action)
        # Most steps of most games pay nothing: when the rewards were all zero
        # and nothing below sets them, skip the bookkeeping.
        rewards_set = True
        if action_id is None:
            self._penalize(seat)
        else:
            score_mode = self.options["reward"] == "score"
            before = game.scores() if score_mode else None
            game.apply_action(action_id)
            self._steps += 1
            if before is not None:
                deltas = score_deltas(before, game.scores())
                self.rewards = {a: deltas[s] for s, a in enumerate(self.possible_agents)}
            elif self._rewards_nonzero:
                self.rewards = dict.fromkeys(self.agents, 0.0)
            else:
                rewards_set = False
            if game.is_over() or self.is_truncated():
                self._finish_if_over(game.scores())
                rewards_set = True
        self._history.append((agent, action))
        self.agent_selection = self._selection_after(seat + 1)
        if rewards_set:
            self._rewards_nonzero = any(self.rewards.values())
            if self._rewards_nonzero:
                self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last``; while the game runs it builds the observation
        of the agent to act inline (the same dict :meth:`observe` returns)."""
        agent = self.agent_selection
        assert agent is not None
        if not observe:
            observation = None
        elif self._live and self._plain_observe:
            game = self.game
            assert game is not None
            seat = self._seat_of[agent]
            if game.current_player() == seat:
                mask = game.legal_mask(self.num_actions).copy()
            else:
                mask = np.zeros(self.num_actions, dtype=np.int8)
            observation = {
                "observation": self._encode_observation(seat).copy(),
                "action_mask": mask,
            }
        else:
            observation = self.observe(agent)
        return (
            observation,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        mask = self.action_mask(agent)  # asks for reset first, or names the agents
        observation = self._encode_observation(self.seat_of(agent)).copy()
        return {"observation": observation, "action_mask": mask}

    def action_mask(self, agent: str) -> np.ndarray:
        """``observe(agent)["action_mask"]`` without encoding the observation: for
        bots that read only the mask (batched self-play asks it of its opponents)."""
        game = self.game if self.game is not None else self._require_game()
        seat = self.seat_of(agent)
        if (
            self._penalized is None
            and game.current_player() == seat
            and not (self.terminations.get(agent) or self.truncations.get(agent))
        ):
            return game.legal_mask(self.num_actions).copy()
        return np.zeros(self.num_actions, dtype=np.int8)

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        game = self._require_game()
        if self.render_mode == "human":
            text = self._render_text(None)
            print(text)
            return None
        seat = game.current_player()
        return self._render_text(seat if seat != NO_PLAYER else None)

    def close(self) -> None:
        pass

    # ---- the flockgym contract beyond PettingZoo ---------------------------

    def seat_of(self, agent: str) -> int:
        """The seat of an agent id; a ``ValueError`` names the agents of this env."""
        try:
            return self._seat_of[agent]
        except (KeyError, TypeError):
            raise ValueError(
                f"unknown agent {agent!r}; this env's agents are {', '.join(self.possible_agents)}"
            ) from None

    @property
    def scores(self) -> dict[str, float]:
        """Game points per agent (the score sheet), separate from RL rewards."""
        game = self._require_game()
        return dict(zip(self.possible_agents, game.scores(), strict=True))

    @property
    def winners(self) -> list[str]:
        """Agents that won (several on a tie); empty while the game is running and
        after a truncation (a game cut short has no winner)."""
        game = self._require_game()
        if not game.is_over():
            return []
        return [agent_name(s) for s in game.winners()]

    @property
    def steps(self) -> int:
        """Actions applied since the last reset (what ``max_steps`` caps)."""
        return self._steps

    def is_truncated(self) -> bool:
        """True when the game was cut short: by the ``max_steps`` cap or by a
        rule-level limit of the engine (``GameEngine.is_truncated``)."""
        game = self._require_game()
        if game.is_over():
            return False
        capped = self.max_steps is not None and self._steps >= self.max_steps
        return capped or game.is_truncated()

    def legal_actions(self, agent: str | None = None) -> list[int]:
        """Legal action ids of ``agent`` (default: the agent to act); empty if not its turn."""
        game = self._require_game()
        seat = self.seat_of(agent or self.agent_selection)
        if self._penalized is not None or game.current_player() != seat:
            return []
        return list(game.legal_actions())

    def action_to_string(self, agent: str, action: int) -> str:
        """Readable name of action id ``action`` for ``agent``."""
        self._check_action_range(action)
        return self._require_game().action_to_string(self.seat_of(agent), int(action))

    def string_to_action(self, agent: str, text: str) -> int:
        """Action id of a readable action (inverse of :meth:`action_to_string`)."""
        if not isinstance(text, str):
            raise FlockgymError(
                f"an action string must be a str, got {type(text).__name__} {text!r:.40}; "
                f"e.g. {self._legal_strings()[:3] or '(see the env docs)'}"
            )
        return self._require_game().string_to_action(self.seat_of(agent), text)

    def state_dict(self) -> dict[str, Any]:
        """The full state (engine, RNG, AEC bookkeeping) as JSON types."""
        game = self._require_game()
        return {
            "format": STATE_FORMAT,
            "version": STATE_VERSION,
            "env": self.env_id,
            "options": {k: v for k, v in self.options.items() if k != "render_mode"},
            "game": game.to_dict(),
            "aec": {
                "agents": list(self.agents),
                "agent_selection": self.agent_selection,
                "rewards": dict(self.rewards),
                "cumulative_rewards": dict(self._cumulative_rewards),
                "terminations": dict(self.terminations),
                "truncations": dict(self.truncations),
                "skip_agent_selection": self._skip_agent_selection,
                "penalized": self._penalized,
                "steps": self._steps,
            },
        }

    def load_state_dict(self, data: dict[str, Any]) -> None:
        """Restore a state saved by :meth:`state_dict`; the continuation is identical.

        Raises :class:`StateDictError` (a ``ValueError``) naming what is wrong when
        ``data`` is not such a state, or was saved with options that change the
        game or its spaces. Options that do not (``reward``, ``illegal_action``,
        ``render_mode``) stay this env's own: a game saved while training with
        point rewards can be continued for a win-reward evaluation.
        """
        self._check_state_header(data)
        snapshot = _json_snapshot(data)
        game = self._game_from_dict(data["game"])
        bookkeeping = self._validated_aec(data.get("aec"), game)
        # Everything is checked: only now does the env change.
        self.game = game
        self.agents = bookkeeping["agents"]
        self.rewards = bookkeeping["rewards"]
        self._cumulative_rewards = bookkeeping["cumulative_rewards"]
        self.terminations = bookkeeping["terminations"]
        self.truncations = bookkeeping["truncations"]
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = bookkeeping["agent_selection"]
        self._penalized = bookkeeping["penalized"]
        self._skip_agent_selection = bookkeeping["skip_agent_selection"]
        self._steps = bookkeeping["steps"]
        self._rewards_nonzero = True
        self._live = self._penalized is None and not (game.is_over() or self.is_truncated())
        self._history_start, self._history = ("state", snapshot, None), []
        self._on_new_game()

    def load_state_json(self, text: str | bytes) -> None:
        """Restore a state from its JSON text (``json.dumps(env.state_dict())``),
        read by the project's reader: a number past its digit limit or a nesting
        past its depth limit is a :class:`StateDictError` naming the limit, where
        ``json.loads`` would raise a bare ``ValueError`` or ``RecursionError``.
        Then exactly :meth:`load_state_dict`."""
        try:
            data = parse_json(text, "state JSON")
        except InputError as err:
            raise StateDictError(str(err)) from None
        if not isinstance(data, dict):
            raise StateDictError(f"state JSON: a state is a JSON object, got {type(data).__name__}")
        self.load_state_dict(data)

    def clone(self) -> FlockAECEnv:
        """An independent copy of this raw env in the same state (engine, generator,
        AEC bookkeeping, and the history behind :meth:`information_state_string`):
        stepping one never changes the other, and both continue identically. For
        search and debugging code (OpenSpiel's ``State.clone``)."""
        other = type(self)(**self.options)
        if self.game is not None:
            other.load_state_dict(json.loads(json.dumps(self.state_dict())))
            other._history_start = self._history_start
            other._history = list(self._history)
        return other

    def observation_string(self, agent: str) -> str:
        """What ``agent`` observes now, as text (OpenSpiel's ``observation_string``):
        the game's text rendering from that seat, which shows only what the seat
        may see (its own hand, the public table)."""
        self._require_game()
        return self._render_text(self.seat_of(agent))

    def information_state_string(self, agent: str) -> str:
        """Everything ``agent`` has observed since the game began, as text
        (OpenSpiel's ``information_state_string``, with perfect recall).

        One line per change of the agent's :meth:`view` (canonical JSON: its own
        cards, the public table, whatever the rules let it see), from the deal
        (or the state it was loaded from) to now, each of the agent's own moves
        named between them. It is built only from that agent's views and its own
        actions, so it depends only on what that agent could see: two histories
        the agent cannot tell apart give the same string. It is computed by
        replaying the game from its start (cost: the game's length in steps).
        """
        seat = self.seat_of(agent)
        replica = self._replay_start()
        lines: list[str] = []
        last = None

        def note() -> None:
            nonlocal last
            seen = json.dumps(replica.view(agent), sort_keys=True, separators=(",", ":"))
            if seen != last:
                lines.append(seen)
                last = seen

        note()
        for mover, action in self._history:
            if mover == agent and action is not None:
                move = replica._require_game().action_to_string(seat, int(action))
                lines.append(f"{agent} plays {move}")
            replica.agent_selection = mover
            replica.step(action)
            note()
        return "\n".join(lines)

    def _replay_start(self) -> FlockAECEnv:
        """A fresh env at the start of this game's history (its deal, or the state
        it was loaded from)."""
        self._require_game()
        replica = type(self)(**{**self.options, "render_mode": None})
        assert self._history_start is not None
        kind, payload, scenario = self._history_start
        if kind == "state":
            replica.load_state_dict(payload)
        else:
            replica._deal_from(generator_in_state(payload), scenario)
        return replica

    def _validated_aec(self, aec: Any, game: GameEngine) -> dict[str, Any]:
        """The AEC section of a state dict, checked field by field against the
        rebuilt ``game`` (whose turn it is, whether it is over) and converted;
        a :class:`StateDictError` names the first field that is wrong."""
        if not isinstance(aec, dict):
            raise StateDictError("state dict has no 'aec' section (dict)")
        expected = {
            "agents",
            "agent_selection",
            "rewards",
            "cumulative_rewards",
            "terminations",
            "truncations",
            "skip_agent_selection",
            "penalized",
            "steps",
        }
        missing = sorted(expected - set(aec))
        unknown = sorted(set(aec) - expected)
        if missing or unknown:
            raise StateDictError(
                f"aec: missing field(s) {missing or 'none'}, unknown field(s) "
                f"{unknown or 'none'}; expected exactly {sorted(expected)}"
            )
        agents = self._validated_agent_list(aec["agents"])
        out: dict[str, Any] = {"agents": agents}
        for key in ("rewards", "cumulative_rewards"):
            out[key] = self._validated_per_agent(aec[key], key, agents, finite_number)
        for key in ("terminations", "truncations"):
            out[key] = self._validated_per_agent(aec[key], key, agents, strict_bool)
        out["penalized"] = self._validated_seat_or_none(aec["penalized"], "penalized")
        steps = aec["steps"]
        if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
            raise StateDictError(f"aec.steps: {short_repr(steps)} is not an integer >= 0")
        if self.max_steps is not None and steps > self.max_steps:
            raise StateDictError(
                f"aec.steps: {short_repr(steps)} is past this env's max_steps={self.max_steps}"
            )
        if steps > MAX_STEPS_SAVED:
            raise StateDictError(f"aec.steps: {short_repr(steps)} is more than {MAX_STEPS_SAVED}")
        out["steps"] = steps
        for key in ("agent_selection", "skip_agent_selection"):
            value = aec[key]
            is_agent = isinstance(value, str) and value in self._seat_of
            if not (value is None and key == "skip_agent_selection") and not is_agent:
                raise StateDictError(
                    f"aec.{key}: {short_repr(value)} is not an agent of this env "
                    f"({self.possible_agents})"
                )
            out[key] = value
        self._check_aec_against_game(out, game)
        return out

    def _validated_agent_list(self, agents: Any) -> list[str]:
        if not isinstance(agents, list) or any(
            not isinstance(a, str) or a not in self._seat_of for a in agents
        ):
            raise StateDictError(
                f"aec.agents: {short_repr(agents)} must be a list of this env's agents "
                f"({self.possible_agents})"
            )
        if agents != [a for a in self.possible_agents if a in agents]:
            raise StateDictError(
                f"aec.agents: {agents} must name each agent at most once, in seat order"
            )
        return list(agents)

    def _validated_per_agent(
        self, values: Any, key: str, agents: list[str], convert: Any
    ) -> dict[str, Any]:
        if not isinstance(values, dict) or set(values) != set(agents):
            shown = sorted(map(str, values)) if isinstance(values, dict) else values
            raise StateDictError(
                f"aec.{key}: must be a dict with exactly the live agents {agents} as keys, "
                f"got {short_repr(shown)}"
            )
        return {a: convert(values[a], f"aec.{key}.{a}") for a in agents}

    def _validated_seat_or_none(self, value: Any, key: str) -> int | None:
        if value is None:
            return None
        is_seat = isinstance(value, int) and not isinstance(value, bool)
        if not (is_seat and 0 <= value < self.num_players):
            raise StateDictError(
                f"aec.{key}: {short_repr(value)} must be None or a seat 0..{self.num_players - 1}"
            )
        return value

    def _check_aec_against_game(self, aec: dict[str, Any], game: GameEngine) -> None:
        """The bookkeeping must say what the game says: live agents are all seats
        until the game ends, the selection is the engine's player to act, and
        termination/truncation follow from the game and the step cap."""
        over = game.is_over()
        capped = self.max_steps is not None and aec["steps"] >= self.max_steps
        truncated = not over and (capped or game.is_truncated())
        penalized = aec["penalized"] is not None
        done = over or truncated or penalized
        agents = aec["agents"]
        if not done:
            if agents != self.possible_agents:
                raise StateDictError(
                    f"aec.agents: {agents} while the game is running; expected every agent"
                )
            expected = agent_name(game.current_player())
            if aec["agent_selection"] != expected:
                raise StateDictError(
                    f"aec.agent_selection: {short_repr(aec['agent_selection'])}, but the game has "
                    f"{expected} to act"
                )
        elif agents and aec["agent_selection"] not in agents:
            raise StateDictError(
                f"aec.agent_selection: {short_repr(aec['agent_selection'])} is not among "
                f"the agents left ({agents})"
            )
        want_term = over or penalized
        want_trunc = truncated and not penalized
        for agent in agents:
            if aec["terminations"][agent] != want_term or aec["truncations"][agent] != want_trunc:
                raise StateDictError(
                    f"aec.terminations/truncations.{agent}: "
                    f"{aec['terminations'][agent]}/{aec['truncations'][agent]}, but the game "
                    f"is {'over' if over else 'truncated' if truncated else 'running'}"
                    f"{' (penalized)' if penalized else ''}: expected {want_term}/{want_trunc}"
                )

    # ---- internals ----------------------------------------------------------

    def _require_game(self) -> GameEngine:
        if self.game is None:
            raise RuntimeError(f"{self.env_id}: call reset() before using the env")
        return self.game

    def _check_state_header(self, data: Any) -> None:
        if not isinstance(data, dict):
            raise StateDictError(f"state dict must be a dict, got {type(data).__name__}")
        if data.get("format") != STATE_FORMAT or data.get("version") != STATE_VERSION:
            raise StateDictError(
                f"not a flockgym state (format {short_repr(data.get('format'))}, version "
                f"{short_repr(data.get('version'))}); expected format {STATE_FORMAT!r} "
                f"version {STATE_VERSION}"
            )
        if data.get("env") != self.env_id:
            raise StateDictError(
                f"state dict is for env {short_repr(data.get('env'))}, this env is {self.env_id!r}"
            )
        saved = data.get("options")
        if not isinstance(saved, dict):
            raise StateDictError("state dict has no 'options' section (dict)")
        structural = self._structural_options()
        differing = sorted(
            k for k, mine in structural.items() if k in saved and _saved_json(saved[k]) != mine
        )
        missing = sorted(set(structural) - set(saved))
        if differing or missing:
            detail = ", ".join(
                f"{k}: saved {short_repr(saved.get(k))}, env {self.options.get(k)!r}"
                for k in differing + missing
            )
            raise StateDictError(
                f"state dict was saved with other game options ({detail}); "
                f"create the env with the same options to load it"
            )
        if "game" not in data:
            raise StateDictError("state dict has no 'game' section")

    def _structural_options(self) -> dict[str, Any]:
        """This env's options that a saved state must share, as JSON types (built
        once: every load compares against them)."""
        cached = getattr(self, "_structural_cache", None)
        if cached is None:
            table = self.option_table()
            cached = {o.name: as_json(self.options.get(o.name)) for o in table if o.affects_spaces}
            self._structural_cache = cached
        return cached

    def _check_action_range(self, action: Any) -> int:
        """``action`` as a plain int if it is an integer id in range; else raise."""
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(
                self.agent_selection,
                action,
                f"not an integer action id in 0..{self.num_actions - 1}",
                self._legal_strings(),
            )
        if not 0 <= int(action) < self.num_actions:
            raise IllegalActionError(
                self.agent_selection,
                action,
                f"out of range 0..{self.num_actions - 1}",
                self._legal_strings(),
            )
        return operator.index(action)

    def _validated_action_id(self, agent: str, action: Any) -> int | None:
        """The action as an int if legal; None if illegal under 'penalize'; else raise.

        Any integer type is accepted (``int``, NumPy integers, an ``IntEnum``); a
        ``bool`` is not, though Python counts it as an int."""
        game = self.game if self.game is not None else self._require_game()
        if (
            (type(action) is int or isinstance(action, np.integer))  # the common case
            and 0 <= action < self.num_actions
            and game.legal_mask(self.num_actions)[action]
        ):
            return int(action)
        penalize = self.options["illegal_action"] == "penalize"
        try:
            action_id = self._check_action_range(action)
        except IllegalActionError:
            if penalize:
                return None
            raise
        if game.legal_mask(self.num_actions)[action_id]:
            return action_id
        if penalize:
            return None
        seat = self._seat_of[agent]
        raise IllegalActionError(
            agent, action_id, game.action_to_string(seat, action_id), self._legal_strings()
        )

    def _legal_strings(self) -> list[str]:
        game = self._require_game()
        seat = game.current_player()
        if seat == NO_PLAYER:
            return []
        return [game.action_to_string(seat, a) for a in game.legal_actions()]

    def _penalize(self, seat: int) -> None:
        """End the game: -1 to the offender, 0 to the others (TerminateIllegalWrapper)."""
        self._penalized = seat
        self._live = False
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent_name(seat)] = -1.0
        self.terminations = dict.fromkeys(self.agents, True)

    def _finish_if_over(self, scores: list[float]) -> None:
        """At game end: mark every agent done and pay the final reward. A game cut
        short (the ``max_steps`` cap, an engine limit) is a truncation: nobody won,
        so no win/rank reward is paid."""
        game = self._require_game()
        over, truncated = game.is_over(), self.is_truncated()
        if not (over or truncated):
            return
        if over:
            mode = self.options["reward"]
            if mode == "win":
                final = win_rewards(self.num_players, game.winners())
            elif mode == "rank":
                final = rank_rewards(scores)
            else:
                final = [0.0] * self.num_players
            for seat, value in enumerate(final):
                agent = agent_name(seat)
                self.rewards[agent] = self.rewards.get(agent, 0.0) + value
        self._live = False
        self.terminations = dict.fromkeys(self.agents, over)
        self.truncations = dict.fromkeys(self.agents, truncated)

    def _selection_after(self, next_seat: int) -> str:
        """The agent to select next: the engine's player, or any seat once done."""
        game = self.game if self.game is not None else self._require_game()
        seat = game.current_player()
        if self._penalized is not None or seat == NO_PLAYER:
            return self.possible_agents[next_seat % self.num_players]
        return self.possible_agents[seat]
