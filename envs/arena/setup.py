"""Setting up an Arena game (a mixin of :class:`.rules.ArenaGame`): characters,
trophies, the cards on their spaces, the gyms and their power cards, the medal
stack, a scenario's pieces, the starting corners and the first player.

1. Characters: a scenario's first; every other seat wishes for one at random
   (of its scenario form) and seats wishing for the same one roll a d6 for it
   (the highest picks, ties roll again); the others wish again.
2. 2 trophies per player, 5 per gym, the rest in the supply.
3. 4 of the gyms on the corners (shuffled) with their gym power cards; the
   world and maneuver cards shuffled onto their spaces (a scenario's held
   cards and placed cards first; the rest stay in the box); the medal cards in
   a shuffled stack.
4. The players without a position choose a corner in seat order; then every
   player rolls a d6 for the first player (ties roll again).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .data import ASTROBIRDZ, FORMS, INVAZORZ
from .phases import BOARD, BOX, CORNER, IN_STACK


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


class SetupRules:
    """The set-up steps; see the module docstring."""

    def _set_up(self: Any, sc: Scenario) -> None:
        box, n = self.box, self.num_players
        self.trophies = [0] * n
        self.bonus_trophies = [0] * n
        self.medals = [[0, 0, 0] for _ in range(n)]
        self.powers = [[0] * len(box.gyms) for _ in range(n)]
        self.lost_turns, self.upside_down, self.dark = [0] * n, [False] * n, [0] * n
        self.first_turn = [sc.turn == 1] * n
        self.start_corner = [-1] * n
        self.positions = [-1] * n
        self.roll_bonus, self.roll_gold = [0] * n, [False] * n
        self.roll_extra = [0] * n
        self.roll_cards: list[list[int]] = [[] for _ in range(n)]
        self.seen = [0] * n
        self.medal_supply = list(box.medal_supply)
        self.maneuvers_of: list[list[int]] = [[] for _ in range(n)]
        self.worlds_of: list[list[int]] = [[] for _ in range(n)]
        self._choose_characters(sc)
        self._deal_board(sc)
        self._give_scenario_items(sc)
        for seat, space in sc.positions.items():
            self.positions[seat] = space
            if space in box.corners:
                self.start_corner[seat] = space
        self.rounds = sc.turn - 1
        if self.rounds >= self.config.max_rounds:
            raise ValueError(
                f"turn={sc.turn} starts after the last round; allowed: 1..{self.config.max_rounds}"
            )
        self.preset_first = -1 if sc.first_player is None else sc.first_player
        self._next_corner_chooser()

    def _choose_characters(self: Any, sc: Scenario) -> None:
        """Scenario characters first; every other seat wishes for a character at
        random (of its scenario form), and players wishing for the same one roll
        a d6 for it (highest picks, ties re-roll); the others wish again."""
        box, n = self.box, self.num_players
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
        chosen = dict(given)
        while len(chosen) < n:
            wishes: dict[int, list[int]] = {}
            for seat in range(n):
                if seat in chosen:
                    continue
                pool = self._character_pool(sc.forms.get(seat), set(chosen.values()))
                if not pool:
                    raise ValueError(f"no character is left for player_{seat}")
                wish = pool[int(self.rng.integers(len(pool)))]
                wishes.setdefault(wish, []).append(seat)
            for char, seats in sorted(wishes.items()):
                chosen[self._roll_off(seats, "character")] = char
        self.characters = [chosen[s] for s in range(n)]
        self.forms = [
            sc.forms.get(s, INVAZORZ if box.characters[c].invazorz else ASTROBIRDZ)
            for s, c in enumerate(self.characters)
        ]

    def _character_pool(self: Any, form: int | None, taken: set[int]) -> list[int]:
        box = self.box
        return [
            c.id
            for c in box.characters
            if c.id not in taken and (form is None or c.invazorz == (form == INVAZORZ))
        ]

    def _roll_off(self: Any, seats: list[int], purpose: str) -> int:
        """Each seat rolls a d6; the highest wins; ties among the highest re-roll."""
        while len(seats) > 1:
            rolls = [self.roll_die(s, 6, purpose) for s in seats]
            top = max(rolls)
            seats = [s for s, r in zip(seats, rolls, strict=True) if r == top]
        return seats[0]

    def _deal_board(self: Any, sc: Scenario) -> None:
        """Trophies, gyms and their power cards on the corners, cards shuffled onto
        their spaces (the scenario's held cards are taken out first), the medal
        cards in a shuffled stack beside the board."""
        box, n = self.box, self.num_players
        placed = sum(box.start_trophies for _ in range(n)) + box.gym_trophies * len(box.corners)
        self.supply = box.trophies - placed
        self.trophies = [box.start_trophies] * n
        self.gym_trophies = [box.gym_trophies] * len(box.corners)
        if sc.gyms is not None:
            if len(sc.gyms) != len(box.corners) or len(set(sc.gyms)) != len(sc.gyms):
                raise ValueError(
                    f"gyms must name {len(box.corners)} different gyms, one per corner"
                )
            self.gym_at = list(sc.gyms)
        else:
            order = self.rng.permutation(len(box.gyms))
            self.gym_at = [int(g) for g in order[: len(box.corners)]]
        self.gym_cards = [0] * len(box.gyms)
        for g in self.gym_at:
            self.gym_cards[g] = box.gym_power_cards
        held = {c for cards in sc.cards.values() for c in cards}
        self.space_item = [-1] * box.num_spaces
        self.card_holder = [BOX] * box.num_cards
        self.card_space = [-1] * box.num_cards
        self.defended = [-1] * box.num_cards
        for space, card in sc.board.items():
            kind = box.cards[card].kind
            if box.kind_of[space] != kind:
                raise ValueError(
                    f"space {space} is a {box.kind_of[space]} space, not a {kind} space"
                )
            if card in held or self.card_holder[card] == BOARD:
                raise ValueError(f"card {box.cards[card].name} is placed twice")
            self._set_card(card, BOARD, space)
        for kind, spaces in (("maneuver", box.maneuver_spaces), ("world", box.world_spaces)):
            pool = [
                c.id
                for c in box.cards
                if c.kind == kind and c.id not in held and self.card_holder[c.id] == BOX
            ]
            free = [s for s in spaces if s not in sc.board]
            order = self.rng.permutation(len(pool))
            for space, index in zip(free, order, strict=False):
                self._set_card(pool[int(index)], BOARD, space)
        order = self.rng.permutation(len(box.medal_cards))
        self.medal_stack = [int(k) for k in order]
        self.medal_holder = [IN_STACK] * len(box.medal_cards)
        self.medal_space = [-1] * len(box.medal_cards)

    def _give_scenario_items(self: Any, sc: Scenario) -> None:
        box = self.box
        for seat, count in sc.trophies.items():
            self.supply += self.trophies[seat] - count
            self.trophies[seat] = count
        if self.supply < 0:
            raise ValueError(
                f"the scenario's trophies need {-self.supply} more than the box's "
                f"{box.trophies} (after the gyms' trophies)"
            )
        for seat, cards in sorted(sc.cards.items()):
            for card in cards:
                if self.card_holder[card] >= 0:
                    raise ValueError(f"card {box.cards[card].name} is given to two players")
                self._set_card(card, seat)
        for seat, levels in sc.medals.items():
            for level in levels:
                if not self.medals[seat][level]:
                    self._award_medal(seat, level)
        for seat in range(self.num_players):
            self._check_medals(seat)
        for seat, gyms in sc.gym_powers.items():
            for g in gyms:
                if self.gym_cards[g] <= 0:
                    raise ValueError(
                        f"gym {box.gyms[g].name} has no gym power card left to give "
                        f"player_{seat} (gyms on the board: "
                        f"{', '.join(box.gyms[x].name for x in self.gym_at)})"
                    )
                self.gym_cards[g] -= 1
                self.powers[seat][g] += 1
        for seat, ks in sc.medal_cards.items():
            for k in ks:
                if self.medal_holder[k] != IN_STACK:
                    raise ValueError(f"medal card {box.medal_cards[k].name} is given twice")
                if not box.medal_cards[k].extra_die:
                    raise ValueError(
                        f"medal card {box.medal_cards[k].name} gives a trophy at once; only "
                        "extra-die medal cards are held"
                    )
                self.medal_stack.remove(k)
                self.medal_holder[k] = seat

    def _next_corner_chooser(self: Any) -> None:
        """Seats without a position choose their starting corner in seat order;
        then the first player is rolled for and the first turn begins."""
        for seat in range(self.num_players):
            if self.positions[seat] < 0:
                self._decide(CORNER, seat)
                return
        first = self.preset_first
        if first < 0:
            first = self._roll_off(list(range(self.num_players)), "first player")
        self.first_player = first
        self._start_turn(first)
