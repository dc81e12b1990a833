"""The action after moving, challenges, medals, transformation and victory:
functions over an :class:`.rules.ArenaGame`.

Actions (one, or ``end`` for none) on the space where the move ended:

* ``train`` at a gym with a gym power card left (not the starting corner's gym
  on the first turn);
* ``challenge`` the maneuver card (four dice, total >= its favourite number +
  2), the world card (only with 4 or more maneuvers; total >= its number + 2,
  or the number under option ``world_challenge="printed"``) or the medal card
  (any die, with modifiers added to the highest, of 6 or more) lying there;
* ``challenge player_k`` for a maneuver or world card of a player on the same
  space: a *homeworld* or *favourite trick* challenge when the challenger's
  character is named on the card (total >= the card's number), else a
  *standard* challenge (both roll; the challenger must roll higher). A world
  kept is permanently defended: it lies under its holder's permanently
  defended card and can never be challenged for again.

A player who stopped early on another player (or was sent onto one by the
Space-Time Distortion) must challenge a player there.

Totals: the read dice (:mod:`.dice`), +2 per trophy spent before the roll,
Star Cluster trophies, the character card's bonus of the challenge's kind,
the card's own bonus for the roller's form, and gym power bonuses.

After a maneuver is collected: medals for 3 / 5 / 7 maneuvers held (kept when
cards are lost), and an Astrobirdz whose count is odd (3, 5, 7...) rolls a d6
and becomes a Berzerkerbirdz on a 6. A fifth world wins at once; defending a
third world wins at once.

This module is the lowest of the rules chapters: :mod:`.movement`,
:mod:`.encounters` and :mod:`.setup` call it, it calls only :mod:`.dice` and
the game's own turn methods (``_decide``, ``_end_turn``, ``_finish``,
``_set_card``), so the modules import each other without a circle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import dice
from .data import ASTROBIRDZ, BERZERKERBIRDZ
from .phases import ACTION, BOARD, CHALLENGE_SPEND, DEFEND_SPEND, IN_STACK, ON_BOARD

if TYPE_CHECKING:
    from .rules import ArenaGame

CHALLENGE_KINDS = ("", "maneuver", "world", "medal", "homeworld", "favourite", "standard")
"""The kinds of challenge (``ArenaGame.ch_kind``; "": none under way)."""

PLAYER_KINDS = ("homeworld", "favourite", "standard")


def begin_action(game: ArenaGame) -> None:
    """Ask for the action, unless there is nothing to do here (the turn is over).
    The options just computed are handed to the decision, so the legality cache
    (kept by :mod:`.rules`) does not compute them again."""
    game._decide(ACTION, game.turn_seat)
    options = action_options(game)
    if len(options) == 1 and options[0] == game.layout.end:
        game._end_turn()
    else:
        game._offer(options)


def _nothing_to_spend(game: ArenaGame, seat: int) -> bool:
    """No trophy, gym power card or medal die: a roll has nothing to decide before it."""
    return (
        not game.trophies[seat] and not any(game.powers[seat]) and (seat not in game.medal_holder)
    )


def action_options(game: ArenaGame) -> list[int]:
    """The legal action ids of phase ``action`` (unsorted)."""
    seat, layout, box = game.turn_seat, game.layout, game.box
    here = game.positions[seat]
    out: list[int] = []
    if game.forced_target >= 0:
        targets = [game.forced_target]
    elif game.stopped:
        targets = challengeable_here(game, seat)
    else:
        kind = box.kind_of[here]
        if kind == "gym" and can_train(game, seat):
            out.append(layout.train)
        item = game.space_item[here]
        if item >= box.num_cards:
            out.append(layout.challenge_medal)
        elif item >= 0 and (
            not box.cards[item].is_world or len(game.maneuvers_of[seat]) >= box.maneuvers_for_worlds
        ):
            out.append(layout.challenge + item)
        targets = [t for t in range(game.num_players) if t != seat and game.positions[t] == here]
    for target in targets:
        for card in challengeable_cards(game, target):
            out.append(layout.challenge_player_id(seat, target, card))
    if game.forced_target < 0 and not game.stopped:
        out.append(layout.end)
    return out


def can_train(game: ArenaGame, seat: int) -> bool:
    """On a gym with a gym power card left, except the starting corner's gym on
    the first turn."""
    here = game.positions[seat]
    return gym_card_allowed(game, seat, here) and game.gym_cards[game._corner_gym(here)] > 0


def gym_card_allowed(game: ArenaGame, seat: int, corner: int) -> bool:
    """Setup step 12: "He does not get to use the power of that gym on that first
    turn": no gym power card of the starting corner's gym during the seat's first
    turn, on every path that hands one out (training, Nova Debris 5-6, Nebula
    Slide 8), new turns inside it included (Nebula Slide 6, Space-Time 1-2: they
    roll as later turns do, but the play order's first turn is not over). Each
    seat's first turn is in the first round (``rounds == 0``)."""
    first = game.first_turn[seat] or game.rounds == 0
    return not (first and corner == game.start_corner[seat])


def challengeable(game: ArenaGame, target: int) -> bool:
    """A player can be challenged while holding a maneuver, or a world that is
    not permanently defended."""
    if game.maneuvers_of[target]:
        return True
    return any(game.defended[w] != target for w in game.worlds_of[target])


def challengeable_here(game: ArenaGame, seat: int) -> list[int]:
    """The other players on ``seat``'s space who can be challenged."""
    here = game.positions[seat]
    return [
        t
        for t in range(game.num_players)
        if t != seat and game.positions[t] == here and challengeable(game, t)
    ]


def challengeable_cards(game: ArenaGame, target: int) -> list[int]:
    """The target's maneuvers and its worlds that are not permanently defended."""
    worlds = [w for w in game.worlds_of[target] if game.defended[w] != target]
    return sorted(game.maneuvers_of[target]) + sorted(worlds)


def character_bonus(game: ArenaGame, seat: int, kind: str) -> int:
    """The bonus of the character card in use, if it is of ``kind``."""
    bonus = game.box.characters[game.characters[seat]].bonus_in(game.forms[seat])
    return bonus.amount if bonus.kind == kind else 0


def apply_action_choice(game: ArenaGame, action: int) -> None:
    """Do the chosen action: end, train, or set up a challenge and its spending."""
    seat, layout, box = game.turn_seat, game.layout, game.box
    if action == layout.end:
        game._end_turn()
        return
    if action == layout.train:
        take_gym_card(game, seat, game._corner_gym(game.positions[seat]))
        game._end_turn()
        return
    if action == layout.challenge_medal:
        game.ch_kind = "medal"
        game.ch_item = game.space_item[game.positions[seat]] - box.num_cards
    elif action < layout.challenge_medal:
        card = action - layout.challenge
        game.ch_kind = "world" if box.cards[card].is_world else "maneuver"
        game.ch_item = card
    else:
        k, card = divmod(action - layout.challenge_player, box.num_cards)
        target = layout.seat_at(seat, k + 1)
        game.ch_defender, game.ch_item = target, card
        game.ch_kind = player_challenge_kind(game, seat, card)
    if _nothing_to_spend(game, seat):
        game.ch_spent[0] = 0
        after_challenger_spend(game)
    else:
        game._decide(CHALLENGE_SPEND, seat)


def player_challenge_kind(game: ArenaGame, seat: int, card: int) -> str:
    """Homeworld (a world naming the challenger), favourite trick (a maneuver
    naming the challenger) or standard."""
    c = game.box.cards[card]
    if c.character != game.box.characters[game.characters[seat]].name:
        return "standard"
    return "homeworld" if c.is_world else "favourite"


def after_challenger_spend(game: ArenaGame) -> None:
    """The challenger has spent: the defender of a standard challenge spends next."""
    if game.ch_kind == "standard":
        if _nothing_to_spend(game, game.ch_defender):
            game.ch_spent[1] = 0
            resolve_challenge(game)
        else:
            game._decide(DEFEND_SPEND, game.ch_defender)
    else:
        resolve_challenge(game)


# ---- rolling and resolving -------------------------------------------------------------


def challenge_need(game: ArenaGame, kind: str, item: int) -> int:
    """The number a board or named-player challenge must meet."""
    box = game.box
    if kind == "medal":
        return box.medal_target
    card = box.cards[item]
    if kind == "maneuver":
        return card.challenge
    if kind == "world":
        return card.challenge if game.config.world_challenge == "offset" else card.number
    return card.number  # homeworld and favourite trick


def roll_modifier(game: ArenaGame, seat: int, kind: str, item: int, spent: int) -> int:
    """Everything a roll adds beyond its dice, before the roll's Star Cluster
    trophies: trophies spent, the character bonus, the card's bonus, gym powers."""
    box = game.box
    bonus_kind = {"maneuver": "maneuver", "world": "world", "medal": "medal",
                  "defence": "defence"}.get(kind, "attack")  # fmt: skip
    total = spent * box.trophy_value + character_bonus(game, seat, bonus_kind)
    total += game.roll_bonus[seat]
    if kind != "medal":
        card_bonus = box.cards[item].bonus
        if card_bonus is not None and card_bonus.form == game.forms[seat]:
            total += card_bonus.amount
    return total


def _challenge_roll(
    game: ArenaGame, seat: int, kind: str, item: int, spent: int
) -> tuple[list[int], int]:
    """Roll ``seat``'s challenge dice: (read dice, modifier added to them)."""
    box = game.box
    count = box.challenge_dice + game.roll_extra[seat]
    sides = box.challenge_die[game.forms[seat]]
    purpose = "defence" if kind == "defence" else f"{kind} challenge"
    modifier = roll_modifier(game, seat, kind, item, spent)
    rolled = dice.roll_dice(game, seat, sides, count, purpose)
    modifier += dice.use_up_roll(game, seat)
    return rolled, modifier


def resolve_challenge(game: ArenaGame) -> None:
    """Roll the challenge (and the defence), record it, settle it; the turn ends."""
    seat, kind, item = game.turn_seat, game.ch_kind, game.ch_item
    rolled, modifier = _challenge_roll(game, seat, kind, item, game.ch_spent[0])
    need = challenge_need(game, kind, item) if kind != "standard" else 0
    record: dict[str, Any] = {
        "challenger": seat, "kind": kind, "item": item, "defender": game.ch_defender,
        "dice": rolled, "modifier": modifier, "need": need,
    }  # fmt: skip
    if kind == "medal":
        total = max(rolled) + modifier
        success = total >= need
    elif kind == "standard":
        defender = game.ch_defender
        their, their_mod = _challenge_roll(game, defender, "defence", item, game.ch_spent[1])
        total = sum(rolled) + modifier
        record["defender_dice"], record["defender_modifier"] = their, their_mod
        record["defender_total"] = sum(their) + their_mod
        success = total > record["defender_total"]
    else:
        total = sum(rolled) + modifier
        success = total >= need
    record["total"], record["success"] = total, success
    game.last_challenge = record
    _challenge_outcome(game, seat, kind, item, success)
    game._end_turn()


def _challenge_outcome(game: ArenaGame, seat: int, kind: str, item: int, success: bool) -> None:
    if kind == "medal":
        if success:
            _win_medal_card(game, seat, item)
        return
    if success:
        gain_card(game, seat, item)
        return
    defender = game.ch_defender
    if defender >= 0 and game.box.cards[item].is_world:
        _defended(game, defender, item)


def _defended(game: ArenaGame, defender: int, world: int) -> None:
    """A world kept against a challenge is permanently defended; the third wins."""
    game.defended[world] = defender
    count = sum(1 for w in game.worlds_of[defender] if game.defended[w] == defender)
    if count >= game.box.win_defended:
        game._finish([defender], "three worlds defended")


# ---- gaining -------------------------------------------------------------------------------


def gain_card(game: ArenaGame, seat: int, card: int) -> None:
    """``seat`` takes a maneuver or world card (from the board: the top medal
    card fills its space), then medals, transformation and victory."""
    space = game.card_space[card] if game.card_holder[card] == BOARD else -1
    game._set_card(card, seat)
    if space >= 0:
        fill_space(game, space)
    if game.box.cards[card].is_world:
        game.worlds_won[seat] += 1
        if fifth_world_count(game, seat) >= game.box.win_worlds:
            game._finish([seat], "five worlds")
    else:
        _after_maneuver(game, seat)


def fifth_world_count(game: ArenaGame, seat: int) -> int:
    """The count the five-worlds victory reads: worlds held now, or (option
    ``fifth_world="won"``) worlds gained over the game, kept or not."""
    if game.config.fifth_world == "won":
        return game.worlds_won[seat]
    return len(game.worlds_of[seat])


def _after_maneuver(game: ArenaGame, seat: int) -> None:
    check_medals(game, seat)
    count = len(game.maneuvers_of[seat])
    odd = count >= 3 and count % 2 == 1
    if (
        game.forms[seat] == ASTROBIRDZ
        and odd
        and game.roll_die(seat, 6, "transformation") == game.box.transform_on
    ):
        game.forms[seat] = BERZERKERBIRDZ


def fill_space(game: ArenaGame, space: int) -> None:
    """A space emptied by winning its card gets the top medal card, while any are left."""
    if game.medal_stack:
        k = game.medal_stack.pop(0)
        game.medal_holder[k], game.medal_space[k] = ON_BOARD, space
        game.space_item[space] = game.box.num_cards + k


def _win_medal_card(game: ArenaGame, seat: int, k: int) -> None:
    """A trophy medal card pays at once and goes under the stack; an extra-die
    card is kept. The space stays empty."""
    game.space_item[game.medal_space[k]] = -1
    game.medal_space[k] = -1
    card = game.box.medal_cards[k]
    if card.trophy:
        take_supply_trophies(game, seat, card.trophy)
        game.medal_holder[k] = IN_STACK
        game.medal_stack.append(k)
    else:
        game.medal_holder[k] = seat


def take_gym_card(game: ArenaGame, seat: int, gym: int) -> None:
    """``seat`` takes one of ``gym``'s power cards, if it has any left."""
    if game.gym_cards[gym] > 0:
        game.gym_cards[gym] -= 1
        game.powers[seat][gym] += 1


def take_supply_trophies(game: ArenaGame, seat: int, count: int) -> None:
    """``seat`` takes up to ``count`` trophies from the supply."""
    take = min(count, game.supply)
    game.supply -= take
    game.trophies[seat] += take


def check_medals(game: ArenaGame, seat: int) -> None:
    """Award every medal ``seat``'s maneuver count has reached."""
    count = len(game.maneuvers_of[seat])
    for level, medal in enumerate(game.box.medal_levels):
        if count >= medal.maneuvers and not game.medals[seat][level]:
            award_medal(game, seat, level)


def award_medal(game: ArenaGame, seat: int, level: int) -> None:
    """Give a medal coin from the supply (none when the supply has run out)."""
    if game.medal_supply[level] > 0 and not game.medals[seat][level]:
        game.medal_supply[level] -= 1
        game.medals[seat][level] = 1
