"""Observation vectors of Astrobirdz, kept up to date incrementally.

Every observation is a fixed permutation of one shared store: public fields
are written once in absolute seat order, each seat's private fields in its own
block, and each observer's vector is a single gather ``store[index[seat]]``
that rotates the per-seat fields to the observer's point of view (itself
first, then its left neighbour, ...). The rules engine's event log says what
changed after each action, so a played card costs a handful of writes instead
of a rebuild; deals, passes and trades (a few times a turn) rebuild the store.
Each event is applied on its own or rewrites its fields from the engine (a
finished trick rewrites every finished trick of the turn), so the store is the
same however many actions were applied between two observations.

The field table (:func:`field_table`) is the single description of the
layout; the env's documentation prints the same table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import data
from .actions import NUM_TRICKS
from .basics import Phase, bits, trick_trump
from .rules import (
    EV_ASTRO,
    EV_CHOOSE,
    EV_GUESS,
    EV_PARTNER,
    EV_PEEK,
    EV_PLAY,
    EV_REBUILD,
    EV_TRADE,
    EV_TRICK,
    AstrobirdzGame,
)

NUM_PHASES = len(Phase) - 1  # OVER is all zeros
MAX_TURNS = max(data.TURNS.values())
SCORE_SCALE = 500.0
"""Running scores are shown divided by this and capped at 1."""
NC = data.NUM_CARDS


@dataclass(frozen=True)
class Field:
    """One observation field: ``kind`` says how it is stored and rotated.

    * ``pub``: the same for every observer;
    * ``seat``: one block of ``width`` per seat, shown from the observer's seat;
    * ``trick``: slots of a card one-hot (54) and a seat (n, from the
      observer's seat): the current trick (a slot per card in play order: who
      played it) or this turn's finished tricks (a slot per trick: its cards
      and who holds it);
    * ``priv``: the observer's own;
    * ``priv_seat``: the observer's own, one block per other player (n-1),
      from its left neighbour on.
    """

    name: str
    kind: str
    width: int
    doc: str


def field_table(n: int) -> list[Field]:
    """The observation layout for ``n`` players, in vector order."""
    return [
        Field("phase", "pub", NUM_PHASES, "one-hot: choose_trump, discard, pass_right, "
              "pass_left, surfette_partner, surfette_cards, nitro_peek, guess, play, "
              "astroboard, astroboard_trick (all zero once over)"),
        Field("turn", "pub", MAX_TURNS, "one-hot turn number 1..8"),
        Field("hand_size", "pub", 1, "tricks this turn / the configuration's largest hand"),
        Field("trump_card", "pub", NC, "one-hot: the turned-up card (its rule holds)"),
        Field("trump_colour", "pub", data.NUM_COLOURS,
              "one-hot: the turn's trump colour (zero while a player chooses it)"),
        Field("trick_trump", "pub", data.NUM_COLOURS,
              "one-hot: the current trick's trump colour (changed by a 2, 3 or 5 played)"),
        Field("led_colour", "pub", data.NUM_COLOURS, "one-hot: colour led in the current trick"),
        Field("trick", "trick", n * (NC + n), "per position in play order: card one-hot "
              "(54) + who played it (n, relative)"),
        Field("played", "pub", NC, "cards of this turn's finished tricks"),
        Field("tricks", "trick", NUM_TRICKS * (NC + n), "per finished trick of this turn, "
              "in play order: its cards (54) + who holds it (n, relative)"),
        Field("guesses", "seat", data.MAX_HAND + 1, "one-hot guess 0..10 (zero: not yet)"),
        Field("tricks_won", "seat", 1, "tricks held / the configuration's largest hand"),
        Field("scores", "seat", 1, "running score / 500, capped at 1"),
        Field("berzerkerbirdz", "seat", 6, "one-hot Berzerkerbird 1..6 (zero: none)"),
        Field("astroboard", "seat", 1, "1 for the AstroBoard holder"),
        Field("astroboard_partner", "seat", 1,
              "1 for the partner the AstroBoard holder chose (while it picks the trick)"),
        Field("dealer", "seat", 1, "1 for the dealer"),
        Field("peeked", "seat", 1, "1 for the player whose hand Nitro looked at"),
        Field("surfette_partner", "seat", 1, "1 for Surfette's trade partner"),
        Field("traded", "pub", 1, "cards Surfette traded / 2"),
        Field("hand", "priv", NC, "own cards"),
        Field("chosen", "priv", NC, "own cards chosen so far to pass, discard or trade"),
        Field("known", "priv_seat", NC, "per other player: cards the observer can tell "
              "are in its hand (seen by Nitro's peek or given to it this turn, not played "
              "or possibly taken since)"),
        Field("discarded", "priv", NC, "own cards discarded this turn, still out of play"),
    ]  # fmt: skip


def observed_width(f: Field, n: int) -> int:
    if f.kind == "seat":
        return n * f.width
    if f.kind == "priv_seat":
        return (n - 1) * f.width
    return f.width


def observation_size(n: int) -> int:
    return sum(observed_width(f, n) for f in field_table(n))


class AstrobirdzObserver:
    """The store, the per-seat gather indices, and the update rules."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.fields = field_table(n)
        self.size = observation_size(n)
        store_at: dict[str, int] = {}
        at = 0
        for f in self.fields:
            if f.kind in ("pub", "trick"):
                store_at[f.name] = at
                at += f.width
            elif f.kind == "seat":
                store_at[f.name] = at
                at += n * f.width
        self.private_start = at
        private_at: dict[str, int] = {}
        p = 0
        for f in self.fields:
            if f.kind == "priv":
                private_at[f.name] = p
                p += f.width
            elif f.kind == "priv_seat":
                private_at[f.name] = p
                p += n * f.width
        self.private_width = p
        self.store_size = at + n * p
        self.store_at, self.private_at = store_at, private_at
        self.store = np.zeros(self.store_size, dtype=np.float32)
        self.obs_at: dict[str, int] = {}
        self.index = [self._gather_index(seat) for seat in range(n)]
        self.slot = NC + n
        self.hand_at = [self._priv(seat, "hand") for seat in range(n)]
        self.known_at = [self._priv(seat, "known") for seat in range(n)]
        self.trick_at = store_at["trick"]
        self.tricks_at = store_at["tricks"]
        self.led_at = store_at["led_colour"]
        self.shown_phase = -1
        """The phase the store shows; differs from the engine's when it is stale."""
        self._trick_trump = -1
        self._tricks_shown = 0
        """Finished tricks of this turn the store shows (see :meth:`_write_new_tricks`)."""
        self._change_numbers: frozenset[int] = frozenset()
        self._change_to = -1
        self.hand_scale = float(data.MAX_HAND)
        """Hand sizes and trick counts are shown divided by the configuration's
        largest hand (set from the game at each rebuild)."""

    def _gather_index(self, seat: int) -> np.ndarray:
        n = self.n
        out: list[int] = []
        for f in self.fields:
            self.obs_at[f.name] = len(out)
            base = self.store_at.get(f.name, 0)
            if f.kind == "pub":
                out += range(base, base + f.width)
            elif f.kind == "seat":
                for rel in range(n):
                    block = base + ((seat + rel) % n) * f.width
                    out += range(block, block + f.width)
            elif f.kind == "trick":
                for slot in range(f.width // (NC + n)):
                    start = base + slot * (NC + n)
                    out += range(start, start + NC)
                    out += [start + NC + (seat + rel) % n for rel in range(n)]
            else:
                own = self.private_start + seat * self.private_width + self.private_at[f.name]
                if f.kind == "priv":
                    out += range(own, own + f.width)
                else:
                    for rel in range(1, n):
                        block = own + ((seat + rel) % n) * f.width
                        out += range(block, block + f.width)
        assert len(out) == self.size
        return np.asarray(out, dtype=np.intp)

    # -- reading --

    def encode(self, seat: int) -> np.ndarray:
        """The observation of ``seat``: a fresh array."""
        return self.store[self.index[seat]]

    def stale(self, game: AstrobirdzGame) -> bool:
        """True if the engine changed since the last :meth:`sync`."""
        return bool(game.events) or game.phase != self.shown_phase

    # -- writing --

    def _priv(self, seat: int, name: str) -> int:
        return self.private_start + seat * self.private_width + self.private_at[name]

    def sync(self, game: AstrobirdzGame) -> None:
        """Apply the engine's new events, then clear its log."""
        events = game.events
        for event in events:
            if event[0] == EV_REBUILD:
                self.rebuild(game)
                break
        else:
            for event in events:
                self._apply(game, event)
            self._sync_phase(game)
        events.clear()

    def _apply(self, game: AstrobirdzGame, event: tuple[int, ...]) -> None:
        kind, store, at = event[0], self.store, self.store_at
        if kind == EV_PLAY:
            _, seat, card, position, knew = event
            store[self.hand_at[seat] + card] = 0.0
            slot = self.trick_at + position * self.slot
            store[slot + card] = 1.0
            store[slot + NC + seat] = 1.0
            if position == 0:
                store[self.led_at + card // 9] = 1.0
            if knew:
                for observer in range(self.n):
                    if knew >> observer & 1:
                        store[self.known_at[observer] + seat * NC + card] = 0.0
            if card % 9 + 1 in self._change_numbers:
                self._set_trick_trump(self._change_to)
        elif kind == EV_TRICK:
            lo = self.trick_at
            store[lo : lo + self.n * self.slot] = 0.0
            lo = self.led_at
            store[lo : lo + data.NUM_COLOURS] = 0.0
            self._write_new_tricks(game)
            self._set_trick_trump(game.trump)
        elif kind == EV_GUESS:
            _, seat, tricks = event
            store[at["guesses"] + seat * (data.MAX_HAND + 1) + tricks] = 1.0
        elif kind == EV_CHOOSE:
            _, seat, card = event
            store[self._priv(seat, "chosen") + card] = 1.0
        elif kind == EV_PEEK:
            _, nitro, target = event
            store[at["peeked"] + target] = 1.0
            self._write_bits(self.known_at[nitro] + target * NC, game.known[nitro][target])
        elif kind == EV_ASTRO:
            store[at["astroboard"] + event[1]] = 1.0
        elif kind == EV_PARTNER:
            store[at["surfette_partner"] + event[1]] = 1.0
        elif kind == EV_TRADE:  # the two traders' hands, and what onlookers know
            store[at["traded"]] = game.traded / 2
            for seat in range(self.n):
                self._write_private(game, seat)

    def _write_finished(self, game: AstrobirdzGame) -> None:
        """Rewrite this turn's finished tricks (``played``, ``tricks``, ``tricks_won``)
        from the engine. Not from the event: when several tricks end between two
        syncs, the engine already holds the later ones, so only its whole list of
        finished tricks is right whatever the call pattern."""
        store, at, n = self.store, self.store_at, self.n
        played = at["played"]
        store[played : played + NC] = 0.0
        store[self.tricks_at : self.tricks_at + NUM_TRICKS * self.slot] = 0.0
        ones = [played + c for c in bits(game.played)]
        for index, cards in enumerate(game.finished):
            slot = self.tricks_at + index * self.slot
            ones += [slot + c for c in cards]
            ones.append(slot + NC + game.holders[index])
        store[ones] = 1.0
        self._tricks_shown = len(game.finished)
        lo = at["tricks_won"]
        store[lo : lo + n] = [game.tricks_won(s) / self.hand_scale for s in range(n)]

    def _write_new_tricks(self, game: AstrobirdzGame) -> None:
        """Add the tricks finished since the store last showed them (their cards,
        holders and the cards played) and rewrite the tricks won. Within a turn
        tricks are only added; a change of holder (the AstroBoard's move) or a
        new turn makes the engine ask for a rebuild, which writes them all."""
        store, at, n = self.store, self.store_at, self.n
        finished = game.finished
        played = at["played"]
        ones: list[int] = []
        for index in range(self._tricks_shown, len(finished)):
            slot = self.tricks_at + index * self.slot
            cards = finished[index]
            ones += [slot + c for c in cards]
            ones += [played + c for c in cards]
            ones.append(slot + NC + game.holders[index])
        store[ones] = 1.0
        self._tricks_shown = len(finished)
        lo = at["tricks_won"]
        store[lo : lo + n] = [game.tricks_won(s) / self.hand_scale for s in range(n)]

    def _write_bits(self, base: int, mask: int) -> None:
        """Set a 54-card row to the cards of ``mask``."""
        store = self.store
        store[base : base + NC] = 0.0
        for card in bits(mask):
            store[base + card] = 1.0

    def _write_private(self, game: AstrobirdzGame, seat: int) -> None:
        """Rewrite one seat's private block from the engine."""
        lo = self.private_start + seat * self.private_width
        self.store[lo : lo + self.private_width] = 0.0
        ones: list[int] = []
        self._private_ones(game, seat, ones)
        self.store[ones] = 1.0

    def _private_ones(self, game: AstrobirdzGame, seat: int, ones: list[int]) -> None:
        base = self.hand_at[seat]
        ones += [base + c for c in bits(game.hands[seat])]
        base = self._priv(seat, "chosen")
        ones += [base + c for c in game.chosen[seat]]
        base = self.known_at[seat]
        for other, mask in enumerate(game.known[seat]):
            if mask and other != seat:
                ones += [base + other * NC + c for c in bits(mask)]
        base = self._priv(seat, "discarded")
        ones += [base + c for c in bits(game.discarded[seat])]

    def _set_trick_trump(self, colour: int) -> None:
        if colour == self._trick_trump:
            return
        lo = self.store_at["trick_trump"]
        self.store[lo : lo + data.NUM_COLOURS] = 0.0
        if colour >= 0:
            self.store[lo + colour] = 1.0
        self._trick_trump = colour

    def _sync_phase(self, game: AstrobirdzGame) -> None:
        phase = int(game.phase)
        if phase == self.shown_phase:
            return
        lo = self.store_at["phase"]
        if 0 <= self.shown_phase < NUM_PHASES:
            self.store[lo + self.shown_phase] = 0.0
        if phase < NUM_PHASES:
            self.store[lo + phase] = 1.0
        self.shown_phase = phase

    def rebuild(self, game: AstrobirdzGame) -> None:
        """Write the whole store from the engine's state (a few times a turn)."""
        n, store, at = self.n, self.store, self.store_at
        effect = game.rule.effect
        self._change_numbers, self._change_to = effect.trump_change_numbers, effect.trump_change_to
        store.fill(0.0)
        ones = [at["turn"] + game.turn - 1, at["trump_card"] + game.trump_card]
        if game.phase < NUM_PHASES:
            ones.append(at["phase"] + game.phase)
        self.shown_phase = int(game.phase)
        if game.trump >= 0:
            ones.append(at["trump_colour"] + game.trump)
            self._trick_trump = trick_trump(game.trick, game.trump, effect)
            ones.append(at["trick_trump"] + self._trick_trump)
        else:
            self._trick_trump = -1
        if game.trick:
            ones.append(self.led_at + game.trick[0] // 9)
        for position, card in enumerate(game.trick):
            slot = self.trick_at + position * self.slot
            ones += (slot + card, slot + NC + game.trick_order[position])
        guess_width = data.MAX_HAND + 1
        for seat in range(n):
            if game.guesses[seat] >= 0:
                ones.append(at["guesses"] + seat * guess_width + game.guesses[seat])
            if game.birds[seat]:
                ones.append(at["berzerkerbirdz"] + seat * 6 + game.birds[seat] - 1)
            self._private_ones(game, seat, ones)
        markers = (("astroboard", game.astroboard), ("dealer", game.dealer),
                   ("peeked", game.peeked), ("surfette_partner", game.partner),
                   ("astroboard_partner", game.astro_partner))  # fmt: skip
        for name, seat in markers:
            if seat >= 0:
                ones.append(at[name] + seat)
        store[ones] = 1.0
        self.hand_scale = float(game.config.max_hand)
        store[at["hand_size"]] = game.hand_size / self.hand_scale
        store[at["traded"]] = game.traded / 2
        self._write_finished(game)
        lo = at["scores"]
        store[lo : lo + n] = [min(1.0, max(0, s) / SCORE_SCALE) for s in game.scores_]


# -- table talk: what a seat is told happened, from its views ---------------------

MOVE_WORDS = {
    "nitro_peek": "looks at the hand of ",
    "surfette_partner": "trades with ",
    "astroboard": "AstroBoard power with ",
    "choose_trump": "names the trump colour: ",
}
"""Words before a move's string, by the phase it is made in, where the string alone
reads oddly in narration (``player_2 names the trump colour: trump P``)."""

TALLY_ITEMS = (
    ("trick_points", "tricks"),
    ("exact", "exact guess"),
    ("highest", "highest guess"),
    ("astroboard", "AstroBoard"),
    ("turbo", "Turbo"),
    ("card_points", "card points"),
    ("berzerkerbird", "bird"),
    ("first_last", "first/last trick"),
    ("parity", "even/odd bonus"),
)
"""The items of a player's turn on the tally sheet (``last_turn``), as narrated."""


def signed(value: float) -> str:
    """``+2``, ``-1``, ``0``: a score change as the tally sheet writes it."""
    return f"+{value:g}" if value > 0 else f"{value:g}"


def turn_item_text(item: dict[str, int]) -> str:
    """One player's turn on the tally sheet: ``guessed 2, won 2: tricks +2, ...``."""
    parts = [f"{label} {signed(item[key])}" for key, label in TALLY_ITEMS if item.get(key)]
    if item.get("penalty"):
        parts.append(f"off by {item['penalty']} {signed(-item['penalty'])}")
    if item.get("multiplier", 1) != 1:
        parts.append(f"x{item['multiplier']}")
    return (
        f"guessed {item['guess']}, won {item['tricks']}: {', '.join(parts) or 'nothing'} "
        f"= {signed(item['total'])}"
    )


def narrate_changes(
    old: dict[str, Any],
    new: dict[str, Any],
    who: Callable[[str], str],
    last_move: tuple[str, str] | None,
) -> list[str]:
    """What changed between two of a seat's views (``env.view``), in words, for
    terminal play and replays: the completed trick with its winner, the turn's
    scoring item by item and the next turn's deal. ``last_move`` is the move
    (agent, string) made since ``old``: a trick's last card is in neither view's
    ``trick``. Only the views are read, so nothing is told that the seat may not
    see; ``who`` names an agent for that seat."""
    lines = []
    if last_move is not None and old.get("phase") == "play" and not new["trick"]:
        plays = [(p["player"], p["card"]) for p in old["trick"]] + [last_move]
        winner = _trick_winner(old, new)
        shown = ", ".join(f"{a} {c}" for a, c in plays)
        lines.append(f"trick complete: {shown} -> won by {who(winner) if winner else '?'}")
    if new.get("last_turn") and new["last_turn"] != old.get("last_turn"):
        turn = new["turn"] if new["over"] else new["turn"] - 1
        lines.append(f"turn {turn} scored:")
        for agent, item in new["last_turn"].items():
            lines.append(f"  {who(agent)}: {turn_item_text(item)} (total {new['scores'][agent]})")
    if new["turn"] != old["turn"] and not new["over"]:
        rule = new["trump_rule"]
        lines.append(
            f"turn {new['turn']} of {new['turns']}: {new['hand_size']} cards each; trump card "
            f"{new['trump_card']} ({rule['title']}: {rule['text']})"
        )
    return lines


def _trick_winner(old: dict[str, Any], new: dict[str, Any]) -> str | None:
    """Who won the trick completed between two views: the trick winners' list of
    the turn, or, when the turn ended with it, the one player whose tricks grew."""
    if new["turn"] == old["turn"] and len(new["trick_winners"]) > len(old["trick_winners"]):
        return new["trick_winners"][-1]
    last = new.get("last_turn") or {}
    grew = [a for a, item in last.items() if item["tricks"] - old["tricks_won"][a] == 1]
    return grew[0] if len(grew) == 1 else None
