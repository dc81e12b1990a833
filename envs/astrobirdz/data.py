"""Astrobirdz game content, as printed in the rulebook (rules version 1.007).

Everything a house rule might change lives here as plain tables: the deck, the
six Berzerkerbirdz, the Player Chart, the pass-cards chart and the 54 trump
rule cards. Each rule card is one row: the card, its printed rule, and the
:class:`Effect` that the rules engine enforces for the turn it sets the trump
colour. The engine reads only the :class:`Effect` fields, so a new house rule
is a new row, not new code.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache

# ---- the deck -----------------------------------------------------------------

COLOURS = ("R", "O", "Y", "G", "B", "P")
"""Colour letters in deck order: red, orange, yellow, green, blue, pink."""

COLOUR_NAMES = ("red", "orange", "yellow", "green", "blue", "pink")
RED, ORANGE, YELLOW, GREEN, BLUE, PINK = range(6)
NUMBERS = tuple(range(1, 10))
NUM_COLOURS = len(COLOURS)
NUM_CARDS = NUM_COLOURS * len(NUMBERS)  # 54


def card_id(colour: int, number: int) -> int:
    """Card id 0..53: ``colour * 9 + number - 1`` (so ids sort by colour, then number).

    >>> card_id(RED, 1), card_id(ORANGE, 4), card_id(PINK, 9)
    (0, 12, 53)
    """
    return colour * 9 + number - 1


def colour_of(card: int) -> int:
    return card // 9


def number_of(card: int) -> int:
    return card % 9 + 1


def card_text(card: int) -> str:
    """``"R4"`` for the red 4."""
    return f"{COLOURS[card // 9]}{card % 9 + 1}"


CARD_TEXTS = tuple(card_text(card) for card in range(NUM_CARDS))
""":func:`card_text` of every card id: views and bots turn thousands of cards
into words and back per second of play."""
_CARD_IDS = {text: card for card, text in enumerate(CARD_TEXTS)}


def parse_card(text: str) -> int:
    """Inverse of :func:`card_text`; raises ``ValueError`` naming the form."""
    if type(text) is str and text in _CARD_IDS:  # the usual case: a card as written
        return _CARD_IDS[text]
    cleaned = str(text).strip().upper()
    if len(cleaned) == 2 and cleaned[0] in COLOURS and cleaned[1] in "123456789":
        return card_id(COLOURS.index(cleaned[0]), int(cleaned[1]))
    raise ValueError(
        f"cannot read card {text!r}; write a colour letter R O Y G B P and a number 1-9, e.g. 'R4'"
    )


# ---- Berzerkerbirdz -----------------------------------------------------------


@dataclass(frozen=True)
class Berzerkerbird:
    """One Berzerkerbirdz card: its number (1-6), name, colour and the points it
    scores every turn (its power is enforced by the rules engine by number)."""

    number: int
    name: str
    colour: int
    points: int
    power: str


BERZERKERBIRDZ = (
    Berzerkerbird(1, "Zoom", RED, 2, "Start the first trick. Score 2 points."),
    Berzerkerbird(2, "Max", ORANGE, 3,
                  "Guess how many tricks you will win after all other players have "
                  "guessed. Score 3 points."),
    Berzerkerbird(3, "Speedster", YELLOW, 4, "Play the last card in each trick. Score 4 points."),
    Berzerkerbird(4, "Turbo", GREEN, 0,
                  "Score 5 extra points when you get the AstroBoard Bonus. Also, win all "
                  "ties when assigning the AstroBoard for the next turn. Score 0 points."),
    Berzerkerbird(5, "Nitro", BLUE, 6,
                  "Look at one other player's hand just before making your guess. "
                  "Score 6 points."),
    Berzerkerbird(6, "Surfette", PINK, 7,
                  "Before any guesses are made, you may trade one or two cards for a like "
                  "number drawn randomly another player's hand. Score 7 points."),
)  # fmt: skip
"""Indexed by number - 1."""

ZOOM, MAX, SPEEDSTER, TURBO, NITRO, SURFETTE = range(1, 7)
NO_BIRD = 0
"""A seat's Berzerkerbird number when it has none (every seat with ``berzerkerbirdz=False``)."""


def bird(number: int) -> Berzerkerbird:
    return BERZERKERBIRDZ[number - 1]


# ---- charts ---------------------------------------------------------------------

TURNS = {2: 5, 3: 5, 4: 6, 5: 7, 6: 8}
"""Player Chart: turns played by player count; turn t deals t cards to each player."""

PASS_CHART = ((2, 1), (3, 2), (4, 2), (5, 3))
"""Optional rule "Pass Cards": (cards in hand, cards passed left); 5 or more pass 3."""


def cards_to_pass(hand_size: int) -> int:
    """Cards each player passes left under the optional pass-cards rule."""
    passed = 0
    for size, count in PASS_CHART:
        if hand_size >= size:
            passed = count
    return passed


EXACT_GUESS_POINTS = 5
HIGHEST_GUESS_POINTS = 5
ASTROBOARD_BONUS_POINTS = 5
TURBO_BONUS_POINTS = 5
MISS_PENALTY_PER_TRICK = 1

MAX_SCORE = 1_000_000
"""Largest running score a scenario or a saved state may hold: far above what
any game reaches (a few hundred points), and small enough for every float."""


# ---- trump rule cards -----------------------------------------------------------


@dataclass(frozen=True)
class Effect:
    """What a trump rule card changes for its turn. Every field defaults to "no
    change"; a card sets the fields its printed rule speaks of."""

    card_points: tuple[tuple[str, int, int], ...] = ()
    """Extra points per card taken in tricks: ``("colour", c, pts)``,
    ``("number", k, pts)``, or ``("trump", 0, pts)`` for the turn's trump colour."""
    trump_change_numbers: frozenset[int] = frozenset()
    """If a card of one of these numbers is played in a trick, that trick's trump
    colour becomes :attr:`trump_change_to`."""
    trump_change_to: int = -1
    values: tuple[tuple[int, int], ...] = ()
    """Number cards that count as another value this turn, e.g. ``((1, 10),)``."""
    protected: frozenset[int] = frozenset()
    """Numbers not beaten by lower trump-colour cards: they count as trump cards."""
    protected_beat_trump: bool = False
    """Protected numbers are beaten by no trump card at all: they rank above every
    other card (Green 7 read by its printed example; option ``green_7``)."""
    eights_beat_nines: bool = False
    extra_draws: int = 0
    replace_numbers: frozenset[int] = frozenset()
    """After the deal, discard these numbers and draw replacements once."""
    rotate_berzerkerbirdz: bool = False
    discard_one: bool = False
    pass_right: str = ""
    """``"lowest"`` or ``"highest"``: each player passes that card to the right."""
    trump_chooser: str = ""
    """``"dealer"``, ``"youngest"``, ``"oldest"`` or ``"lowest_berzerkerbird"``."""
    multiplier: int = 1
    parity_bonus: tuple[str, int] = ("", 0)
    """``("even", 5)``: a turn total with that parity scores the extra points."""
    first_trick_bonus: int = 0
    last_trick_bonus: int = 0
    trick_value: int = 1
    """Points per trick won."""


@dataclass(frozen=True)
class RuleCard:
    """One row of the rule-card table: the card, its printed rule, its effect."""

    card: str
    title: str
    text: str
    effect: Effect


def _nines() -> Effect:
    return Effect(protected=frozenset({9}))


NINES_TEXT = "9s are not beaten by lower Trump Color cards played."
DOUBLE_TEXT = "Double all points scored."

RULE_CARDS: tuple[RuleCard, ...] = (
    RuleCard("R1", "Red Zoom #1", "All red cards taken in tricks this round score 1 point each.",
             Effect(card_points=(("colour", RED, 1),))),
    RuleCard("R2", "Red Zoom #2",
             "Any 2 played during a trick changes the Trump Color to Orange for that trick.",
             Effect(trump_change_numbers=frozenset({2}), trump_change_to=ORANGE)),
    RuleCard("R3", "Red Zoom #3", "No special power. Play all tricks normally.", Effect()),
    RuleCard("R4", "Red Zoom #4", "All red cards taken in tricks this round score 2 points each.",
             Effect(card_points=(("colour", RED, 2),))),
    RuleCard("R5", "Red Zoom #5",
             "Any 2 or 3 played during a trick change the Trump Color to Orange for that trick.",
             Effect(trump_change_numbers=frozenset({2, 3}), trump_change_to=ORANGE)),
    RuleCard("R6", "Red Zoom #6", "Everyone draws another card.", Effect(extra_draws=1)),
    RuleCard("R7", "Red Zoom #7", "All 1 cards count as 10.", Effect(values=((1, 10),))),
    RuleCard("R8", "Red Zoom #8", DOUBLE_TEXT, Effect(multiplier=2)),
    RuleCard("R9", "Red Zoom #9", NINES_TEXT, _nines()),
    RuleCard("O1", "Orange Max #1",
             "All orange cards taken in tricks this round score 2 points each.",
             Effect(card_points=(("colour", ORANGE, 2),))),
    RuleCard("O2", "Orange Max #2",
             "Any 2 played during a trick changes the Trump Color to Yellow for that trick.",
             Effect(trump_change_numbers=frozenset({2}), trump_change_to=YELLOW)),
    RuleCard("O3", "Orange Max #3",
             "When Astrobirdz cards are dealt, discard all 1s and 2s in your hand and draw "
             "cards to replace them.",
             Effect(replace_numbers=frozenset({1, 2}))),
    RuleCard("O4", "Orange Max #4",
             "All orange cards taken in tricks this round score 3 points each.",
             Effect(card_points=(("colour", ORANGE, 3),))),
    RuleCard("O5", "Orange Max #5", "Give Berzerkerbirdz cards to the player on your left.",
             Effect(rotate_berzerkerbirdz=True)),
    RuleCard("O6", "Orange Max #6", "Everyone draws 2 more cards.", Effect(extra_draws=2)),
    RuleCard("O7", "Orange Max #7", "Everyone discards one card.", Effect(discard_one=True)),
    RuleCard("O8", "Orange Max #8", DOUBLE_TEXT, Effect(multiplier=2)),
    RuleCard("O9", "Orange Max #9", NINES_TEXT, _nines()),
    RuleCard("Y1", "Yellow Speedster #1",
             "All yellow cards taken in tricks this round score 2 points each.",
             Effect(card_points=(("colour", YELLOW, 2),))),
    RuleCard("Y2", "Yellow Speedster #2",
             "Any 2 played during a trick changes the Trump Color to Green for that trick.",
             Effect(trump_change_numbers=frozenset({2}), trump_change_to=GREEN)),
    RuleCard("Y3", "Yellow Speedster #3",
             "Give your lowest numbered card to the person on your right.",
             Effect(pass_right="lowest")),
    RuleCard("Y4", "Yellow Speedster #4",
             "Give your highest numbered card to the person on your right.",
             Effect(pass_right="highest")),
    RuleCard("Y5", "Yellow Speedster #5",
             "All '5' cards taken in tricks this round score 3 points each.",
             Effect(card_points=(("number", 5, 3),))),
    RuleCard("Y6", "Yellow Speedster #6", "The dealer picks Trump Color for this turn.",
             Effect(trump_chooser="dealer")),
    RuleCard("Y7", "Yellow Speedster #7", "The youngest player picks Trump Color for this turn.",
             Effect(trump_chooser="youngest")),
    RuleCard("Y8", "Yellow Speedster #8", "The oldest player picks Trump Color for this turn.",
             Effect(trump_chooser="oldest")),
    RuleCard("Y9", "Yellow Speedster #9", NINES_TEXT, _nines()),
    RuleCard("G1", "Green Turbo #1",
             "All green cards taken in tricks this round score 2 points each.",
             Effect(card_points=(("colour", GREEN, 2),))),
    RuleCard("G2", "Green Turbo #2",
             "Any 2 played during a trick changes the Trump Color to Blue for that trick.",
             Effect(trump_change_numbers=frozenset({2}), trump_change_to=BLUE)),
    RuleCard("G3", "Green Turbo #3",
             "All '3' cards taken in tricks this round score 5 points each.",
             Effect(card_points=(("number", 3, 5),))),
    RuleCard("G4", "Green Turbo #4",
             "All Trump Color cards taken in tricks this round score 3 points each.",
             Effect(card_points=(("trump", 0, 3),))),
    RuleCard("G5", "Green Turbo #5", "All 9 cards count as 0.", Effect(values=((9, 0),))),
    RuleCard("G6", "Green Turbo #6", "Everyone draws another card.", Effect(extra_draws=1)),
    RuleCard("G7", "Green Turbo #7", "4s and 5s are not beaten by lower Trump Color cards played.",
             Effect(protected=frozenset({4, 5}))),
    RuleCard("G8", "Green Turbo #8",
             "All '8' cards taken in tricks this round score 5 points each.",
             Effect(card_points=(("number", 8, 5),))),
    RuleCard("G9", "Green Turbo #9", NINES_TEXT, _nines()),
    RuleCard("B1", "Blue Nitro #1",
             "All blue cards taken in tricks this round score 2 points each.",
             Effect(card_points=(("colour", BLUE, 2),))),
    RuleCard("B2", "Blue Nitro #2",
             "Any 2 played during a trick changes the Trump Color to Pink for that trick.",
             Effect(trump_change_numbers=frozenset({2}), trump_change_to=PINK)),
    RuleCard("B3", "Blue Nitro #3", "Winning tricks score 5 points.", Effect(trick_value=5)),
    RuleCard("B4", "Blue Nitro #4",
             "All blue cards taken in tricks this round score 3 points each.",
             Effect(card_points=(("colour", BLUE, 3),))),
    RuleCard("B5", "Blue Nitro #5",
             "Any 2 or 5 played during a trick changes the Trump Color to Pink for that trick.",
             Effect(trump_change_numbers=frozenset({2, 5}), trump_change_to=PINK)),
    RuleCard("B6", "Blue Nitro #6", "Everyone draws 2 more cards.", Effect(extra_draws=2)),
    RuleCard("B7", "Blue Nitro #7", DOUBLE_TEXT, Effect(multiplier=2)),
    RuleCard("B8", "Blue Nitro #8", "8s are not beaten by lower Trump Color cards or 9s played.",
             Effect(protected=frozenset({8}), eights_beat_nines=True)),
    RuleCard("B9", "Blue Nitro #9", NINES_TEXT, _nines()),
    RuleCard("P1", "Pink Surfette #1", "Even scores get an extra 5 points.",
             Effect(parity_bonus=("even", 5))),
    RuleCard("P2", "Pink Surfette #2",
             "Any 2 played during a trick changes the Trump Color to Red for that trick.",
             Effect(trump_change_numbers=frozenset({2}), trump_change_to=RED)),
    RuleCard("P3", "Pink Surfette #3", "Everyone draws 3 more cards.", Effect(extra_draws=3)),
    RuleCard("P4", "Pink Surfette #4", "All 4 cards count as 10.", Effect(values=((4, 10),))),
    RuleCard("P5", "Pink Surfette #5", "Odd scores get an extra 5 points.",
             Effect(parity_bonus=("odd", 5))),
    RuleCard("P6", "Pink Surfette #6", "The player taking the last trick gains 5 points.",
             Effect(last_trick_bonus=5)),
    RuleCard("P7", "Pink Surfette #7", "The player taking the first trick gains 5 points.",
             Effect(first_trick_bonus=5)),
    RuleCard("P8", "Pink Surfette #8",
             "The player with the lowest Berzerkerbird card picks Trump Color for this turn.",
             Effect(trump_chooser="lowest_berzerkerbird")),
    RuleCard("P9", "Pink Surfette #9", NINES_TEXT, _nines()),
)  # fmt: skip
"""The 54 trump rule cards, in deck order (index = card id)."""

GREEN_7 = card_id(GREEN, 7)


@cache
def rule_cards(green_7_never_beaten: bool) -> tuple[RuleCard, ...]:
    """The 54 rule cards as a game enforces them: Green 7's 4s and 5s are either
    beaten by a higher trump (its last sentence; :data:`RULE_CARDS`) or by no
    trump card (its printed example)."""
    if not green_7_never_beaten:
        return RULE_CARDS
    seven = RULE_CARDS[GREEN_7]
    example = RuleCard(
        seven.card,
        seven.title,
        seven.text,
        replace(seven.effect, protected_beat_trump=True),
    )
    return (*RULE_CARDS[:GREEN_7], example, *RULE_CARDS[GREEN_7 + 1 :])


NO_RULE = RuleCard("-", "no rule", "Trump rules are off: play all tricks normally.", Effect())
"""The rule of every turn with ``trump_rules=False``."""

MAX_EXTRA_DRAWS = max(r.effect.extra_draws for r in RULE_CARDS)


def turn_points_bound(effect: Effect) -> int:
    """More points than one player can score in one turn under ``effect``:
    every card of the deck won in tricks (so every trick and every card bonus),
    every bonus and the best Berzerkerbird, the parity bonus, times the
    multiplier. A loose bound, but a proven one: scores are counted with it."""
    per_card = effect.trick_value + sum(points for _, _, points in effect.card_points)
    bonuses = EXACT_GUESS_POINTS + HIGHEST_GUESS_POINTS + ASTROBOARD_BONUS_POINTS
    bonuses += TURBO_BONUS_POINTS + max(b.points for b in BERZERKERBIRDZ)
    bonuses += effect.first_trick_bonus + effect.last_trick_bonus
    bonuses += max(0, effect.parity_bonus[1])
    return (NUM_CARDS * per_card + bonuses) * effect.multiplier


MAX_TURN_POINTS = max(
    turn_points_bound(r.effect) for r in (*RULE_CARDS, *rule_cards(True), NO_RULE)
)
"""More than any player can score in one turn under any rule card (351; a
game reaches a few hundred points in all): a saved state's score may be at most
:data:`MAX_SCORE` plus this for every turn begun, so a state that loads plays
to its end and loads again."""

MAX_HAND = max(
    min(turns + MAX_EXTRA_DRAWS, (NUM_CARDS - 1) // players) for players, turns in TURNS.items()
)
"""Largest hand any turn can deal (5 players, turn 7, three extra draws: 10); guesses
run 0..MAX_HAND. The turned-up trump card is never dealt."""

assert [r.card for r in RULE_CARDS] == [card_text(c) for c in range(NUM_CARDS)]


def special_cards_help() -> list[tuple[str, str]]:
    """What the special cards do, in a few words, as ``(card, what it does)`` rows:
    ``?`` in terminal play and the play page's help show them. The birds come from
    :data:`BERZERKERBIRDZ` (their printed powers); the turn's trump rule is always
    on the table itself."""
    birds = [
        (f"{bird.number} {bird.name} ({COLOUR_NAMES[bird.colour]})", bird.power)
        for bird in BERZERKERBIRDZ
    ]
    return [
        ("trump card", "the turned-up card: its colour is trump for the turn and its rule "
         "(shown on the table) holds until the turn ends"),
        ("following", "play the led colour if you can; the highest trump wins the trick, "
         "otherwise the highest card of the led colour"),
        ("AstroBoard", "goes to the highest guess; 5 more points with a correct highest guess; "
         "missing your guess by exactly one, you may take or give one trick to make both "
         "guesses exact"),
        ("scoring", "1 a trick, 5 for an exact guess, 5 for the highest correct guess, the "
         "bird's points, minus 1 per trick the guess was off"),
        *birds,
    ]  # fmt: skip
