"""The compiled Arena engine behind the same interface as :class:`.rules.ArenaGame`.

``envs/arena/native/arena_engine.hpp`` plays the rules of :mod:`.rules` and its
chapters in C++, decision by decision identically (every legal action, roll
and state dict; ``tests/arena/test_arena_compiled.py`` compares them over
thousands of random games at every player count and option set). This module
binds it: :class:`CompiledArenaGame` is a :class:`~flockgym.envs.core.game.GameEngine`
(legal actions, masks, apply, scores, winners, action strings, ``to_dict``)
for rollouts, search and tournaments, where the Python engine's speed is the
cost. ``rules.py`` stays the readable reference.

What stays in Python: a scenario's setup (it runs once a game; the game is
handed over at its first decision) and the checking of a loaded state dict
(:func:`.state.validate_state`); the observation is compiled too
(:meth:`CompiledArenaGame.observation`, observer.py's vector), while the view,
the text board and the bots read a Python game
(:meth:`CompiledArenaGame.python_game`).

Where the extension cannot load, :func:`compiled_engine_available` is false
(a warning says so once) and callers keep the Python engine.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import numpy as np

from ..core.compiled import CompiledGame, load_compiled, require_compiled
from ..core.errors import DieNeeded
from ..core.rng import generator_in_state
from .actions import ActionLayout
from .data import FORMS, HEURISTIC_CHARACTER_ORDER, MEDALS, Box
from .encounters import PORTAL_TABLES, TASKS
from .observer import Scales
from .phases import BOARD, ON_BOARD, PHASE_NAMES
from .rules import ArenaConfig, ArenaGame, ForcedDiceError
from .setup import Scenario

SPACE_KINDS = ("gym", "maneuver", "world", "portal", "slide", "entrance")
BONUS_KINDS = ("maneuver", "world", "medal", "attack", "defence", "movement", "gym_trophy")
POWER_KINDS = ("transform", "bonus", "trophies", "gold_reading", "extra_die")
POWER_ROLLS = ("movement", "challenge", "defence")
DIE_USES = ("movement", "challenge", "defence")
ENGINE_TASKS = (
    "slide_lose_maneuver", "slide_lose_world", "slide_return", "slide_take_trophy",
    "slide_take_world", "slide_new_turn", "slide_gym", "asteroid_discard", "nova_turn_back",
    "nova_become", "nova_gym", "black_hole_inside", "black_hole_world", "black_hole_place",
    "dark_matter_other", "dark_matter_maneuver", "wormhole_anywhere", "wormhole_player",
    "wormhole_place", "wormhole_inside", "star_cluster_become", "space_time_target",
    "space_time_maneuver", "zoominium_anywhere", "zoominium_maneuver", "zoominium_world",
)  # fmt: skip
"""The tasks in the order of the C++ ``Task`` enum (the names of :data:`.encounters.TASKS`)."""


def compiled_engine_available() -> bool:
    """Whether the compiled Arena engine loads (a warning says once when not)."""
    return load_compiled("arena") is not None


def box_payload(box: Box) -> dict[str, Any]:
    """The box as the plain lists the C++ engine reads (ids for every name)."""
    characters = [c.name for c in box.characters]
    return {
        "trophies": box.trophies,
        "start_trophies": box.start_trophies,
        "gym_trophies": box.gym_trophies,
        "gym_power_cards": box.gym_power_cards,
        "medal_supply": list(box.medal_supply),
        "challenge_dice": box.challenge_dice,
        "maneuvers_for_worlds": box.maneuvers_for_worlds,
        "medal_target": box.medal_target,
        "trophy_value": box.trophy_value,
        "dark_matter_turns": box.dark_matter_turns,
        "dark_matter_value": box.dark_matter_value,
        "transform_on": box.transform_on,
        "win_worlds": box.win_worlds,
        "win_defended": box.win_defended,
        "medal_levels": [[m.maneuvers, m.below, m.reads] for m in box.medal_levels],
        "movement_die": list(box.movement_die),
        "challenge_die": list(box.challenge_die),
        "slide_die": list(box.slide_die),
        "first_turn_die": box.first_turn_die,
        "kind_of": [SPACE_KINDS.index(k) for k in box.kind_of],
        "next_of": [list(n) for n in box.next_of],
        "corners": list(box.corners),
        "maneuver_spaces": list(box.maneuver_spaces),
        "world_spaces": list(box.world_spaces),
        "inside_spaces": list(box.inside_spaces),
        "slide_ends": list(box.slide_ends),
        "portal_front": box.portal_front,
        "portal_exit_outside": box.portal_exit_outside,
        "portal_exit_inside": box.portal_exit_inside,
        "cards": [_card_row(box, c, characters) for c in box.cards],
        "characters": [_character_row(c) for c in box.characters],
        "gyms": [_gym_row(g) for g in box.gyms],
        "medal_cards": [
            [k.trophy, sum(1 << i for i, use in enumerate(DIE_USES) if use in k.extra_die)]
            for k in box.medal_cards
        ],
        "character_names": characters,
        "gym_names": [g.name for g in box.gyms],
        "task_names": list(ENGINE_TASKS),
        "scales": _scales(box),
        "table_names": list(PORTAL_TABLES),
        "card_names": [c.name for c in box.cards],
        "space_at": [list(sp.at) for sp in box.spaces],
        "character_rank": [
            HEURISTIC_CHARACTER_ORDER.index(name)
            if name in HEURISTIC_CHARACTER_ORDER
            else len(HEURISTIC_CHARACTER_ORDER)
            for name in characters
        ],
    }


def _scales(box: Box) -> list[int]:
    """observer.Scales of the box, and its largest die (the observation's divisors)."""
    sc = Scales.of(box)
    return [sc.move, sc.need, sc.total, sc.bonus, sc.extra, box.max_sides]


def _card_row(box: Box, card: Any, characters: list[str]) -> list[int]:
    named = characters.index(card.character) if card.character in characters else -1
    bonus = card.bonus
    return [
        int(card.is_world),
        card.number,
        card.challenge,
        named,
        -1 if bonus is None else bonus.form,
        0 if bonus is None else bonus.amount,
    ]


def _character_row(character: Any) -> list[int]:
    bonuses = [character.bonus_in(form) for form in range(3)]
    return [
        int(character.invazorz),
        *(BONUS_KINDS.index(b.kind) for b in bonuses),
        *(b.amount for b in bonuses),
    ]


def _gym_row(gym: Any) -> list[int]:
    power = gym.power
    roll = POWER_ROLLS.index(power.roll) if power.roll in POWER_ROLLS else len(POWER_ROLLS)
    return [POWER_KINDS.index(power.kind), roll, power.amount]


@functools.lru_cache(maxsize=16)
def _engine_for(box: Box) -> Any:
    """The C++ box of ``box`` (built once per box)."""
    return require_compiled("arena", "Arena").Engine(box_payload(box))


class CompiledArenaGame(CompiledGame):
    """An Arena game played by the compiled engine.

    Build it with :meth:`new` (a seed's generator and a scenario, as
    :meth:`.rules.ArenaGame.new`), :meth:`from_dict` (a saved state, checked by
    the Python engine first) or :meth:`from_python` (a Python game's state)."""

    def __init__(self, config: ArenaConfig, native: Any) -> None:
        super().__init__(config, native)
        self.box = config.box
        self.layout = ActionLayout(self.box, config.num_players)
        self._num_actions = self.layout.size

    # -- building --

    @classmethod
    def new(
        cls, config: ArenaConfig, rng: np.random.Generator, scenario: Scenario | None = None
    ) -> CompiledArenaGame:
        """A new game: set up in C++ when there is no scenario, else by the Python
        engine (a scenario's checks and pieces), then compiled play. ``rng`` is
        not drawn from: the game owns a generator in its state."""
        plain = scenario is None or scenario == Scenario()
        if plain and config.box.num_characters >= config.num_players:
            config.check()
            engine = _engine_for(config.box)
            state = rng.bit_generator.state
            return cls(config, _engine_module().Game(engine, config.to_dict(), state))
        return cls.from_python(ArenaGame.new(config, rng, scenario))

    @classmethod
    def from_python(cls, game: ArenaGame) -> CompiledArenaGame:
        """The compiled twin of a Python game (same state, same future draws)."""
        native = _engine_module().Game(_engine_for(game.config.box), game.to_dict())
        return cls(game.config, native)

    @classmethod
    def from_dict(cls, d: Any, expected: ArenaConfig | None = None) -> CompiledArenaGame:
        """A saved state, checked field by field by the Python engine
        (:class:`~flockgym.envs.core.errors.StateDictError` names a bad one)."""
        return cls.from_python(ArenaGame.from_dict(d, expected))

    def with_state(self, d: dict[str, Any]) -> CompiledArenaGame:
        """A new compiled game in the state of ``d``, a state dict this engine
        wrote (then edited by a resampler), without :func:`.state.validate_state`'s
        checks: this game's engine copied and every field loaded from ``d``
        (the search's hot path; a saved state goes through :meth:`from_dict`).
        This game is unchanged."""
        engine = self.engine.copy()
        engine.load(d)
        return type(self)(self.config, engine)

    def copy(self) -> CompiledArenaGame:
        """An independent engine in the same state (same future draws), sharing
        this one's config and action layout (read-only): the bridge's and the
        search's clones."""
        other = object.__new__(type(self))
        fields = other.__dict__
        fields.update(self.__dict__)
        fields["engine"] = self.engine.copy()
        return other

    def __copy__(self) -> CompiledArenaGame:
        return self.copy()

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its config and state dict (the C++ game is rebuilt on load)."""
        return (_rebuild, (self.config, self.to_dict()))

    def __getattr__(self, name: str) -> Any:
        """The Python engine's state fields (``positions``, ``trophies``, ``phase``,
        ...), read from a Python copy of this state: reading works as on the
        Python engine; changing what is returned changes nothing here."""
        if name in _READABLE:
            return getattr(self.python_game(), name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        """A state field is not set here (it would change a copy, not the game):
        a clear error instead of a silent no-op."""
        if name in _READABLE:
            raise AttributeError(
                f"{name!r} of a compiled Arena game is a read-only copy; set fields on the "
                "Python engine (option engine='python') or load a state dict"
            )
        super().__setattr__(name, value)

    # -- the GameEngine interface --

    def apply_action(self, action: int) -> None:
        try:
            self.engine.apply_action(int(action))
        except ValueError as err:
            if isinstance(err, _engine_module().ForcedDiceRoll):
                raise ForcedDiceError(self._forced_message(str(err))) from None
            raise ValueError(
                f"illegal Arena action {action} ({self._describe(action)}) for player_"
                f"{self.current_player()}; legal: "
                f"{[self._describe(a) for a in self.legal_actions()]}"
            ) from None
        except _engine_module().OutsideDieNeeded as err:
            raise self._die_needed(str(err)) from None

    def dice_from_outside(self, faces: list[int] | None, max_sides: int) -> None:
        """Feed this game's dice from outside (the OpenSpiel bridge's chance
        nodes): until called again with ``faces`` None, each die rolled shows
        the next of ``faces`` exactly as the Python engine's ``roll_die`` shows
        a face the bridge feeds it (the generator moves on as under the game's
        own die, :meth:`.rules.ArenaGame.draw_for_die`; the face goes through
        the forced queue). The first die past them, or a die of more than
        ``max_sides`` faces, stops the step with
        :class:`~flockgym.envs.core.errors.DieNeeded`, the game left mid-step
        for the caller to discard."""
        self.engine.set_outside_dice(None if faces is None else list(faces), int(max_sides))

    def first_die_needed(self, action: int, faces: list[int], max_sides: int) -> DieNeeded | None:
        """The die the legal ``action`` would roll past ``faces`` fed as in
        :meth:`dice_from_outside` (:class:`~flockgym.envs.core.errors.DieNeeded`,
        not raised), or None when those faces see the step through; played on a
        copy in C++, this game unchanged (the bridge steps its own env only
        once the step will not stop)."""
        need = self.engine.first_die_needed(int(action), faces, int(max_sides))
        if need is None:
            return None
        seat, sides, purpose, fed = need
        return DieNeeded(seat, sides, _purpose_name(self.box, purpose), bool(fed))

    def _die_needed(self, raw: str) -> DieNeeded:
        seat, sides, purpose, fed = raw.split("|")
        name = _purpose_name(self.box, int(purpose))
        return DieNeeded(int(seat), int(sides), name, fed == "1")

    def to_dict(self) -> dict[str, Any]:
        return self.engine.to_dict()

    def invariant_violations(self) -> list[str]:
        return self.python_game().invariant_violations()

    # -- beyond the interface --

    def observation(self, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """``seat``'s observation vector, as :class:`.observer.ArenaObserver`
        encodes it (written into ``out``, a float32 array of its size, if given)."""
        if out is None:
            return self.engine.observation(seat)
        self.engine.observe_into(seat, out)
        return out

    def python_game(self) -> ArenaGame:
        """The Python engine's game in this state (for the views, the text board
        and the bots). Built without :func:`.state.validate_state`'s checks: the
        state is this engine's own, which the tests hold equal to the Python
        engine's at every step."""
        return trusted_python_game(self.config, self.to_dict())

    def play_random(self, rng: np.random.Generator, max_steps: int = 10**9) -> int:
        """Random legal play from here (uniform picks drawn from ``rng``, which
        moves on) until the game ends or ``max_steps`` decisions; returns the
        decisions made. Picks are ``rng.integers(len(legal))``, as a Python
        loop would draw them. A forced die its die cannot show raises
        :class:`.rules.ForcedDiceError` with the game at the step that rolled it."""
        try:
            steps, state = self.engine.play_random(rng.bit_generator.state, int(max_steps))
        except _engine_module().ForcedDiceRoll as err:
            raise ForcedDiceError(self._forced_message(str(err))) from None
        rng.bit_generator.state = state
        return int(steps)

    def _describe(self, action: int) -> str:
        try:
            return self.layout.to_string(self.current_player(), int(action))
        except (ValueError, TypeError):
            return "out of range"

    def _forced_message(self, raw: str) -> str:
        """The Python engine's words for a forced die its die cannot show."""
        rolls, seat, purpose, sides, value = raw.split("|")
        name = _purpose_name(self.box, int(purpose))
        return (
            f"reset option dice: roll {rolls} (player_{seat}, {name}) is a d{sides}, which "
            f"cannot show the forced result {value}; allowed 1..{sides}"
        )


class CompiledArenaBot:
    """:class:`.bots.ArenaHeuristicBot` compiled (``native/arena_bot.hpp``): the
    same move at every decision, read straight from a compiled game (no view
    built). ``tests/arena/test_arena_bot_compiled.py`` plays both side by side.

    Its state is the Python bot's: the generator that draws the picks no rule
    of the bot settles, and the Nebula Slides gone through this turn."""

    def __init__(self, rng: np.random.Generator, slides: tuple[int, int, int] | None = None):
        self.bot = _engine_module().HeuristicBot(rng.bit_generator.state)
        self.bot.set_slides(slides)

    def act_in(self, game: CompiledArenaGame) -> int:
        """The move of the seat to act in ``game``."""
        return int(self.bot.act(game.engine))

    def state(self) -> dict[str, Any]:
        """``{"rng": generator state, "slides": (round, seat on turn, slides) or None}``."""
        return dict(self.bot.state())


def trusted_python_game(config: ArenaConfig, d: dict[str, Any]) -> ArenaGame:
    """An :class:`.rules.ArenaGame` from a state dict this process's engine wrote
    (the fields as :func:`.state.validate_state` reads them, without its checks,
    which cost ten times the conversion)."""
    box = config.box
    game = ArenaGame(config=config, rng=generator_in_state(d["rng"]))
    character = box.character_named
    gym = box.gym_named
    game.characters = [-1 if c is None else character[c.lower()] for c in d["characters"]]
    game.wishes = [-1 if c is None else character[c.lower()] for c in d["wishes"]]
    game.forms = [-1 if f is None else FORMS.index(f) for f in d["forms"]]
    game.medals = [[1 if m in held else 0 for m in MEDALS] for held in d["medals"]]
    game.powers = []
    for held in d["powers"]:
        counts = [0] * len(box.gyms)
        for name in held:
            counts[gym[name.lower()]] += 1
        game.powers.append(counts)
    game.gym_at = [gym[name.lower()] for name in d["gym_at"]]
    game.phase = PHASE_NAMES.index(d["phase"])
    for name in _PLAIN_FIELDS:
        setattr(game, name, d[name])
    game.roll_cards = [list(cards) for cards in d["roll_cards"]]
    game.roll_log = [list(entry) for entry in d["roll_log"]]
    last = d["last_challenge"]
    game.last_challenge = None if last is None else dict(last)
    game.winners_ = list(d["winners"])
    n = config.num_players
    game.maneuvers_of = [[] for _ in range(n)]
    game.worlds_of = [[] for _ in range(n)]
    for card, holder in enumerate(game.card_holder):
        if holder >= 0:
            (game.worlds_of if box.cards[card].is_world else game.maneuvers_of)[holder].append(card)
    items = [-1] * box.num_spaces
    for card, holder in enumerate(game.card_holder):
        if holder == BOARD:
            items[game.card_space[card]] = card
    for k, holder in enumerate(game.medal_holder):
        if holder == ON_BOARD:
            items[game.medal_space[k]] = box.num_cards + k
    game.space_item = items
    return game


_PLAIN_FIELDS = (
    "positions", "trophies", "bonus_trophies", "lost_turns", "upside_down", "dark",
    "first_turn", "worlds_won", "start_corner", "supply", "medal_supply", "gym_trophies",
    "gym_cards", "card_holder", "card_space", "defended", "medal_stack", "medal_holder",
    "medal_space", "preset_first", "first_player", "turn_seat", "rounds", "actor", "task",
    "task_args", "steps_left", "entered", "stopped", "forced_target", "move_total",
    "new_turns", "roll_bonus", "roll_gold", "roll_extra", "ch_kind", "ch_item",
    "ch_defender", "ch_spent", "last_encounter", "log_start", "seen", "forced", "rolls_made",
    "over", "win_reason",
)  # fmt: skip
"""State dict fields an ArenaGame holds as they are (fresh lists from to_dict)."""


_READABLE = frozenset(
    {f.name for f in dataclasses.fields(ArenaGame) if not f.name.startswith("_")}
    - {"config", "rng"}
) | {"maneuvers_of", "worlds_of", "space_item"}
"""What :meth:`CompiledArenaGame.__getattr__` reads from a Python copy."""


def _rebuild(config: ArenaConfig, state: dict[str, Any]) -> CompiledArenaGame:
    """The game :meth:`CompiledArenaGame.__reduce__` pickled (its state checked)."""
    return CompiledArenaGame.from_dict(state, config)


FIXED_PURPOSES = ("movement", "defence", "maneuver challenge", "world challenge",
                  "medal challenge", "homeworld challenge", "favourite challenge",
                  "standard challenge", "transformation", "nebula slide", "astroportal",
                  "star cluster trophies", "first player")  # fmt: skip
"""Roll purposes in the order of the C++ ``Purpose`` enum (then the portal tables,
then ``character <name>``)."""


def _purpose_name(box: Box, code: int) -> str:
    tables = len(FIXED_PURPOSES)
    if code < tables:
        return FIXED_PURPOSES[code]
    if code < tables + len(PORTAL_TABLES):
        return PORTAL_TABLES[code - tables]
    return f"character {box.characters[code - tables - len(PORTAL_TABLES)].name}"


def _engine_module() -> Any:
    return require_compiled("arena", "Arena")


def _check_tables() -> None:
    """The C++ enums follow the Python tables' names (checked at import)."""
    if tuple(TASKS) != ENGINE_TASKS:
        raise RuntimeError("envs/arena/native.py ENGINE_TASKS differ from encounters.TASKS")
    if len(PHASE_NAMES) != 14:
        raise RuntimeError("the Arena's phases changed: update arena_engine.hpp")


_check_tables()
