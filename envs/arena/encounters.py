"""The Nebula Slide and the AstroPortal encounters, every row: functions over
an :class:`.rules.ArenaGame`.

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
over once it is done. Cards, medals and trophies are gained through
:mod:`.challenges`; the turn ends or starts again through the game's own turn
methods.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import challenges
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

if TYPE_CHECKING:
    from .rules import ArenaGame

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
    candidates: Callable[[ArenaGame], list[int]]
    apply: Callable[[ArenaGame, int], None]
    optional: bool = False
    text: str = ""


# ---- the Nebula Slide -------------------------------------------------------------


def go_through_slide(game: ArenaGame) -> None:
    """Through the Nebula Slide: out at the other end, the move over, a roll on
    the slide table until it gives a result that can be done."""
    seat, box = game.turn_seat, game.box
    a, b = box.slide_ends
    game.positions[seat] = b if game.positions[seat] == a else a
    game.steps_left = 0
    sides = box.slide_die[game.forms[seat]]
    while True:
        result = game.roll_die(seat, sides, "nebula slide")
        if slide_result_possible(game, seat, result):
            break
    game.last_encounter = [0, result]
    _slide_result(game, seat, result)


def slide_result_possible(game: ArenaGame, seat: int, result: int) -> bool:
    """Can ``seat`` do Nebula Slide result ``result``? (If not, it re-rolls.)"""
    others = [t for t in range(game.num_players) if t != seat]
    if result == 1:
        return bool(game.maneuvers_of[seat]) and bool(return_spaces(game, "maneuver"))
    if result == 2:
        return bool(game.worlds_of[seat]) and bool(return_spaces(game, "world"))
    if result == 3:
        return game.trophies[seat] > 0
    if result == 4:
        return any(game.trophies[t] > 0 for t in others)
    if result == 5:
        return any(game.worlds_of[t] for t in others)
    if result == 7:
        return not game.medals[seat][2] and game.medal_supply[2] > 0
    return True  # 6 and 8 can always be done


def return_spaces(game: ArenaGame, kind: str) -> list[int]:
    """Where a returned card of ``kind`` may go: an empty space of its kind, or,
    when every such space holds a medal card, one of those (the medal card is
    discarded to free it)."""
    spaces = game.box.maneuver_spaces if kind == "maneuver" else game.box.world_spaces
    items = game.space_item
    empty = [s for s in spaces if items[s] < 0]
    if empty:
        return empty
    return [s for s in spaces if items[s] >= game.box.num_cards]


def _slide_result(game: ArenaGame, seat: int, result: int) -> None:
    if result == 1:
        game._decide(PICK_CARD, seat, "slide_lose_maneuver")
    elif result == 2:
        game._decide(PICK_CARD, seat, "slide_lose_world")
    elif result == 3:
        game.trophies[seat] -= 1
        game.supply += 1
        game._end_turn()
    elif result == 4:
        game._decide(PICK_PLAYER, seat, "slide_take_trophy")
    elif result == 5:
        game._decide(PICK_CARD, seat, "slide_take_world")
    elif result == 6:
        game._decide(PICK_SPACE, seat, "slide_new_turn")
    elif result == 7:
        challenges.award_medal(game, seat, 2)
        game._end_turn()
    else:
        game._decide(PICK_SPACE, seat, "slide_gym")


# ---- the AstroPortal ----------------------------------------------------------------


def astroportal(game: ArenaGame) -> None:
    """A move ended on an AstroPortal: roll the table (d8) and its row (d6), do the row."""
    seat = game.turn_seat
    table = game.roll_die(seat, 8, "astroportal")
    row = game.roll_die(seat, 6, PORTAL_TABLES[table])
    game.last_encounter = [table, row]
    PORTAL_HANDLERS[(table, (row + 1) // 2)](game, seat)


def _to_exit(game: ArenaGame, seat: int, inside: bool = False) -> None:
    box = game.box
    game.positions[seat] = box.portal_exit_inside if inside else box.portal_exit_outside


def _wipe_out(game: ArenaGame, seat: int) -> None:
    """Upside down on the inside space past the portals: this turn and the next are lost."""
    game.positions[seat] = game.box.portal_exit_inside
    game.upside_down[seat] = True
    game.lost_turns[seat] = 1
    game._end_turn()


def _asteroid_1(game: ArenaGame, seat: int) -> None:
    _wipe_out(game, seat)


def _asteroid_2(game: ArenaGame, seat: int) -> None:
    _to_exit(game, seat)
    _pick_or_end(game, PICK_CARD, seat, "asteroid_discard")


def _asteroid_3(game: ArenaGame, seat: int) -> None:
    _to_exit(game, seat)
    game._end_turn()


def _nova_1(game: ArenaGame, seat: int) -> None:
    form = game.forms[seat]
    _to_exit(game, seat)
    if form == ASTROBIRDZ:
        game.forms[seat] = BERZERKERBIRDZ
    elif form == INVAZORZ and game.config.nova_invazorz == "become":
        _pick_or_end(game, PICK_CHARACTER, seat, "nova_become")
        return
    elif form == INVAZORZ and any(f == BERZERKERBIRDZ for f in game.forms):
        game._decide(PICK_PLAYER, seat, "nova_turn_back")
        return
    game._end_turn()


def _nova_2(game: ArenaGame, seat: int) -> None:
    challenges.take_supply_trophies(game, seat, 1)
    _to_exit(game, seat)
    game._end_turn()


def _nova_3(game: ArenaGame, seat: int) -> None:
    game._decide(PICK_SPACE, seat, "nova_gym")


def _black_hole_1(game: ArenaGame, seat: int) -> None:
    game._decide(PICK_SPACE, seat, "black_hole_inside")


def _black_hole_2(game: ArenaGame, seat: int) -> None:
    _wipe_out(game, seat)


def _black_hole_3(game: ArenaGame, seat: int) -> None:
    if board_cards(game, "world"):
        game._decide(PICK_CARD, seat, "black_hole_world")
    else:
        game._decide(PICK_SPACE, seat, "black_hole_place")


def _dark_matter_1(game: ArenaGame, seat: int) -> None:
    # this turn's end takes one off: the next two turns keep it
    game.dark[seat] = game.box.dark_matter_turns + 1
    _to_exit(game, seat)
    game._end_turn()


def _dark_matter_2(game: ArenaGame, seat: int) -> None:
    _to_exit(game, seat)
    game._decide(PICK_PLAYER, seat, "dark_matter_other")


def _dark_matter_3(game: ArenaGame, seat: int) -> None:
    _to_exit(game, seat)
    _pick_or_end(game, PICK_CARD, seat, "dark_matter_maneuver")


def _wormhole_1(game: ArenaGame, seat: int) -> None:
    game._decide(PICK_SPACE, seat, "wormhole_anywhere")


def _wormhole_2(game: ArenaGame, seat: int) -> None:
    _to_exit(game, seat)
    game._decide(PICK_PLAYER, seat, "wormhole_player")


def _wormhole_3(game: ArenaGame, seat: int) -> None:
    game._decide(PICK_SPACE, seat, "wormhole_inside")


def _star_cluster_1(game: ArenaGame, seat: int) -> None:
    _to_exit(game, seat)
    _pick_or_end(game, PICK_CHARACTER, seat, "star_cluster_become")


def _star_cluster_2(game: ArenaGame, seat: int) -> None:
    roll = game.roll_die(seat, 6, "star cluster trophies")
    lose = min((roll + 1) // 2, game.trophies[seat])
    game.trophies[seat] -= lose
    game.supply += lose
    _to_exit(game, seat)
    game._end_turn()


def _star_cluster_3(game: ArenaGame, seat: int) -> None:
    take = min(3, game.supply)
    game.supply -= take
    game.bonus_trophies[seat] += take
    _to_exit(game, seat)
    game._end_turn()


def _space_time_1(game: ArenaGame, seat: int) -> None:
    game.positions[seat] = game.box.portal_front
    game._new_turn()


def _space_time_2(game: ArenaGame, seat: int) -> None:
    game._decide(PICK_PLAYER, seat, "space_time_target")


def _space_time_3(game: ArenaGame, seat: int) -> None:
    _to_exit(game, seat, inside=True)
    _pick_or_end(game, PICK_CARD, seat, "space_time_maneuver")


def _zoominium_1(game: ArenaGame, seat: int) -> None:
    form = game.forms[seat]
    if form == BERZERKERBIRDZ:
        game._decide(PICK_SPACE, seat, "zoominium_anywhere")
        return
    if form == ASTROBIRDZ:
        game.forms[seat] = BERZERKERBIRDZ
    else:
        challenges.take_supply_trophies(game, seat, 2)
    _to_exit(game, seat)
    game._end_turn()


def _zoominium_2(game: ArenaGame, seat: int) -> None:
    _to_exit(game, seat, inside=True)
    _pick_or_end(game, PICK_CARD, seat, "zoominium_maneuver")


def _zoominium_3(game: ArenaGame, seat: int) -> None:
    _to_exit(game, seat, inside=True)
    _pick_or_end(game, PICK_CARD, seat, "zoominium_world")


def _pick_or_end(game: ArenaGame, phase: int, seat: int, task: str) -> None:
    """Ask for the pick if there is anything to pick, else the turn is over."""
    game._decide(phase, seat, task)
    if not TASKS[task].candidates(game):
        game._end_turn()


# ---- helpers the rows share ------------------------------------------------------------


def board_cards(game: ArenaGame, kind: str) -> list[int]:
    """Maneuver or world cards lying on the board."""
    spaces = game.box.maneuver_spaces if kind == "maneuver" else game.box.world_spaces
    c = game.box.num_cards
    return sorted(game.space_item[s] for s in spaces if 0 <= game.space_item[s] < c)


def _others(game: ArenaGame, seat: int) -> list[int]:
    return [t for t in range(game.num_players) if t != seat]


# ---- task answers ----------------------------------------------------------------------


def task_options(game: ArenaGame) -> list[int]:
    """The legal action ids of a pick phase: the task's candidates (and ``end``
    if it may be declined)."""
    task = TASKS[game.task]
    layout = game.layout
    values = task.candidates(game)
    if task.segment == "player":
        out = [layout.player_id(game.actor, t) for t in values]
    else:
        base = layout.offsets[task.segment]
        out = [base + v for v in values]
    if task.optional:
        out.append(layout.end)
    return out


def apply_task(game: ArenaGame, action: int) -> None:
    """Answer the task under way (``end`` declines it: the turn is over)."""
    task = TASKS[game.task]
    layout = game.layout
    if action == layout.end:
        game._end_turn()
        return
    if task.segment == "player":
        value = layout.seat_at(game.actor, action - layout.player + 1)
    else:
        value = action - layout.offsets[task.segment]
    task.apply(game, value)


# ---- candidates and answers of every task ------------------------------------------------


def _own_maneuvers(g: ArenaGame) -> list[int]:
    return sorted(g.maneuvers_of[g.actor])


def _own_worlds(g: ArenaGame) -> list[int]:
    return sorted(g.worlds_of[g.actor])


def _return_card(g: ArenaGame, card: int) -> None:
    g._decide(PICK_SPACE, g.actor, "slide_return", [card])


def _return_candidates(g: ArenaGame) -> list[int]:
    return return_spaces(g, g.box.cards[g.task_args[0]].kind)


def _return_to(g: ArenaGame, space: int) -> None:
    card = g.task_args[0]
    item = g.space_item[space]
    if item >= g.box.num_cards:  # a medal card makes room
        k = item - g.box.num_cards
        g.medal_holder[k], g.medal_space[k] = IN_STACK, -1
        g.medal_stack.append(k)
        g.space_item[space] = -1
    g._set_card(card, BOARD, space)
    g._end_turn()


def _others_with_trophies(g: ArenaGame) -> list[int]:
    return [t for t in _others(g, g.actor) if g.trophies[t] > 0]


def _take_trophy_from(g: ArenaGame, target: int) -> None:
    g.trophies[target] -= 1
    g.trophies[g.actor] += 1
    g._end_turn()


def _worlds_of_others(g: ArenaGame) -> list[int]:
    return sorted(w for t in _others(g, g.actor) for w in g.worlds_of[t])


def _gain_then_end(g: ArenaGame, card: int) -> None:
    challenges.gain_card(g, g.actor, card)
    g._end_turn()


def _every_space(g: ArenaGame) -> list[int]:
    return list(range(g.box.num_spaces))


def _inside_spaces(g: ArenaGame) -> list[int]:
    return list(g.box.inside_spaces)


def _corners(g: ArenaGame) -> list[int]:
    return sorted(g.box.corners)


def _slide_new_turn(g: ArenaGame, space: int) -> None:
    g.positions[g.actor] = space
    g._new_turn()


def _slide_gym(g: ArenaGame, space: int) -> None:
    seat = g.actor
    g.positions[seat] = space
    corner = g.box.corners.index(space)
    if g.gym_trophies[corner] > 0:
        g.gym_trophies[corner] -= 1
        g.trophies[seat] += 1
    if challenges.gym_card_allowed(g, seat, space):
        challenges.take_gym_card(g, seat, g.gym_at[corner])
    g._end_turn()


def _discard_maneuver(g: ArenaGame, card: int) -> None:
    g._set_card(card, DISCARD)
    g._end_turn()


def _berzerkerbirdz_players(g: ArenaGame) -> list[int]:
    return [t for t in _others(g, g.actor) if g.forms[t] == BERZERKERBIRDZ]


def _turn_back(g: ArenaGame, target: int) -> None:
    g.forms[target] = ASTROBIRDZ
    g._end_turn()


def _nova_gym(g: ArenaGame, space: int) -> None:
    g.positions[g.actor] = space
    if g.gym_cards[g._corner_gym(space)] > 0 and challenges.gym_card_allowed(g, g.actor, space):
        g._decide(GYM_CARD, g.actor)
    else:
        g._end_turn()


def _move_then_act(g: ArenaGame, space: int) -> None:
    g.positions[g.actor] = space
    challenges.begin_action(g)


def _move_then_end(g: ArenaGame, space: int) -> None:
    g.positions[g.actor] = space
    g._end_turn()


def _board_worlds(g: ArenaGame) -> list[int]:
    return board_cards(g, "world")


def _board_maneuvers(g: ArenaGame) -> list[int]:
    return board_cards(g, "maneuver")


def _black_hole_world(g: ArenaGame, card: int) -> None:
    challenges.gain_card(g, g.actor, card)
    g._decide(PICK_SPACE, g.actor, "black_hole_place")


def _dark_matter_on(g: ArenaGame, target: int) -> None:
    g.dark[target] = g.box.dark_matter_turns
    g._end_turn()


def _place_player(g: ArenaGame, target: int) -> None:
    g._decide(PICK_SPACE, g.actor, "wormhole_place", [target])


def _place_other(g: ArenaGame, space: int) -> None:
    g.positions[g.task_args[0]] = space
    g._end_turn()


def become_candidates(g: ArenaGame) -> list[int]:
    """Star Cluster 1-2: an Astrobirdz or Berzerkerbirdz becomes an Invazorz, an
    Invazorz a Berzerkerbirdz, of a character no other player uses."""
    seat = g.actor
    taken = {c for t, c in enumerate(g.characters) if t != seat}
    want_invazorz = g.forms[seat] != INVAZORZ
    return [c.id for c in g.box.characters if c.invazorz == want_invazorz and c.id not in taken]


def _become(g: ArenaGame, character: int) -> None:
    seat = g.actor
    g.characters[seat] = character
    g.forms[seat] = INVAZORZ if g.box.characters[character].invazorz else BERZERKERBIRDZ
    g._end_turn()


def space_time_targets(g: ArenaGame) -> list[int]:
    """Space-Time 3-4: a player who can be challenged; if nobody can, any other player."""
    others = _others(g, g.actor)
    able = [t for t in others if challenges.challengeable(g, t)]
    return able or others


def _space_time_target(g: ArenaGame, target: int) -> None:
    seat = g.actor
    g.positions[seat] = g.positions[target]
    if challenges.challengeable(g, target):
        g.forced_target = target
        challenges.begin_action(g)
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
    "nova_become": Task(PICK_CHARACTER, "become", become_candidates, _become,
                        text="Nova Debris Field 1-2 (an Invazorz, option nova_invazorz="
                        "'become'): the Berzerkerbirdz to become"),
    "nova_gym": Task(PICK_SPACE, "to", _corners, _nova_gym,
                     text="Nova Debris Field 5-6: the gym to go to"),
    "black_hole_inside": Task(PICK_SPACE, "to", _inside_spaces, _move_then_act,
                              text="Black Hole 1-2: the inside space to go to (then act)"),
    "black_hole_world": Task(PICK_CARD, "pick", _board_worlds, _black_hole_world,
                             text="Black Hole 5-6: the world card to take from the board"),
    "black_hole_place": Task(PICK_SPACE, "to", _inside_spaces, _move_then_end,
                             text="Black Hole 5-6: the inside space to go to"),
    "dark_matter_other": Task(PICK_PLAYER, "player", lambda g: _others(g, g.actor),
                              _dark_matter_on,
                              text="Dark Matter Field 3-4: the player to fling dark matter at"),
    "dark_matter_maneuver": Task(PICK_CARD, "pick", _board_maneuvers, _gain_then_end,
                                 text="Dark Matter Field 5-6: the maneuver card to learn"),
    "wormhole_anywhere": Task(PICK_SPACE, "to", _every_space, _move_then_act,
                              text="Wormhole Bonus 1-2: the space to go to (then act)"),
    "wormhole_player": Task(PICK_PLAYER, "player", lambda g: _others(g, g.actor),
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

PORTAL_HANDLERS: dict[tuple[int, int], Callable[[ArenaGame, int], None]] = {
    (1, 1): _asteroid_1, (1, 2): _asteroid_2, (1, 3): _asteroid_3,
    (2, 1): _nova_1, (2, 2): _nova_2, (2, 3): _nova_3,
    (3, 1): _black_hole_1, (3, 2): _black_hole_2, (3, 3): _black_hole_3,
    (4, 1): _dark_matter_1, (4, 2): _dark_matter_2, (4, 3): _dark_matter_3,
    (5, 1): _wormhole_1, (5, 2): _wormhole_2, (5, 3): _wormhole_3,
    (6, 1): _star_cluster_1, (6, 2): _star_cluster_2, (6, 3): _star_cluster_3,
    (7, 1): _space_time_1, (7, 2): _space_time_2, (7, 3): _space_time_3,
    (8, 1): _zoominium_1, (8, 2): _zoominium_2, (8, 3): _zoominium_3,
}  # fmt: skip
"""The handler of every AstroPortal row, by (table, row 1-3)."""
