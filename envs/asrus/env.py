"""Asrus: simultaneous number cards (``asrus_v0``).

| | |
| --- | --- |
| Import | ``from flockgym.envs import asrus_v0`` |
| Agents | ``player_0`` .. ``player_{n-1}``, n = 3..9 (default 5) |
| Actions | ``Discrete(195)`` |
| Observation | ``Box(0, 1, (63 + 33n,), float32)`` + ``action_mask`` ``(195,)`` int8 |
| Parallel | native ``asrus_v0.parallel_env()`` |

Every turn each player commits one number card, optionally with one special,
without seeing what the others committed this turn; the AEC env asks the seats
in order ``player_0 .. player_{n-1}`` and resolves the turn at the last one.
The full rules and our rulings are in ``docs/rules/asrus.md``.

Actions
-------
``action = (number - 1) * 13 + slot``, number 1..15, slot:

| slot | meaning | string |
| --- | --- | --- |
| 0 | number card alone | ``"9"`` |
| 1..5 | with special C, B, D, M, R | ``"9+C"`` .. ``"9+R"`` |
| 6..12 | with a joker declared C, B, D, M, R, X (Explosion), T (Triple) | ``"9+J:M"`` |

Observation (from the observer's seat; "rel" = seats in order from the observer:
itself, then the player on its left, ...). All entries lie in [0, 1]:

| field | size | encoding |
| --- | --- | --- |
| hand | 15 | copies of each number 1..15 held, / 8 |
| specials | 6 | own C B D M R joker cards, / 3 |
| destination | 15 | one-hot of the destination number |
| destination_card | 1 | 1 if a destination card lies on the table (0: the 8-player fixed 8) |
| deposit | 1 | deposited points / all points in the game |
| points | n | each player's points / all points in the game (rel) |
| specials_held | n | specials each player holds, / the special pile (10; 13 with jokers) (rel) |
| hand_left | 1 | number cards left in every hand / the largest hand the deck allows |
| committed | n | 1 for players who have committed this turn (rel) |
| last_numbers | 15n | last turn's number card of each player, one-hot (rel) |
| last_specials | 13n | last turn's slot of each player, one-hot (rel) |
| last_kind | 5 | last turn decided by majority, closest, farthest, draw, explosion |
| last_winner | n | last turn's winner, one-hot (rel) |
| last_blackhole | 1 | the last winner's take went to the deposit |
| revealed | 15 | number cards revealed this round, per number, / 8 |
| progress | 2 | turn in round / hand size; finished rounds / rounds (0 if unlimited) |
| lottery_winner | n | who won the last turn's end-of-round lottery (several if shared) (rel) |
| lottery_amount | 1 | what that lottery paid out / all points in the game |

Options: ``num_players``, ``reward``, ``illegal_action``, ``render_mode``,
``max_steps`` (default 100,000: a truncation, see ``docs/api.md``), ``engine``
(below) and the game's ``hand_size``, ``specials_per_player``,
``starting_points``, ``rounds``, ``target``, ``elimination``, ``jokers``,
``removed_numbers``, ``retrogrades``, ``retrograde_deposit``, ``majority_ties``
(``docs/rules/asrus.md``).

Rewards: option ``reward`` = ``win`` (default), ``score`` (points won or lost
each turn) or ``rank``; game points are ``env.unwrapped.scores``.

Engine: option ``engine`` (``"compiled"``) chooses the rules engine that plays:
the C++ one (``native.py``), or ``"python"``, ``rules.py`` (the reference),
identical decision for decision and slower. Where the compiled engine cannot
be loaded the Python one runs and a warning says so once. It changes nothing
else: a game saved by one loads into the other. With the compiled engine,
``env.unwrapped.asrus`` and the state attributes of ``env.unwrapped.game``
(``hands``, ``points``, ...) are copies to read.

Version history: v0, first release.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from pettingzoo import ParallelEnv

from ..core.aec import FlockAECEnv, agent_name
from ..core.errors import IllegalActionError, OptionError, StateDictError
from ..core.options import Option, int_range, scenario_seat, warn_unknown_reset_options
from ..core.wrappers import FlockOrderEnforcingWrapper
from . import data
from .actions import NUM_ACTIONS, action_text
from .native import ENGINES, NativeAsrusGame, native_available
from .observer import SPECIAL_LETTERS, AsrusObserver, observation_size
from .rules import (
    MAJORITY_TIE_MODES,
    MAX_POINTS,
    RETROGRADE_DEPOSIT_MODES,
    RETROGRADE_MODES,
    AsrusConfig,
    AsrusGame,
)


def valid_removed_numbers(value: Any) -> bool:
    """Option check: a list/tuple of ints 1..15, no number more often than the deck holds it."""
    if not isinstance(value, (list, tuple)):
        return False
    if not all(isinstance(v, int) and not isinstance(v, bool) and v in data.NUMBERS for v in value):
        return False
    return all(list(value).count(v) <= data.NUMBER_COUNTS[v] for v in set(value))


GAME_OPTIONS: tuple[Option, ...] = (
    int_range("hand_size", None, 1, 64, "number cards per hand (None: the preparation table)"),
    int_range(
        "specials_per_player", None, 0, 13, "special cards per player (None: the table)"
    ),
    int_range("starting_points", None, 1, MAX_POINTS, "stones (points) per player (None: "
              "the table)"),
    int_range(
        "rounds", 1, 1, None, "rounds before the game ends (None: no limit, needs target)",
        allow_none=True,
    ),
    int_range("target", None, 1, None, "points that end the game at a round's end (None: off)"),
    Option("elimination", True, "end the game once a quarter of the players (rounded up) "
           "have no stones", choices=(True, False)),
    Option("jokers", False, "variant: 3 jokers join the special pile; each is declared as "
           "C, B, D, M, R, Explosion or Triple when played", choices=(True, False)),
    Option("removed_numbers", (), "variant: number cards taken out of the deck before "
           "dealing, one copy per entry (e.g. (4, 8, 12)); the table's hand size must "
           "still fit, or set hand_size", check=valid_removed_numbers,
           allowed="a list or tuple of numbers 1..15, each at most as often as the deck holds it"),
    Option("retrogrades", "once", "two or more Retrogrades in a turn: 'once' (any number "
           "reverses the rule once) or 'cancel' (each reverses it again, so two cancel); "
           "ruling 7", choices=RETROGRADE_MODES),
    Option("retrograde_deposit", "closest", "what each player deposits when a reversed "
           "(Retrograde) turn is a draw: the 'closest' non-zero distance, as every draw, "
           "or the 'farthest'; ruling 20", choices=RETROGRADE_DEPOSIT_MODES),
    Option("majority_ties", "none", "numbers tied for the most copies: 'none' of them is "
           "major, or 'all' are (one Majority on any of them wins); ruling 6",
           choices=MAJORITY_TIE_MODES),
    Option("engine", "compiled", "the rules engine: 'compiled' (C++) or 'python' (the "
           "reference), identical play; the Python one runs where the compiled cannot load",
           choices=ENGINES, affects_spaces=False),
)  # fmt: skip

RULES_OPTIONS = tuple(o.name for o in GAME_OPTIONS if o.name != "engine")
"""The game options that are rules (``engine`` chooses who plays them)."""

SCENARIO_KEYS = ("hands", "specials", "destination", "stones", "deposit")


def config_from_options(options: dict[str, Any]) -> AsrusConfig:
    """The rules config of validated env options (re-raised as OptionError)."""
    try:
        return AsrusConfig.from_options(
            num_players=options["num_players"],
            **{name: options[name] for name in RULES_OPTIONS},
        )
    except ValueError as err:
        raise OptionError(str(err)) from None


def scenario_to_rules(options: dict[str, Any], n: int) -> dict[str, Any]:
    """Translate ``reset(options=...)`` (agents and card strings) into rules
    arguments; a value of the wrong type or form is an :class:`OptionError`
    naming the key and the form expected."""
    warn_unknown_reset_options(options, SCENARIO_KEYS)
    hands = per_agent(options, "hands", n, "{agent: ['9', '12', ...]}")
    specials = per_agent(options, "specials", n, "{agent: ['C', 'M', ...]}")
    stones = per_agent(options, "stones", n, "{agent: points}")
    destination = options.get("destination")
    return {
        "hands": {s: card_list(cs, f"hands.{agent_name(s)}", number_of) for s, cs in hands.items()},
        "specials": {
            s: card_list(cs, f"specials.{agent_name(s)}", special_of) for s, cs in specials.items()
        },
        "destination": None if destination is None else number_of(destination, "destination"),
        "points": {s: points_of(p, f"stones.{agent_name(s)}") for s, p in stones.items()},
        "deposit": points_of(options.get("deposit", 0), "deposit"),
    }


def per_agent(options: dict[str, Any], key: str, n: int, form: str) -> dict[int, Any]:
    """``options[key]`` as {seat: value}; it must be a dict keyed by agent ids."""
    value = options.get(key, {})
    if not isinstance(value, dict):
        raise OptionError(f"reset option {key}={value!r:.60} must be a dict {form}")
    return {scenario_seat(agent, n): item for agent, item in value.items()}


def card_list(cards: Any, key: str, read: Any) -> list[Any]:
    """A list of card strings; a lone string ("99") is refused, not read letter by letter."""
    if not isinstance(cards, (list, tuple)):
        raise OptionError(
            f"reset option {key}={cards!r:.60} must be a list of cards, e.g. ['9', '12']"
        )
    return [read(card, key) for card in cards]


def number_of(text: Any, key: str) -> int:
    value = int(text) if isinstance(text, str) and text.strip().isdigit() else -1
    if isinstance(text, int) and not isinstance(text, bool):
        value = text
    if value not in data.NUMBERS:
        raise OptionError(f"reset option {key}: number card {text!r:.40} is not one of '1'..'15'")
    return value


def special_of(text: Any, key: str) -> str:
    if not isinstance(text, str) or text.upper() not in SPECIAL_LETTERS:
        raise OptionError(
            f"reset option {key}: special card {text!r:.40} is not one of "
            f"{', '.join(SPECIAL_LETTERS)}"
        )
    return text.upper()


def points_of(value: Any, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_POINTS:
        raise OptionError(
            f"reset option {key}={value!r:.40} is not allowed; allowed: a whole number of "
            f"points 0..{MAX_POINTS}"
        )
    return value


def new_game_from_scenario(
    config: AsrusConfig, rng: np.random.Generator, scenario: dict[str, Any]
) -> AsrusGame:
    """Deal a game with a scenario; impossible scenarios raise OptionError."""
    args = scenario_to_rules(scenario, config.num_players)
    try:
        return AsrusGame.new(config, rng, **args)
    except ValueError as err:
        raise OptionError(f"impossible Asrus scenario: {err}") from None


class raw_env(FlockAECEnv):
    """The unwrapped Asrus AEC env; ``env()`` adds PettingZoo's checking wrappers."""

    env_id: ClassVar[str] = "asrus_v0"
    player_counts: ClassVar[tuple[int, ...]] = tuple(sorted(data.PREPARATION))
    default_players: ClassVar[int] = 5
    default_max_steps: ClassVar[int] = 100_000
    """A one-round game of 5 is 60 steps; only long multi-round games come near."""
    game_options: ClassVar[tuple[Option, ...]] = GAME_OPTIONS
    option_samples: ClassVar[tuple[dict[str, Any], ...]] = (
        {},
        {"jokers": True, "specials_per_player": 4, "retrogrades": "cancel"},
        {"rounds": 3, "elimination": False, "retrograde_deposit": "farthest"},
        {"rounds": None, "target": 150, "majority_ties": "all", "jokers": True},
        {"hand_size": 3, "removed_numbers": [4, 8, 12], "starting_points": 5},
        {"hand_size": 1, "specials_per_player": 0, "rounds": 4, "elimination": False},
    )
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"],
        "name": "asrus_v0",
        # aec_to_parallel observes every seat when a turn starts, when only player_0's
        # mask is set (the AEC env masks the seats not to act): the others would play
        # from an all-zero mask. asrus_v0.parallel_env() is the native parallel env.
        "is_parallelizable": False,
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.config = config_from_options(self.options)
        self.observer = AsrusObserver(self.config)
        self.native = self.options["engine"] == "compiled" and native_available()
        """True when the compiled engine plays (option ``engine``, where it loads)."""

    @property
    def asrus(self) -> AsrusGame:
        """The rules engine, typed: with the compiled engine, a Python engine in
        its state (a snapshot: changing it changes nothing in the env)."""
        game = self._require_game()
        if isinstance(game, NativeAsrusGame):
            return game.to_python()
        assert isinstance(game, AsrusGame)
        return game

    def _num_actions(self) -> int:
        return NUM_ACTIONS

    def _observation_size(self) -> int:
        return observation_size(self.num_players)

    def _new_game(
        self, rng: np.random.Generator, scenario: dict[str, Any]
    ) -> AsrusGame | NativeAsrusGame:
        if self.native and not scenario:
            return NativeAsrusGame.new(self.config, rng)
        game = new_game_from_scenario(self.config, rng, scenario)
        return NativeAsrusGame.from_python(game) if self.native else game

    def _game_from_dict(self, data_: dict[str, Any]) -> AsrusGame | NativeAsrusGame:
        game = AsrusGame.from_dict(data_)
        if game.config != self.config:
            raise StateDictError(
                f"game.config: saved Asrus config {game.config} differs from this env's "
                f"{self.config}"
            )
        return NativeAsrusGame.from_python(game) if self.native else game

    def _engine_from_python(self, game: AsrusGame) -> AsrusGame | NativeAsrusGame:  # type: ignore[override]
        """A resampled game without the loader: the compiled engine loads its
        plain fields; a Python engine is rebuilt from them (its mask and holding
        tables are built afresh from the new hands)."""
        if self.native:
            return NativeAsrusGame.from_python(game)
        return NativeAsrusGame.game_of(game.config, NativeAsrusGame.fields_of(game))

    def _on_new_game(self) -> None:
        self.observer.reset_cache()

    def _encode_observation(self, seat: int) -> np.ndarray:
        # self.game, not the checked ``asrus`` property: this runs every step, and
        # the base calls it only with a dealt game (from _new_game or _game_from_dict).
        game = self.game
        if type(game) is NativeAsrusGame:
            return game.encode(seat)
        return self.observer.encode(game, seat)  # type: ignore[arg-type]

    def view(self, agent: str) -> dict[str, Any]:
        return self.observer.view(self.asrus, self.seat_of(agent))

    def _render_text(self, seat: int | None) -> str:
        return self.observer.render(self.asrus, seat)


def env(**options: Any) -> Any:
    """The Asrus AEC env with PettingZoo's order and bounds checks.

    Options (all keyword): ``num_players`` (3-9, default 5), ``reward``,
    ``illegal_action``, ``render_mode``, and the game options of
    ``docs/rules/asrus.md`` (``hand_size``, ``specials_per_player``,
    ``starting_points``, ``rounds``, ``target``, ``elimination``, ``jokers``,
    ``removed_numbers``).
    """
    return FlockOrderEnforcingWrapper(raw_env(**options))


class parallel_env(ParallelEnv):
    """Native parallel Asrus: ``step`` takes every player's action at once.

    Same options, spaces, observations, rewards and rules as the AEC env: a
    turn is one ``step``, played through an AEC env inside (the seats commit in
    order, as they do there), so seeding, the ``max_steps`` cap, rewards and
    illegal actions follow one implementation. Every live agent sees its own
    mask at once, and nobody sees who has committed.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"],
        "name": "asrus_v0",
    }

    def __init__(self, **options: Any) -> None:
        self._aec = raw_env(**options)
        self.options = self._aec.options
        self.render_mode = self._aec.render_mode
        self.possible_agents = list(self._aec.possible_agents)
        self.agents: list[str] = []
        self.observation_spaces = dict(self._aec.observation_spaces)
        self.action_spaces = dict(self._aec.action_spaces)

    @property
    def game(self) -> AsrusGame | NativeAsrusGame | None:
        """The rules engine of the current game (None before the first reset)."""
        game = self._aec.game
        assert game is None or isinstance(game, (AsrusGame, NativeAsrusGame))
        return game

    @property
    def unwrapped(self) -> parallel_env:
        return self

    def observation_space(self, agent: str) -> Any:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Any:
        return self.action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        self._aec.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        return self._observations(), {a: {} for a in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        self._require_game()
        self._check_agents(actions)
        self._first_illegal(actions)  # raises under 'raise', before any seat commits
        aec = self._aec
        rewards = dict.fromkeys(self.possible_agents, 0.0)
        for agent in self.possible_agents:
            aec.step(actions[agent])
            for other, value in aec.rewards.items():
                rewards[other] += value
            if aec.terminations[agent] or aec.truncations[agent]:
                break  # penalized, or cut short by max_steps
        agents = list(self.agents)
        done = bool(aec.terminations[agents[0]] or aec.truncations[agents[0]])
        observations = self._observations(live=not done)
        reward_d = {a: rewards[a] for a in agents}
        terminations = {a: bool(aec.terminations[a]) for a in agents}
        truncations = {a: bool(aec.truncations[a]) for a in agents}
        infos: dict[str, Any] = {a: {} for a in agents}
        if done:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, reward_d, terminations, truncations, infos

    def _check_agents(self, actions: Any) -> None:
        """One action for each live agent, and nothing for anyone else."""
        if not isinstance(actions, dict):
            raise OptionError(
                f"parallel step takes a dict {{agent: action}}, got {type(actions).__name__}"
            )
        missing = [a for a in self.agents if a not in actions]
        unknown = [a for a in actions if a not in self.agents]
        if missing or unknown:
            raise OptionError(
                f"parallel step needs exactly one action per live agent {self.agents}; "
                f"missing {missing}, unknown {unknown}"
            )

    def _first_illegal(self, actions: dict[str, Any]) -> int | None:
        """Seat of the first illegal action under 'penalize'; raises under 'raise'."""
        game = self._require_game()
        for seat, agent in enumerate(self.possible_agents):
            action = actions[agent]
            legal = game.legal_actions_for(seat)
            ok = isinstance(action, (int, np.integer)) and not isinstance(action, bool)
            if ok and int(action) in legal:
                continue
            if self.options["illegal_action"] == "penalize":
                return seat
            shown = (
                action_text(int(action))
                if ok and 0 <= int(action) < NUM_ACTIONS
                else "not an action id"
            )
            raise IllegalActionError(agent, action, shown, [action_text(a) for a in legal])
        return None

    def _observations(self, live: bool = True) -> dict[str, Any]:
        game = self._require_game()
        result = {}
        for seat, agent in enumerate(self.possible_agents):
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
            if live and not game.over:
                mask[game.legal_actions_for(seat)] = 1
            obs = self._aec._encode_observation(seat).copy()
            lo, hi = self._aec.observer.offsets["committed"]
            obs[lo:hi] = 0.0
            result[agent] = {"observation": obs, "action_mask": mask}
        return result

    def _require_game(self) -> AsrusGame | NativeAsrusGame:
        game = self.game
        if game is None:
            raise RuntimeError("asrus_v0: call reset() before using the env")
        return game

    @property
    def scores(self) -> dict[str, float]:
        return dict(zip(self.possible_agents, self._require_game().scores(), strict=True))

    @property
    def winners(self) -> list[str]:
        return self._aec.winners

    def view(self, agent: str) -> dict[str, Any]:
        return self._aec.view(agent)

    def action_to_string(self, agent: str, action: int) -> str:
        return self._aec.action_to_string(agent, action)

    def string_to_action(self, agent: str, text: str) -> int:
        return self._aec.string_to_action(agent, text)

    def state_dict(self) -> dict[str, Any]:
        """The AEC env's state dict (between turns nobody has committed)."""
        return self._aec.state_dict()

    def load_state_dict(self, data: dict[str, Any]) -> None:
        """Restore a state saved between turns (no seat committed yet)."""
        game = data.get("game") if isinstance(data, dict) else None
        pending = game.get("pending") if isinstance(game, dict) else None
        if isinstance(pending, list) and any(p is not None for p in pending):
            raise StateDictError(
                "game.pending: a parallel env loads only states saved between turns "
                "(no seat committed)"
            )
        self._aec.load_state_dict(data)
        aec = self._aec
        done = aec.is_truncated() or aec._require_game().is_over() or aec._penalized is not None
        self.agents = [] if done else list(aec.agents)

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = self._aec._render_text(None)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    def state(self) -> np.ndarray:
        raise NotImplementedError("asrus_v0 has no global state vector")
