"""Rolling and moving, and the roll decisions where gym powers, medal dice and
trophies are spent: functions over an :class:`.rules.ArenaGame`.

* Before the movement roll (phase ``pre_roll``): use a gym power, add a
  movement medal die, then ``roll``. On the first turn the roll is one d6,
  with no medal die and nothing spent after it.
* After it (``move_spend``): spend trophies, +2 each, or a movement gym power.
* Moving (``move``): one space at a time; a choice only at a fork, on a space
  with a player who can be challenged (``stop``), and at a Nebula Slide end
  (``slide``; on the last step also ``stay``; an Astrobirdz holding a
  transform power may ``use`` it first, so the slide roll is a d8). Each gym moved onto or past
  gives a trophy while it has any.
* Before a challenge or defence roll (``challenge_spend`` /
  ``defend_spend``): gym powers and medal dice of that kind, then ``spend k``.

Where a move ends it hands on to :mod:`.encounters` (the Nebula Slide, an
AstroPortal) or :mod:`.challenges` (the action); spending before a challenge
roll hands back to :mod:`.challenges`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import challenges, dice, encounters
from .data import ASTROBIRDZ, BERZERKERBIRDZ
from .phases import MOVE, MOVE_SPEND, PRE_ROLL

if TYPE_CHECKING:
    from .rules import ArenaGame

CONTEXTS = {1: "pre", 2: "post", 5: "challenge", 6: "defence"}
"""Roll context of each spend phase (by Phase value)."""
DIE_USE = {"pre": "movement", "challenge": "challenge", "defence": "defence"}


# ---- spend decisions --------------------------------------------------------------


def begin_movement(game: ArenaGame) -> None:
    """Before the movement roll: a decision only when a power or medal die could be used."""
    seat = game.turn_seat
    if any(game.powers[seat]) or seat in game.medal_holder:
        game._decide(PRE_ROLL, seat)
    else:
        _roll_movement(game)


def spend_options(game: ArenaGame) -> list[int]:
    """The legal action ids of a spend phase (unsorted)."""
    seat, layout = game.actor, game.layout
    ctx = CONTEXTS[int(game.phase)]
    out = (
        [layout.roll]
        if ctx == "pre"
        else list(range(layout.spend, layout.spend + game.trophies[seat] + 1))
    )
    powers = game.powers[seat]
    if any(powers):
        for gym, held in enumerate(powers):
            if held and _power_usable(game, seat, gym, ctx):
                out.append(layout.use + gym)
    use = DIE_USE.get(ctx)
    if (
        use is not None
        and seat in game.medal_holder
        and not (ctx == "pre" and game.first_turn[seat])
    ):
        added = game.roll_cards[seat]
        for k, holder in enumerate(game.medal_holder):
            if holder == seat and k not in added and use in game.box.medal_cards[k].extra_die:
                out.append(layout.add + k)
    return out


def _power_usable(game: ArenaGame, seat: int, gym: int, ctx: str) -> bool:
    """A gym power is used only where it does something."""
    power = game.box.gyms[gym].power
    kind = power.kind
    if kind == "transform":
        return ctx != "post" and game.forms[seat] == ASTROBIRDZ
    if kind == "bonus":
        return (power.roll, ctx) in (
            ("movement", "post"), ("challenge", "challenge"), ("defence", "defence"),
        )  # fmt: skip
    if kind == "trophies":
        return game.supply > 0
    if kind == "gold_reading":
        return (
            ctx in ("challenge", "defence")
            and not game.roll_gold[seat]
            and (dice.medal_level(game, seat) < 3)
        )
    return ctx == "challenge"  # extra_die


def apply_spend(game: ArenaGame, action: int) -> None:
    """Do a spend decision: roll, add a medal die, use a power, or spend trophies
    (which moves on to the move, the defender's spend or the challenge roll)."""
    seat, layout = game.actor, game.layout
    ctx = CONTEXTS[int(game.phase)]
    if action == layout.roll:
        _roll_movement(game)
    elif action >= layout.add:
        k = action - layout.add
        game.roll_cards[seat].append(k)
        game.roll_extra[seat] += 1
    elif action >= layout.use:
        _use_power(game, seat, action - layout.use, ctx)
    else:
        spent = action - layout.spend
        game.trophies[seat] -= spent
        game.supply += spent
        if ctx == "post":
            game.steps_left += spent * game.box.trophy_value
            game.move_total = game.steps_left
            _begin_moving(game)
        elif ctx == "challenge":
            game.ch_spent[0] = spent
            challenges.after_challenger_spend(game)
        else:
            game.ch_spent[1] = spent
            challenges.resolve_challenge(game)


def _use_power(game: ArenaGame, seat: int, gym: int, ctx: str) -> None:
    """Use one gym power card; it goes back to its gym."""
    power = game.box.gyms[gym].power
    game.powers[seat][gym] -= 1
    game.gym_cards[gym] += 1
    kind = power.kind
    if kind == "transform":
        game.forms[seat] = BERZERKERBIRDZ
    elif kind == "bonus":
        if ctx == "post":
            game.steps_left += power.amount
            game.move_total = game.steps_left
        else:
            game.roll_bonus[seat] += power.amount
    elif kind == "trophies":
        take = min(power.amount, game.supply)
        game.supply -= take
        game.trophies[seat] += take
    elif kind == "gold_reading":
        game.roll_gold[seat] = True
    else:
        game.roll_extra[seat] += 1


def _roll_movement(game: ArenaGame) -> None:
    seat, box = game.turn_seat, game.box
    first = game.first_turn[seat]
    sides = box.first_turn_die if first else box.movement_die[game.forms[seat]]
    rolled = dice.roll_dice(game, seat, sides, 1 + game.roll_extra[seat], "movement")
    total = sum(rolled) + dice.use_up_roll(game, seat)
    if not first:
        total += challenges.character_bonus(game, seat, "movement")
    game.steps_left = game.move_total = total
    if first or not (game.trophies[seat] or any(game.powers[seat])):
        _begin_moving(game)
    else:
        game._decide(MOVE_SPEND, seat)


# ---- moving -------------------------------------------------------------------------


def _begin_moving(game: ArenaGame) -> None:
    game.entered = False
    _advance(game)


def _advance(game: ArenaGame) -> None:
    """Move on by itself while there is nothing to choose; stop at a choice
    (a fork, a player to challenge, a slide end) or where the move ends."""
    seat, box = game.turn_seat, game.box
    positions, next_of, kind_of = game.positions, box.next_of, box.kind_of
    here = positions[seat]
    steps, entered = game.steps_left, game.entered
    while True:
        if entered:
            kind = kind_of[here]
            if kind == "slide" or (
                steps > 0
                and positions.count(here) > 1
                and challenges.challengeable_here(game, seat)
            ):
                game.steps_left, game.entered = steps, entered
                game._decide(MOVE, seat)
                return
            if steps == 0:
                game.steps_left, game.entered = steps, entered
                _land(game)
                return
        ways = next_of[here]
        if len(ways) > 1:
            game.steps_left, game.entered = steps, entered
            game._decide(MOVE, seat)
            return
        here = ways[0]
        positions[seat] = here
        steps -= 1
        entered = True
        if kind_of[here] == "gym":
            _gym_trophies(game, seat, here)


def _enter(game: ArenaGame, seat: int, space: int) -> None:
    """One step onto ``space`` (a trophy from a gym moved onto)."""
    game.positions[seat] = space
    game.steps_left -= 1
    game.entered = True
    if game.box.kind_of[space] == "gym":
        _gym_trophies(game, seat, space)


def move_options(game: ArenaGame) -> list[int]:
    """The legal action ids of phase ``move`` (unsorted)."""
    seat, layout = game.turn_seat, game.layout
    here = game.positions[seat]
    out = []
    if game.steps_left > 0:
        out = [layout.to + nxt for nxt in game.box.next_of[here]]
    if game.entered:
        if game.steps_left > 0 and challenges.challengeable_here(game, seat):
            out.append(layout.stop)
        if game.box.kind_of[here] == "slide":
            out.append(layout.slide)
            if game.steps_left == 0:
                out.append(layout.stay)
            out += slide_powers(game, seat)
    return out


def slide_powers(game: ArenaGame, seat: int) -> list[int]:
    """The ``use`` actions offered at a Nebula Slide end: a power is usable "at
    any time", and the only one that changes the slide roll is a transform power
    (an Astrobirdz becomes a Berzerkerbirdz: the d6 becomes a d8, whose 7 and 8
    exist only there). The other powers change no roll of the slide."""
    if game.forms[seat] != ASTROBIRDZ or not any(game.powers[seat]):
        return []
    gyms = game.box.gyms
    return [
        game.layout.use + gym
        for gym, held in enumerate(game.powers[seat])
        if held and gyms[gym].power.kind == "transform"
    ]


def apply_move(game: ArenaGame, action: int) -> None:
    """Do a move decision: a step, stop to challenge, through the slide, or stay."""
    layout = game.layout
    if action < layout.stop:  # "to <space>": the common case
        _enter(game, game.turn_seat, action - layout.to)
        _advance(game)
    elif action == layout.stop:
        game.stopped = True
        game.steps_left = 0
        challenges.begin_action(game)
    elif action == layout.slide:
        encounters.go_through_slide(game)
    elif action >= layout.use:  # a transform power at a slide end (see slide_powers)
        _use_power(game, game.turn_seat, action - layout.use, "slide")
        game._decide(MOVE, game.turn_seat)
    else:  # stay
        challenges.begin_action(game)


def _gym_trophies(game: ArenaGame, seat: int, space: int) -> None:
    """Moving onto or past a gym takes one of its trophies while it has any
    (more with a gym-trophy bonus)."""
    corner = game.box.corners.index(space)
    take = min(1 + challenges.character_bonus(game, seat, "gym_trophy"), game.gym_trophies[corner])
    game.gym_trophies[corner] -= take
    game.trophies[seat] += take


def _land(game: ArenaGame) -> None:
    """The move ends here by its full count: an AstroPortal encounter, or the action."""
    if game.box.kind_of[game.positions[game.turn_seat]] == "portal":
        encounters.astroportal(game)
    else:
        challenges.begin_action(game)
