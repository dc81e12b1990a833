"""Rolling and moving, and the roll decisions where gym powers, medal dice and
trophies are spent (a mixin of :class:`.rules.ArenaGame`).

* Before the movement roll (phase ``pre_roll``): use a gym power, add a
  movement medal die, then ``roll``. On the first turn the roll is one d6,
  with no medal die and nothing spent after it.
* After it (``move_spend``): spend trophies, +2 each, or a movement gym power.
* Moving (``move``): one space at a time; a choice only at a fork, on a space
  with a player who can be challenged (``stop``), and at a Nebula Slide end
  (``slide``; on the last step also ``stay``). Each gym moved onto or past
  gives a trophy while it has any.
* Before a challenge or defence roll (``challenge_spend`` /
  ``defend_spend``): gym powers and medal dice of that kind, then ``spend k``.
"""

from __future__ import annotations

from typing import Any

from .data import ASTROBIRDZ, BERZERKERBIRDZ
from .dice import read_face, reading_table
from .phases import IN_STACK, MOVE, MOVE_SPEND, PRE_ROLL

CONTEXTS = {1: "pre", 2: "post", 5: "challenge", 6: "defence"}
"""Roll context of each spend phase (by Phase value)."""
DIE_USE = {"pre": "movement", "challenge": "challenge", "defence": "defence"}


class MovementRules:
    """Movement and the spend decisions; see the module docstring."""

    # ---- spend decisions --------------------------------------------------------------

    def _begin_movement(self: Any) -> None:
        """Before the movement roll: a decision only when a power or medal die could be used."""
        seat = self.turn_seat
        if any(self.powers[seat]) or seat in self.medal_holder:
            self._decide(PRE_ROLL, seat)
        else:
            self._roll_movement()

    def _spend_options(self: Any) -> list[int]:
        seat, layout = self.actor, self.layout
        ctx = CONTEXTS[int(self.phase)]
        out = (
            [layout.roll]
            if ctx == "pre"
            else list(range(layout.spend, layout.spend + self.trophies[seat] + 1))
        )
        powers = self.powers[seat]
        if any(powers):
            for gym, held in enumerate(powers):
                if held and self._power_usable(seat, gym, ctx):
                    out.append(layout.use + gym)
        use = DIE_USE.get(ctx)
        if (
            use is not None
            and seat in self.medal_holder
            and not (ctx == "pre" and self.first_turn[seat])
        ):
            added = self.roll_cards[seat]
            for k, holder in enumerate(self.medal_holder):
                if holder == seat and k not in added and use in self.box.medal_cards[k].extra_die:
                    out.append(layout.add + k)
        return out

    def _power_usable(self: Any, seat: int, gym: int, ctx: str) -> bool:
        """A gym power is used only where it does something."""
        power = self.box.gyms[gym].power
        kind = power.kind
        if kind == "transform":
            return ctx != "post" and self.forms[seat] == ASTROBIRDZ
        if kind == "bonus":
            return (power.roll, ctx) in (
                ("movement", "post"), ("challenge", "challenge"), ("defence", "defence"),
            )  # fmt: skip
        if kind == "trophies":
            return self.supply > 0
        if kind == "gold_reading":
            return (
                ctx in ("challenge", "defence")
                and not self.roll_gold[seat]
                and (self.medal_level(seat) < 3)
            )
        return ctx == "challenge"  # extra_die

    def _apply_spend(self: Any, action: int) -> None:
        seat, layout = self.actor, self.layout
        ctx = CONTEXTS[int(self.phase)]
        if action == layout.roll:
            self._roll_movement()
        elif action >= layout.add:
            k = action - layout.add
            self.roll_cards[seat].append(k)
            self.roll_extra[seat] += 1
        elif action >= layout.use:
            self._use_power(seat, action - layout.use, ctx)
        else:
            spent = action - layout.spend
            self.trophies[seat] -= spent
            self.supply += spent
            if ctx == "post":
                self.steps_left += spent * self.box.trophy_value
                self.move_total = self.steps_left
                self._begin_moving()
            elif ctx == "challenge":
                self.ch_spent[0] = spent
                self._after_challenger_spend()
            else:
                self.ch_spent[1] = spent
                self._resolve_challenge()

    def _use_power(self: Any, seat: int, gym: int, ctx: str) -> None:
        """Use one gym power card; it goes back to its gym."""
        power = self.box.gyms[gym].power
        self.powers[seat][gym] -= 1
        self.gym_cards[gym] += 1
        kind = power.kind
        if kind == "transform":
            self.forms[seat] = BERZERKERBIRDZ
        elif kind == "bonus":
            if ctx == "post":
                self.steps_left += power.amount
                self.move_total = self.steps_left
            else:
                self.roll_bonus[seat] += power.amount
        elif kind == "trophies":
            take = min(power.amount, self.supply)
            self.supply -= take
            self.trophies[seat] += take
        elif kind == "gold_reading":
            self.roll_gold[seat] = True
        else:
            self.roll_extra[seat] += 1

    # ---- dice of a seat ----------------------------------------------------------------

    def medal_level(self: Any, seat: int) -> int:
        """The best medal held: 0 none, 1 bronze, 2 silver, 3 gold."""
        m = self.medals[seat]
        return 3 if m[2] else 2 if m[1] else 1 if m[0] else 0

    def _roll_dice(self: Any, seat: int, sides: int, count: int, purpose: str) -> list[int]:
        """Roll and read ``count`` dice of ``seat`` (medals, gold reading, dark matter)."""
        level = 3 if self.roll_gold[seat] else self.medal_level(seat)
        roll = self.roll_die
        if self.dark[seat] > 0:
            dark_medals = self.config.dark_matter == "medals"
            box = self.box
            return [
                read_face(box, roll(seat, sides, purpose), sides, level, True, dark_medals)
                for _ in range(count)
            ]
        table = reading_table(self.box, sides, level)
        return [table[roll(seat, sides, purpose)] for _ in range(count)]

    def _use_up_roll(self: Any, seat: int) -> int:
        """After a roll: the Star Cluster trophies add their +2s and go back to the
        supply, used medal dice go under the medal stack, prepared modifiers end.
        Returns the Star Cluster part of the total."""
        bonus = self.bonus_trophies[seat] * self.box.trophy_value
        self.supply += self.bonus_trophies[seat]
        self.bonus_trophies[seat] = 0
        for k in self.roll_cards[seat]:
            self.medal_holder[k] = IN_STACK
            self.medal_stack.append(k)
        self.roll_cards[seat] = []
        self.roll_extra[seat] = self.roll_bonus[seat] = 0
        self.roll_gold[seat] = False
        return bonus

    def _roll_movement(self: Any) -> None:
        seat, box = self.turn_seat, self.box
        first = self.first_turn[seat]
        sides = box.first_turn_die if first else box.movement_die[self.forms[seat]]
        dice = self._roll_dice(seat, sides, 1 + self.roll_extra[seat], "movement")
        total = sum(dice) + self._use_up_roll(seat)
        if not first:
            total += self.character_bonus(seat, "movement")
        self.steps_left = self.move_total = total
        if first or not (self.trophies[seat] or any(self.powers[seat])):
            self._begin_moving()
        else:
            self._decide(MOVE_SPEND, seat)

    def character_bonus(self: Any, seat: int, kind: str) -> int:
        """The bonus of the character card in use, if it is of ``kind``."""
        bonus = self.box.characters[self.characters[seat]].bonus_in(self.forms[seat])
        return bonus.amount if bonus.kind == kind else 0

    # ---- moving -------------------------------------------------------------------------

    def _begin_moving(self: Any) -> None:
        self.entered = False
        self._advance()

    def _advance(self: Any) -> None:
        """Move on by itself while there is nothing to choose; stop at a choice
        (a fork, a player to challenge, a slide end) or where the move ends."""
        seat, box = self.turn_seat, self.box
        positions, next_of, kind_of = self.positions, box.next_of, box.kind_of
        here = positions[seat]
        steps, entered = self.steps_left, self.entered
        while True:
            if entered:
                kind = kind_of[here]
                if kind == "slide" or (
                    steps > 0 and positions.count(here) > 1 and self._challengeable_here(seat)
                ):
                    self.steps_left, self.entered = steps, entered
                    self._decide(MOVE, seat)
                    return
                if steps == 0:
                    self.steps_left, self.entered = steps, entered
                    self._land()
                    return
            ways = next_of[here]
            if len(ways) > 1:
                self.steps_left, self.entered = steps, entered
                self._decide(MOVE, seat)
                return
            here = ways[0]
            positions[seat] = here
            steps -= 1
            entered = True
            if kind_of[here] == "gym":
                self._gym_trophies(seat, here)

    def _enter(self: Any, seat: int, space: int) -> None:
        """One step onto ``space`` (a trophy from a gym moved onto)."""
        self.positions[seat] = space
        self.steps_left -= 1
        self.entered = True
        if self.box.kind_of[space] == "gym":
            self._gym_trophies(seat, space)

    def _move_options(self: Any) -> list[int]:
        seat, layout = self.turn_seat, self.layout
        here = self.positions[seat]
        out = []
        if self.steps_left > 0:
            out = [layout.to + nxt for nxt in self.box.next_of[here]]
        if self.entered:
            if self.steps_left > 0 and self._challengeable_here(seat):
                out.append(layout.stop)
            if self.box.kind_of[here] == "slide":
                out.append(layout.slide)
                if self.steps_left == 0:
                    out.append(layout.stay)
        return out

    def _challengeable_here(self: Any, seat: int) -> list[int]:
        here = self.positions[seat]
        return [
            t
            for t in range(self.num_players)
            if t != seat and self.positions[t] == here and self.challengeable(t)
        ]

    def challengeable(self: Any, target: int) -> bool:
        """A player can be challenged while holding a maneuver, or a world that is
        not permanently defended."""
        if self.maneuvers_of[target]:
            return True
        return any(self.defended[w] != target for w in self.worlds_of[target])

    def _apply_move(self: Any, action: int) -> None:
        layout = self.layout
        if action < layout.stop:  # "to <space>": the common case
            self._enter(self.turn_seat, action - layout.to)
            self._advance()
        elif action == layout.stop:
            self.stopped = True
            self.steps_left = 0
            self._begin_action()
        elif action == layout.slide:
            self._go_through_slide()
        else:  # stay
            self._begin_action()

    def _gym_trophies(self: Any, seat: int, space: int) -> None:
        """Moving onto or past a gym takes one of its trophies while it has any
        (more with a gym-trophy bonus)."""
        corner = self.box.corners.index(space)
        take = min(1 + self.character_bonus(seat, "gym_trophy"), self.gym_trophies[corner])
        self.gym_trophies[corner] -= take
        self.trophies[seat] += take

    def _land(self: Any) -> None:
        """The move ends here by its full count: an AstroPortal encounter, or the action."""
        if self.box.kind_of[self.positions[self.turn_seat]] == "portal":
            self._astroportal()
        else:
            self._begin_action()
