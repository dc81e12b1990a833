"""A rule-based Skybirds player, the baseline a trained agent must beat.

It plays the way a decent casual player does:

* **Leads with its weakest set**: the lowest value it holds, every copy of it
  (a set is never broken to lead), Medallion Aces kept back; Roland Garros is
  played alone (he wins the Dogfight at once and the lead comes back). With a
  single set left besides Medallions it plays the Medallions first when no one
  can beat them.
* **Follows with the cheapest Squadron that wins**: the lowest value of the
  right size, preferring not to break a larger set; it passes rather than
  spend a high set early.
* **Keeps Medallions for when they decide a Dogfight**: a Medallion single is
  played only when nothing cheaper wins and the Dogfight matters (an opponent
  is close to going out, or the bot itself is), or when no card left unseen
  can beat it.
* **Uses tokens when they win a Dogfight it would lose**: when it would have
  to pass and the Dogfight matters, it plays the token move that wins with the
  fewest and lowest Aces, using face-up tokens before flipped ones (a flipped
  token goes back to the Aerodrome and may block progress).
* **Takes the token that moves it toward the Armistice**: the Armistice when
  it can, else the deepest token it may take, preferring those that open the
  most tokens it does not hold yet (the Tiebreaker opens both C tokens); it
  trades +1VP tokens for such tokens whenever it can afford them. Before a
  Campaign it swaps away its lowest single Ace with a face-up swap token.

It reads only its own seat's ``view`` and the action mask, and plans a token
move once (its steps are then played in order).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.bots import legal_from_mask
from ..core.compiled import act_on_compiled_table
from ..core.rng import make_rng
from . import data
from .actions import GARROS_ALONE, PASS, SET_ID, ActionLayout
from .basics import BONUS_BITS
from .data import CARD_COUNTS, MEDALLIONS, NUM_KINDS, Token
from .native import NativeHeuristicBot, NativeSkybirdsGame
from .rules import Move, Table, token_sets, valid_moves

LATE_HAND = 3
"""With this many cards or fewer (the bot's or an opponent's) a Dogfight decides
who goes out: Medallions and tokens come out."""
HIGH_VALUE = 8
"""Early in a Campaign the bot passes rather than follow with a set this high."""


_KIND_OF = {text: kind for kind, text in enumerate(data.CARD_TEXT)}
"""A view's card strings (``data.CARD_TEXT``) -> card kinds, without parsing."""


def counts_of(cards: list[str]) -> list[int]:
    """Count vector of card strings (a view's own spelling is looked up; any other
    is parsed, so that a hand written by hand reads the same)."""
    out = [0] * NUM_KINDS
    kind_of = _KIND_OF
    for text in cards:
        kind = kind_of.get(text)
        out[data.parse_card(text) if kind is None else kind] += 1
    return out


class SkybirdsHeuristicBot:
    """See the module docstring. ``seed`` only breaks exact ties."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = make_rng(seed)
        self._plan: list[str] = []
        self._tables: dict[tuple[tuple[Any, ...], ...], tuple[Token, ...]] = {}
        self._rows: Any = None
        """The Aerodrome rows last read (a view shares its config's list between
        calls) and their tokens: the same list is not read again."""
        self._rows_tokens: tuple[Token, ...] = ()
        self._layouts: dict[tuple[int, int], tuple[tuple[Token, ...], ActionLayout]] = {}
        """(players, id of the tokens) -> (the tokens, their layout), built once."""
        self._compiled: Any = None
        """The compiled bot of :meth:`act_on_table`, made on its first use."""

    def act_on_table(self, raw: Any, agent: str) -> int | None:
        """The same choice as :meth:`act`, made by the compiled bot straight from
        a compiled engine (no view built); None on the Python engine (then
        :meth:`act` is asked); see :func:`~flockgym.envs.core.compiled.act_on_compiled_table`."""
        return act_on_compiled_table(self, raw, agent, NativeSkybirdsGame, NativeHeuristicBot)

    def act(self, observation: dict[str, np.ndarray], view: dict[str, Any]) -> int:
        legal = [int(a) for a in legal_from_mask(observation)]
        tokens = self._aerodrome(view)
        seat = int(view["agent"].split("_")[1])
        layout = self._layout(view["players"], tokens)
        choice = self._decide(view, tokens, layout, seat, set(legal))
        if choice is None or choice not in legal:
            self._plan = []
            return int(self.rng.choice(legal))
        return choice

    def _aerodrome(self, view: dict[str, Any]) -> tuple[Token, ...]:
        rows = view["aerodrome"]
        if rows is self._rows:
            return self._rows_tokens
        key = tuple(tuple(row.values()) for row in rows)
        if key not in self._tables:
            self._tables[key] = data.parse_aerodrome(rows)
        self._rows, self._rows_tokens = rows, self._tables[key]
        return self._rows_tokens

    def _layout(self, players: int, tokens: tuple[Token, ...]) -> ActionLayout:
        """The action layout of ``players`` and ``tokens`` (kept: it is the same all game)."""
        cached = self._layouts.get((players, id(tokens)))
        if cached is None or cached[0] is not tokens:
            cached = (tokens, ActionLayout(players, tokens))
            self._layouts[(players, id(tokens))] = cached
        return cached[1]

    # -- dispatch --

    def _decide(
        self,
        view: dict[str, Any],
        tokens: tuple[Token, ...],
        layout: ActionLayout,
        seat: int,
        legal: set[int],
    ) -> int | None:
        phase, step = view["phase"], view["step"]
        if phase == "dogfight":
            if step != "start":
                planned = self._follow_plan(layout, seat, legal)
                if planned is None:
                    planned = self._replan(view, tokens, layout, seat, legal)
                return planned
            self._plan = []
            return self._dogfight(view, tokens, layout, seat, legal)
        if phase == "take":
            return self._take(view, tokens, layout, legal)
        if phase == "trade":
            return self._trade(view, tokens, layout, legal)
        if phase == "pre_campaign":
            return self._pre_campaign(view, tokens, layout, seat, legal)
        return None

    def _follow_plan(self, layout: ActionLayout, seat: int, legal: set[int]) -> int | None:
        if not self._plan:
            return None
        action = layout.from_string(seat, self._plan.pop(0))
        return action if action in legal else None

    def _replan(
        self,
        view: dict[str, Any],
        tokens: tuple[Token, ...],
        layout: ActionLayout,
        seat: int,
        legal: set[int],
    ) -> int | None:
        """Mid-move without a plan (a bot that joined a move in progress): the
        cheapest move that continues what is already chosen."""
        pending = view["pending"] or {}
        names = [t.name for t in tokens]
        bits = 0
        for name in pending.get("tokens", []):
            bits |= BONUS_BITS[tokens[names.index(name)].bonus]
        prefix = tuple(data.parse_card(c) for c in pending.get("cards", []))
        wild = pending.get("wild") or 0
        table = (
            (view["squadron_size"], view["table"]["medallions"], view["table"]["value"])
            if (view["table"] is not None)
            else None
        )
        hand = tuple(counts_of(view["hand"]))
        candidates = [
            m
            for m in valid_moves(hand, bits, table)
            if m[0][: len(prefix)] == prefix and (not wild or (m[0] == prefix and m[1] == wild))
        ]
        if not candidates:
            uses = sorted(a for a in legal if layout.use(0) <= a < layout.add_offset)
            return uses[0] if uses else None
        steps = _move_steps(min(candidates, key=_move_cost), [])
        done = len(prefix) + (1 if wild else 0)
        self._plan = steps[done + 1 :]
        return layout.from_string(seat, steps[done])

    # -- Dogfights --

    def _dogfight(
        self,
        view: dict[str, Any],
        tokens: tuple[Token, ...],
        layout: ActionLayout,
        seat: int,
        legal: set[int],
    ) -> int | None:
        hand = counts_of(view["hand"])
        plays = sorted(a for a in legal if a < PASS)
        if view["table"] is None:
            return self._lead(view, hand, plays)
        return self._follow(view, hand, plays, tokens, layout, seat, legal)

    def _lead(self, view: dict[str, Any], hand: list[int], plays: list[int]) -> int | None:
        if hand[data.GARROS]:
            return GARROS_ALONE if GARROS_ALONE in plays else (plays[0] if plays else None)
        values = [v for v in range(1, 11) if hand[v]]
        plain = [v for v in values if not MEDALLIONS[v]]
        strong = [v for v in values if MEDALLIONS[v]]
        if len(plain) <= 1 and strong and self._unbeatable(view, hand, max(strong)):
            value = max(strong)
        elif plain:
            value = plain[0]
        else:
            value = strong[0]
        return SET_ID[(value, hand[value])]

    def _unbeatable(self, view: dict[str, Any], hand: list[int], value: int) -> bool:
        """No unseen Ace beats a single ``value`` (Medallion Aces only)."""
        unseen = self._unseen(view, hand)
        return not any(unseen[v] for v in range(value + 1, 11) if MEDALLIONS[v])

    def _unseen(self, view: dict[str, Any], hand: list[int]) -> list[int]:
        played = counts_of(view["played"])
        return [CARD_COUNTS[k] - played[k] - hand[k] for k in range(NUM_KINDS)]

    def _decisive(self, view: dict[str, Any], hand: list[int]) -> bool:
        """Whether this Dogfight decides who goes out soon."""
        me = view["agent"]
        left = view["cards_left"]
        close = any(n and n <= LATE_HAND for a, n in left.items() if a != me)
        return close or sum(hand) <= LATE_HAND + 1

    def _follow(
        self,
        view: dict[str, Any],
        hand: list[int],
        plays: list[int],
        tokens: tuple[Token, ...],
        layout: ActionLayout,
        seat: int,
        legal: set[int],
    ) -> int | None:
        size = view["squadron_size"]
        decisive = self._decisive(view, hand)

        def cost(action: int) -> tuple[float, int]:
            value, count = _set_of(action)
            breaks = hand[value] > count
            medallion = MEDALLIONS[value] and count < size
            return (value + (6 if breaks else 0) + (20 if medallion else 0), value)

        if plays:
            best = min(plays, key=cost)
            value, count = _set_of(best)
            medallion_single = MEDALLIONS[value] and count < size
            goes_out = count == sum(hand)
            if goes_out or not medallion_single or decisive or self._unbeatable(view, hand, value):
                early = sum(hand) > 2 * LATE_HAND and not decisive
                if not (early and value >= HIGH_VALUE and hand[value] > count):
                    return best
            return PASS
        if decisive:
            planned = self._token_move(view, hand, tokens, layout, seat)
            if planned:
                self._plan = planned[1:]
                return layout.from_string(seat, planned[0])
        return PASS

    def _token_move(
        self,
        view: dict[str, Any],
        hand: list[int],
        tokens: tuple[Token, ...],
        layout: ActionLayout,
        seat: int,
    ) -> list[str]:
        """The steps of the cheapest token move that beats the table, or []."""
        held = view["tokens"][view["agent"]]
        usable = tuple(
            (i, BONUS_BITS[t.bonus])
            for i, t in enumerate(tokens)
            if t.name in held and t.bonus in BONUS_BITS
        )
        if not usable:
            return []
        table: Table = (
            view["squadron_size"],
            view["table"]["medallions"],
            view["table"]["value"],
        )
        key = tuple(hand)
        best: tuple[tuple[float, ...], list[str]] | None = None
        one = view["tokens_per_turn"] == "one"
        for token_bits in token_sets(key, usable, table, one):
            used = [i for i in range(len(tokens)) if token_bits >> i & 1]
            flipped = sum(held[tokens[i].name] == "back" for i in used)
            bonus = 0
            for i in used:
                bonus |= BONUS_BITS[tokens[i].bonus]
            for move in valid_moves(key, bonus, table):
                score = (flipped, len(used), *_move_cost(move))
                if best is None or score < best[0]:
                    best = (score, _move_steps(move, [tokens[i].name for i in used]))
        return best[1] if best else []

    # -- tokens --

    def _token_score(self, tokens: tuple[Token, ...], held: dict[str, str], index: int) -> float:
        """How much a token moves the bot toward the Armistice: the Armistice
        first, then deeper (higher-VP) tokens, then those opening the most
        tokens not yet held."""
        token = tokens[index]
        if token.bonus == "armistice":
            return 1000.0
        opens = sum(1 for t in tokens if token.name in t.prerequisites and t.name not in held)
        return token.vp_front * 10 + opens + (0.5 if token.bonus == "tiebreaker" else 0)

    def _take(
        self, view: dict[str, Any], tokens: tuple[Token, ...], layout: ActionLayout, legal: set[int]
    ) -> int | None:
        held = view["tokens"][view["agent"]]
        options = [i for i in range(len(tokens)) if layout.take(i) in legal]
        if not options:
            return layout.plus_one if layout.plus_one in legal else None
        return layout.take(max(options, key=lambda i: self._token_score(tokens, held, i)))

    def _trade(
        self, view: dict[str, Any], tokens: tuple[Token, ...], layout: ActionLayout, legal: set[int]
    ) -> int | None:
        held = view["tokens"][view["agent"]]
        options = [i for i in range(len(tokens)) if layout.trade(i) in legal]
        if not options:
            return layout.done
        return layout.trade(max(options, key=lambda i: self._token_score(tokens, held, i)))

    def _pre_campaign(
        self,
        view: dict[str, Any],
        tokens: tuple[Token, ...],
        layout: ActionLayout,
        seat: int,
        legal: set[int],
    ) -> int | None:
        step = view["step"]
        hand = counts_of(view["hand"])
        if step == "start":
            held = view["tokens"][view["agent"]]
            singles = [v for v in range(1, 11) if hand[v] == 1 and v <= 3]
            for i, token in enumerate(tokens):
                need = 1 if token.bonus == "swap_one" else 2
                face_up = held.get(token.name) == "front"
                if layout.use(i) in legal and face_up and len(singles) >= need:
                    return layout.use(i)
            return layout.done
        if step == "target":
            left = view["cards_left"]
            targets = [a for a in legal if a >= layout.target_offset and a < layout.give_offset]
            return max(targets, key=lambda a: left[f"player_{layout.target_seat(seat, a)}"])
        gives = sorted(a for a in legal if layout.give_offset <= a < layout.take_offset)
        numbered = [a for a in gives if a != layout.give(data.GARROS)]
        return (numbered or gives)[0]


_SET_OF = {set_id: value_count for value_count, set_id in SET_ID.items()}


def _set_of(action: int) -> tuple[int, int]:
    """(value, count) of a plain set id."""
    try:
        return _SET_OF[action]
    except KeyError:
        raise ValueError(f"{action} is not a plain set") from None


def _move_cost(move: Move) -> tuple[float, ...]:
    """Cheaper moves spend fewer and lower Aces (and no Medallion Aces)."""
    naturals, wild, _declare, _size, _value, icons = move
    cards = [*naturals, wild] if wild else list(naturals)
    return (float(icons), float(sum(cards)) / max(1, len(cards)), float(-len(cards)))


def _move_steps(move: Move, used: list[str]) -> list[str]:
    naturals, wild, declare, *_ = move
    steps = [f"use {name}" for name in used]
    steps += [f"add {data.card_text(k)}" for k in naturals]
    if wild:
        steps += [f"wild {wild}", f"declare {declare}"]
    else:
        steps.append("done")
    return steps
