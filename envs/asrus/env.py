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

from array import array
from typing import Any, ClassVar

import numpy as np
from pettingzoo import ParallelEnv

from ..core.aec import FlockAECEnv, agent_name
from ..core.errors import IllegalActionError, OptionError
from ..core.game import NO_PLAYER
from ..core.options import Option, int_range, scenario_seat, warn_unknown_reset_options
from ..core.rewards import rank_rewards, score_deltas, win_rewards
from ..core.rng import make_rng
from ..core.wrappers import FlockOrderEnforcingWrapper
from . import data
from .rules import (
    NUM_ACTIONS,
    NUM_SLOTS,
    SLOTS,
    AsrusConfig,
    AsrusGame,
    action_text,
    parse_action,
)

OUTCOME_KINDS = ("majority", "closest", "farthest", "draw", "explosion")
SPECIAL_LETTERS = (*data.SPECIAL_KINDS, "J")


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


def observation_size(num_players: int) -> int:
    """63 + 33n: see the table in the module docstring."""
    return 63 + 33 * num_players


def config_from_options(options: dict[str, Any]) -> AsrusConfig:
    """The rules config of validated env options (re-raised as OptionError)."""
    try:
        return AsrusConfig.from_options(
            num_players=options["num_players"],
            **{o.name: options[o.name] for o in GAME_OPTIONS},
        )
    except ValueError as err:
        raise OptionError(str(err)) from None


class AsrusObserver:
    """Observation vectors, views and text for one game, shared by the AEC and
    the parallel env.

    Everything is encoded once per turn (when the game's ``version`` changes)
    into one flat source buffer in absolute seat order: the public fields, every
    seat's own hand and specials, and the committed flags each seat sees when
    its turn comes. Every seat's vector is then one gather through a
    precomputed index that rotates each per-player field to start at that seat
    and picks that seat's own hand. This keeps the per-step cost flat in the
    number of players, which matters because every step observes a new seat.
    """

    PER_PLAYER: ClassVar[dict[str, int]] = {
        "points": 1, "specials_held": 1, "committed": 1, "last_numbers": 15,
        "last_specials": NUM_SLOTS, "last_winner": 1, "lottery_winner": 1,
    }  # fmt: skip
    """Fields with one block per player, stored from the observer's seat on."""

    def __init__(self, config: AsrusConfig) -> None:
        n = config.num_players
        self.config = config
        self.size = observation_size(n)
        offsets, at = {}, 0
        for name, width in (
            ("hand", 15), ("specials", 6), ("destination", 15), ("destination_card", 1),
            ("deposit", 1), ("points", n), ("specials_held", n), ("hand_left", 1),
            ("committed", n), ("last_numbers", 15 * n), ("last_specials", NUM_SLOTS * n),
            ("last_kind", 5), ("last_winner", n), ("last_blackhole", 1), ("revealed", 15),
            ("progress", 2), ("lottery_winner", n), ("lottery_amount", 1),
        ):  # fmt: skip
            offsets[name] = (at, at + width)
            at += width
        assert at == self.size
        self.offsets = offsets
        assert offsets["hand"] == (0, 15) and offsets["specials"] == (15, 21)
        self._private_width = 21
        self._flags_at = self.size
        """Source offset of the committed flags: n*n entries, [s*n + j] = 1 when
        seat j has committed by the time seat s is to act (j < s)."""
        self._private_at = self.size + n * n
        """Source offset of every seat's hand and specials: n blocks of 21."""
        self._source_buffer = array("f", bytes(4 * (self._private_at + n * self._private_width)))
        """The gather source, written with plain item assignments (a few dozen
        per turn, far cheaper than building index and value arrays for numpy)."""
        self._source = np.frombuffer(self._source_buffer, dtype=np.float32)
        """A numpy view of the same memory, for the gather and the hands."""
        for seat in range(n):
            for other in range(seat):
                self._source_buffer[self._flags_at + seat * n + other] = 1.0
        self._zeros = array("f", bytes(4 * self.size))
        self._private = self._source[self._private_at :].reshape(n, self._private_width)
        self._committed_lo = offsets["committed"][0]
        self._rotations = np.stack([self._rotation(seat) for seat in range(n)])
        self._committed_flags = np.array(
            [[[float((seat + rel) % n < count) for rel in range(n)] for count in range(n + 1)]
             for seat in range(n)],
            dtype=np.float32,
        )  # fmt: skip
        """[seat, c, rel]: 1 when, with c seats committed (in seat order), the
        player ``rel`` seats from ``seat`` has committed."""
        self._turn_key: tuple[int, int] | None = None
        self._matrix = np.zeros((n, self.size), dtype=np.float32)
        self._row_committed = list(range(n))
        """The committed count each row of ``_matrix`` shows: ``seat`` when built
        (seats commit in order, so that is what the seat to act sees)."""
        self._max_hand = config.max_hand_size
        self._private_scale = np.array([1.0 / 8.0] * 15 + [1.0 / 3.0] * 6, dtype=np.float32)
        """Number-card counts are shown / 8, special counts / 3."""
        self._at = {name: lo for name, (lo, _) in offsets.items()}

    def _rotation(self, seat: int) -> np.ndarray:
        """Gather index: entry i of ``seat``'s vector comes from entry index[i] of
        the source buffer (see ``__init__``)."""
        n = self.config.num_players
        index = np.arange(self.size)
        for name, width in self.PER_PLAYER.items():
            lo = self.offsets[name][0]
            for rel in range(n):
                source = lo + width * ((seat + rel) % n)
                index[lo + width * rel : lo + width * (rel + 1)] = np.arange(source, source + width)
        private = self._private_at + self._private_width * seat
        index[: self._private_width] = np.arange(private, private + self._private_width)
        lo = self._committed_lo
        index[lo : lo + n] = [self._flags_at + seat * n + (seat + rel) % n for rel in range(n)]
        return index

    def reset_cache(self) -> None:
        self._turn_key = None

    def encode(self, game: AsrusGame, seat: int) -> np.ndarray:
        """The observation of ``seat`` (a row of a cached matrix: copy before
        handing it out)."""
        if self._turn_key != (id(game), game.version):
            self._build_turn(game)
        vec = self._matrix[seat]
        count = game.committed
        if self._row_committed[seat] != count:
            lo = self._committed_lo
            vec[lo : lo + self.config.num_players] = self._committed_flags[seat, count]
            self._row_committed[seat] = count
        return vec

    def _build_turn(self, game: AsrusGame) -> None:
        """Every seat's vector at once: the public fields and the hands written
        into the source buffer, then one gather through the rotation index."""
        self._source_buffer[: self.size] = self._zeros
        self._write_public(game)
        np.multiply(game.holdings()[:, 1:], self._private_scale, out=self._private)
        self._matrix = self._source[self._rotations]
        self._row_committed = list(range(self.config.num_players))
        self._turn_key = (id(game), game.version)

    def _write_public(self, game: AsrusGame) -> None:
        """What every seat sees alike, per-player fields in absolute seat order,
        written into the (zeroed) public part of the source buffer."""
        n, at, buf = self.config.num_players, self._at, self._source_buffer
        total = max(1, sum(game.points) + game.deposit)
        buf[at["destination"] + game.destination - 1] = 1.0
        buf[at["destination_card"]] = float(game.destination_card)
        buf[at["deposit"]] = game.deposit / total
        points, held = at["points"], at["specials_held"]
        for seat in range(n):
            buf[points + seat] = game.points[seat] / total
            buf[held + seat] = sum(game.specials[seat]) / 3.0
        first_hand = game.hands[0]
        buf[at["hand_left"]] = sum(first_hand) / self._max_hand  # all hands alike
        result = game.last_result
        if result is not None:
            numbers, specials = at["last_numbers"] - 1, at["last_specials"]
            for seat, play in enumerate(result.plays):
                buf[numbers + 15 * seat + play.number] = 1.0
                slot = 0 if play.power is None else SLOTS_INDEX[(play.power, play.joker)]
                buf[specials + NUM_SLOTS * seat + slot] = 1.0
            buf[at["last_kind"] + OUTCOME_KINDS.index(result.outcome.kind)] = 1.0
            buf[at["last_blackhole"]] = float(result.blackhole)
            if result.outcome.winner is not None:
                buf[at["last_winner"] + result.outcome.winner] = 1.0
        revealed = at["revealed"] - 1
        for number, count in enumerate(game.revealed):
            if count and number:
                buf[revealed + number] = count / 8.0
        progress = at["progress"]
        # The round's hand size: cards held (index 0 is no card) + turns played.
        hand_size = max(1, sum(first_hand) - first_hand[0] + game.turn - 1)
        buf[progress] = min(1.0, (game.turn - 1) / hand_size)
        if self.config.rounds:
            buf[progress + 1] = min(1.0, (game.round - 1) / self.config.rounds)
        lottery = game.last_lottery
        if lottery is not None:
            buf[at["lottery_winner"] + lottery.winner] = 1.0
            buf[at["lottery_amount"]] = lottery.amount / total

    # -- words ---------------------------------------------------------------

    def view(self, game: AsrusGame, seat: int) -> dict[str, Any]:
        """What ``seat`` may see, in words and card strings (JSON types)."""
        n = self.config.num_players
        agents = [agent_name(s) for s in range(n)]
        to_act = game.current_player()
        return {
            "game": "asrus",
            "agent": agent_name(seat),
            "round": game.round,
            "turn": game.turn,
            "destination": str(game.destination),
            "destination_card": game.destination_card,
            "deposit": game.deposit,
            "hand": cards_text(game.hands[seat]),
            "specials": specials_text(game.specials[seat]),
            "points": dict(zip(agents, game.points, strict=True)),
            "stones": {a: stones_of(p) for a, p in zip(agents, game.points, strict=True)},
            "specials_held": {a: sum(game.specials[s]) for s, a in enumerate(agents)},
            "hand_left": sum(game.hands[seat][1:]),
            "committed": [agents[s] for s in range(n) if game.pending[s] is not None],
            "to_act": None if to_act == NO_PLAYER else agents[to_act],
            "last_turn": None if game.last_result is None else result_view(game, agents),
            "lottery": None if game.last_lottery is None else lottery_view(game, agents),
            "revealed_this_round": cards_text(game.revealed),
            "deck": {str(n): c for n, c in self.config.number_counts.items()},
            "over": game.over,
        }  # fmt: skip

    def render(self, game: AsrusGame, seat: int | None) -> str:
        """The table as text from ``seat``'s view, or with every hand for ``None``.

        Built from :meth:`view` alone, so the text from a seat can never show
        more than that seat may see."""
        n = self.config.num_players
        if seat is not None:
            return render_view(self.view(game, seat))
        views = [self.view(game, s) for s in range(n)]
        return render_view(views[0], {v["agent"]: v for v in views})


def render_view(view: dict[str, Any], all_views: dict[str, dict[str, Any]] | None = None) -> str:
    """Text of one seat's view; ``all_views`` adds every seat's own hand."""
    no_card = "" if view["destination_card"] else " (no card)"
    lines = [
        f"Asrus  round {view['round']}  turn {view['turn']}  destination "
        f"{view['destination']}{no_card}  deposit {view['deposit']}"
    ]
    if view["last_turn"] is not None:
        lines.append("last turn: " + describe_last_turn(view["last_turn"]))
    if view["lottery"] is not None:
        lottery = view["lottery"]
        lines.append(f"lottery: {lottery['winner']} drew lowest and takes {lottery['amount']}")
    for agent, points in view["points"].items():
        mark = ">" if agent == view["to_act"] else " "
        line = f"{mark} {agent}: {points:>4} pts  specials {view['specials_held'][agent]}"
        shown = all_views[agent] if all_views else (view if agent == view["agent"] else None)
        if shown is not None:
            special = " ".join(shown["specials"]) or "-"
            line += f"  hand [{' '.join(shown['hand'])}]  specials [{special}]"
        lines.append(line + (" (committed)" if agent in view["committed"] else ""))
    if view["over"]:
        best = max(view["points"].values())
        winners = [a for a, p in view["points"].items() if p == best]
        lines.append("game over; winners: " + ", ".join(winners))
    return "\n".join(lines)


SLOTS_INDEX = {slot: index for index, slot in enumerate(SLOTS)}


def cards_text(counts: list[int]) -> list[str]:
    """Number-card counts (index = number) as sorted card strings."""
    return [str(number) for number in data.NUMBERS for _ in range(counts[number])]


def specials_text(counts: list[int]) -> list[str]:
    return [SPECIAL_LETTERS[i] for i, c in enumerate(counts) for _ in range(c)]


def stones_of(points: int) -> dict[str, int]:
    """Points shown as the fewest stones: red 10, green 5, blue 1."""
    red, rest = divmod(max(points, 0), 10)
    green, blue = divmod(rest, 5)
    return {"red": red, "green": green, "blue": blue}


def result_view(game: AsrusGame, agents: list[str]) -> dict[str, Any]:
    result = game.last_result
    assert result is not None
    return {
        "destination": str(result.destination),
        "plays": {a: p.text() for a, p in zip(agents, result.plays, strict=True)},
        "kind": result.outcome.kind,
        "winner": None if result.outcome.winner is None else agents[result.outcome.winner],
        "distance": result.outcome.distance,
        "points_change": dict(zip(agents, result.deltas, strict=True)),
        "blackhole": result.blackhole,
        "deposit_before": result.deposit_before,
        "deposit_after": result.deposit_after,
    }


def lottery_view(game: AsrusGame, agents: list[str]) -> dict[str, Any]:
    lottery = game.last_lottery
    assert lottery is not None
    return {
        "draws": [{agents[s]: str(c) for s, c in d.items()} for d in lottery.draws],
        "winner": agents[lottery.winner],
        "amount": lottery.amount,
    }


def describe_last_turn(last: dict[str, Any]) -> str:
    """One line for the last turn of a view: the cards, who won and what moved."""
    plays = ", ".join(f"{agent}: {play}" for agent, play in last["plays"].items())
    kind, winner = last["kind"], last["winner"]
    if winner is None:
        what = (
            "explosion, nobody scores"
            if kind == "explosion"
            else f"draw, everyone deposits {last['distance']}"
        )
    else:
        how = f"{winner} wins ({kind}, distance {last['distance']})"
        if last["blackhole"]:
            sent = last["deposit_after"] - last["deposit_before"]
            what = f"{how}, but a blackhole sends the {sent} points to the deposit"
        else:
            what = f"{how} +{last['points_change'][winner]}"
    return f"to {last['destination']}: {plays} -> {what}"


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
