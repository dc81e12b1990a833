"""Asrus game content, as printed in the rulebook (and completed by our rulings).

Everything a house rule might change lives here as plain tables: the number
cards and their counts, the special cards, the jokers' declarable powers, and
the preparation table (cards and stones dealt per player count).
"""

from __future__ import annotations

from dataclasses import dataclass

NUMBERS = tuple(range(1, 16))
"""Number card values, 1 (Sun) .. 15 (Moon)."""

NUMBER_NAMES = {
    1: "Sun", 2: "Aries", 3: "Taurus", 4: "Gemini", 5: "Cancer", 6: "Leo", 7: "Virgo",
    8: "Earth", 9: "Libra", 10: "Scorpio", 11: "Sagittarius", 12: "Capricorn",
    13: "Aquarius", 14: "Pisces", 15: "Moon",
}  # fmt: skip

NUMBER_COUNTS = {
    1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 8: 8,
    9: 7, 10: 6, 11: 5, 12: 4, 13: 3, 14: 2, 15: 1,
}  # fmt: skip
"""Copies of each number card: 64 in all (the 9-15 counts are our ruling)."""

SPECIAL_KINDS = ("C", "B", "D", "M", "R")
"""Close (Mercury), Blackhole (Venus), Double (Mars), Majority (Jupiter),
Retrograde (Saturn): two of each in the box."""

SPECIAL_NAMES = {
    "C": "Close", "B": "Blackhole", "D": "Double", "M": "Majority", "R": "Retrograde",
    "X": "Explosion", "T": "Triple",
}  # fmt: skip

SPECIAL_COUNT_EACH = 2
JOKER_COUNT = 3
"""Uranus, Neptune and Pluto; only in the ``jokers`` variant."""

JOKER_POWERS = ("C", "B", "D", "M", "R", "X", "T")
"""What a joker may be declared as: any special, or one of the rulebook's two
example new specialties, Explosion (no one gets points; a draw without deposit)
and Triple (if win, points x3)."""

STONE_VALUES = {"blue": 1, "green": 5, "red": 10}


@dataclass(frozen=True)
class Preparation:
    """One row of the preparation table: what each player is dealt."""

    number_cards: int
    special_cards: int
    blue: int
    green: int
    red: int

    @property
    def points(self) -> int:
        """Starting points of each player (stones are points)."""
        return (
            self.blue * STONE_VALUES["blue"]
            + self.green * STONE_VALUES["green"]
            + self.red * STONE_VALUES["red"]
        )


PREPARATION = {
    3: Preparation(12, 2, 10, 4, 6),
    4: Preparation(12, 2, 10, 4, 6),
    5: Preparation(12, 2, 10, 4, 6),
    6: Preparation(10, 1, 8, 3, 5),
    7: Preparation(9, 1, 7, 2, 4),
    8: Preparation(8, 1, 6, 2, 3),
    9: Preparation(7, 1, 5, 2, 3),
}
"""Per player count; the 9-player row is our ruling (the printed row is cut off)."""

FIXED_DESTINATION = {8: 8}
"""Player counts whose first destination is a fixed number with no card on the table."""


def special_cards_help() -> list[tuple[str, str]]:
    """What the special cards do, in a few words, as ``(card, what it does)`` rows:
    ``?`` in terminal play and the play page's help show them."""
    return [
        ("number cards", "1 Sun .. 15 Moon; distance = |card - destination|; the closest "
         "distance no one else played wins, and everyone else pays the winner that distance"),
        ("C Close (Mercury)", "your distance counts 0.5 less: it breaks a tie in your favour"),
        ("B Blackhole (Venus)", "whoever wins, this turn's payments go to the deposit instead"),
        ("D Double (Mars)", "if you win, everyone pays you double (a 1 or 15 doubles again)"),
        ("M Majority (Jupiter)", "on the number played more often than any other, you win "
         "outright; two Majorities on it cancel"),
        ("R Retrograde (Saturn)", "the farthest unique distance wins this turn instead of the "
         "closest"),
        ("J joker (variant)", "declared as any special above, or X Explosion (nobody wins, "
         "nothing moves) or T Triple (if you win, you are paid x3)"),
        ("draw and deposit", "with no winner every player deposits the smallest non-zero "
         "distance; the next winner takes the deposit, what is left at the round's end goes "
         "to a lottery"),
    ]  # fmt: skip
