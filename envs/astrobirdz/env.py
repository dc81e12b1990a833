"""Astrobirdz: trick-taking with guesses, Berzerkerbirdz and trump rule cards (``astrobirdz_v0``).

| | |
| --- | --- |
| Import | ``from flockgym.envs import astrobirdz_v0`` |
| Agents | ``player_0`` .. ``player_{n-1}``, n = 2..6 (default 4) |
| Actions | ``Discrete(135 + n)`` |
| Observation | ``Box(0, 1, (795 + 142n + n^2,), float32)`` + ``action_mask`` ``(135 + n,)`` int8 |
| Parallel | ``astrobirdz_v0.parallel_env()``: PettingZoo's turn-based AEC-to-parallel conversion |

Each turn (2p 5 turns, 3p 5, 4p 6, 5p 7, 6p 8; turn t deals t cards) every
player gets a Berzerkerbird with a power, the turned-up card sets the trump
colour and a rule for the turn, players guess how many tricks they will win,
then play tricks (follow the led colour if you can). Points for tricks, for an
exact guess, for the highest correct guess and the AstroBoard, for the rule
card and the Berzerkerbird; the highest running total after the last turn
wins. The full rules, every rule card and our rulings are in
``docs/rules/astrobirdz.md``.

Decisions that the rulebook has players take at the same time (Orange 7
discards, Yellow 3/4 passes with a tie, the optional pass-cards rule) are asked
one seat at a time from the dealer's left; no seat sees another's choice
before the cards move.

Options
-------
``num_players`` (2-6, default 4), ``reward``, ``illegal_action``,
``render_mode`` (see ``docs/api.md``), and:

- ``berzerkerbirdz`` (``True``): deal the six Berzerkerbirdz and use their
  powers; ``False``: none, and the dealer rotates left each turn.
- ``trump_rules`` (``True``): enforce the turned-up card's rule for the turn;
  ``False``: the card only sets the trump colour (Oh Hell with AstroBoard).
- ``pass_cards`` (``False``): the optional rule, pass 1-3 cards to the left
  before the guesses.
- ``ages`` (``None``): one age per seat for Yellow 7/8 (youngest/oldest picks
  trump); ``None``: player_0 is the youngest, the last seat the oldest.
- ``highest_bonus`` (``"among_correct"``): the highest-guess bonus goes to the
  highest correct guess; ``"highest_overall"``: only to a correct guess that
  is also the highest guess of the turn.
- ``highest_bonus_ties`` (``"one"``): tied candidates for that bonus, one gets
  it (fewest points, then highest Berzerkerbird); ``"all"``: each does.
- ``green_7`` (``"beaten_by_higher_trump"``): under Green Turbo #7 a 4 or 5
  of any colour counts as a trump card of its value, so a higher trump beats
  it (the card's last sentence); ``"never_beaten_by_trump"``: no trump card
  beats it (the card's printed example, a yellow 5 not beaten by a red 7).
- ``engine`` (``"compiled"``): the rules engine that plays: the C++ one
  (``native.py``), or ``"python"``, ``rules.py`` (the reference), identical
  decision for decision (every rule card, power and option) and several
  times slower. Where the compiled engine cannot be loaded the Python one
  runs and a warning says so once. It changes nothing else: a game saved by
  one loads into the other. With the compiled engine,
  ``env.unwrapped.astrobirdz`` and the state attributes of
  ``env.unwrapped.game`` (``hands``, ``turn``, ...) are copies to read.

Scenarios: ``reset(options=...)`` keys ``hands`` ({agent: cards}, the Step 2
deal of the starting turn, e.g. ``{"player_0": ["R4", "B9"]}``), ``trump`` (the
turned-up card, ``"R3"``), ``berzerkers`` ({agent: 1-6 or a name}), ``turn``
(start at turn t) and ``scores`` ({agent: running score 0..1000000}). The rest is dealt
from the seeded shuffle; later turns are dealt normally.

Actions
-------
| segment | ids | meaning | string |
| --- | --- | --- | --- |
| play | 0..53 | play card ``colour * 9 + number - 1`` | ``"R4"`` |
| guess | 54..64 | guess 0..10 tricks | ``"guess 3"`` |
| trump | 65..70 | choose the trump colour R O Y G B P | ``"trump P"`` |
| player | 71..69+n | the player k = 1..n-1 seats to the left | ``"player_2"`` |
| choose | 70+n..123+n | choose a card to discard, pass or trade | ``"choose R4"`` |
| decline | 124+n | decline an optional power | ``"decline"`` |
| trick | 125+n..134+n | the trick the AstroBoard moves: this turn's 1..10 | ``"trick 2"`` |

Colours are R O Y G B P (red, orange, yellow, green, blue, pink), numbers 1-9.
A player action names another player relative to the actor (Nitro's peek,
Surfette's partner, the AstroBoard partner); its string is the absolute agent
id. ``decline`` refuses Surfette's trade or the AstroBoard power; after
Surfette has chosen one card it means "trade only that one". The AstroBoard
power takes two steps: the holder names the partner (or declines), then the
trick that moves, numbered in play order this turn; only the tricks the giver
holds are legal (the partner's when the holder takes, its own when it gives).

Action mask: exact (1 for every legal action, from the rules engine's
``legal_actions``); all zeros for an agent not to act.

Observation
-----------
From the observer's seat; "per seat" fields list the observer first, then its
left neighbour, and so on. All entries lie in [0, 1].

| field | size | encoding |
| --- | --- | --- |
| phase | 11 | one-hot phase (order below); all zero once over |
| turn | 8 | one-hot turn number 1..8 |
| hand_size | 1 | tricks this turn / the largest hand of the configuration (see below) |
| trump_card | 54 | one-hot: the turned-up card (its rule holds) |
| trump_colour | 6 | one-hot: the turn's trump colour (zero while chosen) |
| trick_trump | 6 | one-hot: this trick's trump (after a 2, 3 or 5 changes it) |
| led_colour | 6 | one-hot: the colour led in the current trick |
| trick | n(54+n) | per position in play order: card (54) + who (n, per seat) |
| played | 54 | cards of this turn's finished tricks |
| tricks | 10(54+n) | per finished trick, in play order: cards (54) + holder (n, per seat) |
| guesses | 11n | per seat: one-hot guess 0..10 (zero: not yet) |
| tricks_won | n | per seat: tricks held / the largest hand of the configuration |
| scores | n | per seat: running score / 500, capped at 1 |
| berzerkerbirdz | 6n | per seat: one-hot Berzerkerbird 1..6 (zero: none) |
| astroboard | n | per seat: 1 for the AstroBoard holder |
| astroboard_partner | n | per seat: 1 for the partner the holder chose (while it picks the trick) |
| dealer | n | per seat: 1 for the dealer |
| peeked | n | per seat: 1 for the player whose hand Nitro looked at |
| surfette_partner | n | per seat: 1 for Surfette's trade partner |
| traded | 1 | cards Surfette traded / 2 |
| hand | 54 | own cards |
| chosen | 54 | own cards chosen so far to discard, pass or trade |
| known | 54(n-1) | per other player: cards known in its hand (see below) |
| discarded | 54 | own cards discarded this turn (and still out of play) |

Every entry lies in [0, 1]: counts are divided by their real maximum for the
configuration. The largest hand is the last turn's cards plus the most extra
cards a rule card can deal with the deck that is left (2 players 8, 3 players
8, 4 players 9, 5 players 10, 6 players 8; without rule cards, the number of
turns); running scores are divided by 500 and capped at 1.

Phases: choose_trump, discard, pass_right, pass_left, surfette_partner,
surfette_cards, nitro_peek, guess, play, astroboard, astroboard_trick.
``known`` holds, for each
other player (left neighbour first), the cards the observer can tell are in
its hand: seen there (Nitro's peek) or given to it this turn, and neither
played nor possibly taken away since. When Surfette draws at random from a
hand, or a player passes cards face down, an onlooker no longer knows which of
the cards it knew there are left, so they leave its ``known`` row, unless the
whole hand moved: then they are all known in the receiver's hand (ruling 31).

Nothing hidden leaks: another player's cards appear only in Nitro's ``known``
row after his peek, or as the cards the observer itself passed or traded;
Surfette's random draws are seen only by her (and by the partner they left).

Rewards: option ``reward`` = ``win`` (default, at game end), ``score`` (each
turn's points as they are scored) or ``rank``; game points are
``env.unwrapped.scores``.

Game length and saved states: ``max_steps`` defaults to 10,000 applied
actions, far above the longest game any option mix allows (about 800 steps),
so the cap never cuts a real game. ``load_state_dict`` checks every field of
the game section against the rules before anything changes
(``flockgym.envs.astrobirdz.state.validate_state_dict``: each of the 54 cards
in exactly one place, hand sizes for the turn and phase, whose turn it is, the
guesses, the tricks and who won them, the Berzerkerbirdz and the dealer, the
AstroBoard, pending choices, scores 0..1,000,000) and names the first wrong
field (``game.hands[2]: ...``); a refused dict leaves the env as it was.

Version history: v0, first release. Within v0 (no published checkpoint):
the AstroBoard's trick choice (action segment ``trick``, observation fields
``tricks`` and ``astroboard_partner``, phase ``astroboard_trick``), option
``green_7``.
"""

from __future__ import annotations

import math
import sys
import warnings
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from ..core.aec import FlockAECEnv
from ..core.errors import OptionError, StateDictError
from ..core.options import Option, scenario_seat, warn_unknown_reset_options
from ..core.wrappers import FlockOrderEnforcingWrapper
from . import data
from .actions import ActionLayout
from .basics import (
    BONUS_TIE_MODES,
    CHOICE_PHASES,
    GREEN_7_READINGS,
    HIGHEST_BONUS_MODES,
    PHASE_NAMES,
    AstrobirdzConfig,
    Phase,
    bits,
)
from .data import MAX_SCORE
from .native import ENGINES, NativeAstrobirdzGame, native_available
from .observer import AstrobirdzObserver, observation_size
from .rules import AstrobirdzGame

MAX_AGE = sys.float_info.max
"""The largest age allowed: the largest finite float (no float age can be larger;
an int age is held to the same range)."""
AGES_ALLOWED = (
    f"None or a list of one finite age (a number >= 0) per seat, each at most {MAX_AGE:.4g}"
)


def _ages_ok(value: Any) -> bool:
    """None, or a list of finite numbers >= 0 (NaN and infinity are no age).

    An int above the largest float is refused here with its own message: the
    generic one would print all its digits (or fail to: Python will not turn an
    int of over 4300 digits into a string), and ``math.isfinite`` of it raises
    a bare ``OverflowError``. Comparing an int with a float is exact, so the
    bound check itself cannot overflow."""
    if value is None:
        return True
    if not isinstance(value, (list, tuple)):
        return False
    for seat, v in enumerate(value):
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) > MAX_AGE:
            sign = "a negative" if v < 0 else "an"
            raise OptionError(
                f"option ages: the age of player_{seat} is {sign} integer of "
                f"{v.bit_length()} bits, out of range; allowed: {AGES_ALLOWED}"
            )
    return all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0
        for v in value
    )


def _short(value: Any) -> str:
    """``repr(value)`` cut to a readable length (a scenario may hold 10**400)."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:37]}..."


GAME_OPTIONS: tuple[Option, ...] = (
    Option("berzerkerbirdz", True, "deal the six Berzerkerbirdz and use their powers; False: "
           "none (the dealer rotates left each turn)", choices=(True, False)),
    Option("trump_rules", True, "enforce the turned-up card's rule for the turn; False: it "
           "only sets the trump colour", choices=(True, False)),
    Option("pass_cards", False, "optional rule: pass 1-3 cards to the left before the "
           "guesses", choices=(True, False)),
    Option("ages", None, "one age per seat, for the youngest/oldest rule cards; None: "
           "player_0 is the youngest, the last seat the oldest", check=_ages_ok,
           allowed=AGES_ALLOWED),
    Option("highest_bonus", "among_correct", "who may get the highest-guess bonus: the "
           "highest correct guess, or 'highest_overall': a correct guess that is also the "
           "highest guess of the turn", choices=HIGHEST_BONUS_MODES),
    Option("highest_bonus_ties", "one", "tied candidates for the highest-guess bonus: 'one' "
           "(fewest points, then highest Berzerkerbird) or 'all'", choices=BONUS_TIE_MODES),
    Option("green_7", "beaten_by_higher_trump", "Green Turbo #7's 4s and 5s: beaten by a "
           "higher trump card (the card's last sentence), or 'never_beaten_by_trump' (its "
           "printed example: a red 7 does not beat a yellow 5)", choices=GREEN_7_READINGS),
    Option("engine", "compiled", "the rules engine: 'compiled' (C++) or 'python' (the "
           "reference), identical play; the Python one runs where the compiled cannot load",
           choices=ENGINES, affects_spaces=False),
)  # fmt: skip

SCENARIO_KEYS = ("hands", "trump", "berzerkers", "turn", "scores")
BIRD_NAMES = {b.name.lower(): b.number for b in data.BERZERKERBIRDZ}


def config_from_options(options: dict[str, Any]) -> AstrobirdzConfig:
    """The rules config of validated env options (re-raised as OptionError)."""
    ages = options["ages"]
    config = AstrobirdzConfig(
        num_players=options["num_players"],
        berzerkerbirdz=options["berzerkerbirdz"],
        trump_rules=options["trump_rules"],
        pass_cards=options["pass_cards"],
        ages=None if ages is None else tuple(ages),
        highest_bonus=options["highest_bonus"],
        highest_bonus_ties=options["highest_bonus_ties"],
        green_7=options["green_7"],
    )
    try:
        config.check()
    except ValueError as err:
        raise OptionError(f"option {err}") from None
    return config


OPTION_SAMPLES: tuple[dict[str, Any], ...] = (
    {},
    {"berzerkerbirdz": False, "pass_cards": True, "highest_bonus": "highest_overall"},
    {"trump_rules": False, "highest_bonus_ties": "all"},
    {"pass_cards": True, "green_7": "never_beaten_by_trump", "highest_bonus_ties": "all"},
    {"berzerkerbirdz": False, "trump_rules": False, "pass_cards": True,
     "highest_bonus": "highest_overall", "highest_bonus_ties": "all",
     "green_7": "never_beaten_by_trump"},
)  # fmt: skip
"""Every value of every game option but ``ages``, which is one number per seat
and so cannot be shared by every player count (see :func:`ages_sample`)."""


def ages_sample(num_players: int) -> list[int]:
    """An ``ages`` value for ``num_players`` seats whose youngest (the last
    seat) and oldest (the one before it) are not the default seats."""
    return [20 + 10 * ((seat + 1) % num_players) for seat in range(num_players)]


DEFAULT_MAX_STEPS = 10_000
"""The step cap's default: no game can take more than about 800 steps (8 turns
of at most 10 tricks, 6 seats, every power and pass), the longest random game
seen in 2,400 played about 440."""


def scenario_to_rules(options: dict[str, Any], config: AstrobirdzConfig) -> dict[str, Any]:
    """Translate ``reset(options=...)`` (agent ids, card strings) into rules arguments."""
    warn_unknown_reset_options(options, SCENARIO_KEYS)
    n = config.num_players

    def seat_of(agent: Any) -> int:
        return scenario_seat(agent, n)

    def card_of(text: Any, where: str) -> int:
        if not isinstance(text, str):
            raise OptionError(
                f"reset option {where} must be a card string such as 'R4', got {_short(text)}"
            )
        try:
            return data.parse_card(text)
        except ValueError as err:
            raise OptionError(f"reset option {where}: {err}") from None

    def bird_of(value: Any) -> int:
        if isinstance(value, str) and value.lower() in BIRD_NAMES:
            return BIRD_NAMES[value.lower()]
        if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 6:
            return value
        names = ", ".join(b.name for b in data.BERZERKERBIRDZ)
        raise OptionError(f"reset option berzerkers: {_short(value)} is not one of 1-6 or {names}")

    def points_of(agent: Any, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SCORE:
            raise OptionError(
                f"reset option scores[{agent!r}] must be a whole number 0..{MAX_SCORE}, "
                f"got {_short(value)}"
            )
        return value

    def mapping(key: str) -> dict[Any, Any]:
        value = options.get(key, {})
        if not isinstance(value, dict):
            raise OptionError(
                f"reset option {key!r} must be a dict keyed by agent, e.g. "
                f"{{'player_0': ...}}, got {_short(value)}"
            )
        return value

    def hand_of(agent: Any, texts: Any) -> list[int]:
        if not isinstance(texts, (list, tuple)):
            raise OptionError(
                f"reset option hands[{agent!r}] must be a list of card strings such as "
                f"['R4', 'B9'], got {_short(texts)}"
            )
        return [card_of(c, f"hands[{agent!r}][{i}]") for i, c in enumerate(texts)]

    hands = {seat_of(a): hand_of(a, cs) for a, cs in mapping("hands").items()}
    berzerkers = {seat_of(a): bird_of(b) for a, b in mapping("berzerkers").items()}
    if berzerkers and not config.berzerkerbirdz:
        raise OptionError("reset option 'berzerkers' needs berzerkerbirdz=True")
    turn = options.get("turn", 1)
    if isinstance(turn, bool) or not isinstance(turn, int) or not 1 <= turn <= config.turns:
        raise OptionError(
            f"reset option turn={_short(turn)} is not allowed; allowed: 1..{config.turns}"
        )
    trump = options.get("trump")
    return {
        "hands": hands,
        "trump": None if trump is None else card_of(trump, "trump"),
        "berzerkers": berzerkers,
        "turn": turn,
        "scores": {seat_of(a): points_of(a, p) for a, p in mapping("scores").items()},
    }


def new_game_from_scenario(
    config: AstrobirdzConfig, rng: np.random.Generator, scenario: dict[str, Any]
) -> AstrobirdzGame:
    """Deal a game with a scenario; impossible scenarios raise OptionError."""
    args = scenario_to_rules(scenario, config)
    try:
        return AstrobirdzGame.new(config, rng, **args)
    except ValueError as err:
        raise OptionError(f"impossible Astrobirdz scenario: {err}") from None


def bird_name(number: int) -> str | None:
    return data.bird(number).name if number else None


NAMES_OF_BIRDS: tuple[str | None, ...] = (None, *(bird.name for bird in data.BERZERKERBIRDZ))
""":func:`bird_name` by number (0: no bird), for the view."""


class raw_env(FlockAECEnv):
    """The unwrapped Astrobirdz AEC env; ``env()`` adds PettingZoo's order checks."""

    env_id: ClassVar[str] = "astrobirdz_v0"
    player_counts: ClassVar[tuple[int, ...]] = tuple(sorted(data.TURNS))
    default_players: ClassVar[int] = 4
    default_max_steps: ClassVar[int] = DEFAULT_MAX_STEPS
    game_options: ClassVar[tuple[Option, ...]] = GAME_OPTIONS
    option_samples: ClassVar[tuple[dict[str, Any], ...]] = OPTION_SAMPLES

    @classmethod
    def option_samples_for(cls, num_players: int) -> tuple[dict[str, Any], ...]:
        """The shared samples and one with ``ages``, whose length is the seats'."""
        return (*OPTION_SAMPLES, {"ages": ages_sample(num_players)})

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"],
        "name": "astrobirdz_v0",
        "is_parallelizable": False,
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.layout = ActionLayout(self.num_players)
        self.observer = AstrobirdzObserver(self.num_players)
        self.native = self.options["engine"] == "compiled" and native_available()
        """True when the compiled engine plays (option ``engine``, where it loads)."""

    def _check_option_combination(self) -> None:
        """``ages`` must give one age per seat of ``num_players``; the rules
        config is built (and kept) here, once every option passed alone."""
        if self.options["ages"] is not None:
            self.options["ages"] = list(self.options["ages"])
        self.config = config_from_options(self.options)

    @property
    def astrobirdz(self) -> AstrobirdzGame:
        """The rules engine, typed: with the compiled engine, a Python engine in
        its state (a snapshot: changing it changes nothing in the env)."""
        game = self._require_game()
        if isinstance(game, NativeAstrobirdzGame):
            return game.to_python()
        assert isinstance(game, AstrobirdzGame)
        return game

    def _readable_game(self) -> AstrobirdzGame:
        """The Python engine, or the compiled engine's mirror of its state (to read)."""
        game = self._require_game()
        if isinstance(game, NativeAstrobirdzGame):
            return game.mirror()
        assert isinstance(game, AstrobirdzGame)
        return game

    # -- game hooks --

    def _num_actions(self) -> int:
        return ActionLayout(self.num_players).size

    def _observation_size(self) -> int:
        return observation_size(self.num_players)

    def _new_game(
        self, rng: np.random.Generator, scenario: dict[str, Any]
    ) -> AstrobirdzGame | NativeAstrobirdzGame:
        if self.native and not scenario:
            return NativeAstrobirdzGame.new(self.config, rng)
        game = new_game_from_scenario(self.config, rng, scenario)
        if self.native:
            return NativeAstrobirdzGame.from_python(game)
        game.record_events = True
        return game

    def _game_from_dict(self, data_: dict[str, Any]) -> AstrobirdzGame | NativeAstrobirdzGame:
        game = AstrobirdzGame.from_dict(data_)
        if game.config != self.config:
            raise StateDictError(
                f"game.config: {game.config.to_dict()} differs from this env's "
                f"{self.config.to_dict()}; create the env with the saved options to load it"
            )
        if self.native:
            return NativeAstrobirdzGame.from_python(game)
        game.record_events = True
        return game

    def _engine_from_python(  # type: ignore[override]
        self, game: AstrobirdzGame
    ) -> AstrobirdzGame | NativeAstrobirdzGame:
        """A resampled game without the loader: the compiled engine loads its
        plain fields; a Python engine is rebuilt from them, recording its
        events for the observer as a loaded one does."""
        if self.native:
            return NativeAstrobirdzGame.from_python(game)
        fresh = NativeAstrobirdzGame.game_of(game.config, NativeAstrobirdzGame.fields_of(game))
        fresh.record_events = True
        return fresh

    def _on_new_game(self) -> None:
        game = self._require_game()
        if isinstance(game, NativeAstrobirdzGame):
            return  # the compiled engine writes each observation from its state
        assert isinstance(game, AstrobirdzGame)
        game.events.clear()
        self.observer.rebuild(game)

    def _encode_observation(self, seat: int) -> np.ndarray:
        """Bring the store up to date with the engine's events, then gather
        (the compiled engine writes the vector itself)."""
        game = self.game
        if isinstance(game, NativeAstrobirdzGame):
            return game.encode(seat)
        observer = self.observer
        if game.events or game.phase != observer.shown_phase:  # type: ignore[union-attr]
            observer.sync(game)  # type: ignore[arg-type]
        return observer.store[observer.index[seat]]  # a gather: a fresh array

    # -- words --

    def view(self, agent: str) -> dict[str, Any]:
        """What ``agent`` may see, in words and card strings (JSON types).

        Heuristic opponents read a view at every decision of training, so the
        card strings come from a table and the seat names from a list."""
        game = self._readable_game()
        seat = self.seat_of(agent)
        agents = self.possible_agents
        texts = data.CARD_TEXTS
        to_act = game.current_player()

        def words(mask: int) -> list[str]:
            return list(card_words(mask))

        def played(order: list[int], cards: list[int], strict: bool) -> list[dict[str, str]]:
            pairs = zip(order, cards, strict=strict)
            return [{"player": agents[s], "card": texts[c]} for s, c in pairs]

        peeked: dict[str, Any] | None = None
        if game.peeked >= 0:
            peeked = {"player": agents[game.peeked]}
            if game.birds[seat] == data.NITRO:
                peeked["cards"] = words(game.known[seat][game.peeked])
        rule = game.rule
        trick, trick_order, holders = game.trick, game.trick_order, game.holders
        finished, finished_orders = game.finished, game.finished_orders
        previous = finished[-1] if finished else []
        previous_order = finished_orders[-1] if finished_orders else []
        astroboard, partner = game.astroboard, game.astro_partner
        known = game.known[seat]
        return {
            "game": "astrobirdz",
            "agent": agent,
            "turn": game.turn,
            "turns": self.config.turns,
            "phase": PHASE_NAMES[game.phase],
            "to_act": None if game.over else (agents[to_act] if to_act >= 0 else None),
            "dealer": agents[game.dealer],
            "hand": words(game.hands[seat]),
            "hand_size": game.hand_size,
            "trump_card": data.card_text(game.trump_card),
            "trump_rule": {"card": rule.card, "title": rule.title, "text": rule.text},
            "game_options": self.config.to_dict(),
            "trump_colour": data.COLOURS[game.trump] if game.trump >= 0 else None,
            "trick": played(trick_order, trick, False),
            "trick_order": [agents[s] for s in trick_order],
            "led_colour": data.COLOURS[trick[0] // 9] if trick else None,
            "previous_trick": played(previous_order, previous, True),
            "trick_winners": [agents[s] for s in game.trick_winners],
            "tricks": [
                {
                    "number": index + 1,
                    "cards": played(order, cards, True),
                    "won_by": agents[game.trick_winners[index]],
                    "held_by": agents[holders[index]],
                }
                for index, (cards, order) in enumerate(zip(finished, finished_orders, strict=True))
            ],
            "played_this_turn": words(game.played),
            "guess_order": [agents[s] for s in game.guess_order],
            "guesses": {
                a: (g if g >= 0 else None) for a, g in zip(agents, game.guesses, strict=True)
            },
            "tricks_won": {a: holders.count(s) for s, a in enumerate(agents)},
            "scores": dict(zip(agents, game.scores_, strict=True)),
            "berzerkerbirdz": {
                a: NAMES_OF_BIRDS[b] for a, b in zip(agents, game.birds, strict=True)
            },
            "astroboard": agents[astroboard] if astroboard >= 0 else None,
            "astroboard_partner": agents[partner] if partner >= 0 else None,
            "peeked": peeked,
            "known_cards": {
                agents[s]: words(known[s])
                for s in range(self.num_players)
                if s != seat and known[s]
            },
            "chosen": [texts[c] for c in game.chosen[seat]],
            "to_choose": game.need[seat] if game.phase in _CHOOSING else 0,
            "discarded": words(game.discarded[seat]),
            "surfette_trade": None
            if game.partner < 0
            else {"partner": agents[game.partner], "cards": game.traded},
            "astroboard_transfer": None
            if not game.transfer
            else {
                "from": agents[game.transfer[0]],
                "to": agents[game.transfer[1]],
                "trick": game.transfer[2] + 1,
            },
            "last_turn": None
            if game.last_turn is None
            else {a: item.to_dict() for a, item in zip(agents, game.last_turn, strict=True)},
            "over": game.over,
            "winners": [agents[s] for s in game.winners()] if game.over else [],
        }

    def _render_text(self, seat: int | None) -> str:
        """The table in words, built from views only, so that a seat's text can
        never show more than that seat may see (``None``: every hand)."""
        agents = self.possible_agents
        shown = agents if seat is None else [agents[seat]]
        views = {a: self.view(a) for a in shown}
        v = views[shown[0]]
        rule, trump = v["trump_rule"], v["trump_colour"]
        colour = data.COLOUR_NAMES[data.COLOURS.index(trump)] if trump else "(being chosen)"
        tricks = f"{v['hand_size']} trick{'' if v['hand_size'] == 1 else 's'}"
        lines = [
            f"Astrobirdz  turn {v['turn']}/{v['turns']}  {tricks}  "
            f"dealer {v['dealer']}  phase {v['phase']}",
            f"trump card {v['trump_card']} ({rule['title']}: {rule['text']})  "
            f"trump colour {colour}",
        ]
        if v["trick"]:
            lines.append("trick: " + ", ".join(f"{p['player']} {p['card']}" for p in v["trick"]))
        elif v["previous_trick"]:
            played = ", ".join(f"{p['player']} {p['card']}" for p in v["previous_trick"])
            lines.append(f"last trick: {played} -> {v['trick_winners'][-1]}")
        for agent in agents:
            mark = ">" if agent == v["to_act"] else " "
            guess = v["guesses"][agent]
            extras = [
                v["berzerkerbirdz"][agent] or "",
                "AstroBoard" if agent == v["astroboard"] else "",
            ]
            line = (
                f"{mark} {agent}: {v['scores'][agent]:>4} pts  "
                f"guess {'-' if guess is None else guess}  won {v['tricks_won'][agent]}  "
                + " ".join(e for e in extras if e)
            )
            if agent in views:
                line += f"  hand [{' '.join(views[agent]['hand'])}]"
            lines.append(line.rstrip())
        if v["over"]:
            lines.append("game over; winners: " + ", ".join(v["winners"]))
        return "\n".join(lines)


_CHOOSING = (*CHOICE_PHASES, Phase.SURFETTE_CARDS)


@lru_cache(maxsize=4096)
def card_words(mask: int) -> tuple[str, ...]:
    """The cards of a bitmask as strings, ascending: every seat's view shows the
    same cards played this turn until the next trick ends, so they are spelled
    once (the view hands out a fresh list of them)."""
    return tuple(data.CARD_TEXTS[c] for c in bits(mask))


def env(**options: Any) -> Any:
    """The Astrobirdz AEC env with PettingZoo's order checks.

    Options (all keyword): ``num_players`` (2-6, default 4), ``reward``,
    ``illegal_action``, ``render_mode``, and the game options of
    ``docs/rules/astrobirdz.md`` (``berzerkerbirdz``, ``trump_rules``,
    ``pass_cards``, ``ages``, ``highest_bonus``, ``highest_bonus_ties``, ``green_7``).
    """
    return FlockOrderEnforcingWrapper(raw_env(**options))


def parallel_env(**options: Any) -> Any:
    """Astrobirdz through PettingZoo's turn-based AEC-to-parallel conversion:
    each ``step`` takes a dict of actions and applies the one of the agent to
    act (``infos[agent]["active_agent"]``); the others are ignored."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return turn_based_aec_to_parallel(env(**options))
