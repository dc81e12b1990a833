"""The Nebula Slide and the AstroPortal encounters, every row (a mixin of
:class:`.rules.ArenaGame`).

**Nebula Slide.** A player who moves onto either end may go through
(``slide``): the fingerboard comes out at the other end, the move ends there,
and the player rolls on the Nebula Slide table (d6 for Astrobirdz, d8 for
Berzerkerbirdz and Invazorz), re-rolling any result that cannot be done.

**AstroPortal.** A move that ends on one of the four AstroPortal spaces rolls
a d8 for the encounter table and a d6 for its row. A row is done as far as it
can be (a row that gives a card when the board has none of that kind gives
nothing; the portal rules have no re-roll).

Rows that ask the player for something (a card, a space, a player, a
character) set a *task*: a row of :data:`TASKS`, which says the pick phase,
the action segment, the candidates and what happens after. Unless a row says
otherwise ("try for the planet", a new turn, a forced challenge) the turn is
over once it is done.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .data import ASTROBIRDZ, BERZERKERBIRDZ, INVAZORZ
from .phases import (
    BOARD,
    DISCARD,
    GYM_CARD,
    IN_STACK,
    PICK_CARD,
    PICK_CHARACTER,
    PICK_PLAYER,
    PICK_SPACE,
)

SLIDE_RESULTS = (
    "",
    "lose a maneuver card of your choice onto a maneuver space of your choice; turn over",
    "lose a world card of your choice onto a world space of your choice; turn over",
    "lose a trophy; turn over",
    "take a trophy from another player; turn over",
    "take a world card from another player; turn over",
    "go to any space and take a whole new turn",
    "gain a gold medal (not if you hold one); turn over",
    "go to the gym of your choice: take a trophy and a gym power card if it has any; turn over",
)
"""The Nebula Slide table by result 1-8, in short."""

PORTAL_TABLES = (
    "",
    "Dangerous Asteroid Field",
    "Nova Debris Field",
    "Black Hole Navigation Problem",
    "Dark Matter Field",
    "Wormhole Bonus",
    "Star Cluster Field",
    "Space-Time Distortion",
    "Zoominium Bonus",
)

PORTAL_ROWS = {
    (
        1,
        1,
    ): "wipe out: upside down on the inside space past the portals; lose this turn and the next",
    (1, 2): "discard a maneuver card of yours; to the first outside space past the portals",
    (1, 3): "to the first outside space past the portals",
    (2, 1): "Astrobirdz become Berzerkerbirdz; an Invazorz may turn a Berzerkerbirdz back; "
    "to the first outside space past the portals",
    (2, 2): "take a trophy; to the first outside space past the portals",
    (2, 3): "to a gym of your choice, where you may take a gym power card",
    (3, 1): "to any inside space, and take an action there",
    (
        3,
        2,
    ): "pulled in: upside down on the inside space past the portals; lose this turn and the next",
    (3, 3): "take a world card from the board, then to any inside space",
    (4, 1): "dark matter on you: every die reads 2 for your next two turns; "
    "to the space past the portals",
    (4, 2): "dark matter on another player of your choice for their next two turns; "
    "to the space past the portals",
    (4, 3): "take a maneuver card from the board; to the space past the portals",
    (5, 1): "to any space, and take an action there",
    (5, 2): "place another player's fingerboard anywhere; you to the space past the portals",
    (5, 3): "to any inside space, and take an action there",
    (6, 1): "Astrobirdz or Berzerkerbirdz become an Invazorz of their choice, an Invazorz a "
    "Berzerkerbirdz of its choice; to the space past the portals",
    (
        6,
        2,
    ): "roll a d6 and lose 1 (1-2), 2 (3-4) or 3 (5-6) trophies; to the space past the portals",
    (6, 3): "take three trophies that add +2 each to your next roll, then go back; "
    "to the space past the portals",
    (7, 1): "to the outside space in front of the portals, and begin your turn again",
    (7, 2): "onto another player's fingerboard, and challenge them",
    (7, 3): "take a maneuver card from the board; to the inside space past the portals",
    (8, 1): "Astrobirdz become Berzerkerbirdz; Berzerkerbirdz go anywhere; Invazorz take two "
    "trophies; (but Berzerkerbirdz) to the space past the portals",
    (8, 2): "take a maneuver card from the board; to the inside space past the portals",
    (8, 3): "take a world card from the board; to the inside space past the portals",
}
"""Every AstroPortal row in short, by (table 1-8, row 1-3 for d6 1-2, 3-4, 5-6)."""


@dataclass(frozen=True)
class Task:
    """A pick a table row asks for: the phase, the action segment of the answer,
    the candidates (card ids, space ids, seats or character ids), whether
    ``end`` declines it, and what to do with the answer."""

    phase: int
    segment: str
    candidates: Callable[[Any], list[int]]
    apply: Callable[[Any, int], None]
    optional: bool = False
    text: str = ""


class EncounterRules:
    """The Nebula Slide and the AstroPortal tables; see the module docstring."""

    # ---- the Nebula Slide -------------------------------------------------------------

    def _go_through_slide(self: Any) -> None:
        seat, box = self.turn_seat, self.box
        a, b = box.slide_ends
        self.positions[seat] = b if self.positions[seat] == a else a
        self.steps_left = 0
        sides = box.slide_die[self.forms[seat]]
        while True:
            result = self.roll_die(seat, sides, "nebula slide")
            if self.slide_result_possible(seat, result):
                break
        self.last_encounter = [0, result]
        self._slide_result(seat, result)

    def slide_result_possible(self: Any, seat: int, result: int) -> bool:
        """Can ``seat`` do Nebula Slide result ``result``? (If not, it re-rolls.)"""
        others = [t for t in range(self.num_players) if t != seat]
        if result == 1:
            return bool(self.maneuvers_of[seat]) and bool(self.return_spaces("maneuver"))
        if result == 2:
            return bool(self.worlds_of[seat]) and bool(self.return_spaces("world"))
        if result == 3:
            return self.trophies[seat] > 0
        if result == 4:
            return any(self.trophies[t] > 0 for t in others)
        if result == 5:
            return any(self.worlds_of[t] for t in others)
        if result == 7:
            return not self.medals[seat][2] and self.medal_supply[2] > 0
        return True  # 6 and 8 can always be done

    def return_spaces(self: Any, kind: str) -> list[int]:
        """Where a returned card of ``kind`` may go: an empty space of its kind, or,
        when every such space holds a medal card, one of those (the medal card is
        discarded to free it)."""
        spaces = self.box.maneuver_spaces if kind == "maneuver" else self.box.world_spaces
        items = self.space_item
        empty = [s for s in spaces if items[s] < 0]
        if empty:
            return empty
        return [s for s in spaces if items[s] >= self.box.num_cards]

    def _slide_result(self: Any, seat: int, result: int) -> None:
        if result == 1:
            self._decide(PICK_CARD, seat, "slide_lose_maneuver")
        elif result == 2:
            self._decide(PICK_CARD, seat, "slide_lose_world")
        elif result == 3:
            self.trophies[seat] -= 1
            self.supply += 1
            self._end_turn()
        elif result == 4:
            self._decide(PICK_PLAYER, seat, "slide_take_trophy")
        elif result == 5:
            self._decide(PICK_CARD, seat, "slide_take_world")
        elif result == 6:
            self._decide(PICK_SPACE, seat, "slide_new_turn")
        elif result == 7:
            self._award_medal(seat, 2)
            self._end_turn()
        else:
            self._decide(PICK_SPACE, seat, "slide_gym")

    # ---- the AstroPortal ----------------------------------------------------------------

    def _astroportal(self: Any) -> None:
        seat = self.turn_seat
        table = self.roll_die(seat, 8, "astroportal")
        row = self.roll_die(seat, 6, PORTAL_TABLES[table])
        self.last_encounter = [table, row]
        PORTAL_HANDLERS[(table, (row + 1) // 2)](self, seat)

    def _to_exit(self: Any, seat: int, inside: bool = False) -> None:
        box = self.box
        self.positions[seat] = box.portal_exit_inside if inside else box.portal_exit_outside

    def _wipe_out(self: Any, seat: int) -> None:
        """Upside down on the inside space past the portals: this turn and the next are lost."""
        self.positions[seat] = self.box.portal_exit_inside
        self.upside_down[seat] = True
        self.lost_turns[seat] = 1
        self._end_turn()

    def _asteroid_1(self: Any, seat: int) -> None:
        self._wipe_out(seat)

    def _asteroid_2(self: Any, seat: int) -> None:
        self._to_exit(seat)
        self._pick_or_end(PICK_CARD, seat, "asteroid_discard")

    def _asteroid_3(self: Any, seat: int) -> None:
        self._to_exit(seat)
        self._end_turn()

    def _nova_1(self: Any, seat: int) -> None:
        form = self.forms[seat]
        self._to_exit(seat)
        if form == ASTROBIRDZ:
            self.forms[seat] = BERZERKERBIRDZ
        elif form == INVAZORZ and any(f == BERZERKERBIRDZ for f in self.forms):
            self._decide(PICK_PLAYER, seat, "nova_turn_back")
            return
        self._end_turn()

    def _nova_2(self: Any, seat: int) -> None:
        self._take_supply_trophies(seat, 1)
        self._to_exit(seat)
        self._end_turn()

    def _nova_3(self: Any, seat: int) -> None:
        self._decide(PICK_SPACE, seat, "nova_gym")

    def _black_hole_1(self: Any, seat: int) -> None:
        self._decide(PICK_SPACE, seat, "black_hole_inside")

    def _black_hole_2(self: Any, seat: int) -> None:
        self._wipe_out(seat)

    def _black_hole_3(self: Any, seat: int) -> None:
        if self.board_cards("world"):
            self._decide(PICK_CARD, seat, "black_hole_world")
        else:
            self._decide(PICK_SPACE, seat, "black_hole_place")

    def _dark_matter_1(self: Any, seat: int) -> None:
        # this turn's end takes one off: the next two turns keep it
        self.dark[seat] = self.box.dark_matter_turns + 1
        self._to_exit(seat)
        self._end_turn()

    def _dark_matter_2(self: Any, seat: int) -> None:
        self._to_exit(seat)
        self._decide(PICK_PLAYER, seat, "dark_matter_other")

    def _dark_matter_3(self: Any, seat: int) -> None:
        self._to_exit(seat)
        self._pick_or_end(PICK_CARD, seat, "dark_matter_maneuver")

    def _wormhole_1(self: Any, seat: int) -> None:
        self._decide(PICK_SPACE, seat, "wormhole_anywhere")

    def _wormhole_2(self: Any, seat: int) -> None:
        self._to_exit(seat)
        self._decide(PICK_PLAYER, seat, "wormhole_player")

    def _wormhole_3(self: Any, seat: int) -> None:
        self._decide(PICK_SPACE, seat, "wormhole_inside")

    def _star_cluster_1(self: Any, seat: int) -> None:
        self._to_exit(seat)
        self._pick_or_end(PICK_CHARACTER, seat, "star_cluster_become")

    def _star_cluster_2(self: Any, seat: int) -> None:
        roll = self.roll_die(seat, 6, "star cluster trophies")
        lose = min((roll + 1) // 2, self.trophies[seat])
        self.trophies[seat] -= lose
        self.supply += lose
        self._to_exit(seat)
        self._end_turn()

    def _star_cluster_3(self: Any, seat: int) -> None:
        take = min(3, self.supply)
        self.supply -= take
        self.bonus_trophies[seat] += take
        self._to_exit(seat)
        self._end_turn()

    def _space_time_1(self: Any, seat: int) -> None:
        self.positions[seat] = self.box.portal_front
        self._new_turn()

    def _space_time_2(self: Any, seat: int) -> None:
        self._decide(PICK_PLAYER, seat, "space_time_target")

    def _space_time_3(self: Any, seat: int) -> None:
        self._to_exit(seat, inside=True)
        self._pick_or_end(PICK_CARD, seat, "space_time_maneuver")

    def _zoominium_1(self: Any, seat: int) -> None:
        form = self.forms[seat]
        if form == BERZERKERBIRDZ:
            self._decide(PICK_SPACE, seat, "zoominium_anywhere")
            return
        if form == ASTROBIRDZ:
            self.forms[seat] = BERZERKERBIRDZ
        else:
            self._take_supply_trophies(seat, 2)
        self._to_exit(seat)
        self._end_turn()

    def _zoominium_2(self: Any, seat: int) -> None:
        self._to_exit(seat, inside=True)
        self._pick_or_end(PICK_CARD, seat, "zoominium_maneuver")

    def _zoominium_3(self: Any, seat: int) -> None:
        self._to_exit(seat, inside=True)
        self._pick_or_end(PICK_CARD, seat, "zoominium_world")

    def _pick_or_end(self: Any, phase: int, seat: int, task: str) -> None:
        """Ask for the pick if there is anything to pick, else the turn is over."""
        self._decide(phase, seat, task)
        if not TASKS[task].candidates(self):
            self._end_turn()

    # ---- helpers the rows share ------------------------------------------------------------

    def board_cards(self: Any, kind: str) -> list[int]:
        """Maneuver or world cards lying on the board."""
        spaces = self.box.maneuver_spaces if kind == "maneuver" else self.box.world_spaces
        c = self.box.num_cards
        return sorted(self.space_item[s] for s in spaces if 0 <= self.space_item[s] < c)

    def _take_supply_trophies(self: Any, seat: int, count: int) -> None:
        take = min(count, self.supply)
        self.supply -= take
        self.trophies[seat] += take

    def _others(self: Any, seat: int) -> list[int]:
        return [t for t in range(self.num_players) if t != seat]

    # ---- task answers ----------------------------------------------------------------------

    def _task_options(self: Any) -> list[int]:
        task = TASKS[self.task]
        layout = self.layout
        values = task.candidates(self)
        if task.segment == "player":
            out = [layout.player_id(self.actor, t) for t in values]
        else:
            base = layout.offsets[task.segment]
            out = [base + v for v in values]
        if task.optional:
            out.append(layout.end)
        return out

    def _apply_task(self: Any, action: int) -> None:
        task = TASKS[self.task]
        layout = self.layout
        if action == layout.end:
            self._end_turn()
            return
        if task.segment == "player":
            value = layout.seat_at(self.actor, action - layout.player + 1)
        else:
            value = action - layout.offsets[task.segment]
        task.apply(self, value)


# ---- candidates and answers of every task ------------------------------------------------


def _own_maneuvers(g: Any) -> list[int]:
    return sorted(g.maneuvers_of[g.actor])


def _own_worlds(g: Any) -> list[int]:
    return sorted(g.worlds_of[g.actor])


def _return_card(g: Any, card: int) -> None:
    g._decide(PICK_SPACE, g.actor, "slide_return", [card])


def _return_candidates(g: Any) -> list[int]:
    return g.return_spaces(g.box.cards[g.task_args[0]].kind)


def _return_to(g: Any, space: int) -> None:
    card = g.task_args[0]
    item = g.space_item[space]
    if item >= g.box.num_cards:  # a medal card makes room
        k = item - g.box.num_cards
        g.medal_holder[k], g.medal_space[k] = IN_STACK, -1
        g.medal_stack.append(k)
        g.space_item[space] = -1
    g._set_card(card, BOARD, space)
    g._end_turn()


def _others_with_trophies(g: Any) -> list[int]:
    return [t for t in g._others(g.actor) if g.trophies[t] > 0]


def _take_trophy_from(g: Any, target: int) -> None:
    g.trophies[target] -= 1
    g.trophies[g.actor] += 1
    g._end_turn()


def _worlds_of_others(g: Any) -> list[int]:
    return sorted(w for t in g._others(g.actor) for w in g.worlds_of[t])


def _gain_then_end(g: Any, card: int) -> None:
    g.gain_card(g.actor, card)
    g._end_turn()


def _every_space(g: Any) -> list[int]:
    return list(range(g.box.num_spaces))


def _inside_spaces(g: Any) -> list[int]:
    return list(g.box.inside_spaces)


def _corners(g: Any) -> list[int]:
    return sorted(g.box.corners)


def _slide_new_turn(g: Any, space: int) -> None:
    g.positions[g.actor] = space
    g._new_turn()


def _slide_gym(g: Any, space: int) -> None:
    seat = g.actor
    g.positions[seat] = space
    corner = g.box.corners.index(space)
    if g.gym_trophies[corner] > 0:
        g.gym_trophies[corner] -= 1
        g.trophies[seat] += 1
    g._take_gym_card(seat, g.gym_at[corner])
    g._end_turn()


def _discard_maneuver(g: Any, card: int) -> None:
    g._set_card(card, DISCARD)
    g._end_turn()


def _berzerkerbirdz_players(g: Any) -> list[int]:
    return [t for t in g._others(g.actor) if g.forms[t] == BERZERKERBIRDZ]


def _turn_back(g: Any, target: int) -> None:
    g.forms[target] = ASTROBIRDZ
    g._end_turn()


def _nova_gym(g: Any, space: int) -> None:
    g.positions[g.actor] = space
    if g.gym_cards[g._corner_gym(space)] > 0:
        g._decide(GYM_CARD, g.actor)
    else:
        g._end_turn()


def _move_then_act(g: Any, space: int) -> None:
    g.positions[g.actor] = space
    g._begin_action()


def _move_then_end(g: Any, space: int) -> None:
    g.positions[g.actor] = space
    g._end_turn()


def _board_worlds(g: Any) -> list[int]:
    return g.board_cards("world")


def _board_maneuvers(g: Any) -> list[int]:
    return g.board_cards("maneuver")


def _black_hole_world(g: Any, card: int) -> None:
    g.gain_card(g.actor, card)
    g._decide(PICK_SPACE, g.actor, "black_hole_place")


def _dark_matter_on(g: Any, target: int) -> None:
    g.dark[target] = g.box.dark_matter_turns
    g._end_turn()


def _place_player(g: Any, target: int) -> None:
    g._decide(PICK_SPACE, g.actor, "wormhole_place", [target])


def _place_other(g: Any, space: int) -> None:
    g.positions[g.task_args[0]] = space
    g._end_turn()


def become_candidates(g: Any) -> list[int]:
    """Star Cluster 1-2: an Astrobirdz or Berzerkerbirdz becomes an Invazorz, an
    Invazorz a Berzerkerbirdz, of a character no other player uses."""
    seat = g.actor
    taken = {c for t, c in enumerate(g.characters) if t != seat}
    want_invazorz = g.forms[seat] != INVAZORZ
    return [c.id for c in g.box.characters if c.invazorz == want_invazorz and c.id not in taken]


def _become(g: Any, character: int) -> None:
    seat = g.actor
    g.characters[seat] = character
    g.forms[seat] = INVAZORZ if g.box.characters[character].invazorz else BERZERKERBIRDZ
    g._end_turn()


def space_time_targets(g: Any) -> list[int]:
    """Space-Time 3-4: a player who can be challenged; if nobody can, any other player."""
    others = g._others(g.actor)
    able = [t for t in others if g.challengeable(t)]
    return able or others


def _space_time_target(g: Any, target: int) -> None:
    seat = g.actor
    g.positions[seat] = g.positions[target]
    if g.challengeable(target):
        g.forced_target = target
        g._begin_action()
    else:
        g._end_turn()


TASKS: dict[str, Task] = {
    "slide_lose_maneuver": Task(PICK_CARD, "pick", _own_maneuvers, _return_card,
                                text="Nebula Slide 1: the maneuver card to lose"),
    "slide_lose_world": Task(PICK_CARD, "pick", _own_worlds, _return_card,
                             text="Nebula Slide 2: the world card to lose"),
    "slide_return": Task(PICK_SPACE, "place", _return_candidates, _return_to,
                         text="Nebula Slide 1/2: the space the lost card goes to"),
    "slide_take_trophy": Task(PICK_PLAYER, "player", _others_with_trophies,
                              _take_trophy_from, text="Nebula Slide 4: take a trophy from"),
    "slide_take_world": Task(PICK_CARD, "pick", _worlds_of_others, _gain_then_end,
                             text="Nebula Slide 5: the world card to take"),
    "slide_new_turn": Task(PICK_SPACE, "to", _every_space, _slide_new_turn,
                           text="Nebula Slide 6: the space to take a new turn from"),
    "slide_gym": Task(PICK_SPACE, "to", _corners, _slide_gym,
                      text="Nebula Slide 8: the gym to go to"),
    "asteroid_discard": Task(PICK_CARD, "pick", _own_maneuvers, _discard_maneuver,
                             text="Dangerous Asteroid Field 3-4: the maneuver card to discard"),
    "nova_turn_back": Task(PICK_PLAYER, "player", _berzerkerbirdz_players, _turn_back,
                           optional=True,
                           text="Nova Debris Field 1-2: a Berzerkerbirdz to turn back (or end)"),
    "nova_gym": Task(PICK_SPACE, "to", _corners, _nova_gym,
                     text="Nova Debris Field 5-6: the gym to go to"),
    "black_hole_inside": Task(PICK_SPACE, "to", _inside_spaces, _move_then_act,
                              text="Black Hole 1-2: the inside space to go to (then act)"),
    "black_hole_world": Task(PICK_CARD, "pick", _board_worlds, _black_hole_world,
                             text="Black Hole 5-6: the world card to take from the board"),
    "black_hole_place": Task(PICK_SPACE, "to", _inside_spaces, _move_then_end,
                             text="Black Hole 5-6: the inside space to go to"),
    "dark_matter_other": Task(PICK_PLAYER, "player", lambda g: g._others(g.actor),
                              _dark_matter_on,
                              text="Dark Matter Field 3-4: the player to fling dark matter at"),
    "dark_matter_maneuver": Task(PICK_CARD, "pick", _board_maneuvers, _gain_then_end,
                                 text="Dark Matter Field 5-6: the maneuver card to learn"),
    "wormhole_anywhere": Task(PICK_SPACE, "to", _every_space, _move_then_act,
                              text="Wormhole Bonus 1-2: the space to go to (then act)"),
    "wormhole_player": Task(PICK_PLAYER, "player", lambda g: g._others(g.actor),
                            _place_player, text="Wormhole Bonus 3-4: the player to move"),
    "wormhole_place": Task(PICK_SPACE, "place", _every_space, _place_other,
                           text="Wormhole Bonus 3-4: where that player's fingerboard goes"),
    "wormhole_inside": Task(PICK_SPACE, "to", _inside_spaces, _move_then_act,
                            text="Wormhole Bonus 5-6: the inside space to go to (then act)"),
    "star_cluster_become": Task(PICK_CHARACTER, "become", become_candidates, _become,
                                text="Star Cluster Field 1-2: the character to become"),
    "space_time_target": Task(PICK_PLAYER, "player", space_time_targets,
                              _space_time_target,
                              text="Space-Time Distortion 3-4: the player to challenge"),
    "space_time_maneuver": Task(PICK_CARD, "pick", _board_maneuvers, _gain_then_end,
                                text="Space-Time Distortion 5-6: the maneuver card to take"),
    "zoominium_anywhere": Task(PICK_SPACE, "to", _every_space, _move_then_end,
                               text="Zoominium Bonus 1-2 (Berzerkerbirdz): the space to go to"),
    "zoominium_maneuver": Task(PICK_CARD, "pick", _board_maneuvers, _gain_then_end,
                               text="Zoominium Bonus 3-4: the maneuver card to take"),
    "zoominium_world": Task(PICK_CARD, "pick", _board_worlds, _gain_then_end,
                            text="Zoominium Bonus 5-6: the world card to take"),
}  # fmt: skip
"""Every pick a table row can ask for, by task name (saved in state dicts)."""

PORTAL_HANDLERS: dict[tuple[int, int], Callable[[Any, int], None]] = {
    (1, 1): EncounterRules._asteroid_1, (1, 2): EncounterRules._asteroid_2,
    (1, 3): EncounterRules._asteroid_3,
    (2, 1): EncounterRules._nova_1, (2, 2): EncounterRules._nova_2, (2, 3): EncounterRules._nova_3,
    (3, 1): EncounterRules._black_hole_1, (3, 2): EncounterRules._black_hole_2,
    (3, 3): EncounterRules._black_hole_3,
    (4, 1): EncounterRules._dark_matter_1, (4, 2): EncounterRules._dark_matter_2,
    (4, 3): EncounterRules._dark_matter_3,
    (5, 1): EncounterRules._wormhole_1, (5, 2): EncounterRules._wormhole_2,
    (5, 3): EncounterRules._wormhole_3,
    (6, 1): EncounterRules._star_cluster_1, (6, 2): EncounterRules._star_cluster_2,
    (6, 3): EncounterRules._star_cluster_3,
    (7, 1): EncounterRules._space_time_1, (7, 2): EncounterRules._space_time_2,
    (7, 3): EncounterRules._space_time_3,
    (8, 1): EncounterRules._zoominium_1, (8, 2): EncounterRules._zoominium_2,
    (8, 3): EncounterRules._zoominium_3,
}  # fmt: skip
"""The handler of every AstroPortal row, by (table, row 1-3)."""
