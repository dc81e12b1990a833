"""The action after moving, challenges, medals, transformation and victory (a
mixin of :class:`.rules.ArenaGame`).

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
"""

from __future__ import annotations

from typing import Any

from .data import ASTROBIRDZ, BERZERKERBIRDZ
from .phases import ACTION, BOARD, CHALLENGE_SPEND, DEFEND_SPEND, IN_STACK, ON_BOARD

PLAYER_KINDS = ("homeworld", "favourite", "standard")


class ChallengeRules:
    """The action after moving; see the module docstring."""

    # Fields of ArenaGame this mixin writes (declared there with their defaults).
    _legal: list[int] | None
    last_challenge: dict[str, Any] | None

    def _begin_action(self: Any) -> None:
        """Ask for the action, unless there is nothing to do here (the turn is over)."""
        self._decide(ACTION, self.turn_seat)
        options = self._action_options()
        if len(options) == 1 and options[0] == self.layout.end:
            self._end_turn()
        else:
            self._legal = sorted(options)

    def _nothing_to_spend(self: Any, seat: int) -> bool:
        """No trophy, gym power card or medal die: a roll has nothing to decide before it."""
        return (
            not self.trophies[seat]
            and not any(self.powers[seat])
            and (seat not in self.medal_holder)
        )

    def _action_options(self: Any) -> list[int]:
        seat, layout, box = self.turn_seat, self.layout, self.box
        here = self.positions[seat]
        out: list[int] = []
        if self.forced_target >= 0:
            targets = [self.forced_target]
        elif self.stopped:
            targets = self._challengeable_here(seat)
        else:
            kind = box.kind_of[here]
            if kind == "gym" and self.can_train(seat):
                out.append(layout.train)
            item = self.space_item[here]
            if item >= box.num_cards:
                out.append(layout.challenge_medal)
            elif item >= 0 and (
                not box.cards[item].is_world
                or len(self.maneuvers_of[seat]) >= box.maneuvers_for_worlds
            ):
                out.append(layout.challenge + item)
            targets = [
                t for t in range(self.num_players) if t != seat and self.positions[t] == here
            ]
        for target in targets:
            for card in self.challengeable_cards(target):
                out.append(layout.challenge_player_id(seat, target, card))
        if self.forced_target < 0 and not self.stopped:
            out.append(layout.end)
        return out

    def can_train(self: Any, seat: int) -> bool:
        """On a gym with a gym power card left, except the starting corner's gym on
        the first turn."""
        here = self.positions[seat]
        if self.first_turn[seat] and here == self.start_corner[seat]:
            return False
        return self.gym_cards[self._corner_gym(here)] > 0

    def challengeable_cards(self: Any, target: int) -> list[int]:
        """The target's maneuvers and its worlds that are not permanently defended."""
        worlds = [w for w in self.worlds_of[target] if self.defended[w] != target]
        return sorted(self.maneuvers_of[target]) + sorted(worlds)

    def _apply_action_choice(self: Any, action: int) -> None:
        seat, layout, box = self.turn_seat, self.layout, self.box
        if action == layout.end:
            self._end_turn()
            return
        if action == layout.train:
            self._take_gym_card(seat, self._corner_gym(self.positions[seat]))
            self._end_turn()
            return
        if action == layout.challenge_medal:
            self.ch_kind = "medal"
            self.ch_item = self.space_item[self.positions[seat]] - box.num_cards
        elif action < layout.challenge_medal:
            card = action - layout.challenge
            self.ch_kind = "world" if box.cards[card].is_world else "maneuver"
            self.ch_item = card
        else:
            k, card = divmod(action - layout.challenge_player, box.num_cards)
            target = layout.seat_at(seat, k + 1)
            self.ch_defender, self.ch_item = target, card
            self.ch_kind = self.player_challenge_kind(seat, card)
        if self._nothing_to_spend(seat):
            self.ch_spent[0] = 0
            self._after_challenger_spend()
        else:
            self._decide(CHALLENGE_SPEND, seat)

    def player_challenge_kind(self: Any, seat: int, card: int) -> str:
        """Homeworld (a world naming the challenger), favourite trick (a maneuver
        naming the challenger) or standard."""
        c = self.box.cards[card]
        if c.character != self.box.characters[self.characters[seat]].name:
            return "standard"
        return "homeworld" if c.is_world else "favourite"

    def _after_challenger_spend(self: Any) -> None:
        if self.ch_kind == "standard":
            if self._nothing_to_spend(self.ch_defender):
                self.ch_spent[1] = 0
                self._resolve_challenge()
            else:
                self._decide(DEFEND_SPEND, self.ch_defender)
        else:
            self._resolve_challenge()

    # ---- rolling and resolving -------------------------------------------------------------

    def challenge_need(self: Any, kind: str, item: int) -> int:
        """The number a board or named-player challenge must meet."""
        box = self.box
        if kind == "medal":
            return box.medal_target
        card = box.cards[item]
        if kind == "maneuver":
            return card.challenge
        if kind == "world":
            return card.challenge if self.config.world_challenge == "offset" else card.number
        return card.number  # homeworld and favourite trick

    def roll_modifier(self: Any, seat: int, kind: str, item: int, spent: int) -> int:
        """Everything a roll adds beyond its dice, before the roll's Star Cluster
        trophies: trophies spent, the character bonus, the card's bonus, gym powers."""
        box = self.box
        bonus_kind = {"maneuver": "maneuver", "world": "world", "medal": "medal",
                      "defence": "defence"}.get(kind, "attack")  # fmt: skip
        total = spent * box.trophy_value + self.character_bonus(seat, bonus_kind)
        total += self.roll_bonus[seat]
        if kind != "medal":
            card_bonus = box.cards[item].bonus
            if card_bonus is not None and card_bonus.form == self.forms[seat]:
                total += card_bonus.amount
        return total

    def _challenge_roll(
        self: Any, seat: int, kind: str, item: int, spent: int
    ) -> tuple[list[int], int]:
        """Roll ``seat``'s challenge dice: (read dice, modifier added to them)."""
        box = self.box
        count = box.challenge_dice + self.roll_extra[seat]
        sides = box.challenge_die[self.forms[seat]]
        purpose = "defence" if kind == "defence" else f"{kind} challenge"
        modifier = self.roll_modifier(seat, kind, item, spent)
        dice = self._roll_dice(seat, sides, count, purpose)
        modifier += self._use_up_roll(seat)
        return dice, modifier

    def _resolve_challenge(self: Any) -> None:
        seat, kind, item = self.turn_seat, self.ch_kind, self.ch_item
        dice, modifier = self._challenge_roll(seat, kind, item, self.ch_spent[0])
        need = self.challenge_need(kind, item) if kind != "standard" else 0
        record: dict[str, Any] = {
            "challenger": seat, "kind": kind, "item": item, "defender": self.ch_defender,
            "dice": dice, "modifier": modifier, "need": need,
        }  # fmt: skip
        if kind == "medal":
            total = max(dice) + modifier
            success = total >= need
        elif kind == "standard":
            defender = self.ch_defender
            their, their_mod = self._challenge_roll(defender, "defence", item, self.ch_spent[1])
            total = sum(dice) + modifier
            record["defender_dice"], record["defender_modifier"] = their, their_mod
            record["defender_total"] = sum(their) + their_mod
            success = total > record["defender_total"]
        else:
            total = sum(dice) + modifier
            success = total >= need
        record["total"], record["success"] = total, success
        self.last_challenge = record
        self._challenge_outcome(seat, kind, item, success)
        self._end_turn()

    def _challenge_outcome(self: Any, seat: int, kind: str, item: int, success: bool) -> None:
        if kind == "medal":
            if success:
                self._win_medal_card(seat, item)
            return
        if success:
            self.gain_card(seat, item)
            return
        defender = self.ch_defender
        if defender >= 0 and self.box.cards[item].is_world:
            self._defended(defender, item)

    def _defended(self: Any, defender: int, world: int) -> None:
        """A world kept against a challenge is permanently defended; the third wins."""
        self.defended[world] = defender
        count = sum(1 for w in self.worlds_of[defender] if self.defended[w] == defender)
        if count >= self.box.win_defended:
            self._finish([defender], "three worlds defended")

    # ---- gaining -------------------------------------------------------------------------------

    def gain_card(self: Any, seat: int, card: int) -> None:
        """``seat`` takes a maneuver or world card (from the board: the top medal
        card fills its space), then medals, transformation and victory."""
        space = self.card_space[card] if self.card_holder[card] == BOARD else -1
        self._set_card(card, seat)
        if space >= 0:
            self._fill_space(space)
        if self.box.cards[card].is_world:
            if len(self.worlds_of[seat]) >= self.box.win_worlds:
                self._finish([seat], "five worlds")
        else:
            self._after_maneuver(seat)

    def _after_maneuver(self: Any, seat: int) -> None:
        self._check_medals(seat)
        count = len(self.maneuvers_of[seat])
        odd = count >= 3 and count % 2 == 1
        if (
            self.forms[seat] == ASTROBIRDZ
            and odd
            and self.roll_die(seat, 6, "transformation") == self.box.transform_on
        ):
            self.forms[seat] = BERZERKERBIRDZ

    def _fill_space(self: Any, space: int) -> None:
        """A space emptied by winning its card gets the top medal card, while any are left."""
        if self.medal_stack:
            k = self.medal_stack.pop(0)
            self.medal_holder[k], self.medal_space[k] = ON_BOARD, space
            self.space_item[space] = self.box.num_cards + k

    def _win_medal_card(self: Any, seat: int, k: int) -> None:
        """A trophy medal card pays at once and goes under the stack; an extra-die
        card is kept. The space stays empty."""
        self.space_item[self.medal_space[k]] = -1
        self.medal_space[k] = -1
        card = self.box.medal_cards[k]
        if card.trophy:
            self._take_supply_trophies(seat, card.trophy)
            self.medal_holder[k] = IN_STACK
            self.medal_stack.append(k)
        else:
            self.medal_holder[k] = seat

    def _take_gym_card(self: Any, seat: int, gym: int) -> None:
        if self.gym_cards[gym] > 0:
            self.gym_cards[gym] -= 1
            self.powers[seat][gym] += 1

    def _check_medals(self: Any, seat: int) -> None:
        count = len(self.maneuvers_of[seat])
        for level, medal in enumerate(self.box.medal_levels):
            if count >= medal.maneuvers and not self.medals[seat][level]:
                self._award_medal(seat, level)

    def _award_medal(self: Any, seat: int, level: int) -> None:
        """Give a medal coin from the supply (none when the supply has run out)."""
        if self.medal_supply[level] > 0 and not self.medals[seat][level]:
            self.medal_supply[level] -= 1
            self.medals[seat][level] = 1
