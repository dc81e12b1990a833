"""The Arena's observation vector (field by field), its view and its text board.

Everything in the Arena is public except the order of the face-down medal
stack (and a test's forced dice) and, during setup, the other seats' character
wishes, so every seat's observation shows the same table, arranged from the
observer's seat (each seat's own wish is a ``self`` field, gathered from that
seat's block only): "per seat" fields list the observer
first, then its left neighbour, and so on; a card's or medal card's holder is
named the same way.

The vector is a gather ``store[index[seat]]`` of one shared store kept in
absolute seat order; :meth:`ArenaObserver.refresh` rewrites only the parts
whose source changed since the last refresh (positions, card places, ...),
comparing every source with a copy of what the store shows, so the store is
the same however many actions were applied between two observations.
:func:`field_table` is the single description of the layout; the env's
documentation prints the same table. Every entry lies in [0, 1]: counts are
divided by their real maximum for the configuration (the box's numbers).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import compress
from operator import ne
from typing import Any

import numpy as np

from .challenges import CHALLENGE_KINDS
from .data import FORMS, MAX_SIDES, MEDALS, Box
from .data import box_tables as box_tables  # moved to data.py, still importable here
from .encounters import PORTAL_ROWS, PORTAL_TABLES, SLIDE_RESULTS, TASKS
from .phases import BOARD, BOX, DISCARD, IN_STACK, ON_BOARD, PHASE_NAMES, Phase
from .rules import ArenaGame
from .setup import wish_pool

TASK_NAMES = tuple(TASKS)
TASK_INDEX = {name: i for i, name in enumerate(TASK_NAMES)}
CARD_SPACES = ("maneuver", "world")
CHALLENGE_INDEX = {kind: i for i, kind in enumerate(CHALLENGE_KINDS)}
RECENT_ROLLS = 8
"""Rolls shown in the vector, newest first (``view`` shows every roll since
the agent's previous step)."""


@dataclass(frozen=True)
class Field:
    """One observation field. ``kind``: ``pub`` (the same for every observer),
    ``seat`` (one block per seat, observer first), ``self`` (the observer's own
    block only: what the others may not see), ``card`` / ``medal`` /
    ``space`` / ``corner`` (one block per card, medal card, board space or
    corner; holder columns name seats observer first)."""

    name: str
    kind: str
    width: int
    doc: str


@dataclass(frozen=True)
class Scales:
    """The real maximum of each unbounded count, for the configuration."""

    move: int
    need: int
    total: int
    bonus: int
    extra: int

    @classmethod
    def of(cls, box: Box) -> Scales:
        k = len(box.medal_cards)
        top_bonus = max(
            [c.bonus.amount for c in box.characters]
            + [c.berzerkerbirdz_bonus.amount for c in box.characters if c.berzerkerbirdz_bonus]
        )
        card_bonus = max([c.bonus.amount for c in box.cards if c.bonus] + [0])
        powers = {kind: 0 for kind in ("movement", "challenge", "defence")}
        extra_die_cards = 0
        for gym in box.gyms:
            if gym.power.kind == "bonus" and gym.power.roll is not None:
                powers[gym.power.roll] += gym.power.amount * box.gym_power_cards
            if gym.power.kind == "extra_die":
                extra_die_cards += box.gym_power_cards
        extra = k + extra_die_cards
        trophies = box.trophy_value * box.trophies
        move = (1 + k) * box.max_sides + trophies + top_bonus + powers["movement"]
        need = max([c.challenge for c in box.cards] + [c.number for c in box.cards])
        need = max(need, box.medal_target)
        dice = (box.challenge_dice + extra) * box.max_sides
        total = dice + trophies + top_bonus + card_bonus + max(powers.values())
        return cls(move=move, need=need, total=total, bonus=max(1, max(powers.values())),
                   extra=max(1, extra))  # fmt: skip


def field_table(box: Box, n: int) -> list[Field]:
    """The observation layout for a box and ``n`` players, in vector order."""
    s, c, g, h = box.num_spaces, box.num_cards, len(box.gyms), len(box.characters)
    return [
        Field("phase", "pub", len(Phase) - 1, "one-hot: " + ", ".join(PHASE_NAMES[:-1])
              + " (all zero once over)"),
        Field("task", "pub", len(TASK_NAMES), "one-hot: what a pick phase is for (the table "
              "row's task, see the docs)"),
        Field("round", "pub", 1, "full rounds played / max_rounds"),
        Field("supply", "pub", 1, "trophies in the supply / the box's trophies"),
        Field("medal_supply", "pub", 3, "bronze, silver, gold medals left / the box's"),
        Field("medal_stack", "pub", 1, "medal cards in the face-down stack / the box's"),
        Field("steps_left", "pub", 1, "spaces still to move this move / the largest move"),
        Field("move_total", "pub", 1, "this move's total / the largest move"),
        Field("moving", "pub", 2, "1 once the fingerboard left its space this move; 1 if "
              "it stopped early to challenge"),
        Field("challenge", "pub", len(CHALLENGE_KINDS) - 1, "one-hot: the challenge under way: "
              + ", ".join(CHALLENGE_KINDS[1:])),
        Field("challenge_need", "pub", 1, "the number it must meet / the largest number"),
        Field("challenge_spent", "pub", 2, "trophies the challenger and the defender spent / "
              "the box's trophies"),
        Field("last_encounter", "pub", 9 + 8, "one-hot table (0 Nebula Slide, 1-8 "
              "AstroPortal) + one-hot result 1-8 of the last encounter"),
        Field("last_challenge", "pub", 3, "the last challenge: success, total and the "
              "defender's total / the largest total"),
        Field("recent_rolls", "pub", 2 * RECENT_ROLLS, "the last 8 rolls, newest first: "
              "result and sides / the largest die"),
        Field("position", "seat", s, "one-hot: the space of the fingerboard"),
        Field("identity", "seat", 3 + h, "one-hot form (astrobirdz, berzerkerbirdz, "
              "invazorz) + one-hot character"),
        Field("trophies", "seat", 2, "trophies held; Star Cluster trophies waiting for the "
              "next roll (/ the box's trophies)"),
        Field("medals", "seat", 3, "bronze, silver, gold held"),
        Field("status", "seat", 3, "a turn to lose (upside down); dark matter turns left / "
              "its most; first turn not yet played"),
        Field("wished", "seat", 1, "setup: has wished for a character this round (what "
              "for is hidden from the others)"),
        Field("own_wish", "self", h, "setup: one-hot the character the observer wished "
              "for this round (its own wish only)"),
        Field("worlds_won", "seat", 1, "world cards gained over the game, kept or not / "
              "the five of the five-worlds victory (at most 1)"),
        Field("gym_powers", "seat", g, "gym power cards held per gym / cards per gym"),
        Field("roles", "seat", 5, "on turn; to act; defender of the challenge; the target "
              "an effect forces a challenge on; the player a pick places"),
        Field("roll_prep", "seat", 3, "for the coming roll: gym bonus / the most; gold "
              "reading; extra dice / the most"),
        Field("card_holder", "card", 2 + n, "per maneuver then world card: one-hot on the "
              "board, out of play (box or discarded), or held by a seat"),
        Field("card_info", "card", 2, "per card: permanently defended; its space / the "
              "last space id (on the board)"),
        Field("medal_holder", "medal", 2 + n, "per medal card: one-hot in the stack, on "
              "the board, or held by a seat"),
        Field("medal_space", "medal", 1, "per medal card: its space / the last space id"),
        Field("space_item", "space", 4, "per space: one-hot nothing, a maneuver card, a "
              "world card, a medal card (all zero: a space that holds no cards)"),
        Field("space_need", "space", 1, "per space: the number a challenge there must meet "
              "/ the largest number"),
        Field("space_named", "space", 1, "per space: its card names the observer's "
              "character (a homeworld or favourite trick)"),
        Field("corners", "corner", g + 2, "per corner (1-4): one-hot gym, its trophies / "
              "the start count, its power cards / cards per gym"),
        Field("task_card", "pub", c, "one-hot: the card a pick is about (a lost card "
              "being placed)"),
    ]  # fmt: skip


def item_count(box: Box, f: Field) -> int:
    return {"card": box.num_cards, "medal": len(box.medal_cards), "space": box.num_spaces,
            "corner": len(box.corners)}.get(f.kind, 1)  # fmt: skip


def observation_size(box: Box, n: int) -> int:
    total = 0
    for f in field_table(box, n):
        total += f.width * (n if f.kind == "seat" else item_count(box, f))
    return total


def changed_indices(*pairs: tuple[list[int], list[int]]) -> list[int]:
    """The indices where any (new, old) pair of equally long lists differs, in
    order; only the pairs that differ are scanned, each at C speed."""
    found: set[int] = set()
    for new, old in pairs:
        if new != old:
            found.update(compress(range(len(new)), map(ne, new, old)))
    return sorted(found)


class ArenaObserver:
    """The shared store, the per-seat gather indices and the refresh."""

    # What the store shows, as last written (None: not written since invalidate).
    _game: ArenaGame | None
    _version: int
    _p_phase: int
    _p_task: int
    _p_task_card: int
    _p_rolls: int
    _p_steps: int
    _p_supply: int
    _p_kind: int
    _p_bonus: Any
    _p_challenge: Any
    _p_characters: Any
    _p_counts: Any
    _p_dark: Any
    _p_defended: Any
    _p_encounter: Any
    _p_first: Any
    _p_forms: Any
    _p_gym_cards: Any
    _p_gym_trophies: Any
    _p_holder: Any
    _p_card_space: Any
    _p_items: Any
    _p_last_challenge: Any
    _p_lost: Any
    _p_medal_holder: Any
    _p_medal_space: Any
    _p_medals: Any
    _p_move: Any
    _p_named: Any
    _p_positions: Any
    _p_powers: Any
    _p_rare: Any
    _p_roll_bonus: Any
    _p_roll_extra: Any
    _p_roll_gold: Any
    _p_trophies: Any
    _p_turn: Any

    def __init__(self, box: Box, n: int) -> None:
        self.box, self.n = box, n
        self.scales = Scales.of(box)
        self.fields = field_table(box, n)
        self.size = observation_size(box, n)
        self._layout_store()
        self.index = [self._gather(o) for o in range(n)]
        self._out = [np.empty(self.size, dtype=np.float32) for _ in range(n)]
        self._phase_at, self._task_at = self.at["phase"], self.at["task"]
        self._steps_at = self.at["steps_left"]
        self._card_spaces = [sp for sp, kind in enumerate(box.kind_of) if kind in CARD_SPACES]
        self._supply_at, self._rolls_at = self.at["supply"], self.at["recent_rolls"]
        self._position_at = self.at["position"]
        top = box.max_sides
        # [result][sides] -> the two float32 entries a roll shows (result / top,
        # sides / top) as the store's bytes: the recent rolls are copied in as bytes
        self._roll_bytes = [
            [np.array((r / top, d / top), dtype=np.float32).tobytes() for d in range(top + 1)]
            for r in range(top + 1)
        ]
        self._rolls_bytes_at = self._rolls_at * self.store.itemsize
        self._rolls_width = 2 * RECENT_ROLLS * self.store.itemsize
        self._roll_pad = bytes(self._rolls_width)
        self._store_bytes = self.store.data.cast("B")  # the store's own memory
        self.invalidate()

    # ---- layout -------------------------------------------------------------------------

    def _layout_store(self) -> None:
        """Store offsets (absolute seat order): a pub block per pub field, seat
        fields as ``n x width``, holder fields with seat columns absolute, and
        ``space_named`` with one column per seat."""
        box, n = self.box, self.n
        self.at: dict[str, int] = {}
        at = 0
        for f in self.fields:
            self.at[f.name] = at
            if f.kind in ("seat", "self"):
                at += n * f.width
            elif f.name == "space_named":
                at += box.num_spaces * n
            else:
                at += item_count(box, f) * f.width
        self.store = np.zeros(at, dtype=np.float32)

    def _gather(self, o: int) -> np.ndarray:
        box, n = self.box, self.n
        idx: list[int] = []
        rot = [(o + r) % n for r in range(n)]
        for f in self.fields:
            base = self.at[f.name]
            if f.kind == "seat":
                for s in rot:
                    idx.extend(range(base + s * f.width, base + (s + 1) * f.width))
            elif f.kind == "self":
                idx.extend(range(base + o * f.width, base + (o + 1) * f.width))
            elif f.name in ("card_holder", "medal_holder"):
                for item in range(item_count(box, f)):
                    row = base + item * f.width
                    idx.extend((row, row + 1))
                    idx.extend(row + 2 + s for s in rot)
            elif f.name == "space_named":
                idx.extend(base + space * n + o for space in range(box.num_spaces))
            else:
                idx.extend(range(base, base + item_count(box, f) * f.width))
        assert len(idx) == self.size
        return np.asarray(idx, dtype=np.intp)

    # ---- encoding ---------------------------------------------------------------------------

    def encode(self, game: ArenaGame, seat: int) -> np.ndarray:
        """The observation of ``seat``, refreshing the store once per action
        applied. It is one buffer per seat, rewritten by the next call: copy it to
        keep it (the env's ``observe`` does).

        The refresh compares every source of every field with the copy of what
        the store shows, however many actions were applied since the last call:
        no shortcut assumes what one action can change (a shortcut for the steps
        of a move saved nothing measurable)."""
        version = game.version
        if game is not self._game or version != self._version:
            self.refresh(game)
            self._game, self._version = game, version
        out = self._out[seat]
        self.store.take(self.index[seat], out=out)
        return out  # the env copies it before handing it out

    def _write_move(self, g: ArenaGame) -> None:
        """The move's total and its two flags, if any of them changed."""
        move = (g.move_total, g.entered, g.stopped)
        if self._p_move != move:
            self._p_move = move
            st, base = self.store, self._steps_at
            st[base + 1] = min(1.0, g.move_total / self.scales.move)
            st[base + 2] = 1.0 if g.entered else 0.0
            st[base + 3] = 1.0 if g.stopped else 0.0

    def invalidate(self) -> None:
        """Forget the last game: the store is cleared and rebuilt in full at the next
        encode (after ``reset`` or ``load_state_dict``)."""
        self._game = None
        self._version = -1
        self.store[:] = 0.0
        self._p_phase = self._p_task = self._p_task_card = -1
        self._p_task_name: str | None = None
        self._p_task_args: list[int] | None = None
        self._p_rolls = self._p_steps = self._p_supply = -1
        self._p_counts = self._p_move = self._p_challenge = self._p_turn = None
        self._p_encounter = None
        self._p_last_challenge = None
        self._p_positions = [-1] * self.n
        none = None
        self._p_trophies = self._p_bonus = self._p_roll_bonus = self._p_roll_gold = none
        self._p_worlds_won: list[int] | None = None
        self._p_wishes: list[int] | None = None
        self._p_roll_extra = self._p_dark = self._p_first = self._p_lost = none
        self._p_forms = self._p_characters = self._p_medals = self._p_powers = none
        self._p_holder = self._p_defended = self._p_medal_holder = self._p_medal_space = none
        self._p_card_space = none
        self._p_items = self._p_gym_trophies = self._p_gym_cards = none
        self._p_kind = 0
        self._p_named = (-1, -1, -1)
        self._p_rare = None

    def refresh(self, g: ArenaGame) -> None:
        """Bring the store up to date with ``g``: each group of fields is rewritten
        only when what it shows changed since the last refresh (the last values
        are kept as copies: comparing lists costs far less than writing)."""
        st = self.store
        over = g.over
        phase = -1 if over else int(g.phase)
        if self._p_phase != phase:
            if self._p_phase >= 0:
                st[self._phase_at + self._p_phase] = 0.0
            if phase >= 0:
                st[self._phase_at + phase] = 1.0
            self._p_phase = phase
        task_name, task_args = g.task, g.task_args
        if self._p_task_name != task_name or self._p_task_args != task_args:
            self._p_task_name, self._p_task_args = task_name, list(task_args)
            self._write_task(g)
        if self._p_supply != g.supply:
            self._p_supply = g.supply
            st[self._supply_at] = g.supply / self.box.trophies
        counts = (g.rounds, len(g.medal_stack), *g.medal_supply)
        if self._p_counts != counts:
            self._p_counts = counts
            self._write_counts(g)
        if self._p_steps != g.steps_left:
            self._p_steps = g.steps_left
            st[self._steps_at] = min(1.0, g.steps_left / self.scales.move)
        self._write_move(g)
        challenge = (g.ch_kind, g.ch_item, g.ch_spent[0], g.ch_spent[1], g.ch_defender,
                     g.forced_target, task_name, task_args)  # fmt: skip
        if self._p_challenge != challenge:  # (the task names the player a pick places)
            self._p_challenge = (*challenge[:7], list(task_args))
            self._write_challenge(g)
        if self._p_encounter != g.last_encounter:
            self._p_encounter = list(g.last_encounter)
            self._write_last_encounter(g)
        lc = g.last_challenge
        shown = None if lc is None else (lc["success"], lc["total"], lc.get("defender_total", 0))
        if self._p_last_challenge != shown:  # the three values it shows
            self._p_last_challenge = shown
            self._write_last_challenge(g)
        rolls = g.log_start + len(g.roll_log)
        if self._p_rolls != rolls:
            self._write_recent_rolls(g, rolls)
        turn = None if over else (g.turn_seat, g.actor)
        if self._p_turn != turn:
            self._write_turn(turn)
        if g.positions != self._p_positions:
            self._write_positions(g)
        if g.trophies != self._p_trophies or g.bonus_trophies != self._p_bonus:
            self._write_trophies(g)
        if g.wishes != self._p_wishes:
            self._write_wishes(g)
        if g.worlds_won != self._p_worlds_won:
            self._p_worlds_won = g.worlds_won.copy()
            win = self.box.win_worlds
            self._put(self.at["worlds_won"], (min(1.0, w / win) for w in g.worlds_won))
        rare = (
            g.roll_bonus, g.roll_gold, g.roll_extra, g.dark, g.first_turn, g.lost_turns,
            g.forms, g.characters, g.medals, g.powers, g.card_holder, g.defended,
            g.card_space, g.medal_holder, g.medal_space, g.space_item, g.gym_trophies,
            g.gym_cards,
        )  # fmt: skip
        if rare != self._p_rare:  # one comparison for the groups that seldom change
            self._refresh_rare(g)
            # the copies each group keeps of what it shows, in the same order
            self._p_rare = (
                self._p_roll_bonus, self._p_roll_gold, self._p_roll_extra, self._p_dark,
                self._p_first, self._p_lost, self._p_forms, self._p_characters, self._p_medals,
                self._p_powers, self._p_holder, self._p_defended, self._p_card_space,
                self._p_medal_holder, self._p_medal_space, self._p_items, self._p_gym_trophies,
                self._p_gym_cards,
            )  # fmt: skip

    def _write_task(self, g: ArenaGame) -> None:
        """The task one-hot and the card a slide return is about (both follow the
        task and its arguments)."""
        st, at = self.store, self.at
        task = TASK_INDEX[g.task] if g.task else -1
        if self._p_task != task:
            if self._p_task >= 0:
                st[self._task_at + self._p_task] = 0.0
            if task >= 0:
                st[self._task_at + task] = 1.0
            self._p_task = task
        task_card = g.task_args[0] if g.task == "slide_return" and g.task_args else -1
        if self._p_task_card != task_card:
            if self._p_task_card >= 0:
                st[at["task_card"] + self._p_task_card] = 0.0
            if task_card >= 0:
                st[at["task_card"] + task_card] = 1.0
            self._p_task_card = task_card

    def _write_counts(self, g: ArenaGame) -> None:
        """Rounds, the medal supply and the medal stack's size."""
        st, box = self.store, self.box
        base = self.at["round"]
        st[base] = g.rounds / g.config.max_rounds
        for i in range(3):
            st[base + 2 + i] = g.medal_supply[i] / max(1, box.medal_supply[i])
        st[base + 5] = len(g.medal_stack) / max(1, len(box.medal_cards))

    def _write_last_encounter(self, g: ArenaGame) -> None:
        st, base = self.store, self.at["last_encounter"]
        st[base : base + 17] = 0.0
        if g.last_encounter:
            st[base + g.last_encounter[0]] = 1.0
            st[base + 9 + g.last_encounter[1] - 1] = 1.0

    def _write_turn(self, turn: tuple[int, int] | None) -> None:
        """The seat on turn and the seat to act (none once the game is over)."""
        st, base = self.store, self.at["roles"]
        if self._p_turn is not None:
            st[base + self._p_turn[0] * 5] = st[base + self._p_turn[1] * 5 + 1] = 0.0
        if turn is not None:
            st[base + turn[0] * 5] = st[base + turn[1] * 5 + 1] = 1.0
        self._p_turn = turn

    def _write_positions(self, g: ArenaGame) -> None:
        st, spaces = self.store, self.box.num_spaces
        base, old = self._position_at, self._p_positions
        for s, pos in enumerate(g.positions):
            if pos != old[s]:
                if old[s] >= 0:
                    st[base + s * spaces + old[s]] = 0.0
                if pos >= 0:
                    st[base + s * spaces + pos] = 1.0
        self._p_positions = g.positions.copy()

    def _write_wishes(self, g: ArenaGame) -> None:
        """Who has wished (every seat sees it) and each seat's own wish (in its
        own block of the ``self`` field: no other seat's vector gathers it)."""
        st, h = self.store, self.box.num_characters
        wished, own = self.at["wished"], self.at["own_wish"]
        st[own : own + self.n * h] = 0.0
        for s, char in enumerate(g.wishes):
            st[wished + s] = 1.0 if char >= 0 else 0.0
            if char >= 0:
                st[own + s * h + char] = 1.0
        self._p_wishes = g.wishes.copy()

    def _write_trophies(self, g: ArenaGame) -> None:
        st, base, total = self.store, self.at["trophies"], self.box.trophies
        for s in range(self.n):
            st[base + 2 * s] = g.trophies[s] / total
            st[base + 2 * s + 1] = g.bonus_trophies[s] / total
        self._p_trophies, self._p_bonus = g.trophies.copy(), g.bonus_trophies.copy()

    def _put(self, at: int, values: Iterable[float]) -> None:
        """Write ``values`` from store offset ``at`` on, packed as float32 (the
        same rounding as numpy's) straight into the store's memory: far cheaper
        than numpy's conversion of a list."""
        packed = array("f", values).tobytes()
        start = at * 4
        self._store_bytes[start : start + len(packed)] = packed

    def _refresh_rare(self, g: ArenaGame) -> None:
        """The groups that seldom change, each rewritten if it did."""
        at, box, n = self.at, self.box, self.n
        sc = self.scales
        if (
            g.roll_bonus != self._p_roll_bonus
            or g.roll_gold != self._p_roll_gold
            or g.roll_extra != self._p_roll_extra
        ):
            self._p_roll_bonus, self._p_roll_gold = g.roll_bonus.copy(), g.roll_gold.copy()
            self._p_roll_extra = g.roll_extra.copy()
            self._put(
                at["roll_prep"],
                [
                    v
                    for s in range(n)
                    for v in (
                        min(1.0, g.roll_bonus[s] / sc.bonus),
                        float(g.roll_gold[s]),
                        min(1.0, g.roll_extra[s] / sc.extra),
                    )
                ],
            )
        if g.dark != self._p_dark or g.first_turn != self._p_first or g.lost_turns != self._p_lost:
            self._p_dark, self._p_first = g.dark.copy(), g.first_turn.copy()
            self._p_lost = g.lost_turns.copy()
            dark = box.dark_matter_turns + 1
            self._put(
                at["status"],
                [
                    v
                    for s in range(n)
                    for v in (float(g.lost_turns[s] > 0), g.dark[s] / dark, float(g.first_turn[s]))
                ],
            )
        if g.forms != self._p_forms or g.characters != self._p_characters:
            self._p_forms, self._p_characters = g.forms.copy(), g.characters.copy()
            self._write_identity(g)
            self._p_items = None  # which cards name whose character: rewrite every space
        if g.medals != self._p_medals:
            self._p_medals = [m.copy() for m in g.medals]
            self._put(at["medals"], (float(v) for m in g.medals for v in m))
        if g.powers != self._p_powers:
            self._p_powers = [p.copy() for p in g.powers]
            per = box.gym_power_cards
            self._put(at["gym_powers"], (v / per for p in g.powers for v in p))
        if (
            g.card_holder != self._p_holder
            or g.defended != self._p_defended
            or g.card_space != self._p_card_space
        ):
            self._write_cards(g)
        if g.medal_holder != self._p_medal_holder or g.medal_space != self._p_medal_space:
            self._write_medal_cards(g)
        if g.space_item != self._p_items:
            self._write_spaces(g)
        if g.gym_trophies != self._p_gym_trophies or g.gym_cards != self._p_gym_cards:
            self._write_corners(g)

    def _write_recent_rolls(self, g: ArenaGame, rolls: int) -> None:
        """The last rolls, newest first, copied into the store's memory in one
        piece: a roll's two float32 values are taken as bytes from a table by
        (result, sides), and zeros fill the places of rolls not made yet."""
        table = self._roll_bytes
        shown = b"".join([table[roll[3]][roll[2]] for roll in reversed(g.roll_log[-RECENT_ROLLS:])])
        at, width = self._rolls_bytes_at, self._rolls_width
        self._store_bytes[at : at + width] = shown + self._roll_pad[len(shown) :]
        self._p_rolls = rolls

    def _write_challenge(self, g: ArenaGame) -> None:
        """The challenge under way and the seats it (or a pick) names."""
        st, at, box = self.store, self.at, self.box
        base = at["challenge"]
        kind = CHALLENGE_INDEX[g.ch_kind]
        if kind != self._p_kind:
            if self._p_kind > 0:
                st[base + self._p_kind - 1] = 0.0
            if kind > 0:
                st[base + kind - 1] = 1.0
            self._p_kind = kind
        need = 0.0
        if kind and g.ch_kind != "standard":
            need = g.challenge_need(g.ch_kind, g.ch_item) / self.scales.need
        st[at["challenge_need"]] = need
        st[at["challenge_spent"]] = g.ch_spent[0] / box.trophies
        st[at["challenge_spent"] + 1] = g.ch_spent[1] / box.trophies
        roles = at["roles"]
        placed = g.task_args[0] if g.task == "wormhole_place" and g.task_args else -1
        named = (g.ch_defender, g.forced_target, placed)
        for column, (old, seat) in enumerate(zip(self._p_named, named, strict=True), start=2):
            if old != seat:
                if old >= 0:
                    st[roles + old * 5 + column] = 0.0
                if seat >= 0:
                    st[roles + seat * 5 + column] = 1.0
        self._p_named = named

    def _write_last_challenge(self, g: ArenaGame) -> None:
        lc, total, st = g.last_challenge, self.scales.total, self.store
        base = self.at["last_challenge"]
        if lc is None:
            st[base] = st[base + 1] = st[base + 2] = 0.0
            return
        st[base] = 1.0 if lc["success"] else 0.0
        st[base + 1] = min(1.0, max(0.0, lc["total"] / total))
        st[base + 2] = min(1.0, max(0.0, lc.get("defender_total", 0) / total))

    def _write_identity(self, g: ArenaGame) -> None:
        box, st = self.box, self.store
        width = 3 + box.num_characters
        base = self.at["identity"]
        st[base : base + self.n * width] = 0.0
        for s in range(self.n):
            if g.forms[s] >= 0:  # (none before its character is settled at setup)
                st[base + s * width + g.forms[s]] = 1.0
            if g.characters[s] >= 0:
                st[base + s * width + 3 + g.characters[s]] = 1.0

    def _write_cards(self, g: ArenaGame) -> None:
        """Rewrite the rows of the cards whose holder, defended mark or space changed
        (a card can leave the board and come back on another space between two
        refreshes: same holder, other space)."""
        box, st, n = self.box, self.store, self.n
        width = 2 + n
        base, info = self.at["card_holder"], self.at["card_info"]
        last = max(1, box.num_spaces - 1)
        old_holder, old_defended, old_space = self._p_holder, self._p_defended, self._p_card_space
        if old_holder is None:
            changed: Any = range(box.num_cards)
        else:  # find the few that moved in one pass
            changed = changed_indices(
                (g.card_holder, old_holder), (g.defended, old_defended), (g.card_space, old_space)
            )
        for card in changed:
            holder = g.card_holder[card]
            row = base + card * width
            st[row : row + width] = 0.0
            st[row + (0 if holder == BOARD else 1 if holder in (BOX, DISCARD) else 2 + holder)] = 1
            st[info + card * 2] = float(g.defended[card] >= 0)
            st[info + card * 2 + 1] = g.card_space[card] / last if holder == BOARD else 0.0
        self._p_holder, self._p_defended = g.card_holder.copy(), g.defended.copy()
        self._p_card_space = g.card_space.copy()

    def _write_medal_cards(self, g: ArenaGame) -> None:
        """Rewrite the rows of the medal cards that moved."""
        box, st, n = self.box, self.store, self.n
        width = 2 + n
        base, space_at = self.at["medal_holder"], self.at["medal_space"]
        last = max(1, box.num_spaces - 1)
        old_holder, old_space = self._p_medal_holder, self._p_medal_space
        if old_holder is None:
            changed: Any = range(len(box.medal_cards))
        else:
            changed = changed_indices((g.medal_holder, old_holder), (g.medal_space, old_space))
        for k in changed:
            holder = g.medal_holder[k]
            row = base + k * width
            st[row : row + width] = 0.0
            st[row + (0 if holder == IN_STACK else 1 if holder == ON_BOARD else 2 + holder)] = 1.0
            st[space_at + k] = g.medal_space[k] / last if holder == ON_BOARD else 0.0
        self._p_medal_holder, self._p_medal_space = g.medal_holder.copy(), g.medal_space.copy()

    def _write_spaces(self, g: ArenaGame) -> None:
        """Rewrite the spaces whose card changed (every space after a character change)."""
        box, st, n = self.box, self.store, self.n
        item_at, need_at = self.at["space_item"], self.at["space_need"]
        named_at = self.at["space_named"]
        names = [box.characters[c].name if c >= 0 else None for c in g.characters]
        c_count = box.num_cards
        printed = g.config.world_challenge == "printed"
        old = self._p_items
        if old is None:
            changed: Any = self._card_spaces
        else:
            changed = changed_indices((g.space_item, old))
        for space in changed:
            item = g.space_item[space]
            st[item_at + space * 4 : item_at + space * 4 + 4] = 0.0
            st[named_at + space * n : named_at + space * n + n] = 0.0
            if item < 0:
                st[item_at + space * 4] = 1.0
                need = 0.0
            elif item < c_count:
                card = box.cards[item]
                st[item_at + space * 4 + (2 if card.is_world else 1)] = 1.0
                value = card.number if card.is_world and printed else card.challenge
                need = value / self.scales.need
                for s, name in enumerate(names):
                    if card.character == name:
                        st[named_at + space * n + s] = 1.0
            else:
                st[item_at + space * 4 + 3] = 1.0
                need = box.medal_target / self.scales.need
            st[need_at + space] = need
        self._p_items = g.space_item.copy()

    def _write_corners(self, g: ArenaGame) -> None:
        """Rewrite the corners whose trophies or power cards changed."""
        box, st = self.box, self.store
        gyms = len(box.gyms)
        width = gyms + 2
        base = self.at["corners"]
        old_trophies, old_cards = self._p_gym_trophies, self._p_gym_cards
        for corner, gym in enumerate(g.gym_at):
            if (
                old_trophies is not None
                and old_trophies[corner] == g.gym_trophies[corner]
                and old_cards[gym] == g.gym_cards[gym]
            ):
                continue
            row = base + corner * width
            st[row : row + width] = 0.0
            st[row + gym] = 1.0
            st[row + gyms] = g.gym_trophies[corner] / max(1, box.gym_trophies)
            st[row + gyms + 1] = g.gym_cards[gym] / box.gym_power_cards
        self._p_gym_trophies, self._p_gym_cards = g.gym_trophies.copy(), g.gym_cards.copy()


# ---- the view -------------------------------------------------------------------------------


def place_name(holder: int, space: int, agents: list[str], medal: bool = False) -> str:
    """Where a card is, in words: ``space 17``, an agent id, ``box``, ``discarded``,
    ``stack``."""
    if holder >= 0:
        return agents[holder]
    if holder == (ON_BOARD if medal else BOARD):
        return f"space {space}"
    if medal:
        return "stack"
    return "box" if holder == BOX else "discarded"


def die_text(sides: int) -> str:
    return f"d{sides}"


def _view_tables(box: Box) -> tuple[list[tuple[Any, ...]], list[str], list[str], list[str]]:
    """What the view shows of the box that no game changes, worked out once per
    box: per space its id, a template entry (every key, its fixed values, None for the
    rest), its ``at`` and ``next``, whether it holds cards and its corner index
    (or -1); the names of the cards and medal cards; ``space <id>`` per space."""
    tables = box.__dict__.get("_view_tables")
    if tables is None:
        spaces = []
        for sp in box.spaces:
            # every space has every key (None where it does not apply): one schema
            template = {
                "id": sp.id, "kind": sp.kind, "region": sp.region, "at": None, "next": None,
                "players": None, "entrance": sp.entrance, "step": sp.step, "card": None,
                "medal_card": None, "challenge": None, "corner": None, "gym": None,
                "gym_trophies": None, "gym_power_cards": None,
            }  # fmt: skip
            corner = box.corners.index(sp.id) if sp.kind == "gym" else -1
            holds_cards = sp.kind in ("maneuver", "world")
            spaces.append((sp.id, template, sp.at, sp.next, holds_cards, corner))
        tables = box.__dict__["_view_tables"] = (
            spaces,
            [c.name for c in box.cards],
            [m.name for m in box.medal_cards],
            [f"space {i}" for i in range(box.num_spaces)],
        )
    return tables


SCENARIO_VIEW_KEYS = {
    "characters": "character", "forms": "form", "positions": "position",
    "trophies": "trophies", "maneuvers": "maneuvers", "worlds": "worlds", "medals": "medals",
    "gym_powers": "gym_powers", "medal_cards": "medal_cards",
}  # fmt: skip
"""The view's reset-scenario keys, in order, and the player field each shows."""


def _card_needs(g: ArenaGame) -> list[int]:
    """Each card's challenge number on the board (``g.challenge_need`` of its
    kind), worked out once per box and ``world_challenge`` option."""
    key = "_card_needs_" + g.config.world_challenge
    needs = g.box.__dict__.get(key)
    if needs is None:
        needs = g.box.__dict__[key] = [g.challenge_need(c.kind, c.id) for c in g.box.cards]
    return needs


DIE_TEXTS = tuple(die_text(sides) for sides in range(MAX_SIDES + 1))
"""``d<sides>`` for every die a box may have."""


def game_view(g: ArenaGame, seat: int, agents: list[str]) -> dict[str, Any]:
    """What ``seat`` may see (everything but the medal stack's order and forced
    dice), in words, ids and card names, as JSON types: enough to draw the
    board (space ids, squares, the graph, what lies on each space) from it alone."""
    box = g.box
    _, card_names, medal_names, space_names = _view_tables(box)

    def who(s: int) -> str | None:
        return agents[s] if s >= 0 else None

    spaces = _space_entries(g, agents)
    players = _player_entries(g, agents)
    # the reset scenario's keys, by agent (the same objects as in ``players``)
    scenario: dict[str, dict[str, Any]] = {
        key: {
            agent: player[field_]
            for agent, player in players.items()
            if player[field_] is not None  # (no character yet during setup's wishes)
        }
        for key, field_ in SCENARIO_VIEW_KEYS.items()
    }
    challenge = _challenge_entry(g, agents)
    return {
        "game": "arena",
        "agent": agents[seat],
        "phase": PHASE_NAMES[g.phase],
        "task": g.task or None,
        "task_text": TASKS[g.task].text if g.task else None,
        "task_card": box.cards[g.task_args[0]].name
        if g.task == "slide_return" and g.task_args
        else None,
        "task_player": who(g.task_args[0]) if g.task == "wormhole_place" and g.task_args else None,
        "to_act": None if g.over else agents[g.actor],
        "on_turn": None if g.over else agents[g.turn_seat],
        "wish": _own_wish(g, seat),
        "wish_choices": _wish_choices(g, seat),
        "round": g.rounds,
        "max_rounds": g.config.max_rounds,
        "first_player": agents[g.first_player],
        "steps_left": g.steps_left,
        "move_total": g.move_total,
        "entered": g.entered,
        "stopped": g.stopped,
        "forced_target": who(g.forced_target),
        "players": players,
        # the reset scenario's keys, with the same names and forms: a view's
        # values given back to reset(options=...) set up this table again
        **scenario,
        "gyms": [box.gyms[gym].name for gym in g.gym_at],
        "turn": g.rounds + 1,
        "board": {
            "spaces": spaces,
            "corners": list(box.corners),
            "portals": list(box.portals),
            "slide_ends": list(box.slide_ends),
            "portal_front": box.portal_front,
            "portal_exit_outside": box.portal_exit_outside,
            "portal_exit_inside": box.portal_exit_inside,
        },
        "cards": _card_places(g, agents, card_names, space_names),
        "medal_card_places": _medal_card_places(g, agents, medal_names, space_names),
        "medal_stack": len(g.medal_stack),
        "supply": g.supply,
        "medal_supply": dict(zip(MEDALS, g.medal_supply, strict=True)),
        "challenge": challenge,
        "last_challenge": challenge_record(g, agents),
        "last_encounter": encounter_record(g),
        "last_rolls": [
            {"player": agents[r[0]], "purpose": r[1], "die": DIE_TEXTS[r[2]], "result": r[3]}
            for r in g.rolls_since(seat)
        ],
        "over": g.over,
        "winners": [agents[s] for s in g.winners_] if g.over else [],
        "win_reason": g.win_reason or None,
        "options": {
            "max_rounds": g.config.max_rounds,
            "world_challenge": g.config.world_challenge,
            "dark_matter": g.config.dark_matter,
            "nova_invazorz": g.config.nova_invazorz,
            "fifth_world": g.config.fifth_world,
            "data": g.config.data,
        },
    }


def _own_wish(g: ArenaGame, seat: int) -> str | None:
    """The character ``seat`` wished for this round of setup's wishes (its own
    only: the others' stay hidden until all have wished), or None."""
    wish = g.wishes[seat]
    return g.box.characters[wish].name if wish >= 0 else None


def _wish_choices(g: ArenaGame, seat: int) -> list[str]:
    """During setup's wishes, the characters ``seat`` may wish for (public: the
    characters taken and its scenario form); empty otherwise."""
    if g.over or g.phase != Phase.WISH or g.characters[seat] >= 0:
        return []
    return [g.box.characters[c].name for c in wish_pool(g, seat)]


def _space_entries(g: ArenaGame, agents: list[str]) -> list[dict[str, Any]]:
    """The view's ``board.spaces``: each space's entry, new dicts and lists."""
    box = g.box
    c_count = box.num_cards
    static, card_names, medal_names, _ = _view_tables(box)
    needs = _card_needs(g)
    here: list[list[str]] = [[] for _ in static]
    for s, pos in enumerate(g.positions):
        if pos >= 0:
            here[pos].append(agents[s])
    space_item, gym_at = g.space_item, g.gym_at
    spaces = []
    for sid, template, at, nxt, holds_cards, corner in static:
        entry = template.copy()  # a new dict with its own new lists: the caller's to keep
        entry["at"], entry["next"], entry["players"] = list(at), list(nxt), here[sid]
        if holds_cards:
            item = space_item[sid]
            if 0 <= item < c_count:
                entry["card"] = card_names[item]
                entry["challenge"] = needs[item]
            elif item >= c_count:
                entry["medal_card"] = medal_names[item - c_count]
                entry["challenge"] = box.medal_target
        elif corner >= 0 and not gym_at:  # before the deal: no gym there yet
            entry["corner"], entry["gym"] = corner + 1, None
            entry["gym_trophies"], entry["gym_power_cards"] = g.gym_trophies[corner], 0
        elif corner >= 0:
            gym = gym_at[corner]
            entry["corner"], entry["gym"] = corner + 1, box.gyms[gym].name
            entry["gym_trophies"], entry["gym_power_cards"] = (
                g.gym_trophies[corner],
                g.gym_cards[gym],
            )
        spaces.append(entry)
    return spaces


def _player_entries(g: ArenaGame, agents: list[str]) -> dict[str, dict[str, Any]]:
    """The view's ``players``: each agent's entry."""
    box = g.box
    _, card_names, medal_names, _ = _view_tables(box)
    held_medal_cards: list[list[str]] = [[] for _ in agents]
    for k, h in enumerate(g.medal_holder):
        if h >= 0:
            held_medal_cards[h].append(medal_names[k])
    players: dict[str, dict[str, Any]] = {}
    gym_names = [gym.name for gym in box.gyms]
    for s, agent in enumerate(agents):
        char = box.characters[g.characters[s]] if g.characters[s] >= 0 else None
        form = g.forms[s]
        worlds = sorted(g.worlds_of[s])
        medals = g.medals[s]
        players[agent] = {
            "character": char.name if char else None,
            "form": FORMS[form] if form >= 0 else None,
            "bonus": dict(char.bonus_in(form).__dict__) if char else None,
            "wished": g.wishes[s] >= 0,
            "position": g.positions[s],
            "trophies": g.trophies[s],
            "star_cluster_trophies": g.bonus_trophies[s],
            "medals": [MEDALS[i] for i in range(3) if medals[i]],
            "maneuvers": [card_names[c] for c in sorted(g.maneuvers_of[s])],
            "worlds": [card_names[c] for c in worlds],
            "defended_worlds": [card_names[c] for c in worlds if g.defended[c] == s],
            "gym_powers": [
                gym_names[gym] for gym, count in enumerate(g.powers[s]) for _ in range(count)
            ],
            "medal_cards": held_medal_cards[s],
            "lost_turns": g.lost_turns[s],
            "upside_down": g.upside_down[s],
            "dark_matter_turns": g.dark[s],
            "first_turn": g.first_turn[s],
            "worlds_won": g.worlds_won[s],
            "start_corner": g.start_corner[s],
            "roll_prep": {
                "bonus": g.roll_bonus[s],
                "gold_reading": g.roll_gold[s],
                "extra_dice": g.roll_extra[s],
                "medal_dice": [medal_names[k] for k in g.roll_cards[s]],
            },
        }
    return players


def _challenge_entry(g: ArenaGame, agents: list[str]) -> dict[str, Any] | None:
    """The view's ``challenge``: the challenge under way, or None."""
    if not g.ch_kind:
        return None
    box = g.box
    return {
        "kind": g.ch_kind,
        "challenger": agents[g.turn_seat],
        "defender": agents[g.ch_defender] if g.ch_defender >= 0 else None,
        "item": box.medal_cards[g.ch_item].name if g.ch_kind == "medal"
        else box.cards[g.ch_item].name,
        "need": None if g.ch_kind == "standard" else g.challenge_need(g.ch_kind, g.ch_item),
        "spent": list(g.ch_spent),
    }  # fmt: skip


def bot_view(g: ArenaGame, seat: int, agents: list[str]) -> dict[str, Any]:
    """The keys of :func:`game_view` the heuristic bot reads, with the same values
    (built by the same helpers), and none of the rest: a bot deciding in training
    need not pay for card places, rolls and records it never reads."""
    return {
        "agent": agents[seat],
        "phase": PHASE_NAMES[g.phase],
        "task": g.task or None,
        "on_turn": None if g.over else agents[g.turn_seat],
        "wish_choices": _wish_choices(g, seat),
        "steps_left": g.steps_left,
        "players": _player_entries(g, agents),
        "turn": g.rounds + 1,
        "board": {"spaces": _space_entries(g, agents), "corners": list(g.box.corners)},
        "challenge": _challenge_entry(g, agents),
        "options": {
            "max_rounds": g.config.max_rounds,
            "world_challenge": g.config.world_challenge,
            "dark_matter": g.config.dark_matter,
            "nova_invazorz": g.config.nova_invazorz,
            "fifth_world": g.config.fifth_world,
            "data": g.config.data,
        },
    }


def _card_places(
    g: ArenaGame, agents: list[str], names: list[str], space_names: list[str]
) -> dict[str, str]:
    """Every card's place in words, as :func:`place_name` says it, in one pass."""
    holders, spaces = g.card_holder, g.card_space
    out = {}
    for card, name in enumerate(names):
        h = holders[card]
        if h >= 0:
            out[name] = agents[h]
        elif h == BOARD:
            out[name] = space_names[spaces[card]]
        else:
            out[name] = "box" if h == BOX else "discarded"
    return out


def _medal_card_places(
    g: ArenaGame, agents: list[str], names: list[str], space_names: list[str]
) -> dict[str, str]:
    """Every medal card's place in words, as :func:`place_name` says it."""
    holders, spaces = g.medal_holder, g.medal_space
    out = {}
    for k, name in enumerate(names):
        h = holders[k]
        out[name] = agents[h] if h >= 0 else space_names[spaces[k]] if h == ON_BOARD else "stack"
    return out


def challenge_record(g: ArenaGame, agents: list[str]) -> dict[str, Any] | None:
    lc = g.last_challenge
    if lc is None:
        return None
    box = g.box
    item = box.medal_cards[lc["item"]].name if lc["kind"] == "medal" else box.cards[lc["item"]].name
    out = {
        "challenger": agents[lc["challenger"]],
        "kind": lc["kind"],
        "item": item,
        "defender": agents[lc["defender"]] if lc["defender"] >= 0 else None,
        "dice": list(lc["dice"]),
        "total": lc["total"],
        "need": lc["need"] if lc["kind"] != "standard" else None,
        "success": lc["success"],
    }
    if "defender_total" in lc:
        out["defender_dice"] = list(lc["defender_dice"])
        out["defender_total"] = lc["defender_total"]
    return out


def encounter_record(g: ArenaGame) -> dict[str, Any] | None:
    if not g.last_encounter:
        return None
    table, result = g.last_encounter
    if table == 0:
        return {"table": "Nebula Slide", "roll": result, "result": SLIDE_RESULTS[result]}
    return {
        "table": PORTAL_TABLES[table],
        "table_roll": table,
        "roll": result,
        "result": PORTAL_ROWS[(table, (result + 1) // 2)],
    }


# ---- the text board -----------------------------------------------------------------------------

KIND_LETTER = {"gym": "G", "maneuver": "M", "world": "W", "portal": "P", "slide": "S",
               "entrance": "E"}  # fmt: skip


def render_text(view: dict[str, Any]) -> str:
    """The board as text from a view: each square shows its kind and space id and,
    below, the seats on it (0-5) or ``*`` for a card, ``m`` for a medal card;
    then the players (the viewing seat marked ``(you)``), the cards on the spaces,
    and the rolls made since the viewing seat's last step."""
    spaces = view["board"]["spaces"]
    rows = 1 + max(s["at"][0] for s in spaces)
    cols = 1 + max(s["at"][1] for s in spaces)
    grid = [["      " for _ in range(cols)] for _ in range(2 * rows)]
    for s in spaces:
        r, c = s["at"]
        grid[2 * r][c] = f"{KIND_LETTER[s['kind']]}{s['id']:<3}  "
        seats = "".join(p.split("_")[1] for p in s["players"])
        mark = "*" if s.get("card") else "m" if s.get("medal_card") else " "
        grid[2 * r + 1][c] = f"{(seats or mark):<6}"[:6]
    players = view["players"]
    lines = [
        f"Berzerkerbirdz Extreme Sports Arena  round {view['round'] + 1}/{view['max_rounds']}  "
        f"phase {view['phase']}  to act {view['to_act']}  supply {view['supply']} trophies",
    ]
    lines += ["".join(row).rstrip() for row in grid]
    for agent, p in players.items():
        mark = ">" if agent == view["to_act"] else " "
        extras = []
        if p["upside_down"]:
            extras.append("upside down")
        if p["dark_matter_turns"]:
            extras.append(f"dark matter {p['dark_matter_turns']}")
        you = " (you)" if agent == view["agent"] else ""
        if p["character"] is None:
            wish = view["wish"] if agent == view["agent"] else None
            said = f"wished for {wish}" if wish else "has wished" if p["wished"] else "to wish"
            lines.append(f"{mark} {agent}{you}: no character yet ({said})")
            continue
        lines.append(
            f"{mark} {agent}{you}: {p['character']} ({p['form']}) on {p['position']}  "
            f"trophies {p['trophies']}  medals {','.join(p['medals']) or '-'}  "
            f"maneuvers {len(p['maneuvers'])}  worlds {len(p['worlds'])} "
            f"(defended {len(p['defended_worlds'])})"
            + (f"  [{'; '.join(extras)}]" if extras else "")
        )
    cards = [
        f"{s['id']}: {s['card'] or 'medal card ' + s['medal_card']} ({s['challenge']})"
        for s in spaces
        if s.get("card") or s.get("medal_card")
    ]
    lines.append("on the board: " + ", ".join(cards))
    if view["last_encounter"]:
        e = view["last_encounter"]
        lines.append(f"last encounter: {e['table']} {e['roll']}: {e['result']}")
    if view["last_challenge"]:
        lc = view["last_challenge"]
        lines.append(
            f"last challenge: {lc['challenger']} for {lc['item']} ({lc['kind']}) rolled "
            f"{lc['dice']} = {lc['total']}: {'won' if lc['success'] else 'failed'}"
        )
    if view["last_rolls"]:
        rolls = [
            f"{r['player']} {r['purpose']} {r['die']}={r['result']}" for r in view["last_rolls"]
        ]
        lines.append("rolls since your last step: " + ", ".join(rolls))
    if view["over"]:
        lines.append(f"game over ({view['win_reason']}); winners: {', '.join(view['winners'])}")
    return "\n".join(lines)


# -- table talk: what a seat is told happened, from its views ---------------------

MOVE_WORDS = {"pick_player": "names "}
"""Words before a move's string, by the phase it is made in, where the string alone
reads oddly in narration (an effect naming a player: ``player_1 names player_0``)."""


def space_text(space: dict[str, Any]) -> str:
    """``space 17 (maneuver Kickflip Kaboom, 11)``: a board space with what lies on it."""
    what = space["gym"] or space["card"] or space["medal_card"] or ""
    need = f", {space['challenge']}" if space["challenge"] is not None else ""
    return f"space {space['id']} ({space['kind']}{' ' + what if what else ''}{need})"


def narrate_changes(
    old: dict[str, Any],
    new: dict[str, Any],
    who: Callable[[str], str],
    last_move: tuple[str, str] | None,
) -> list[str]:
    """What changed between two of a seat's views (``env.view``), in words, for
    terminal play and replays: every roll, move, transformation, medal and world
    count, encounter and challenge with its dice. Only the views are read, so
    nothing is told that the seat may not see; ``who`` names an agent for that
    seat; ``last_move`` is unused here."""
    lines = []
    rolls, before = new["last_rolls"], old["last_rolls"]
    fresh = rolls[len(before) :] if rolls[: len(before)] == before else rolls
    for r in fresh:
        lines.append(f"{who(r['player'])} rolls {r['die']} ({r['purpose']}): {r['result']}")
    spaces = new["board"]["spaces"]
    for agent, p in new["players"].items():
        was = old["players"][agent]
        if p["position"] != was["position"] and p["position"] >= 0:
            lines.append(f"{who(agent)} to {space_text(spaces[p['position']])}")
        if p["wished"] and not was["wished"]:
            lines.append(f"{who(agent)} wishes for a character (hidden until all have wished)")
        if p["character"] is not None and (
            p["form"] != was["form"] or p["character"] != was["character"]
        ):
            lines.append(f"{who(agent)} is now {p['character']} ({p['form']})")
        for medal in p["medals"]:
            if medal not in was["medals"]:
                lines.append(f"{who(agent)} gains a {medal} medal")
        if len(p["worlds"]) != len(was["worlds"]):
            lines.append(f"{who(agent)} holds {len(p['worlds'])} world(s)")
    encounter = new.get("last_encounter")
    if encounter and encounter != old.get("last_encounter"):
        lines.append(f"encounter, {encounter['table']} {encounter['roll']}: {encounter['result']}")
    challenge = new.get("last_challenge")
    if challenge and challenge != old.get("last_challenge"):
        lines.append(_challenge_text(challenge, who))
    return lines


def _challenge_text(c: dict[str, Any], who: Callable[[str], str]) -> str:
    """A challenge with its dice, total, what it needed and the verdict."""
    against = f"{who(c['defender'])}'s {c['item']}" if c["defender"] else f"the {c['item']}"
    dice = "+".join(str(d) for d in c["dice"])
    text = f"{who(c['challenger'])} challenges for {against} ({c['kind']}): {dice}"
    text += f" = {c['total']}"
    if "defender_total" in c:
        text += f" against {c['defender_total']}"
    elif c["need"] is not None:
        text += f", needs {c['need']}"
    return text + (": won" if c["success"] else ": failed")
