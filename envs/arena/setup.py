"""Setting up an Arena game (functions over an :class:`.rules.ArenaGame`):
characters, trophies, the cards on their spaces, the gyms and their power cards, the medal
stack, a scenario's pieces, the starting corners and the first player.

1. 2 trophies per player, 5 per gym, the rest in the supply.
2. 4 of the gyms on the corners (shuffled) with their gym power cards; the
   world and maneuver cards shuffled onto their spaces (a scenario's held
   cards and placed cards first; the rest stay in the box); the medal cards in
   a shuffled stack.
3. Characters: a scenario's first; every other seat wishes for one (phase
   ``wish``, in seat order, of its scenario form if it names one), hidden from
   the others until all have wished; seats wishing for the same one roll a d6
   for it in the open (the highest picks, ties roll again); the others wish
   again among the characters left. Step 2's random part (which gyms, which
   card on which space, the medal stack's order) is dealt from the game's
   generator when the last character is given, so nobody wishes knowing the
   board; a scenario that gives every seat its character deals it at once.
4. The players without a position choose a corner in seat order; then every
   player rolls a d6 for the first player (ties roll again).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from . import challenges
from .data import ASTROBIRDZ, FORMS, INVAZORZ
from .phases import BOARD, BOX, CORNER, IN_STACK, WISH

if TYPE_CHECKING:
    from .rules import ArenaGame


@dataclass
class Scenario:
    """A ``reset`` scenario in engine terms (seats, ids); see the env's docs."""

    characters: dict[int, int] = field(default_factory=dict)
    forms: dict[int, int] = field(default_factory=dict)
    positions: dict[int, int] = field(default_factory=dict)
    trophies: dict[int, int] = field(default_factory=dict)
    cards: dict[int, list[int]] = field(default_factory=dict)
    medals: dict[int, list[int]] = field(default_factory=dict)
    board: dict[int, int] = field(default_factory=dict)
    """Cards placed on given spaces before the rest are shuffled onto the others."""
    gyms: list[int] | None = None
    gym_powers: dict[int, list[int]] = field(default_factory=dict)
    medal_cards: dict[int, list[int]] = field(default_factory=dict)
    first_player: int | None = None
    turn: int = 1
    dice: list[int] = field(default_factory=list)


def set_up(game: ArenaGame, sc: Scenario) -> None:
    """Set up a new game (steps 1-4 of the module docstring, the scenario's
    pieces first); ends at the first corner choice or the first turn."""
    box, n = game.box, game.num_players
    game.trophies = [0] * n
    game.bonus_trophies = [0] * n
    game.medals = [[0, 0, 0] for _ in range(n)]
    game.powers = [[0] * len(box.gyms) for _ in range(n)]
    game.lost_turns, game.upside_down, game.dark = [0] * n, [False] * n, [0] * n
    game.first_turn = [sc.turn == 1] * n
    game.start_corner = [-1] * n
    game.positions = [-1] * n
    game.roll_bonus, game.roll_gold = [0] * n, [False] * n
    game.roll_extra = [0] * n
    game.roll_cards = [[] for _ in range(n)]
    game.seen = [0] * n
    game.medal_supply = list(box.medal_supply)
    game.maneuvers_of = [[] for _ in range(n)]
    game.worlds_of = [[] for _ in range(n)]
    _given_characters(game, sc)
    if any(c < 0 for c in game.characters):
        _refuse_board_pieces(game, sc)
        _undealt_board(game)
    else:
        _deal_board(game, sc)
        _give_scenario_items(game, sc)
    for seat, space in sc.positions.items():
        game.positions[seat] = space
        if space in box.corners:
            game.start_corner[seat] = space
    game.rounds = sc.turn - 1
    if game.rounds >= game.config.max_rounds:
        raise ValueError(
            f"turn={sc.turn} starts after the last round; allowed: 1..{game.config.max_rounds}"
        )
    game.preset_first = -1 if sc.first_player is None else sc.first_player
    next_wisher(game)


def _given_characters(game: ArenaGame, sc: Scenario) -> None:
    """The scenario's characters (and forms); the other seats have none yet
    (character -1; form -1, or the scenario's form, which limits their wishes)."""
    box, n = game.box, game.num_players
    given = dict(sc.characters)
    if len(set(given.values())) != len(given):
        raise ValueError("two players cannot have the same character")
    for seat, char in given.items():
        form = sc.forms.get(seat)
        if form is not None and (form == INVAZORZ) != box.characters[char].invazorz:
            raise ValueError(
                f"player_{seat}: character {box.characters[char].name} cannot be in form "
                f"{FORMS[form]}"
            )
    game.characters = [given.get(s, -1) for s in range(n)]
    game.forms = [
        sc.forms.get(s, natural_form(game, given[s]) if s in given else -1) for s in range(n)
    ]
    game.wishes = [-1] * n
    taken = set(given.values())
    for seat in range(n):
        if seat not in given and not wish_pool(game, seat, taken):
            raise ValueError(f"no character is left for player_{seat}")
    _enough_characters(game, taken)


def _enough_characters(game: ArenaGame, taken: set[int]) -> None:
    """The seats still to wish can all get a character: as many Invazorz (and
    Astrobirdz) left as seats whose scenario form needs one, and as many left
    in all as seats to wish (else a late wisher would have nothing to wish for)."""
    left = [c for c in game.box.characters if c.id not in taken]
    waiting = [s for s in range(game.num_players) if game.characters[s] < 0]
    need_invazorz = sum(1 for s in waiting if game.forms[s] == INVAZORZ)
    need_astrobirdz = sum(1 for s in waiting if game.forms[s] >= 0 and game.forms[s] != INVAZORZ)
    have_invazorz = sum(1 for c in left if c.invazorz)
    if (
        need_invazorz > have_invazorz
        or need_astrobirdz > len(left) - have_invazorz
        or len(waiting) > len(left)
    ):
        raise ValueError(
            f"{len(waiting)} players still need a character ({need_invazorz} of them an "
            f"Invazorz, {need_astrobirdz} an Astrobirdz) but only {len(left)} are left "
            f"({have_invazorz} Invazorz)"
        )


def natural_form(game: ArenaGame, char: int) -> int:
    """The form a character card starts in: Invazorz, or Astrobirdz."""
    return INVAZORZ if game.box.characters[char].invazorz else ASTROBIRDZ


def wish_pool(game: ArenaGame, seat: int, taken: set[int] | None = None) -> list[int]:
    """The characters ``seat`` may wish for: not taken yet, of its scenario form
    if it has one (an Astrobirdz name stands for its Berzerkerbirdz card too)."""
    box, form = game.box, game.forms[seat]
    if taken is None:
        taken = {c for c in game.characters if c >= 0}
    return [
        c.id
        for c in box.characters
        if c.id not in taken and (form < 0 or c.invazorz == (form == INVAZORZ))
    ]


def next_wisher(game: ArenaGame) -> None:
    """The next seat without a character and without a wish wishes (in seat
    order); once all have, the wishes are settled; once every seat has a
    character, the corners are chosen."""
    characters, wishes = game.characters, game.wishes
    for seat in range(game.num_players):
        if characters[seat] < 0 and wishes[seat] < 0:
            game._decide(WISH, seat)
            return
    if any(c < 0 for c in characters):
        settle_wishes(game)
        next_wisher(game)
        return
    if not dealt(game):
        _deal_board(game, Scenario())
        _give_scenario_items(game, Scenario())
    next_corner_chooser(game)


BOARD_PIECES = ("trophies", "cards", "medals", "gym_powers", "medal_cards", "board", "gyms")
"""Scenario pieces that belong to the dealt board (options trophies, maneuvers,
worlds, medals, gym_powers, medal_cards, board, gyms)."""


def dealt(game: ArenaGame) -> bool:
    """True once the board is dealt (its gyms are on the corners)."""
    return bool(game.gym_at)


def _refuse_board_pieces(game: ArenaGame, sc: Scenario) -> None:
    """A scenario that leaves a seat to wish cannot also place board pieces:
    the board is dealt only after the wishes, so they would have to wait in the
    state. Raises ``ValueError`` naming the pieces and the way out."""
    given = [name for name in BOARD_PIECES if getattr(sc, name)]
    if given and any(c < 0 for c in game.characters):
        options = ", ".join("maneuvers/worlds" if n == "cards" else n for n in given)
        raise ValueError(
            f"scenario pieces {options} need every seat's character given (option "
            "characters for all players): the board is dealt after the character wishes"
        )


def _undealt_board(game: ArenaGame) -> None:
    """The board before the wishes end: the trophies counted out (step 1),
    no gym on a corner, every card in the box, the medal cards in box order."""
    box, n = game.box, game.num_players
    game.trophies = [box.start_trophies] * n
    game.gym_trophies = [box.gym_trophies] * len(box.corners)
    game.supply = box.trophies - box.start_trophies * n - box.gym_trophies * len(box.corners)
    game.gym_at = []
    game.gym_cards = [0] * len(box.gyms)
    game.space_item = [-1] * box.num_spaces
    game.card_holder = [BOX] * box.num_cards
    game.card_space = [-1] * box.num_cards
    game.defended = [-1] * box.num_cards
    game.medal_stack = list(range(len(box.medal_cards)))
    game.medal_holder = [IN_STACK] * len(box.medal_cards)
    game.medal_space = [-1] * len(box.medal_cards)
    game.worlds_won = [0] * n


def apply_wish(game: ArenaGame, char: int) -> None:
    """The seat to act wishes for ``char`` (kept hidden until all have wished)."""
    game.wishes[game.actor] = char
    next_wisher(game)


def settle_wishes(game: ArenaGame) -> None:
    """Every seat without a character has wished: the wishes are revealed; a
    character wished by one seat goes to it, one wished by several is rolled
    off on d6 in the open (purpose ``character <name>``; the highest picks, ties
    roll again); the losers wish again among the characters left."""
    box = game.box
    wanted: dict[int, list[int]] = {}
    for seat, char in enumerate(game.wishes):
        if char >= 0:
            wanted.setdefault(char, []).append(seat)
    for char, seats in sorted(wanted.items()):
        winner = roll_off(game, seats, f"character {box.characters[char].name}")
        game.characters[winner] = char
        if game.forms[winner] < 0:
            game.forms[winner] = natural_form(game, char)
    game.wishes = [-1] * game.num_players


def roll_off(game: ArenaGame, seats: list[int], purpose: str) -> int:
    """Each seat rolls a d6; the highest wins; ties among the highest re-roll."""
    while len(seats) > 1:
        rolls = [game.roll_die(s, 6, purpose) for s in seats]
        top = max(rolls)
        seats = [s for s, r in zip(seats, rolls, strict=True) if r == top]
    return seats[0]


def _deal_board(game: ArenaGame, sc: Scenario) -> None:
    """Trophies, gyms and their power cards on the corners, cards shuffled onto
    their spaces (the scenario's held cards are taken out first), the medal
    cards in a shuffled stack beside the board."""
    box, n = game.box, game.num_players
    placed = sum(box.start_trophies for _ in range(n)) + box.gym_trophies * len(box.corners)
    game.supply = box.trophies - placed
    game.trophies = [box.start_trophies] * n
    game.gym_trophies = [box.gym_trophies] * len(box.corners)
    if sc.gyms is not None:
        if len(sc.gyms) != len(box.corners) or len(set(sc.gyms)) != len(sc.gyms):
            raise ValueError(f"gyms must name {len(box.corners)} different gyms, one per corner")
        game.gym_at = list(sc.gyms)
    else:
        order = game.rng.permutation(len(box.gyms))
        game.gym_at = [int(g) for g in order[: len(box.corners)]]
    game.gym_cards = [0] * len(box.gyms)
    for g in game.gym_at:
        game.gym_cards[g] = box.gym_power_cards
    held = {c for cards in sc.cards.values() for c in cards}
    game.space_item = [-1] * box.num_spaces
    game.card_holder = [BOX] * box.num_cards
    game.card_space = [-1] * box.num_cards
    game.defended = [-1] * box.num_cards
    for space, card in sc.board.items():
        kind = box.cards[card].kind
        if box.kind_of[space] != kind:
            raise ValueError(f"space {space} is a {box.kind_of[space]} space, not a {kind} space")
        if card in held or game.card_holder[card] == BOARD:
            raise ValueError(f"card {box.cards[card].name} is placed twice")
        game._set_card(card, BOARD, space)
    for kind, spaces in (("maneuver", box.maneuver_spaces), ("world", box.world_spaces)):
        pool = [
            c.id
            for c in box.cards
            if c.kind == kind and c.id not in held and game.card_holder[c.id] == BOX
        ]
        free = [s for s in spaces if s not in sc.board]
        order = game.rng.permutation(len(pool))
        for space, index in zip(free, order, strict=False):
            game._set_card(pool[int(index)], BOARD, space)
    order = game.rng.permutation(len(box.medal_cards))
    game.medal_stack = [int(k) for k in order]
    game.medal_holder = [IN_STACK] * len(box.medal_cards)
    game.medal_space = [-1] * len(box.medal_cards)


def _give_scenario_items(game: ArenaGame, sc: Scenario) -> None:
    """The scenario's trophies, cards, medals, gym power cards and medal cards."""
    box = game.box
    for seat, count in sc.trophies.items():
        game.supply += game.trophies[seat] - count
        game.trophies[seat] = count
    if game.supply < 0:
        raise ValueError(
            f"the scenario's trophies need {-game.supply} more than the box's "
            f"{box.trophies} (after the gyms' trophies)"
        )
    for seat, cards in sorted(sc.cards.items()):
        for card in cards:
            if game.card_holder[card] >= 0:
                raise ValueError(f"card {box.cards[card].name} is given to two players")
            game._set_card(card, seat)
    for seat, levels in sc.medals.items():
        for level in levels:
            if not game.medals[seat][level]:
                challenges.award_medal(game, seat, level)
    for seat in range(game.num_players):
        challenges.check_medals(game, seat)
    game.worlds_won = [len(w) for w in game.worlds_of]
    for seat, gyms in sc.gym_powers.items():
        for g in gyms:
            if game.gym_cards[g] <= 0:
                raise ValueError(
                    f"gym {box.gyms[g].name} has no gym power card left to give "
                    f"player_{seat} (gyms on the board: "
                    f"{', '.join(box.gyms[x].name for x in game.gym_at)})"
                )
            game.gym_cards[g] -= 1
            game.powers[seat][g] += 1
    for seat, ks in sc.medal_cards.items():
        for k in ks:
            if game.medal_holder[k] != IN_STACK:
                raise ValueError(f"medal card {box.medal_cards[k].name} is given twice")
            if not box.medal_cards[k].extra_die:
                raise ValueError(
                    f"medal card {box.medal_cards[k].name} gives a trophy at once; only "
                    "extra-die medal cards are held"
                )
            game.medal_stack.remove(k)
            game.medal_holder[k] = seat


def next_corner_chooser(game: ArenaGame) -> None:
    """Seats without a position choose their starting corner in seat order;
    then the first player is rolled for and the first turn begins."""
    for seat in range(game.num_players):
        if game.positions[seat] < 0:
            game._decide(CORNER, seat)
            return
    first = game.preset_first
    if first < 0:
        first = roll_off(game, list(range(game.num_players)), "first player")
    game.first_player = first
    game._start_turn(first)
