"""The Arena box as data: loading and checking ``arena.yaml``.

The rulebook describes the board and the cards without printing them; the
reconstruction lives in ``arena.yaml`` beside this module (every table of it is
printed in ``docs/rules/arena.md``). :func:`load_box` reads that file, or
another one given with the env option ``data=``, with ``yaml.safe_load`` and
checks it entry by entry: a malformed entry raises :class:`BoxError` naming
the file, the entry and the field (``maneuvers[2] (Polar Vortex Spin): field
'number' ...``). The result is a frozen :class:`Box` that the rules engine,
the action layout and the observer read; nothing in the engine hard-codes a
card, a space or a number the box gives.

Ids: spaces are numbered as in the file (0..S-1). Cards are maneuvers first
(ids 0..M-1, file order) then worlds (M..M+W-1). Characters are the Astrobirdz
first (0..A-1) then the Invazorz. Gyms and medal cards are numbered in file
order.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..core.errors import OptionError, OptionFileError
from ..core.options import option_file_stat, parse_error_text, read_option_file
from ..core.reader import InputError, limit_problem, load_yaml

DEFAULT_PATH = Path(__file__).with_name("arena.yaml")

FORMS = ("astrobirdz", "berzerkerbirdz", "invazorz")
ASTROBIRDZ, BERZERKERBIRDZ, INVAZORZ = range(3)
SPACE_KINDS = ("gym", "maneuver", "world", "portal", "slide", "entrance")
REGIONS = ("outside", "inside")
BONUS_KINDS = ("maneuver", "world", "medal", "attack", "defence", "movement", "gym_trophy")
POWER_KINDS = ("transform", "bonus", "trophies", "gold_reading", "extra_die")
POWER_ROLLS = ("movement", "challenge", "defence")
DIE_USES = ("movement", "challenge", "defence")
MEDALS = ("bronze", "silver", "gold")

HEURISTIC_CHARACTER_ORDER: tuple[str, ...] = (
    "Jetboardzerka",
    "Wakeboardzerka",
    "Hoverboardzerka",
    "Sandboardzerka",
    "Skateboardzerka",
    "Magboardzerka",
    "Surfboardzerka",
    "Snowboardzerka",
    "Skyboardzerka",
    "Insecta-Invazorz Carapax Prime",
    "Spaceboardzerka",
    "Jellyfish-Invazorz Glowdrift Nemmon",
    "Mecha-Invazorz Destructarian Graptarg",
    "Raptor-Invazorz Talonmaw Skreech",
    "Insecta-Invazorz Swarmqueen Zzyzx",
    "Jellyfish-Invazorz Stingtide Ooloo",
    "Raptor-Invazorz Razorquill Vex",
    "Mecha-Invazorz Gearlord Kranx",
)
"""The shipped box's characters by the heuristic bot's win rate with them,
highest first: its wish order (the board is not dealt when seats wish).
Measured by ``python benchmarks/arena_character_strength.py --games 3000
--players 4 --seed 0`` (benchmarks/results/arena_character_strength.json). Neighbours can be
within the measurement's noise (about 0.017 of win rate, one standard error,
at some 660 games a character)."""
MAX_SIDES = 20


class BoxError(OptionError):
    """The box file (option ``data``) is malformed; the message names the entry and field."""


# ---- the frozen box ---------------------------------------------------------------


@dataclass(frozen=True)
class Bonus:
    """A character's bonus: ``amount`` added to rolls of ``kind`` (see the YAML)."""

    kind: str
    amount: int


@dataclass(frozen=True)
class CardBonus:
    """A card's bonus: a challenger in ``form`` adds ``amount`` when challenging for it."""

    form: int
    amount: int


@dataclass(frozen=True)
class Space:
    id: int
    kind: str
    region: str
    at: tuple[int, int]
    next: tuple[int, ...]
    entrance: str | None = None
    step: int | None = None


@dataclass(frozen=True)
class Card:
    """A maneuver or world card. ``number`` is its character's number (favourite
    trick or homeworld); ``challenge`` the number to meet on the board."""

    id: int
    kind: str
    name: str
    character: str
    number: int
    challenge: int
    bonus: CardBonus | None = None

    @property
    def is_world(self) -> bool:
        return self.kind == "world"


@dataclass(frozen=True)
class Character:
    """A character card; an Astrobirdz also has a Berzerkerbirdz card of the same name."""

    id: int
    name: str
    invazorz: bool
    detail: str
    """Board type (Astrobirdz) or race (Invazorz)."""
    colour: str
    bonus: Bonus
    berzerkerbirdz_bonus: Bonus | None

    def bonus_in(self, form: int) -> Bonus:
        """The bonus of the card in use in ``form``."""
        if form == BERZERKERBIRDZ and self.berzerkerbirdz_bonus is not None:
            return self.berzerkerbirdz_bonus
        return self.bonus


@dataclass(frozen=True)
class GymPower:
    kind: str
    roll: str | None = None
    amount: int = 0


@dataclass(frozen=True)
class Gym:
    id: int
    name: str
    colour: str
    power: GymPower


@dataclass(frozen=True)
class MedalCard:
    id: int
    name: str
    trophy: int
    """Trophies it gives at once (0 for an extra-die card)."""
    extra_die: tuple[str, ...]
    """Rolls its die may be added to (empty for a trophy card)."""


@dataclass(frozen=True)
class MedalLevel:
    medal: str
    maneuvers: int
    below: int
    reads: int


@dataclass(frozen=True)
class Box:
    """Everything out of the box, checked. Built by :func:`load_box`."""

    name: str
    source: str
    trophies: int
    start_trophies: int
    gym_trophies: int
    gym_power_cards: int
    gyms_used: int
    medal_supply: tuple[int, int, int]
    permanently_defended_cards: int
    challenge_dice: int
    maneuver_offset: int
    world_offset: int
    maneuvers_for_worlds: int
    medal_target: int
    trophy_value: int
    dark_matter_turns: int
    dark_matter_value: int
    transform_on: int
    win_worlds: int
    win_defended: int
    medal_levels: tuple[MedalLevel, ...]
    movement_die: tuple[int, int, int]
    challenge_die: tuple[int, int, int]
    slide_die: tuple[int, int, int]
    first_turn_die: int
    spaces: tuple[Space, ...]
    portal_front: int
    portal_exit_outside: int
    portal_exit_inside: int
    cards: tuple[Card, ...]
    num_maneuvers: int
    characters: tuple[Character, ...]
    num_astrobirdz: int
    gyms: tuple[Gym, ...]
    medal_cards: tuple[MedalCard, ...]
    medal_bonus_cards: tuple[tuple[str, str], ...]

    # -- derived facts (cheap, computed once) --

    @functools.cached_property
    def corners(self) -> tuple[int, ...]:
        """Gym spaces in the order of the outer loop from the lowest id."""
        return tuple(s.id for s in self.spaces if s.kind == "gym")

    @functools.cached_property
    def portals(self) -> tuple[int, ...]:
        return tuple(s.id for s in self.spaces if s.kind == "portal")

    @functools.cached_property
    def slide_ends(self) -> tuple[int, int]:
        ends = tuple(s.id for s in self.spaces if s.kind == "slide")
        return ends[0], ends[1]

    @functools.cached_property
    def maneuver_spaces(self) -> tuple[int, ...]:
        return tuple(s.id for s in self.spaces if s.kind == "maneuver")

    @functools.cached_property
    def world_spaces(self) -> tuple[int, ...]:
        return tuple(s.id for s in self.spaces if s.kind == "world")

    @functools.cached_property
    def inside_spaces(self) -> tuple[int, ...]:
        return tuple(s.id for s in self.spaces if s.region == "inside")

    @functools.cached_property
    def next_of(self) -> tuple[tuple[int, ...], ...]:
        return tuple(s.next for s in self.spaces)

    @functools.cached_property
    def kind_of(self) -> tuple[str, ...]:
        return tuple(s.kind for s in self.spaces)

    @functools.cached_property
    def card_named(self) -> dict[str, int]:
        return {c.name.lower(): c.id for c in self.cards}

    @functools.cached_property
    def character_named(self) -> dict[str, int]:
        return {c.name.lower(): c.id for c in self.characters}

    @functools.cached_property
    def gym_named(self) -> dict[str, int]:
        return {g.name.lower(): g.id for g in self.gyms}

    @functools.cached_property
    def medal_card_named(self) -> dict[str, int]:
        return {m.name.lower(): m.id for m in self.medal_cards}

    @property
    def num_spaces(self) -> int:
        return len(self.spaces)

    @property
    def num_cards(self) -> int:
        return len(self.cards)

    @property
    def num_worlds(self) -> int:
        return len(self.cards) - self.num_maneuvers

    @property
    def num_characters(self) -> int:
        return len(self.characters)

    @property
    def max_sides(self) -> int:
        return max(*self.movement_die, *self.challenge_die, *self.slide_die, self.first_turn_die)

    def entrance_spaces(self) -> dict[str, dict[int, int]]:
        """``{entrance name: {step 1..4: space id}}``."""
        out: dict[str, dict[int, int]] = {}
        for s in self.spaces:
            if s.entrance is not None and s.step is not None:
                out.setdefault(s.entrance, {})[s.step] = s.id
        return out


# ---- reading and checking -----------------------------------------------------------


class _Reader:
    """Field access with errors that name the file, the entry and the field."""

    def __init__(self, source: str, quote_values: bool = True) -> None:
        self.source = source
        self.quote_values = quote_values

    def show(self, value: Any) -> str:
        """``value`` for an error message: quoted (shortened) for the shipped box
        and inline text; for a file an option named, only its kind (and a
        number's value), since such a file may hold anything, secrets included."""
        if self.quote_values or value is None or isinstance(value, (bool, int, float)):
            return _short(value)
        return _kind(value)

    def show_keys(self, keys: list[Any]) -> str:
        """Unknown field names for an error: names that look like field names
        are shown (a typo is what they usually are), others only counted."""
        if self.quote_values:
            return ", ".join(str(k) for k in keys)
        plain = [k for k in keys if isinstance(k, str) and _FIELD_NAME.fullmatch(k)]
        hidden = len(keys) - len(plain)
        return ", ".join(plain + ([f"{hidden} other key(s)"] if hidden else []))

    def fail(self, where: str, message: str) -> None:
        raise BoxError(f"arena box {self.source}: {where}: {message}")

    def mapping(self, value: Any, where: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(where, f"must be a mapping, got {self.show(value)}")
        return value

    def listing(self, value: Any, where: str, min_len: int = 0) -> list[Any]:
        if not isinstance(value, list) or len(value) < min_len:
            self.fail(
                where, f"must be a list of at least {min_len} entries, got {self.show(value)}"
            )
        return value

    def field(self, entry: dict[str, Any], name: str, where: str) -> Any:
        if name not in entry:
            self.fail(where, f"field {name!r} is missing")
        return entry[name]

    def integer(
        self, entry: dict[str, Any], name: str, where: str, low: int, high: int | None = None
    ) -> int:
        value = self.field(entry, name, where)
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or value < low
            or (high is not None and value > high)
        ):
            span = f"{low}..{high}" if high is not None else f">= {low}"
            self.fail(where, f"field {name!r} must be an integer {span}, got {self.show(value)}")
        return value

    def text(self, entry: dict[str, Any], name: str, where: str) -> str:
        value = self.field(entry, name, where)
        if not isinstance(value, str) or not value.strip():
            self.fail(where, f"field {name!r} must be a non-empty string, got {self.show(value)}")
        return value.strip()

    def choice(self, entry: dict[str, Any], name: str, where: str, allowed: tuple[str, ...]) -> str:
        value = self.field(entry, name, where)
        if value not in allowed:
            self.fail(
                where, f"field {name!r} must be one of {', '.join(allowed)}, got {self.show(value)}"
            )
        return value

    def only(self, entry: dict[str, Any], where: str, allowed: tuple[str, ...]) -> None:
        unknown = sorted((k for k in entry if k not in allowed), key=str)
        if unknown:
            self.fail(
                where, f"unknown field(s) {self.show_keys(unknown)}; allowed: {', '.join(allowed)}"
            )


_FIELD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,31}")


def _kind(value: Any) -> str:
    """A value described by its type and size, not its content."""
    if isinstance(value, str):
        return f"a string of {len(value)} characters"
    if isinstance(value, list):
        return f"a list of {len(value)} entries"
    if isinstance(value, dict):
        return f"a mapping of {len(value)} keys"
    return f"a value of type {type(value).__name__}"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _entry_name(entry: Any) -> str:
    if isinstance(entry, dict) and isinstance(entry.get("name"), str):
        return f" ({entry['name']})"
    return ""


BOX_SUFFIXES = (".yaml", ".yml")
"""The suffixes a box file given with ``data=`` may have."""


@functools.lru_cache(maxsize=8)
def _load_cached(given: str, resolved: str, mtime_ns: int, size: int) -> Box:
    """The box of a checked file; cached by where the file is and when it last
    changed, so that every config of a run shares one parse."""
    text = read_option_file(given, BOX_SUFFIXES)
    return parse_box(text, Path(given).name, quote_values=resolved == str(DEFAULT_PATH.resolve()))


def load_box(path: str | Path | None = None) -> Box:
    """The box of ``path`` (default: the shipped ``arena.yaml``), checked.

    Only a regular ``.yaml``/``.yml`` file of at most 1 MiB is read (a pipe or a
    device is refused before it is opened). Raises :class:`BoxError` (an
    ``OptionError``) naming the entry and field of a malformed file, or the
    file, as given, that cannot be read; errors about another file than the
    shipped one describe its values by kind instead of quoting them."""
    given = str(DEFAULT_PATH if path is None else path)
    try:
        info = option_file_stat(given, BOX_SUFFIXES)
        resolved = str(Path(given).resolve())
        return _load_cached(given, resolved, info.st_mtime_ns, info.st_size)
    except OptionFileError as err:
        raise BoxError(f"arena box {err}") from None


def default_box() -> Box:
    return load_box(None)


def parse_box(text: str, source: str = "<text>", quote_values: bool = True) -> Box:
    """Parse and check a box file's text (``yaml.safe_load`` through the project's
    reader: no code runs, no anchors or aliases, at most 64 levels, numbers of at
    most 256 characters).

    ``quote_values=False`` (a file an option named): errors describe values by
    kind and YAML errors by line and column, without quoting the text."""
    try:
        raw = load_yaml(text)  # safe_load, without aliases, within depth and digit limits
    except InputError as err:
        raise BoxError(f"arena box {source}: {limit_problem(err)}") from None
    except yaml.YAMLError as err:
        if quote_values:
            raise BoxError(f"arena box {source}: not valid YAML: {err}") from None
        raise BoxError(f"arena box {source}: not valid YAML ({parse_error_text(err)})") from None
    return _build_box(raw, _Reader(source, quote_values))


def _build_box(raw: Any, r: _Reader) -> Box:
    top = r.mapping(raw, "top level")
    r.only(
        top,
        "top level",
        ("name", "version", "setup", "rules", "board", "characters", "maneuvers", "worlds",
         "gyms", "medal_cards", "medal_bonus_cards"),
    )  # fmt: skip
    name = r.text(top, "name", "top level")
    setup = r.mapping(r.field(top, "setup", "top level"), "setup")
    rules = r.mapping(r.field(top, "rules", "top level"), "rules")
    _check_setup(setup, r)
    rule_values = _check_rules(rules, r)
    characters, num_astro = _read_characters(r.field(top, "characters", "top level"), r)
    char_names = {c.name for c in characters}
    cards, num_maneuvers = _read_cards(top, r, char_names, rule_values)
    spaces, anchors = _read_board(r.field(top, "board", "top level"), r)
    gyms = _read_gyms(r.field(top, "gyms", "top level"), r, setup["gyms_used"])
    medal_cards = _read_medal_cards(r.field(top, "medal_cards", "top level"), r)
    bonus_cards = _read_medal_bonus_cards(r.field(top, "medal_bonus_cards", "top level"), r)
    box = Box(
        name=name,
        source=r.source,
        trophies=setup["trophies"],
        start_trophies=setup["start_trophies"],
        gym_trophies=setup["gym_trophies"],
        gym_power_cards=setup["gym_power_cards"],
        gyms_used=setup["gyms_used"],
        medal_supply=tuple(setup["medals"][m] for m in MEDALS),
        permanently_defended_cards=setup["permanently_defended_cards"],
        challenge_dice=rule_values["challenge_dice"],
        maneuver_offset=rule_values["maneuver_challenge_offset"],
        world_offset=rule_values["world_challenge_offset"],
        maneuvers_for_worlds=rule_values["maneuvers_for_worlds"],
        medal_target=rule_values["medal_target"],
        trophy_value=rule_values["trophy_value"],
        dark_matter_turns=rule_values["dark_matter_turns"],
        dark_matter_value=rule_values["dark_matter_value"],
        transform_on=rule_values["transform_on"],
        win_worlds=rule_values["win_worlds"],
        win_defended=rule_values["win_defended"],
        medal_levels=rule_values["medal_levels"],
        movement_die=rule_values["movement"],
        challenge_die=rule_values["challenge"],
        slide_die=rule_values["nebula_slide"],
        first_turn_die=rule_values["first_turn"],
        spaces=spaces,
        portal_front=anchors["portal_front"],
        portal_exit_outside=anchors["portal_exit_outside"],
        portal_exit_inside=anchors["portal_exit_inside"],
        cards=cards,
        num_maneuvers=num_maneuvers,
        characters=characters,
        num_astrobirdz=num_astro,
        gyms=gyms,
        medal_cards=medal_cards,
        medal_bonus_cards=bonus_cards,
    )
    check_board(box, r)
    _check_names_unique(box, r)
    return box


SETUP_FIELDS = ("trophies", "start_trophies", "gym_trophies", "gym_power_cards", "gyms_used",
                "medals", "permanently_defended_cards")  # fmt: skip


def _check_setup(setup: dict[str, Any], r: _Reader) -> None:
    r.only(setup, "setup", SETUP_FIELDS)
    r.integer(setup, "trophies", "setup", 1, 1000)
    r.integer(setup, "start_trophies", "setup", 0, 100)
    r.integer(setup, "gym_trophies", "setup", 0, 100)
    r.integer(setup, "gym_power_cards", "setup", 1, 10)
    r.integer(setup, "gyms_used", "setup", 1, 8)
    r.integer(setup, "permanently_defended_cards", "setup", 6, 100)
    medals = r.mapping(r.field(setup, "medals", "setup"), "setup.medals")
    r.only(medals, "setup.medals", MEDALS)
    for medal in MEDALS:
        r.integer(medals, medal, "setup.medals", 0, 100)
    needed = 6 * setup["start_trophies"] + setup["gyms_used"] * setup["gym_trophies"]
    if setup["trophies"] < needed:
        r.fail(
            "setup",
            f"field 'trophies' ({setup['trophies']}) must cover 6 players' start trophies and "
            f"every gym's trophies: at least {needed}",
        )


RULE_FIELDS = ("challenge_dice", "maneuver_challenge_offset", "world_challenge_offset",
               "maneuvers_for_worlds", "medal_target", "trophy_value", "dark_matter_turns",
               "dark_matter_value", "transform_on", "win_worlds", "win_defended", "medal_levels",
               "dice")  # fmt: skip


def _check_rules(rules: dict[str, Any], r: _Reader) -> dict[str, Any]:
    r.only(rules, "rules", RULE_FIELDS)
    out: dict[str, Any] = {}
    for field, low, high in (
        ("challenge_dice", 1, 10), ("maneuver_challenge_offset", 0, 20),
        ("world_challenge_offset", 0, 20), ("maneuvers_for_worlds", 0, 30),
        ("medal_target", 1, MAX_SIDES), ("trophy_value", 1, 10), ("dark_matter_turns", 1, 10),
        ("dark_matter_value", 1, MAX_SIDES), ("win_worlds", 1, 20), ("win_defended", 1, 20),
    ):  # fmt: skip
        out[field] = r.integer(rules, field, "rules", low, high)
    out["transform_on"] = r.integer(rules, "transform_on", "rules", 1, 6)
    levels = r.listing(r.field(rules, "medal_levels", "rules"), "rules.medal_levels", 3)
    if len(levels) != 3:
        r.fail(
            "rules.medal_levels", f"must list bronze, silver and gold, got {len(levels)} entries"
        )
    read: list[MedalLevel] = []
    for i, entry in enumerate(levels):
        where = f"rules.medal_levels[{i}]"
        entry = r.mapping(entry, where)
        r.only(entry, where, ("medal", "maneuvers", "below", "reads"))
        medal = r.choice(entry, "medal", where, MEDALS)
        if medal != MEDALS[i]:
            r.fail(where, f"field 'medal' must be {MEDALS[i]} here (bronze, silver, gold in order)")
        below = r.integer(entry, "below", where, 0, MAX_SIDES)
        level = MedalLevel(
            medal=medal,
            maneuvers=r.integer(entry, "maneuvers", where, 1, 30),
            below=below,
            reads=r.integer(entry, "reads", where, below + 1, MAX_SIDES),
        )
        if read and (level.maneuvers <= read[-1].maneuvers or level.reads < read[-1].reads):
            r.fail(where, "medals must need more maneuvers and read no lower than the one before")
        read.append(level)
    out["medal_levels"] = tuple(read)
    dice = r.mapping(r.field(rules, "dice", "rules"), "rules.dice")
    r.only(dice, "rules.dice", ("movement", "challenge", "nebula_slide", "first_turn"))
    for use in ("movement", "challenge", "nebula_slide"):
        where = f"rules.dice.{use}"
        sides = r.mapping(r.field(dice, use, "rules.dice"), where)
        r.only(sides, where, FORMS)
        out[use] = tuple(r.integer(sides, form, where, 2, MAX_SIDES) for form in FORMS)
    out["first_turn"] = r.integer(dice, "first_turn", "rules.dice", 2, MAX_SIDES)
    return out


def _read_bonus(value: Any, where: str, r: _Reader) -> Bonus:
    entry = r.mapping(value, where)
    r.only(entry, where, ("kind", "amount"))
    return Bonus(
        kind=r.choice(entry, "kind", where, BONUS_KINDS),
        amount=r.integer(entry, "amount", where, 1, 20),
    )


def _read_characters(value: Any, r: _Reader) -> tuple[tuple[Character, ...], int]:
    groups = r.mapping(value, "characters")
    r.only(groups, "characters", ("astrobirdz", "invazorz"))
    astro = r.listing(r.field(groups, "astrobirdz", "characters"), "characters.astrobirdz", 1)
    inv = r.listing(r.field(groups, "invazorz", "characters"), "characters.invazorz", 0)
    out: list[Character] = []
    for i, entry in enumerate(astro):
        where = f"characters.astrobirdz[{i}]{_entry_name(entry)}"
        entry = r.mapping(entry, where)
        r.only(entry, where, ("name", "board", "colour", "bonus", "berzerkerbirdz_bonus"))
        out.append(
            Character(
                id=len(out),
                name=r.text(entry, "name", where),
                invazorz=False,
                detail=r.text(entry, "board", where),
                colour=r.text(entry, "colour", where),
                bonus=_read_bonus(r.field(entry, "bonus", where), f"{where}.bonus", r),
                berzerkerbirdz_bonus=_read_bonus(
                    r.field(entry, "berzerkerbirdz_bonus", where),
                    f"{where}.berzerkerbirdz_bonus",
                    r,
                ),
            )
        )
    for i, entry in enumerate(inv):
        where = f"characters.invazorz[{i}]{_entry_name(entry)}"
        entry = r.mapping(entry, where)
        r.only(entry, where, ("name", "race", "bonus"))
        out.append(
            Character(
                id=len(out),
                name=r.text(entry, "name", where),
                invazorz=True,
                detail=r.text(entry, "race", where),
                colour="",
                bonus=_read_bonus(r.field(entry, "bonus", where), f"{where}.bonus", r),
                berzerkerbirdz_bonus=None,
            )
        )
    if len(out) < 6:
        r.fail("characters", f"6 players need 6 characters; the box has {len(out)}")
    return tuple(out), len(astro)


def _read_cards(
    top: dict[str, Any], r: _Reader, char_names: set[str], rules: dict[str, Any]
) -> tuple[tuple[Card, ...], int]:
    highest = rules["challenge_dice"] * MAX_SIDES
    cards: list[Card] = []
    for kind, key, who, offset in (
        ("maneuver", "maneuvers", "favourite", rules["maneuver_challenge_offset"]),
        ("world", "worlds", "homeworld", rules["world_challenge_offset"]),
    ):
        entries = r.listing(r.field(top, key, "top level"), key, 1)
        for i, entry in enumerate(entries):
            where = f"{key}[{i}]{_entry_name(entry)}"
            entry = r.mapping(entry, where)
            r.only(entry, where, ("name", who, "number", "bonus"))
            character = r.text(entry, who, where)
            if character not in char_names:
                r.fail(
                    where,
                    f"field {who!r} names {r.show(character)}, which is no character of the box",
                )
            number = r.integer(entry, "number", where, 1, highest)
            bonus = None
            if "bonus" in entry:
                b = r.mapping(entry["bonus"], f"{where}.bonus")
                r.only(b, f"{where}.bonus", ("form", "amount"))
                bonus = CardBonus(
                    form=FORMS.index(r.choice(b, "form", f"{where}.bonus", FORMS)),
                    amount=r.integer(b, "amount", f"{where}.bonus", 1, 20),
                )
            cards.append(
                Card(
                    id=len(cards),
                    kind=kind,
                    name=r.text(entry, "name", where),
                    character=character,
                    number=number,
                    challenge=number + offset,
                    bonus=bonus,
                )
            )
        if kind == "maneuver":
            num_maneuvers = len(cards)
    return tuple(cards), num_maneuvers


def _read_board(value: Any, r: _Reader) -> tuple[tuple[Space, ...], dict[str, int]]:
    board = r.mapping(value, "board")
    anchors_keys = ("portal_front", "portal_exit_outside", "portal_exit_inside")
    r.only(board, "board", ("spaces", *anchors_keys))
    entries = r.listing(r.field(board, "spaces", "board"), "board.spaces", 1)
    count = len(entries)
    spaces: list[Space] = []
    for i, entry in enumerate(entries):
        where = f"board.spaces[{i}]"
        entry = r.mapping(entry, where)
        r.only(entry, where, ("id", "kind", "region", "at", "next", "entrance", "step"))
        if r.integer(entry, "id", where, 0, count - 1) != i:
            r.fail(where, f"field 'id' must be {i} (spaces are listed in id order)")
        at = r.field(entry, "at", where)
        if (
            not isinstance(at, list)
            or len(at) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in at)
        ):
            r.fail(where, f"field 'at' must be [row, column] (integers >= 0), got {r.show(at)}")
        nxt = r.field(entry, "next", where)
        if (
            not isinstance(nxt, list)
            or not nxt
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in nxt)
            or not all(0 <= v < count and v != i for v in nxt)
            or len(set(nxt)) != len(nxt)
        ):
            r.fail(
                where,
                f"field 'next' must list 1 or more other space ids 0..{count - 1} once each, "
                f"got {r.show(nxt)}",
            )
        kind = r.choice(entry, "kind", where, SPACE_KINDS)
        entrance = step = None
        if kind == "entrance":
            entrance = r.text(entry, "entrance", where)
            step = r.integer(entry, "step", where, 1, 4)
        elif "entrance" in entry or "step" in entry:
            r.fail(where, "fields 'entrance' and 'step' belong to entrance spaces only")
        spaces.append(
            Space(
                id=i,
                kind=kind,
                region=r.choice(entry, "region", where, REGIONS),
                at=(at[0], at[1]),
                next=tuple(nxt),
                entrance=entrance,
                step=step,
            )
        )
    anchors = {key: r.integer(board, key, "board", 0, count - 1) for key in anchors_keys}
    return tuple(spaces), anchors


def _read_gyms(value: Any, r: _Reader, used: int) -> tuple[Gym, ...]:
    entries = r.listing(value, "gyms", used)
    gyms = []
    for i, entry in enumerate(entries):
        where = f"gyms[{i}]{_entry_name(entry)}"
        entry = r.mapping(entry, where)
        r.only(entry, where, ("name", "colour", "power"))
        p = r.mapping(r.field(entry, "power", where), f"{where}.power")
        pw = f"{where}.power"
        kind = r.choice(p, "kind", pw, POWER_KINDS)
        if kind == "bonus":
            r.only(p, pw, ("kind", "roll", "amount"))
            power = GymPower(
                kind, r.choice(p, "roll", pw, POWER_ROLLS), r.integer(p, "amount", pw, 1, 20)
            )
        elif kind == "trophies":
            r.only(p, pw, ("kind", "amount"))
            power = GymPower(kind, None, r.integer(p, "amount", pw, 1, 20))
        else:
            r.only(p, pw, ("kind",))
            power = GymPower(kind)
        gyms.append(
            Gym(
                id=i,
                name=r.text(entry, "name", where),
                colour=r.text(entry, "colour", where),
                power=power,
            )
        )
    return tuple(gyms)


def _read_medal_cards(value: Any, r: _Reader) -> tuple[MedalCard, ...]:
    entries = r.listing(value, "medal_cards", 0)
    out = []
    for i, entry in enumerate(entries):
        where = f"medal_cards[{i}]{_entry_name(entry)}"
        entry = r.mapping(entry, where)
        r.only(entry, where, ("name", "trophy", "extra_die"))
        has_trophy, has_die = "trophy" in entry, "extra_die" in entry
        if has_trophy == has_die:
            r.fail(where, "give exactly one of the fields 'trophy' and 'extra_die'")
        trophy = r.integer(entry, "trophy", where, 1, 10) if has_trophy else 0
        uses: tuple[str, ...] = ()
        if has_die:
            listed = entry["extra_die"]
            if (
                not isinstance(listed, list)
                or not listed
                or any(u not in DIE_USES for u in listed)
                or len(set(listed)) != len(listed)
            ):
                r.fail(
                    where,
                    f"field 'extra_die' must list one or more of {', '.join(DIE_USES)}, "
                    f"got {r.show(listed)}",
                )
            uses = tuple(u for u in DIE_USES if u in listed)
        out.append(
            MedalCard(id=i, name=r.text(entry, "name", where), trophy=trophy, extra_die=uses)
        )
    return tuple(out)


def _read_medal_bonus_cards(value: Any, r: _Reader) -> tuple[tuple[str, str], ...]:
    entries = r.listing(value, "medal_bonus_cards", 0)
    out = []
    for i, entry in enumerate(entries):
        where = f"medal_bonus_cards[{i}]{_entry_name(entry)}"
        entry = r.mapping(entry, where)
        r.only(entry, where, ("name", "text"))
        out.append((r.text(entry, "name", where), r.text(entry, "text", where)))
    return tuple(out)


def _check_names_unique(box: Box, r: _Reader) -> None:
    for label, names in (
        ("maneuvers and worlds", [c.name for c in box.cards]),
        ("characters", [c.name for c in box.characters]),
        ("gyms", [g.name for g in box.gyms]),
        ("medal_cards", [m.name for m in box.medal_cards]),
    ):
        seen: set[str] = set()
        for name in names:
            if name.lower() in seen:
                r.fail(label, f"the name {r.show(name)} is used twice (names must differ)")
            seen.add(name.lower())


# ---- the board's own checks ---------------------------------------------------------


def _reachable(start: int, edges: Callable[[int], tuple[int, ...]]) -> set[int]:
    seen = {start}
    todo = [start]
    while todo:
        for nxt in edges(todo.pop()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def check_board(box: Box, r: _Reader | None = None) -> None:
    """The board's shape as the rulebook describes it; raises :class:`BoxError`.

    An outer one-way loop (every outside space has exactly one outside
    successor, and following them visits every outside space once) with a gym
    in each of its ``gyms_used`` corners and the four AstroPortal spaces in a
    row; two Nebula Slide ends; exactly two entrances, each of the spaces 1-4
    with exactly the moves the rulebook gives (1: on, or in to 2; 2: out to 1
    or in to 4; 3: on to 4 or out to 2; 4: only on to the next inner space); an
    inner loop through every other inside space; fewer maneuver spaces than
    maneuver cards and fewer world spaces than world cards; every space
    reachable from every space.
    """
    r = r or _Reader(box.source)
    spaces, n = box.spaces, box.num_spaces
    outside = [s.id for s in spaces if s.region == "outside"]
    inside = set(box.inside_spaces)
    _check_kinds_and_regions(box, r)
    # outer loop
    succ = {}
    for sid in outside:
        outs = [v for v in spaces[sid].next if spaces[v].region == "outside"]
        if len(outs) != 1:
            r.fail(
                f"board.spaces[{sid}]",
                f"an outside space needs exactly one outside next space, has {outs}",
            )
        succ[sid] = outs[0]
    loop = [outside[0]]
    while succ[loop[-1]] != loop[0]:
        loop.append(succ[loop[-1]])
        if len(loop) > len(outside):
            r.fail("board", "the outside spaces do not close into one loop")
    if len(loop) != len(outside):
        missing = sorted(set(outside) - set(loop))
        r.fail("board", f"the outer loop misses outside spaces {missing}")
    corners = [s for s in loop if spaces[s].kind == "gym"]
    if len(corners) != box.gyms_used:
        r.fail("board", f"the outer loop needs {box.gyms_used} gym corners, has {len(corners)}")
    # portals in a row, with the spaces the tables name
    portals = [s.id for s in spaces if s.kind == "portal"]
    if len(portals) != 4:
        r.fail("board", f"the board needs 4 AstroPortal spaces, has {len(portals)}")
    start = next(i for i, s in enumerate(loop) if s in portals and loop[i - 1] not in portals)
    row = [loop[(start + k) % len(loop)] for k in range(4)]
    if sorted(row) != sorted(portals):
        r.fail("board", f"the AstroPortal spaces {portals} must lie in a row on the outer loop")
    if box.portal_front != loop[start - 1]:
        r.fail(
            "board", f"field 'portal_front' must be {loop[start - 1]}, the space before the portals"
        )
    after = loop[(start + 4) % len(loop)]
    if box.portal_exit_outside != after:
        r.fail("board", f"field 'portal_exit_outside' must be {after}, the space after the portals")
    if box.portal_exit_inside not in inside:
        r.fail("board", "field 'portal_exit_inside' must be an inside space")
    for p in row[:-1]:
        if len(spaces[p].next) != 1:
            r.fail(f"board.spaces[{p}]", "an AstroPortal space leads only to the next one")
    slides = [s.id for s in spaces if s.kind == "slide"]
    if len(slides) != 2:
        r.fail("board", f"the board needs the two Nebula Slide ends, has {len(slides)}")
    _check_entrances(box, r, succ, inside)
    # inner loop: every inside space but the step-2 spaces, one inner successor each
    inner = [s for s in inside if spaces[s].step != 2]
    for sid in inner:
        outs = [v for v in spaces[sid].next if v in inside and spaces[v].step != 2]
        if len(outs) != 1:
            r.fail(
                f"board.spaces[{sid}]",
                f"an inner-loop space needs exactly one inner next space, has {outs}",
            )
    inner_loop = _reachable(inner[0], lambda s: tuple(v for v in spaces[s].next if v in inner))
    if inner_loop != set(inner):
        r.fail("board", f"the inner loop misses inside spaces {sorted(set(inner) - inner_loop)}")
    for sid in inner:
        if spaces[sid].step is None and any(v not in inner for v in spaces[sid].next):
            r.fail(f"board.spaces[{sid}]", "only the entrance spaces lead out of the inner loop")
    # counts and connectivity
    if len(box.maneuver_spaces) >= box.num_maneuvers:
        r.fail(
            "board",
            f"{len(box.maneuver_spaces)} maneuver spaces need more maneuver cards than that, "
            f"the box has {box.num_maneuvers}",
        )
    if len(box.world_spaces) >= box.num_worlds:
        r.fail(
            "board",
            f"{len(box.world_spaces)} world spaces need more world cards than that, "
            f"the box has {box.num_worlds}",
        )
    everything = set(range(n))
    backwards: dict[int, list[int]] = {s: [] for s in range(n)}
    for s in spaces:
        for v in s.next:
            backwards[v].append(s.id)
    first = corners[0]
    unreached = everything - _reachable(first, lambda s: spaces[s].next)
    stuck = everything - _reachable(first, lambda s: tuple(backwards[s]))
    if unreached or stuck:
        r.fail(
            "board",
            f"every space must be reachable from every space; unreachable {sorted(unreached)}, "
            f"no way back from {sorted(stuck)}",
        )  # fmt: skip
    coords = [s.at for s in spaces]
    if len(set(coords)) != len(coords):
        r.fail("board", "two spaces share the same 'at' square")


def _check_kinds_and_regions(box: Box, r: _Reader) -> None:
    for s in box.spaces:
        where = f"board.spaces[{s.id}]"
        if s.kind in ("gym", "maneuver", "portal", "slide") and s.region != "outside":
            r.fail(where, f"a {s.kind} space lies on the outer loop (region 'outside')")
        if s.kind == "world" and s.region != "inside":
            r.fail(where, "a world space lies in the middle (region 'inside')")


def _check_entrances(box: Box, r: _Reader, succ: dict[int, int], inside: set[int]) -> None:
    entrances = box.entrance_spaces()
    if len(entrances) != 2:
        r.fail("board", f"the board needs exactly two entrances, has {sorted(entrances)}")
    spaces = box.spaces
    for name, steps in entrances.items():
        where = f"board entrance {name}"
        if sorted(steps) != [1, 2, 3, 4] or sum(1 for s in spaces if s.entrance == name) != 4:
            r.fail(where, "needs exactly one space of each step 1, 2, 3 and 4")
        one, two, three, four = (steps[k] for k in (1, 2, 3, 4))
        if spaces[one].region != "outside" or any(
            spaces[s].region != "inside" for s in (two, three, four)
        ):
            r.fail(where, "space 1 lies on the outer loop, spaces 2-4 in the middle")
        expected = {
            one: {succ[one], two},
            two: {one, four},
            three: {four, two},
        }
        for sid, want in expected.items():
            if set(spaces[sid].next) != want or len(spaces[sid].next) != 2:
                r.fail(
                    f"board.spaces[{sid}]",
                    f"entrance {name} space {spaces[sid].step} must lead to exactly "
                    f"{sorted(want)}, leads to {list(spaces[sid].next)}",
                )
        nxt = spaces[four].next
        if len(nxt) != 1 or nxt[0] not in inside or spaces[nxt[0]].step == 2:
            r.fail(
                f"board.spaces[{four}]",
                f"entrance {name} space 4 leads only to the next inner space, leads to {list(nxt)}",
            )


@functools.lru_cache(maxsize=16)
def box_tables(data_path: str | None, world_challenge: str = "offset") -> dict[str, Any]:
    """The content and numbers of the box of option ``data`` as JSON types (for
    bots and user interfaces, from the view's ``options``): every card, gym,
    medal card and character, the dice and the numbers of the rules. Shared:
    do not modify it."""
    box = load_box(data_path)

    def bonus(b: Any) -> dict[str, Any] | None:
        return None if b is None else {"form": FORMS[b.form], "amount": b.amount}

    return {
        "cards": {
            c.name: {
                "kind": c.kind, "character": c.character, "number": c.number,
                "challenge": c.number if c.is_world and world_challenge == "printed"
                else c.challenge,
                "bonus": bonus(c.bonus),
            }
            for c in box.cards
        },
        "gyms": {g.name: {"colour": g.colour, "power": dict(g.power.__dict__)} for g in box.gyms},
        "medal_cards": {
            m.name: {"trophy": m.trophy, "extra_die": list(m.extra_die)} for m in box.medal_cards
        },
        "characters": {
            c.name: {
                "invazorz": c.invazorz, "detail": c.detail, "colour": c.colour,
                "bonus": dict(c.bonus.__dict__),
                "berzerkerbirdz_bonus": None if c.berzerkerbirdz_bonus is None
                else dict(c.berzerkerbirdz_bonus.__dict__),
            }
            for c in box.characters
        },
        "dice": {
            "movement": dict(zip(FORMS, box.movement_die, strict=True)),
            "challenge": dict(zip(FORMS, box.challenge_die, strict=True)),
            "nebula_slide": dict(zip(FORMS, box.slide_die, strict=True)),
            "first_turn": box.first_turn_die,
        },
        "rules": {
            "trophies": box.trophies,
            "challenge_dice": box.challenge_dice, "trophy_value": box.trophy_value,
            "maneuvers_for_worlds": box.maneuvers_for_worlds, "medal_target": box.medal_target,
            "win_worlds": box.win_worlds, "win_defended": box.win_defended,
            "dark_matter_value": box.dark_matter_value,
            "medal_levels": [dict(m.__dict__) for m in box.medal_levels],
        },
    }  # fmt: skip


GYM_POWER_HELP = {
    "transform": "an Astrobirdz becomes a Berzerkerbirdz (before a roll)",
    "gold_reading": "the dice of one challenge or defence read as with a gold medal",
    "extra_die": "one more die on your next challenge roll",
}
"""Each gym power kind in a few words (bonus and trophies powers are worded with
their numbers by :func:`gym_power_text`)."""


def gym_power_text(power: dict[str, object]) -> str:
    """A gym's power (as :func:`box_tables` gives it) in a few words."""
    kind = power["kind"]
    if kind == "bonus":
        return f"+{power['amount']} to one {power['roll']} roll"
    if kind == "trophies":
        return f"take {power['amount']} trophies from the supply"
    return GYM_POWER_HELP.get(str(kind), str(kind))


def special_cards_help() -> list[tuple[str, str]]:
    """The rules, the shipped box's gyms and medal cards in a few words, as
    ``(card, what it does)`` rows: ``?`` in terminal play and the play page's help
    show them (a box given by option is on the table itself: each card's number).
    Read from :func:`box_tables`, so the numbers are the box's own."""
    tables = box_tables(None)
    rules = tables["rules"]
    medals = ", ".join(
        f"{m['medal']} ({m['maneuvers']} maneuvers): a die of 1"
        f"{'' if m['below'] == 1 else '-' + str(m['below'])} reads {m['reads']}"
        for m in rules["medal_levels"]
    )
    gyms = [
        (f"{name} ({gym['colour']} gym)", gym_power_text(gym["power"]))
        for name, gym in tables["gyms"].items()
    ]
    medal_cards = [
        (name, f"{card['trophy']} trophy at once" if card["trophy"]
         else f"an extra die for a {' or '.join(card['extra_die'])} roll")
        for name, card in tables["medal_cards"].items()
    ]  # fmt: skip
    return [
        ("winning", f"holding {rules['win_worlds']} worlds, or {rules['win_defended']} worlds "
         "permanently defended, wins at once; otherwise the most worlds after max_rounds"),
        ("trophies", f"spend them for +{rules['trophy_value']} each on a roll; each gym passed "
         "gives one while it has any"),
        ("challenges", f"{rules['challenge_dice']} dice against the card's challenge number; "
         f"worlds need {rules['maneuvers_for_worlds']} maneuver cards; a medal card needs a "
         f"die of {rules['medal_target']}; a player on your space: both roll (higher wins), "
         "or their card's number for your homeworld or favourite trick"),
        ("medals", medals),
        ("Nebula Slide", "the two slide ends are joined by the wormhole: go through, come out "
         "at the other end and roll on the slide table"),
        ("AstroPortal", "a move ending on a portal space: a d8 picks the encounter table, a "
         "d6 its row"),
        *gyms,
        *medal_cards,
    ]  # fmt: skip
