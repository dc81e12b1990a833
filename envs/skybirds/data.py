"""Skybirds game content: the 40 Aces and the Aerodrome, as plain tables.

Cards are written by value, ``"1"`` .. ``"10"``, and ``"G"`` for Roland
Garros. The engine keeps a hand as 11 counts: index 0 is Garros, index v the
Aces of value v. Every 9 and the 10 carry one Medallion icon.

The Aerodrome (each player's mat of progression tokens) is not printed in the
rulebook; :data:`AERODROME` is our reconstruction, one row per token. A user
holding the real box can load another table with the same columns through the
env option ``aerodrome=`` (a list of rows, or a ``.json`` / ``.yaml`` /
``.csv`` file); :func:`parse_aerodrome` validates it and names what is wrong.
The engine reads only the :class:`Token` fields, so a new token is a new row.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import OptionFileError
from ..core.options import parse_error_text, read_option_file
from ..core.reader import (
    InputError,
    bounded_float,
    bounded_int,
    check_depth,
    limit_problem,
    load_yaml,
)

# ---- the Aces ---------------------------------------------------------------------

GARROS = 0
"""Card index of Roland Garros (no value; he takes the value of his Squadron)."""
VALUES = tuple(range(1, 11))
NUM_KINDS = 11
"""Card kinds: Garros, then the values 1..10."""
CARD_COUNTS = (1, 5, 5, 5, 5, 5, 5, 3, 3, 2, 1)
"""Aces per kind in the 40-card deck (Garros, 1..10)."""
MEDALLIONS = (0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1)
"""Medallion icons printed on a card of each kind (every 9 and the 10)."""
DECK_SIZE = sum(CARD_COUNTS)  # 40
MAX_SQUADRON = 6
"""A Squadron has 1 to 6 cards."""

PLAYER_COUNTS = (2, 3, 4)
HAND_SIZES = {2: 16, 3: 12, 4: 10}
"""Aces dealt to each player."""
BOXED = {2: 8, 3: 4, 4: 0}
"""Cards dealt unseen into the box (Garros is held aside while they are)."""

PLUS_ONE_TOKENS = 8
"""+1VP tokens on each Aerodrome, below the progression track."""
FRACTIONAL = ("3/4", "1/2", "1/4")
"""Fractional VP tokens, in the order they are taken."""
FRACTIONAL_VP = (0.75, 0.5, 0.25)


def card_text(kind: int) -> str:
    """``"G"`` for Garros, else the value: ``card_text(7) == "7"``."""
    return "G" if kind == GARROS else str(kind)


def parse_card(text: Any) -> int:
    """Inverse of :func:`card_text`; raises ``ValueError`` naming the forms."""
    cleaned = str(text).strip().upper()
    if cleaned in ("G", "GARROS"):
        return GARROS
    if cleaned.isdigit() and 1 <= int(cleaned) <= 10:
        return int(cleaned)
    raise ValueError(
        f"cannot read card {text!r}; write a value 1-10 (e.g. '7') or 'G' for Roland Garros"
    )


CARD_TEXT = tuple(card_text(k) for k in range(NUM_KINDS))


def cards_text(counts: list[int] | tuple[int, ...]) -> list[str]:
    """The cards of a count vector, ascending (Garros first): ``['G', '4', '4']``."""
    out: list[str] = []
    for kind, count in enumerate(counts):
        if count:
            out += [CARD_TEXT[kind]] * count
    return out


# ---- the Aerodrome ----------------------------------------------------------------

BONUSES = {
    "medallion": "dogfight",
    "follow_equal": "dogfight",
    "swap_one": "pre_campaign",
    "run": "dogfight",
    "tiebreaker": "none",
    "wild": "dogfight",
    "two_medallions": "dogfight",
    "unmatched": "dogfight",
    "swap_two": "pre_campaign",
    "size_change": "dogfight",
    "armistice": "none",
    "none": "none",
}
"""Every bonus a token can carry, with the only timing it can have:

* ``medallion``: add one Medallion to one card of your Squadron;
* ``follow_equal``: follow with a Squadron equal to the one on the table;
* ``swap_one``: before a Campaign, give a card of your choice to an opponent
  and take one at random from them;
* ``run``: play consecutive values as a Squadron (value = highest; never with
  Garros);
* ``tiebreaker``: no bonus; claiming it takes the largest fractional VP left;
* ``wild``: one card of the Squadron is wild (declare its value);
* ``two_medallions``: add two Medallions to one card;
* ``unmatched``: two or three unmatched cards as a Squadron of that size
  (value = lowest card);
* ``swap_two``: before a Campaign, swap two cards of your choice for two
  random cards of an opponent of your choice;
* ``size_change``: your Squadron may be one card larger or smaller than the
  Squadron Size;
* ``armistice``: taking it ends the Great War;
* ``none``: no bonus (a token worth only its VP).
"""
USABLE_BONUSES = frozenset(b for b, t in BONUSES.items() if t != "none")
RIBBONS = {"1": 1, "1-2": 2, "1-2-3": 3}
"""Ribbon text -> the worst finishing place that may take the token."""
TRADE_COST = {3: 2, 2: 3, 1: 4}
"""+1VP tokens a trade costs, by ribbon (1-2-3: 2, 1-2: 3, 1 only: 4)."""
COLUMNS = ("token", "column", "prerequisites", "ribbon", "vp_front", "vp_back", "bonus", "timing")
"""The columns of an Aerodrome table, in order."""
MAX_TOKENS = 20


@dataclass(frozen=True)
class Token:
    """One progression token of the Aerodrome (one row of the table)."""

    name: str
    column: str
    """The column of the track it sits in (display only)."""
    prerequisites: tuple[str, ...]
    """The immediately preceding tokens (arrows pointing to this one)."""
    needs_all: bool
    """True: every prerequisite must be held (``D1&D2``); else any one (``A1|A2``)."""
    ribbon: int
    """The worst finishing place that may take it: 1, 2 or 3."""
    vp_front: int
    vp_back: int
    bonus: str
    timing: str

    @property
    def uses(self) -> int:
        """Bonus uses before it returns to the Aerodrome (0: never used)."""
        return 2 if self.timing != "none" else 0

    @property
    def prerequisites_text(self) -> str:
        return ("&" if self.needs_all else "|").join(self.prerequisites)

    @property
    def ribbon_text(self) -> str:
        return {1: "1", 2: "1-2", 3: "1-2-3"}[self.ribbon]

    def to_row(self) -> dict[str, Any]:
        """The token as a table row (the form :func:`parse_aerodrome` reads)."""
        return {
            "token": self.name,
            "column": self.column,
            "prerequisites": self.prerequisites_text,
            "ribbon": self.ribbon_text,
            "vp_front": self.vp_front,
            "vp_back": self.vp_back,
            "bonus": self.bonus,
            "timing": self.timing,
        }


_DEFAULT_ROWS = (
    # token       column prerequisites ribbon   front back bonus            timing
    ("A1",        "A",   "",           "1-2-3", 2,    1,   "medallion",      "dogfight"),
    ("A2",        "A",   "",           "1-2-3", 2,    1,   "follow_equal",   "dogfight"),
    ("A3",        "A",   "",           "1-2-3", 2,    1,   "swap_one",       "pre_campaign"),
    ("B1",        "B",   "A1",         "1-2-3", 3,    2,   "run",            "dogfight"),
    ("B2",        "B",   "A1|A2",      "1-2",   3,    2,   "tiebreaker",     "none"),
    ("B3",        "B",   "A3",         "1-2-3", 3,    2,   "wild",           "dogfight"),
    ("C1",        "C",   "B1|B2",      "1-2",   4,    3,   "two_medallions", "dogfight"),
    ("C2",        "C",   "B2|B3",      "1-2",   4,    3,   "unmatched",      "dogfight"),
    ("D1",        "D",   "C1",         "1",     5,    4,   "swap_two",       "pre_campaign"),
    ("D2",        "D",   "C2",         "1",     5,    4,   "size_change",    "dogfight"),
    ("Armistice", "E",   "D1&D2",      "1",     8,    8,   "armistice",      "none"),
)  # fmt: skip

DEFAULT_AERODROME_ROWS: tuple[dict[str, Any], ...] = tuple(
    dict(zip(COLUMNS, row, strict=True)) for row in _DEFAULT_ROWS
)
"""The reconstructed Aerodrome as table rows (what ``aerodrome=`` replaces)."""


class AerodromeError(ValueError):
    """An Aerodrome table that the rules cannot use; the message names the row and column."""


def _fail(where: str, problem: str) -> AerodromeError:
    return AerodromeError(f"aerodrome {where}: {problem}")


TABLE_SUFFIXES = (".json", ".yaml", ".yml", ".csv")
"""The suffixes a table file given with ``aerodrome=`` may have."""


def _read_file(path: Path | str) -> Any:
    """Rows from a .json, .yaml/.yml or .csv file (nothing here executes code).

    Only a regular file of at most 1 MiB is read (a pipe or a device is refused
    before it is opened); errors name the file as given and the problem, never
    the file's content (it may not be a table at all)."""
    given = str(path)
    try:
        text = read_option_file(given, TABLE_SUFFIXES)
    except OptionFileError as err:
        raise AerodromeError(f"aerodrome {err}") from None
    name = Path(given).name
    suffix = Path(given).suffix.lower()
    if suffix == ".json":
        try:
            table = json.loads(text, parse_int=bounded_int, parse_float=bounded_float)
            check_depth(table, "the table")
            return table
        except json.JSONDecodeError as err:
            raise _fail(f"file {name!r}", f"not valid JSON ({parse_error_text(err)})") from None
        except (InputError, RecursionError) as err:  # a number or a nesting past the limits
            raise _fail(f"file {name!r}", limit_problem(err)) from None
    if suffix in (".yaml", ".yml"):
        try:
            import yaml
        except ImportError:
            raise _fail(
                f"file {name!r}", "reading YAML needs PyYAML; use a .json or .csv file"
            ) from None
        try:
            return load_yaml(text)  # safe_load without aliases, within the reader's limits
        except InputError as err:
            raise _fail(f"file {name!r}", limit_problem(err)) from None
        except yaml.YAMLError as err:
            raise _fail(f"file {name!r}", f"not valid YAML ({parse_error_text(err)})") from None
    return list(csv.DictReader(text.splitlines()))


def _shown(value: Any, quote: bool) -> str:
    """``value`` for an error: quoted (at most 60 characters) for a table given
    inline, and only its kind for a file, which may hold anything (secrets too)."""
    if quote or value is None or isinstance(value, (bool, int, float)):
        text = repr(value)
        return text if len(text) <= 60 else text[:57] + "..."
    if isinstance(value, str):
        return f"a string of {len(value)} characters"
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)} entries"
    if isinstance(value, dict):
        return f"a mapping of {len(value)} keys"
    return f"a value of type {type(value).__name__}"


MAX_CELL = 1_000_000
"""The largest victory-point value a table cell may hold."""


def _int_cell(where: str, value: Any, quote: bool = True) -> int:
    """A whole-number cell (an int, or digits as CSV gives them), 0..MAX_CELL."""
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        text = value.strip()
        if len(text) <= len(str(MAX_CELL)) and int(text) <= MAX_CELL:
            return int(text)
    elif isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_CELL:
        return value
    raise _fail(where, f"must be a whole number 0..{MAX_CELL}, got {_shown(value, quote)}")


def _parse_row(index: int, row: Any, quote: bool = True) -> Token:
    where = f"row {index}"
    if not isinstance(row, dict):
        raise _fail(
            where, f"must be a mapping with columns {', '.join(COLUMNS)}, got {_shown(row, quote)}"
        )
    missing = [c for c in COLUMNS if c not in row]
    extra = sorted(str(c) for c in row if c not in COLUMNS)
    if extra and not quote:
        extra = [f"{len(extra)} other column(s)"]
    if missing or extra:
        raise _fail(
            where,
            f"columns must be exactly {', '.join(COLUMNS)}"
            + (f"; missing {', '.join(missing)}" if missing else "")
            + (f"; unknown {', '.join(extra)}" if extra else ""),
        )
    name = str(row["token"]).strip()
    where = f"row {index} ({name})"
    if not name or any(ch.isspace() for ch in name) or len(name) > 12:
        raise _fail(
            where,
            f"token name {_shown(row['token'], quote)} must be 1-12 characters without spaces",
        )
    prereq_text = "" if row["prerequisites"] is None else str(row["prerequisites"]).strip()
    if "&" in prereq_text and "|" in prereq_text:
        raise _fail(where, "prerequisites mix & and |; write A1|A2 (any) or D1&D2 (all)")
    needs_all = "&" in prereq_text
    sep = "&" if needs_all else "|"
    prerequisites = tuple(p.strip() for p in prereq_text.split(sep)) if prereq_text else ()
    if any(not p for p in prerequisites):
        raise _fail(where, f"prerequisites {_shown(prereq_text, quote)} has an empty name")
    ribbon_text = str(row["ribbon"]).strip()
    if ribbon_text not in RIBBONS:
        raise _fail(
            where, f"ribbon {_shown(row['ribbon'], quote)} is not one of {', '.join(RIBBONS)}"
        )
    front = _int_cell(f"{where} vp_front", row["vp_front"], quote)
    back = _int_cell(f"{where} vp_back", row["vp_back"], quote)
    bonus = str(row["bonus"]).strip()
    if bonus not in BONUSES:
        raise _fail(where, f"bonus {_shown(bonus, quote)} is not one of {', '.join(BONUSES)}")
    timing = str(row["timing"]).strip()
    if timing != BONUSES[bonus]:
        raise _fail(
            where,
            f"timing {_shown(timing, quote)} does not fit bonus {bonus!r}: "
            f"it is {BONUSES[bonus]!r}",
        )
    if back > front:
        raise _fail(where, f"vp_back {back} is more than vp_front {front}")
    return Token(
        name=name,
        column=str(row["column"]).strip(),
        prerequisites=prerequisites,
        needs_all=needs_all and len(prerequisites) > 1,
        ribbon=RIBBONS[ribbon_text],
        vp_front=front,
        vp_back=back,
        bonus=bonus,
        timing=timing,
    )


def _check_table(tokens: tuple[Token, ...]) -> None:
    names = [t.name for t in tokens]
    doubled = sorted({n for n in names if names.count(n) > 1})
    if doubled:
        raise _fail("tokens", f"names must be unique; twice: {', '.join(doubled)}")
    for t in tokens:
        for p in t.prerequisites:
            if p not in names:
                raise _fail(f"token {t.name}", f"prerequisite {p!r} is not a token of the table")
            if p == t.name:
                raise _fail(f"token {t.name}", "is its own prerequisite")
    bonuses = [t.bonus for t in tokens if t.bonus != "none"]
    repeated = sorted({b for b in bonuses if bonuses.count(b) > 1})
    if repeated:
        raise _fail(
            "bonus", f"each bonus may be on one token only; repeated: {', '.join(repeated)}"
        )
    if bonuses.count("armistice") != 1:
        raise _fail("bonus", "exactly one token must carry the 'armistice' bonus")
    if not any(not t.prerequisites for t in tokens):
        raise _fail("prerequisites", "at least one token must have none (a starting token)")
    _check_reachable(tokens)


def _check_reachable(tokens: tuple[Token, ...]) -> None:
    """Every token, the Armistice included, can be reached from the starting tokens
    (so the table has no cycle a player could never enter)."""
    held: set[str] = set()
    changed = True
    while changed:
        changed = False
        for t in tokens:
            if t.name in held:
                continue
            have = [p in held for p in t.prerequisites]
            if not t.prerequisites or (all(have) if t.needs_all else any(have)):
                held.add(t.name)
                changed = True
    unreachable = [t.name for t in tokens if t.name not in held]
    if unreachable:
        raise _fail(
            "prerequisites",
            f"token(s) {', '.join(unreachable)} can never be taken (a cycle or a missing start)",
        )


def parse_aerodrome(source: Any = None) -> tuple[Token, ...]:
    """The Aerodrome table from ``source``: ``None`` (the shipped table), a list of
    rows (dicts with :data:`COLUMNS`), or a path to a .json/.yaml/.yml/.csv file.

    >>> [t.name for t in parse_aerodrome()][:4]
    ['A1', 'A2', 'A3', 'B1']
    """
    if isinstance(source, (str, Path)):
        rows = _read_file(source)
        try:
            return _tokens_of(rows, quote=False)
        except AerodromeError as err:
            where = str(err).removeprefix("aerodrome ")
            raise _fail(f"file {Path(source).name!r}", where) from None
    return _tokens_of(DEFAULT_AERODROME_ROWS if source is None else source, quote=True)


def _tokens_of(rows: Any, quote: bool) -> tuple[Token, ...]:
    """The checked tokens of a table's rows; ``quote=False`` (rows of a file):
    errors describe a value by its kind instead of quoting it."""
    if isinstance(rows, dict) and "tokens" in rows:
        rows = rows["tokens"]
    if not isinstance(rows, (list, tuple)) or not rows:
        raise _fail("table", f"must be a non-empty list of rows, got {_shown(rows, quote)}")
    if len(rows) > MAX_TOKENS:
        raise _fail("table", f"has {len(rows)} tokens; at most {MAX_TOKENS}")
    tokens = tuple(_parse_row(i, row, quote) for i, row in enumerate(rows))
    _check_table(tokens)
    return tokens


AERODROME = parse_aerodrome()
"""The shipped Aerodrome (see :data:`DEFAULT_AERODROME_ROWS`)."""


BONUS_HELP = {
    "medallion": "one more Medallion on an Ace of the Squadron",
    "follow_equal": "follow with a Squadron equal to the one on the table",
    "swap_one": "before the Campaign: give an Ace of your choice to an opponent, take one "
    "of theirs at random",
    "run": "play consecutive values as a Squadron (worth its highest; never with Garros)",
    "tiebreaker": "no bonus: claiming it takes the largest fractional VP token left",
    "wild": "one Ace of the Squadron is wild: declare its value",
    "two_medallions": "two more Medallions on an Ace of the Squadron",
    "unmatched": "two or three unmatched Aces as a Squadron of that size (worth the lowest)",
    "swap_two": "before the Campaign: give two Aces of your choice to an opponent, take two "
    "of theirs at random",
    "size_change": "the Squadron may be one Ace larger or smaller than the Squadron Size",
    "armistice": "taking it ends the Great War after this Dogfight",
    "none": "no bonus, only its VP",
}
"""Each Aerodrome bonus in a few words (the table's ``bonus`` column)."""


def special_cards_help() -> list[tuple[str, str]]:
    """What the special cards and the shipped Aerodrome's tokens do, in a few words,
    as ``(card, what it does)`` rows: ``?`` in terminal play and the play page's
    help show them (an Aerodrome given by option is on the table itself)."""
    tokens = [
        (
            f"{t.name} ({t.vp_front}/{t.vp_back} VP, ribbon "
            f"{'-'.join(str(p) for p in range(1, t.ribbon + 1))})",
            BONUS_HELP.get(t.bonus, t.bonus),
        )
        for t in AERODROME
    ]
    return [
        ("Squadron", "1-6 equal Aces; the others follow with the same size and more Medallions, "
         "or as many and a higher value, or pass; when all others passed, its player leads"),
        ("9 and 10", "carry a Medallion each: a single Ace with a Medallion may be played "
         "whatever the Squadron Size, and more Medallions beat a higher value"),
        ("G Roland Garros", "must start the Campaign: alone he wins the Dogfight at once, with a "
         "set he takes its value"),
        ("going out", "the first players out take a token of their Aerodrome (ribbon: the "
         "places allowed; a token needs one of the tokens before it) or a +1VP token"),
        ("tokens", "each bonus may be used twice from the next Campaign: the first use flips "
         "it (back VP), the second returns it to the Aerodrome"),
        ("trading", "after a Campaign: 2, 3 or 4 +1VP tokens buy a 1-2-3, 1-2 or 1 token"),
        *tokens,
    ]  # fmt: skip
