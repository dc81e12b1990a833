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
| specials_held | n | special cards each player still holds, / 3 (rel) |
| hand_left | 1 | number cards left in every hand / the largest hand the deck allows |
| committed | n | 1 for players who have committed this turn (rel) |
| last_numbers | 15n | last turn's number card of each player, one-hot (rel) |
| last_specials | 13n | last turn's slot of each player, one-hot (rel) |
| last_kind | 5 | last turn decided by majority, closest, farthest, draw, explosion |
| last_winner | n | last turn's winner, one-hot (rel) |
| last_blackhole | 1 | the last winner's take went to the deposit |
| revealed | 15 | number cards revealed this round, per number, / 8 |
| progress | 2 | turn in round / hand size; finished rounds / rounds (0 if unlimited) |
| lottery_winner | n | who won the end-of-round lottery on the last turn, one-hot (rel) |
| lottery_amount | 1 | what that lottery paid / all points in the game |

Rewards: option ``reward`` = ``win`` (default), ``score`` (points won or lost
each turn) or ``rank``; game points are ``env.unwrapped.scores``.

Version history: v0, first release.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from pettingzoo import ParallelEnv

from ..core.aec import FlockAECEnv, agent_name
from ..core.errors import IllegalActionError, OptionError
from ..core.options import Option, int_range, scenario_seat, warn_unknown_reset_options
from ..core.rewards import rank_rewards, score_deltas, win_rewards
from ..core.rng import make_rng
from ..core.wrappers import FlockOrderEnforcingWrapper
from . import data
from .actions import NUM_ACTIONS, action_text, parse_action
from .observer import SPECIAL_LETTERS, AsrusObserver, observation_size
from .rules import AsrusConfig, AsrusGame


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
    int_range("starting_points", None, 1, None, "stones (points) per player (None: the table)"),
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
)  # fmt: skip

SCENARIO_KEYS = ("hands", "specials", "destination", "stones", "deposit")


def config_from_options(options: dict[str, Any]) -> AsrusConfig:
    """The rules config of validated env options (re-raised as OptionError)."""
    try:
        return AsrusConfig.from_options(
            num_players=options["num_players"],
            **{o.name: options[o.name] for o in GAME_OPTIONS},
        )
    except ValueError as err:
        raise OptionError(str(err)) from None


def scenario_to_rules(options: dict[str, Any], n: int) -> dict[str, Any]:
    """Translate ``reset(options=...)`` (agents and card strings) into rules arguments."""
    warn_unknown_reset_options(options, SCENARIO_KEYS)

    def seat_of(agent: Any) -> int:
        return scenario_seat(agent, n)

    def number_of(text: Any) -> int:
        value = int(str(text)) if str(text).isdigit() else -1
        if value not in data.NUMBERS:
            raise OptionError(f"number card {text!r} is not one of '1'..'15'")
        return value

    def special_of(text: Any) -> str:
        if str(text).upper() not in SPECIAL_LETTERS:
            raise OptionError(f"special card {text!r} is not one of {', '.join(SPECIAL_LETTERS)}")
        return str(text).upper()

    def points_of(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise OptionError(f"stones must be a whole number of points >= 0, got {value!r}")
        return value

    hands = options.get("hands", {})
    specials = options.get("specials", {})
    destination = options.get("destination")
    return {
        "hands": {seat_of(a): [number_of(c) for c in cs] for a, cs in hands.items()},
        "specials": {seat_of(a): [special_of(c) for c in cs] for a, cs in specials.items()},
        "destination": None if destination is None else number_of(destination),
        "points": {seat_of(a): points_of(p) for a, p in options.get("stones", {}).items()},
        "deposit": points_of(options.get("deposit", 0)),
    }  # fmt: skip


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
    game_options: ClassVar[tuple[Option, ...]] = GAME_OPTIONS
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"],
        "name": "asrus_v0",
        "is_parallelizable": True,
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.config = config_from_options(self.options)
        self.observer = AsrusObserver(self.config)

    @property
    def asrus(self) -> AsrusGame:
        """The rules engine, typed."""
        game = self._require_game()
        assert isinstance(game, AsrusGame)
        return game

    def _num_actions(self) -> int:
        return NUM_ACTIONS

    def _observation_size(self) -> int:
        return observation_size(self.num_players)

    def _new_game(self, rng: np.random.Generator, scenario: dict[str, Any]) -> AsrusGame:
        return new_game_from_scenario(self.config, rng, scenario)

    def _game_from_dict(self, data_: dict[str, Any]) -> AsrusGame:
        game = AsrusGame.from_dict(data_)
        if game.config != self.config:
            raise OptionError(
                f"saved Asrus config {game.config} differs from this env's {self.config}"
            )
        return game

    def _on_new_game(self) -> None:
        self.observer.reset_cache()

    def _encode_observation(self, seat: int) -> np.ndarray:
        return self.observer.encode(self.asrus, seat)

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

    Same options, spaces, observations, rewards and rules as the AEC env; a
    turn is one ``step``.
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
        self.game: AsrusGame | None = None
        self._rng: np.random.Generator | None = None

    def observation_space(self, agent: str) -> Any:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Any:
        return self.action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        if seed is not None:
            rng = make_rng(seed)
        elif self.game is not None:
            rng = self.game.rng
        else:
            rng = make_rng(None)
        self.game = new_game_from_scenario(self._aec.config, rng, dict(options or {}))
        self._aec.observer.reset_cache()
        self.agents = list(self.possible_agents)
        return self._observations(), {a: {} for a in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        game = self._require_game()
        missing = [a for a in self.agents if a not in actions]
        if missing:
            raise OptionError(
                f"parallel step needs an action for every live agent; missing {missing}"
            )
        before = game.scores()
        offender = self._first_illegal(actions)
        n = len(self.possible_agents)
        if offender is not None:
            rewards = [0.0] * n
            rewards[offender] = -1.0
            over = True
        else:
            for seat in range(n):
                game.apply_action(int(actions[agent_name(seat)]))
            self._aec.observer.reset_cache()
            after = game.scores()
            over = game.is_over()
            mode = self.options["reward"]
            rewards = score_deltas(before, after) if mode == "score" else [0.0] * n
            if over and mode == "win":
                rewards = win_rewards(n, game.winners())
            elif over and mode == "rank":
                rewards = rank_rewards(after)
        agents = list(self.agents)
        observations = self._observations(live=not over)
        reward_d = {a: rewards[s] for s, a in enumerate(self.possible_agents) if a in agents}
        terminations = dict.fromkeys(agents, over)
        truncations = dict.fromkeys(agents, False)
        infos: dict[str, Any] = {a: {} for a in agents}
        if over:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, reward_d, terminations, truncations, infos

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
            obs = self._aec.observer.encode(game, seat).copy()
            lo, hi = self._aec.observer.offsets["committed"]
            obs[lo:hi] = 0.0
            result[agent] = {"observation": obs, "action_mask": mask}
        return result

    def _require_game(self) -> AsrusGame:
        if self.game is None:
            raise RuntimeError("asrus_v0: call reset() before using the env")
        return self.game

    @property
    def scores(self) -> dict[str, float]:
        return dict(zip(self.possible_agents, self._require_game().scores(), strict=True))

    def view(self, agent: str) -> dict[str, Any]:
        return self._aec.observer.view(self._require_game(), self.possible_agents.index(agent))

    def action_to_string(self, agent: str, action: int) -> str:
        return action_text(int(action))

    def string_to_action(self, agent: str, text: str) -> int:
        return parse_action(text)

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = self._aec.observer.render(self._require_game(), None)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    def state(self) -> np.ndarray:
        raise NotImplementedError("asrus_v0 has no global state vector")
