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
"""

from __future__ import annotations

import functools

from .data import Box

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
