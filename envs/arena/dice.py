"""How Arena dice are read, and their exact odds.

A die's face is *read* before it is added up: a medal turns low faces into a
higher number (bronze: 1 reads 2; silver: 1-2 read 3; gold: 1-3 read 4, from
the box's ``medal_levels``), and dark matter makes every movement and
challenge die read 2 (option ``dark_matter``: ``"two"``, the default, ignores
medals; ``"medals"`` lets a medal read that 2 as it would read a rolled 2).

:func:`distribution` gives the exact distribution of a sum of read dice; the
heuristic bot builds its chances of winning a challenge on it (from the
reading tables in the view), and :func:`chance_at_least` is the chance of
meeting a challenge number.

A seat's own rolls in a game (:func:`roll_dice`, :func:`use_up_roll`,
:func:`medal_level`) live here too, below every rules chapter that rolls.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from .data import Box
from .phases import IN_STACK

if TYPE_CHECKING:
    from .rules import ArenaGame

NO_MEDAL = 0
"""Medal level 0: no medal; 1 bronze, 2 silver, 3 gold."""


def reading_table(box: Box, sides: int, level: int) -> tuple[int, ...]:
    """``table[face]`` = what a ``sides``-sided face reads with medal ``level``
    (index 0 unused).

    >>> from flockgym.envs.arena.data import default_box
    >>> reading_table(default_box(), 6, 2)
    (0, 3, 3, 3, 4, 5, 6)
    """
    tables = box.__dict__.get("_reading_tables")
    if tables is None:
        tables = box.__dict__["_reading_tables"] = {}
    table = tables.get((sides, level))
    if table is None:
        table = tables[(sides, level)] = _reading_table(box.medal_levels, sides, level)
    return table


def _reading_table(levels: tuple, sides: int, level: int) -> tuple[int, ...]:
    out = [0]
    for face in range(1, sides + 1):
        value = face
        if level > 0:
            medal = levels[level - 1]
            if face <= medal.below:
                value = medal.reads
        out.append(value)
    return tuple(out)


def read_face(box: Box, face: int, sides: int, level: int, dark: bool, dark_medals: bool) -> int:
    """One die's reading: dark matter first (every face reads the box's dark
    matter value), then the medal unless dark matter ignores medals."""
    if dark:
        face = box.dark_matter_value
        if not dark_medals:
            return face
    return reading_table(box, sides, level)[face]


@functools.lru_cache(maxsize=4096)
def distribution(table: tuple[int, ...], count: int) -> tuple[float, ...]:
    """``dist[s]`` = chance that ``count`` dice read by ``table`` add up to ``s``."""
    sides = len(table) - 1
    dist = [1.0]
    for _ in range(count):
        new = [0.0] * (len(dist) + max(table))
        for total, p in enumerate(dist):
            if p:
                for face in range(1, sides + 1):
                    new[total + table[face]] += p / sides
        dist = new
    return tuple(dist)


def sum_distribution(box: Box, sides: int, count: int, level: int) -> tuple[float, ...]:
    return distribution(reading_table(box, sides, level), count)


def chance_at_least(box: Box, need: int, sides: int, count: int, level: int) -> float:
    """Chance that ``count`` read dice add up to ``need`` or more.

    >>> from flockgym.envs.arena.data import default_box
    >>> round(chance_at_least(default_box(), 15, 6, 4, 0), 4)  # Spacefreeze Cryo Blast
    0.4437
    """
    if need <= 0:
        return 1.0
    dist = sum_distribution(box, sides, count, level)
    return float(sum(dist[need:]))


# ---- a seat's rolls in a game ----------------------------------------------------------


def medal_level(game: ArenaGame, seat: int) -> int:
    """The best medal ``seat`` holds: 0 none, 1 bronze, 2 silver, 3 gold."""
    m = game.medals[seat]
    return 3 if m[2] else 2 if m[1] else 1 if m[0] else 0


def roll_dice(game: ArenaGame, seat: int, sides: int, count: int, purpose: str) -> list[int]:
    """Roll and read ``count`` dice of ``seat`` (medals, gold reading, dark matter)."""
    level = 3 if game.roll_gold[seat] else medal_level(game, seat)
    roll = game.roll_die
    box = game.box
    if game.dark[seat] > 0:
        dark_medals = game.config.dark_matter == "medals"
        return [
            read_face(box, roll(seat, sides, purpose), sides, level, True, dark_medals)
            for _ in range(count)
        ]
    table = reading_table(box, sides, level)
    return [table[roll(seat, sides, purpose)] for _ in range(count)]


def use_up_roll(game: ArenaGame, seat: int) -> int:
    """After a roll: the Star Cluster trophies add their +2s and go back to the
    supply, used medal dice go under the medal stack, prepared modifiers end.
    Returns the Star Cluster part of the total."""
    bonus = game.bonus_trophies[seat] * game.box.trophy_value
    game.supply += game.bonus_trophies[seat]
    game.bonus_trophies[seat] = 0
    for k in game.roll_cards[seat]:
        game.medal_holder[k] = IN_STACK
        game.medal_stack.append(k)
    game.roll_cards[seat] = []
    game.roll_extra[seat] = game.roll_bonus[seat] = 0
    game.roll_gold[seat] = False
    return bonus
